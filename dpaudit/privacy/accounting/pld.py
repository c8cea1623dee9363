"""Privacy loss distributions: pessimistic and optimistic discretisations, FFT self-composition.

For an ordered pair (P, Q) of one-dimensional Gaussian mixtures whose privacy loss
L(x) = log p(x)/q(x) is monotone, the line is cut into cells where L lies between two
grid values kh and (k+1)h. Then:

* the **pessimistic** PLD splits each cell's mass between its two grid ends, keeping
  both its P- and Q-mass ("connect the dots"); a split is more informative than the
  cell, so the discrete pair dominates (P, Q) and every δ(ε) it gives is an upper bound;
* the **optimistic** PLD merges pieces of neighbouring cells into outputs whose loss is
  exactly a grid value (a randomised post-processing of (P, Q)), and rounds any leftover
  piece down to the grid; it is dominated by (P, Q), so its δ(ε) is a lower bound.

Both errors are second order in h away from leftovers, so the interval between them is
narrow. Both are :class:`~dpaudit.privacy.accounting.discrete_pld.DiscretePld`, whose FFT
self-composition bounds the mass it truncates and its round-off and adds them to the interval.

References:
    Koskela, Jälkö, Honkela 2020 (FFT accountant); Meiser & Mohammadi 2018 (PLD buckets);
    Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, "Connect the Dots" (pessimistic split);
    Zhu, Dong, Wang 2022, Sec. 2 (dominating pairs; composition preserves dominance);
    Blackwell 1953 / Balle et al. 2018, Sec. 2 (post-processing gives dominated pairs).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.privacy.accounting.discrete_pld import DiscretePld
from dpaudit.privacy.accounting.mixtures import OutputPair
from dpaudit.privacy.accounting.values import INTERVAL, AccountedValue

__all__ = ["ComposedPld", "compose_pairs", "discretise_pair", "pld_delta", "pld_epsilon"]

_GRID_POINTS = 4097
# Estimated δ error of one discretised step: cell masses carry ~1e-16 relative error each.
_CELL_ROUNDOFF = 1e-14


def _orient(pair: OutputPair, tail: float) -> tuple[OutputPair, np.ndarray, np.ndarray]:
    """Reflect the pair if its privacy loss decreases; check monotonicity on a fine grid."""
    lows, highs = zip(pair.first.support_bounds(tail), pair.second.support_bounds(tail), strict=False)
    x = np.linspace(min(lows), max(highs), _GRID_POINTS)
    loss = pair.privacy_loss(x)
    if loss[-1] < loss[0]:
        pair = OutputPair(pair.first.reflected(), pair.second.reflected(), pair.label)
        x = -x[::-1]
        loss = loss[::-1]
    steps = np.diff(loss)
    if np.any(steps < -1e-9 * np.maximum(1.0, np.abs(loss[1:]))):
        raise InvalidArgument(
            f"pair {pair.label!r}: the privacy loss is not monotone in x; this PLD needs a monotone-likelihood-ratio "
            "pair"
        )
    return pair, x, np.maximum.accumulate(loss)


def _inverse_loss(pair: OutputPair, x: np.ndarray, loss: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """x with L(x) = target for each target inside the range of ``loss`` (interpolation + Newton)."""
    guess = np.interp(targets, loss, x)
    for _ in range(4):
        slope = pair.privacy_loss_slope(guess)
        step = np.where(slope > 0, (pair.privacy_loss(guess) - targets) / np.where(slope > 0, slope, 1.0), 0.0)
        guess = np.clip(guess - step, x[0], x[-1])
    return guess


def discretise_pair(
    pair: OutputPair, *, interval: float = 1e-4, tail: float = 1e-18
) -> tuple[DiscretePld, DiscretePld]:
    """The pessimistic and optimistic discrete PLDs of one ordered pair (P, Q).

    Args:
        pair: the pair; its privacy loss must be monotone in x (true for the pairs of
            subsampled Gaussian mechanisms: their likelihood ratio is monotone).
        interval: the loss grid step h > 0.
        tail: the mass outside the x-range used to place grid cells; the tail cells are
            still accounted exactly (split or merged like the others).

    Returns:
        ``(pessimistic, optimistic)``.

    References:
        Doroshenko et al. 2022 (connect-the-dots split); Balle et al. 2018, Sec. 2 (post-processing).
    """
    h = check_real("interval", interval, low=1e-9, high=1.0)
    pair, x, loss = _orient(pair, check_real("tail", tail, low=0.0, high=1e-3, low_open=True))
    k_min = math.ceil(loss[0] / h)
    # one grid point above the largest loss in the x-range: a loss bounded above (the reverse order of a
    # subsampled pair, sup = -ln(1 - q)) would otherwise leave its top cell's leftover at +inf
    k_max = max(math.floor(loss[-1] / h) + 1, k_min)
    grid = np.arange(k_min, k_max + 1) * h
    boundaries = _inverse_loss(pair, x, loss, np.clip(grid, loss[0], loss[-1]))
    boundaries = np.maximum.accumulate(boundaries)
    edges = np.concatenate([[-np.inf], boundaries, [np.inf]])
    p_cells = pair.first.mass(edges[:-1], edges[1:])
    q_cells = pair.second.mass(edges[:-1], edges[1:])
    pessimistic = _split_cells(p_cells, q_cells, grid, h)
    optimistic = _merge_cells(p_cells, q_cells, grid)
    return (
        DiscretePld(
            h, k_min, pessimistic[0], pessimistic[1], True, roundoff=_CELL_ROUNDOFF, roundoff_estimate=_CELL_ROUNDOFF
        ),
        DiscretePld(h, k_min, optimistic, 0.0, False, roundoff=_CELL_ROUNDOFF, roundoff_estimate=_CELL_ROUNDOFF),
    )


def _split_cells(p_cells: np.ndarray, q_cells: np.ndarray, grid: np.ndarray, h: float) -> tuple[np.ndarray, float]:
    """Connect the dots: split each cell between its grid ends, keeping its P- and Q-mass."""
    size = grid.size
    pmf = np.zeros(size)
    pmf[0] += p_cells[0]
    inner_p, inner_q = p_cells[1:-1], q_cells[1:-1]
    y_low = np.exp(grid[:-1])
    to_upper = np.minimum(inner_p, np.maximum(inner_p - y_low * inner_q, 0.0) * (math.exp(h) / math.expm1(h)))
    pmf[1:] += to_upper
    pmf[:-1] += inner_p - to_upper
    top_p, top_q = p_cells[-1], q_cells[-1]
    at_top = min(top_p, math.exp(grid[-1]) * top_q)
    pmf[-1] += at_top
    return pmf, float(top_p - at_top)


def _merge_cells(p_cells: np.ndarray, q_cells: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Merge pieces of neighbouring cells into outputs whose loss is exactly a grid value.

    Cell c (c = 0 lower tail, 1..K-1 inner, K upper tail) lies above grid point c - 1. The
    output at grid point i mixes a fraction u of cell i (loss below y_i, deficit
    A_i = y_i Q_i - P_i) with a fraction g of cell i + 1 (surplus B = P_{i+1} - y_i Q_{i+1})
    so that u A_i = g B: its loss is exactly log y_i. Leftovers round down to the grid point
    below their cell (the lower tail's leftover goes to -∞).
    """
    size = grid.size
    y = np.exp(grid)
    deficit = np.maximum(y * q_cells[:size] - p_cells[:size], 0.0).tolist()
    surplus = np.maximum(p_cells[1:] - y * q_cells[1:], 0.0).tolist()
    p = p_cells.tolist()
    remaining = [1.0] * (size + 1)
    out = [0.0] * size
    for i in range(size):
        available = remaining[i] * deficit[i]
        above = surplus[i]
        if available <= above:
            used_below = remaining[i]
            used_above = available / above if above > 0 else 0.0
        else:
            used_above = 1.0
            used_below = above / deficit[i]
        out[i] += used_below * p[i] + used_above * p[i + 1]
        remaining[i] -= used_below
        remaining[i + 1] = 1.0 - used_above
        if i > 0:
            out[i - 1] += remaining[i] * p[i]
    out[size - 1] += remaining[size] * p[size]
    return np.asarray(out)


