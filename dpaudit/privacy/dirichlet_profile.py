"""Exact privacy profile of the Dirichlet mechanism on b-adjacent inputs, and the ACC 2020 statement.

Reduction. Let p, q be b-adjacent (Gohari et al. 2020, Def. 1): they differ only in the
coordinates i, j, with q_i = p_i + d, q_j = p_j − d, 0 < |d| <= b/2. For x ~ Dir(k p),

    log f_p(x) / f_q(x) = log B(k q) − log B(k p) − k d · log(x_i / x_j),

and B(kq)/B(kp) = Beta(k q_i, k q_j) / Beta(k p_i, k p_j) because the other components and
the total are shared. The loss depends on x only through U = x_i / (x_i + x_j), which is
Beta(k p_i, k p_j) under p and Beta(k q_i, k q_j) under q (aggregation property of the
Dirichlet law). The loss is monotone in logit(U), so the event {loss > ε} is a one-sided
interval of U and

    δ(ε) = P_p[loss > ε] − e^ε P_q[loss > ε]

is a difference of two regularised incomplete beta functions, computed here in mpmath at two
working precisions (the difference bounds the error).

Worst pair. The profile depends on (k p_i, k p_j, k d) only. For fixed k p_i and pair mass,
{Beta(a, S − a)} is a one-parameter exponential family in a (sufficient statistic logit(u)),
which has a monotone likelihood ratio; by Karlin–Rubin the most powerful test's power grows
with the shift, so the trade-off curve falls and δ(ε) grows with |d|: the worst shift is
|d| = b/2. The position of the pair inside the admissible box is searched on a grid, and
the location of the maximiser is reported (it is expected at the box's edge, where a
component is smallest, because log Γ is convex); see :func:`worst_pair_delta`.

References:
    Gohari, Hale, Topcu 2020, Def. 1 (b-adjacency), Sec. II-D (density);
    Gohari, Wu, Hale, Topcu, ACC 2020 (privacy of the Dirichlet mechanism);
    Balle et al. 2018, "Privacy amplification by subsampling", Thm 1 (δ(ε) as a hockey-stick
    divergence); Lehmann & Romano, Testing Statistical Hypotheses, Thm 3.4.1 (Karlin–Rubin).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy import special, stats

from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.privacy.profiles import PreciseValue

__all__ = [
    "ACC2020_SOURCE",
    "SIMPLEX_ATOL",
    "BetaPair",
    "WorstPair",
    "acc2020_delta",
    "acc2020_epsilon",
    "beta_pair_delta",
    "beta_pair_delta_float64",
    "beta_pair_loss_tails",
    "check_open_simplex",
    "composition_delta_bounds",
    "concentration_tail_bounds",
    "dirichlet_pair",
    "dirichlet_pair_delta_quadrature",
    "privacy_loss_samples",
    "worst_pair_delta",
]

DEFAULT_DIGITS = 60

SIMPLEX_ATOL = 1e-12
"""Tolerance on |sum(p) - 1| for an input of the Dirichlet mechanism."""


def check_open_simplex(name: str, value: Any, *, eta: float | None = None, atol: float = SIMPLEX_ATOL) -> np.ndarray:
    """Return ``value`` as a vector of the open simplex Δ°(n), n >= 2 (every entry > 0, sum 1).

    Args:
        name: the argument's name, echoed in errors.
        value: the candidate vector.
        eta: an optional public lower bound; every entry must then be >= eta.
        atol: tolerance on the sum.

    Raises:
        InvalidArgument: naming the offending entry (zero, negative, below eta, non-finite)
            or the sum.

    References:
        Gohari et al. 2020, Sec. II-D (inputs p ∈ Δ°(n)).
    """
    vector = check_finite_array(name, value, ndim=1)
    if vector.size < 2:
        raise InvalidArgument(f"{name}: expected at least 2 entries, got shape {vector.shape}")
    bad = np.flatnonzero(vector <= 0.0)
    if bad.size:
        index = int(bad[0])
        raise InvalidArgument(
            f"{name}[{index}]={float(vector[index])!r}: expected every entry > 0 (the Dirichlet mechanism "
            "takes points of the open simplex; privatise rows on their support if zeros are structural)"
        )
    total = float(vector.sum())
    if abs(total - 1.0) > atol:
        raise InvalidArgument(f"{name}: entries sum to {total!r}, expected 1 within {atol:g}")
    if eta is not None:
        low = np.flatnonzero(vector < eta)
        if low.size:
            index = int(low[0])
            raise InvalidArgument(f"{name}[{index}]={float(vector[index])!r}: below the public lower bound eta={eta!r}")
    return vector


ACC2020_SOURCE = (
    "Gohari, Wu, Hale, Topcu, 'The Dirichlet Mechanism for Differential Privacy on the Unit Simplex', "
    "ACC 2020 (arXiv:1910.00043), identity-query theorem. RECONSTRUCTED: the theorem's text could not be "
    "retrieved; the form encoded is the one the proof technique gives (probabilistic DP with "
    "Omega_1 = Delta_gamma(n) = {x : x_i >= gamma}) and matches the re-implementation "
    "donlapark/Dirichlet-Mechanism experiments/prior_work.py::compute_epsilon (secondary source)."
)


@dataclass(frozen=True)
class BetaPair:
    """The one-dimensional reduction of a b-adjacent Dirichlet pair.

    Attributes:
        a_p, b_p: Beta parameters (k p_i, k p_j) of U = x_i / (x_i + x_j) under p.
        a_q, b_q: the same under q; a_p + b_p == a_q + b_q.
    """

    a_p: float
    b_p: float
    a_q: float
    b_q: float

    def __post_init__(self) -> None:
        for name in ("a_p", "b_p", "a_q", "b_q"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), low=0.0, low_open=True))
        total_p, total_q = self.a_p + self.b_p, self.a_q + self.b_q
        if abs(total_p - total_q) > 1e-12 * max(total_p, total_q):
            raise InvalidArgument(
                f"a_p + b_p = {total_p!r} but a_q + b_q = {total_q!r}: a b-adjacent pair keeps the pair's mass"
            )

    @property
    def shift(self) -> float:
        """k·d = a_q − a_p (positive: q moves mass into coordinate i)."""
        return self.a_q - self.a_p


def dirichlet_pair(p: np.ndarray, q: np.ndarray, k: float, *, atol: float = 1e-12) -> tuple[BetaPair, tuple[int, int]]:
    """Return the Beta reduction of the pair (p, q) and the two coordinates (i, j) where they differ.

    Raises:
        InvalidArgument: unless p and q lie in the open simplex and differ in exactly two
            coordinates with opposite, equal changes.

    References:
        Gohari et al. 2020, Def. 1.
    """
    k = check_real("k", k, low=0.0, low_open=True)
    p = check_open_simplex("p", p)
    q = check_open_simplex("q", q)
    if p.shape != q.shape:
        raise InvalidArgument(f"p and q: shapes differ, {p.shape} vs {q.shape}")
    differ = np.flatnonzero(p != q)
    if differ.size != 2:
        raise InvalidArgument(f"p and q: differ in {differ.size} coordinates {differ.tolist()}, expected exactly 2")
    i, j = (int(differ[0]), int(differ[1]))
    if abs((q[i] - p[i]) + (q[j] - p[j])) > atol:
        raise InvalidArgument(f"p and q: changes {q[i] - p[i]!r} and {q[j] - p[j]!r} do not cancel")
    return BetaPair(k * p[i], k * p[j], k * q[i], k * q[j]), (i, j)


def _two_precisions(compute: Callable[[], mpmath.mpf], digits: int) -> PreciseValue:
    try:
        with mpmath.workdps(digits):
            low = +compute()
        with mpmath.workdps(digits + 20):
            high = +compute()
    except ValueError as exc:  # mpmath's hypergeometric series did not converge
        raise NumericalError(f"incomplete beta function did not converge: {exc}") from exc
    with mpmath.workdps(digits + 20):
        error = abs(high - low) + abs(high) * mpmath.mpf(10) ** (-digits) + mpmath.mpf(10) ** (-2 * digits)
        if high != 0 and error > abs(high) * mpmath.mpf(10) ** (-(digits // 2)):
            raise NumericalError(
                f"value not stable between {digits} and {digits + 20} digits: "
                f"{mpmath.nstr(low, 15)} vs {mpmath.nstr(high, 15)}"
            )
        return PreciseValue(high, error, digits + 20)


def _log_beta(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)


def _loss_threshold(epsilon: mpmath.mpf, pair: BetaPair) -> tuple[mpmath.mpf, bool]:
    """u* and the side of the event {loss > ε}: True means U > u*, False means U < u*."""
    a_p, b_p, a_q, b_q = (mpmath.mpf(v) for v in (pair.a_p, pair.b_p, pair.a_q, pair.b_q))
    constant = _log_beta(a_q, b_q) - _log_beta(a_p, b_p)
    slope = a_p - a_q  # loss = constant + slope * logit(U)
    logit = (epsilon - constant) / slope
    return 1 / (1 + mpmath.exp(-logit)), slope > 0


def beta_pair_loss_tails(epsilon: float, pair: BetaPair) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Return (P_p[loss > ε], P_q[loss > ε]) at the current mpmath precision."""
    eps = mpmath.mpf(epsilon)
    if pair.a_p == pair.a_q:
        return mpmath.mpf(0), mpmath.mpf(0)
    threshold, upper = _loss_threshold(eps, pair)
    if upper:
        tail_p = mpmath.betainc(pair.a_p, pair.b_p, threshold, 1, regularized=True)
        tail_q = mpmath.betainc(pair.a_q, pair.b_q, threshold, 1, regularized=True)
    else:
        tail_p = mpmath.betainc(pair.a_p, pair.b_p, 0, threshold, regularized=True)
        tail_q = mpmath.betainc(pair.a_q, pair.b_q, 0, threshold, regularized=True)
    return tail_p, tail_q


