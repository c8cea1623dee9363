"""Two one-dimensional Gaussians known only up to a confidence box: a rigorous lower bound on δ(ε).

A release that is Gaussian given its input, N(μ(X), Σ(X)), projected on a fixed unit vector v is
N(vᵀμ(X), vᵀΣ(X)v) on each side of a neighbouring pair. Projection is post-processing, so any
lower bound on the projected pair's δ(ε) bounds the release's. This module holds the pieces:

* :func:`normal_box`: a joint confidence rectangle for one side's (mean, standard deviation)
  from the t pivot of the mean and the χ² pivot of the variance (Bonferroni over the two);
* :class:`TailEvent`: an event {x < below} ∪ {x > above}, or its complement (an interval);
* :func:`likelihood_ratio_event`: the event {ln p(x)/q(x) > ε} of two given Gaussians, which is
  a half-line (equal scales), an interval (p narrower) or the complement of one (p wider);
* :func:`probability_range`: a rigorous enclosure of P(E) over every (mean, sd) of a box.
  P(x < b) = Φ((b − m)/s) and P(x > a) = Φ((m − a)/s); the argument is linear-fractional in
  (m, s) with s > 0, so its extremes over the rectangle are at the corners, and Φ is increasing.
  A union of two tails is bounded by the sums of the tails' bounds (a sum's minimum is at least
  the sum of the minima), an interval by one minus those;
* :func:`anderson_darling_p_value`: the test that the draws are normal at all;
* :func:`certified_epsilon`: for every ε, δ(ε) >= P(E) − e^ε Q(E) for any event E, so with
  P(E) >= p_lo and Q(E) <= q_hi on the box, every ε < ln((p_lo − δ)/q_hi) has δ(ε) > δ.

Φ is evaluated with mpmath at two precisions (:func:`dpaudit.privacy.precise_values.two_precisions`)
from the box's corners taken as exact binary numbers, so the enclosure rests on no float64 rounding;
the box itself is widened outward by a relative 1e-9 for the float64 rounding of its pivots.

References:
    Casella & Berger 2002, Sec. 9.2 (pivotal intervals for a normal mean and variance);
    Kairouz, Oh & Viswanath 2015, and Balle & Wang 2018, Sec. 2 (δ(ε) = sup_E P(E) − e^ε Q(E));
    Neyman & Pearson 1933 (the likelihood-ratio event is the optimal one);
    D'Agostino & Stephens 1986, Sec. 4.8 and Table 4.9 (Anderson–Darling with estimated parameters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

import mpmath
import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit.privacy.precise_values import two_precisions

stats = lazy_module("scipy.stats")

__all__ = [
    "NormalBox",
    "TailEvent",
    "anderson_darling_p_value",
    "certified_epsilon",
    "likelihood_ratio_event",
    "normal_box",
    "point_epsilon",
    "probability_range",
]

#: Relative outward widening of a box, for the float64 rounding of its pivots and moments.
BOX_WIDENING = 1e-9
#: Working precision (decimal digits) of the Φ enclosures.
DIGITS = 30
#: The largest ε the float64 profile of the point estimates searches.
EPSILON_CEILING = 60.0


@dataclass(frozen=True)
class NormalBox:
    """A confidence rectangle for the (mean, standard deviation) of one side's projected release."""

    mean_low: float
    mean_high: float
    sd_low: float
    sd_high: float

    def corners(self) -> tuple[tuple[float, float], ...]:
        """The four (mean, sd) corners."""
        return tuple(product((self.mean_low, self.mean_high), (self.sd_low, self.sd_high)))

    def to_json(self) -> dict[str, list[float]]:
        """The JSON form stored in evidence."""
        return {"mean": [self.mean_low, self.mean_high], "sd": [self.sd_low, self.sd_high]}


