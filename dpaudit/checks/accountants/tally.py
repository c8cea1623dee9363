"""What the accounting checkers share: the per-point tally that decides a grid's verdict by one rule,
the counterexample of a failing GPOPE point, and the readers of their params.

A point whose enclosure lies above the claim is a violation; one at or below it is verified; one
that straddles the claim is undecided, unless the same quantity with the float64 round-off
estimated (not bounded) holds, which makes it ``consistent (numerical)``, never ``verified``. Each
measurement carries an enclosure of its true margin for the re-run certificate (:mod:`dpaudit.audit.rerun`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath

from dpaudit.checks.claim_inputs import DigitsConfig
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import param
from dpaudit.kernel.evidence import Evidence, Measurement, exact_fraction
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gpope_step import SAMPLING_SCHEMES, UNIFORM_ONE, GpopeStep
from dpaudit.privacy.accounting.values import AccountedValue
from dpaudit.privacy.relations import Relation

__all__ = ["MAX_MEASUREMENTS", "StepGridConfig", "Tally", "step_witness", "text"]

#: The most measurements (and violations) an accounting evidence keeps, the worst first.
MAX_MEASUREMENTS = 24


def step_witness(step: GpopeStep, view: Any, relation: Relation) -> dict[str, Any]:
    """The counterexample of a failing point: the step's parameters and its per-step pair."""
    return {
        "records": step.records,
        "steps": step.steps,
        "noise_multiplier": step.noise_multiplier,
        "relation": relation.name,
        "sampling": step.sampling,
        "per_step": view.to_json(),
    }


def _margin_interval(claimed: tuple[Any, Any], value: AccountedValue, relative_error: Any) -> tuple[Any, Any] | None:
    """An enclosure of the true margin (claimed − measured) in exact rationals: the claimed value's range
    widened by its stated relative error, less the rigorous enclosure of the measured value; None when
    an end is not finite."""
    try:
        low_claim, high_claim = (exact_fraction(end) for end in claimed)
        low, high = exact_fraction(value.lower), exact_fraction(value.upper)
        slack = max(abs(low_claim), abs(high_claim)) * exact_fraction(relative_error)
    except InvalidArgument:
        return None
    return low_claim - slack - high, high_claim + slack - low


