"""From Rényi DP or log moments to (ε, δ)-DP: every conversion returns an upper bound.

Each function takes per-order bounds as :class:`AccountedValue` (their upper ends are
used, so an exact input with an error bound stays sound), evaluates the conversion in
mpmath, and returns the best (smallest) bound over the given orders, rounded up.

References:
    Mironov 2017, Prop. 3 (classic RDP → DP).
    Canonne, Kamath, Steinke 2020, Prop. 12; Balle et al. 2020, Theorem 21 (improved).
    Abadi et al. 2016, Theorem 2 (moments accountant tail bound; Xie et al. 2019, Theorem 4).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import mpmath

from dpaudit._validation import check_real
from dpaudit.errors import InvalidArgument
from dpaudit.privacy.accounting.values import UPPER_BOUND, AccountedValue

__all__ = [
    "moments_tail_delta",
    "moments_tail_epsilon",
    "rdp_curve_to_epsilon",
    "rdp_to_epsilon_classic",
    "rdp_to_epsilon_improved",
    "zcdp_to_epsilon",
]

_DIGITS = 60
_ROUND_UP = mpmath.mpf(10) ** -50


def _pairs(orders: Sequence[float], values: Sequence[AccountedValue], low: float, name: str) -> list[tuple]:
    orders = list(orders)
    values = list(values)
    if not orders or len(orders) != len(values):
        raise InvalidArgument(f"{name} and values: expected two non-empty sequences of equal length")
    checked = [check_real(f"{name}[{i}]", order, low=low, low_open=True) for i, order in enumerate(orders)]
    for i, value in enumerate(values):
        if not isinstance(value, AccountedValue):
            raise InvalidArgument(f"values[{i}]={value!r}: expected an AccountedValue")
    return list(zip(checked, values, strict=False))


def _best(candidates: list[tuple[mpmath.mpf, float]], method: str) -> AccountedValue:
    bound, argument = min(candidates, key=lambda item: item[0])
    bound = bound + abs(bound) * _ROUND_UP
    return AccountedValue(bound, mpmath.mpf(0), bound, UPPER_BOUND, f"{method} (best at {argument:g})", _DIGITS)


def rdp_to_epsilon_classic(orders: Sequence[float], rdp: Sequence[AccountedValue], delta: float) -> AccountedValue:
    """ε(δ) <= min_α ε(α) + log(1/δ)/(α - 1).

    References:
        Mironov 2017, Prop. 3.
    """
    target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    with mpmath.workdps(_DIGITS):
        candidates = [
            (mpmath.mpf(value.upper) + mpmath.log(1 / mpmath.mpf(target)) / (mpmath.mpf(order) - 1), order)
            for order, value in _pairs(orders, rdp, 1.0, "orders")
        ]
        return _best(candidates, "RDP to DP, Mironov 2017 Prop. 3")


def rdp_to_epsilon_improved(orders: Sequence[float], rdp: Sequence[AccountedValue], delta: float) -> AccountedValue:
    """ε(δ) <= min_α ε(α) + log((α-1)/α) - (log δ + log α)/(α - 1), floored at 0.

    References:
        Canonne, Kamath, Steinke 2020, Prop. 12; Balle et al. 2020, Theorem 21.
    """
    target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    with mpmath.workdps(_DIGITS):
        candidates = []
        for order, value in _pairs(orders, rdp, 1.0, "orders"):
            a = mpmath.mpf(order)
            bound = mpmath.mpf(value.upper) + mpmath.log((a - 1) / a) - (mpmath.log(target) + mpmath.log(a)) / (a - 1)
            candidates.append((max(bound, mpmath.mpf(0)), order))
        return _best(candidates, "RDP to DP, Canonne-Kamath-Steinke 2020 Prop. 12")


def moments_tail_delta(lambdas: Sequence[float], moments: Sequence[AccountedValue], epsilon: float) -> AccountedValue:
    """δ = min_λ exp(α(λ) - λ ε), capped at 1: the moments-accountant tail bound.

    Args:
        lambdas: moment orders λ > 0.
        moments: bounds on the log moments α(λ) of the whole mechanism (upper ends used).
        epsilon: ε > 0.

    References:
        Abadi et al. 2016, Theorem 2 (tail bound); Xie et al. 2019, Theorem 4, eq. (B.21).
    """
    eps = check_real("epsilon", epsilon, low=0.0, low_open=True)
    with mpmath.workdps(_DIGITS):
        candidates = [
            (min(mpmath.exp(mpmath.mpf(value.upper) - mpmath.mpf(lam) * eps), mpmath.mpf(1)), lam)
            for lam, value in _pairs(lambdas, moments, 0.0, "lambdas")
        ]
        return _best(candidates, "moments accountant tail bound, Abadi et al. 2016 Thm 2")


def moments_tail_epsilon(lambdas: Sequence[float], moments: Sequence[AccountedValue], delta: float) -> AccountedValue:
    """ε = min_λ (α(λ) + log(1/δ))/λ: the tail bound solved for ε.

    References:
        Abadi et al. 2016, Theorem 2.
    """
    target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    with mpmath.workdps(_DIGITS):
        candidates = [
            ((mpmath.mpf(value.upper) + mpmath.log(1 / mpmath.mpf(target))) / mpmath.mpf(lam), lam)
            for lam, value in _pairs(lambdas, moments, 0.0, "lambdas")
        ]
        return _best(candidates, "moments accountant tail bound solved for epsilon, Abadi et al. 2016 Thm 2")


#: Orders α at which :func:`zcdp_to_epsilon` evaluates the conversion: 1 + 10^(-3..4), log-spaced.
_ZCDP_ORDERS = tuple(1.0 + 10 ** (k / 200) for k in range(-600, 801))


@functools.lru_cache(maxsize=64)
def _rounded_up(upper: mpmath.mpf) -> float:
    rounded = float(upper)
    return rounded if mpmath.mpf(rounded) >= upper else math.nextafter(rounded, math.inf)


def rdp_curve_to_epsilon(orders: Sequence[float], epsilons: Sequence[float], delta: float) -> float:
    """An upper bound on ε(δ) of every mechanism that is (α, ε(α))-RDP at each listed order: the best
    over the orders of :func:`rdp_to_epsilon_improved`, rounded up to a float (an infinite ε(α) gives
    nothing at its order).

    References:
        Mironov 2017, Def. 4 (RDP); Canonne, Kamath & Steinke 2020, Prop. 12.
    """
    with mpmath.workdps(_DIGITS):
        finite = [(order, mpmath.mpf(value)) for order, value in zip(orders, epsilons, strict=True)]
        finite = [(order, value) for order, value in finite if mpmath.isfinite(value)]
        if not finite:
            return math.inf
        rdp = [AccountedValue(value, mpmath.mpf(0), value, UPPER_BOUND, "stated", _DIGITS) for _, value in finite]
        return _rounded_up(rdp_to_epsilon_improved([order for order, _ in finite], rdp, delta).upper)


@functools.lru_cache(maxsize=256, typed=True)  # typed: True is refused, never taken for 1.0
def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """An upper bound on ε(δ) of every ρ-zCDP mechanism: ρ-zCDP is RDP with ε(α) = ρα, converted by
    :func:`rdp_to_epsilon_improved` on a grid of orders and rounded up to a float (remembered: a claim's
    guarantee asks it once per obligation, 0.2 s each).

    References:
        Bun & Steinke 2016, Def. 1.1 (zCDP as RDP); Canonne, Kamath & Steinke 2020, Prop. 12.
    """
    value = check_real("rho", rho, low=0.0, low_open=True)
    with mpmath.workdps(_DIGITS):
        rdp = []
        for order in _ZCDP_ORDERS:
            bound = mpmath.mpf(value) * mpmath.mpf(order)
            rdp.append(AccountedValue(bound, mpmath.mpf(0), bound, UPPER_BOUND, "rho alpha", _DIGITS))
        return _rounded_up(rdp_to_epsilon_improved(_ZCDP_ORDERS, rdp, delta).upper)
