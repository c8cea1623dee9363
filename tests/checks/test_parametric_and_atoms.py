"""Parametric noise fits and atom events: each must say violated on a leak it exists for, and not otherwise."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dpaudit.checks.empirical import recertification
from dpaudit.checks.empirical.budget import AuditBudget, CertifiedEvent
from dpaudit.checks.empirical.certification import _score_candidates, certify_privacy_lower_bound
from dpaudit.checks.empirical.events import (
    AtomProjection,
    CoordinateProjection,
    ThresholdEvent,
    ThresholdGrid,
    atoms_of,
    outcome_projection,
)
from dpaudit.checks.empirical.parametric_fits import fit_centred_pair, fit_pair
from dpaudit.checks.empirical.recertification import ESCALATED_PER_ROUND
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper
from dpaudit.cli import main

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


# --- the Dirichlet family: y ~ Dir(k p), k unknown -----------------------------------------------------


def _dirichlet_check(k, *, transform=None, samples=20_000, seed=0):
    """The example spec's dirichlet-fit obligation (claim (1.73, 0.01), exact at k = 5: 0.009984)
    on an implementation that samples Dir(k p), optionally transformed."""
    from dataclasses import replace

    from dpaudit.audit.spec import builtin_spec_dir, load_spec
    from dpaudit.checks.empirical.parametric import check_parametric_noise_fit
    from dpaudit.kernel.checkers import CheckContext
    from dpaudit.privacy.guarantees import ApproxDP

    claim = load_spec(builtin_spec_dir() / "examples" / "dirichlet_candidate.toml")
    # the pair's own exact claim on two coordinates, (1.73, 0.01) at k = 5 (the example now claims the
    # worst pair over every dimension, 1.95): the fit must see k a few percent too large on this pair
    claim = replace(claim, guarantee=ApproxDP(1.73, 0.01))
    (obligation,) = [o for o in claim.obligations if o.id == "dirichlet-fit"]
    obligation = replace(obligation, params={**obligation.params, "samples": samples})

    class Implementation:
        def release(self, data, *, rng, size=None):
            draws = rng.dirichlet(k * np.asarray(data, dtype=float), size)
            return draws if transform is None else transform(draws, rng)

    context = CheckContext(
        claim=claim,
        relation=claim.relations[0],
        rng=np.random.default_rng(seed),
        seed=np.random.SeedSequence(seed),
        mechanism_factory=lambda **params: Implementation(),
    )
    return check_parametric_noise_fit(obligation, context)


@pytest.mark.parametrize(("k", "caught"), [(5.0, False), (4.0, False), (5.25, True), (6.0, True)])
def test_dirichlet_fit_bounds_delta(k, caught):
    from dpaudit.kernel.verdicts import Verdict

    evidence = _dirichlet_check(k)
    assert evidence.verdict is (Verdict.VIOLATED if caught else Verdict.CONSISTENT), evidence.summary
    assert "under assumption" in evidence.summary


class ConcentratedNearAVertex:
    """Dir(k p), with ``boost`` times the concentration where max(p) >= 0.6: right in the middle of the
    simplex, wrong near a vertex (``boost`` = 1: a correct implementation)."""

    def __init__(self, k, boost):
        self.k, self.boost = k, boost

    def release(self, data, *, rng, size=None):
        p = np.asarray(data, dtype=float)
        return rng.dirichlet((self.k * self.boost if p.max() >= 0.6 else self.k) * p, size)


def _fit_on_a_middle_pair(implementation, seed=0):
    """The example's dirichlet-fit obligation (claim (1.95, 0.01): at k = 5 the worst pair over every
    dimension, (0.2, 0.3, 0.5) vs (0.3, 0.2, 0.5), has delta 0.00997) on one 2-coordinate pair in the
    middle of the simplex, run as for a candidate."""
    from dataclasses import replace

    from dpaudit.audit.spec import builtin_spec_dir, load_spec
    from dpaudit.checks.empirical.parametric import check_parametric_noise_fit
    from dpaudit.kernel.checkers import CheckContext
    from dpaudit.privacy.guarantees import ApproxDP

    claim = load_spec(builtin_spec_dir() / "examples" / "dirichlet_candidate.toml")
    claim = replace(claim, guarantee=ApproxDP(1.95, 0.01))
    (obligation,) = [o for o in claim.obligations if o.id == "dirichlet-fit"]
    middle = [{"first": [0.5, 0.5], "second": [0.55, 0.45], "label": "middle"}]
    obligation = replace(obligation, params={**obligation.params, "pairs": middle})
    context = CheckContext(
        claim=claim,
        relation=claim.relations[0],
        rng=np.random.default_rng(seed),
        seed=np.random.SeedSequence(seed),
        candidate=implementation,
    )
    return check_parametric_noise_fit(obligation, context)


@pytest.mark.parametrize(("boost", "caught"), [(1.8, True), (1.0, False)])
def test_a_candidates_dirichlet_fit_adds_the_searched_pairs_where_the_reference_is_least_private(boost, caught):
    """The spec's one pair cannot show a concentration that is wrong only near a vertex (k = 9 there:
    delta(1.95) = 0.0137 on (0.8, 0.2) vs (0.7, 0.3)); the two searched pairs with the largest exact delta at
    the reference's k (here the vertex side) can."""
    from dpaudit.kernel.verdicts import Verdict

    evidence = _fit_on_a_middle_pair(ConcentratedNearAVertex(5.0, boost))
    assert "3 pair(s)" in evidence.domain
    assert evidence.verdict is (Verdict.VIOLATED if caught else Verdict.CONSISTENT), evidence.summary
    if caught:
        assert "on search: 2-d p near a vertex" in evidence.summary, evidence.summary


