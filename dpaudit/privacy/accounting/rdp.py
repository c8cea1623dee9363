"""Rényi-DP of Gaussian mechanisms, plain and subsampled, in mpmath with reported error.

Conventions: the Gaussian is normalised to unit sensitivity, so ``sigma`` is the
noise standard deviation divided by the L2 sensitivity under the audited relation.
A result is an :class:`~dpaudit.privacy.accounting.values.AccountedValue` that says
whether it is exact (with an error bound from two working precisions plus any series
tail bound) or an upper bound.

References:
    Mironov 2017, "Rényi Differential Privacy", Prop. 7 (Gaussian), Prop. 1 (composition).
    Mironov, Talwar, Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
    Mechanism", Sec. 3.3 (integer and fractional orders; Theorem 5: the "add" direction
    dominates).
    Wang, Balle, Kasiviswanathan 2019, "Subsampled Rényi Differential Privacy and
    Analytical Moments Accountant", Theorem 9 (general bound, sampling without
    replacement, replace-one) and Theorem 27 (tighter bound for mechanisms with a
    tight worst-case pair, e.g. the Gaussian).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import mpmath

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import NumericalError
from dpaudit.privacy.accounting.values import UPPER_BOUND, AccountedValue
from dpaudit.privacy.precise_values import two_precisions

__all__ = [
    "DEFAULT_DIGITS",
    "compose_rdp",
    "gaussian_rdp",
    "moment_from_rdp",
    "poisson_gaussian_log_moment",
    "poisson_gaussian_rdp",
    "wor_gaussian_rdp_upper",
]

DEFAULT_DIGITS = 60
_MAX_SERIES_TERMS = 4_000

#: Terms between two evaluations of the fractional series' tail bound.
_TAIL_STRIDE = 32


def _check_order(alpha: float) -> float:
    return check_real("alpha", alpha, low=1.0, low_open=True)


def _check_digits(digits: int) -> int:
    return check_integer("digits", digits, low=50)


def gaussian_rdp(alpha: float, sigma: float, *, digits: int = DEFAULT_DIGITS) -> AccountedValue:
    """RDP of the Gaussian mechanism with unit sensitivity: ε(α) = α / (2σ²), exactly.

    Args:
        alpha: the order α > 1.
        sigma: noise standard deviation over L2 sensitivity, σ > 0.
        digits: working precision (>= 50).

    Returns:
        The exact value (inputs are taken as exact binary floats).

    References:
        Mironov 2017, Prop. 7; Bun & Steinke 2016, Lemma 2.5 (Xie et al. 2019, Lemma 3).
    """
    a = _check_order(alpha)
    s = check_real("sigma", sigma, low=0.0, low_open=True)
    digits = _check_digits(digits)

    def compute() -> tuple[mpmath.mpf, mpmath.mpf]:
        return mpmath.mpf(a) / (2 * mpmath.mpf(s) ** 2), mpmath.mpf(0)

    precise = two_precisions(compute, digits, stable=False)
    value, error = precise.value, precise.error
    return AccountedValue.exact(value, error, method=f"closed form, mpmath {digits} digits", digits=digits)


def _log_a_integer(alpha: int, q: float, sigma: float, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """log A_α for integer α, as log1p of A_α - 1 = Σ_{k>=2} C(α,k) (1-q)^(α-k) q^k expm1((k²-k)/(2σ²)),
    in ball arithmetic (arb): every rounding is enclosed.

    The binomial weights sum to 1, so subtracting them termwise leaves only positive
    terms: no cancellation even when A_α - 1 is far below the working precision. The powers
    and binomial coefficients follow their ratios from one term to the next.

    Returns:
        (log A_α, a rigorous bound on its absolute error).
    """
    from flint import arb, ctx  # python-flint: loaded on first use

    previous = ctx.prec
    ctx.prec = int(digits * 3.33) + 32
    try:
        rate, s = arb(q), arb(sigma)
        one_minus_q = 1 - rate
        two_sigma2 = 2 * s * s
        odds = rate / one_minus_q
        # weight_k = C(α,k) (1-q)^(α-k) q^k, from weight_0 = (1-q)^α
        weight = (alpha * one_minus_q.log()).exp()
        excess = arb(0)
        for k in range(1, alpha + 1):
            weight = weight * (alpha - k + 1) / k * odds
            if k >= 2:
                excess += weight * (arb(k * k - k) / two_sigma2).expm1()
        result = excess.log1p()
        return _to_mpf(result), _to_mpf(arb(result.rad()).upper())
    finally:
        ctx.prec = previous


def _log_a_fractional(alpha: float, q: float, sigma: float, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """log A_α for fractional α by the two-sided series of MTZ 2019, Sec. 3.3, with a tail bound,
    in ball arithmetic (arb, through python-flint): every operation's rounding is enclosed.

    A_α = Σ_k C(α,k) [ (1-q)^(α-k) q^k e^{(k²-k)/(2σ²)} Φ((z0-k)/σ)
                       + q^(α-k) (1-q)^k e^{(j²-j)/(2σ²)} Φ((j-z0)/σ) ],  j = α - k,
    z0 = σ² log(1/q - 1) + 1/2. Beyond K >= max(α+1, α-z0) both tails are bounded by
    |C(α,K)| (1-q)^α [G + e^{-z0²/(2σ²)} (K+1)^{α+1} K^{-α} / (2α)] per series, where
    G = e^{-Kc}/(1-e^{-c}), c = z0/(2σ²), covers the terms with k <= z0 (zero if K > z0);
    this uses |C(α,k+1)/C(α,k)| = (k-α)/(k+1) <= exp(-(α+1)/(k+1)) and e^{u²/2}Φ(-u) <= 1/2.

    The exponential factors follow their ratios (each term's is the previous one times a
    geometric factor), so a term costs two multiplications and two erfc. The series is summed
    until the tail bound is below 10^(-digits/2) of the partial sum, or to 4,000 terms (the tail
    decays only polynomially in K); the tail bound, evaluated every 32 terms, joins the ball's
    radius in the returned error.

    Returns:
        (log A_α, a rigorous bound on its absolute error: rounding and truncation).
    """
    from flint import arb, ctx  # python-flint: loaded on first use

    previous = ctx.prec
    ctx.prec = int(digits * 3.33) + 32
    try:
        a, rate, s = arb(alpha), arb(q), arb(sigma)
        one_minus_q = 1 - rate
        two_sigma2 = 2 * s * s
        z0 = s * s * (1 / rate - 1).log() + arb(1) / 2
        sqrt2_sigma = s * arb(2).sqrt()
        k_min = math.ceil(max(alpha + 1, alpha - float(z0.mid()), 2.0)) + 1  # + 1: z0's rounding
        # first_k = (1-q)^(α-k) q^k e^{(k²-k)/(2σ²)}: ratio first_{k+1}/first_k = (q/(1-q)) e^{k/σ²}
        # second_k = q^(α-k) (1-q)^k e^{(j²-j)/(2σ²)}: ratio = ((1-q)/q) e^{(1-j)/σ²} with j = α - k
        first = (alpha * one_minus_q.log()).exp()
        second = (a * rate.log() + (a * a - a) / two_sigma2).exp()
        odds, step = rate / one_minus_q, (1 / (s * s)).exp()
        grow_first = arb(1)  # e^{k/σ²}
        shrink_second = ((1 - a) / (s * s)).exp()  # e^{(1-j)/σ²} at k = 0
        total, coefficient, tolerance = arb(0), arb(1), arb(10) ** (-(digits // 2))
        k = 0
        while True:
            j = a - k
            term = first * ((k - z0) / sqrt2_sigma).erfc() + second * ((z0 - j) / sqrt2_sigma).erfc()
            total += coefficient * term / 2
            first *= odds * grow_first
            grow_first *= step
            second *= shrink_second / odds
            shrink_second *= step
            coefficient = coefficient * (a - k) / (k + 1)
            k += 1
            if k >= k_min and ((k - k_min) % _TAIL_STRIDE == 0 or k >= _MAX_SERIES_TERMS):
                tail = _fractional_tail_bound(a, k, rate, s, z0, abs(coefficient))
                if (tail <= abs(total) * tolerance) is True or k >= _MAX_SERIES_TERMS:
                    break
        low, high = total.lower() - tail.upper(), total.upper() + tail.upper()
        if not low > 0:
            raise NumericalError(f"MTZ series for alpha={alpha}, q={q}, sigma={sigma} gave no positive A_alpha")
        log_low, log_high = arb(low).log().lower(), arb(high).log().upper()
        centre = (log_low + log_high) / 2  # a ball: its midpoint is within its radius of the true centre
        return _to_mpf(centre), _to_mpf(((log_high - log_low) / 2 + centre.rad()).upper())
    finally:
        ctx.prec = previous


def _to_mpf(value: Any) -> mpmath.mpf:
    """An arb's midpoint (exact binary) as an mpmath number."""
    mantissa, exponent = value.mid().man_exp()
    return mpmath.mpf((int(mantissa), int(exponent)))


