"""Evidence: a verdict and the numbers behind it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import mpmath

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.guarantees import ApproxDP

__all__ = [
    "NOT_INSTALLED",
    "Certificate",
    "CertifiedFact",
    "Evidence",
    "Measurement",
    "decimal_bound",
    "delta_measurement",
    "epsilon_measurement",
    "exact_fraction",
    "json_number",
    "named_event",
]


#: The key of :attr:`Evidence.details` naming an optional library a check needs and this machine lacks: a
#: re-run in ``dpaudit recheck`` then cannot replay the check here, which is not a mismatch.
NOT_INSTALLED = "not_installed"


def json_number(value: Any, digits: int = 17) -> Any:
    """A JSON-safe form of a number: floats stay floats, exact and high-precision values become strings.

    ``Fraction`` becomes ``"p/q"``; mpmath values become decimal strings with ``digits``
    significant digits; non-finite floats become ``"inf"``, ``"-inf"`` or ``"nan"``.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    if isinstance(value, (mpmath.mpf,)):
        return mpmath.nstr(value, digits, min_fixed=-4, max_fixed=6) if mpmath.isfinite(value) else str(value)
    if isinstance(value, mpmath.iv.mpf):
        return [json_number(mpmath.mpf(value.a), digits), json_number(mpmath.mpf(value.b), digits)]
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return number


def decimal_bound(value: Any, digits: int, *, up: bool) -> str:
    """A decimal string of ``value`` with about ``digits`` significant digits, rounded outward.

    ``up=True`` never gives less than ``value``, ``up=False`` never more: an enclosure
    written with these strings still contains what it enclosed in binary.
    """
    exact = Fraction(value) if not isinstance(value, mpmath.mpf) else _mpf_fraction(value)
    if exact == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(exact.numerator)) - math.log10(exact.denominator))
    scale = digits - 1 - magnitude
    scaled = exact * Fraction(10) ** scale
    rounded = math.ceil(scaled) if up else math.floor(scaled)
    return f"{rounded}e{-scale}"


def _mpf_fraction(value: mpmath.mpf) -> Fraction:
    if not mpmath.isfinite(value):
        raise InvalidArgument(f"value={value}: a certificate holds finite numbers only")
    mantissa, exponent = value.man_exp
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def exact_fraction(value: Any) -> Fraction:
    """The exact rational value of an int, Fraction, binary float or mpmath number.

    Raises:
        InvalidArgument: for a non-finite or non-numeric value.
    """
    if isinstance(value, mpmath.mpf):
        return _mpf_fraction(value)
    if isinstance(value, int | Fraction) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, float) and math.isfinite(value):
        return Fraction(value)
    raise InvalidArgument(f"value={value!r}: expected a finite number")


@dataclass(frozen=True)
class CertifiedFact:
    """One computed quantity a ``verified`` rests on, for ``dpaudit recheck`` to re-derive.

    Attributes:
        route: the name of the computation that re-derives it (``dpaudit.checks.certificates``).
        quantity: what it is, in words.
        inputs: the exact inputs, numbers as decimal strings (``repr`` of floats).
        enclosure: ``(low, high)`` decimal strings rounded outward; the true value lies inside.
        bound: the claimed bound the enclosure is compared with.
        relation: ``"<="``: the verdict needs ``high <= bound``; ``">="``: ``low >= bound``.
    """

    route: str
    quantity: str
    inputs: dict[str, str]
    enclosure: tuple[str, str]
    bound: str
    relation: str = "<="

    def to_json(self) -> dict[str, Any]:
        return {
            "route": self.route,
            "quantity": self.quantity,
            "inputs": dict(self.inputs),
            "enclosure": list(self.enclosure),
            "bound": self.bound,
            "relation": self.relation,
        }


@dataclass(frozen=True)
class Certificate:
    """What a ``verified`` verdict rests on, replayable without the audited code.

    Attributes:
        method: how the facts were computed (precision, formula).
        facts: the computed quantities with their enclosures.
        assumption: the reduction the facts stand for (e.g. "the worst pair is Δ along one
            axis, Balle & Wang 2018 Thm 8"), or ``""`` when the facts are the whole claim.
    """

    method: str
    facts: tuple[CertifiedFact, ...]
    assumption: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "assumption": self.assumption, "facts": [f.to_json() for f in self.facts]}


