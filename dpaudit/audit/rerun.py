"""Certificates by re-running: what a ``verified`` that no closed form re-derives rests on.

An exhaustive enumeration (every neighbouring pair of a sensitivity sweep, every point of
Lemma 4's box) or a rigorous accountant (RDP series with tail bounds) has no second formula
to replay it with. Its certificate names the route ``rerun``: ``dpaudit recheck`` loads the
claim's spec again (it must still state the same claim), re-runs the obligation as the report
recorded it (the parameters that ran, the recorded seed) and requires the verdict to be
``verified`` again.

Each fact is an **enclosure of the true margin**, not the bits one machine computed: the
checker states it in ``Measurement.margin_interval`` (interval arithmetic, or a stated error
bound of its float computation wide enough for any IEEE-754 machine and supported library
versions); an exact rational margin is its own enclosure. Recheck accepts a fact when the
re-run's enclosure meets the recorded one and its own lower end is >= 0 (the verdict follows
from the recomputed enclosure). A check whose margin is a float with no stated error bound
gets no certificate: its ``verified`` becomes ``consistent`` with the reason "numerical".

This catches an edited verdict, a margin edited beyond its enclosure, a spec changed since the
run, and a check whose result moved beyond its error bound; it does not catch a bug both runs
share, which is why the routes of :mod:`dpaudit.checks.certificates.routes` are preferred where
a second formula exists.
"""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.audit.plugins import get_checker, obligation_context, obligation_for_run
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import DpAuditError, InvalidArgument
from dpaudit.kernel.claims import Claim
from dpaudit.kernel.evidence import Certificate, CertifiedFact, Evidence, Measurement, decimal_bound, exact_fraction
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.relations import parse_relation

__all__ = [
    "RERUN_ROUTE",
    "Enclosure",
    "claim_of_entry",
    "margin_enclosures",
    "replayed_enclosure",
    "rerun_obligation",
    "with_rerun_certificate",
]

#: The route name of facts that ``dpaudit recheck`` re-derives by running the check again.
RERUN_ROUTE = "rerun"

_DIGITS = 30
_NO_MARGIN = "verified (the check states no numeric margin)"


Enclosure = tuple[Fraction, Fraction]


def _exact(value: Any) -> Fraction | None:
    """A number as an exact rational, or None when it is not a finite number."""
    try:
        return exact_fraction(value)
    except InvalidArgument:
        return None


def _stated_enclosure(measurement: Measurement) -> Enclosure | None:
    """The measurement's enclosure of its true margin, or None when it states none."""
    if measurement.margin_interval is not None:
        low, high = (_exact(end) for end in measurement.margin_interval)
        return None if low is None or high is None or low > high else (low, high)
    if isinstance(measurement.margin, int | Fraction) and not isinstance(measurement.margin, bool):
        return Fraction(measurement.margin), Fraction(measurement.margin)  # an exact rational margin
    return None


def margin_enclosures(evidence: Evidence) -> dict[str, Enclosure]:
    """The stated enclosures of the margins of an evidence by quantity (the first of each quantity).

    When some measurement states an enclosure (``margin_interval``), those are the verdict's
    margins; otherwise exact rational margins are their own enclosures.
    """
    stated = [m for m in evidence.measurements if m.margin_interval is not None]
    enclosures: dict[str, Enclosure] = {}
    for measurement in stated or evidence.measurements:
        enclosure = _stated_enclosure(measurement)
        if enclosure is not None and str(measurement.quantity) not in enclosures:
            enclosures[str(measurement.quantity)] = enclosure
    return enclosures


def _numerical_reason(evidence: Evidence, enclosures: dict[str, Enclosure]) -> str | None:
    """Why a verified evidence cannot be certified by re-running it, or None when it can."""
    for quantity, (low, _) in enclosures.items():
        if low < 0:
            return f"the enclosure of the margin of {quantity} reaches below 0"
    if not enclosures:
        floats = [m.quantity for m in evidence.measurements if _exact(m.margin) is not None]
        if floats:
            return f"the margin of {floats[0]} is a float computation without a stated error bound"
    return None