def beta_pair_delta(epsilon: float, pair: BetaPair, *, digits: int = DEFAULT_DIGITS) -> PreciseValue:
    """The exact δ(ε) = sup_E P[M(p) ∈ E] − e^ε P[M(q) ∈ E] of one ordered Dirichlet pair.

    Args:
        epsilon: ε >= 0.
        pair: the Beta reduction of (p, q) (see :func:`dirichlet_pair`); inputs are taken
            as exact binary floats.
        digits: working precision (>= 50); the value is computed at ``digits`` and
            ``digits + 20`` and the difference reported as its error.

    Returns:
        δ(ε) with an absolute error bound.

    References:
        Gohari et al. 2020, Sec. II-D and Def. 1; the reduction in this module's docstring.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    digits = check_integer("digits", digits, low=50)

    def compute() -> mpmath.mpf:
        tail_p, tail_q = beta_pair_loss_tails(eps, pair)
        return tail_p - mpmath.exp(eps) * tail_q

    return _two_precisions(compute, digits)


def _float64_tails(epsilon: float, pair: BetaPair) -> tuple[float, float]:
    """(P_p[loss > ε], P_q[loss > ε]) in float64 (scipy)."""
    if pair.a_p == pair.a_q:
        return 0.0, 0.0
    constant = special.betaln(pair.a_q, pair.b_q) - special.betaln(pair.a_p, pair.b_p)
    slope = pair.a_p - pair.a_q
    threshold = special.expit((epsilon - constant) / slope)
    if slope > 0:
        return (
            float(special.betaincc(pair.a_p, pair.b_p, threshold)),
            float(special.betaincc(pair.a_q, pair.b_q, threshold)),
        )
    return float(special.betainc(pair.a_p, pair.b_p, threshold)), float(special.betainc(pair.a_q, pair.b_q, threshold))


def beta_pair_delta_float64(epsilon: float, pair: BetaPair) -> float:
    """A float64 evaluation of :func:`beta_pair_delta` (scipy), for grid searches; not a verdict."""
    tail_p, tail_q = _float64_tails(epsilon, pair)
    return tail_p - math.exp(epsilon) * tail_q


def dirichlet_pair_delta_quadrature(epsilon: float, p: np.ndarray, q: np.ndarray, k: float) -> float:
    """δ(ε) by direct numerical integration of (f_p − e^ε f_q)_+ over the simplex (n = 2 or 3).

    An oracle independent of the Beta reduction: it integrates the full Dirichlet densities
    (scipy quadrature, float64, absolute accuracy about 1e-9 for shapes >= 1).

    Raises:
        InvalidArgument: for n outside {2, 3}.
    """
    from scipy import integrate

    alpha_p, alpha_q = k * np.asarray(p, dtype=float), k * np.asarray(q, dtype=float)
    n = alpha_p.size
    log_norm_p = special.gammaln(alpha_p.sum()) - special.gammaln(alpha_p).sum()
    log_norm_q = special.gammaln(alpha_q.sum()) - special.gammaln(alpha_q).sum()
    scale = math.exp(epsilon)

    def excess(point: np.ndarray) -> float:
        if np.any(point <= 0.0):
            return 0.0
        logs = np.log(point)
        f_p = math.exp(log_norm_p + float(np.dot(alpha_p - 1.0, logs)))
        f_q = math.exp(log_norm_q + float(np.dot(alpha_q - 1.0, logs)))
        return max(f_p - scale * f_q, 0.0)

    if n == 2:
        value, _ = integrate.quad(
            lambda x: excess(np.array([x, 1.0 - x])), 0.0, 1.0, limit=400, epsabs=1e-12, epsrel=1e-10
        )
        return float(value)
    if n == 3:
        value, _ = integrate.dblquad(
            lambda y, x: excess(np.array([x, y, 1.0 - x - y])),
            0.0,
            1.0,
            0.0,
            lambda x: 1.0 - x,
            epsabs=1e-11,
            epsrel=1e-9,
        )
        return float(value)
    raise InvalidArgument(f"p: n={n}; quadrature is implemented on the 2- and 3-simplex only")


@dataclass(frozen=True)
class WorstPair:
    """The largest exact δ(ε) found over the admissible b-adjacent pairs.

    Attributes:
        delta: the exact δ(ε) at the maximiser, with its error bound.
        pair: the maximising Beta reduction.
        pair_inputs: (p_i, p_j, q_i, q_j) of the maximiser.
        at_boundary: whether the maximiser lies on the edge of the admissible box.
        grid_points: how many pairs were evaluated.
        shift_monotone: whether δ grew with |d| at every grid point checked (Karlin–Rubin).
    """

    delta: PreciseValue
    pair: BetaPair
    pair_inputs: tuple[float, float, float, float]
    at_boundary: bool
    grid_points: int
    shift_monotone: bool


def _admissible_box(n: int, b: float, eta: float | None) -> tuple[float, float, float]:
    """(lowest component, largest pair mass, shift d = b/2) for b-adjacent pairs in Δ_η(n)."""
    low = 0.0 if eta is None else eta
    mass = 1.0 - (n - 2) * low
    shift = b / 2.0
    if n > 2 and eta is None:
        mass = 1.0
    if low + shift + low > mass:
        raise InvalidArgument(
            f"b={b!r}, eta={eta!r}, n={n}: no b-adjacent pair with shift b/2 keeps every component >= eta"
        )
    return low, mass, shift


def worst_pair_delta(
    epsilon: float,
    k: float,
    b: float,
    *,
    n: int,
    eta: float | None,
    grid: int = 200,
    digits: int = DEFAULT_DIGITS,
) -> WorstPair:
    """Maximise the exact δ(ε) over ordered b-adjacent pairs of Δ°(n) with components >= eta.

    Parametrisation (covers every ordered pair, up to relabelling i ↔ j): p has pair
    coordinates (x, y), q has (x + d, y − d), with x >= eta, y − d >= eta, and pair mass
    x + y <= 1 − (n − 2) eta (= 1 for n = 2). d = b/2 (worst shift, Karlin–Rubin; re-checked
    on the grid with d = b/4). The grid runs over x (and the pair mass when n > 2) in float64;
    the best grid point and the box's corners are then evaluated exactly in mpmath.

    Args:
        epsilon: ε >= 0.
        k: the mechanism's k > 0.
        b: the adjacency radius b ∈ (0, 2].
        n: the dimension of the simplex (>= 2).
        eta: the public lower bound on components (None: 0, open simplex).
        grid: grid points per axis (>= 8).
        digits: working precision of the exact evaluations.

    Returns:
        The worst pair found and its exact δ(ε).

    References:
        Gohari et al. 2020, Def. 1; this module's docstring (reduction, monotonicity in d).
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    k = check_real("k", k, low=0.0, low_open=True)
    b = check_real("b", b, low=0.0, high=2.0, low_open=True)
    n = check_integer("n", n, low=2)
    grid = check_integer("grid", grid, low=8)
    if eta is not None:
        eta = check_real("eta", eta, low=0.0, high=1.0 / n, low_open=True)
    low, max_mass, shift = _admissible_box(n, b, eta)
    floor = low if low > 0 else 1e-9
    masses = [max_mass] if n == 2 else list(np.linspace(2 * floor + shift, max_mass, grid)[::-1])
    if n > 2 and eta is None:
        masses = [m for m in masses if m < 1.0] or [1.0 - 1e-9]
    best: tuple[float, tuple[float, float, float, float], bool] | None = None
    monotone = True
    count = 0
    for mass_index, mass in enumerate(masses):
        xs = np.linspace(floor, mass - shift - floor, grid)
        for index, x in enumerate(xs):
            y = mass - x
            pair = BetaPair(k * x, k * y, k * (x + shift), k * (y - shift))
            value = beta_pair_delta_float64(eps, pair)
            half = beta_pair_delta_float64(eps, BetaPair(k * x, k * y, k * (x + shift / 2), k * (y - shift / 2)))
            monotone = monotone and value >= half - 1e-12
            count += 1
            edge = index in (0, xs.size - 1) or mass_index in (0, len(masses) - 1)
            if best is None or value > best[0]:
                best = (value, (x, y, x + shift, y - shift), edge)
    assert best is not None
    x, y, qx, qy = best[1]
    exact = beta_pair_delta(eps, BetaPair(k * x, k * y, k * qx, k * qy), digits=digits)
    return WorstPair(exact, BetaPair(k * x, k * y, k * qx, k * qy), best[1], best[2], count, monotone)


