"""The registered Balle checkers say `violated` on a broken mechanism and not on the reference."""

import dataclasses

import pytest

from dpaudit.audit.execution import run_claim
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.policy_evaluation.private import DPLSW


class ShrunkSigmaLSW(DPLSW):
    """DP-LSW releasing with sigma_X / 1000: breaks Lemma 1 (a) everywhere on the chain."""

    def intermediates_from_statistics(self, statistics):
        record = super().intermediates_from_statistics(statistics)
        return dataclasses.replace(record, sigma=record.sigma / 1000.0)


def _run(obligation, factory=None):
    claim = load_spec(builtin_spec_dir() / "balle2016_dp_lsw_sensitivity.toml")
    claim = dataclasses.replace(claim, obligations=(obligation,), known_findings=())
    result = run_claim(claim, seed=3, quick=True, mechanism_factory=factory)
    return [relation.obligations[0].evidence for relation in result.relations]


@pytest.fixture(scope="module")
def slack_obligation():
    claim = load_spec(builtin_spec_dir() / "balle2016_dp_lsw_sensitivity.toml")
    return next(o for o in claim.obligations if o.checker == "balle_smooth_sensitivity_slack")


def test_smooth_sensitivity_slack_verified_on_the_reference(slack_obligation):
    assert {e.verdict for e in _run(slack_obligation)} == {Verdict.VERIFIED}


def test_smooth_sensitivity_slack_violated_when_sigma_shrinks(slack_obligation):
    evidence = _run(slack_obligation, ShrunkSigmaLSW)
    assert {e.verdict for e in evidence} == {Verdict.VIOLATED}
    assert all(e.counterexample["sigma_X"] < e.counterexample["alpha_S_star"] for e in evidence)


SEARCH = Obligation(
    "condition-a-search",
    "Lemma 1 (a) by search",
    "balle_condition_a_search",
    {"horizon": 3, "m_max": 2, "max_examples": 200},
)


def test_condition_a_search_finds_the_shrunk_sigma():
    evidence = _run(SEARCH, ShrunkSigmaLSW)
    assert {e.verdict for e in evidence} == {Verdict.VIOLATED}
    assert all(e.counterexample["alpha_distance"] > e.counterexample["sigma_X"] for e in evidence)


def test_condition_a_search_on_the_reference_is_never_violated():
    assert {e.verdict for e in _run(SEARCH)} == {Verdict.INCONCLUSIVE}