def test_dirichlet_fit_rejects_what_is_not_dirichlet():
    from dpaudit.kernel.verdicts import Verdict

    def gaussian_on_the_simplex(draws, rng):  # a different law with the right mean, rows summing to 1
        first = np.clip(draws.mean(axis=0)[0] + 0.1 * rng.standard_normal(len(draws)), 1e-6, 1 - 1e-6)
        return np.stack([first, 1 - first], axis=1)

    evidence = _dirichlet_check(5.0, transform=gaussian_on_the_simplex)
    assert evidence.verdict is Verdict.INCONCLUSIVE and "rejected" in evidence.summary
    off = _dirichlet_check(5.0, transform=lambda draws, rng: draws * 2)
    assert off.verdict is Verdict.INCONCLUSIVE and "off the simplex" in off.summary


def test_dirichlet_false_alarm_rate_at_the_exact_claim_is_within_the_confidence():
    from dpaudit.kernel.verdicts import Verdict

    alarms = sum(_dirichlet_check(5.0, samples=5000, seed=seed).verdict is Verdict.VIOLATED for seed in range(20))
    assert alarms <= 2  # 95% confidence: at most about one in twenty, and the claim is 0.2% above exact


def _centred(family, first, second, centres=(0.0, 1.0)):
    known = (np.full(first.shape[1], centres[0]), np.full(first.shape[1], centres[1]))
    return fit_centred_pair(first, second, known, family, 0.025)


@pytest.mark.parametrize(("sigma", "caught"), [(0.97 * 1.9966, True), (2.0, False), (2.2, False)])
def test_centred_gaussian_fit_sees_a_scale_three_percent_small(sigma, caught):
    """sigma = 2 on a shift of 1 is (1.9931, 1e-5)-DP; 3% less noise gives 2.062 against a claim of 2.0:
    with the centres at the inputs, 20,000 draws per side resolve it, and never flag sigma >= 2."""
    from dpaudit.privacy.profiles import gaussian_epsilon

    rng = np.random.default_rng(8)
    first = sigma * rng.standard_normal((20_000, 2))
    second = np.array([0.6, 0.8]) + sigma * rng.standard_normal((20_000, 2))
    known = (np.zeros(2), np.array([0.6, 0.8]))
    shift, scale, p_value, _ = fit_centred_pair(first, second, known, "gaussian", 0.025)
    assert p_value > 0.01 and shift == pytest.approx(1.0)
    epsilon = float(gaussian_epsilon(1e-5, shift, scale, digits=30)[0])
    assert (epsilon > 2.0) is caught
    assert epsilon <= float(gaussian_epsilon(1e-5, 1.0, sigma, digits=30)[1])


