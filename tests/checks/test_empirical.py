"""The black-box engine: tightness, soundness (no false alarms), mutants, event families, determinism."""

from dataclasses import dataclass

import numpy as np
import pytest

from dpaudit.audit.plugins import get_checker
from dpaudit.checks.empirical.bound_evidence import bound_evidence
from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.epsilon_lower_bound import EmpiricalConfig
from dpaudit.checks.empirical.samplers import ReleaseSampler, as_sampler
from dpaudit.checks.empirical.sampling import (
    NeighbourPair,
    chunk_sizes,
    phase_seed,
)
from dpaudit.errors import CheckerError, InvalidArgument, InvalidType
from dpaudit.kernel.checker_config import parse_config
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import replace_one

SUBNORMAL = 5e-324
BELOW_ONE = 1 - 2**-53
EXACT_EPSILON = 3.13867  # Gaussian sigma = 1, sensitivity 1, delta = 1e-3 (Balle & Wang 2018, Thm 8)
TRUE_CLAIM = ApproxDP(3.1387, 1e-3)
UNIT_PAIR = NeighbourPair(np.zeros(1), np.ones(1), "f(X) = 0, f(X') = 1")


def _bound(mechanism, pairs, samples, seed=0, claim=TRUE_CLAIM, **budget):
    return certify_privacy_lower_bound(
        mechanism, pairs, delta=claim.delta, epsilon=claim.epsilon, budget=AuditBudget(samples, **budget), seed=seed
    )


@dataclass(frozen=True)
class ScaleShiftSampler:
    """M(X) = N(0, scale(X)^2): only the spread differs, so one-sided thresholds are weak."""

    def __call__(self, data, n, rng):
        return float(data[0]) * rng.standard_normal((n, 1))


@dataclass(frozen=True)
class WrongShapeSampler:
    def __call__(self, data, n, rng):
        return np.zeros((n + 1, 1))


@dataclass(frozen=True)
class NanSampler:
    def __call__(self, data, n, rng):
        return np.full((n, 1), np.nan)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"samples": 99}, "samples"),
        ({"samples": 1.0e6}, "samples"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": BELOW_ONE - 0.5}, "confidence"),
        ({"confidence": float("nan")}, "confidence"),
        ({"thresholds": 1}, "thresholds"),
        ({"selection_fraction": 0.0}, "selection_fraction"),
        ({"selection_fraction": -0.0}, "selection_fraction"),
        ({"selection_fraction": 1.0}, "selection_fraction"),
        ({"selection_fraction": float("inf")}, "selection_fraction"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"events": ()}, "events"),
        ({"events": ("threshold", "sniper")}, "events"),
        ({"max_pairs": 0}, "max_pairs"),
    ],
)
def test_invalid_budgets(changes, message):
    with pytest.raises((InvalidArgument, InvalidType), match=message):
        AuditBudget(**{"samples": 1000, **changes})


@pytest.mark.parametrize(
    "changes",
    [{}, {"confidence": 0.5}, {"confidence": BELOW_ONE}, {"selection_fraction": SUBNORMAL}, {"chunk_size": 1}],
)
def test_valid_budgets_split_every_sample(changes):
    budget = AuditBudget(**{"samples": 1000, **changes})
    assert budget.pilot + budget.selection + budget.certification == 1000
    assert min(budget.pilot, budget.selection, budget.certification) >= 1


def test_the_empirical_config_reads_a_lone_family_and_refuses_unknown_keys():
    assert parse_config(EmpiricalConfig, {"events": "classifier"}).events == ("classifier",)
    with pytest.raises(InvalidArgument, match=r"unknown params \['sample'\]: expected some of samples, "):
        parse_config(EmpiricalConfig, {"sample": 10})


@pytest.mark.parametrize(
    ("total", "size", "expected"), [(0, 5, ()), (5, 5, (5,)), (12, 5, (5, 5, 2)), (3, 1, (1, 1, 1))]
)
def test_chunk_layout_depends_only_on_total_and_size(total, size, expected):
    assert chunk_sizes(total, size) == expected


