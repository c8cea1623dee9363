"""Parametric noise fits and atom events: each must say violated on a leak it exists for, and not otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.events import AtomProjection, atoms_of
from dpaudit.checks.empirical.parametric import fit_pair
from dpaudit.checks.empirical.sampling import NeighbourPair

PAIR = NeighbourPair(np.zeros(1), np.ones(1), "0 vs 1")


class _Gaussian:
    def __init__(self, sigma: float, atom: float = 0.0):
        self.sigma, self.atom = sigma, atom

    def release(self, data, *, rng, size=None):
        value = np.asarray(data, dtype=float)
        draws = value + self.sigma * rng.standard_normal((size, *value.shape))
        if self.atom:
            hit = rng.random(size) < self.atom
            draws[hit] = value
        return draws


def test_atoms_are_repeated_rows_and_the_input():
    outputs = np.array([[0.5], [0.5], [-0.0], [0.0], [0.25]])
    atoms = atoms_of(outputs, np.array([3.0]))
    assert atoms == ((0.0,), (0.5,), (3.0,))  # -0.0 and 0.0 are one value; the input is added
    projection = AtomProjection(atoms, "test")
    assert projection.scores(np.array([[0.5], [0.1], [3.0]])).tolist() == [1.0, 0.0, 1.0]
    assert projection.scores(np.zeros((2, 2))).tolist() == [0.0, 0.0]  # another shape: no atom


def _bound(mechanism, samples=400_000, events=("threshold", "atom")):
    budget = AuditBudget(samples, events=events)
    return certify_privacy_lower_bound(mechanism, [PAIR], delta=1e-5, budget=budget, seed=3).epsilon_lower_bound


def test_atom_events_certify_an_output_that_is_sometimes_exact():
    assert _bound(_Gaussian(1.0, atom=2e-3)) > 4.38
    assert _bound(_Gaussian(1.0, atom=2e-3), events=("threshold",)) < 4.38  # thresholds cannot see it
    assert _bound(_Gaussian(1.0)) < 4.377  # the exact epsilon of sigma = 1 at delta = 1e-5


@pytest.mark.parametrize(("sigma", "caught"), [(0.9, True), (1.0, False), (1.2, False)])
def test_gaussian_fit_bounds_epsilon(sigma, caught):
    from dpaudit.privacy.profiles import gaussian_epsilon

    rng = np.random.default_rng(11)
    first = sigma * rng.standard_normal((20_000, 1))
    second = 1.0 + sigma * rng.standard_normal((20_000, 1))
    shift, scale, p_value, _ = fit_pair(first, second, "gaussian", 0.05)
    assert p_value > 0.01
    assert scale >= sigma * 0.99 and shift <= 1.0 + 0.05
    epsilon = float(gaussian_epsilon(1e-5, shift, scale, digits=30)[0])
    assert (epsilon > 4.38) is caught
    assert epsilon <= float(gaussian_epsilon(1e-5, 1.0, sigma, digits=30)[1])  # a lower bound of the truth


def test_the_fit_rejects_the_wrong_family():
    rng = np.random.default_rng(2)
    first = rng.laplace(0.0, 0.3, (20_000, 1))
    second = 1.0 + rng.laplace(0.0, 0.3, (20_000, 1))
    assert fit_pair(first, second, "gaussian", 0.05)[2] < 0.01
    assert fit_pair(first, second, "laplace", 0.05)[2] > 0.01


@pytest.mark.parametrize(("scale", "caught"), [(0.8, True), (1.0, False)])
def test_laplace_fit_bounds_epsilon(scale, caught):
    rng = np.random.default_rng(5)
    first = rng.laplace(0.0, scale, (20_000, 1))
    second = 1.0 + rng.laplace(0.0, scale, (20_000, 1))
    shift, upper, p_value, _ = fit_pair(first, second, "laplace", 0.05)
    assert p_value > 0.01
    assert bool(shift / upper > 1.0) is caught
    assert shift / upper <= 1.0 / scale


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_a_point_mass_fits_no_family(family):
    constant = np.zeros((100, 1))
    assert fit_pair(constant, constant + 1.0, family, 0.05)[2] == 0.0
