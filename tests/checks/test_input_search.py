"""The input search: neighbouring pairs inside the claim's domain, and the leaks they expose."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.checks.empirical.input_search import searched_pairs
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import get_mechanism
from dpaudit.mechanisms.inputs import coverage_pairs
from dpaudit.privacy.relations import parse_relation
from tests.candidate_audits import audited_alone, obligation_evidence, without_implied_obligations

SPEC = builtin_spec_dir() / "examples" / "gaussian_candidate.toml"
FIXTURES = str(Path(__file__).parents[1] / "audit" / "candidates_fixture")


def _context(spec_name, relation=None):
    claim = load_spec(builtin_spec_dir() / spec_name)
    return CheckContext(
        claim=claim,
        relation=relation or claim.relations[0],
        rng=np.random.default_rng(0),
        seed=np.random.SeedSequence(0),
    )


@pytest.mark.parametrize(
    "spec_name", ["gaussian_mechanism.toml", "laplace_mechanism.toml", "gohari2020_dirichlet_mechanism.toml"]
)
def test_every_searched_pair_is_a_neighbouring_pair_in_the_domain(spec_name):
    context = _context(spec_name)
    kind = get_mechanism(context.claim.mechanism.name)
    reference = context.mechanism()
    seeds = [NeighbourPair(np.array([0.3, 0.7]), np.array([0.4, 0.6]))]
    if hasattr(reference, "audit_pairs"):
        seeds = [NeighbourPair(*pair[:2]) for pair in reference.audit_pairs(context.relation)]
    found = searched_pairs(seeds, context).pairs
    assert len(found) >= 6
    params = context.claim.mechanism.params
    for pair in found:
        kind.check_neighbours(pair.first, pair.second, context.relation, params)
        assert pair.label.startswith("search:")
        for data in (pair.first, pair.second):
            reference.release(data, rng=np.random.default_rng(1))


def test_dirichlet_search_keeps_inside_the_claims_lower_bound_on_components():
    context = _context("gohari2020_dirichlet_mechanism.toml")
    eta = context.claim.mechanism.params.get("eta")
    seeds = [NeighbourPair(np.array([0.3, 0.7]), np.array([0.4, 0.6]))]
    assert searched_pairs(seeds, context).pairs
    for pair in searched_pairs(seeds, context).pairs:
        if eta is not None:
            assert min(np.min(pair.first), np.min(pair.second)) >= eta - 1e-12


def test_padding_keeps_trajectory_pairs_neighbouring():
    kind = get_mechanism("dp_lsw")
    first = [[[0, 0, 1.0], [1, 0, 0.0]], [[1, 0, 0.5]]]
    second = [[[0, 0, 1.0], [1, 0, 0.0]], [[2, 0, 0.5]]]
    relation = parse_relation("replace_one")
    explored = kind.neighbourhood.explore([(first, second)], {}, relation)
    padded = [(a, b) for a, b, label in explored if "padded" in label]
    rotated = [(a, b) for a, b, label in explored if "rotated" in label]
    assert [len(a) for a, _ in padded] == [10, 50, 100]
    assert rotated == [([first[1], first[0]], [second[1], second[0]])]
    boundary = {label: (a, b) for a, b, label in explored if "differing" in label}
    assert boundary["search: the differing records alone"] == ([first[1]], [second[1]])
    assert boundary["search: the differing record on X' replaced by zero rewards"][1][1] == [[2, 0, 0.0]]
    assert boundary["search: the differing records alone, the one on X' replaced by zero rewards"] == (
        [[[1, 0, 0.5]]],
        [[[2, 0, 0.0]]],
    )
    assert not any("first step" in label for label in boundary)  # one-step records have no shorter variant
    for a, b, _ in explored:
        assert kind.neighbourhood.distance(a, b, relation, {}) == 1.0


def test_coverage_pairs_come_from_the_public_parameters_and_stay_in_the_domain():
    kind = get_mechanism("dp_lsw")
    params = {"n_states": 3, "r_max": 1.0, "f_max": 0.5, "gamma": 0.9}
    relation = parse_relation("replace_one")
    coverage = coverage_pairs(params, relation)
    assert len(coverage) == 12
    explored = kind.neighbourhood.explore([], params, relation)
    assert all(pair in explored for pair in coverage)  # DP-LSW's search adds Lemma 1's datasets to them
    first, second, label = coverage[0]
    assert label == "search: 1 covering trajectories, returns at the bound vs unrewarded"
    assert first == [[[0, 0, pytest.approx(0.05)], [1, 0, pytest.approx(0.05)], [2, 0, 0.5]]]  # every return 0.5
    assert second == [[[0, 0, 0.0], [1, 0, 0.0], [2, 0, 0.0]]]
    for a, b, _ in coverage:
        assert kind.neighbourhood.distance(a, b, relation, params) == 1.0
    assert kind.neighbourhood.explore([], {"r_max": 1.0}, relation) == []  # no state count: nothing to cover


def test_a_differing_gradient_record_is_pushed_to_the_boundary():
    kind = get_mechanism("gpope_step")
    first, second = [[0.1, 0.2], [0.3, 0.4]], [[0.1, 0.2], [0.5, -0.1]]
    relation = parse_relation("replace_one")
    explored = {label: (a, b) for a, b, label in kind.neighbourhood.explore([(first, second)], {}, relation)}
    assert explored["search: the differing record on X' replaced by the zero row"] == (first, [[0.1, 0.2], [0.0, 0.0]])
    assert explored["search: the differing record on X replaced by the record times 1000"][0][1] == [300.0, 400.0]
    for a, b in explored.values():
        assert kind.neighbourhood.distance(a, b, relation, {}) == 1.0


def test_a_differing_number_record_is_pushed_to_the_boundary_too():
    """Records that are plain numbers (a mean of values meant to lie in [0, 1]) get the same boundary variants as
    rows: an implementation that forgets to clip leaks only on a huge one."""
    kind = get_mechanism("black_box")
    first, second = [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
    relation = parse_relation("replace_one")
    explored = {label: (a, b) for a, b, label in kind.neighbourhood.explore([(first, second)], {}, relation)}
    assert explored["search: the differing record on X' replaced by the record times 1000"] == (
        first,
        [1000.0, 0.0, 0.0, 0.0],
    )
    assert not any(label.startswith("search: the differing record on X replaced") for label in explored)  # 0 stays
    bits = kind.neighbourhood.explore([([0, 1, 1], [1, 1, 1])], {}, relation)  # integers: bits, counts, codes
    assert not any("times" in label for _, _, label in bits)


@pytest.mark.parametrize("kind_name", ["black_box", "gpope_step"])
def test_an_added_record_is_pushed_to_the_boundary_under_add_remove(kind_name):
    """Under add/remove the added record is the one that may leak: the search scales it (padding alone, the
    only search before, never exceeds a clipping bound). The gradient step keeps the given pair's sizes."""
    kind = get_mechanism(kind_name)
    first = [[0.0]] * 3
    second = [*first, [1.0]]
    relation = parse_relation("add_remove_one")
    params = {"records": 4} if kind_name == "gpope_step" else {}
    explored = {label: (a, b) for a, b, label in kind.neighbourhood.explore([(first, second)], params, relation)}
    assert explored["search: the added record replaced by the record times 1000"] == (first, [*first, [1000.0]])
    for a, b in explored.values():
        assert kind.neighbourhood.distance(a, b, relation, params) == 1.0