def test_phase_seeds_do_not_depend_on_spawn_counters():
    root = np.random.SeedSequence(5)
    first = phase_seed(root, 0, 1, 2).generate_state(2)
    root.spawn(3)
    assert np.array_equal(phase_seed(root, 0, 1, 2).generate_state(2), first)
    assert not np.array_equal(phase_seed(root, 0, 1, 3).generate_state(2), first)


def test_samplers_from_mechanisms_and_callables():
    mechanism = GaussianMechanism(1.0, 1.0)
    assert as_sampler(mechanism) == ReleaseSampler(mechanism, batched=True)
    sampler = ScaleShiftSampler()
    assert as_sampler(sampler) is sampler
    with pytest.raises(InvalidType):
        as_sampler(3)
    unbatched = ReleaseSampler(mechanism, batched=False)
    assert unbatched(np.zeros(2), 5, np.random.default_rng(0)).shape == (5, 2)


@pytest.mark.parametrize(("sampler", "message"), [(WrongShapeSampler(), "shape"), (NanSampler(), "non-finite")])
def test_bad_sampler_output_is_a_checker_error(sampler, message):
    with pytest.raises(CheckerError, match=message):
        _bound(sampler, [UNIT_PAIR], 1000)


def test_acceptance_gaussian_ten_million_samples_is_within_ten_percent():
    """Issue 10 acceptance: sigma = 1, sensitivity 1, delta = 1e-3, 10^7 samples per side, 95%."""
    bound = _bound(GaussianMechanism(1.0, 1.0), [UNIT_PAIR], 10**7, events=("threshold",))
    assert 0.9 * EXACT_EPSILON <= bound.epsilon_lower_bound < EXACT_EPSILON


def test_one_million_samples_is_within_twelve_percent():
    bound = _bound(GaussianMechanism(1.0, 1.0), [UNIT_PAIR], 10**6)
    assert 0.88 * EXACT_EPSILON <= bound.epsilon_lower_bound < EXACT_EPSILON
    assert bound.delta_lower_bound is not None and 0.0 <= bound.delta_lower_bound < 1e-3
    # a bound this close under the claim is no violation: only one past it is
    assert bound_evidence(bound, TRUE_CLAIM, domain="d", method="m").verdict is Verdict.CONSISTENT
    past = ApproxDP(bound.epsilon_lower_bound * (1 - 1e-9), TRUE_CLAIM.delta)
    assert bound_evidence(bound, past, domain="d", method="m").verdict is Verdict.VIOLATED


def test_no_false_alarm_in_twenty_runs_on_the_tightest_true_claim():
    """The claim is the exact epsilon rounded up: any violation would be a false alarm."""
    mechanism = GaussianMechanism(1.0, 1.0)
    planar = NeighbourPair(np.zeros(2), np.array([0.6, 0.8]), "planar")
    for seed in range(20):
        bound = _bound(mechanism, [UNIT_PAIR, planar], 20_000, seed=seed, max_pairs=2)
        evidence = bound_evidence(bound, TRUE_CLAIM, domain="d", method="m")
        assert evidence.verdict is Verdict.CONSISTENT, seed
        assert bound.epsilon_lower_bound < EXACT_EPSILON


@pytest.mark.parametrize(
    ("mechanism", "pair"),
    [
        (GaussianMechanism(0.5, 1.0), UNIT_PAIR),
        (GaussianMechanism(1.0, 1.0), NeighbourPair(np.zeros(1), np.full(1, 2.0), "sensitivity 2, not 1")),
    ],
    ids=["sigma-halved", "sensitivity-mis-stated"],
)
def test_gaussian_mutants_are_violated_with_a_counterexample(mechanism, pair):
    bound = _bound(mechanism, [pair], 20_000)
    evidence = bound_evidence(bound, TRUE_CLAIM, domain="d", method="m")
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.measurements[0].measured > TRUE_CLAIM.epsilon
    assert evidence.counterexample["pair"] == pair.label
    assert evidence.budget["events_certified"] == len(bound.events) >= 1


