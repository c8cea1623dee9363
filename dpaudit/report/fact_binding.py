"""Whether a certified fact of a report belongs to its claim (:mod:`dpaudit.report.recheck`, check 1).

Every input the claim or the obligation fixes must take one of their values, the bound must be the claim's δ
or on the obligation's grid, and a fact about a pair of inputs must be about a pair the claim admits: a
Dirichlet pair (route ``beta_pair_delta``) is the Beta reduction of b-adjacent inputs of the claim's k, with
every component at least its eta and the shift b/2 of one of its ``simplex_adjacent(b)`` relations (an edited
report could otherwise certify a pair of equal inputs, whose δ is 0, for any claim).
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from dpaudit.audit.rerun import RERUN_ROUTE
from dpaudit.checks.certificates.facts import exact_decimal
from dpaudit.kernel.evidence import Evidence

__all__ = ["WORST_CASE_SEARCHED", "bound_to_claim", "searched_again"]


def _numbers(values: list[Any]) -> set[str]:
    return {exact_decimal(float(v)) for v in values if isinstance(v, int | float) and not isinstance(v, bool)}


def _allowed(claim: dict[str, Any], obligation: dict[str, Any], name: str) -> set[str] | None:
    """Exact decimals ``name`` may take: the claim's value (guarantee or mechanism parameter) and
    the obligation's grid ``<name>s`` (full and quick budgets); None when the claim fixes nothing."""
    values: list[Any] = []
    for table in (claim.get("guarantee", {}), claim.get("mechanism", {}).get("params", {})):
        if isinstance(table, dict) and name in table:
            values.append(table[name])
    for table in (obligation.get("params") or {}, obligation.get("quick_params") or {}):
        listed = table.get(f"{name}s", []) if isinstance(table, dict) else []
        values += listed if isinstance(listed, list) else []
    return _numbers(values) if values else None


def bound_to_claim(fact: dict[str, Any], claim: dict[str, Any], obligation: dict[str, Any]) -> str | None:
    """Why the fact does not belong to the claim and obligation, or None.

    Every input the claim or the obligation fixes (ε, a mechanism parameter, a grid such as
    ``dims``) must take one of their values, and the bound must be the claim's δ or on the
    obligation's ``deltas``.
    """
    inputs = fact.get("inputs", {})
    if not isinstance(inputs, dict):
        return "its inputs are not a table"
    for name, value in inputs.items():
        allowed = _allowed(claim, obligation, name)
        if allowed is not None and value not in allowed:
            return f"its input {name} = {value} is neither the claim's nor on the obligation's grid"
    if fact.get("bound") not in (_allowed(claim, obligation, "delta") or set()):
        return f"its bound {fact.get('bound')} is neither the claim's delta nor on the obligation's grid"
    route, checker = fact.get("route"), obligation.get("checker")
    if route in ROUTE_CHECKERS and checker not in ROUTE_CHECKERS[route]:
        return f"its route {route} certifies no {checker} obligation"
    mechanism = (claim.get("mechanism") or {}).get("name")
    if route in ROUTE_MECHANISMS and mechanism != ROUTE_MECHANISMS[route]:
        return f"its route {route} is about the {ROUTE_MECHANISMS[route]} mechanism, the claim's is {mechanism}"
    if route == "beta_pair_delta":
        return _beta_pair_problem(inputs, claim)
    return None


#: The checkers whose facts each closed-form route replays (a fact of another checker's route, a Laplace fact under a
#: sensitivity lemma, certifies nothing about it), and the mechanism a route's formula is about.
ROUTE_CHECKERS: dict[str, frozenset[str]] = {
    "gaussian_shift_delta": frozenset({"gaussian_exact_profile", "exact_privacy_profile"}),
    "laplace_shift_delta": frozenset({"exact_privacy_profile"}),
    "beta_pair_delta": frozenset({"dirichlet_exact_profile", "dirichlet_composition_profile"}),
    "gaussian_pair_delta": frozenset({"lemma1_exact_profile"}),
}
ROUTE_MECHANISMS = {
    "gaussian_shift_delta": "gaussian",
    "laplace_shift_delta": "laplace",
    "beta_pair_delta": "dirichlet",
}