@dataclass
class Tally:
    """Collects per-point comparisons and decides the verdict by one rule.

    ``claim_relative_error`` bounds the relative error of the claimed values as computed (0 when
    they are exact, e.g. a float the spec states; 10^(5 − digits) for a closed form evaluated in
    mpmath at ``digits`` digits: a few operations, each correctly rounded to within a few units of
    the last place), so each measurement's ``margin_interval`` encloses the true margin whichever
    machine or library version computed it.
    """

    claim_relative_error: Any = 0

    violations: list[dict[str, Any]] = field(default_factory=list)
    undecided: int = 0
    verified: int = 0
    numerical: list[str] = field(default_factory=list)
    measurements: list[tuple[Any, Measurement]] = field(default_factory=list)

    def add(
        self,
        quantity: str,
        claimed: Any,
        value: AccountedValue,
        witness: Callable[[], dict[str, Any]],
        estimate: AccountedValue | None = None,
        claimed_range: tuple[Any, Any] | None = None,
    ) -> None:
        """One point: ``value`` is the rigorous enclosure; ``estimate`` (optional) the same quantity with
        round-off estimated, which can only make an undecided point ``consistent (numerical)``.
        ``claimed_range`` encloses the true claimed value when ``claimed`` is one end of it (the
        tail bound from the lower ends of the moments); else ``claimed`` is exact up to
        :attr:`claim_relative_error`."""
        margin = mpmath.mpf(claimed) - mpmath.mpf(value.upper)
        margin_interval = _margin_interval(claimed_range or (claimed, claimed), value, self.claim_relative_error)
        measurement = Measurement(
            quantity,
            claimed,
            value.value,
            margin,
            value.direction,
            (value.lower, value.upper),
            margin_interval=margin_interval,
        )
        # a claimed value known only within claimed_range: violated above its upper end, verified below its lower
        low_claim, high_claim = claimed_range or (claimed, claimed)
        lower, upper = _exact(value.lower), _exact(value.upper)
        stated, stated_high = _exact(low_claim), _exact(high_claim)
        if lower > stated_high:
            self.violations.append(
                {
                    **witness(),
                    "quantity": quantity,
                    "claimed": text(high_claim),
                    "measured_lower": text(value.lower),
                    "measured_upper": text(value.upper),
                    "excess": text(mpmath.mpf(value.lower) - mpmath.mpf(high_claim)),
                }
            )
            rank = (0, mpmath.mpf(high_claim) - mpmath.mpf(value.lower))
        elif upper <= stated:
            self.verified += 1
            rank = (2, margin)
        elif estimate is not None and _exact(estimate.upper) <= stated:
            self.numerical.append(quantity)
            measurement = Measurement(
                quantity,
                claimed,
                estimate.value,
                mpmath.mpf(claimed) - mpmath.mpf(estimate.upper),
                f"{value.direction}; holds with the float64 round-off estimated (rigorous upper end "
                f"{mpmath.nstr(mpmath.mpf(value.upper), 6)} straddles the claim)",
                (value.lower, value.upper),
            )
            rank = (1, margin)
        else:
            self.undecided += 1
            rank = (1, margin)
        # violations first (the most violated first), then undecided, then verified points
        self.measurements.append((rank, measurement))

    def evidence(
        self, *, what: str, domain: str, method: str, budget: dict[str, Any], details: dict[str, Any]
    ) -> Evidence:
        kept = [m for _, m in sorted(self.measurements, key=lambda item: item[0])[:MAX_MEASUREMENTS]]
        total = self.verified + self.undecided + len(self.violations) + len(self.numerical)
        budget = {
            **budget,
            "points": total,
            "violations": len(self.violations),
            "undecided": self.undecided,
            "numerical": len(self.numerical),
        }
        if self.violations:
            verdict = Verdict.VIOLATED
            worst = self.violations[0]
            summary = f"{what} fails at {len(self.violations)} of {total} points; first: {worst['quantity']}"
            counterexample = worst
            details = {**details, "violations": self.violations[:MAX_MEASUREMENTS]}
        elif self.undecided:
            verdict, counterexample = Verdict.INCONCLUSIVE, None
            summary = f"{what}: {self.undecided} of {total} points undecided (the enclosure straddles the claim)"
        elif self.numerical:
            verdict, counterexample = Verdict.CONSISTENT, None
            summary = (
                f"{what} holds at all {total} points, {len(self.numerical)} of them only with the float64 FFT "
                f"round-off estimated, not bounded (consistent, numerical); first: {self.numerical[0]}"
            )
        elif total == 0:
            verdict, counterexample = Verdict.INCONCLUSIVE, None
            summary = f"{what}: no grid point lies in the statement's domain"
        else:
            verdict, counterexample = Verdict.VERIFIED, None
            summary = f"{what} holds at all {total} points with rigorous error control"
        return Evidence(verdict, summary, domain, method, tuple(kept), budget, counterexample, details)


def text(value: Any) -> str:
    """A number as a report writes it: 12 significant digits."""
    return mpmath.nstr(mpmath.mpf(value), 12, min_fixed=-4, max_fixed=6)


@dataclass(frozen=True, kw_only=True)
class StepGridConfig(DigitsConfig):
    """The grid of GPOPE steps an accountant check decides: the sampling scheme, the records m and the
    noise multipliers sigma (kept as the spec writes them: the report echoes them)."""

    sampling: str = param("the step's sampling scheme", UNIFORM_ONE, choices=SAMPLING_SCHEMES)
    records: tuple[int, ...] = param("records m", low=2)
    noise_multipliers: tuple[int | float, ...] = param("noise multipliers sigma", low=0.0, low_open=True)


def _exact(value: Any) -> Any:
    """``value`` as an exact rational for comparisons (mpmath numbers keep their own precision: rounding them
    to the default 53 bits first could turn a violation by 1e-40 into a verified point); infinities as floats."""
    try:
        return exact_fraction(value)
    except InvalidArgument:
        return float(value)
