"""Replay the counterexample of every ``violated`` Monte Carlo obligation of a report (and refuse one that
is not ``violated`` while one of its certified events refutes its claim: a verdict edited by hand).

A Monte Carlo violation rests on one event counted on one pair: P[M(X) ∈ E] >= p_lower and
P[M(X') ∈ E] <= q_upper at a stated per-event confidence α (Clopper-Pearson, union bound over the
events certified), so ε >= ln((p_lower − δ)/q_upper). The replay re-derives that chain from what
the report records, without running the audited code:

1. the counterexample's pair, order, event and counts are one of the certified events of the run;
2. the Clopper-Pearson bounds of those counts (and of its confirmation on fresh draws, when there
   was one) at the recorded α are the recorded ones, the smaller ε they imply at the audited δ is
   the recorded bound (to :data:`RELATIVE_TOLERANCE`: scipy's beta quantiles are floats), and it
   exceeds the claimed ε;
3. ``pair_json`` (the inputs to replay the pair with) is labelled with the counterexample's pair
   and holds the inputs the counterexample shows.

It does not draw again: the counts themselves are as trustworthy as the run that made them (its
seed is in the report; ``pair_json`` with ``search = "off"`` audits that pair alone).

References:
    Dwork & Roth 2014, Def. 2.4; Jagielski, Ullman & Oprea 2020, Sec. 4 (auditing by events).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from dpaudit.checks.empirical.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    epsilon_lower_bound,
)

__all__ = ["RELATIVE_TOLERANCE", "replay_counterexamples", "replay_event"]

#: How far (relative) a re-derived Clopper-Pearson bound or ε may be from the recorded one.
RELATIVE_TOLERANCE = 1e-9

_COUNTS = ("pair", "order", "event", "p_count", "q_count", "samples")


def _close(first: Any, second: Any) -> bool:
    try:
        a, b = float(first), float(second)
    except (TypeError, ValueError):
        return False
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= RELATIVE_TOLERANCE * max(abs(a), abs(b), 1e-300)


def _counted_bound(event: dict[str, Any], delta: float) -> float | str:
    """The ε lower bound one set of counts gives at the recorded α (Clopper-Pearson), or why its
    recorded bounds do not follow from its counts."""
    try:
        alpha, samples = float(event["alpha"]), int(event["samples"])
        p_lower = clopper_pearson_lower(int(event["p_count"]), samples, alpha)
        q_upper = clopper_pearson_upper(int(event["q_count"]), samples, alpha)
    except (KeyError, TypeError, ValueError) as exc:
        return f"its counts cannot be read ({exc})"
    if not (_close(p_lower, event.get("p_lower")) and _close(q_upper, event.get("q_upper"))):
        return (
            f"its counts {event['p_count']} and {event['q_count']} of {samples} at alpha {alpha:g} give "
            f"p_lower {p_lower:.12g} and q_upper {q_upper:.12g}, not the recorded {event.get('p_lower')} and "
            f"{event.get('q_upper')}"
        )
    return epsilon_lower_bound(p_lower, q_upper, delta)


def _event_bound(event: dict[str, Any], delta: float) -> float | str:
    """The ε lower bound an event's counts give: the smaller of its own and its confirmation's on fresh
    draws, or why its counts do not give its recorded bounds."""
    bounds = []
    for part in (event, event.get("confirmation")):
        if part is not None:
            bound = _counted_bound(part, delta)
            if isinstance(bound, str):
                return bound
            bounds.append(bound)
    return min(bounds)


def replay_event(event: dict[str, Any], epsilon: float, delta: float) -> str | None:
    """Why a certified event's recorded ε bound does not follow from its counts (and those of its
    confirmation on fresh draws: the smaller bound is the event's), or does not exceed ε; None when
    it does."""
    bound = _event_bound(event, delta)
    if isinstance(bound, str):
        return bound
    if not _close(bound, event.get("epsilon_lower_bound")):
        return f"its counts give epsilon >= {bound:.12g}, not the recorded {event.get('epsilon_lower_bound')}"
    if not bound > epsilon:
        return f"its counts give epsilon >= {bound:.12g}, which does not exceed the claimed {epsilon:g}"
    return None


def _audited_point(evidence: dict[str, Any]) -> tuple[float, float] | None:
    """The (ε, δ) the check audited: its measurement "epsilon at delta=δ" claims ε."""
    for measurement in evidence.get("measurements", []):
        quantity = str(measurement.get("quantity", "")) if isinstance(measurement, dict) else ""
        if quantity.startswith(_AUDITED):
            try:
                return float(measurement["claimed"]), float(quantity.removeprefix(_AUDITED))
            except (KeyError, TypeError, ValueError):
                return None
    return None


_AUDITED = "epsilon at delta="


def _refutation_left_unsaid(claim: dict[str, Any], evidence: dict[str, Any]) -> tuple[str, str] | None:
    """("fail", why) when an obligation that is not ``violated`` records a certified lower bound above its
    claim, or a certified event whose own counts refute the (ε, δ) it audited, or counts that do not give
    the event's recorded bounds (a verdict edited away from the numbers below it), else None. Every event
    is replayed, whatever bound it records."""
    verdict = evidence.get("verdict")
    for measurement in evidence.get("measurements") or []:
        low = _certified_low(measurement)
        claimed = _claimed_for(claim, measurement)
        if low is not None and claimed is not None and low > claimed:
            return "fail", (
                f"the verdict is {verdict!r}, but its measurement of {measurement.get('quantity')} is a certified "
                f"lower bound {low:.6g} above the claimed {claimed:g}"
            )
    point = _claimed_point(claim) or _audited_point(evidence)
    if point is None:
        return None
    for event in (evidence.get("details") or {}).get("certified_events") or []:
        bound = _event_bound(event, point[1]) if isinstance(event, dict) else "it is not an event"
        if isinstance(bound, str) or bound > point[0]:
            shown = bound if isinstance(bound, str) else f"its counts give epsilon >= {bound:.6g} > {point[0]:g}"
            return "fail", (
                f"the verdict is {verdict!r}, but of the certified event "
                f"{event.get('event') if isinstance(event, dict) else event!r}: {shown}"
            )
    return None


def _verified_above_the_claim(evidence: dict[str, Any]) -> str | None:
    """Why a ``verified`` obligation's own numbers do not verify it, or None: a measurement of ε at a δ or of
    δ at an ε that is exact or an upper bound (not a lower bound, not an informational estimate) whose upper end
    exceeds the value it is claimed against (a verdict edited to verified above numbers that refute it)."""
    for measurement in evidence.get("measurements") or []:
        if not isinstance(measurement, dict) or _POINT.match(str(measurement.get("quantity", ""))) is None:
            continue
        direction = str(measurement.get("direction", ""))
        if direction.startswith("lower bound") or "informational" in direction:
            continue
        interval = measurement.get("interval")
        try:
            high = (
                float(interval[1])
                if isinstance(interval, list) and len(interval) == 2
                else float(measurement["measured"])
            )
            claimed = float(measurement["claimed"])
        except (KeyError, TypeError, ValueError):
            return f"its measurement of {measurement.get('quantity')} cannot be read"
        if high > claimed:
            return (
                f"the verdict is 'verified', but its measurement of {measurement.get('quantity')} reaches {high:.6g}, "
                f"above the claimed {claimed:g}"
            )
    return None


def _claimed_point(claim: dict[str, Any]) -> tuple[float, float] | None:
    """The (ε, δ) of an approximate-DP claim (where an evidence states none, its measurements deleted)."""
    guarantee = claim.get("guarantee") or {}
    try:
        return (
            (float(guarantee["epsilon"]), float(guarantee["delta"])) if guarantee.get("kind") == "approx_dp" else None
        )
    except (KeyError, TypeError, ValueError):
        return None


def _certified_low(measurement: Any) -> float | None:
    """The low end of a measurement that is a certified lower bound of the mechanism's own ε or δ, else None."""
    if not isinstance(measurement, dict) or not str(measurement.get("direction", "")).startswith("lower bound"):
        return None
    interval = measurement.get("interval")
    try:
        low = float(interval[0]) if isinstance(interval, list) and interval else None
        float(measurement["claimed"])
    except (KeyError, TypeError, ValueError):
        return None
    return low if low is not None and math.isfinite(low) else None


