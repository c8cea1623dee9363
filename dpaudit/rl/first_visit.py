"""First-visit statistics of trajectories and datasets (Balle et al. 2016, Sec. 2 and 4.1).

For a trajectory x = ((s_0, a_0, r_0), ..., (s_{L-1}, a_{L-1}, r_{L-1})) (0-based times):

* first-visit time i_{x,s}: the least t with s_t = s (−1 here when s is not visited);
* first-visit return F_{x,s} = Σ_{t=i_{x,s}}^{L-1} γ^{t-i_{x,s}} r_t, and F_{x,s} = 0 when x
  does not visit s (Balle et al., the display before eq. (3) and the sentence after it);
* visit set S_x: the states x visits (used in J_X, eq. (3)).

For a dataset X = (x_1, ..., x_m), with X_s the multiset of trajectories visiting s:

* signature ⟨X⟩(s) = |X_s| (Sec. 4.1, before eq. (6)): the number of trajectories visiting s;
* F_X(s) = (1/|X_s|) Σ_{x ∈ X_s} F_{x,s} (eq. (4)); F_X(s) = 0 when |X_s| = 0 (as Balle et al. set);
* Γ_X = diag(ρ_s |X_s| / m) (defined in the text just before eq. (5)), ρ_s the regression
  weights (1 when omitted).

Exactness rule: when ``gamma`` is a :class:`fractions.Fraction` (or an int 0/1) the
computation is pure Python over Fractions and rewards must be ints or Fractions; the
result is then a tuple of Fractions. Otherwise float64 numpy arrays are returned.
Float computations on a :class:`~dpaudit.rl.trajectory.TrajectoryBatch` are vectorised
over trajectories (one numpy pass per time step); they use an (m, S) matrix.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.trajectory import Trajectory, TrajectoryBatch, check_trajectories

__all__ = [
    "FirstVisitEstimate",
    "average_first_visit_returns",
    "dataset_signature",
    "discounted_returns",
    "exact_visit_frequencies",
    "first_visit_estimate",
    "first_visit_return_matrix",
    "first_visit_returns",
    "first_visit_times",
    "visit_frequency_matrix",
    "visited_states",
]

Data = TrajectoryBatch | Sequence[Trajectory]


def _is_exact_gamma(gamma: Any) -> bool:
    return isinstance(gamma, Fraction) or (isinstance(gamma, int) and not isinstance(gamma, bool))


def _check_gamma(gamma: Any) -> Any:
    if _is_exact_gamma(gamma):
        if not 0 <= gamma <= 1:
            raise InvalidArgument(f"gamma={gamma!r}: expected a discount in [0, 1]")
        return Fraction(gamma)
    return check_real("gamma", gamma, low=0.0, high=1.0)


def _exact_rewards(rewards: Sequence[Any]) -> list[Fraction]:
    result = []
    for position, reward in enumerate(rewards):
        if isinstance(reward, bool) or not isinstance(reward, (numbers.Rational, np.integer)):
            raise InvalidType(
                f"rewards[{position}]={reward!r}: exact first-visit returns (gamma a Fraction) need int or "
                "Fraction rewards; pass a float gamma for float arithmetic"
            )
        result.append(Fraction(int(reward)) if isinstance(reward, np.integer) else Fraction(reward))
    return result


def _states_and_rewards(trajectory: Any) -> tuple[Sequence[int], Sequence[Any]]:
    if isinstance(trajectory, Trajectory):
        return trajectory.states, trajectory.rewards
    try:
        states, rewards = trajectory
    except (TypeError, ValueError) as exc:
        raise InvalidType(f"trajectory={trajectory!r}: expected a Trajectory or a pair (states, rewards)") from exc
    if len(states) != len(rewards):
        raise InvalidArgument(f"trajectory: len(states)={len(states)} != len(rewards)={len(rewards)}")
    return states, rewards


def first_visit_times(states: Sequence[int], n_states: int) -> np.ndarray:
    """Return i_{x,s} for every state s (−1 when s is not visited), shape (n_states,).

    Raises:
        InvalidArgument: for a state outside 0..n_states-1.

    References:
        Balle et al. 2016, Sec. 2 (time of the first visit i_{x,s}).
    """
    n_states = check_integer("n_states", n_states, low=1)
    path = np.asarray(states, dtype=np.int64)
    bad = (path < 0) | (path >= n_states)
    if bad.any():
        position = int(np.argmax(bad))
        raise InvalidArgument(f"states[{position}]={int(path[position])}: expected a state in 0..{n_states - 1}")
    times = np.full(n_states, -1, dtype=np.int64)
    visited, first = np.unique(path, return_index=True)
    times[visited] = first
    return times


def visited_states(trajectory: Trajectory) -> frozenset[int]:
    """Return the visit set S_x of a trajectory (Balle et al. 2016, eq. (3))."""
    states, _ = _states_and_rewards(trajectory)
    return frozenset(int(s) for s in states)


def discounted_returns(rewards: Sequence[Any], gamma: Any) -> list[Any] | np.ndarray:
    """Return G_t = Σ_{u>=t} γ^{u-t} r_u for every t (Fractions when ``gamma`` is exact).

    Computed backwards (G_t = r_t + γ G_{t+1}), so no power of γ underflows.
    """
    gamma = _check_gamma(gamma)
    if isinstance(gamma, Fraction):
        exact = _exact_rewards(rewards)
        result: list[Fraction] = [Fraction(0)] * len(exact)
        following = Fraction(0)
        for t in range(len(exact) - 1, -1, -1):
            following = exact[t] + gamma * following
            result[t] = following
        return result
    values = check_finite_array("rewards", rewards, ndim=1)
    result_array = np.empty_like(values)
    following_float = 0.0
    for t in range(values.size - 1, -1, -1):
        following_float = values[t] + gamma * following_float
        result_array[t] = following_float
    return result_array


def first_visit_returns(trajectory: Any, gamma: Any, n_states: int) -> tuple[Fraction, ...] | np.ndarray:
    """Return F_{x,s} for every state s, with F_{x,s} = 0 when x does not visit s.

    Args:
        trajectory: a :class:`Trajectory` or a pair ``(states, rewards)``.
        gamma: discount in [0, 1]; a Fraction selects exact arithmetic.
        n_states: the number of states S.

    Returns:
        A tuple of S Fractions (exact) or a float64 array of shape (S,).

    References:
        Balle et al. 2016, Sec. 2 (F_{x,s}, the display before eq. (3)).
    """
    states, rewards = _states_and_rewards(trajectory)
    times = first_visit_times(states, n_states)
    returns = discounted_returns(rewards, gamma)
    if isinstance(returns, list):
        return tuple(returns[t] if t >= 0 else Fraction(0) for t in times.tolist())
    return np.where(times >= 0, returns[np.maximum(times, 0)], 0.0) if returns.size else np.zeros(n_states)


def _as_batch(data: Data, n_states: int) -> TrajectoryBatch:
    if isinstance(data, TrajectoryBatch):
        if data.n_states != n_states:
            raise InvalidArgument(f"n_states={n_states}: the batch was sampled with n_states={data.n_states}")
        return data
    return TrajectoryBatch.from_trajectories(data, n_states)


def first_visit_return_matrix(data: Data, gamma: float, n_states: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (F, visited): F[i, s] = F_{x_i,s} (0 if unvisited) and visited[i, s] = s ∈ S_{x_i}.

    Float arithmetic, vectorised over trajectories: one backward pass over time steps.

    References:
        Balle et al. 2016, Sec. 2 (F_{x,s}, S_x).
    """
    n_states = check_integer("n_states", n_states, low=1)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0)
    batch = _as_batch(data, n_states)
    m = batch.n_trajectories
    returns = np.zeros((m, n_states))
    visited = np.zeros((m, n_states), dtype=bool)
    following = np.zeros(0)
    following_index = np.zeros(0, dtype=np.int64)
    for t in range(batch.max_length - 1, -1, -1):
        step = batch.step(t)
        index = batch.trajectory_index[step]
        current = batch.rewards[step].copy()
        if following.size:
            current[np.searchsorted(index, following_index)] += gamma * following
        states = batch.states[step]
        returns[index, states] = current
        visited[index, states] = True
        following, following_index = current, index
    return returns, visited