@dataclass(frozen=True)
class Measurement:
    """One claimed-versus-measured comparison.

    Attributes:
        quantity: what is compared, e.g. ``delta at epsilon=4.38``.
        claimed: the value the claim asserts (a bound).
        measured: the value dpaudit computed or estimated.
        margin: claimed minus measured in the direction that makes a positive margin safe.
        direction: how ``measured`` errs: ``exact to N digits``, ``upper bound``,
            ``lower bound``, ``interval``, ``point estimate``.
        interval: a (low, high) enclosure of the true value when one is known.
        role: ``power`` when the row states what the check's budget could have detected (every
            black-box result states its power) rather than a property of the mechanism;
            ``None`` for a measurement.
        margin_interval: a (low, high) enclosure of the true margin, valid on any IEEE-754 machine
            and supported library versions (interval arithmetic or a stated error bound of the float
            computation); a ``verified`` whose certificate is a re-run rests on it.
    """

    quantity: str
    claimed: Any
    measured: Any
    margin: Any = None
    direction: str = "exact"
    interval: tuple[Any, Any] | None = None
    role: str | None = None
    margin_interval: tuple[Any, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        data = {
            "quantity": self.quantity,
            "claimed": json_number(self.claimed),
            "measured": json_number(self.measured),
            "margin": json_number(self.margin),
            "direction": self.direction,
        }
        if self.interval is not None:
            data["interval"] = [json_number(self.interval[0]), json_number(self.interval[1])]
        if self.role is not None:
            data["role"] = self.role
        if self.margin_interval is not None:
            low, high = self.margin_interval
            data["margin_interval"] = [decimal_bound(low, 17, up=False), decimal_bound(high, 17, up=True)]
        return data


def _against_claim(
    quantity: str, claimed: Any, measured: Any, direction: str, high: float | None, label: str | None
) -> Measurement:
    """``measured`` against ``claimed`` (margin: claimed − measured), enclosed in [measured, high]
    when ``high`` is given, on ``label`` when given."""
    return Measurement(
        quantity=quantity if label is None else f"{quantity} ({label})",
        claimed=claimed,
        measured=measured,
        margin=claimed - measured,
        direction=direction,
        interval=None if high is None else (measured, high),
    )


def epsilon_measurement(
    guarantee: ApproxDP, measured: Any, direction: str, *, lower_bound: bool = False, label: str | None = None
) -> Measurement:
    """The ε measured at the claim's δ against the claimed ε (margin: claimed − measured).

    Args:
        guarantee: the (ε, δ) claim.
        measured: the ε dpaudit computed, certified or estimated at ``guarantee.delta``.
        direction: how ``measured`` errs.
        lower_bound: ``measured`` is a certified lower bound: the enclosure is [measured, ∞).
        label: what the ε was measured on (a pair), appended to the quantity.
    """
    quantity = f"epsilon at delta={guarantee.delta!r}"
    return _against_claim(quantity, guarantee.epsilon, measured, direction, math.inf if lower_bound else None, label)


def delta_measurement(
    guarantee: ApproxDP, measured: Any, direction: str, *, lower_bound: bool = False, label: str | None = None
) -> Measurement:
    """The δ measured at the claim's ε against the claimed δ (margin: claimed − measured); as
    :func:`epsilon_measurement`, with the enclosure [measured, 1] for a certified lower bound."""
    quantity = f"delta at epsilon={guarantee.epsilon!r}"
    return _against_claim(quantity, guarantee.delta, measured, direction, 1.0 if lower_bound else None, label)


@dataclass(frozen=True)
class Evidence:
    """The result of one checker run on one obligation under one relation.

    Attributes:
        verdict: what the check found.
        summary: one sentence a reader can act on.
        domain: the domain or budget the verdict covers (shown next to the verdict).
        method: how the check was done, e.g. ``mpmath 60 digits``, ``Monte Carlo, Clopper-Pearson 95%``.
        measurements: claimed vs measured numbers with margins and directions.
        budget: counts behind the verdict (samples, datasets, pairs, grid points, digits).
        counterexample: a concrete witness when the verdict is ``violated``.
        details: further JSON-ready data for reports and figures.
        elapsed_seconds: wall time of the check (a timing field, excluded from reproducibility).
        certificate: for a ``verified`` verdict, what ``dpaudit recheck`` replays.
    """

    verdict: Verdict
    summary: str
    domain: str
    method: str
    measurements: tuple[Measurement, ...] = ()
    budget: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    details: dict[str, Any] = field(default_factory=dict)
    elapsed_seconds: float | None = None
    certificate: Certificate | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise InvalidArgument(f"verdict={self.verdict!r}: expected a Verdict")
        object.__setattr__(self, "measurements", tuple(self.measurements))

    def with_elapsed(self, seconds: float) -> Evidence:
        """A copy with the wall time set."""
        return replace(self, elapsed_seconds=seconds)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "verdict": self.verdict.value,
            "summary": self.summary,
            "domain": self.domain,
            "method": self.method,
            "measurements": [m.to_json() for m in self.measurements],
            "budget": {key: json_number(value) for key, value in self.budget.items()},
            "counterexample": self.counterexample,
            "details": self.details,
            "elapsed_seconds": self.elapsed_seconds,
        } | ({"certificate": self.certificate.to_json()} if self.certificate is not None else {})


def named_event(counterexample: Any) -> str | None:
    """A counterexample's event with the names of the categories behind its codes (``categories``: code to
    name, for a candidate that releases text) in their place, for a reader; the event itself keeps the codes
    a replay matches."""
    if not isinstance(counterexample, dict) or counterexample.get("event") is None:
        return None
    text = str(counterexample["event"])
    categories = counterexample.get("categories")
    for code, name in categories.items() if isinstance(categories, dict) else ():  # whole numbers only
        shown = repr(name).replace("\\", "\\\\")  # a replacement string: its backslashes escaped
        text = re.sub(rf"(?<![\d.]){re.escape(str(code))}(?![\d.])", shown, text)
    return text