_POINT = re.compile(r"^(epsilon at delta|delta at epsilon)=(\S+)")


def _claimed_for(claim: dict[str, Any], measurement: dict[str, Any]) -> float | None:
    """The value a lower bound of ``measurement`` is held against: the claim's ε for a bound on ε at a δ at or
    above the claim's (ε(δ) falls as δ grows, so the claim's ε(δ) is at least as large), the claim's δ for a
    bound on δ at an ε at or above the claim's; else the measurement's own claimed value."""
    found = _POINT.match(str(measurement.get("quantity", "")))
    point = _claimed_point(claim)
    try:
        own = float(measurement["claimed"])
        at = float(found.group(2)) if found else math.nan
    except (KeyError, TypeError, ValueError):
        return None
    if found is None or point is None:
        return own
    epsilon, delta = point
    if found.group(1) == "epsilon at delta":
        return epsilon if at >= delta else own
    return delta if at >= epsilon else own


def claimed_as_the_claim(claim: dict[str, Any], evidence: dict[str, Any]) -> str | None:
    """Why a measurement at the claim's δ (or ε) states another claimed ε (or δ) than the claim does (the
    claimed value edited so that a verdict follows), or None."""
    point = _claimed_point(claim)
    if point is None:
        return None
    epsilon, delta = point
    for measurement in evidence.get("measurements") or []:
        found = _POINT.match(str(measurement.get("quantity", ""))) if isinstance(measurement, dict) else None
        if found is None:
            continue
        try:
            at, claimed = float(found.group(2)), float(measurement["claimed"])
        except (KeyError, TypeError, ValueError):
            return f"its measurement of {measurement.get('quantity')} cannot be read"
        expected = (epsilon, delta) if found.group(1) == "epsilon at delta" else (delta, epsilon)
        if at == expected[1] and claimed != expected[0]:
            return (
                f"its measurement of {measurement.get('quantity')} states the claimed value {claimed!r}, "
                f"where the claim states {expected[0]!r}"
            )
    return None