def test_an_add_remove_pair_the_spec_gives_vouches_for_its_sizes_where_the_reference_takes_one_size():
    """The gradient step's reference takes exactly ``records`` rows, so it refuses every add/remove pair; the
    spec's own pair (3 rows against 4) says the candidate takes those sizes, and the search keeps them."""
    claim = load_spec(builtin_spec_dir() / "examples" / "gpope_step_candidate.toml")
    relation = parse_relation("add_remove_one")
    claim = replace(claim, relations=(relation,))
    context = CheckContext(claim=claim, relation=relation, rng=np.random.default_rng(0), seed=np.random.SeedSequence(0))
    kind = get_mechanism("gpope_step")
    first, second = [[0.0, 0.0]] * 3, [[0.0, 0.0]] * 3 + [[1.0, 1.0]]
    given = NeighbourPair(kind.input_domain.from_plain(first), kind.input_domain.from_plain(second), "spec")
    labels = [pair.label for pair in searched_pairs([given], context).pairs]
    assert "search: the added record replaced by the record times 1000" in labels
    assert not any("padded" in label for label in labels)  # other sizes: the reference still decides


def _audit(name, search):
    searched = {} if search is None else {"search": search}
    return obligation_evidence(
        SPEC, f"sample_candidates:{name}", FIXTURES, "empirical-privacy-searched-inputs", **searched
    )


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_leak_on_inputs_the_spec_does_not_name_is_found_by_the_search():
    found = _audit("skips_noise_above_1000", None)
    assert found.verdict is Verdict.VIOLATED
    assert "search:" in found.counterexample["pair"]
    assert "pair(s) under replace_one (1 from the spec, " in found.domain  # each source's count
    assert " found by the input search)" in found.domain
    # without the search, the spec's pair (0 vs 1) shows nothing
    assert _audit("skips_noise_above_1000", "off").verdict is Verdict.CONSISTENT


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_the_pair_the_search_found_replays_from_the_counterexample():
    found = _audit("skips_noise_above_1000", None).counterexample
    assert "pairs_file" in found["replay"] and found["neighbours"]["X"] == json.loads(found["pair_json"])[0]["first"]
    claim = load_spec(SPEC)
    replayed = tuple(
        replace(o, params={**o.params, "pairs": json.loads(found["pair_json"]), "search": "off"})
        if o.id == "empirical-privacy-searched-inputs"
        else o
        for o in claim.obligations
    )
    with audited_alone(replace(claim, obligations=replayed), "empirical-privacy-searched-inputs") as alone:
        report = audit_candidate(
            alone,
            SPEC,
            parse_candidate("sample_candidates:skips_noise_above_1000", path=FIXTURES),
            limits=CandidateLimits(),
            seed=3,
            quick=True,
        )
    (relation,) = report.claims[0].relations
    evidence = {item.obligation.id: item.evidence for item in relation.obligations}
    assert evidence["empirical-privacy-searched-inputs"].verdict is Verdict.VIOLATED
    assert evidence["empirical-privacy-searched-inputs"].counterexample["pair"] == found["pair"]


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_the_search_does_not_accuse_a_correct_candidate():
    assert _audit("good_gaussian", "on").verdict is Verdict.CONSISTENT