def dataset_signature(data: Data, n_states: int) -> np.ndarray:
    """Return ⟨X⟩ with ⟨X⟩(s) = |X_s|, the number of trajectories visiting s (int64, shape (S,)).

    References:
        Balle et al. 2016, Sec. 4.1 (the signature ⟨X⟩ ∈ N^S, ⟨X⟩(s) = |X_s|).
    """
    n_states = check_integer("n_states", n_states, low=1)
    if isinstance(data, TrajectoryBatch):
        batch = _as_batch(data, n_states)
        seen = np.zeros((batch.n_trajectories, n_states), dtype=bool)
        seen[batch.trajectory_index, batch.states] = True
        return seen.sum(axis=0).astype(np.int64)
    counts = np.zeros(n_states, dtype=np.int64)
    for x in check_trajectories("dataset", data):
        counts[first_visit_times(x.states, n_states) >= 0] += 1
    return counts


def average_first_visit_returns(data: Data, gamma: Any, n_states: int) -> tuple[Fraction, ...] | np.ndarray:
    """Return F_X: the average first-visit return per state over trajectories visiting it.

    F_X(s) = (1/|X_s|) Σ_{x ∈ X_s} F_{x,s}, and F_X(s) = 0 when no trajectory visits s.
    Exact (tuple of Fractions) when ``gamma`` is a Fraction and ``data`` a sequence of
    trajectories with int/Fraction rewards; float64 array otherwise.

    References:
        Balle et al. 2016, eq. (4) and the sentence after it.
    """
    n_states = check_integer("n_states", n_states, low=1)
    if _is_exact_gamma(gamma):
        if isinstance(data, TrajectoryBatch):
            raise InvalidType(
                "data: a TrajectoryBatch holds float rewards; pass a float gamma or a tuple of trajectories"
            )
        totals = [Fraction(0)] * n_states
        counts = [0] * n_states
        for x in check_trajectories("dataset", data):
            returns = first_visit_returns(x, gamma, n_states)
            for s in set(x.states):
                totals[s] += returns[s]
                counts[s] += 1
        return tuple(total / count if count else Fraction(0) for total, count in zip(totals, counts, strict=False))
    returns, visited = first_visit_return_matrix(data, gamma, n_states)
    counts = visited.sum(axis=0)
    return returns.sum(axis=0) / np.maximum(counts, 1)