@dataclass(frozen=True, eq=False)
class ComposedPld:
    """The T-fold composition of a mechanism given by ordered pairs: pessimistic and optimistic PLDs per pair.

    The mechanism's δ(ε) is the maximum over the pairs (e.g. both orders of an add/remove
    pair); the interval is [max of optimistic δ - slack, max of pessimistic δ + slack].
    """

    pessimistic: tuple[DiscretePld, ...]
    optimistic: tuple[DiscretePld, ...]
    labels: tuple[str, ...]
    steps: int

    def delta(self, epsilon: float) -> AccountedValue:
        """An enclosure [lower, upper] of δ(ε) of the composed mechanism."""
        return self._delta(epsilon, estimated=False)

    def delta_estimate(self, epsilon: float) -> AccountedValue:
        """δ(ε) as :meth:`delta`, with the FFT round-off estimated instead of bounded: not an enclosure
        a checker may call ``verified`` on, only evidence for ``consistent``."""
        return self._delta(epsilon, estimated=True)

    def epsilon(self, delta: float) -> AccountedValue:
        """An enclosure [lower, upper] of the smallest ε with δ(ε) <= delta."""
        return self._epsilon(delta, estimated=False)

    def epsilon_estimate(self, delta: float) -> AccountedValue:
        """ε(δ) as :meth:`epsilon`, with the FFT round-off estimated (see :meth:`delta_estimate`)."""
        return self._epsilon(delta, estimated=True)

    def _delta(self, epsilon: float, *, estimated: bool) -> AccountedValue:
        slack = _slack_of(estimated)
        upper = min(1.0, max(pld.delta(epsilon) + slack(pld) for pld in self.pessimistic))
        lower = max(0.0, max(pld.delta(epsilon) - slack(pld) for pld in self.optimistic))
        return self._value(lower, upper, estimated)

    def _epsilon(self, delta: float, *, estimated: bool) -> AccountedValue:
        slack = _slack_of(estimated)
        upper = max(pld.epsilon(delta, slack=slack(pld)) for pld in self.pessimistic)
        lower = max(pld.epsilon(delta, slack=-slack(pld)) for pld in self.optimistic)
        if lower > upper and not estimated:
            raise NumericalError(f"PLD enclosure crossed: lower={lower!r} > upper={upper!r}")
        return self._value(lower, upper, estimated)

    def _value(self, lower: float, upper: float, estimated: bool) -> AccountedValue:
        rounding = ", round-off estimated" if estimated else ""
        method = f"PLD, {self.steps} compositions, float64 FFT{rounding} (grid step {self.pessimistic[0].interval:g})"
        # a rigorous enclosure that crossed is an error (AccountedValue refuses it); an estimate may cross
        return AccountedValue(upper, min(lower, upper) if estimated else lower, upper, INTERVAL, method)


