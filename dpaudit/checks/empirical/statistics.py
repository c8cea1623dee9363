"""Confidence bounds used by every Monte Carlo check: Clopper–Pearson and empirical Bernstein.

The scalar functions validate their arguments; the ``*_array`` forms are their
vectorised twins for event search (many candidate events at once).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidArgument

special = lazy_module("scipy.special")

__all__ = [
    "certifiable_ceiling",
    "clopper_pearson_interval",
    "clopper_pearson_lower",
    "clopper_pearson_lower_array",
    "clopper_pearson_upper",
    "clopper_pearson_upper_array",
    "delta_lower_bound",
    "empirical_bernstein_lower",
    "epsilon_lower_bound",
    "epsilon_lower_bound_array",
    "rare_event_objective",
    "samples_to_exceed",
    "smallest_detectable_probability",
    "smallest_refuting_count",
]


def _checked_counts(successes: int, trials: int, alpha: float) -> tuple[int, int, float]:
    n = check_integer("trials", trials, low=1)
    k = check_integer("successes", successes, low=0, high=n)
    a = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    return k, n, a


def clopper_pearson_lower(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper–Pearson lower bound: P[p >= bound] >= 1 − alpha.

    Args:
        successes: k, the number of trials in the event (0 <= k <= n).
        trials: n >= 1.
        alpha: the error probability, 0 < alpha < 1.

    Returns:
        The alpha quantile of Beta(k, n − k + 1); 0 when k = 0.

    Raises:
        InvalidArgument, InvalidType: for counts or alpha out of range.

    References:
        Clopper & Pearson 1934, Biometrika 26(4).
    """
    k, n, a = _checked_counts(successes, trials, alpha)
    if k == 0:
        return 0.0
    return float(special.betaincinv(k, n - k + 1, a))


