"""DP-LSW/DP-LSL's input search: datasets at the return bound the noise is calibrated to (long
episodes) and Lemma 1's rare state beside many covering trajectories (Balle, Gomrokchi & Precup
2016); and the leaks only those datasets expose."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.inputs import coverage_pairs
from dpaudit.privacy.relations import parse_relation
from tests.candidate_audits import obligation_evidence

HERE = str(Path(__file__).resolve().parent)
SPEC = builtin_spec_dir() / "examples" / "dp_lsw_candidate.toml"
LSW = {"n_states": 5, "features": "tabular", "gamma": 0.95, "r_max": 1.0, "epsilon": 1.0, "delta": 0.1}
LSL = {**LSW, "lam": 5.0}
KINDS = [
    ("dp_lsw", LSW),
    ("dp_lsw", {**LSW, "n_states": 6, "features": "aggregation:2", "f_max": 1.0}),
    ("dp_lsw", {**LSW, "gamma": 0.9, "f_max": 5.0}),
    ("dp_lsl", LSL),
    ("dp_lsl", {**LSL, "f_max": 1.0}),
]


def _explore(name, params, relation="replace_one", pairs=()):
    return get_mechanism(name).neighbourhood.explore(list(pairs), params, parse_relation(relation))


def _statistics(name, params, plain):
    reference = build_mechanism(name, params)
    return reference.statistics(get_mechanism(name).input_domain.from_plain(plain))


@pytest.mark.parametrize("relation", ["replace_one", "add_remove_one"])
@pytest.mark.parametrize(("name", "params"), KINDS)
def test_every_proposal_is_a_neighbouring_pair_the_reference_accepts(name, params, relation):
    """The explored pairs, and the screened ones: every state covered by hundreds of trajectories."""
    kind = get_mechanism(name)
    reference = build_mechanism(name, params)
    proposals = _explore(name, params, relation)
    screened = get_mechanism(name).neighbourhood.screen(params, parse_relation(relation))
    assert 4 <= len(proposals) <= 64 and sorted({len(first) for first, _, _ in screened}) == [300, 1000]
    for first, second, label in [*proposals, *screened]:
        assert label.startswith("search: ")
        assert kind.check_neighbours(first, second, parse_relation(relation), params) == 1.0
        for data in (first, second):
            reference.release(kind.input_domain.from_plain(data), rng=np.random.default_rng(0))
    for first, _, label in screened:
        assert "covering trajectories" in label
        assert min(_statistics(name, params, first).signature.tolist()) >= len(first) - 1  # every state, every count


@pytest.mark.parametrize(("name", "params"), KINDS)
def test_returns_reach_the_bound_the_noise_is_calibrated_to(name, params):
    bound = build_mechanism(name, params).return_bound
    reachable = min(bound, params["r_max"] / (1 - params["gamma"]))
    largest = max(_statistics(name, params, first).max_return for first, _, _ in _explore(name, params))
    assert reachable * (1 - 1e-3) <= largest <= bound
    if params.get("f_max") is None:
        assert largest > 10 * params["r_max"]  # R_max/(1 - gamma) = 20: a long episode of rewards R_max


def test_a_long_episode_pays_at_most_r_max_per_step_and_stays_under_f_max():
    params = {**LSW, "gamma": 0.9, "f_max": 5.0}
    for first, second, _ in _explore("dp_lsw", params):
        for trajectory in (*first, *second):
            assert all(0.0 <= reward <= params["r_max"] for _, _, reward in trajectory)
            assert len(trajectory) <= params["n_states"] + 200


@pytest.mark.parametrize("name", ["dp_lsw", "dp_lsl"])
def test_lemma1_rare_state_datasets_move_one_return_by_the_bound_at_equal_noise(name):
    params = LSW if name == "dp_lsw" else LSL
    reference = build_mechanism(name, params)
    kind = get_mechanism(name)
    rare = params["n_states"] - 1
    label = (
        f"search: 100 trajectories, state {rare} visited by one only (return 19.98, 136 steps) vs that one unrewarded"
    )
    pairs = {text: (first, second) for first, second, text in _explore(name, params)}
    first, second = pairs[label]
    statistics = [_statistics(name, params, data) for data in (first, second)]
    assert [s.signature.tolist() for s in statistics] == [[99] * rare + [1]] * 2
    assert statistics[0].average_returns[rare] == pytest.approx(20 * (1 - 0.95**136))
    assert statistics[1].average_returns[rare] == 0.0
    views = [reference.gaussian_view(kind.input_domain.from_plain(data)) for data in (first, second)]
    assert views[0][1] == views[1][1]  # the same sigma_X: the rare state's count did not change
    if name == "dp_lsw":  # tabular LSW: theta_X is F_X, so theta moves by the whole return in one coordinate
        assert np.linalg.norm(views[0][0] - views[1][0]) == pytest.approx(statistics[0].average_returns[rare])
    assert (
        f"search: 100 trajectories, state {rare} visited by one only (return 1, one step) vs that one unrewarded"
        in pairs
    )
    removed = {text: (a, b) for a, b, text in _explore(name, params, "add_remove_one")}
    first, second = removed[
        f"search: 100 trajectories, state {rare} visited by one only (return 19.98, 136 steps), that one removed"
    ]
    assert len(first) == 100 and len(second) == 99 and second == first[:99]


def test_no_dataset_exceeds_the_search_sizes():
    for name, params in KINDS:
        for relation in ("replace_one", "add_remove_one"):
            assert max(len(first) for first, _, _ in _explore(name, params, relation)) == 100


def test_coverage_pairs_are_kept_and_unchanged_when_one_step_reaches_the_bound():
    params = {"n_states": 3, "r_max": 1.0, "f_max": 0.5, "gamma": 0.9}
    relation = parse_relation("replace_one")
    explored = _explore("dp_lsw", params)
    for pair in coverage_pairs(params, relation):
        assert pair in explored
    assert coverage_pairs(params, relation, return_bound=0.5) == coverage_pairs(params, relation)


def _audit(name, spec, tmp_path, search=None):
    searched = {} if search is None else {"search": search}
    return obligation_evidence(spec, f"extremal_search_candidates:{name}", HERE, "black-box-epsilon", **searched)


def _without_f_max(tmp_path):
    path = tmp_path / "dp_lsw_without_f_max.toml"
    text = SPEC.read_text()
    assert ", f_max = 1.0 }" in text
    path.write_text(text.replace(", f_max = 1.0 }", " }"))
    return path


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_noise_without_the_discount_factor_is_found_at_the_return_bound(tmp_path):
    spec = _without_f_max(tmp_path)
    found = _audit("dp_lsw_without_discount_factor", spec, tmp_path)
    assert found.verdict is Verdict.VIOLATED, found.summary
    assert found.counterexample["pair"].startswith("search: ")
    # a long episode: returns above R_max = 1, which no pair reached before the search used the return bound
    params = load_spec(spec).mechanism.params
    proposals = {label: (first, second) for first, second, label in _explore("dp_lsw", params)}
    first, second = proposals[found.counterexample["pair"]]
    assert max(_statistics("dp_lsw", params, data).max_return for data in (first, second)) > 50
    assert _audit("dp_lsw_without_discount_factor", spec, tmp_path, search="off").verdict is Verdict.CONSISTENT


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_noise_as_if_every_trajectory_visited_every_state_is_found_at_the_rare_state(tmp_path):
    spec = _without_f_max(tmp_path)
    found = _audit("dp_lsw_noise_as_if_full_coverage", spec, tmp_path)
    assert found.verdict is Verdict.VIOLATED, found.summary
    assert "visited by one only" in found.counterexample["pair"]
    assert _audit("dp_lsw_noise_as_if_full_coverage", spec, tmp_path, search="off").verdict is Verdict.CONSISTENT


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_a_noise_scale_following_psi_is_found_only_on_the_screened_datasets(tmp_path):
    found = _audit("dp_lsw_sigma_from_psi", SPEC, tmp_path)
    assert found.verdict is Verdict.VIOLATED, found.summary
    assert found.counterexample["pair"].startswith(("search: 300 covering", "search: 1000 covering"))
    kept = [event for event in found.details["certified_events"] if "covering trajectories" in event["pair"]]
    assert kept and all(event["samples"] <= 2000 for event in kept)  # a screened pair's draws are capped
    assert "found by the input search, 6 screened on large inputs)" in found.domain
    assert _audit("dp_lsw_sigma_from_psi", SPEC, tmp_path, search="off").verdict is Verdict.CONSISTENT


def test_looping_pairs_go_round_every_state_within_the_long_episodes_steps():
    params = {**LSW, "f_max": 1.0}
    looping = {text: (a, b) for a, b, text in _explore("dp_lsw", params) if "going round" in text}
    assert len(looping) == 4
    for first, second in looping.values():
        assert len(first[-1]) == 200 and second[-1] == [[state, 0, 0.0] for state in range(5)]
        assert first[:-1] == second[:-1]
        assert _statistics("dp_lsw", params, first).max_return <= 1.0
    removed = [(a, b) for a, b, text in _explore("dp_lsw", params, "add_remove_one") if "going round" in text]
    assert len(removed) == 4 and all(b == a[:-1] for a, b in removed)


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_returns_from_every_visit_are_found_by_a_trajectory_going_round_every_state(tmp_path):
    found = _audit("every_visit_dp_lsw", SPEC, tmp_path)
    assert found.verdict is Verdict.VIOLATED, found.summary
    assert "going round every state" in found.counterexample["pair"]
    assert _audit("every_visit_dp_lsw", SPEC, tmp_path, search="off").verdict is Verdict.CONSISTENT


@pytest.mark.slow  # a whole candidate audit: README's test command runs it, the floors job does not
def test_the_search_does_not_accuse_a_correct_dp_lsw(tmp_path):
    assert _audit("correct_dp_lsw", _without_f_max(tmp_path), tmp_path).verdict is Verdict.CONSISTENT
    assert _audit("correct_dp_lsw", SPEC, tmp_path).verdict is Verdict.CONSISTENT