def _fractional_tail_bound(alpha: Any, k_first: int, q: Any, sigma: Any, z0: Any, coefficient: Any) -> Any:
    """Bound (an arb) on Σ_{k>=K} of both series' terms in absolute value (see
    :func:`_log_a_fractional`); ``coefficient`` is |C(α, K)|."""
    from flint import arb

    big_k = arb(k_first)
    base = coefficient * (1 - q) ** alpha
    far = (-(z0 * z0) / (2 * sigma * sigma)).exp() * (big_k + 1) ** (alpha + 1) / big_k**alpha / (2 * alpha)
    rate = z0 / (2 * sigma * sigma)
    near = (-big_k * rate).exp() / (1 - (-rate).exp()) if (big_k <= z0) is True and (rate > 0) is True else 0
    return base * (near + far) + base * far


def poisson_gaussian_log_moment(
    alpha: float, q: float, sigma: float, *, digits: int = DEFAULT_DIGITS
) -> AccountedValue:
    """log A_α = log E_{N(0,σ²)}[((1-q) + q e^{(2z-1)/(2σ²)})^α]: (α-1) times the RDP of one step.

    Args:
        alpha: order α > 1 (integer or fractional).
        q: sampling probability, 0 < q < 1.
        sigma: noise standard deviation over sensitivity, σ > 0.
        digits: working precision (>= 50).

    Returns:
        The exact value with an error bound (two precisions plus, for fractional α,
        the series tail bound, summed until it is below 10^(-digits/2) relative).

    References:
        Mironov, Talwar, Zhang 2019, Sec. 3.3.
    """
    a = _check_order(alpha)
    rate = check_real("q", q, low=0.0, high=1.0, low_open=True, high_open=True)
    s = check_real("sigma", sigma, low=0.0, low_open=True)
    return _log_moment(float(a), float(rate), float(s), _check_digits(digits))