def test_centred_fit_rejects_a_wrong_centre():
    rng = np.random.default_rng(4)
    first = 0.05 + rng.standard_normal((20_000, 1))  # biased by 0.05: the inputs are not the centres
    second = 1.05 + rng.standard_normal((20_000, 1))
    assert _centred("gaussian", first, second)[2] < 0.01
    assert _centred("gaussian", first - 0.05, second - 0.05)[2] > 0.01
    laplace = rng.laplace(0.1, 1.0, (20_000, 1)), 1.1 + rng.laplace(0.0, 1.0, (20_000, 1))
    assert _centred("laplace", *laplace)[2] < 0.01


@pytest.mark.parametrize(("scale", "caught"), [(0.95, True), (1.0, False)])
def test_centred_laplace_fit_sees_a_scale_five_percent_small(scale, caught):
    rng = np.random.default_rng(6)
    first = rng.laplace(0.0, scale, (20_000, 1))
    second = 1.0 + rng.laplace(0.0, scale, (20_000, 1))
    shift, upper, p_value, _ = _centred("laplace", first, second)
    assert p_value > 0.01
    assert bool(shift / upper > 1.0) is caught


def _escalated(mechanism, escalations):
    budget = AuditBudget(200_000, events=("threshold", "atom"), escalations=escalations)
    return certify_privacy_lower_bound(mechanism, [PAIR], delta=1e-5, epsilon=4.38, budget=budget, seed=3)


def test_escalation_certifies_an_atom_too_rare_for_the_budget():
    """An exact output once in 1,000 calls: 200,000 draws cannot refute epsilon = 4.38 at delta = 1e-5,
    the escalated re-certification of the atom event on 16x fresh draws does."""
    assert _escalated(_Gaussian(1.0, atom=1e-3), 0).epsilon_lower_bound < 4.38
    bound = _escalated(_Gaussian(1.0, atom=1e-3), 2)
    assert bound.epsilon_lower_bound > 4.38
    best = bound.best_event
    assert best is not None and best.escalated and best.samples > bound.budget.certification
    chosen = sum(not event.escalated for event in bound.events)
    assert bound.planned_bounds == 2 * (chosen + ESCALATED_PER_ROUND * 2)  # the union bound counts every round allowed
    assert bound.details()["escalated_samples"]


def test_every_certified_bound_takes_its_share_of_the_union_bound():
    """Each event's Clopper-Pearson bounds are at (1 - confidence) / planned_bounds, the union bound over
    every bound the audit may take (each chosen event in each order, every escalation round allowed), and
    are those of its counts at that level."""
    bound = _escalated(_Gaussian(1.0, atom=1e-3), 0)
    share = (1.0 - bound.budget.confidence) / bound.planned_bounds
    assert bound.events and bound.planned_bounds >= 2
    for event in bound.events:
        assert event.alpha == pytest.approx(share, rel=1e-12)
        assert event.p_lower == clopper_pearson_lower(event.p_count, event.samples, event.alpha)
        assert event.q_upper == clopper_pearson_upper(event.q_count, event.samples, event.alpha)


def test_no_event_that_holds_on_every_draw_of_both_sides_takes_a_bound():
    """A continuous output has no atom: the atom score's one finite "rare" choice was the event ``score >= -0.5``,
    every draw on both sides (plug-in ratio n/(n+1) < 1), which no claim's epsilon >= 0 can be refuted by, and
    which took two of the union bound's shares from the events that can."""
    bound = _escalated(_Gaussian(1.0), 2)
    assert not [event for event in bound.events if event.objective == "rare" and event.p_count == event.samples]
    assert not [event for event in bound.events if event.p_count == event.q_count == event.samples]