def acc2020_epsilon(
    k: float, b: float, eta: float, gamma: float, n: int, *, digits: int = DEFAULT_DIGITS
) -> mpmath.mpf:
    """ε of the Dirichlet mechanism's probabilistic-DP statement (ACC 2020), as reconstructed.

    ε = log[ Beta(kη, k(1 − (n−1)η)) / Beta(k(η + b/2), k(1 − (n−1)η − b/2)) ]
        + (k b / 2) · log((1 − (n−1)γ) / γ).

    The first term bounds log B(kq)/B(kp) over b-adjacent p, q ∈ Δ_η(n); the second bounds
    k d log(x_i / x_j) on Ω_1 = Δ_γ(n) = {x ∈ Δ(n) : x_i >= γ}.

    Assumptions: k > 0, b ∈ (0, 1], η ∈ (0, 1/n] with η + b/2 <= 1 − (n−1)η, γ ∈ (0, 1/n).

    References:
        See :data:`ACC2020_SOURCE` (reconstructed statement; gap recorded).
    """
    k = check_real("k", k, low=0.0, low_open=True)
    b = check_real("b", b, low=0.0, high=1.0, low_open=True)
    n = check_integer("n", n, low=2)
    eta = check_real("eta", eta, low=0.0, high=1.0 / n, low_open=True)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0 / n, low_open=True, high_open=True)
    top = 1.0 - (n - 1) * eta
    if top - b / 2 < eta:
        raise InvalidArgument(f"b={b!r}, eta={eta!r}, n={n}: need 1 - (n-1) eta - b/2 >= eta")
    with mpmath.workdps(digits):
        K, B, E, G = (mpmath.mpf(v) for v in (k, b, eta, gamma))
        T = 1 - (n - 1) * E
        ratio = _log_beta(K * E, K * T) - _log_beta(K * (E + B / 2), K * (T - B / 2))
        return +(ratio + K * B / 2 * mpmath.log((1 - (n - 1) * G) / G))