def _replay_one(claim: dict[str, Any], item: dict[str, Any]) -> tuple[str, str] | None:
    """(status, message) for one violated obligation with a Monte Carlo counterexample, or for one that is
    not violated but whose certified numbers refute its claim; None for the others."""
    evidence = item.get("evidence", {})
    counterexample = evidence.get("counterexample") or {}
    mismatch = claimed_as_the_claim(claim, evidence)
    if mismatch is not None:
        return "fail", mismatch
    if evidence.get("verdict") == "verified":
        above = _verified_above_the_claim(evidence)
        if above is not None:
            return "fail", above
    if evidence.get("verdict") != "violated":
        return _refutation_left_unsaid(claim, evidence)
    if not all(key in counterexample for key in _COUNTS):
        return None
    point = _claimed_point(claim) or _audited_point(evidence)
    if point is None:
        return "fail", "the evidence states no (epsilon, delta) the counterexample refutes"
    epsilon, delta = point
    events = (evidence.get("details") or {}).get("certified_events") or []
    matching = [
        event
        for event in events
        if isinstance(event, dict) and all(event.get(key) == counterexample[key] for key in _COUNTS)
    ]
    if not matching:
        return "fail", "the counterexample's pair, event and counts are not among the certified events"
    event = matching[0]
    problem = replay_event(event, epsilon, delta)
    if problem:
        return "fail", f"the counterexample's event on {counterexample['pair']!r}: {problem}"
    problem = _pair_json_problem(counterexample)
    if problem:
        return "fail", problem
    return "ok", (
        f"counterexample: {counterexample['event']} on {counterexample['pair']!r} ({counterexample['order']}), "
        f"counts {event['p_count']} vs {event['q_count']} of {event['samples']} give epsilon >= "
        f"{float(event['epsilon_lower_bound']):.6g} > {epsilon:g}"
        + (", confirmed on fresh draws" if event.get("confirmation") else "")
    )


def _pair_json_problem(counterexample: dict[str, Any]) -> str | None:
    """Why ``pair_json`` is not the counterexample's pair, or None (also when it is not inlined)."""
    text = counterexample.get("pair_json")
    if text is None:
        return None
    try:
        (pair,) = json.loads(text)
        first, second, label = pair["first"], pair["second"], pair["label"]
    except (TypeError, ValueError, KeyError):
        return "its pair_json is not one pair {first, second, label}"
    label_of_counts = (counterexample.get("shrunk") or {}).get("pair", counterexample["pair"])
    if label != label_of_counts:
        return f"its pair_json is labelled {label!r}, not the counterexample's pair {label_of_counts!r}"
    shown = counterexample.get("neighbours")
    if shown is not None and shown != {"X": first, "X'": second}:
        return "its pair_json holds other inputs than the neighbours the counterexample shows"
    return None


def replay_counterexamples(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(status, where, message) for every violated obligation of the report with a Monte Carlo
    counterexample; status is ``ok`` or ``fail``."""
    replayed = []
    for entry in document.get("claims", []):
        if not isinstance(entry, dict):
            continue
        claim = entry.get("claim", {})
        for relation in entry.get("relations", []):
            for item in relation.get("obligations", []):
                outcome = _replay_one(claim, item)
                if outcome is not None:
                    where = f"{claim.get('id')}/{relation.get('relation')}/{item.get('obligation', {}).get('id')}"
                    replayed.append((outcome[0], where, outcome[1]))
    return replayed
