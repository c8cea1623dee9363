"""Tests of GPOPE's per-step mechanism and its white-box view."""

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.mechanisms.gpope_step import GpopeStep
from dpaudit.privacy.relations import add_remove_one, replace_one, simplex_adjacent

VALID = dict(records=10, clip_norm=1.0, noise_multiplier=1.2, steps=5, sampling="uniform_one")


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        ("records", 1, InvalidArgument),
        ("records", 2.0, InvalidType),
        ("clip_norm", 0, InvalidArgument),
        ("clip_norm", -0.0, InvalidArgument),
        ("clip_norm", math.nan, InvalidArgument),
        ("noise_multiplier", math.inf, InvalidArgument),
        ("noise_multiplier", 0.0, InvalidArgument),
        ("steps", 0, InvalidArgument),
        ("sampling", "shuffle", InvalidArgument),
    ],
)
def test_invalid_parameters(key, value, error):
    with pytest.raises(error):
        GpopeStep(**{**VALID, key: value})


@pytest.mark.parametrize("noise", [5e-324, 1 - 2**-53, 1e300])
def test_valid_nasty_noise(noise):
    assert GpopeStep(**{**VALID, "noise_multiplier": noise}).noise_std > 0


def test_registered():
    step = build_mechanism("gpope_step", VALID)
    assert isinstance(step, GpopeStep)


@pytest.mark.parametrize("sampling", ["uniform_one", "poisson"])
def test_release_clips_and_is_reproducible(sampling):
    step = GpopeStep(**{**VALID, "sampling": sampling, "noise_multiplier": 1e-12})
    gradients = np.zeros((10, 3))
    gradients[0] = [30.0, 40.0, 0.0]
    first = step.release(gradients, rng=7, size=2000)
    assert np.allclose(first, step.release(gradients, rng=7, size=2000))
    assert np.all(np.linalg.norm(first, axis=1) <= (1.0 if sampling == "uniform_one" else 10.0) + 1e-9)
    assert step.release(gradients, rng=1).shape == (3,)
    hit = np.linalg.norm(first, axis=1) > 0.5
    assert 0.05 < hit.mean() < 0.16


def test_release_rejects_wrong_rows():
    with pytest.raises(InvalidArgument):
        GpopeStep(**VALID).release(np.zeros((3, 2)), rng=0)


def test_step_pairs_per_reading():
    algorithm = GpopeStep(**VALID)
    proof = GpopeStep(**{**VALID, "sampling": "poisson"})
    for relation in (replace_one(), add_remove_one()):
        view = algorithm.step_pairs(relation)
        assert view.sensitivity == 2.0 and view.sampling_probability == 0.1 and len(view.pairs) == 2
        assert view.pairs[0].first.means == (0.0, 2.0) and view.pairs[0].first.sigma == 1.2
    assert proof.step_pairs(add_remove_one()).sensitivity == 1.0
    assert proof.step_pairs(replace_one()).pairs[0].second.means == (0.0, -1.0)
    assert proof.step_witness_pair(replace_one()).second.means == (0.0,)
    with pytest.raises(InvalidArgument):
        algorithm.step_pairs(simplex_adjacent(0.5))
