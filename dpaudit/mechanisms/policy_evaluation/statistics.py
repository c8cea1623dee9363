"""First-visit statistics of a dataset of trajectories: what LSW, LSL, DP-LSW and DP-LSL use.

References:
    Balle, Gomrokchi & Precup, ICML 2016, Sec. 2.2 (eqs. (3)-(5)) and Sec. 4 (the signature).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_finite_array,
    check_integer,
    check_real,
)
from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.first_visit import first_visit_return_matrix
from dpaudit.rl.trajectory import Trajectory, TrajectoryBatch

__all__ = ["FirstVisitStatistics", "first_visit_statistics"]


@dataclass(frozen=True, eq=False)
class FirstVisitStatistics:
    """What LSW/LSL and their DP versions use from a dataset X of m trajectories.

    Attributes:
        signature: ⟨X⟩, the counts |X_s| of trajectories visiting s (int64, shape (S,)).
        average_returns: F_X (eq. (4)), 0 at unvisited states (float64, shape (S,)).
        squared_returns: Σ_{x ∈ X_s} F_{x,s}² per state (for J_X, eq. (3)).
        m: the number of trajectories.
        max_return: the largest first-visit return F_{x,s} in X (for checking F_max).
    """

    signature: np.ndarray
    average_returns: np.ndarray
    squared_returns: np.ndarray
    m: int
    max_return: float

    @classmethod
    def from_arrays(
        cls,
        signature: Any,
        average_returns: Any,
        m: int,
        *,
        squared_returns: Any = None,
        max_return: float | None = None,
    ) -> FirstVisitStatistics:
        """Build statistics directly (e.g. from an enumerated signature), checking shapes and ranges.

        Raises:
            InvalidArgument: for negative or > m counts, mismatched shapes or non-finite returns.
        """
        m = check_integer("m", m, low=1)
        counts = np.asarray(signature)
        if counts.ndim != 1 or not np.issubdtype(counts.dtype, np.integer):
            raise InvalidArgument(f"signature: expected a 1-d integer array, got {counts!r:.80}")
        if ((counts < 0) | (counts > m)).any():
            position = int(np.argmax((counts < 0) | (counts > m)))
            raise InvalidArgument(f"signature[{position}]={int(counts[position])}: expected a count in [0, m={m}]")
        returns = check_finite_array("average_returns", average_returns, shape=(counts.size,))
        squares = (
            counts * returns**2
            if squared_returns is None
            else check_finite_array("squared_returns", squared_returns, shape=(counts.size,), nonnegative=True)
        )
        largest = float(returns.max(initial=0.0)) if max_return is None else check_real("max_return", max_return)
        return cls(counts.astype(np.int64), returns, squares, m, largest)


def _batch(data: Any, n_states: int) -> TrajectoryBatch:
    if isinstance(data, TrajectoryBatch):
        if data.n_states != n_states:
            raise InvalidArgument(f"data: a batch over {data.n_states} states, expected n_states={n_states}")
        return data
    if isinstance(data, Trajectory) or not isinstance(data, Sequence):
        raise InvalidType(f"data={data!r:.80}: expected a tuple of Trajectory or a TrajectoryBatch")
    return TrajectoryBatch.from_trajectories(data, n_states)


def first_visit_statistics(
    data: Any, *, n_states: int, gamma: float, r_max: float | None = None
) -> FirstVisitStatistics:
    """Compute ⟨X⟩, F_X and Σ F² per state from a dataset, checking rewards lie in [0, R_max].

    Args:
        data: a tuple of trajectories or a TrajectoryBatch over ``n_states`` states.
        gamma: the discount γ in [0, 1).
        r_max: the reward bound R_max; when given, every reward must be in [0, R_max].

    Raises:
        InvalidArgument: for an empty dataset, states out of range, or a reward outside
            [0, R_max] (naming the reward and the bound).

    References:
        Balle et al. 2016, Sec. 2.2 (0 <= r <= R_max; F_{x,s}; eq. (4); Γ_X).
    """
    n_states = check_integer("n_states", n_states, low=1)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    batch = _batch(data, n_states)
    rewards = batch.rewards
    if r_max is not None:
        bad = (rewards < 0) | (rewards > r_max)
        if bad.any():
            position = int(np.argmax(bad))
            raise InvalidArgument(
                f"rewards: a reward {rewards[position]!r} lies outside [0, R_max={r_max!r}]; "
                "the mechanisms' privacy proof needs 0 <= r <= R_max (Balle et al. 2016, Sec. 2.2)"
            )
    returns, visited = first_visit_return_matrix(batch, gamma, n_states)
    counts = visited.sum(axis=0).astype(np.int64)
    average = returns.sum(axis=0) / np.maximum(counts, 1)
    squares = (returns**2).sum(axis=0)
    return FirstVisitStatistics(counts, average, squares, batch.n_trajectories, float(returns.max(initial=0.0)))
