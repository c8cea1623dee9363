"""An accountant's ε against dpaudit's certified interval, point by point.

For every point of the spec's grid the accountant under audit (a candidate, or the reference)
states ε at δ; dpaudit encloses the true ε(δ) of N subsampled Gaussian steps in [lower, upper]
(PLD, pessimistic and optimistic discretisation). A point that names an ``order`` instead of
``delta`` asks for the accountant's RDP at that order (an RDP curve, checked over its grid of
orders) and is compared in the same way with the exact RDP of the N steps and its error bound
(Poisson sampling under add/remove-one, where the exact value is known: MTZ 2019, Theorem 5).
A stated ε below ``lower`` understates the privacy loss: ``violated``, with the certified
interval as the counterexample. A stated ε at or above ``upper`` is a valid bound: ``verified``
at that point (its looseness, stated/upper, is reported). In between, the interval cannot
decide: ``inconclusive``.

References:
    Koskela, Jälkö & Honkela 2020; Gopi, Lee & Wutschitz 2021 (PLD accounting); Mironov, Talwar &
    Zhang 2019 (the RDP of the Poisson-subsampled Gaussian).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement, exact_fraction
from dpaudit.kernel.verdicts import Verdict, combine_verdicts
from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant, accounting_point, is_rdp_point
from dpaudit.mechanisms.gpope_step import POISSON
from dpaudit.privacy.relations import ADD_REMOVE_ONE

__all__ = ["RDP_ROUNDOFF", "CertifiedConfig", "check_accountant_certified", "compare_with_certified"]

_MAX_POINTS = 200

#: The relative slack of an RDP point: a stated RDP below the exact value by less than this share of it
#: is the accountant's float64 arithmetic (its series in double precision), reported as ``consistent``
#: (numerical), never ``violated``; the measurement keeps the exact value and the stated one.
RDP_ROUNDOFF = 1e-9


@dataclass(frozen=True)
class CertifiedConfig(CheckerConfig):
    """The params of the certified-epsilon check: the grid points the accountant is asked at."""

    points: Any = param(
        f"1..{_MAX_POINTS} tables {{records, noise_multiplier, steps, delta}} (epsilon at delta), or with an "
        "'order' instead of 'delta' (RDP at that order)"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        self.accounting_points()

    def accounting_points(self) -> list[dict[str, Any]]:
        """The points, each checked (:func:`~dpaudit.mechanisms.accountant.accounting_point`).

        Raises:
            InvalidArgument: naming the malformed point, or a count outside 1..200.
        """
        if not isinstance(self.points, list) or not 1 <= len(self.points) <= _MAX_POINTS:
            raise InvalidArgument(
                f"points: expected 1..{_MAX_POINTS} tables {{records, noise_multiplier, steps, delta}}"
            )
        return [accounting_point(point) for point in self.points]

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim of another kind than 'accountant', and RDP points where dpaudit has no exact RDP."""
        _check_accountant_claim(claim, self.accounting_points())


def _check_accountant_claim(claim: Claim, points: list[dict[str, Any]]) -> None:
    if claim.mechanism.name != "accountant":
        raise InvalidArgument(f"mechanism={claim.mechanism.name!r}: this checker audits the 'accountant' kind")
    if any(is_rdp_point(point) for point in points) and (
        claim.mechanism.params.get("sampling", POISSON) != POISSON
        or any(relation.kind != ADD_REMOVE_ONE for relation in claim.relations)
    ):
        raise InvalidArgument(
            "points with an 'order' (RDP) are certified for sampling = 'poisson' under add_remove_one only, "
            "where dpaudit has the exact RDP (MTZ 2019 Theorem 5)"
        )
    stated = claim.mechanism.params.get("relation")
    if stated is not None and any(relation.kind != stated for relation in claim.relations):
        raise InvalidArgument(
            f"[claim.mechanism] params relation = {stated!r} but the claim is audited under "
            f"{[relation.name for relation in claim.relations]}: the accountant's relation is the claim's; "
            "state it once, in relations"
        )


@register_checker(
    "accountant_certified",
    description="an accountant's epsilon at each grid point against dpaudit's certified PLD interval of the true "
    "epsilon, or its RDP at a point's order against the exact RDP (understated: violated; at or above the upper "
    "end: verified)",
    config=CertifiedConfig,
    audits_candidates=True,
)
def check_accountant_certified(obligation: Obligation, context: CheckContext) -> Evidence:
    """Compare the stated ε with the certified enclosure at every point (see the module docstring)."""
    audited = context.mechanism()
    # dpaudit's enclosure is of the true epsilon under the relation this run audits, never a default
    params = {**context.claim.mechanism.params, "relation": context.relation.kind}
    return compare_with_certified(
        lambda point: float(np.asarray(audited.release(point, rng=context.rng)).reshape(-1)[0]),
        SubsampledGaussianAccountant(**params),
        parse_config(CertifiedConfig, obligation.params).accounting_points(),
    )


