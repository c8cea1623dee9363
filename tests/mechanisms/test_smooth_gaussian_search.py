"""The smooth-sensitivity Gaussian's input search: pairs at the edges of Lemma 1's relation
(Balle, Gomrokchi & Precup 2016), and a leak that only the searched pairs expose."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import dpaudit
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.smooth_gaussian import SmoothGaussianMechanism
from dpaudit.privacy.relations import parse_relation
from tests.candidate_audits import without_implied_obligations

SPEC = Path(__file__).resolve().parents[2] / "specs" / "examples" / "smooth_gaussian_candidate.toml"
PARAMS = {"epsilon": 1.0, "delta": 0.01, "dim": 2, "constants": "main_text"}
GIVEN = ({"theta": [0.0, 0.0], "smooth_bound": 1.0}, {"theta": [1.0, 0.0], "smooth_bound": 1.0})


def test_every_proposal_is_a_lemma1_pair_the_reference_accepts():
    kind = get_mechanism("smooth_gaussian")
    relation = parse_relation("replace_one")
    proposals = kind.neighbourhood.explore([GIVEN], PARAMS, relation)
    reference = build_mechanism("smooth_gaussian", PARAMS)
    for first, second, label in proposals:
        assert label.startswith("search: ")
        assert kind.check_neighbours(first, second, relation, PARAMS) <= 1.0
        for data in (first, second):
            kind.release(reference, kind.input_domain.from_plain(data), rng=np.random.default_rng(0), size=2)


def test_the_largest_shift_and_log_ratio_come_together_and_first():
    kind = get_mechanism("smooth_gaussian")
    beta = SmoothGaussianMechanism(**PARAMS).parameters.beta
    proposals = kind.neighbourhood.explore([GIVEN], PARAMS, parse_relation("replace_one"))
    first, second, label = proposals[0]
    assert label == "search: given input 0, theta moved by min(S, S') along +e_1, S(X') = S e^{beta/2}"
    assert abs(math.log(second["smooth_bound"] / first["smooth_bound"]) - beta / 2) < 1e-8
    assert abs(np.linalg.norm(np.subtract(second["theta"], first["theta"])) - 1.0) < 1e-8
    together = [label for _, _, label in proposals if "moved by min(S, S')" in label]
    assert [label for _, _, label in proposals[: len(together)]] == together
    small = [pair for pair in proposals if pair[0]["smooth_bound"] == 1e-3]
    large_theta = [pair for pair in proposals if pair[0]["theta"][0] == 1e6]
    assert small and large_theta


def _correct(data, *, epsilon, delta, dim, constants="main_text", rng):
    import numpy as np

    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    theta = np.asarray(data["theta"], dtype=float)
    return theta + alpha * data["smooth_bound"] * rng.standard_normal(theta.shape)


def _rounds_the_bound(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Leaky: S(X) rounded to one decimal, so a small smooth bound gets no noise at all."""
    import numpy as np

    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    theta = np.asarray(data["theta"], dtype=float)
    return theta + alpha * round(data["smooth_bound"], 1) * rng.standard_normal(theta.shape)


def _privacy_verdicts(candidate, tmp_path):
    with without_implied_obligations():  # the spec's obligations are the point
        report = dpaudit.check(candidate, SPEC, quick=True, seed=5, out=tmp_path)
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_a_leak_at_small_smooth_bounds_is_found_by_the_search(tmp_path):
    evidence = _privacy_verdicts(_rounds_the_bound, tmp_path / "leaky")
    found = evidence["empirical-privacy"]
    assert found.verdict.value == "violated"
    assert "S(X) = 0.001" in found.counterexample["pair"]


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_the_search_does_not_accuse_a_correct_candidate(tmp_path):
    evidence = _privacy_verdicts(_correct, tmp_path / "correct")
    assert evidence["empirical-privacy"].verdict.value == "consistent"