def test_an_atom_seen_once_on_one_side_only_is_the_rare_choice_and_the_whole_space_is_not():
    # the atom score on a grid at -0.5 and 0.5: cells below -0.5, [-0.5, 0.5) (not the atom), >= 0.5 (the atom)
    grid = ThresholdGrid(low=-0.5, width=1.0, size=2)
    seen_once, never = np.array([0, 9_999, 1]), np.array([0, 10_000, 0])
    projection = AtomProjection(((0.0,),), "atoms")
    best, _ = _score_candidates(0, projection, grid, (seen_once, never), delta=1e-5, epsilon=1.0, alpha=0.01, rare=True)
    rare = [(chosen.event, chosen.p_is_first) for chosen in best if chosen.objective == "rare"]
    assert rare == [(ThresholdEvent(projection, 0.5, True), True)]


def _certified(event, p_count, *, pair_index=0, samples=67_500):
    """An event as certification counted it (none on the other side), and its choice."""
    candidate = recertification.ChosenEvent(pair_index, event, True, "epsilon", 0.0)
    counted = CertifiedEvent("pair", "X vs X'", str(event), "epsilon", p_count, 0, samples, 1e-3, 0.0, 1.0, 0.0, None)
    return candidate, counted


def _escalated_events(monkeypatch, pairs, items):
    """The events one escalation round counts again (each call's, in order), counting nothing."""
    escalated = []

    def record(sampler, pairs, chosen, *args, **kwargs):
        escalated.append([candidate.event for candidate in chosen])
        return []

    monkeypatch.setattr(recertification, "certify_chosen", record)
    budget = AuditBudget(100_000, escalations=1)
    recertification.escalate(None, pairs, items, None, budget, 1e-3, 1e-5, 4.38, {}, budget.certification)
    return escalated


def test_an_escalation_round_takes_the_best_atom_even_when_a_tail_event_looks_better(monkeypatch):
    """An atom of mass 2e-3 (135 of 67,500 draws, none on the other side) beside a tail event whose plug-in
    estimate looks better on these draws (300 against 0): each lane's best event is counted again, so the
    atom is not crowded out by a tail that more draws will show on both sides."""
    atom = ThresholdEvent(AtomProjection(((0.0,),), "atoms"), 0.5, True)
    tail = ThresholdEvent(CoordinateProjection(0), -3.0, False)
    items = [_certified(atom, 135), _certified(tail, 300)]
    assert _escalated_events(monkeypatch, [PAIR], items) == [[atom, tail]]
    only_tail = _escalated_events(monkeypatch, [PAIR], [_certified(tail, 300)])
    assert only_tail == [[tail]]  # no atom: the round counts the one lane that has an event


def test_an_escalation_round_skips_a_screened_pair_already_at_its_cap(monkeypatch):
    """A screened pair's event counted on its 2000-draw cap looks the most promising of its lane, but more
    rounds would count it on 2000 draws again: the lane's next best event, whose pair draws 4x more, goes."""
    capped_pair = NeighbourPair(PAIR.first, PAIR.second, "screened", pilot_cap=200, draws_cap=2000)
    capped = ThresholdEvent(CoordinateProjection(0), 3.0, True)
    spec = ThresholdEvent(CoordinateProjection(0), 2.0, True)
    items = [_certified(spec, 500), _certified(capped, 1900, pair_index=1, samples=2000)]
    assert _escalated_events(monkeypatch, [PAIR, capped_pair], items) == [[spec]]


def test_escalation_never_refutes_a_private_mechanism():
    for sigma in (1.0, 1.05):
        bound = _escalated(_Gaussian(sigma), 2)
        assert bound.epsilon_lower_bound < 4.377  # the exact epsilon of sigma = 1
        assert all(event.epsilon_lower_bound < 4.377 for event in bound.events)


FIT = """
[[obligations]]
id = "fit"
statement = "under a tested Gaussian law the exact profile meets the claim"
checker = "parametric_noise_fit"
params = {{ family = "gaussian", samples = 20000, pairs = [{{ first = [0.0], second = [1.0] }}]{extra} }}
"""