@dataclass(frozen=True)
class TailEvent:
    """{x < below} ∪ {x > above} (either may be absent), or with ``complement`` its complement."""

    below: float | None
    above: float | None
    complement: bool = False

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Whether each value lies in the event."""
        inside = np.zeros(values.shape, dtype=bool)
        if self.below is not None:
            inside |= values < self.below
        if self.above is not None:
            inside |= values > self.above
        return ~inside if self.complement else inside

    def describe(self) -> str:
        """The event in words."""
        if self.complement:
            return f"{self.below:.6g} <= x <= {self.above:.6g}"
        parts = [
            f"x < {self.below:.6g}" if self.below is not None else "",
            f"x > {self.above:.6g}" if self.above is not None else "",
        ]
        return " or ".join(part for part in parts if part)


def normal_box(values: np.ndarray, alpha: float) -> NormalBox:
    """A rectangle holding the (mean, sd) of N(m, s²) from ``values`` with probability >= 1 − ``alpha``.

    The t interval of the mean and the χ² interval of the variance each get ``alpha / 2``.

    References:
        Casella & Berger 2002, Examples 9.2.9 and 9.2.10 (pivots of a normal sample).
    """
    count = int(values.size)
    mean = float(np.mean(values))
    sd = float(np.std(values, ddof=1))
    dof = count - 1
    half_width = float(stats.t.ppf(1 - alpha / 4, dof)) * sd / math.sqrt(count)
    sd_low = sd * math.sqrt(dof / float(stats.chi2.ppf(1 - alpha / 4, dof)))
    sd_high = sd * math.sqrt(dof / float(stats.chi2.ppf(alpha / 4, dof)))
    slack = BOX_WIDENING * (abs(mean) + half_width + sd_high)
    return NormalBox(
        mean - half_width - slack, mean + half_width + slack, sd_low * (1 - BOX_WIDENING), sd_high * (1 + BOX_WIDENING)
    )


def likelihood_ratio_event(p: tuple[float, float], q: tuple[float, float], epsilon: float) -> TailEvent | None:
    """The event {ln p(x)/q(x) > ε} of N(p[0], p[1]²) against N(q[0], q[1]²); ``None`` when it is
    empty or the whole line (it then bounds nothing).

    ln p/q (x) = A x² + B x + C with A = 1/(2 s_q²) − 1/(2 s_p²), B = m_p/s_p² − m_q/s_q² and
    C = ln(s_q/s_p) − m_p²/(2 s_p²) + m_q²/(2 s_q²): a half-line when A is negligible, an interval
    between the roots when A < 0, the two tails outside them when A > 0.
    """
    (mp, sp), (mq, sq) = p, q
    a = 0.5 / sq**2 - 0.5 / sp**2
    b = mp / sp**2 - mq / sq**2
    c = math.log(sq / sp) - mp**2 / (2 * sp**2) + mq**2 / (2 * sq**2) - epsilon
    scale = max(abs(mp), abs(mq), sp, sq)
    if abs(a) * scale**2 < 1e-12 * (abs(b) * scale + 1e-300):
        if b == 0:
            return None
        cut = -c / b
        return TailEvent(None, cut) if b > 0 else TailEvent(cut, None)
    discriminant = b * b - 4 * a * c
    if discriminant <= 0:
        return None
    root = math.sqrt(discriminant)
    stable = -0.5 * (b + math.copysign(root, b))
    first, second = sorted((stable / a, c / stable if stable != 0 else -b / (2 * a)))
    return TailEvent(first, second, complement=a < 0)


def _float_probability(event: TailEvent, mean: float, sd: float) -> float:
    norm = stats.norm
    tails = (0.0 if event.below is None else float(norm.cdf((event.below - mean) / sd))) + (
        0.0 if event.above is None else float(norm.sf((event.above - mean) / sd))
    )
    return 1.0 - tails if event.complement else tails


def point_delta(p: tuple[float, float], q: tuple[float, float], epsilon: float) -> float:
    """δ(ε) of N(p) against N(q) in float64 (the likelihood-ratio event): for choosing, never for certifying."""
    event = likelihood_ratio_event(p, q, epsilon)
    if event is None:
        return 0.0
    return max(_float_probability(event, *p) - math.exp(epsilon) * _float_probability(event, *q), 0.0)


def point_epsilon(p: tuple[float, float], q: tuple[float, float], delta: float) -> float:
    """The ε at which the float64 δ(ε) of N(p) against N(q) falls to ``delta`` (bisection; for choosing)."""
    if point_delta(p, q, 0.0) <= delta:
        return 0.0
    low, high = 0.0, EPSILON_CEILING
    for _ in range(60):
        middle = 0.5 * (low + high)
        if point_delta(p, q, middle) > delta:
            low = middle
        else:
            high = middle
    return low


def _phi_range(arguments: list[tuple[float, float, float]]) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A rigorous [min, max] of Φ(sign·(cut − m)/s) over the given (cut, m, s) with sign folded into cut."""

    def values() -> tuple[mpmath.mpf, mpmath.mpf]:
        found = [mpmath.ncdf((mpmath.mpf(x) - mpmath.mpf(y)) / mpmath.mpf(s)) for x, y, s in arguments]
        return min(found), max(found)

    low = two_precisions(lambda: values()[0], DIGITS, stable=False)
    high = two_precisions(lambda: values()[1], DIGITS, stable=False)
    return max(low.lower, mpmath.mpf(0)), min(high.upper, mpmath.mpf(1))