def test_a_bad_search_mode_is_refused_when_the_spec_loads(tmp_path):
    from dpaudit.errors import SpecError

    path = tmp_path / "spec.toml"
    path.write_text(
        SPEC.read_text().replace(
            "params = { samples = 200000, confidence = 0.95, pairs = [{ first = [0.0]",
            'params = { search = "sometimes", samples = 200000, confidence = 0.95, pairs = [{ first = [0.0]',
            1,
        )
    )
    with pytest.raises(SpecError, match="search='sometimes'"):
        load_spec(path)


def test_pair_labels_are_made_unique_so_a_counterexample_names_the_pair_measured():
    from dpaudit.checks.empirical.sampling import NeighbourPair, with_unique_labels

    pairs = [
        NeighbourPair([0.0], [1.0], "search: b/2 from 1 to 0"),
        NeighbourPair([5.0], [6.0], "search: b/2 from 1 to 0"),
        NeighbourPair([7.0], [8.0], "search: b/2 from 1 to 0 [2]"),
        NeighbourPair([9.0], [9.5], "other", 1000),
    ]
    unique = with_unique_labels(pairs)
    labels = [pair.label for pair in unique]
    assert len(set(labels)) == 4
    assert labels[0] == "search: b/2 from 1 to 0" and labels[3] == "other"
    assert [pair.first for pair in unique] == [pair.first for pair in pairs]  # the data stay with their pair
    assert unique[3].pilot_cap == 1000