def test_classifier_events_beat_thresholds_when_only_the_spread_differs():
    pair = NeighbourPair(np.array([1.0]), np.array([3.0]), "spread 1 vs 3")
    claim = ApproxDP(10.0, 1e-3)
    thresholds = _bound(ScaleShiftSampler(), [pair], 40_000, claim=claim, events=("threshold",))
    classifier = _bound(ScaleShiftSampler(), [pair], 40_000, claim=claim, events=("classifier",))
    assert classifier.epsilon_lower_bound > thresholds.epsilon_lower_bound + 0.3
    assert "y²" in classifier.best_event.event


def test_half_spaces_beat_coordinates_on_a_diagonal_shift():
    pair = NeighbourPair(np.zeros(4), np.full(4, 0.5), "diagonal")
    coordinates = _bound(GaussianMechanism(1.0, 1.0), [pair], 40_000, events=("threshold",))
    halfspaces = _bound(GaussianMechanism(1.0, 1.0), [pair], 40_000, events=("halfspace",))
    assert halfspaces.epsilon_lower_bound > coordinates.epsilon_lower_bound + 0.5


def test_pilot_screening_keeps_the_most_distinguishable_pair():
    pairs = [NeighbourPair(np.zeros(1), np.full(1, d), f"distance {d}") for d in (0.05, 1.0, 0.1)]
    bound = _bound(GaussianMechanism(1.0, 1.0), pairs, 20_000, max_pairs=1)
    assert bound.pairs == (3, 1)
    assert {event.pair for event in bound.events} == {"distance 1.0"}


@dataclass(frozen=True)
class RoundedLaplaceSampler:
    """Lap(2) per coordinate added to f(X) rounded half to even: on (0.5, 0.5) vs (1.5, 1.5) the
    shift is (2, 2), so (2, 0)-DP where scale 2 and L1 sensitivity 2 promise (1, 0); each
    coordinate alone shows only 1, like every pair moved by 2 along one axis."""

    def __call__(self, data, n, rng):
        return np.round(np.asarray(data, dtype=float)) + rng.laplace(0.0, 2.0, (n, len(data)))


@pytest.mark.slow  # eight seeds of one audit: the main CI job runs it, not the floors one
def test_the_pilot_ranks_a_pair_past_the_claim_above_many_at_it():
    """Eighteen searched pairs at exactly the claim (one axis moved by 2) and one past it whose
    leak needs both coordinates at once, each on 1,000 pilot draws per side: the one past the
    claim is kept among two and the audit is violated on each of seeds 0-7 (measured on seeds 0-19:
    20 of 20 at the ranking's 99.9% per event, 14 of 20 at its old 95%, missing seeds 4, 5 and 6 here)."""
    claim = ApproxDP(1.0, 0.0)
    at_claim = [
        NeighbourPair(np.array([c, c]), np.array([c, c]) + np.array(step), f"at the claim {c} {step}", pilot_cap=1000)
        for c in (0.0, 10.0, 1000.0)
        for step in ((2.0, 0.0), (-2.0, 0.0), (0.0, 2.0), (0.0, -2.0), (1.0, 1.0), (-1.0, -1.0))
    ]
    past = NeighbourPair(np.full(2, 0.5), np.full(2, 1.5), "half-integers", pilot_cap=1000)
    for seed in range(8):
        bound = _bound(RoundedLaplaceSampler(), [*at_claim, past], 60_000, seed=seed, claim=claim, max_pairs=2)
        assert past.label in {event.pair for event in bound.events}, seed
        assert bound_evidence(bound, claim, domain="d", method="m").verdict is Verdict.VIOLATED, seed


