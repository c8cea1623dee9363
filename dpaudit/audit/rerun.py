"""Certificates by re-running: what a ``verified`` that no closed form re-derives rests on.

An exhaustive enumeration (every neighbouring pair of a sensitivity sweep, every point of
Lemma 4's box) or a rigorous accountant (RDP series with tail bounds) has no second formula
to replay it with. Its certificate names the route ``rerun``: ``dpaudit recheck`` loads the
claim's spec again (it must still state the same claim), re-runs the obligation as the report
recorded it (the parameters that ran, the recorded seed) and requires the verdict to be
``verified`` again with every certified margin inside its enclosure. This catches an edited
verdict or number, a spec changed since the run, and a check whose result moved (another
dpaudit version, another machine); it does not catch a bug both runs share, which is why the
routes of :mod:`dpaudit.checks.certificates.routes` are preferred where a second formula exists.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import DpAuditError, InvalidArgument
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Certificate, CertifiedFact, Evidence, decimal_bound
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.relations import parse_relation

__all__ = ["RERUN_ROUTE", "replayed_margin", "rerun_certificate", "rerun_obligation"]

#: The route name of facts that ``dpaudit recheck`` re-derives by running the check again.
RERUN_ROUTE = "rerun"

_DIGITS = 30
_NO_MARGIN = "verified (the check states no numeric margin)"


def _exact(value: Any) -> Fraction | mpmath.mpf | None:
    """A margin as an exact number, or None when it is not a finite number."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, mpmath.mpf):
        return value if mpmath.isfinite(value) else None
    if isinstance(value, float):
        return Fraction(value) if math.isfinite(value) else None
    if isinstance(value, int | Fraction):
        return Fraction(value)
    return None


def _margins(evidence: Evidence) -> dict[str, Fraction | mpmath.mpf]:
    """The non-negative margins of a verified evidence by quantity (the first of each quantity)."""
    margins: dict[str, Fraction | mpmath.mpf] = {}
    for measurement in evidence.measurements:
        margin = _exact(measurement.margin)
        if margin is not None and margin >= 0 and measurement.quantity not in margins:
            margins[str(measurement.quantity)] = margin
    return margins


def rerun_certificate(evidence: Evidence) -> Certificate:
    """The certificate of a verified evidence whose check has no independent route: its margins."""
    facts = [
        CertifiedFact(
            route=RERUN_ROUTE,
            quantity=f"margin of {quantity}",
            inputs={},
            enclosure=(decimal_bound(margin, _DIGITS, up=False), decimal_bound(margin, _DIGITS, up=True)),
            bound="0",
            relation=">=",
        )
        for quantity, margin in _margins(evidence).items()
    ]
    if not facts:
        facts = [CertifiedFact(RERUN_ROUTE, _NO_MARGIN, {}, ("1", "1"), "1", ">=")]
    return Certificate(
        method="re-run: dpaudit recheck runs the same check again from the spec with the recorded seed and "
        "compares the verdict and every margin (not an independent formula)",
        facts=tuple(facts),
    )


def _claim_of(entry: dict[str, Any], report: Path) -> Claim:
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
    claim = _claim_of(entry, report)
    recorded = item.get("obligation", {})
    seed = item.get("seed", {})
    try:
        obligation = Obligation(
            id=str(recorded["id"]),
            statement=str(recorded["statement"]),
            checker=str(recorded["checker"]),
            params=dict(recorded["params"]),
        )
        sequence = np.random.SeedSequence(int(seed["entropy"]), spawn_key=tuple(int(k) for k in seed["spawn_key"]))
        stated = parse_relation(str(relation["relation"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidArgument(f"the report does not record how the obligation ran ({exc})") from None
    if stated not in claim.relations:
        raise InvalidArgument(f"relation {stated.name!r} is not one of the claim's")
    context = CheckContext(
        claim=claim, relation=stated, rng=np.random.default_rng(sequence), seed=sequence, quick=quick
    )
    try:
        return get_checker(obligation.checker).function(obligation, context)
    except DpAuditError as exc:
        raise InvalidArgument(f"the check did not run again: {exc}") from None


def replayed_margin(evidence: Evidence, quantity: str) -> Fraction | mpmath.mpf | None:
    """The margin a re-run gives for a fact's quantity (None when it has none)."""
    if quantity == _NO_MARGIN:
        return Fraction(1) if evidence.verdict is Verdict.VERIFIED else Fraction(0)
    return _margins(evidence).get(quantity.removeprefix("margin of "))
