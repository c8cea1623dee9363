"""Counting chosen events on fresh draws: the certification of the events the selection kept, their
confirmation on draws from an independent seed, and the escalation rounds that re-count the most
promising ones on ever larger draws (the stages after :func:`~dpaudit.checks.empirical.certification.
certify_privacy_lower_bound` has chosen its events). Each event is fixed before the draws that count
it, so its one-sided Clopper–Pearson bounds hold at the error each is given.

References:
    Jagielski, Ullman & Oprea 2020 (auditing by events with Clopper–Pearson bounds).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpaudit.checks.empirical.budget import ESCALATION_GROWTH, MAX_ESCALATION_SAMPLES, AuditBudget, CertifiedEvent
from dpaudit.checks.empirical.events import AtomProjection, Event, OutcomeProjection
from dpaudit.checks.empirical.power_sizing import SelectionCounts
from dpaudit.checks.empirical.precision_events import PrecisionProjection
from dpaudit.checks.empirical.sampling import (
    CERTIFICATION,
    CONFIRMATION,
    ESCALATION,
    NeighbourPair,
    count_events,
    phase_seed,
)
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound

__all__ = [
    "ESCALATED_PER_ROUND",
    "RARE_LANE",
    "ChosenEvent",
    "certified_events",
    "certify_chosen",
    "confirm_refuting",
    "escalate",
    "pair_sides",
]


@dataclass(frozen=True)
class ChosenEvent:
    """An event the selection kept: its pair, which side is p, and the objective it was chosen for."""

    pair_index: int
    event: Event
    p_is_first: bool
    objective: str
    score: float
    counts: SelectionCounts | None = None


def pair_sides(
    root: np.random.SeedSequence, index: int, phase: int, pair: NeighbourPair
) -> list[tuple[Any, np.random.SeedSequence]]:
    """Both sides of pair ``index`` with the seeds of their draws in ``phase``."""
    return [(data, phase_seed(root, index, phase, side)) for side, data in enumerate((pair.first, pair.second))]


def certify_chosen(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    chosen: Sequence[ChosenEvent],
    root: np.random.SeedSequence,
    n: int,
    alpha: float,
    delta: float,
    epsilon: float | None,
    common: dict[str, Any],
    *,
    phase: int = CERTIFICATION,
) -> list[tuple[ChosenEvent, CertifiedEvent]]:
    """Count the chosen events on ``n`` fresh draws per side (at most a screened pair's cap; seeded by
    ``phase``) and bound them."""
    certified = []
    for i in sorted({candidate.pair_index for candidate in chosen}):
        mine = [candidate for candidate in chosen if candidate.pair_index == i]
        events = [candidate.event for candidate in mine]
        drawn = pairs[i].draws(n)
        counts = count_events(sampler, pair_sides(root, i, phase, pairs[i]), drawn, events, **common)
        for k, candidate in enumerate(mine):
            first, second = int(counts[0][k]), int(counts[1][k])
            p_count, q_count = (first, second) if candidate.p_is_first else (second, first)
            p_lower = clopper_pearson_lower(p_count, drawn, alpha)
            q_upper = clopper_pearson_upper(q_count, drawn, alpha)
            event = CertifiedEvent(
                pair=pairs[i].label,
                order="X vs X'" if candidate.p_is_first else "X' vs X",
                event=candidate.event.describe(),
                objective=candidate.objective,
                p_count=p_count,
                q_count=q_count,
                samples=drawn,
                alpha=alpha,
                p_lower=p_lower,
                q_upper=q_upper,
                epsilon_lower_bound=epsilon_lower_bound(p_lower, q_upper, delta),
                delta_lower_bound=None if epsilon is None else p_lower - math.exp(epsilon) * q_upper,
                escalated=phase != CERTIFICATION,
            )
            certified.append((candidate, event))
    return certified


def confirm_refuting(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    certified: list[tuple[ChosenEvent, CertifiedEvent]],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    delta: float,
    epsilon: float,
    common: dict[str, Any],
    phase: int = CONFIRMATION,
) -> list[tuple[ChosenEvent, CertifiedEvent]]:
    """Certify every event that refutes the claim again, on fresh draws from an independent seed (the
    seed phase ``phase``), each bound at error (1 − confidence) / (2k) for k such events; the
    event's bounds become the smaller of its two certifications (each is a valid lower bound at the
    stated confidence, so the smaller one is too, and it exceeds the claim only if both rounds do)."""
    refuting = [index for index, (_, event) in enumerate(certified) if _refutes(event, epsilon, delta)]
    if not refuting:
        return certified
    alpha = (1.0 - budget.confidence) / (2 * len(refuting))
    samples = max(certified[index][1].samples for index in refuting)
    again = certify_chosen(
        sampler,
        pairs,
        [certified[index][0] for index in refuting],
        root,
        samples,
        alpha,
        delta,
        epsilon,
        common,
        phase=phase,
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


def certified_events(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    chosen: Sequence[ChosenEvent],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    planned_bounds: int,
    delta: float,
    epsilon: float | None,
    common: dict[str, Any],
    certification: int,
) -> list[tuple[ChosenEvent, CertifiedEvent]]:
    """The chosen events certified on ``certification`` fresh draws per side, with the escalated (and
    confirmed) ones when ``epsilon`` is claimed, each bound at the union-bound share of ``planned_bounds``.

    With ``budget.confirm``, the refuting events are confirmed before any escalation: an event that
    refuted the claim by a hair and failed its confirmation leaves the claim unrefuted, so the
    escalation rounds (already counted in ``planned_bounds``) still run; the escalated events that
    refute are confirmed on draws of their own (:data:`CONFIRMATION` + 1 when the first
    confirmation drew on :data:`CONFIRMATION`)."""
    alpha = (1.0 - budget.confidence) / max(planned_bounds, 1)
    certified = certify_chosen(sampler, pairs, chosen, root, certification, alpha, delta, epsilon, common)
    if epsilon is None:
        return certified
    grow = (root, budget, alpha, delta, epsilon, common, certification)
    if not budget.confirm:
        return certified + escalate(sampler, pairs, certified, *grow)
    confirmed = confirm_refuting(sampler, pairs, certified, root, budget, delta, epsilon, common)
    escalated = escalate(sampler, pairs, confirmed, *grow)
    drew = any(event.confirmation is not None for _, event in confirmed)
    phase = CONFIRMATION + 1 if drew else CONFIRMATION
    return confirmed + confirm_refuting(sampler, pairs, escalated, root, budget, delta, epsilon, common, phase)


def _refutes(event: CertifiedEvent, epsilon: float, delta: float) -> bool:
    return event.epsilon_lower_bound > epsilon or (event.delta_lower_bound or 0.0) > delta


#: Events an escalation round re-certifies at most: the most promising of each lane (see :func:`escalate`).
ESCALATED_PER_ROUND = 2


def _promise(event: CertifiedEvent, epsilon: float, delta: float) -> float:
    """How far the counts' plug-in estimate (one pseudo-count on the q side) is past the claim:
    positive when more draws of this event are expected to refute it."""
    p_hat = event.p_count / event.samples
    q_hat = (event.q_count + 1) / event.samples
    if event.objective == "delta":
        return (p_hat - math.exp(epsilon) * q_hat - delta) / max(delta, 1e-300)
    return math.log(max(p_hat - delta, 1e-300) / q_hat) - epsilon


def escalate(
    sampler: Any,
    pairs: Sequence[NeighbourPair],
    certified: list[tuple[ChosenEvent, CertifiedEvent]],
    root: np.random.SeedSequence,
    budget: AuditBudget,
    alpha: float,
    delta: float,
    epsilon: float,
    common: dict[str, Any],
    start: int,
) -> list[tuple[ChosenEvent, CertifiedEvent]]:
    """Re-certify the most promising events on ever larger fresh draws (from ``start`` per side, the
    certification's) while no bound refutes the claim.

    Each round takes the most promising event of each lane (:func:`_lane`): events on exact outputs
    (atoms, outcome sets), and all others. A plug-in estimate cannot tell an atom of mass 2e-3 from a
    tail event that looked as promising on these draws: the atom's other side stays at 0 on more
    draws, the tail's does not; with a lane each, neither crowds the other out.
    Each round's draws are new (their own seed phase) and the events were fixed before them, so
    their Clopper-Pearson bounds hold at ``alpha`` each; ``alpha`` already counts every round allowed
    (:data:`ESCALATED_PER_ROUND` events a round).
    """
    escalated: list[tuple[ChosenEvent, CertifiedEvent]] = []
    n = start
    for round_index in range(budget.escalations):
        latest = certified + escalated
        if not latest or any(_refutes(event, epsilon, delta) for _, event in latest) or n >= MAX_ESCALATION_SAMPLES:
            break
        picks = []
        grown = min(n * ESCALATION_GROWTH, MAX_ESCALATION_SAMPLES)
        for lane in (True, False):  # events whose pair would draw more (not a screened pair at its cap)
            members = [
                item
                for item in latest
                if _lane(item[0]) is lane and pairs[item[0].pair_index].draws(grown) > item[1].samples
            ]
            if members:
                candidate, event = max(members, key=lambda item: _promise(item[1], epsilon, delta))
                if _promise(event, epsilon, delta) > 0:
                    picks.append(candidate)
        if not picks:
            break
        n = grown
        escalated += certify_chosen(
            sampler, pairs, picks, root, n, alpha, delta, epsilon, common, phase=ESCALATION + round_index
        )
    return escalated


#: The projections of the rare lane of an escalation round: atoms, outcome sets and exact values of a
#: narrow format (events whose probability may be small on both sides).
RARE_LANE = (AtomProjection, OutcomeProjection, PrecisionProjection)


def _lane(candidate: ChosenEvent) -> bool:
    """Whether an event is of the rare lane of an escalation round."""
    return isinstance(getattr(candidate.event, "projection", None), RARE_LANE)