@functools.lru_cache(maxsize=4096)
def _log_moment(a: float, rate: float, s: float, digits: int) -> AccountedValue:
    """:func:`poisson_gaussian_log_moment` on checked arguments, computed once per point (the
    audit asks for the same (order, q, sigma) from several claims and obligations)."""
    if not a.is_integer():
        with mpmath.workdps(digits + 20):
            value, error = _log_a_fractional(a, rate, s, digits)
        method = f"MTZ two-sided series with tail bound, arb ball arithmetic at {digits} digits"
        return AccountedValue.exact(value, error, method=method, digits=digits)

    with mpmath.workdps(digits + 20):
        value, error = _log_a_integer(int(a), rate, s, digits)
    return AccountedValue.exact(
        value, error, method=f"MTZ binomial sum, arb ball arithmetic at {digits} digits", digits=digits
    )


def poisson_gaussian_rdp(alpha: float, q: float, sigma: float, *, digits: int = DEFAULT_DIGITS) -> AccountedValue:
    """Exact RDP of one step of the Poisson-subsampled Gaussian mechanism (add/remove).

    ε(α) = log(A_α) / (α - 1) for the pair ((1-q) N(0,σ²) + q N(1,σ²), N(0,σ²)); MTZ 2019
    Theorem 5 shows this order of the pair dominates the reverse one, so this is the RDP
    of the mechanism under add/remove-one.

    Returns:
        The exact value with its error bound (see :func:`poisson_gaussian_log_moment`).

    References:
        Mironov, Talwar, Zhang 2019, Sec. 3.3 and Theorem 5.
    """
    log_moment = poisson_gaussian_log_moment(alpha, q, sigma, digits=digits)
    with mpmath.workdps(log_moment.digits):
        scale = 1 / (mpmath.mpf(alpha) - 1)
        return AccountedValue.exact(
            log_moment.value * scale, log_moment.error * scale, method=log_moment.method, digits=log_moment.digits
        )


def _forward_difference(order: int, sigma: mpmath.mpf) -> mpmath.mpf:
    """Δ^(ℓ) = Σ_i (-1)^(ℓ-i) C(ℓ,i) e^{(i-1)ε(i)} with ε(i) = i/(2σ²): E_Q[(P/Q - 1)^ℓ] of the Gaussian pair."""
    return mpmath.fsum(
        (-1) ** (order - i) * mpmath.binomial(order, i) * mpmath.exp(mpmath.mpf((i - 1) * i) / (2 * sigma**2))
        for i in range(order + 1)
    )