def test_the_dirichlet_search_swaps_two_small_entries_and_keeps_the_given_dimensions():
    # a k calibrated on 2-coordinate pairs only (k = 5.21465 for (1.75, 0.01), eta = b = 0.2) is exactly at the
    # claim there; from 3 coordinates b/2 can move between two small entries, (0.2, 0.3, r) vs (0.3, 0.2, r),
    # where delta(1.75) is 0.0155: given any 3-coordinate pair, the search must reach that move. Given
    # 2-coordinate pairs only, it stays there (a claim on the 2-simplex is not judged on 3 coordinates).
    from dpaudit.checks.empirical.dirichlet_fit import DirichletFit, least_private_delta

    kind = get_mechanism("dirichlet")
    relation = parse_relation("simplex_adjacent(0.2)")
    params = {"k": 3.3118, "eta": 0.2}
    at = DirichletFit(5.21465, 5.21465, 5.21465, 1.0, (0, 1))

    def delta(first, second):
        return least_private_delta(1.75, np.asarray(first), np.asarray(second), at, points=2)

    def inside(given):
        proposed = kind.neighbourhood.explore(given, params, relation)
        return [(a, b) for a, b, _ in proposed if min(a + b) >= 0.2 - 1e-12]

    two = inside([([0.2, 0.8], [0.3, 0.7]), ([0.5, 0.5], [0.6, 0.4])])
    assert two and {len(a) for a, _ in two} == {2}
    assert max(delta(a, b) for a, b in two) <= 0.01 + 1e-6
    three = inside([([0.4, 0.35, 0.25], [0.5, 0.25, 0.25])])
    assert {len(a) for a, _ in three} == {3}
    assert delta([0.4, 0.35, 0.25], [0.5, 0.25, 0.25]) <= 0.006  # the given pair alone does not show it
    assert max(delta(a, b) for a, b in three) == pytest.approx(0.01552, abs=1e-4)


ROWS_SPEC = (
    'schema = 1\n[claim]\nid = "rows"\ntitle = "Dirichlet rows"\nrelations = ["simplex_adjacent(0.2)"]\n'
    '[claim.source]\npaper = "Gohari et al. 2020"\nlocation = "Sec. II"\n'
    '[claim.mechanism]\nname = "dirichlet"\nparams = { k = 3.3118, eta = 0.2 }\n'
    '[claim.guarantee]\nkind = "approx_dp"\nepsilon = 1.75\ndelta = 0.01\n'
    "[candidate]\nparams = { k = 3.3118 }\n"
    '[[obligations]]\nid = "rows"\nstatement = "no event"\nchecker = "empirical_epsilon_lower_bound"\n'
    "params = { samples = 5000, pairs = [{ first = [0.3, 0.7], second = [0.4, 0.6] }] }\n"
)


def _rows_candidate(folder, on_small_entries, *, gamma_of="k * p", vectorised=False):
    """A Dirichlet candidate written for rows with every entry >= 0.25: on others it runs ``on_small_entries``;
    its gamma draws have shapes ``gamma_of``; ``vectorised``: with a ``sample`` entry point that does the same."""
    (folder / "rows.py").write_text(
        "import time\n"
        "import numpy as np\n"
        "def release(p, *, k, rng):\n"
        "    p = np.asarray(p, dtype=float)\n"
        "    if p.min() < 0.25:\n"
        f"        {on_small_entries}\n"
        f"    g = rng.gamma({gamma_of})\n"
        "    return g / g.sum()\n"
        + (
            "def _sample(p, n, *, k, rng):\n"
            "    p = np.asarray(p, dtype=float)\n"
            "    if p.min() < 0.25:\n"
            f"        {on_small_entries}\n"
            f"    g = rng.gamma({gamma_of}, size=(n, p.size))\n"
            "    return g / g.sum(axis=1, keepdims=True)\n"
            "release.sample = _sample\n"
            if vectorised
            else ""
        )
    )
    spec = folder / "spec.toml"
    spec.write_text(ROWS_SPEC)
    return spec


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_searched_input_the_candidate_refuses_is_left_out_counted_and_warned_of(tmp_path, monkeypatch, caplog):
    # the candidate raises on the search's rows at the claim's eta = 0.2: those pairs are left out (the report
    # says how many, and so do a log line and, from Python, a UserWarning a passing test shows), the audit goes
    # on and is not an error
    import dpaudit

    spec = _rows_candidate(tmp_path, "raise ValueError('this model has no row entry below 0.25')", vectorised=True)
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match=r"the candidate raised on \d+ input\(s\) the search tried"):
        report = dpaudit.check("rows:release", spec, quick=True, seed=3)
    (relation,) = report.claims[0].relations
    evidence = next(item.evidence for item in relation.obligations if item.obligation.id == "rows")
    assert evidence.verdict is Verdict.CONSISTENT and not report.failed(), evidence.summary
    assert "found by the input search" in evidence.domain
    assert "searched but refused by the candidate (it raised), left out" in evidence.domain
    assert evidence.details["searched_inputs_refused"] > 0  # the warning counts every obligation's
    assert "input(s) the search tried; they are left out of the audit" in caplog.text