def acc2020_delta(
    k: float, eta: float, gamma: float, *, n: int = 2, grid: int = 400, digits: int = DEFAULT_DIGITS
) -> mpmath.mpf:
    """δ = 1 − min_{p ∈ Δ_η(n)} P[M(p) ∈ Δ_γ(n)] of the ACC 2020 statement, for n = 2 (exact).

    On Δ(2), P[M(p) ∈ Δ_γ(2)] = P[γ <= X <= 1 − γ] with X ~ Beta(k p_1, k p_2); the
    minimum over p_1 ∈ [η, 1 − η] is taken over a grid including both ends (where it lies,
    by symmetry and the concentration of Beta laws away from the ends).

    Raises:
        InvalidArgument: for n != 2 (the statement's δ needs an (n−1)-dimensional integral).

    References:
        See :data:`ACC2020_SOURCE`.
    """
    n = check_integer("n", n, low=2)
    if n != 2:
        raise InvalidArgument(f"n={n}: the exact delta of the ACC 2020 statement is implemented for n = 2")
    k = check_real("k", k, low=0.0, low_open=True)
    eta = check_real("eta", eta, low=0.0, high=0.5, low_open=True)
    gamma = check_real("gamma", gamma, low=0.0, high=0.5, low_open=True, high_open=True)
    with mpmath.workdps(digits):
        worst = mpmath.mpf(1)
        for p1 in np.linspace(eta, 1.0 - eta, grid):
            inside = mpmath.betainc(k * p1, k * (1.0 - p1), gamma, 1 - mpmath.mpf(gamma), regularized=True)
            worst = min(worst, inside)
        return +(1 - worst)


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
        for component in vector:
            a, rest = k * component, k * (1.0 - component)
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


def privacy_loss_samples(pair: BetaPair, size: int, *, rng: np.random.Generator) -> np.ndarray:
    """Samples of the privacy loss of the pair under p, drawn from the 1-D Beta law (float64).

    Used to compare the reduction with losses computed from full Dirichlet draws.
    """
    u = stats.beta.rvs(pair.a_p, pair.b_p, size=size, random_state=rng)
    constant = special.betaln(pair.a_q, pair.b_q) - special.betaln(pair.a_p, pair.b_p)
    return constant + (pair.a_p - pair.a_q) * special.logit(u)
