"""How the HTML report names a result for a reader: a known finding that is still reproduced as
"known finding (pinned)" (not a red "violated": the exit code is 0), the one-line promise of each
verdict for the legend, and numbers cut to a few significant digits with every digit kept for the
hover text."""

from __future__ import annotations

import math
from typing import Any

from dpaudit.report.summary import decisive_obligation, key_measurement
from dpaudit.report.values import format_value, to_float

__all__ = [
    "KNOWN_PINNED",
    "VERDICT_PROMISES",
    "claim_label",
    "key_number",
    "obligation_label",
    "relation_label",
    "short_number",
]

#: The label of a violation the claim's spec expects (a paper statement that fails), reproduced
#: within its pinned size.
KNOWN_PINNED = "known finding (pinned)"
#: The CSS class of :data:`KNOWN_PINNED`.
_KNOWN_CLASS = "known"

#: What each verdict promises (DESIGN.md, "Verdicts"), one line each for the report's legend.
VERDICT_PROMISES = {
    "proven": "holds for every parameter value of the stated symbolic domain (a symbolic derivation, no floats)",
    "verified": "holds on the whole stated finite domain or grid, with rigorous error control",
    "consistent": "no violation found by a test that could have found one: a statistical test at the stated "
    "confidence and budget (see its power), or a float check without a rigorous error bound (numerical)",
    "inconclusive": "the budget or the precision could not decide (it says which, with the power reached)",
    "error": "the check could not run (a crashing or hanging candidate, bad output)",
    "violated": "a counterexample exists (exact, rigorous, or a confident Monte Carlo bound)",
    KNOWN_PINNED: "an expected violation of a paper statement, reproduced within its pinned size (exit code 0)",
}

#: Significant digits of a number shown in a table (the hover text has every digit).
SHORT_DIGITS = 5


def short_number(value: Any) -> tuple[str, str]:
    """A report value as ``(short text, full text)``: a finite number at :data:`SHORT_DIGITS`
    significant digits and its stored form; a list element-wise; anything else twice as stored."""
    if isinstance(value, list):
        parts = [short_number(item) for item in value]
        return "[" + ", ".join(p[0] for p in parts) + "]", "[" + ", ".join(p[1] for p in parts) + "]"
    number = to_float(value)
    full = format_value(value)
    if number is None or not math.isfinite(number) or isinstance(value, int):
        return full, full
    return f"{number:.{SHORT_DIGITS}g}", full


def obligation_label(item: dict[str, Any]) -> tuple[str, str]:
    """The label and CSS class of one obligation's result: its verdict, or :data:`KNOWN_PINNED`."""
    verdict = str((item.get("evidence") or {}).get("verdict", "unknown"))
    if verdict == "violated" and item.get("known_finding") and not item.get("finding_changed"):
        return KNOWN_PINNED, _KNOWN_CLASS
    return verdict, ""


def relation_label(relation: dict[str, Any]) -> tuple[str, str]:
    """The label and CSS class of a (claim, relation): :data:`KNOWN_PINNED` when it is violated only
    by known findings that are all still pinned, else its verdict."""
    verdict = str(relation.get("verdict", "unknown"))
    pinned = verdict == "violated" and bool(relation.get("only_known_findings"))
    if pinned and not any(item.get("finding_changed") for item in relation.get("obligations", [])):
        return KNOWN_PINNED, _KNOWN_CLASS
    return verdict, ""


def claim_label(result: dict[str, Any]) -> tuple[str, str]:
    """The label and CSS class of a claim: :data:`KNOWN_PINNED` when every violated relation is."""
    verdict = str(result.get("verdict", "unknown"))
    violated = [relation for relation in result.get("relations", []) if relation.get("verdict") == "violated"]
    if verdict == "violated" and violated and all(relation_label(r)[0] == KNOWN_PINNED for r in violated):
        return KNOWN_PINNED, _KNOWN_CLASS
    return verdict, ""


def key_number(relation: dict[str, Any]) -> dict[str, str] | None:
    """The number a (claim, relation) is read by: the key measurement of the obligation that decides
    its verdict (:func:`~dpaudit.report.summary.key_measurement`, as in the other summaries), as short
    ``measured`` and ``claimed`` texts and a hover text with every digit; ``None`` without a measurement."""
    first = key_measurement(decisive_obligation(relation.get("obligations", [])))
    if first is None:
        return None
    measured, claimed = short_number(first.get("measured")), short_number(first.get("claimed"))
    quantity = str(first.get("quantity", ""))
    full = f"{quantity}: measured {measured[1]}, claimed {claimed[1]}"
    if first.get("interval") is not None:
        full += f", interval {short_number(first.get('interval'))[1]}"
    return {"text": f"{measured[0]} vs {claimed[0]}", "full": full}