def wor_gaussian_rdp_upper(
    alpha: int, q: float, sigma: float, *, theorem: int = 27, digits: int = DEFAULT_DIGITS
) -> AccountedValue:
    """Upper bound on the RDP of the Gaussian mechanism run on a subsample drawn without replacement.

    The base mechanism has RDP ε(j) = j/(2σ²) under replace-one of the subsample (σ
    already divided by the replace-one sensitivity), and ε(∞) = ∞, so min{2, (e^{ε(∞)}-1)^j} = 2.

    Theorem 9: ε'(α) <= log(1 + γ² C(α,2) min{4(e^{ε(2)}-1), 2e^{ε(2)}}
                          + Σ_{j=3..α} 2 γ^j C(α,j) e^{(j-1)ε(j)}) / (α-1).
    Theorem 27 replaces each j >= 3 term by γ^j C(α,j) min{4 sqrt(Δ^(2⌊j/2⌋) Δ^(2⌈j/2⌉)), 2 e^{(j-1)ε(j)}},
    Δ^(ℓ) the ℓ-th forward difference of e^{(i-1)ε(i)}; it applies to the Gaussian, whose
    worst pair is the same for every order (WBK 2019, Definition 26). Both are also capped by
    the base RDP α/(2σ²) (subsampling never hurts).

    Args:
        alpha: integer order α >= 2.
        q: the sampling ratio γ = (subsample size)/(dataset size), 0 < γ <= 1.
        sigma: noise standard deviation over the base sensitivity.
        theorem: 9 or 27.

    Returns:
        An upper bound (kind ``upper bound``): the formula evaluated in mpmath, rounded up by
        its two-precision error.

    References:
        Wang, Balle, Kasiviswanathan 2019, Theorems 9 and 27.
    """
    order = check_integer("alpha", alpha, low=2)
    gamma = check_real("q", q, low=0.0, high=1.0, low_open=True)
    s = check_real("sigma", sigma, low=0.0, low_open=True)
    theorem = check_integer("theorem", theorem)
    if theorem not in (9, 27):
        raise NumericalError(f"theorem={theorem}: expected 9 or 27")
    digits = _check_digits(digits)
    guard = order + int(order * order / (2 * s * s) / 2.3) + 10

    def compute() -> tuple[mpmath.mpf, mpmath.mpf]:
        with mpmath.extradps(guard):
            g, ss = mpmath.mpf(gamma), mpmath.mpf(s)

            def eps(j: int) -> mpmath.mpf:
                return mpmath.mpf(j) / (2 * ss**2)

            second = g**2 * mpmath.binomial(order, 2) * min(4 * mpmath.expm1(eps(2)), 2 * mpmath.exp(eps(2)))
            higher = []
            for j in range(3, order + 1):
                linear = 2 * mpmath.exp((j - 1) * eps(j))
                if theorem == 27:
                    even_low, even_high = 2 * (j // 2), 2 * ((j + 1) // 2)
                    pearson = 4 * mpmath.sqrt(_forward_difference(even_low, ss) * _forward_difference(even_high, ss))
                    linear = min(linear, pearson)
                higher.append(g**j * mpmath.binomial(order, j) * linear)
            bound = mpmath.log(1 + second + mpmath.fsum(higher)) / (order - 1)
            return +min(bound, order / (2 * ss**2)), mpmath.mpf(0)

    precise = two_precisions(compute, digits, stable=False)
    value, error = precise.value, precise.error
    upper = mpmath.fadd(value, error, exact=True)
    return AccountedValue(
        upper, mpmath.ninf, upper, UPPER_BOUND, f"WBK 2019 Theorem {theorem}, mpmath {digits} digits", digits, error
    )


def compose_rdp(per_step: AccountedValue, steps: int) -> AccountedValue:
    """RDP of ``steps`` adaptive compositions: ε_T(α) = T ε(α) (Mironov 2017, Prop. 1).

    Returns the per-step value scaled by ``steps``; the enclosure and direction carry over
    (composition is an upper bound for adaptive composition and exact for independent
    identical steps).
    """
    count = check_integer("steps", steps, low=1)
    return per_step.scaled(count)


def moment_from_rdp(rdp_at_lambda_plus_one: AccountedValue, lam: float) -> AccountedValue:
    """The log moment α_M(λ) = λ D_{λ+1}(M(d) ‖ M(d')) from the RDP at order λ + 1.

    References:
        Xie et al. 2019, eq. (B.15); Abadi et al. 2016, Sec. 3.2 (moments accountant).
    """
    factor = check_real("lam", lam, low=0.0, low_open=True)
    return rdp_at_lambda_plus_one.scaled(mpmath.mpf(factor))
