"""Certified epsilon lower bounds from outputs alone: events chosen on a pilot and selection split,
certified on fresh samples with Clopper-Pearson and a union bound over the events tried.

References:
    Clopper & Pearson 1934; Jagielski, Ullman & Oprea 2020 (auditing DP with Monte Carlo events);
    Bichsel et al. 2021, DP-Sniper (classifier-based events).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_real,
)
from dpaudit.checks.empirical.budget import (
    ESCALATION_GROWTH,
    MAX_ESCALATION_SAMPLES,
    AuditBudget,
    CertifiedEvent,
    EmpiricalBound,
)
from dpaudit.checks.empirical.event_histogram import event_histogram
from dpaudit.checks.empirical.events import (
    AtomProjection,
    CoordinateProjection,
    Event,
    IntervalEvent,
    OutcomeProjection,
    Projection,
    ThresholdEvent,
    ThresholdGrid,
    atoms_of,
    fit_logistic_projection,
    mean_difference_projection,
    outcome_projection,
)
from dpaudit.checks.empirical.sampling import (
    CERTIFICATION,
    CONFIRMATION,
    ESCALATION,
    PILOT,
    SELECTION,
    NeighbourPair,
    as_sampler,
    count_events,
    draw_outputs,
    histogram_scores,
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
from dpaudit.errors import InvalidArgument
from dpaudit.rng import seed_sequence

__all__ = ["certify_privacy_lower_bound"]


_MAX_COORDINATES = 16


_SCREENING_ALPHA = 0.05


@dataclass(frozen=True)
class _Candidate:
    pair_index: int
    event: Event
    p_is_first: bool
    objective: str
    score: float


def _projections(first: np.ndarray, second: np.ndarray, budget: AuditBudget, pair: NeighbourPair) -> list[Projection]:
    dimension = first.shape[1]
    projections: list[Projection] = []
    if "atom" in budget.events:
        for label, outputs, data in (("X", first, pair.first), ("X'", second, pair.second)):
            atoms = atoms_of(outputs, data)
            if atoms:
                projections.append(AtomProjection(atoms, f"atoms of {label}'s pilot outputs and input"))
    if "outcome" in budget.events:
        outcomes = outcome_projection(first, second)
        if outcomes is not None:
            projections.append(outcomes)
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
    rare: bool = False,
    intervals: bool = False,
) -> tuple[list[_Candidate], int]:
    """The best event per (order, objective) for one score, and the number of events scored.

    With ``intervals``, the ranges ``{t_a <= score < t_b}`` of 1, 2, 4, ... grid steps compete
    with the tails for each (order, objective).

    With ``rare`` (for atom scores when escalation is on), one more objective picks the event
    whose plug-in ε (one pseudo-count on the q side) is largest: an atom seen on one side only,
    too rare for this selection size to certify, which escalation counts on more draws. (On
    continuous scores the far tails would win it by chance, so only atoms get it.)"""
    trials = int(histograms[0].sum())
    upper_first, lower_first = grid.tail_counts(histograms[0])
    upper_second, lower_second = grid.tail_counts(histograms[1])
    thresholds = grid.thresholds()
    tails = 2 * grid.size
    first_counts, second_counts = [upper_first, lower_first], [upper_second, lower_second]
    starts = stops = np.zeros(0, dtype=np.int64)
    if intervals:
        starts, stops, inside_first = grid.interval_counts(histograms[0])
        first_counts.append(inside_first)
        second_counts.append(grid.interval_counts(histograms[1])[2])
    best: list[_Candidate] = []
    for p_is_first in (True, False):
        p_counts = np.concatenate(first_counts if p_is_first else second_counts)
        q_counts = np.concatenate(second_counts if p_is_first else first_counts)
        objectives = _objectives(p_counts, q_counts, trials, alpha, delta, epsilon)
        if rare:
            plug_in = np.maximum(p_counts / trials - delta, 1e-300) / ((q_counts + 1) / trials)
            objectives["rare"] = np.where(p_counts > 0, np.log(plug_in), -np.inf)
        for name, values in objectives.items():
            index = int(np.argmax(values))
            if not np.isfinite(values[index]):
                continue
            event: Event
            if index >= tails:
                k = index - tails
                event = IntervalEvent(projection, float(thresholds[starts[k]]), float(thresholds[stops[k]]))
            else:
                event = ThresholdEvent(projection, float(thresholds[index % grid.size]), index < grid.size)
            best.append(_Candidate(pair_index, event, p_is_first, name, float(values[index])))
    return best, 2 * (tails + starts.size)


#: Events whose Clopper-Pearson bounds are computed before the others are screened against them.
_FIRST_SCORED = 64
#: Relative slack on the plug-in frequencies, far above the rounding of the Clopper-Pearson bounds.
_PLUG_IN_SLACK = 1e-9


def _objectives(
    p_counts: np.ndarray, q_counts: np.ndarray, trials: int, alpha: float, delta: float, epsilon: float | None
) -> dict[str, np.ndarray]:
    """The certified ε objective (and the δ objective at ``epsilon``) of every event, as arrays whose
    argmax is that of the full computation: an event is left at −inf only when it cannot reach the best.

    The Clopper-Pearson bounds (most of the time of the selection) are computed for the events with
    the best plug-in values first, then for every event whose plug-in value, an upper bound on its
    objective (the lower bound on p is at most k/n, the upper bound on q at least k/n; both objectives
    grow with p and fall with q), is not below the best exact value found: the others have an exact
    value below that best, so they are neither the maximum nor its first index.
    """
    p_hat = p_counts / trials * (1 + _PLUG_IN_SLACK)
    q_hat = q_counts / trials * (1 - _PLUG_IN_SLACK)
    ceilings = {"epsilon": epsilon_lower_bound_array(p_hat, q_hat, delta)}
    if epsilon is not None:
        ceilings["delta"] = p_hat - math.exp(epsilon) * q_hat

    def exact(index: np.ndarray) -> dict[str, np.ndarray]:
        p_lower = clopper_pearson_lower_array(p_counts[index], trials, alpha)
        q_upper = clopper_pearson_upper_array(q_counts[index], trials, alpha)
        values = {"epsilon": epsilon_lower_bound_array(p_lower, q_upper, delta)}
        if epsilon is not None:
            values["delta"] = p_lower - math.exp(epsilon) * q_upper
        return values

    first = np.unique(
        np.concatenate([np.argsort(-ceiling, kind="stable")[:_FIRST_SCORED] for ceiling in ceilings.values()])
    )
    found = exact(first)
    reach = np.zeros(p_counts.size, dtype=bool)
    for name, ceiling in ceilings.items():
        reach |= ~(ceiling < found[name].max())  # a NaN ceiling (or best) keeps the event
    index = np.flatnonzero(reach)
    values = exact(index)
    if any(np.isnan(computed).any() for computed in values.values()):  # argmax would pick the first NaN
        index = np.arange(p_counts.size)
        values = exact(index)
    objectives = {}
    for name, computed in values.items():
        full = np.full(p_counts.size, -np.inf)
        full[index] = computed
        objectives[name] = full
    return objectives


def _pilot_screen_score(
    first: np.ndarray,
    second: np.ndarray,
    projections: Sequence[Projection],
    grids: Sequence[ThresholdGrid],
    delta: float,
    intervals: bool,
) -> float:
    best = -math.inf
    for projection, grid in zip(projections, grids, strict=False):
        histograms = (grid.histogram(projection.scores(first)), grid.histogram(projection.scores(second)))
        candidates, _ = _score_candidates(
            0,
            projection,
            grid,
            histograms,
            delta=delta,
            epsilon=None,
            alpha=_SCREENING_ALPHA,
            intervals=intervals and not isinstance(projection, AtomProjection),
        )
        best = max([best, *(candidate.score for candidate in candidates)])
    return best


def _choose(candidates: Sequence[_Candidate]) -> list[_Candidate]:
    chosen: dict[tuple[str, bool], _Candidate] = {}
    for candidate in candidates:
        key = (candidate.objective, candidate.p_is_first)
        if key not in chosen or candidate.score > chosen[key].score:
            chosen[key] = candidate
    unique: dict[tuple[int, Event, bool], _Candidate] = {}
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
        pilot = budget.pilot if pair.pilot_cap is None else max(min(budget.pilot, pair.pilot_cap), 10)
        sides = draw_outputs(sampler, _sides(root, i, PILOT, pair), pilot, **common)
        projections = _projections(sides[0], sides[1], budget, pair)
        grids = [
            ThresholdGrid.spanning(np.concatenate([p.scores(sides[0]), p.scores(sides[1])]), budget.thresholds)
            for p in projections
        ]
        pilots.append((sides, projections, grids))
    kept = list(range(len(pairs)))
    if len(pairs) > budget.max_pairs:
        scores = [
            _pilot_screen_score(s[0], s[1], p, g, audited_delta, "interval" in budget.events) for s, p, g in pilots
        ]
        kept = sorted(sorted(kept, key=lambda i: (-scores[i], i))[: budget.max_pairs])

    candidates: list[_Candidate] = []
    tried = 0
    for i in kept:
        _, projections, grids = pilots[i]
        histograms = histogram_scores(
            sampler, _sides(root, i, SELECTION, pairs[i]), budget.selection, projections, grids, **common
        )
        for j, (projection, grid) in enumerate(zip(projections, grids, strict=False)):
            best, count = _score_candidates(
                i,
                projection,
                grid,
                (histograms[0][j], histograms[1][j]),
                delta=audited_delta,
                epsilon=claimed_epsilon,
                alpha=selection_alpha,
                rare=budget.escalations > 0 and isinstance(projection, AtomProjection | OutcomeProjection),
                intervals="interval" in budget.events and not isinstance(projection, AtomProjection),
            )
            candidates.extend(best)
            tried += count
    chosen = _choose(candidates)
    planned_bounds = 2 * (len(chosen) + ESCALATED_PER_ROUND * budget.escalations)
    alpha = (1.0 - budget.confidence) / max(planned_bounds, 1)
    certified = _certify(
        sampler, pairs, chosen, root, budget.certification, alpha, audited_delta, claimed_epsilon, common
    )
    if claimed_epsilon is not None:
        certified += _escalate(sampler, pairs, certified, root, budget, alpha, audited_delta, claimed_epsilon, common)
        if budget.confirm:
            certified = _confirm(sampler, pairs, certified, root, budget, audited_delta, claimed_epsilon, common)
    events = [event for _, event in certified]
    strongest = max(certified, key=lambda item: item[1].epsilon_lower_bound, default=None)  # the best event
    picture = None if strongest is None else event_histogram(strongest[0].event, *pilots[strongest[0].pair_index][0])
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
        planned_bounds=planned_bounds,
        event_histogram=picture,
    )


def _sides(
    root: np.random.SeedSequence, index: int, phase: int, pair: NeighbourPair
) -> list[tuple[Any, np.random.SeedSequence]]:
    """Both sides of pair ``index`` with the seeds of their draws in ``phase``."""
    return [(data, phase_seed(root, index, phase, side)) for side, data in enumerate((pair.first, pair.second))]


def _certify(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    chosen: Sequence[_Candidate],
    root: np.random.SeedSequence,
    n: int,
    alpha: float,
    delta: float,
    epsilon: float | None,
    common: dict[str, Any],
    *,
    phase: int = CERTIFICATION,
) -> list[tuple[_Candidate, CertifiedEvent]]:
    """Count the chosen events on ``n`` fresh draws per side (seeded by ``phase``) and bound them."""
    certified = []
    for i in sorted({candidate.pair_index for candidate in chosen}):
        mine = [candidate for candidate in chosen if candidate.pair_index == i]
        events = [candidate.event for candidate in mine]
        counts = count_events(sampler, _sides(root, i, phase, pairs[i]), n, events, **common)
        for k, candidate in enumerate(mine):
            first, second = int(counts[0][k]), int(counts[1][k])
            p_count, q_count = (first, second) if candidate.p_is_first else (second, first)
            p_lower = clopper_pearson_lower(p_count, n, alpha)
            q_upper = clopper_pearson_upper(q_count, n, alpha)
            event = CertifiedEvent(
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
                escalated=phase != CERTIFICATION,
            )
            certified.append((candidate, event))
    return certified


def _confirm(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    certified: list[tuple[_Candidate, CertifiedEvent]],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    delta: float,
    epsilon: float,
    common: dict[str, Any],
) -> list[tuple[_Candidate, CertifiedEvent]]:
    """Certify every event that refutes the claim again, on fresh draws from an independent seed (the
    phase :data:`CONFIRMATION`), each bound at error (1 − confidence) / (2k) for k such events; the
    event's bounds become the smaller of its two certifications (each is a valid lower bound at the
    stated confidence, so the smaller one is too, and it exceeds the claim only if both rounds do)."""
    refuting = [index for index, (_, event) in enumerate(certified) if _refutes(event, epsilon, delta)]
    if not refuting:
        return certified
    alpha = (1.0 - budget.confidence) / (2 * len(refuting))
    samples = max(certified[index][1].samples for index in refuting)
    again = _certify(
        sampler,
        pairs,
        [certified[index][0] for index in refuting],
        root,
        samples,
        alpha,
        delta,
        epsilon,
        common,
        phase=CONFIRMATION,
    )
    confirmed = list(certified)
    for index, (_, second) in zip(refuting, again, strict=True):
        candidate, first = certified[index]
        deltas = [bound for bound in (first.delta_lower_bound, second.delta_lower_bound) if bound is not None]
        confirmed[index] = (
            candidate,
            replace(
                first,
                epsilon_lower_bound=min(first.epsilon_lower_bound, second.epsilon_lower_bound),
                delta_lower_bound=min(deltas) if deltas else None,
                confirmation=replace(second, escalated=False),
            ),
        )
    return confirmed


def _refutes(event: CertifiedEvent, epsilon: float, delta: float) -> bool:
    return event.epsilon_lower_bound > epsilon or (event.delta_lower_bound or 0.0) > delta


#: Events an escalation round re-certifies at most: the most promising of each lane (see :func:`_escalate`).
ESCALATED_PER_ROUND = 2


def _promise(event: CertifiedEvent, epsilon: float, delta: float) -> float:
    """How far the counts' plug-in estimate (one pseudo-count on the q side) is past the claim:
    positive when more draws of this event are expected to refute it."""
    p_hat = event.p_count / event.samples
    q_hat = (event.q_count + 1) / event.samples
    if event.objective == "delta":
        return (p_hat - math.exp(epsilon) * q_hat - delta) / max(delta, 1e-300)
    return math.log(max(p_hat - delta, 1e-300) / q_hat) - epsilon


def _escalate(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    certified: list[tuple[_Candidate, CertifiedEvent]],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    alpha: float,
    delta: float,
    epsilon: float,
    common: dict[str, Any],
) -> list[tuple[_Candidate, CertifiedEvent]]:
    """Re-certify the most promising events on ever larger fresh draws while no bound refutes the claim.

    Each round takes the most promising event of each lane (:func:`_lane`): events on exact outputs
    (atoms, outcome sets), and all others. A plug-in estimate cannot tell an atom of mass 2e-3 from a
    tail event that looked as promising on these draws: the atom's other side stays at 0 on more
    draws, the tail's does not; with a lane each, neither crowds the other out.
    Each round's draws are new (their own seed phase) and the events were fixed before them, so
    their Clopper-Pearson bounds hold at ``alpha`` each; ``alpha`` already counts every round allowed
    (:data:`ESCALATED_PER_ROUND` events a round).
    """
    escalated: list[tuple[_Candidate, CertifiedEvent]] = []
    n = budget.certification
    for round_index in range(budget.escalations):
        latest = certified + escalated
        if not latest or any(_refutes(event, epsilon, delta) for _, event in latest) or n >= MAX_ESCALATION_SAMPLES:
            break
        picks = []
        for lane in (True, False):
            members = [item for item in latest if _lane(item[0]) is lane]
            if members:
                candidate, event = max(members, key=lambda item: _promise(item[1], epsilon, delta))
                if _promise(event, epsilon, delta) > 0:
                    picks.append(candidate)
        if not picks:
            break
        n = min(n * ESCALATION_GROWTH, MAX_ESCALATION_SAMPLES)
        escalated += _certify(
            sampler, pairs, picks, root, n, alpha, delta, epsilon, common, phase=ESCALATION + round_index
        )
    return escalated


def _lane(candidate: _Candidate) -> bool:
    """Whether an event is of the rare lane of an escalation round: an atom or an outcome set."""
    return isinstance(getattr(candidate.event, "projection", None), AtomProjection | OutcomeProjection)
