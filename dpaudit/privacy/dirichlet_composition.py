"""Composition of the Dirichlet mechanism over the rows of a transition matrix (Renyi and
count-event bounds) and the concentration tails of Lemma 2.

References:
    Gohari et al. 2020, Algorithm 1 and Lemma 2; Mironov 2017 (Renyi composition).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.privacy.dirichlet_pair import (
    DEFAULT_DIGITS,
    BetaPair,
    _float64_tails,
    _log_beta,
    beta_pair_delta,
    beta_pair_loss_tails,
    check_open_simplex,
)

__all__ = ["composition_delta_bounds", "concentration_tail_bounds"]


def _renyi_moment_log(order_minus_one: mpmath.mpf, pair: BetaPair) -> mpmath.mpf:
    """log E_p[exp(λ loss)] = log ∫ f_p^{1+λ} f_q^{−λ} for the Beta pair (closed form; +inf if divergent)."""
    lam = order_minus_one
    a = pair.a_p + lam * (pair.a_p - pair.a_q)
    b = pair.b_p + lam * (pair.b_p - pair.b_q)
    if a <= 0 or b <= 0:
        return mpmath.inf
    return _log_beta(a, b) - (1 + lam) * _log_beta(pair.a_p, pair.b_p) + lam * _log_beta(pair.a_q, pair.b_q)


def _best_count_event(epsilon: float, pair: BetaPair, rows: int, thresholds: int) -> tuple[float, int]:
    """The (t, j) of the event {at least j rows have loss > t} with the largest float64 excess."""
    from scipy.stats import binom

    best, chosen = -math.inf, (epsilon, 1)
    span = max(epsilon, 1.0)
    for t in np.linspace(-span, 1.5 * span, thresholds):
        tail_p, tail_q = _float64_tails(float(t), pair)
        needed = np.arange(1, rows + 1)
        excess = binom.sf(needed - 1, rows, tail_p) - math.exp(epsilon) * binom.sf(needed - 1, rows, tail_q)
        index = int(np.argmax(excess))
        if excess[index] > best:
            best, chosen = float(excess[index]), (float(t), int(needed[index]))
    return chosen


def composition_delta_bounds(
    epsilon: float, pair: BetaPair, rows: int, *, thresholds: int = 300, digits: int = DEFAULT_DIGITS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Rigorous (lower, upper) bounds on δ(ε) of ``rows`` independent copies of one Dirichlet pair.

    This is the profile of Algorithm 1 when every one of the |S||A| rows may differ and each
    differs by the same (worst) b-adjacent pair.

    Lower bound: any event E gives δ(ε) >= P_p^m(E) − e^ε P_q^m(E). The events used are
    E_{t,j} = {at least j of the m rows have loss > t}, whose probabilities are binomial
    tails of the exact one-row tails (a regularised incomplete beta function); (t, j) is
    chosen on a float64 grid and the chosen event is then evaluated in mpmath.
    Upper bound: the smaller of basic composition, m · δ_1(ε / m) (Dwork & Roth 2014,
    Thm 3.16), and the Chernoff bound δ(ε) <= P_p[Σ loss > ε] <= exp(m K(λ) − λ ε), with
    K(λ) = log E_p[e^{λ loss}] in closed form (a ratio of Beta functions), minimised over a
    grid of λ.

    Returns:
        (lower, upper); the lower bound is reduced and the upper bound raised by a margin
        far above the working precision's rounding.

    References:
        Gohari et al. 2020, Sec. III-B (Algorithm 1 privatises every row independently);
        Dwork & Roth 2014, Thm 3.16; Mironov 2017, Prop. 10 (Rényi moments to (ε, δ)).
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    rows = check_integer("rows", rows, low=1)
    single = beta_pair_delta(eps / rows, pair, digits=digits)
    with mpmath.workdps(digits + 20):
        basic = rows * single.upper * (1 + mpmath.mpf(10) ** (-digits))
    with mpmath.workdps(digits):
        chernoff = mpmath.inf
        for lam in np.geomspace(1e-3, 1e3, thresholds):
            moment = _renyi_moment_log(mpmath.mpf(lam), pair)
            if mpmath.isfinite(moment):
                chernoff = min(chernoff, mpmath.exp(rows * moment - lam * mpmath.mpf(eps)))
        upper = min(mpmath.mpf(1), basic, chernoff * (1 + mpmath.mpf(10) ** (-(digits - 10))))
        best_t, best_j = _best_count_event(eps, pair, rows, thresholds)
        tail_p, tail_q = beta_pair_loss_tails(best_t, pair)
        count_p = mpmath.betainc(best_j, rows - best_j + 1, 0, tail_p, regularized=True)
        count_q = mpmath.betainc(best_j, rows - best_j + 1, 0, tail_q, regularized=True)
        best = max(mpmath.mpf(0), count_p - mpmath.exp(eps) * count_q)
        lower = best - mpmath.mpf(10) ** (-(digits - 10))
    return max(lower, mpmath.mpf(0)), upper


def concentration_tail_bounds(
    p: np.ndarray, k: float, radius: float, *, digits: int = DEFAULT_DIGITS
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Rigorous (lower, upper) bounds on P(‖M_D^(k)(p) − p‖∞ >= radius) from the Beta marginals.

    x_i ~ Beta(k p_i, k (1 − p_i)). Lower bound: max_i P(|x_i − p_i| >= r); upper bound:
    Σ_i P(|x_i − p_i| >= r) (union bound). For n = 2 the two coincide with the exact value
    (x_2 − p_2 = −(x_1 − p_1)), and the bounds are returned equal.

    References:
        Gohari et al. 2020, Lemma 2 and Appendix A (Beta marginals).
    """
    vector = check_open_simplex("p", p)
    k = check_real("k", k, low=0.0, low_open=True)
    r = check_real("radius", radius, low=0.0)
    with mpmath.workdps(digits):
        tails = []
        for component in vector:  # Beta(k p_i, k (1 − p_i)) of the binary inputs, not of their float products
            a, rest = mpmath.mpf(k) * component, mpmath.mpf(k) * (1 - mpmath.mpf(component))
            left = mpmath.mpf(component) - r
            right = mpmath.mpf(component) + r
            tail = mpmath.mpf(0)
            if left >= 0:
                tail += mpmath.betainc(a, rest, 0, left, regularized=True)
            if right <= 1:
                tail += mpmath.betainc(a, rest, right, 1, regularized=True)
            tails.append(tail)
        lower = max(tails)
        upper = lower if vector.size == 2 else min(mpmath.mpf(1), mpmath.fsum(tails))
        slack = mpmath.mpf(10) ** (-(digits - 10))
        return max(lower - slack, mpmath.mpf(0)), upper + slack
