"""Black-box privacy auditing: a certified lower bound on ε from a mechanism's outputs alone.

The engine samples a mechanism on neighbouring pairs (X, X') in three independent
phases per side:

1. *pilot* — a small raw sample that fixes the candidate scores (coordinates,
   half-space normals, a logistic classifier on output features) and their threshold
   grids, and screens the pairs;
2. *selection* — histograms of every score on its grid; every threshold event, both
   tails and both orders of the pair (M(X) vs M(X') and M(X') vs M(X)) is scored by the
   bound it would certify, and the best few are chosen;
3. *certification* — fresh draws count only the chosen events; one-sided
   Clopper–Pearson bounds p ≥ p_lo, q ≤ q_hi, each at error (1 − confidence) / (2k)
   for k certified events (union bound), give ε_lb = ln((p_lo − δ) / q_hi) and, at a
   claimed ε, δ_lb = p_lo − e^ε q_hi.

Because the events are chosen on data independent of the certification draws, the
certified bound holds with probability at least the stated confidence. A claim is
``violated`` only when a certified ε_lb exceeds it; otherwise ``consistent``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_choice,
    check_integer,
    check_real,
)
from dpaudit.checks.claim_inputs import approx_dp_of
from dpaudit.checks.empirical.events import (
    CoordinateProjection,
    Projection,
    ThresholdEvent,
    ThresholdGrid,
    fit_logistic_projection,
    mean_difference_projection,
)
from dpaudit.checks.empirical.sampling import (
    CERTIFICATION,
    PILOT,
    SELECTION,
    NeighbourPair,
    as_sampler,
    count_events,
    draw_outputs,
    histogram_scores,
    neighbour_pairs,
    phase_seed,
)
from dpaudit.checks.empirical.statistics import (
    clopper_pearson_lower,
    clopper_pearson_lower_array,
    clopper_pearson_upper,
    clopper_pearson_upper_array,
    epsilon_lower_bound,
    epsilon_lower_bound_array,
)
from dpaudit.errors import CheckerError, InvalidArgument
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.rng import seed_sequence

__all__ = [
    "EVENT_FAMILIES",
    "AuditBudget",
    "CertifiedEvent",
    "EmpiricalBound",
    "bound_evidence",
    "budget_from_params",
    "certify_privacy_lower_bound",
    "check_empirical_epsilon_lower_bound",
]

EVENT_FAMILIES = ("threshold", "halfspace", "classifier")
_MAX_COORDINATES = 16
_SCREENING_ALPHA = 0.05


@dataclass(frozen=True)
class AuditBudget:
    """How much sampling an empirical audit may spend, and how it is split.

    Attributes:
        samples: draws per side (per dataset of a pair), all phases together.
        confidence: the probability that every certified bound holds (union bound).
        thresholds: grid points per score in the selection phase.
        pilot_samples: cap on the pilot draws per side (the pilot takes at most a tenth).
        selection_fraction: share of the non-pilot draws used for selection.
        chunk_size: draws per chunk (the unit of seeding and of parallel work).
        batch_size: draws per mechanism call inside a chunk (keeps arrays in cache).
        events: event families: ``threshold`` (coordinates), ``halfspace`` (mean
            difference and a linear logistic classifier), ``classifier`` (logistic on (y, y²)).
        max_pairs: pairs kept after the pilot screening.
        classifier_samples: cap on the pilot draws per side used to fit classifiers.
    """

    samples: int
    confidence: float = 0.95
    thresholds: int = 1024
    pilot_samples: int = 100_000
    selection_fraction: float = 0.25
    chunk_size: int = 1 << 19
    batch_size: int = 1 << 14
    events: tuple[str, ...] = EVENT_FAMILIES
    max_pairs: int = 2
    classifier_samples: int = 20_000

    def __post_init__(self) -> None:
        check_integer("samples", self.samples, low=100)
        check_real("confidence", self.confidence, low=0.5, high=1.0, high_open=True)
        check_integer("thresholds", self.thresholds, low=2)
        check_integer("pilot_samples", self.pilot_samples, low=10)
        check_real("selection_fraction", self.selection_fraction, low=0.0, high=1.0, low_open=True, high_open=True)
        check_integer("chunk_size", self.chunk_size, low=1)
        check_integer("batch_size", self.batch_size, low=1)
        check_integer("max_pairs", self.max_pairs, low=1)
        check_integer("classifier_samples", self.classifier_samples, low=10)
        families = tuple(self.events)
        if not families:
            raise InvalidArgument(f"events={self.events!r}: expected at least one of {', '.join(EVENT_FAMILIES)}")
        for family in families:
            check_choice("events", family, EVENT_FAMILIES)
        object.__setattr__(self, "events", families)

    @property
    def pilot(self) -> int:
        """Pilot draws per side."""
        return max(10, min(self.pilot_samples, self.samples // 10))

    @property
    def selection(self) -> int:
        """Selection draws per side."""
        return max(1, int((self.samples - self.pilot) * self.selection_fraction))

    @property
    def certification(self) -> int:
        """Certification draws per side."""
        return self.samples - self.pilot - self.selection


@dataclass(frozen=True)
class CertifiedEvent:
    """One event certified on fresh draws: P[M(A) ∈ E] >= p_lower and P[M(B) ∈ E] <= q_upper.

    Attributes:
        pair: the label of the neighbouring pair.
        order: which dataset is A (the p side): ``X vs X'`` or ``X' vs X``.
        event: the event in words.
        objective: ``epsilon`` or ``delta``, what the event was selected to maximise.
        p_count, q_count: draws in E out of ``samples`` on A and on B.
        samples: certification draws per side.
        alpha: the error probability of each one-sided bound.
        p_lower, q_upper: the Clopper–Pearson bounds.
        epsilon_lower_bound: ln((p_lower − δ) / q_upper) at the audited δ.
        delta_lower_bound: p_lower − e^ε q_upper at the claimed ε (``None`` without a claim).
    """

    pair: str
    order: str
    event: str
    objective: str
    p_count: int
    q_count: int
    samples: int
    alpha: float
    p_lower: float
    q_upper: float
    epsilon_lower_bound: float
    delta_lower_bound: float | None

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in evidence details."""
        return {key: _json_float(value) for key, value in self.__dict__.items()}


