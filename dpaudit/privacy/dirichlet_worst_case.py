"""The worst b-adjacent pair of the Dirichlet mechanism and the ACC 2020 statement; the exact
profile of one pair is in :mod:`dpaudit.privacy.dirichlet_pair`.

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
from dataclasses import dataclass

import mpmath
import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.privacy.dirichlet_pair import (
    DEFAULT_DIGITS,
    BetaPair,
    _log_beta,
    beta_pair_delta,
    beta_pair_delta_float64,
)
from dpaudit.privacy.precise_values import PreciseValue

__all__ = [
    "ACC2020_SOURCE",
    "OPEN_SIMPLEX_FLOOR",
    "WorstPair",
    "acc2020_delta",
    "acc2020_epsilon",
    "worst_pair_delta",
    "worst_pair_delta_float64",
]


"""Tolerance on |sum(p) - 1| for an input of the Dirichlet mechanism."""


ACC2020_SOURCE = (
    "Gohari, Wu, Hale, Topcu, 'The Dirichlet Mechanism for Differential Privacy on the Unit Simplex', "
    "ACC 2020 (arXiv:1910.00043), identity-query theorem. RECONSTRUCTED: the theorem's text could not be "
    "retrieved; the form encoded is the one the proof technique gives (probabilistic DP with "
    "Omega_1 = Delta_gamma(n) = {x : x_i >= gamma}) and matches the re-implementation "
    "donlapark/Dirichlet-Mechanism experiments/prior_work.py::compute_epsilon (secondary source)."
)


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


#: How close to 0 the search goes on the open simplex (eta None), on a log grid below the linear grid's floor of
#: 1e-9: a component of 1e-300 is a float64 input the mechanism accepts. There δ(ε) tends to 1 as a component
#: tends to 0 (the law under p concentrates at the vertex, under q it does not), so no pair attains the supremum.
OPEN_SIMPLEX_FLOOR = 1e-300
_LINEAR_FLOOR = 1e-9
_LOG_POINTS = 30

#: A pair's coordinates (p_i, p_j, q_i, q_j) and whether it lies on the edge of the searched box.
_Position = tuple[tuple[float, float, float, float], bool]


def _positions(n: int, b: float, eta: float | None, grid: int) -> tuple[list[_Position], list[_Position]]:
    """The searched positions of ordered b-adjacent pairs with shift b/2 (see :func:`worst_pair_delta`) and
    the box's corners among them (each corner also on the grid)."""
    low, max_mass, shift = _admissible_box(n, b, eta)
    floor = low if low > 0 else _LINEAR_FLOOR
    masses = [max_mass] if n == 2 else list(np.linspace(2 * floor + shift, max_mass, grid)[::-1])
    if n > 2 and eta is None:
        masses = [m for m in masses if m < 1.0] or [1.0 - _LINEAR_FLOOR]
    positions: list[_Position] = []
    corners: list[_Position] = []
    for mass_index, mass in enumerate(masses):
        xs = np.linspace(floor, mass - shift - floor, grid)
        outer_mass = mass_index in (0, len(masses) - 1)
        for index, x in enumerate(xs):
            edge = index in (0, xs.size - 1) or (n > 2 and outer_mass)
            position = ((float(x), float(mass - x), float(x + shift), float(mass - x - shift)), edge)
            positions.append(position)
            if outer_mass and index in (0, xs.size - 1):
                corners.append(position)
        if eta is None and outer_mass:  # toward the open simplex's boundary: p_i -> 0, and q_j -> 0
            for t in np.logspace(math.log10(OPEN_SIMPLEX_FLOOR), math.log10(floor), _LOG_POINTS)[:-1]:
                t = float(t)
                toward = [
                    ((t, mass - t, t + shift, mass - t - shift), True),
                    ((mass - shift - t, shift + t, mass - t, t), True),
                ]
                positions.extend(toward)
                if t == OPEN_SIMPLEX_FLOOR:
                    corners.extend(toward)
    return positions, corners


def _beta_pair(k: float, position: tuple[float, float, float, float]) -> BetaPair:
    x, y, qx, qy = position
    return BetaPair(k * x, k * y, k * qx, k * qy)


def worst_pair_delta_float64(epsilon: float, k: float, b: float, *, n: int, eta: float | None, grid: int) -> float:
    """The largest float64 δ(ε) over the positions :func:`worst_pair_delta` searches (an estimate, not a verdict)."""
    positions, _ = _positions(n, b, eta, grid)
    return max(beta_pair_delta_float64(epsilon, _beta_pair(k, position)) for position, _ in positions)


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
    on the grid with d = b/4). The grid runs over x (and the pair mass when n > 2) in float64
    (tails below the smallest float64 taken in logs); the best grid point and the box's corners
    are then evaluated exactly in mpmath, and the largest exact value is the result. With
    eta None (the open simplex) the grid's floor is 1e-9 and a log grid goes on to
    :data:`OPEN_SIMPLEX_FLOOR` at both ends: there the supremum (1) is approached, never
    attained, so the result is a lower bound only.

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
    positions, corners = _positions(n, b, eta, grid)
    best: tuple[float, _Position] | None = None
    monotone = True
    for position, edge in positions:
        x, y, _, _ = position
        value = beta_pair_delta_float64(eps, _beta_pair(k, position))
        shift = position[2] - x
        half = beta_pair_delta_float64(eps, BetaPair(k * x, k * y, k * (x + shift / 2), k * (y - shift / 2)))
        monotone = monotone and value >= half - 1e-12
        if best is None or value > best[0]:
            best = (value, (position, edge))
    assert best is not None
    exact: tuple[PreciseValue, tuple[float, float, float, float], bool] | None = None
    for position, edge in dict.fromkeys([best[1], *corners]):
        delta = beta_pair_delta(eps, _beta_pair(k, position), digits=digits)
        if exact is None or delta.value > exact[0].value:
            exact = (delta, position, edge)
    assert exact is not None
    delta, position, edge = exact
    return WorstPair(delta, _beta_pair(k, position), position, edge, len(positions), monotone)


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