def with_rerun_certificate(evidence: Evidence) -> Evidence:
    """A verified evidence whose check has no independent route, with its re-run certificate: one
    fact per stated margin enclosure (outward-rounded). Without an error bound on its margin, the
    evidence becomes ``consistent`` with the reason "numerical" instead (DESIGN.md, Numbers)."""
    enclosures = margin_enclosures(evidence)
    reason = _numerical_reason(evidence, enclosures)
    if reason is not None:
        return replace(
            evidence,
            verdict=Verdict.CONSISTENT,
            summary=f"{evidence.summary} (consistent, numerical: {reason})",
            details={**evidence.details, "numerical": reason},
        )
    facts = [
        CertifiedFact(
            route=RERUN_ROUTE,
            quantity=f"margin of {quantity}",
            inputs={},
            enclosure=(decimal_bound(low, _DIGITS, up=False), decimal_bound(high, _DIGITS, up=True)),
            bound="0",
            relation=">=",
        )
        for quantity, (low, high) in enclosures.items()
    ]
    if not facts:
        facts = [CertifiedFact(RERUN_ROUTE, _NO_MARGIN, {}, ("1", "1"), "1", ">=")]
    certificate = Certificate(
        method="re-run: dpaudit recheck runs the same check again from the spec with the recorded seed; each fact "
        "is an enclosure of the true margin (interval arithmetic or a stated error bound), which the re-run's "
        "enclosure must meet (not an independent formula)",
        facts=tuple(facts),
    )
    return replace(evidence, certificate=certificate)


def claim_of_entry(entry: dict[str, Any], report: Path) -> Claim:
    """The claim of a report entry, loaded again from its spec; it must state the same claim."""
    recorded = entry.get("spec_path")
    if not isinstance(recorded, str) or not recorded:
        raise InvalidArgument("the report does not name the claim's spec")
    candidates = [Path(recorded), report.parent / recorded, report.parent.parent / recorded]
    candidates.append(builtin_spec_dir() / Path(recorded).name)
    path = next((candidate for candidate in candidates if candidate.is_file()), None)
    if path is None:
        raise InvalidArgument(f"the claim's spec {recorded!r} is not found")
    claim = load_spec(path)
    stated = {key: value for key, value in claim.to_json().items() if key != "obligations"}
    reported = {key: value for key, value in entry.get("claim", {}).items() if key != "obligations"}
    if json.dumps(stated, sort_keys=True, default=str) != json.dumps(reported, sort_keys=True, default=str):
        raise InvalidArgument(f"the spec {str(path)!r} no longer states the claim of the report")
    return claim


def rerun_obligation(
    entry: dict[str, Any], relation: dict[str, Any], item: dict[str, Any], report: Path, *, quick: bool
) -> Evidence:
    """Run an obligation of a report again, as it ran: its parameters, relation and seed.

    Raises:
        InvalidArgument: when the report does not say enough to run it, or its spec moved.
    """
    claim = claim_of_entry(entry, report)
    recorded = item.get("obligation", {})
    seed = item.get("seed", {})
    try:
        stated_obligation = next((o for o in claim.obligations if o.id == str(recorded["id"])), None)
        if stated_obligation is None:
            raise InvalidArgument(f"the spec states no obligation {recorded['id']!r}")
        # the obligation as the spec states it, not as the report says: an edited report cannot re-run a
        # smaller domain or another checker and present it as the spec's
        obligation = obligation_for_run(stated_obligation, quick)
        ran = {"checker": recorded["checker"], "params": recorded["params"]}
        if json.dumps(ran, sort_keys=True, default=str) != json.dumps(
            {"checker": obligation.checker, "params": obligation.params}, sort_keys=True, default=str
        ):
            raise InvalidArgument(f"obligation {obligation.id!r} of the report is not the spec's as it ran")
        sequence = np.random.SeedSequence(int(seed["entropy"]), spawn_key=tuple(int(k) for k in seed["spawn_key"]))
        stated = parse_relation(str(relation["relation"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidArgument(f"the report does not record how the obligation ran ({exc})") from None
    if stated not in claim.relations:
        raise InvalidArgument(f"relation {stated.name!r} is not one of the claim's")
    context = obligation_context(claim, obligation, stated, sequence, quick)
    try:
        return get_checker(obligation.checker).function(obligation, context)
    except DpAuditError as exc:
        raise InvalidArgument(f"the check did not run again: {exc}") from None


def replayed_enclosure(evidence: Evidence, quantity: str) -> Enclosure | None:
    """The enclosure of a fact's margin that a re-run states (None when it states none)."""
    if quantity == _NO_MARGIN:
        mark = Fraction(1) if evidence.verdict is Verdict.VERIFIED else Fraction(0)
        return mark, mark
    return margin_enclosures(evidence).get(quantity.removeprefix("margin of "))