def _fit_evidence(spec, tmp_path):
    """The evidence of the obligation ``fit`` when ``dpaudit audit`` runs ``spec``."""
    out = tmp_path / "out"
    main(["audit", str(spec), "--out", str(out), "--quiet"])
    document = json.loads((out / "audit.json").read_text())
    (evidence,) = [
        item["evidence"]
        for relation in document["claims"][0]["relations"]
        for item in relation["obligations"]
        if item["obligation"]["id"] == "fit"
    ]
    return evidence


@pytest.mark.parametrize(("epsilon", "verdict"), [("4.30", "violated"), ("4.38", "consistent")])
def test_the_checker_with_centres_at_the_inputs_says_violated_only_below_the_truth(
    write_gaussian_spec, tmp_path, epsilon, verdict
):
    """sigma = 1 on a shift of 1 is (4.3772, 1e-5)-DP: a claim of 4.30 is refuted from 2*10^4 draws per
    side, a claim of 4.38 is not."""
    spec = write_gaussian_spec(epsilon=epsilon, extra=FIT.format(extra=", centres_at_inputs = true"))
    evidence = _fit_evidence(spec, tmp_path)
    assert evidence["verdict"] == verdict, evidence["summary"]
    if verdict == "violated":
        assert "centres: the inputs" in evidence["summary"]


class _SometimesLittleNoise:
    """sigma = 3, except that one call in 20 adds noise of sd 1e-4: a spike at the input (unbounded
    epsilon) that every tail event dilutes with the bulk of both sides."""

    def release(self, data, *, rng, size=None):
        value = np.asarray(data, dtype=float)
        scale = np.where(rng.random(size) < 0.05, 1e-4, 3.0)[:, None]
        return value + scale * rng.standard_normal((size, *value.shape))


def test_interval_events_certify_a_spike_that_tail_events_miss():
    spike = _SometimesLittleNoise()
    assert _bound(spike, events=("threshold", "halfspace", "classifier", "atom")) < 1.5
    assert _bound(spike, events=("threshold", "interval")) > 2.0


def test_interval_events_never_refute_the_gaussian_mechanism():
    for sigma in (1.0, 1.05):
        assert _bound(_Gaussian(sigma), events=("threshold", "interval")) < 4.377


def _byte_keys(rows):  # a row's float64 bytes as one opaque value: the order and equality the keys must keep
    matrix = np.ascontiguousarray(np.asarray(rows, dtype=np.float64) + 0.0)
    return matrix.view(np.dtype((np.void, 8 * matrix.shape[1]))).ravel()


def test_one_value_rows_keep_the_atoms_and_outcomes_their_bytes_give():
    """One-value outputs are keyed by an integer instead of their bytes: the same atoms in the same order
    (ties in count broken by the bytes), the same outcomes and the same scores."""
    rng = np.random.default_rng(11)
    values = np.array([-2.5, -1.0, -0.0, 0.0, 1e-300, 0.5, 3.0, -7e10])
    rows = values[rng.integers(0, len(values), 3000)][:, None]
    keys = _byte_keys(rows)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    expected = tuple((float(rows[first[i], 0]),) for i in np.argsort(-counts, kind="stable") if counts[i] >= 2)
    assert atoms_of(rows, np.array([9.0])) == (*expected, (9.0,))
    projection = outcome_projection(rows[:1500], rows[1500:])
    assert projection is not None
    byte_order = np.unique(keys, return_index=True)[1]
    assert projection.outcomes == tuple((float(rows[i, 0]),) for i in byte_order)
    probe = np.array([[0.0], [-0.0], [0.5], [4.0], [-7e10]])
    assert projection.scores(probe).tolist()[:2] == [projection.ranks[projection.outcomes.index((0.0,))]] * 2
    assert projection.scores(probe)[3] == projection.unseen_rank
    atoms = AtomProjection(atoms_of(rows, np.array([9.0])), "test")
    assert atoms.scores(np.array([[-0.0], [4.0], [9.0]])).tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize(("second", "verdict"), [("1.0", "violated"), ("0.0", "consistent")])