def _slack_of(estimated: bool) -> Any:
    """The δ error allowance of one PLD: the rigorous bound, or the one with round-off estimated."""
    return (lambda pld: pld.estimated_slack) if estimated else (lambda pld: pld.slack)


def compose_pairs(
    pairs: Sequence[OutputPair], steps: int, *, interval: float = 1e-4, tail_mass: float = 1e-15
) -> ComposedPld:
    """Discretise each ordered pair and self-compose it ``steps`` times.

    Args:
        pairs: the ordered pairs of per-step outputs whose worst case is the mechanism's profile.
        steps: number of compositions T >= 1.
        interval: loss grid step h.
        tail_mass: per-side mass allowed outside the composition window.

    Returns:
        A :class:`ComposedPld` answering δ(ε) and ε(δ) as intervals.
    """
    if not pairs:
        raise InvalidArgument("pairs=[]: expected at least one ordered pair")
    count = check_integer("steps", steps, low=1)
    pessimistic, optimistic = [], []
    for pair in pairs:
        upper, lower = discretise_pair(pair, interval=interval)
        pessimistic.append(upper.self_compose(count, tail_mass=tail_mass))
        optimistic.append(lower.self_compose(count, tail_mass=tail_mass))
    return ComposedPld(tuple(pessimistic), tuple(optimistic), tuple(p.label for p in pairs), count)


def pld_delta(pairs: Sequence[OutputPair], steps: int, epsilon: float, **options: Any) -> AccountedValue:
    """δ(ε) of ``steps`` compositions as an interval (see :func:`compose_pairs`)."""
    return compose_pairs(pairs, steps, **options).delta(epsilon)


def pld_epsilon(pairs: Sequence[OutputPair], steps: int, delta: float, **options: Any) -> AccountedValue:
    """ε(δ) of ``steps`` compositions as an interval (see :func:`compose_pairs`)."""
    return compose_pairs(pairs, steps, **options).epsilon(delta)