def _point_verdict(point: dict[str, Any], stated: float, certified: Any, estimated: Any) -> Verdict:
    """One point's verdict: below the enclosure violated (unless an RDP within its float64 slack), at or
    above it verified, inside it consistent (numerical) above the round-off estimate, else inconclusive."""
    # the float stated and the enclosure's ends (mpmath numbers at their own precision, or floats) compare
    # exactly: rounding the ends to float64 first could make a true violation by 1e-30 "verified"
    lower, upper = certified.lower, certified.upper
    if stated < lower and is_rdp_point(point) and stated >= lower * (1 - mpmath.mpf(RDP_ROUNDOFF)):
        return Verdict.CONSISTENT  # numerical: the float64 round-off of an exact RDP
    if stated < lower:
        return Verdict.VIOLATED
    if stated >= upper:
        return Verdict.VERIFIED
    if stated >= estimated.upper:
        return Verdict.CONSISTENT  # numerical: holds with the FFT round-off estimated, not bounded
    return Verdict.INCONCLUSIVE


def _measurement(point: dict[str, Any], stated: float, certified: Any) -> Measurement:
    shared = f"m={point['records']}, sigma={point['noise_multiplier']:g}, N={point['steps']}"
    if is_rdp_point(point):
        label, enclosure = f"RDP at order {point['order']:g}, {shared}", "exact RDP of the N steps (MTZ 2019, mpmath)"
    else:
        label, enclosure = f"epsilon at {shared}, delta={point['delta']:g}", "PLD enclosure"
    return Measurement(
        quantity=label,
        claimed=stated,
        measured=certified.value,
        margin=_margin(stated, certified),
        direction=f"{enclosure} of the true epsilon ({certified.direction})",
        interval=(certified.lower, certified.upper),
        margin_interval=_margin_interval(stated, certified),
    )


def _margin(stated: float, certified: Any) -> float:
    """The margin the enclosure guarantees: the room of a bound above it (stated − upper end), the shortfall
    of one below it (stated − lower end); inside it, where its sign is unknown, stated − the enclosure's
    value (its upper end for the PLD and the RDP), never positive. The ends are compared as the verdict
    compares them, exactly. (The lower end's margin, as before, showed an undecided point as room to spare.)"""
    if stated >= certified.upper:
        return stated - float(certified.upper)
    if stated < certified.lower:
        return min(stated - float(certified.lower), -math.ulp(stated))  # below it: never 0 once rounded
    return min(stated - float(certified.value), 0.0)


def _margin_interval(stated: float, certified: Any) -> tuple[Fraction, Fraction] | None:
    """The enclosure of the true margin (stated − true ε) in exact rationals: the stated ε is the
    audited number as given, the PLD interval encloses the true ε (FFT round-off bounded); None
    when an end is not finite."""
    try:
        lower, upper = exact_fraction(certified.lower), exact_fraction(certified.upper)
        return exact_fraction(stated) - upper, exact_fraction(stated) - lower
    except InvalidArgument:
        return None


def compare_with_certified(
    stated_epsilon: Callable[[dict[str, Any]], float],
    reference: SubsampledGaussianAccountant,
    points: list[dict[str, Any]],
    *,
    method_note: str = "",
) -> Evidence:
    """An accountant's stated ε (or RDP) at each point against dpaudit's certified enclosure of the true one."""
    verdicts = []
    measurements = []
    worst: dict[str, Any] | None = None
    for point in points:
        stated = stated_epsilon(point)
        certified, estimated = reference.epsilon_enclosures(point)
        verdict = _point_verdict(point, stated, certified, estimated)
        verdicts.append(verdict)
        measurements.append(_measurement(point, stated, certified))
        lower, upper = float(certified.lower), float(certified.upper)
        shortfall = lower - stated  # how far below the certified interval (a ratio breaks on lower = 0)
        if verdict is Verdict.VIOLATED and (worst is None or shortfall > worst["shortfall"]):
            ratio = stated / lower if lower > 0 else None
            worst = {**point, "stated_epsilon": stated, "certified": [lower, upper], "shortfall": shortfall}
            worst["ratio"] = ratio
    verdict = combine_verdicts(verdicts)
    looseness = [float(m.claimed) / float(mpmath.mpf(m.interval[1])) for m in measurements if m.interval]
    rdp_points = sum(is_rdp_point(point) for point in points)
    summary = (
        f"{verdicts.count(Verdict.VIOLATED)} of {len(verdicts)} points understate epsilon, "
        f"{verdicts.count(Verdict.VERIFIED)} are certified bounds, {verdicts.count(Verdict.CONSISTENT)} bounds only "
        f"with the FFT round-off estimated"
        + (f" (or an RDP within {RDP_ROUNDOFF:g} of the exact value: {rdp_points} RDP points)" if rdp_points else "")
        + f", {verdicts.count(Verdict.INCONCLUSIVE)} inside the certified interval "
        f"(stated / certified upper: "
        f"{min(looseness):.3g}..{max(looseness):.3g})"
    )
    return Evidence(
        verdict,
        summary,
        f"{len(verdicts)} points, sampling={reference.sampling}, relation={reference.relation}",
        f"PLD of N subsampled Gaussian steps, grid step {reference.interval:g}, both rounding directions"
        + ("; exact RDP (MTZ 2019 series in mpmath, with its error bound) at the RDP points" if rdp_points else "")
        + method_note,
        measurements=tuple(measurements),
        budget={"points": len(verdicts), "interval": reference.interval},
        counterexample=worst,
    )
