"""Verdicts and the one rule that derives a claim's verdict from its obligations.

What each verdict promises (DESIGN.md):

* ``proven`` — holds for every parameter value in the stated symbolic domain (sympy, no floats).
* ``verified`` — holds on the whole stated finite domain, or at every grid point with
  rigorous error control (rationals, intervals, mpmath >= 50 digits; margin reported).
* ``consistent`` — a statistical test at the stated confidence and budget found no violation.
* ``violated`` — a counterexample exists (exact, rigorous, or a confident Monte Carlo bound).
* ``inconclusive`` — budget exhausted or precision insufficient.
* ``error`` — the check could not run (crashing or hanging candidate, bad output).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from dpaudit.errors import InvalidArgument

__all__ = ["Verdict", "combine_verdicts", "deciding", "fails_policy", "set_aside"]

T = TypeVar("T")


class Verdict(enum.Enum):
    """The outcome of a check, ordered by the strength of what it promises."""

    PROVEN = "proven"
    VERIFIED = "verified"
    CONSISTENT = "consistent"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"
    VIOLATED = "violated"

    @property
    def strength(self) -> int:
        """Higher is a stronger promise that the statement holds; violated is lowest of all."""
        return _STRENGTH[self]

    def __str__(self) -> str:
        return self.value


_STRENGTH = {
    Verdict.PROVEN: 5,
    Verdict.VERIFIED: 4,
    Verdict.CONSISTENT: 3,
    Verdict.INCONCLUSIVE: 2,
    Verdict.ERROR: 1,
    Verdict.VIOLATED: 0,
}

FAIL_POLICIES = ("violated", "inconclusive")


def combine_verdicts(verdicts: Iterable[Verdict]) -> Verdict:
    """Derive a claim's verdict from its obligations' verdicts.

    The rule: ``violated`` if any obligation is violated; otherwise the weakest of them
    (proven > verified > consistent > inconclusive > error).

    Raises:
        InvalidArgument: if there are no verdicts to combine.
    """
    items = list(verdicts)
    if not items:
        raise InvalidArgument("verdicts=[]: a claim needs at least one obligation to have a verdict")
    return min(items, key=lambda verdict: verdict.strength)


def deciding(items: Sequence[T], left_out: Callable[[T], bool]) -> Sequence[T]:
    """The items a verdict is derived from: all but those set aside (:func:`set_aside`: a parametric fit that
    no family passes bounds nothing, so the model-free checks decide; conformance is not privacy), unless
    no other is left."""
    kept = [item for item in items if not left_out(item)]
    return kept or items


def set_aside(details: Mapping[str, Any]) -> bool:
    """Whether an obligation whose evidence has these ``details`` is left out of its relation's verdict (by
    :func:`deciding`): a parametric fit whose tested assumption was rejected (it bounds nothing), and a
    conformance check (the candidate's output law against the reference's, not privacy: ``dpaudit check
    --fail-on-conformance`` gates it)."""
    return details.get("assumption_rejected") is True or "conformance" in details


def fails_policy(verdict: Verdict, policy: str) -> bool:
    """Whether ``verdict`` fails the CI policy ``--fail-on policy``.

    ``violated``: fails on violated and error (a check that could not run never passes).
    ``inconclusive``: also fails on inconclusive.
    """
    if policy not in FAIL_POLICIES:
        raise InvalidArgument(f"policy={policy!r}: expected one of {', '.join(FAIL_POLICIES)}")
    failing = {Verdict.VIOLATED, Verdict.ERROR}
    if policy == "inconclusive":
        failing.add(Verdict.INCONCLUSIVE)
    return verdict in failing