def test_a_screened_pair_is_sampled_further_only_when_its_pilot_alone_exceeds_the_claim():
    """Sigma = 1, claim (3.1387, 1e-3): a screened pair 12 apart shows epsilon far past the claim on
    200 pilot draws and is certified on at most its cap; one 0.5 apart is never sampled past its
    pilot, even with room for every pair."""
    given = NeighbourPair(np.zeros(1), np.full(1, 0.1), "given")
    far = NeighbourPair(np.zeros(1), np.full(1, 12.0), "screened, far", pilot_cap=200, draws_cap=3000)
    near = NeighbourPair(np.zeros(1), np.full(1, 0.5), "screened, near", pilot_cap=200, draws_cap=3000)
    farther = NeighbourPair(np.zeros(1), np.full(1, 15.0), "screened, farther", pilot_cap=200, draws_cap=3000)
    leaky = _bound(GaussianMechanism(1.0, 1.0), [given, far, farther], 40_000, max_pairs=4)
    assert leaky.pairs == (3, 2) and leaky.epsilon_lower_bound > TRUE_CLAIM.epsilon  # one screened pair at most
    assert {event.samples for event in leaky.events if event.pair != given.label} == {3000}
    private = _bound(GaussianMechanism(1.0, 1.0), [given, near], 40_000, max_pairs=4)
    assert private.pairs == (2, 1) and {event.pair for event in private.events} == {"given"}
    alone = _bound(GaussianMechanism(1.0, 1.0), [near], 40_000)  # nothing sampled past a pilot: no power to claim
    assert alone.pairs == (1, 0)
    evidence = bound_evidence(alone, TRUE_CLAIM, domain="one screened pair", method="Monte Carlo")
    assert evidence.verdict is Verdict.INCONCLUSIVE and "no pair was sampled past its pilot" in evidence.summary


def test_invalid_engine_arguments():
    mechanism = GaussianMechanism(1.0, 1.0)
    with pytest.raises(InvalidArgument, match="pairs"):
        _bound(mechanism, [], 1000)
    with pytest.raises(InvalidArgument, match="delta"):
        certify_privacy_lower_bound(mechanism, [UNIT_PAIR], delta=1.0, budget=AuditBudget(1000), seed=0)


def _claim(obligation, sigma=1.0):
    return Claim(
        id="gaussian-empirical",
        title="t",
        mechanism=MechanismSpec("gaussian", {"sigma": sigma, "sensitivity": 1.0}),
        guarantee=TRUE_CLAIM,
        relations=(replace_one(),),
        source=Source("Balle & Wang 2018", "Theorem 8"),
        obligations=(obligation,),
    )


def _run(params, sigma=1.0, candidate=None):
    obligation = Obligation("empirical", "no event refutes the claim", "empirical_epsilon_lower_bound", params)
    claim = _claim(obligation, sigma)
    entry = get_checker("empirical_epsilon_lower_bound")
    entry.validate(params, claim)
    seed = np.random.SeedSequence(4)
    context = CheckContext(claim, replace_one(), np.random.default_rng(seed), seed, candidate=candidate)
    return entry.function(obligation, context)


PAIRS = [{"first": [0.0], "second": [1.0], "label": "worst"}]


def test_checker_on_reference_and_on_a_candidate():
    assert _run({"samples": 20_000, "pairs": PAIRS}).verdict is Verdict.CONSISTENT
    evidence = _run({"samples": 20_000, "pairs": PAIRS}, candidate=GaussianMechanism(0.5, 1.0))
    assert evidence.verdict is Verdict.VIOLATED
    assert evidence.details["events_tried"] > 0
    assert evidence.budget["samples_per_side"] == 20_000


def test_checker_is_reproducible_for_a_seed():
    first = _run({"samples": 5_000, "pairs": PAIRS})
    second = _run({"samples": 5_000, "pairs": PAIRS})
    assert first.to_json() == second.to_json()


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"pairs": []}, InvalidArgument),
        ({"pairs": [{"first": [0.0]}]}, InvalidArgument),
        ({"pairs": [{"first": [0.0], "second": [float("nan")]}]}, InvalidArgument),
        ({"pairs": PAIRS, "samples": 10}, InvalidArgument),
        ({"pairs": PAIRS, "unknown": 1}, InvalidArgument),
    ],
)
def test_checker_rejects_bad_params(params, error):
    obligation = Obligation("empirical", "s", "empirical_epsilon_lower_bound", params)
    with pytest.raises(error):
        get_checker("empirical_epsilon_lower_bound").validate(params, _claim(obligation))


