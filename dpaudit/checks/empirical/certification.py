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
from typing import Any

import numpy as np

from dpaudit._validation import check_real
from dpaudit.checks.empirical.budget import AuditBudget, EmpiricalBound
from dpaudit.checks.empirical.event_histogram import event_histogram
from dpaudit.checks.empirical.events import (
    AtomProjection,
    CoordinateProjection,
    Event,
    IntervalEvent,
    Projection,
    ThresholdEvent,
    ThresholdGrid,
    atoms_of,
    fit_logistic_projection,
    mean_difference_projection,
    outcome_projection,
)
from dpaudit.checks.empirical.laplace_ratio import laplace_ratio_projection
from dpaudit.checks.empirical.pair_screening import kept_pairs
from dpaudit.checks.empirical.power_sizing import SelectionCounts, Sizing, size_certification
from dpaudit.checks.empirical.precision_events import PrecisionProjection, precision_projections
from dpaudit.checks.empirical.recertification import (
    ESCALATED_PER_ROUND,
    RARE_LANE,
    ChosenEvent,
    certified_events,
    pair_sides,
)
from dpaudit.checks.empirical.samplers import PilotLengths, as_sampler, pilot_lengths
from dpaudit.checks.empirical.sampling import PILOT, SELECTION, NeighbourPair, draw_outputs, histogram_scores
from dpaudit.checks.empirical.statistics import (
    clopper_pearson_lower_array,
    clopper_pearson_upper_array,
    epsilon_lower_bound_array,
    rare_event_objective,
)
from dpaudit.errors import InvalidArgument
from dpaudit.rng import seed_sequence

__all__ = ["certify_privacy_lower_bound"]


_MAX_COORDINATES = 16


#: Each pilot event's ε lower bound for ranking pairs is at this level: with thousands of events per pair,
#: a looser one lets the rarest events of a pair at the claim outscore a pair past it (measured: a 2-d
#: Laplace pair at twice the claim among 18 at it, kept among two on 20 of 20 seeds at 0.001 and 14 of 20
#: at 0.05; laplace-rounded-input's half-integer pair 11th of 59 at 0.05, in the top 4 at 0.001).
_SCREENING_ALPHA = 0.001

#: Projections whose scores are 0 or 1: an interval event adds nothing to their threshold events.
_INDICATORS = (AtomProjection, PrecisionProjection)


def _projections(
    first: np.ndarray, second: np.ndarray, budget: AuditBudget, pair: NeighbourPair, lengths: PilotLengths
) -> list[Projection]:
    dimension = first.shape[1]
    projections: list[Projection] = []
    if "atom" in budget.events:
        for label, outputs, data in (("X", first, pair.first), ("X'", second, pair.second)):
            atoms = atoms_of(outputs, lengths.encoded_input(data))
            if atoms:
                projections.append(AtomProjection(atoms, f"atoms of {label}'s pilot outputs and input"))
        projections.extend(precision_projections(first, second))  # exact values of a narrow format
    if "outcome" in budget.events:
        outcomes = outcome_projection(first, second)
        if outcomes is not None:
            projections.append(outcomes)
    if "threshold" in budget.events:
        coordinates = _MAX_COORDINATES + lengths.tagged  # the length, then as many values as untagged
        projections.extend(CoordinateProjection(i) for i in range(min(dimension, coordinates)))
    fit_first = first[: budget.classifier_samples]
    fit_second = second[: budget.classifier_samples]
    if "halfspace" in budget.events and dimension > 1:
        with contextlib.suppress(InvalidArgument):
            projections.append(mean_difference_projection(first, second))
        projections.append(fit_logistic_projection(fit_first, fit_second, quadratic=False))
        laplace_ratio = laplace_ratio_projection(first, second)
        if laplace_ratio is not None:
            projections.append(laplace_ratio)
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
) -> tuple[list[ChosenEvent], int]:
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
    best: list[ChosenEvent] = []
    for p_is_first in (True, False):
        p_counts = np.concatenate(first_counts if p_is_first else second_counts)
        q_counts = np.concatenate(second_counts if p_is_first else first_counts)
        objectives = _objectives(p_counts, q_counts, trials, alpha, delta, epsilon)
        if rare:
            objectives["rare"] = rare_event_objective(p_counts, q_counts, trials, delta, epsilon)
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
            certified = float(objectives["epsilon"][index])  # its ε lower bound, whatever it was chosen for
            counts = SelectionCounts(int(p_counts[index]), int(q_counts[index]), trials, certified)
            best.append(ChosenEvent(pair_index, event, p_is_first, name, float(values[index]), counts))
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
    value below that best, so they are neither the maximum nor its first index."""
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

    # the events of the best ceilings, in no set order: which of tied ones does not matter, as the events left out
    # below are only those that cannot reach the best exact value found among these
    size = min(_FIRST_SCORED, p_counts.size)
    tops = [np.argpartition(-ceiling, size - 1)[:size] if size else ceiling[:0] for ceiling in ceilings.values()]
    first = np.unique(np.concatenate(tops).astype(np.int64))
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
            intervals=intervals and not isinstance(projection, _INDICATORS),
        )
        best = max([best, *(candidate.score for candidate in candidates)])
    return best


def _kept(
    pairs: Sequence[NeighbourPair], pilots: Sequence[_Pilot], budget: AuditBudget, delta: float, epsilon: float | None
) -> list[int]:
    """The pairs sampled beyond their pilot (:func:`~dpaudit.checks.empirical.pair_screening.kept_pairs`), each
    scored on its first n pilot draws by its events' 99.9% ε lower bounds."""
    intervals = "interval" in budget.events

    def score(index: int, draws: int | None) -> float:
        (first, second), projections, grids = pilots[index]
        return _pilot_screen_score(first[:draws], second[:draws], projections, grids, delta, intervals)

    lengths = [len(sides[0]) for sides, _, _ in pilots]
    return kept_pairs(pairs, lengths, score, budget.max_pairs, epsilon)