def _json_float(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


@dataclass(frozen=True)
class EmpiricalBound:
    """The outcome of :func:`certify_privacy_lower_bound`.

    Attributes:
        epsilon_lower_bound: the largest certified ε lower bound at ``delta`` (``-inf``
            when no event refutes anything).
        delta: the δ at which ε is bounded.
        epsilon: the ε at which δ is bounded (``None`` if not asked).
        delta_lower_bound: the largest certified δ lower bound at ``epsilon`` (>= 0).
        confidence: all certified bounds hold together with at least this probability.
        budget: the sampling budget used.
        pairs: the number of pairs sampled in the pilot, and kept after screening.
        events_tried: candidate events scored in the selection phase.
        events: the certified events.
    """

    epsilon_lower_bound: float
    delta: float
    epsilon: float | None
    delta_lower_bound: float | None
    confidence: float
    budget: AuditBudget
    pairs: tuple[int, int]
    events_tried: int
    events: tuple[CertifiedEvent, ...] = field(default_factory=tuple)

    @property
    def best_event(self) -> CertifiedEvent | None:
        """The certified event with the largest ε lower bound."""
        return max(self.events, key=lambda event: event.epsilon_lower_bound, default=None)

    def details(self) -> dict[str, Any]:
        """JSON-ready details for evidence."""
        return {
            "phases_per_side": {
                "pilot": self.budget.pilot,
                "selection": self.budget.selection,
                "certification": self.budget.certification,
            },
            "pairs_sampled": self.pairs[0],
            "pairs_kept": self.pairs[1],
            "events_tried": self.events_tried,
            "events_certified": len(self.events),
            "event_families": list(self.budget.events),
            "certified_events": [event.to_json() for event in self.events],
        }


@dataclass(frozen=True)
class _Candidate:
    pair_index: int
    event: ThresholdEvent
    p_is_first: bool
    objective: str
    score: float


def _projections(first: np.ndarray, second: np.ndarray, budget: AuditBudget) -> list[Projection]:
    dimension = first.shape[1]
    projections: list[Projection] = []
    if "threshold" in budget.events:
        projections.extend(CoordinateProjection(i) for i in range(min(dimension, _MAX_COORDINATES)))
    fit_first = first[: budget.classifier_samples]
    fit_second = second[: budget.classifier_samples]
    if "halfspace" in budget.events and dimension > 1:
        with contextlib.suppress(InvalidArgument):
            projections.append(mean_difference_projection(first, second))
        projections.append(fit_logistic_projection(fit_first, fit_second, quadratic=False))
    if "classifier" in budget.events:
        projections.append(fit_logistic_projection(fit_first, fit_second, quadratic=True))
    return list(dict.fromkeys(projections))


def _score_candidates(
    pair_index: int,
    projection: Projection,
    grid: ThresholdGrid,
    histograms: tuple[np.ndarray, np.ndarray],
    *,
    delta: float,
    epsilon: float | None,
    alpha: float,
) -> tuple[list[_Candidate], int]:
    """The best event per (order, objective) for one score, and the number of events scored."""
    trials = int(histograms[0].sum())
    upper_first, lower_first = grid.tail_counts(histograms[0])
    upper_second, lower_second = grid.tail_counts(histograms[1])
    thresholds = grid.thresholds()
    best: list[_Candidate] = []
    for p_is_first in (True, False):
        p_counts = np.concatenate([upper_first, lower_first] if p_is_first else [upper_second, lower_second])
        q_counts = np.concatenate([upper_second, lower_second] if p_is_first else [upper_first, lower_first])
        p_lower = clopper_pearson_lower_array(p_counts, trials, alpha)
        q_upper = clopper_pearson_upper_array(q_counts, trials, alpha)
        objectives = {"epsilon": epsilon_lower_bound_array(p_lower, q_upper, delta)}
        if epsilon is not None:
            objectives["delta"] = p_lower - math.exp(epsilon) * q_upper
        for name, values in objectives.items():
            index = int(np.argmax(values))
            if not np.isfinite(values[index]):
                continue
            upper = index < grid.size
            event = ThresholdEvent(projection, float(thresholds[index % grid.size]), upper)
            best.append(_Candidate(pair_index, event, p_is_first, name, float(values[index])))
    return best, 2 * 2 * grid.size


def _pilot_screen_score(
    first: np.ndarray,
    second: np.ndarray,
    projections: Sequence[Projection],
    grids: Sequence[ThresholdGrid],
    delta: float,
) -> float:
    best = -math.inf
    for projection, grid in zip(projections, grids, strict=False):
        histograms = (grid.histogram(projection.scores(first)), grid.histogram(projection.scores(second)))
        candidates, _ = _score_candidates(
            0, projection, grid, histograms, delta=delta, epsilon=None, alpha=_SCREENING_ALPHA
        )
        best = max([best, *(candidate.score for candidate in candidates)])
    return best


def _choose(candidates: Sequence[_Candidate]) -> list[_Candidate]:
    chosen: dict[tuple[str, bool], _Candidate] = {}
    for candidate in candidates:
        key = (candidate.objective, candidate.p_is_first)
        if key not in chosen or candidate.score > chosen[key].score:
            chosen[key] = candidate
    unique: dict[tuple[int, ThresholdEvent, bool], _Candidate] = {}
    for key in sorted(chosen):
        candidate = chosen[key]
        unique.setdefault((candidate.pair_index, candidate.event, candidate.p_is_first), candidate)
    return list(unique.values())


def certify_privacy_lower_bound(
    mechanism: Any,
    pairs: Sequence[NeighbourPair],
    *,
    delta: float,
    epsilon: float | None = None,
    budget: AuditBudget,
    seed: int | np.random.SeedSequence,
    executor: Executor | None = None,
    progress: bool | None = None,
) -> EmpiricalBound:
    """Certify lower bounds on ε at ``delta`` (and on δ at ``epsilon``) from outputs alone.

    Args:
        mechanism: a sampler ``sample(data, n, rng)`` or an object with ``release``
            (picklable when ``executor`` runs in other processes).
        pairs: neighbouring pairs to audit; with more than ``budget.max_pairs``, the
            pilot screens them and only the most promising are sampled further.
        delta: the δ of the audited claim.
        epsilon: a claimed ε; adds events chosen to maximise the δ lower bound at it.
        budget: sample counts and event families.
        seed: the root of every chunk's SeedSequence (the result depends only on it,
            the pairs and the budget — not on the executor or its worker count).
        executor: where chunks run (``None``: in the calling thread).
        progress: progress bar on stderr (``None``: only on a terminal).

    Returns:
        The certified bounds with the events behind them.

    Raises:
        InvalidArgument: for bad arguments; CheckerError when the mechanism returns bad output.

    References:
        Jagielski, Ullman & Oprea 2020 (auditing by events with Clopper–Pearson bounds);
        Ding et al. 2018, "Detecting violations of differential privacy" (event search on
        held-out samples); Bichsel et al. 2021, DP-Sniper (classifier-based events).
    """
    audited_delta = check_real("delta", delta, low=0.0, high=1.0, high_open=True)
    claimed_epsilon = None if epsilon is None else check_real("epsilon", epsilon, low=0.0)
    if not pairs:
        raise InvalidArgument("pairs=[]: expected at least one neighbouring pair")
    sampler = as_sampler(mechanism)
    root = seed_sequence(seed)
    common: dict[str, Any] = {
        "chunk_size": budget.chunk_size,
        "batch_size": budget.batch_size,
        "executor": executor,
        "progress": progress,
    }
    planned = 2 * (2 if claimed_epsilon is not None else 1)
    selection_alpha = (1.0 - budget.confidence) / (2 * planned)

    pilots = []
    for i, pair in enumerate(pairs):
        sides = [
            draw_outputs(sampler, data, budget.pilot, seed=phase_seed(root, i, PILOT, side), **common)
            for side, data in enumerate((pair.first, pair.second))
        ]
        projections = _projections(sides[0], sides[1], budget)
        grids = [
            ThresholdGrid.spanning(np.concatenate([p.scores(sides[0]), p.scores(sides[1])]), budget.thresholds)
            for p in projections
        ]
        pilots.append((sides, projections, grids))
    kept = list(range(len(pairs)))
    if len(pairs) > budget.max_pairs:
        scores = [_pilot_screen_score(s[0], s[1], p, g, audited_delta) for s, p, g in pilots]
        kept = sorted(sorted(kept, key=lambda i: (-scores[i], i))[: budget.max_pairs])

    candidates: list[_Candidate] = []
    tried = 0
    for i in kept:
        _, projections, grids = pilots[i]
        histograms = [
            histogram_scores(
                sampler, data, budget.selection, projections, grids, seed=phase_seed(root, i, SELECTION, side), **common
            )
            for side, data in enumerate((pairs[i].first, pairs[i].second))
        ]
        for j, (projection, grid) in enumerate(zip(projections, grids, strict=False)):
            best, count = _score_candidates(
                i,
                projection,
                grid,
                (histograms[0][j], histograms[1][j]),
                delta=audited_delta,
                epsilon=claimed_epsilon,
                alpha=selection_alpha,
            )
            candidates.extend(best)
            tried += count
    chosen = _choose(candidates)
    events = _certify(sampler, pairs, chosen, root, budget, audited_delta, claimed_epsilon, common)
    epsilon_bound = max((event.epsilon_lower_bound for event in events), default=-math.inf)
    delta_bound = None
    if claimed_epsilon is not None:
        delta_bound = max([0.0, *(event.delta_lower_bound for event in events if event.delta_lower_bound is not None)])
    return EmpiricalBound(
        epsilon_lower_bound=epsilon_bound,
        delta=audited_delta,
        epsilon=claimed_epsilon,
        delta_lower_bound=delta_bound,
        confidence=budget.confidence,
        budget=budget,
        pairs=(len(pairs), len(kept)),
        events_tried=tried,
        events=tuple(events),
    )


def _certify(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    chosen: Sequence[_Candidate],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    delta: float,
    epsilon: float | None,
    common: dict[str, Any],
) -> list[CertifiedEvent]:
    if not chosen:
        return []
    alpha = (1.0 - budget.confidence) / (2 * len(chosen))
    n = budget.certification
    certified = []
    for i in sorted({candidate.pair_index for candidate in chosen}):
        mine = [candidate for candidate in chosen if candidate.pair_index == i]
        events = [candidate.event for candidate in mine]
        counts = [
            count_events(sampler, data, n, events, seed=phase_seed(root, i, CERTIFICATION, side), **common)
            for side, data in enumerate((pairs[i].first, pairs[i].second))
        ]
        for k, candidate in enumerate(mine):
            first, second = int(counts[0][k]), int(counts[1][k])
            p_count, q_count = (first, second) if candidate.p_is_first else (second, first)
            p_lower = clopper_pearson_lower(p_count, n, alpha)
            q_upper = clopper_pearson_upper(q_count, n, alpha)
            certified.append(
                CertifiedEvent(
                    pair=pairs[i].label,
                    order="X vs X'" if candidate.p_is_first else "X' vs X",
                    event=candidate.event.describe(),
                    objective=candidate.objective,
                    p_count=p_count,
                    q_count=q_count,
                    samples=n,
                    alpha=alpha,
                    p_lower=p_lower,
                    q_upper=q_upper,
                    epsilon_lower_bound=epsilon_lower_bound(p_lower, q_upper, delta),
                    delta_lower_bound=None if epsilon is None else p_lower - math.exp(epsilon) * q_upper,
                )
            )
    return certified


def bound_evidence(bound: EmpiricalBound, guarantee: ApproxDP, *, domain: str, method: str) -> Evidence:
    """Turn a certified bound into evidence on an (ε, δ) claim.

    ``violated`` only when the certified ε lower bound exceeds the claimed ε (then the
    best event is the counterexample); otherwise ``consistent`` with the bound and its gap.
    """
    epsilon_bound = bound.epsilon_lower_bound
    violated = epsilon_bound > guarantee.epsilon
    best = bound.best_event
    confidence = f"{bound.confidence:.6g}"
    measurements = [
        Measurement(
            quantity=f"epsilon at delta={guarantee.delta!r}",
            claimed=guarantee.epsilon,
            measured=epsilon_bound,
            margin=guarantee.epsilon - epsilon_bound,
            direction=f"lower bound at confidence {confidence} (Clopper-Pearson, union bound)",
            interval=(epsilon_bound, math.inf),
        )
    ]
    if bound.delta_lower_bound is not None:
        measurements.append(
            Measurement(
                quantity=f"delta at epsilon={guarantee.epsilon!r}",
                claimed=guarantee.delta,
                measured=bound.delta_lower_bound,
                margin=guarantee.delta - bound.delta_lower_bound,
                direction=f"lower bound at confidence {confidence} (Clopper-Pearson, union bound)",
                interval=(bound.delta_lower_bound, 1.0),
            )
        )
    counterexample = None
    if violated and best is not None:
        counterexample = {
            "pair": best.pair,
            "order": best.order,
            "event": best.event,
            "p_count": best.p_count,
            "q_count": best.q_count,
            "samples": best.samples,
            "p_lower": best.p_lower,
            "q_upper": best.q_upper,
        }
    gap = guarantee.epsilon - epsilon_bound
    if violated:
        summary = (
            f"certified epsilon lower bound {epsilon_bound:.5g} exceeds the claimed {guarantee.epsilon:g} "
            f"at delta={guarantee.delta:g} (confidence {confidence})"
        )
    else:
        summary = (
            f"certified epsilon lower bound {epsilon_bound:.5g} at delta={guarantee.delta:g} (confidence "
            f"{confidence}) is below the claimed {guarantee.epsilon:g}; gap {gap:.4g}"
        )
    summary += (
        f"; {bound.budget.samples} samples per side, {bound.events_tried} events tried, {len(bound.events)} certified"
    )
    return Evidence(
        verdict=Verdict.VIOLATED if violated else Verdict.CONSISTENT,
        summary=summary,
        domain=domain,
        method=method,
        measurements=tuple(measurements),
        budget={
            "samples_per_side": bound.budget.samples,
            "certification_samples_per_side": bound.budget.certification,
            "confidence": bound.confidence,
            "events_tried": bound.events_tried,
            "events_certified": len(bound.events),
        },
        counterexample=counterexample,
        details=bound.details(),
    )


_BUDGET_KEYS = (
    "samples",
    "confidence",
    "thresholds",
    "pilot_samples",
    "selection_fraction",
    "chunk_size",
    "events",
    "max_pairs",
    "classifier_samples",
)


def budget_from_params(params: dict[str, Any], *, default_samples: int, extra_keys: Sequence[str] = ()) -> AuditBudget:
    """Build an :class:`AuditBudget` from an obligation's params, rejecting unknown keys.

    Raises:
        InvalidArgument: naming unknown keys or bad values.
    """
    unknown = set(params) - set(_BUDGET_KEYS) - set(extra_keys)
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected some of {', '.join(_BUDGET_KEYS)}")
    values = {key: params[key] for key in _BUDGET_KEYS if key in params}
    values.setdefault("samples", default_samples)
    if "events" in values:
        events = values["events"]
        values["events"] = (events,) if isinstance(events, str) else tuple(events)
    return AuditBudget(**values)


def _validate_empirical(params: dict[str, Any], claim: Claim) -> None:
    approx_dp_of(claim)
    budget_from_params(params, default_samples=10**6, extra_keys=("pairs",))
    if "pairs" in params:
        neighbour_pairs(params.get("pairs"))


def _audited_pairs(mechanism: Any, params: dict[str, Any], context: CheckContext) -> list[NeighbourPair]:
    if "pairs" in params:
        return neighbour_pairs(params.get("pairs"))
    if context.candidate is not None:
        mechanism = build_mechanism(context.claim.mechanism.name, context.claim.mechanism.params)
    proposer = getattr(mechanism, "audit_pairs", None)
    if callable(proposer):
        proposed = proposer(context.relation)
        return [pair if isinstance(pair, NeighbourPair) else NeighbourPair(*pair) for pair in proposed]
    raise CheckerError(
        f"mechanism {context.claim.mechanism.name!r} proposes no neighbouring pairs (no audit_pairs(relation)); "
        "give them in the obligation's params as pairs = [{first = [...], second = [...]}]"
    )


@register_checker(
    "empirical_epsilon_lower_bound",
    description="black-box Monte Carlo epsilon lower bound: threshold, half-space and classifier events, "
    "held-out selection, Clopper-Pearson with a union bound",
    validate=_validate_empirical,
    audits_candidates=True,
)
def check_empirical_epsilon_lower_bound(obligation: Obligation, context: CheckContext) -> Evidence:
    """Test an (ε, δ) claim from the outputs of the mechanism (or the candidate) alone.

    The mechanism is the candidate when one is loaded, else ``context.mechanism()`` (the
    reference or a mutant). The pairs come from ``params.pairs`` or from the mechanism's
    ``audit_pairs(relation)`` (the worst pairs a white-box search found). ``violated`` only when a certified ε
    lower bound exceeds the claim at the stated confidence.

    References:
        Dwork & Roth 2014, Def. 2.4; Jagielski, Ullman & Oprea 2020; Bichsel et al. 2021.
    """
    guarantee = approx_dp_of(context.claim)
    params = obligation.params
    budget = budget_from_params(params, default_samples=10**6, extra_keys=("pairs",))
    mechanism = context.mechanism()
    pairs = _audited_pairs(mechanism, params, context)
    bound = certify_privacy_lower_bound(
        mechanism,
        pairs,
        delta=guarantee.delta,
        epsilon=guarantee.epsilon,
        budget=budget,
        seed=context.seed,
        executor=context.executor,
    )
    labels = ", ".join(pair.label for pair in pairs[:4]) + (", ..." if len(pairs) > 4 else "")
    return bound_evidence(
        bound,
        guarantee,
        domain=f"{len(pairs)} neighbouring pair(s) under {context.relation.name}: {labels}; "
        f"event families {', '.join(budget.events)}",
        method="Monte Carlo: pilot, held-out event selection, one-sided Clopper-Pearson with a union bound "
        f"over {2 * max(len(bound.events), 1)} bounds",
    )