def test_checker_uses_the_mechanisms_own_pairs():
    assert _run({"samples": 20_000}).verdict is Verdict.CONSISTENT


def test_checker_without_pairs_says_how_to_give_them():
    class ReleaseOnly:
        def __init__(self, sigma, sensitivity):
            self.inner = GaussianMechanism(sigma, sensitivity)

        def release(self, data, *, rng, size=None):
            return self.inner.release(data, rng=rng, size=size)

    obligation = Obligation("empirical", "s", "empirical_epsilon_lower_bound", {"samples": 1000})
    seed = np.random.SeedSequence(4)
    context = CheckContext(
        _claim(obligation), replace_one(), np.random.default_rng(seed), seed, mechanism_factory=ReleaseOnly
    )
    with pytest.raises(CheckerError, match="pairs"):
        get_checker("empirical_epsilon_lower_bound").function(obligation, context)


def test_checker_audits_a_mutant_through_the_context():
    obligation = Obligation("empirical", "s", "empirical_epsilon_lower_bound", {"samples": 20_000, "pairs": PAIRS})
    claim = _claim(obligation)
    seed = np.random.SeedSequence(4)

    def halved_sigma(sigma, sensitivity):
        return GaussianMechanism(sigma / 2, sensitivity)

    context = CheckContext(claim, replace_one(), np.random.default_rng(seed), seed, mechanism_factory=halved_sigma)
    assert get_checker("empirical_epsilon_lower_bound").function(obligation, context).verdict is Verdict.VIOLATED


def _full_objectives(p_counts, q_counts, trials, alpha, delta, epsilon):
    from dpaudit.checks.empirical.statistics import (
        clopper_pearson_lower_array,
        clopper_pearson_upper_array,
        epsilon_lower_bound_array,
    )

    p_lower = clopper_pearson_lower_array(p_counts, trials, alpha)
    q_upper = clopper_pearson_upper_array(q_counts, trials, alpha)
    values = {"epsilon": epsilon_lower_bound_array(p_lower, q_upper, delta)}
    if epsilon is not None:
        values["delta"] = p_lower - np.exp(epsilon) * q_upper
    return values


@pytest.mark.parametrize("seed", range(30))
def test_event_selection_screened_by_plug_in_values_picks_what_the_full_computation_picks(seed):
    """Only the events that can reach the best get Clopper-Pearson bounds: same argmax (first index
    of the maximum, ties included) and same value as bounding every event."""
    from dpaudit.checks.empirical.certification import _objectives

    rng = np.random.default_rng(seed)
    trials = int(rng.choice([50, 1000, 10**6]))
    size = int(rng.choice([10, 200, 3000]))
    p_counts = rng.binomial(trials, rng.uniform(0, 1, size=size))
    q_counts = rng.binomial(trials, rng.uniform(0, 1, size=size) ** 3)
    if seed % 3 == 0:  # ties and the extremes
        p_counts[::5], q_counts[::5] = p_counts[0], q_counts[0]
        p_counts[1], q_counts[2] = trials, 0
    delta, epsilon = float(rng.choice([0.0, 1e-5, 0.1])), [None, 0.5, 3.0][seed % 3]
    screened = _objectives(p_counts, q_counts, trials, 1e-3, delta, epsilon)
    full = _full_objectives(p_counts, q_counts, trials, 1e-3, delta, epsilon)
    assert screened.keys() == full.keys()
    for name in full:
        assert int(np.argmax(screened[name])) == int(np.argmax(full[name]))
        assert screened[name].max() == full[name].max()
        assert np.all(screened[name] <= full[name])  # an event left out is left at -inf, never raised