def probability_range(event: TailEvent, box: NormalBox) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A rigorous enclosure [low, high] of P(E) under N(m, s²) for every (m, s) in ``box``."""
    low, high = mpmath.mpf(0), mpmath.mpf(0)
    corners = box.corners()
    if event.below is not None:  # P(x < b) = Φ((b − m)/s)
        tail = _phi_range([(event.below, m, s) for m, s in corners])
        low, high = low + tail[0], high + tail[1]
    if event.above is not None:  # P(x > a) = Φ((m − a)/s)
        tail = _phi_range([(m, event.above, s) for m, s in corners])
        low, high = low + tail[0], high + tail[1]
    high = min(high, mpmath.mpf(1))
    if event.complement:
        return max(1 - high, mpmath.mpf(0)), min(1 - low, mpmath.mpf(1))
    return low, high


def certified_epsilon(event: TailEvent, first: NormalBox, second: NormalBox, delta: float) -> float:
    """A lower bound (rounded down) on the ε at which δ(ε) of the first side against the second
    reaches ``delta``, valid for every pair of laws in the boxes; 0 when the event shows none.

    P(E) − e^ε Q(E) > δ for every ε < ln((p_lo − δ)/q_hi) (see the module docstring).
    """
    p_low = probability_range(event, first)[0]
    q_high = probability_range(event, second)[1]
    if p_low <= delta or q_high <= 0:
        return 0.0 if p_low <= delta else math.inf
    with mpmath.workdps(DIGITS):
        bound = mpmath.log(mpmath.fdiv(mpmath.fsub(p_low, delta, rounding="d"), q_high, rounding="d"))
        bound -= mpmath.mpf(10) ** (5 - DIGITS) * (1 + abs(bound))  # the log's own rounding, outward
        result = float(bound)
        if mpmath.mpf(result) > bound:
            result = math.nextafter(result, -math.inf)
    return max(result, 0.0)


def anderson_darling_p_value(values: np.ndarray) -> float:
    """The p-value of the Anderson–Darling test of normality with the mean and variance estimated.

    A plain Kolmogorov–Smirnov p-value is far too large when the parameters are estimated from the
    same draws (nearly 1 for normal data, so it rejects little); the Anderson–Darling statistic
    with Stephens' small-sample factor A*² = A²(1 + 0.75/n + 2.25/n²) has a known null law for
    this case, and it weighs the tails, where a bound at a small δ lives.

    References:
        D'Agostino & Stephens 1986, Goodness-of-Fit Techniques, Sec. 4.8 and Table 4.9 (the
        p-value approximation of A*² for the normal law with both parameters estimated).
    """
    count = values.size
    standardised = np.sort((values - values.mean()) / values.std(ddof=1))
    weights = 2.0 * np.arange(1, count + 1) - 1.0
    log_cdf = stats.norm.logcdf(standardised)
    log_sf = stats.norm.logsf(standardised[::-1])
    statistic = -count - float(np.sum(weights * (log_cdf + log_sf))) / count
    adjusted = statistic * (1.0 + 0.75 / count + 2.25 / count**2)
    if adjusted >= 0.6:  # decreasing up to A*² = 153; beyond 10 the p-value at 10 (3.7e-24) is an upper bound
        capped = min(adjusted, 10.0)
        p_value = math.exp(1.2937 - 5.709 * capped + 0.0186 * capped**2)
    elif adjusted >= 0.34:
        p_value = math.exp(0.9177 - 4.279 * adjusted - 1.38 * adjusted**2)
    elif adjusted >= 0.2:
        p_value = 1.0 - math.exp(-8.318 + 42.796 * adjusted - 59.938 * adjusted**2)
    else:
        p_value = 1.0 - math.exp(-13.436 + 101.14 * adjusted - 223.73 * adjusted**2)
    return min(max(p_value, 0.0), 1.0)