def _rows_evidence(folder, on_small_entries, *, gamma_of="k * p"):
    """Every obligation's evidence, by id, of the rows candidate's audit (seed 3, quick, 1 s per call)."""
    spec = _rows_candidate(folder, on_small_entries, gamma_of=gamma_of)
    report = audit_candidate(
        load_spec(spec),
        spec,
        parse_candidate("rows:release", path=str(folder)),
        limits=CandidateLimits(timeout_seconds=1.0),
        seed=3,
        quick=True,
    )
    (relation,) = report.claims[0].relations
    return {item.obligation.id: item.evidence for item in relation.obligations}


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_candidate_that_hangs_on_a_searched_input_has_not_refused_it(tmp_path):
    # a timeout is not a refusal: the search stops at the first searched input the candidate hangs on (one wait,
    # not one per searched input), and with no violation on the pairs audited the check is an error naming it
    evidences = _rows_evidence(tmp_path, "time.sleep(60)")
    evidence = evidences["rows"]
    assert evidence.verdict is Verdict.ERROR, evidence.summary
    assert evidence.summary.startswith("the input search stopped at ")
    assert "did not answer within 1 s" in evidence.summary
    assert "the search stopped early" in evidence.domain
    assert "searched but refused" not in evidence.domain
    fit = evidences["implied-parametric-dirichlet-fit"]  # a fit reports no partial search: error too
    assert fit.verdict is Verdict.ERROR and "the input search stopped at " in fit.summary, fit.summary


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_hang_on_a_searched_input_leaves_a_violation_on_the_pairs_audited_standing(tmp_path):
    # the same hang, but the candidate leaks (25 times the concentration k) on the pairs audited: violated
    with without_implied_obligations():  # the spec's obligation is the point
        evidence = _rows_evidence(tmp_path, "time.sleep(60)", gamma_of="25 * k * p")["rows"]
    assert evidence.verdict is Verdict.VIOLATED, evidence.summary
    assert "did not answer within 1 s" in evidence.details["search_stopped"]
    # certified on a pair audited (the spec's or one found before the stop), never on the one it hung on
    assert not evidence.details["search_stopped"].startswith(evidence.counterexample["pair"] + ":")


class _RowsInProcess:
    """In process, a Dirichlet candidate written for rows with every entry >= 0.25: on others it raises
    ``error`` (a limit, bad output, ...) and counts it."""

    vectorised = True

    def __init__(self, error):
        self.error, self.failed = error, 0

    def release(self, data, *, rng, size=None):
        p = np.asarray(data, dtype=float)
        if p.min() < 0.25:
            self.failed += 1
            raise self.error
        out = rng.dirichlet(3.3118 * p, size=1 if size is None else size)
        return out[0] if size is None else out


def _rows_context(tmp_path, candidate):
    spec = tmp_path / "spec.toml"
    spec.write_text(ROWS_SPEC)
    claim = load_spec(spec)
    return CheckContext(
        claim=claim,
        relation=claim.relations[0],
        rng=np.random.default_rng(0),
        seed=np.random.SeedSequence(0),
        quick=True,
        candidate=candidate,
    )


GIVEN_ROWS = [NeighbourPair(np.array([0.3, 0.7]), np.array([0.4, 0.6]), "spec")]


def test_the_search_stops_at_the_first_limit_after_one_wait(tmp_path):
    from dpaudit.errors import CandidateLimitReached

    candidate = _RowsInProcess(CandidateLimitReached("candidate rows:release did not answer within 1 s"))
    search = searched_pairs(GIVEN_ROWS, _rows_context(tmp_path, candidate))
    assert candidate.failed == 1  # one wait, not one per searched input
    assert search.stopped is not None and "did not answer within 1 s" in search.stopped
    assert search.refused == 0
    assert all(min(pair.first.min(), pair.second.min()) >= 0.25 for pair in search.pairs)


def test_bad_output_on_a_searched_input_is_an_error_of_the_check_not_a_stop(tmp_path):
    from dpaudit.errors import CandidateError, CandidateLimitReached

    candidate = _RowsInProcess(CandidateError("candidate rows:release returned a non-finite value nan"))
    with pytest.raises(CandidateError, match="non-finite") as raised:
        searched_pairs(GIVEN_ROWS, _rows_context(tmp_path, candidate))
    assert not isinstance(raised.value, CandidateLimitReached)