def clopper_pearson_upper(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper bound: P[p <= bound] >= 1 − alpha.

    Returns:
        The 1 − alpha quantile of Beta(k + 1, n − k); 1 when k = n.

    References:
        Clopper & Pearson 1934.
    """
    k, n, a = _checked_counts(successes, trials, alpha)
    if k == n:
        return 1.0
    return 1.0 - float(special.betaincinv(n - k, k + 1, a))


def clopper_pearson_interval(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval at ``confidence`` (each tail gets (1 − confidence) / 2).

    References:
        Clopper & Pearson 1934.
    """
    level = check_real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    alpha = (1.0 - level) / 2.0
    return clopper_pearson_lower(successes, trials, alpha), clopper_pearson_upper(successes, trials, alpha)


def _array_counts(successes: np.ndarray, trials: int, alpha: float) -> tuple[np.ndarray, int, float]:
    n = check_integer("trials", trials, low=1)
    a = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    k = np.asarray(successes)
    if not np.issubdtype(k.dtype, np.integer) or (k.size and (k.min() < 0 or k.max() > n)):
        raise InvalidArgument(f"successes: expected integer counts in [0, {n}]")
    return k.astype(np.float64), n, a


#: Bounds already inverted, one table per (side, trials, alpha) indexed by the count (NaN: not yet). An event
#: search asks for the same few thousand counts of one pilot or selection size many times over (every pair,
#: projection, order and objective), and the inverse regularised beta function is most of its time.
_BOUNDS: dict[tuple[str, int, float], np.ndarray] = {}
#: The most bounds remembered in all (16 MiB); the tables are emptied when a new one would pass it, and a trial
#: count of half of it or more is not remembered.
_BOUNDS_ENTRIES = 1 << 21


def _remembered(
    side: str, counts: np.ndarray, trials: int, alpha: float, bound: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``bound(counts)``, each count's bound computed once per (side, trials, alpha) and then looked up (the
    same numbers: the inversion is elementwise)."""
    if 2 * (trials + 1) > _BOUNDS_ENTRIES:
        values, inverse = np.unique(counts, return_inverse=True)  # each distinct count inverted once
        return bound(values)[inverse.reshape(counts.shape)]
    table = _BOUNDS.get((side, trials, alpha))
    if table is None:
        if sum(kept.size for kept in _BOUNDS.values()) + trials + 1 > _BOUNDS_ENTRIES:
            _BOUNDS.clear()
        table = _BOUNDS[(side, trials, alpha)] = np.full(trials + 1, np.nan)
    index = counts.astype(np.int64)
    found = table[index]
    missing = np.isnan(found)
    if missing.any():
        new = np.unique(index[missing])
        table[new] = bound(new.astype(np.float64))
        found = table[index]
    return found


def clopper_pearson_lower_array(successes: np.ndarray, trials: int, alpha: float) -> np.ndarray:
    """Vectorised :func:`clopper_pearson_lower` over an integer array of counts."""
    k, n, a = _array_counts(successes, trials, alpha)
    bound = _remembered("lower", k, n, a, lambda v: special.betaincinv(np.maximum(v, 1.0), n - v + 1.0, a))
    return np.where(k == 0, 0.0, bound)


def clopper_pearson_upper_array(successes: np.ndarray, trials: int, alpha: float) -> np.ndarray:
    """Vectorised :func:`clopper_pearson_upper` over an integer array of counts."""
    k, n, a = _array_counts(successes, trials, alpha)
    bound = _remembered("upper", k, n, a, lambda v: 1.0 - special.betaincinv(np.maximum(n - v, 1.0), v + 1.0, a))
    return np.where(k == n, 1.0, bound)


def epsilon_lower_bound(p_lower: float, q_upper: float, delta: float) -> float:
    """The ε implied by an event E with P[M(X) ∈ E] >= p_lower and P[M(X') ∈ E] <= q_upper.

    (ε, δ)-DP requires p <= e^ε q + δ, so any ε below ln((p_lower − δ) / q_upper) is
    refuted. Returns ``-inf`` when p_lower <= δ (the event refutes nothing) and ``inf``
    when q_upper is 0.

    References:
        Dwork & Roth 2014, Def. 2.4; Jagielski, Ullman & Oprea 2020, Sec. 4 (auditing by events).
    """
    if p_lower <= delta:
        return -math.inf
    if q_upper <= 0.0:
        return math.inf
    return float(np.log((p_lower - delta) / q_upper))


def epsilon_lower_bound_array(p_lower: np.ndarray, q_upper: np.ndarray, delta: float) -> np.ndarray:
    """Vectorised :func:`epsilon_lower_bound`."""
    p = np.asarray(p_lower, dtype=np.float64)
    q = np.asarray(q_upper, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.log(np.maximum(p - delta, 0.0)) - np.log(q)
    bound = np.where(q <= 0.0, math.inf, bound)
    return np.where(p <= delta, -math.inf, bound)


def delta_lower_bound(p_lower: float, q_upper: float, epsilon: float) -> float:
    """The δ implied at ``epsilon`` by an event with P[M(X) ∈ E] >= p_lower, P[M(X') ∈ E] <= q_upper.

    Returns p_lower − e^ε q_upper (negative when the event refutes nothing).

    References:
        Dwork & Roth 2014, Def. 2.4.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    return float(p_lower - math.exp(eps) * q_upper)


def empirical_bernstein_lower(mean: float, variance: float, samples: int, alpha: float) -> float:
    """Lower confidence bound on E[Z] for i.i.d. Z in [0, 1] from its sample mean and variance.

    Args:
        mean: the sample mean of n values in [0, 1].
        variance: their unbiased sample variance.
        samples: n >= 2.
        alpha: the error probability.

    Returns:
        mean − sqrt(2 V ln(2/α) / n) − 7 ln(2/α) / (3 (n − 1)), which is <= E[Z] with
        probability >= 1 − alpha.

    References:
        Maurer & Pontil 2009, "Empirical Bernstein bounds and sample variance penalization",
        Theorem 4 (applied one-sided to 1 − Z, which keeps the same constants).
    """
    n = check_integer("samples", samples, low=2)
    a = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True, high_open=True)
    m = check_real("mean", mean, low=0.0, high=1.0)
    v = check_real("variance", variance, low=0.0)
    log_term = math.log(2.0 / a)
    return m - math.sqrt(2.0 * v * log_term / n) - 7.0 * log_term / (3.0 * (n - 1))


def certifiable_ceiling(trials: int, alpha: float, delta: float) -> float:
    """The largest ε lower bound any event can certify with ``trials`` draws per side at error
    ``alpha`` per bound: every draw on one side in the event, none on the other.

    A claim at or above it cannot be refuted by this budget, whatever the mechanism does.
    """
    return epsilon_lower_bound(
        clopper_pearson_lower(trials, trials, alpha), clopper_pearson_upper(0, trials, alpha), delta
    )


def samples_to_exceed(epsilon: float, alpha: float, delta: float, *, start: int) -> int | None:
    """The fewest draws per side (a power of two times ``start``) whose ceiling exceeds ``epsilon``,
    or ``None`` when no budget below the sample ceiling does (δ too close to 1)."""
    trials = max(int(start), 1)
    while trials <= 2**40:
        if certifiable_ceiling(trials, alpha, delta) > epsilon:
            return trials
        trials *= 2
    return None


def smallest_refuting_count(q_count: int, trials: int, alpha: float, delta: float, epsilon: float) -> int | None:
    """The fewest draws in an event on one side (of ``trials``) that certify more than ``epsilon``
    when the other side has ``q_count`` in it: the smallest k with
    CP_lower(k) > δ + e^ε CP_upper(q_count). ``None`` when even k = ``trials`` does not."""
    need = delta + math.exp(epsilon) * clopper_pearson_upper(q_count, trials, alpha)
    if clopper_pearson_lower(trials, trials, alpha) <= need:
        return None
    low, high = q_count - 1, trials  # the count at high certifies; below q_count nothing can
    while high - low > 1:
        middle = (low + high) // 2
        if clopper_pearson_lower(middle, trials, alpha) > need:
            high = middle
        else:
            low = middle
    return high


def smallest_detectable_probability(trials: int, alpha: float, delta: float, epsilon: float) -> float | None:
    """The smallest P[M(X) ∈ E] whose expected count certifies more than ``epsilon`` when
    P[M(X') ∈ E] = 0 (an event only one side can produce: an atom, a skipped noise branch).

    ``None`` when even P = 1 does not (the budget is too small for the claim).
    """
    count = smallest_refuting_count(0, trials, alpha, delta, epsilon)
    return None if count is None else count / trials


def rare_event_objective(
    p_counts: np.ndarray, q_counts: np.ndarray, trials: int, delta: float, epsilon: float | None
) -> np.ndarray:
    """The plug-in log ratio ln((p/n − δ) / ((q + 1)/n)) of each event (one pseudo-count on the q side),
    by which the selection's rare lane picks an event too rare for its size to certify; −inf for the
    events whose counts as seen (no pseudo-count) are not past the claim: an atom seen once on one side
    only stays, the whole output space or an atom's complement (no evidence against the claim) does not."""
    plug_in = np.maximum(p_counts / trials - delta, 1e-300) / ((q_counts + 1) / trials)
    ratio = math.exp(0.0 if epsilon is None else epsilon)
    seen = (p_counts > 0) & (p_counts - trials * delta > q_counts * ratio)
    return np.where(seen, np.log(plug_in), -np.inf)
