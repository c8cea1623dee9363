"""From a certified bound to evidence on an (ε, δ) claim: ``violated`` only when the certified ε
lower bound exceeds the claim; otherwise ``consistent`` with what the budget could have seen (its
power: the ceiling, the smallest one-sided event, the smallest ε its best event would have
refuted), or ``inconclusive`` when no event could have refuted the claim."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dpaudit.checks.empirical.budget import EmpiricalBound
from dpaudit.checks.empirical.statistics import (
    certifiable_ceiling,
    samples_to_exceed,
    smallest_detectable_probability,
    smallest_refuting_count,
)
from dpaudit.kernel.evidence import Evidence, Measurement, delta_measurement, epsilon_measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.guarantees import ApproxDP

__all__ = ["POWER", "bound_evidence"]

#: The role of a measurement that states what the budget could have detected.
POWER = "power"


@dataclass(frozen=True)
class _Power:
    """What the budget could have seen (issue: a check that cannot fail must say so)."""

    too_small: bool
    statement: str
    measurements: tuple[Measurement, ...]


def _epsilon_power(quantity: str, guarantee: ApproxDP, epsilon: float, direction: str) -> Measurement:
    """A power row: an ε the budget reaches against the claimed ε (margin: reached − claimed)."""
    return Measurement(
        quantity=quantity,
        claimed=guarantee.epsilon,
        measured=epsilon,
        margin=epsilon - guarantee.epsilon,
        direction=direction,
        role=POWER,
    )


def _power(bound: EmpiricalBound, guarantee: ApproxDP) -> _Power:
    """The largest ε any event could certify with this budget, and the smallest event
    probability (on one side only) that would refute the claim: at the fewest certification draws
    any pair had (a screened pair's cap)."""
    if bound.pairs[1] == 0:  # every pair screened, none past its pilot: nothing certified at all
        return _Power(True, "no pair was sampled past its pilot (each was screened and none passed)", ())
    trials = min((event.samples for event in bound.events if not event.escalated), default=bound.certification)
    alpha = bound.best_event.alpha if bound.best_event is not None else (1.0 - bound.confidence) / 4
    ceiling = certifiable_ceiling(trials, alpha, guarantee.delta)
    smallest = smallest_detectable_probability(trials, alpha, guarantee.delta, guarantee.epsilon)
    measurements: tuple[Measurement, ...] = (
        _epsilon_power(
            "largest epsilon any event can certify with this budget",
            guarantee,
            ceiling,
            f"{trials} certification draws per side, error {alpha:.3g} per bound",
        ),
    )
    if smallest is None:
        needed = samples_to_exceed(guarantee.epsilon, alpha, guarantee.delta, start=trials)
        advice = f"about {needed} certification draws per side" if needed else "a smaller delta"
        return _Power(
            True,
            f"no event can certify epsilon above {ceiling:.4g} with {trials} certification draws per side, so the "
            f"claim epsilon = {guarantee.epsilon:g} cannot be refuted (it needs {advice})",
            measurements,
        )
    measurements += (
        Measurement(
            quantity=f"smallest P[M(X) in E] that refutes epsilon={guarantee.epsilon!r} when P[M(X') in E] = 0",
            claimed=None,
            measured=smallest,
            direction="expected count at the certification budget",
            role=POWER,
        ),
    )
    statement = (
        f"an event of probability {smallest:.3g} on one side and 0 on the other would have been caught; "
        f"no event can certify more than epsilon = {ceiling:.4g}"
    )
    refutable = _refutable_on_best_event(bound, guarantee)
    if refutable is not None:
        text, measurement = refutable
        statement += f"; {text}"
        measurements += (measurement,)
    return _Power(False, statement, measurements)


def _refutable_on_best_event(bound: EmpiricalBound, guarantee: ApproxDP) -> tuple[str, Measurement] | None:
    """What the best event would have refuted: the frequency on its p side that certifies more than
    the claim against its measured other side, and the ε that pair of frequencies means (the
    smallest ε excess this run could have refuted there)."""
    best = bound.best_event
    if best is None or best.samples < 1:
        return None
    count = smallest_refuting_count(best.q_count, best.samples, best.alpha, guarantee.delta, guarantee.epsilon)
    if count is None:
        return None
    frequency, other = count / best.samples, best.q_count / best.samples
    if best.q_count == 0 or frequency <= guarantee.delta:
        return (
            f"its best event would have refuted the claim at a frequency of {frequency:.3g} on one side",
            Measurement(
                quantity="frequency on the best event that refutes the claim",
                claimed=None,
                measured=frequency,
                direction=f"expected count at {best.samples} certification draws per side, the other side's count "
                f"held at {best.q_count}",
                role=POWER,
            ),
        )
    refutable = math.log((frequency - guarantee.delta) / other)
    text = (
        f"its best event would have refuted the claim at {frequency:.3g} against {other:.3g} (the frequencies of an "
        f"epsilon of {refutable:.4g} on it, {refutable - guarantee.epsilon:.3g} above the claim)"
    )
    return text, _epsilon_power(
        "smallest epsilon the best event would have refuted",
        guarantee,
        refutable,
        f"{best.samples} certification draws per side, the other side's frequency held at its measure",
    )


def _bound_measurements(bound: EmpiricalBound, guarantee: ApproxDP, confidence: str) -> list[Measurement]:
    """The certified ε lower bound against the claimed ε, and the certified δ lower bound against the
    claimed δ when the bound has one."""
    direction = f"lower bound at confidence {confidence} (Clopper-Pearson, union bound)"
    measurements = [epsilon_measurement(guarantee, bound.epsilon_lower_bound, direction, lower_bound=True)]
    if bound.delta_lower_bound is not None:
        measurements.append(delta_measurement(guarantee, bound.delta_lower_bound, direction, lower_bound=True))
    return measurements


def _counterexample(bound: EmpiricalBound) -> dict[str, Any] | None:
    """The best event as a witness: its pair, order, event, counts and Clopper-Pearson bounds, with
    the pilot histogram of its scores when there is one (``None`` without a best event)."""
    best = bound.best_event
    if best is None:
        return None
    counterexample: dict[str, Any] = {
        "pair": best.pair,
        "order": best.order,
        "event": best.event,
        "p_count": best.p_count,
        "q_count": best.q_count,
        "samples": best.samples,
        "p_lower": best.p_lower,
        "q_upper": best.q_upper,
    }
    if bound.event_histogram is not None:
        counterexample["event_histogram"] = bound.event_histogram
    return counterexample


def bound_evidence(bound: EmpiricalBound, guarantee: ApproxDP, *, domain: str, method: str) -> Evidence:
    """Turn a certified bound into evidence on an (ε, δ) claim.

    ``violated`` only when the certified ε lower bound exceeds the claimed ε (then the
    best event is the counterexample); ``inconclusive`` when no event could have certified
    more than the claim with this budget (the check could not fail); otherwise
    ``consistent`` with the bound, its gap and what the budget could have seen.
    """
    epsilon_bound = bound.epsilon_lower_bound
    violated = epsilon_bound > guarantee.epsilon
    confidence = f"{bound.confidence:.6g}"
    measurements = _bound_measurements(bound, guarantee, confidence)
    counterexample = _counterexample(bound) if violated else None
    power = _power(bound, guarantee)
    measurements += power.measurements
    gap = guarantee.epsilon - epsilon_bound
    if violated:
        summary = (
            f"certified epsilon lower bound {epsilon_bound:.5g} exceeds the claimed {guarantee.epsilon:g} "
            f"at delta={guarantee.delta:g} (confidence {confidence})"
        )
        if bound.budget.confirm:
            summary += ", confirmed on fresh draws from an independent seed (the smaller of the two bounds)"
    else:
        summary = (
            f"certified epsilon lower bound {epsilon_bound:.5g} at delta={guarantee.delta:g} (confidence "
            f"{confidence}) is below the claimed {guarantee.epsilon:g}; gap {gap:.4g}"
        )
    summary += (
        f"; {bound.samples_per_side} samples per side, {bound.events_tried} events tried, {len(bound.events)} certified"
    )
    verdict = Verdict.VIOLATED if violated else Verdict.CONSISTENT
    if not violated and power.too_small:
        verdict = Verdict.INCONCLUSIVE
        summary = f"budget too small: {power.statement}; {summary}"
    elif not violated:
        summary += f"; power: {power.statement}"
    return Evidence(
        verdict=verdict,
        summary=summary,
        domain=domain,
        method=method,
        measurements=tuple(measurements),
        budget={
            "samples_per_side": bound.samples_per_side,
            "certification_samples_per_side": bound.certification,
            "confidence": bound.confidence,
            "events_tried": bound.events_tried,
            "events_certified": len(bound.events),
        },
        counterexample=counterexample,
        details=bound.details(),
    )