def test_a_parametric_fit_whose_search_stops_is_an_error_naming_the_stop(tmp_path):
    # the Dirichlet fit reports no partial search: the limit propagates (the runner makes it `error`)
    from dpaudit.checks.empirical.parametric import check_parametric_noise_fit
    from dpaudit.errors import CandidateLimitReached
    from dpaudit.kernel.claims import Obligation

    candidate = _RowsInProcess(CandidateLimitReached("candidate rows:release did not answer within 1 s"))
    pairs = [{"first": [0.3, 0.7], "second": [0.4, 0.6]}]
    fit = Obligation("fit", "a fit", "parametric_noise_fit", {"family": "dirichlet", "samples": 2000, "pairs": pairs})
    with pytest.raises(CandidateLimitReached, match=r"the input search stopped at .*did not answer within 1 s"):
        check_parametric_noise_fit(fit, _rows_context(tmp_path, candidate))


UNCLIPPED_SUM_SPEC = """schema = 1
[claim]
id = "unclipped-sum"
title = "a sum of rows in [0, 1]^5 plus N(0, I): its rows are meant to be clipped to norm 1"
relations = ["add_remove_one"]
[claim.source]
paper = "Balle & Wang 2018"
location = "Theorem 8"
[claim.mechanism]
name = "black_box"
[claim.guarantee]
kind = "approx_dp"
epsilon = 1.0
delta = 0.12693673750664395
[candidate]
params = { clip = CLIP }
datasets = "vector_sum:small_rows"
inputs = { low = 0, high = 1 }
[[obligations]]
id = "empirical-privacy"
statement = "no event certifies epsilon > 1 at the exact delta of norm-1 rows"
checker = "empirical_epsilon_lower_bound"
params = { samples = 20000 }
"""

VECTOR_SUM = """import numpy as np

def _sum(rows, clip):
    rows = np.asarray(rows, dtype=float).reshape(-1, 5)
    if clip:
        norms = np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1.0)
        rows = rows / norms
    return rows.sum(axis=0)

def release(rows, *, clip, rng):
    return _sum(rows, clip) + rng.standard_normal(5)

def _sample(rows, n, *, clip, rng):
    return _sum(rows, clip)[None, :] + rng.standard_normal((n, 5))

release.sample = _sample

def small_rows(rng):
    return [[float(v) for v in row] for row in 0.3 * rng.random((8, 5))]
"""


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_declared_input_domain_keeps_its_edges_in_the_search(tmp_path):
    """An unclipped sum on rows declared in [0, 1]^5: a row of ones moves it by sqrt(5) (true epsilon 4.26
    against 1). The search's huge rows fell outside the declared bounds and were dropped, so only rows of
    at most 0.3 were audited: consistent (found by a review). They are now proposed at the domain's edge."""
    (tmp_path / "vector_sum.py").write_text(VECTOR_SUM)
    verdicts = {}
    for clip in ("false", "true"):
        spec = tmp_path / f"spec_{clip}.toml"
        spec.write_text(UNCLIPPED_SUM_SPEC.replace("CLIP", clip))
        verdicts[clip] = obligation_evidence(spec, "vector_sum:release", tmp_path, "empirical-privacy")
    assert verdicts["false"].verdict is Verdict.VIOLATED, verdicts["false"].summary
    assert "clamped to the declared input domain" in verdicts["false"].counterexample["pair"]
    assert verdicts["true"].verdict is Verdict.CONSISTENT, verdicts["true"].summary


def test_an_input_past_the_declared_bounds_is_moved_to_their_edge():
    from dpaudit.mechanisms.interface import CandidateInputs

    bounded = CandidateInputs(low=0.0, high=1.0)
    assert bounded.clamped([[1000.0, -5.0, 0.5], 2.0, True]) == [[1.0, 0.0, 0.5], 1.0, True]
    assert CandidateInputs(integer=True, low=0, high=3).clamped([7, 1]) == [7, 1]  # no scaled counts proposed
    assert CandidateInputs(low=0.0).clamped({"x": -1.0, "y": 9.0}) == {"x": 0.0, "y": 9.0}