def _choose(candidates: Sequence[ChosenEvent]) -> list[ChosenEvent]:
    chosen: dict[tuple[str, bool], ChosenEvent] = {}
    for candidate in candidates:
        key = (candidate.objective, candidate.p_is_first)
        if key not in chosen or candidate.score > chosen[key].score:
            chosen[key] = candidate
    unique: dict[tuple[int, Event, bool], ChosenEvent] = {}
    for key in sorted(chosen):
        candidate = chosen[key]
        unique.setdefault((candidate.pair_index, candidate.event, candidate.p_is_first), candidate)
    return list(unique.values())


#: What the pilot of one pair gave: its two sides' outputs, the projections fitted on them and the
#: threshold grid spanning each projection's scores.
_Pilot = tuple[list[np.ndarray], list[Projection], list[ThresholdGrid]]


def _draw_pilots(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    common: dict[str, Any],
) -> tuple[PilotLengths, list[_Pilot]]:
    """The pilot of every pair: outputs of both sides, the projections fitted on them and their grids;
    and the sampler of the later phases, ``sampler`` held to the pilot's lengths (:class:`PilotLengths`;
    where some pair's two sides differ in length, the pilot's outputs are encoded as the later ones are)."""
    drawn = []
    for i, pair in enumerate(pairs):
        pilot = budget.pilot if pair.pilot_cap is None else max(min(budget.pilot, pair.pilot_cap), 10)
        drawn.append(draw_outputs(sampler, pair_sides(root, i, PILOT, pair), pilot, **common))
    tagged = any(first.shape[1] != second.shape[1] for first, second in drawn)
    sides = [
        (data, rows)
        for pair, both in zip(pairs, drawn, strict=True)
        for data, rows in zip((pair.first, pair.second), both, strict=True)
    ]
    held = pilot_lengths(sampler, sides, tagged)
    if tagged:
        drawn = [[held.encoded(side) for side in both] for both in drawn]
    pilots = []
    for pair, both in zip(pairs, drawn, strict=True):
        projections = _projections(both[0], both[1], budget, pair, held)
        grids = [
            ThresholdGrid.spanning(np.concatenate([p.scores(both[0]), p.scores(both[1])]), budget.thresholds)
            for p in projections
        ]
        pilots.append((both, projections, grids))
    return held, pilots


def _selection_candidates(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    kept: Sequence[int],
    pilots: Sequence[_Pilot],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    delta: float,
    epsilon: float | None,
    common: dict[str, Any],
) -> tuple[list[ChosenEvent], int]:
    """The best events of every kept pair's projections on the selection split, and the number of events scored."""
    planned = 2 * (2 if epsilon is not None else 1)
    selection_alpha = (1.0 - budget.confidence) / (2 * planned)
    candidates: list[ChosenEvent] = []
    tried = 0
    for i in kept:
        _, projections, grids = pilots[i]
        histograms = histogram_scores(
            sampler,
            pair_sides(root, i, SELECTION, pairs[i]),
            pairs[i].draws(budget.selection),
            projections,
            grids,
            **common,
        )
        for j, (projection, grid) in enumerate(zip(projections, grids, strict=False)):
            best, count = _score_candidates(
                i,
                projection,
                grid,
                (histograms[0][j], histograms[1][j]),
                delta=delta,
                epsilon=epsilon,
                alpha=selection_alpha,
                rare=budget.escalations > 0 and isinstance(projection, RARE_LANE),
                intervals="interval" in budget.events and not isinstance(projection, _INDICATORS),
            )
            candidates.extend(best)
            tried += count
    return candidates, tried


def _sized(
    chosen: Sequence[ChosenEvent], budget: AuditBudget, planned_bounds: int, delta: float, epsilon: float | None
) -> Sizing | None:
    """The certification sized after the selection (:mod:`dpaudit.checks.empirical.power_sizing`), or
    ``None`` (no claimed ε, or no ceiling above the budget's share)."""
    if epsilon is None:
        return None
    return size_certification(
        [candidate.counts for candidate in chosen if candidate.counts is not None],
        epsilon=epsilon,
        delta=delta,
        alpha=(1.0 - budget.confidence) / max(planned_bounds, 1),
        floor=budget.certification,
        ceiling=budget.certification_ceiling,
    )


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
    common: dict[str, Any] = {"chunk_size": budget.chunk_size, "batch_size": budget.batch_size}
    common |= {"executor": executor, "progress": progress}
    held, pilots = _draw_pilots(sampler, pairs, root, budget, common)
    kept = _kept(pairs, pilots, budget, audited_delta, claimed_epsilon)
    candidates, tried = _selection_candidates(
        held, pairs, kept, pilots, root, budget, audited_delta, claimed_epsilon, common
    )
    chosen = _choose(candidates)
    planned_bounds = 2 * (len(chosen) + ESCALATED_PER_ROUND * budget.escalations)
    sizing = _sized(chosen, budget, planned_bounds, audited_delta, claimed_epsilon)
    certification = budget.certification if sizing is None else sizing.draws
    certified = certified_events(
        held, pairs, chosen, root, budget, planned_bounds, audited_delta, claimed_epsilon, common, certification
    )
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
        certification=certification,
        sizing=None if sizing is None else sizing.text(),
        event_histogram=picture,
        length_tagged=held.tagged,
    )
