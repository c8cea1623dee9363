"""GPOPE's noise multiplier for a target (ε, δ) from dpaudit's Rényi-DP accountant (add/remove-one).

One step of Algorithm 1 (Xie et al. 2019) releases B̄_j + h·N(0, σ² I) for one record j
drawn uniformly from the dataset. For neighbours D' = D ∪ {x} with |D'| = m the step's
output laws are P = (1 − q)Q + q·N(B̄_x, h²σ²) and Q = (1/(m−1)) Σ_j N(B̄_j, h²σ²),
q = 1/m. Joint convexity of (P, Q) ↦ E_Q[(P/Q)^α] bounds E_Q[(P/Q)^α] by the average
over j of the same quantity for the two-point pair ((1 − q)N(B̄_j) + qN(B̄_x), N(B̄_j)),
whose means are at most 2h apart (both clipped to norm h): a Poisson-subsampled
Gaussian of rate q with noise σ/2 in units of the sensitivity, for which MTZ 2019
compute the exact RDP and show the reverse order is dominated. Adaptive composition
over N steps adds RDP; the conversion to (ε, δ) is Canonne–Kamath–Steinke's. Every
step errs on the safe side (upper bounds on ε), so the σ returned is sufficient.

References:
    Mironov, Talwar, Zhang 2019, Sec. 3.3 and Theorem 5; Mironov 2017, Prop. 1;
    Canonne, Kamath, Steinke 2020, Prop. 12; Xie et al. 2019, Algorithm 1, Theorem 1.
"""

from __future__ import annotations

import math
from functools import lru_cache

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import NumericalError
from dpaudit.privacy.accounting.conversions import rdp_to_epsilon_improved
from dpaudit.privacy.accounting.rdp import compose_rdp, poisson_gaussian_rdp

__all__ = ["RDP_ORDERS", "gpope_epsilon_add_remove", "gpope_noise_multiplier_add_remove"]

RDP_ORDERS = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128, 256)
"""The Rényi orders the accountant minimises over (integers: the exact MTZ binomial sum)."""


@lru_cache(maxsize=512)
def gpope_epsilon_add_remove(noise_multiplier: float, delta: float, m: int, iterations: int) -> float:
    """An upper bound on the ε of N GPOPE steps at δ under add/remove-one, records m >= 2.

    Args:
        noise_multiplier: σ > 0 of Algorithm 1 (noise h·σ for clip norm h).
        delta: δ in (0, 1).
        m: dataset size (the larger of the two neighbours), so q = 1/m.
        iterations: N >= 1.

    Returns:
        ε, an upper bound (the accountant's upper end, rounded up).
    """
    sigma = check_real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    dlt = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    records = check_integer("m", m, low=2)
    steps = check_integer("iterations", iterations, low=1)
    per_order = [compose_rdp(poisson_gaussian_rdp(order, 1.0 / records, sigma / 2.0), steps) for order in RDP_ORDERS]
    return float(rdp_to_epsilon_improved(RDP_ORDERS, per_order, dlt).upper)


@lru_cache(maxsize=512)
def gpope_noise_multiplier_add_remove(
    epsilon: float, delta: float, m: int, iterations: int, *, relative_tolerance: float = 0.02
) -> float:
    """The smallest σ (within ``relative_tolerance``) whose accounted ε is at most ``epsilon``.

    Bisection on ln σ; the value returned is re-checked: its accounted ε is <= ``epsilon``.

    Raises:
        NumericalError: if no σ up to 10^4 meets the target.
    """
    target = check_real("epsilon", epsilon, low=0.0, low_open=True)
    tolerance = check_real("relative_tolerance", relative_tolerance, low=0.0, high=1.0, low_open=True)
    low, high = 0.05, 1.0
    while gpope_epsilon_add_remove(high, delta, m, iterations) > target:
        low, high = high, high * 4.0
        if high > 1e4:
            raise NumericalError(f"no noise multiplier <= 1e4 reaches epsilon={target!r} (m={m}, N={iterations})")
    while high / low > 1.0 + tolerance:
        middle = math.sqrt(low * high)
        if gpope_epsilon_add_remove(middle, delta, m, iterations) > target:
            low = middle
        else:
            high = middle
    if gpope_epsilon_add_remove(high, delta, m, iterations) > target:
        raise NumericalError(f"calibration re-check failed at sigma={high!r}")
    return high