def test_a_pure_claim_under_the_gaussian_fit_is_bounded_by_delta_at_its_epsilon(
    write_gaussian_spec, tmp_path, second, verdict
):
    """No Gaussian with a shift is pure DP: sigma = 1 claimed (10, 0)-DP has a certified δ(10) > 0 on a
    shift of 1 (it is (10, 1e-5)-DP), and a pair of equal inputs shows no shift."""
    extra = FIT.format(extra="").replace("second = [1.0]", f"second = [{second}]")
    evidence = _fit_evidence(write_gaussian_spec(epsilon="10.0", delta="0.0", extra=extra), tmp_path)
    assert evidence["verdict"] == verdict, evidence["summary"]
    (measurement,) = evidence["measurements"]
    assert measurement["quantity"] == "delta at epsilon=10.0"
    assert (measurement["measured"] > 0) is (verdict == "violated")


class _Laplace:
    def release(self, data, *, rng, size=None):
        value = np.asarray(data, dtype=float)
        return value + rng.laplace(0.0, 1.0, (size, *value.shape))


@pytest.mark.parametrize("seed", [0, 3, 5, 9, 11, 17])
def test_pairs_are_ranked_on_equal_pilots_so_a_later_users_pair_with_the_leak_is_kept(seed):
    """A user's first two pairs get the full pilot, the others 2,000 draws: ranked on their own pilots, the
    first two (epsilon 0.49, under the claim of 0.5) outscored a later one at 0.62 on seeds 3 and 9, and the
    audit said consistent; each ranked on 2,000 draws, the leaking pair is kept on every seed."""
    shifts = [0.49, 0.49, 0.1, 0.1, 0.1, 0.62, 0.1, 0.1]
    pairs = [
        NeighbourPair(np.zeros(1), np.full(1, shift), f"shift {index}", None if index < 2 else 2000)
        for index, shift in enumerate(shifts)
    ]
    budget = AuditBudget(200_000, pilot_samples=20_000, events=("threshold",))
    bound = certify_privacy_lower_bound(_Laplace(), pairs, delta=0.0, epsilon=0.5, budget=budget, seed=seed)
    assert bound.epsilon_lower_bound > 0.5


@pytest.mark.parametrize(
    ("whole", "equal", "kept"),
    [
        # a rare-event leak on a long pilot (1.88, past the claim) looks small on 1,000 draws (0.56): kept first
        ([1.88, 0.93, 0.70, 0.60], [0.56, 0.68, 0.70, 0.60], [0, 2]),
        # the first pairs' long pilots outscore a short-pilot leak on their own draws: ranked on 1,000 draws each
        ([0.46, 0.43, 0.30, 0.41], [0.21, 0.20, 0.30, 0.62], [2, 3]),
    ],
)
def test_pairs_of_unequal_pilots_are_ranked_on_equal_draws_but_a_pilot_past_the_claim_is_kept(whole, equal, kept):
    from dpaudit.checks.empirical.pair_screening import kept_pairs

    pairs = [NeighbourPair(np.zeros(1), np.ones(1), f"pair {index}") for index in range(4)]
    lengths = [20_000, 20_000, 1_000, 1_000]

    def score(index, draws):
        return whole[index] if draws is None else equal[index]

    assert kept_pairs(pairs, lengths, score, 2, 0.5) == kept
    assert kept_pairs(pairs, [1_000] * 4, score, 2, 0.5) == sorted(np.argsort(whole)[::-1][:2].tolist())


def test_a_long_pilot_below_the_claim_takes_no_place_of_its_own():
    from dpaudit.checks.empirical.pair_screening import kept_pairs

    pairs = [NeighbourPair(np.zeros(1), np.ones(1), f"pair {index}") for index in range(4)]
    whole, equal = [0.43, 0.46, 0.10, 0.30], [0.20, 0.45, 0.10, 0.40]  # pair 1 leads both; 0.46 is below 0.5

    def score(index, draws):
        return whole[index] if draws is None else equal[index]

    assert kept_pairs(pairs, [20_000, 20_000, 2_000, 2_000], score, 2, 0.5) == [1, 3]