_SIMPLEX_ADJACENT = re.compile(r"^simplex_adjacent\((.+)\)$")
#: Room, as a share of k, for the float64 rounding of the pair's coordinates k x (a few ulps of 1 each).
_ROUNDING = 1e-12


def _beta_pair_problem(inputs: dict[str, Any], claim: dict[str, Any]) -> str | None:
    """Why a ``beta_pair_delta`` fact's (a_p, b_p, a_q, b_q) is not the Beta reduction of a pair the claim
    admits, or None (see the module docstring)."""
    params = (claim.get("mechanism") or {}).get("params") or {}
    try:
        a_p, b_p, a_q, b_q = (float(inputs[name]) for name in ("a_p", "b_p", "a_q", "b_q"))
        k = float(params["k"])
        eta = float(params["eta"]) if params.get("eta") is not None else 0.0
    except (KeyError, TypeError, ValueError):
        return "its Beta pair or the claim's k cannot be read"
    radii = []
    for relation in claim.get("relations") or []:
        found = _SIMPLEX_ADJACENT.match(str(relation))
        if found:
            try:
                radii.append(float(found.group(1)))
            except ValueError:
                continue
    # the coordinates are float64 sums and differences of numbers up to 1: their rounding is absolute, of k
    # times a few ulps of 1, however small the component or the shift they make
    room = _ROUNDING * k
    if a_p + b_p > k + room:
        return f"its Beta pair's mass {a_p + b_p:g} exceeds the claim's k = {k:g}"
    if min(a_p, b_p, a_q, b_q) < k * eta - room:
        return f"its Beta pair has a shape below k eta = {k * eta:g}: a component below the claim's eta"
    if not any(abs(abs(a_q - a_p) - k * b / 2) <= room for b in radii):
        return f"its Beta pair's shift {abs(a_q - a_p):g} is not k b / 2 for a simplex_adjacent(b) of the claim"
    return None


#: Checkers whose certified facts are about the worst case a search found at each point (the search is no fact
#: a route replays: an edited report could certify an admissible pair that is not the worst, or drop points).
#: Recheck runs them again once, besides replaying their facts.
WORST_CASE_SEARCHED = frozenset({"dirichlet_exact_profile", "dirichlet_composition_profile", "lemma1_exact_profile"})
#: How much worse (relative) a case found again may be before the recorded one is not the worst.
_TIE = Fraction(1, 10**9)


def searched_again(facts: list[Any], evidence: Evidence) -> tuple[str, str]:
    """(status, message) of a :data:`WORST_CASE_SEARCHED` obligation whose search ran again from its spec
    (``evidence``): it must certify the same points (quantities) as the report's ``facts``, and at none of them
    a worse case (a lower end above the recorded upper end)."""
    found = evidence.certificate.facts if evidence.certificate else ()
    try:
        recorded = {fact["quantity"]: fact for fact in facts if fact.get("route") != RERUN_ROUTE}
        again = {fact.quantity: fact for fact in found if fact.route != RERUN_ROUTE}
        if set(recorded) != set(again):
            missing, extra = sorted(set(again) - set(recorded)), sorted(set(recorded) - set(again))
            return "fail", (
                f"run again from its spec, the search certifies other points (not in the report: {missing[:2]}; "
                f"not certified again: {extra[:2]})"
            )
        for quantity, fact in recorded.items():
            # another machine's float64 ranking may pick another of two grid pairs that tie to an ulp
            high = Fraction(Decimal(fact["enclosure"][1]))
            if Fraction(Decimal(again[quantity].enclosure[0])) > high + abs(high) * _TIE + _TIE**30:
                return "fail", f"run again from its spec, the search finds a worse case at {quantity}"
    except (KeyError, IndexError, TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        return "fail", f"the search run again cannot be compared with the report: {exc!r}"
    return "ok", f"the search run again from its spec finds no worse case at any of its {len(recorded)} point(s)"