def _weights(weights: Any, n_states: int) -> np.ndarray | None:
    if weights is None:
        return None
    rho = check_finite_array("weights", weights, shape=(n_states,), nonnegative=True)
    if (rho > 1).any():
        position = int(np.argmax(rho > 1))
        raise InvalidArgument(f"weights[{position}]={rho[position]!r}: expected regression weights in [0, 1]")
    return rho


def visit_frequency_matrix(data: Data, n_states: int, *, weights: Any = None) -> np.ndarray:
    """Return Γ_X = diag(ρ_s |X_s| / m) as a float64 (S, S) matrix.

    Args:
        weights: regression weights ρ_s in [0, 1], shape (S,); all ones when omitted.

    References:
        Balle et al. 2016, Sec. 2, the definition of Γ_X just before eq. (5).
    """
    signature = dataset_signature(data, n_states)
    m = len(data)
    rho = _weights(weights, n_states)
    diagonal = signature / m if rho is None else rho * signature / m
    return np.diag(diagonal)


def exact_visit_frequencies(data: Data, n_states: int, *, weights: Any = None) -> tuple[Fraction, ...]:
    """Return the diagonal of Γ_X exactly: ρ_s |X_s| / m as Fractions (float weights converted exactly).

    References:
        Balle et al. 2016, Sec. 2, the definition of Γ_X just before eq. (5).
    """
    signature = dataset_signature(data, n_states)
    m = len(data)
    if weights is None:
        return tuple(Fraction(int(c), m) for c in signature)
    if len(weights) != n_states:
        raise InvalidArgument(f"weights: expected {n_states} entries, got {len(weights)}")
    rho = []
    for position, w in enumerate(weights):
        exact = w if isinstance(w, Fraction) else Fraction(check_real(f"weights[{position}]", w))
        if not 0 <= exact <= 1:
            raise InvalidArgument(f"weights[{position}]={w!r}: expected regression weights in [0, 1]")
        rho.append(exact)
    return tuple(r * int(c) / m for r, c in zip(rho, signature, strict=False))


@dataclass(frozen=True, eq=False)
class FirstVisitEstimate:
    """First-visit Monte Carlo estimate of V^π per state, with its standard error.

    Attributes:
        mean: F_X (0 at unvisited states), shape (S,).
        standard_error: sample standard deviation of F_{x,s} over X_s divided by sqrt(|X_s|)
            (NaN where |X_s| < 2).
        counts: the signature ⟨X⟩.
    """

    mean: np.ndarray
    standard_error: np.ndarray
    counts: np.ndarray


def first_visit_estimate(data: Data, gamma: float, n_states: int) -> FirstVisitEstimate:
    """Return the first-visit Monte Carlo mean F_X (eq. (4)) with per-state standard errors.

    References:
        Balle et al. 2016, eq. (4); Sutton & Barto 2018, Sec. 5.1 (first-visit MC).
    """
    returns, visited = first_visit_return_matrix(data, gamma, n_states)
    counts = visited.sum(axis=0)
    safe = np.maximum(counts, 1)
    mean = returns.sum(axis=0) / safe
    squares = np.where(visited, (returns - mean) ** 2, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.where(counts >= 2, squares / np.maximum(counts - 1, 1), np.nan)
        standard_error = np.sqrt(variance / safe)
    return FirstVisitEstimate(mean, standard_error, counts.astype(np.int64))
