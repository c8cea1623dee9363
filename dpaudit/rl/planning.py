"""Exact planning on a :class:`FiniteMDP`: policy evaluation, value and policy iteration, backward induction.

All routines are vectorised over states and actions (one tensor contraction per
Bellman backup) and accept any valid FiniteMDP, e.g. one with privatised transitions.
Linear solves are re-checked: the Bellman residual of the returned values is computed
and a :class:`~dpaudit.errors.NumericalError` is raised when it is not small.

References:
    Puterman 1994, Sec. 4.5 (backward induction), Sec. 6.2-6.4 (policy evaluation,
    value iteration with the ε(1-γ)/(2γ) stopping rule, policy iteration);
    Gohari et al. 2020, Algorithm 1 (finite and infinite horizon synthesis);
    Balle et al. 2016, eq. (2) (V^π).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.policy import MarkovPolicy

__all__ = [
    "FiniteHorizonSolution",
    "InfiniteHorizonSolution",
    "backward_induction",
    "bellman_residual",
    "evaluate_policy",
    "greedy_policy",
    "policy_iteration",
    "q_values",
    "value_iteration",
]

_RESIDUAL_RTOL = 1e-9


@dataclass(frozen=True, eq=False)
class InfiniteHorizonSolution:
    """Result of discounted planning.

    Attributes:
        values: V, shape (S,).
        q_values: Q[s, a] = r(s, a) + γ Σ_s' P[s, a, s'] V(s'), shape (S, A).
        policy: a deterministic stationary policy greedy with respect to ``values``.
        iterations: number of sweeps (value iteration) or improvement steps (policy iteration).
        error_bound: an upper bound on ||V - V*||_∞ (0.0 when V solves the Bellman equation
            of the returned policy exactly up to the re-checked residual).
    """

    values: np.ndarray
    q_values: np.ndarray
    policy: MarkovPolicy
    iterations: int
    error_bound: float


@dataclass(frozen=True, eq=False)
class FiniteHorizonSolution:
    """Result of backward induction over stages t = 0, ..., T.

    Attributes:
        values: V_t(s), shape (T+1, S); ``values[T]`` holds the terminal values R_T.
        q_values: Q_t(s, a), shape (T, S, A).
        policy: the time-dependent policy used (the given one, or a greedy deterministic one).
    """

    values: np.ndarray
    q_values: np.ndarray
    policy: MarkovPolicy


def q_values(mdp: FiniteMDP, values: np.ndarray) -> np.ndarray:
    """Return Q[s, a] = r(s, a) + γ Σ_s' P[s, a, s'] V(s') for a value vector V (shape (S,)).

    References:
        Gohari et al. 2020, Algorithm 1 (the bracket maximised over π).
    """
    return mdp.expected_rewards + mdp.gamma * (mdp.transitions @ np.asarray(values, dtype=np.float64))


def greedy_policy(q: np.ndarray) -> MarkovPolicy:
    """Return the deterministic policy taking argmax_a Q[.., s, a] (lowest index on ties).

    ``q`` may have shape (S, A) (stationary result) or (T, S, A) (time-dependent result).
    """
    q = np.asarray(q, dtype=np.float64)
    return MarkovPolicy.deterministic(np.argmax(q, axis=-1), q.shape[-1])


def bellman_residual(mdp: FiniteMDP, policy: MarkovPolicy, values: np.ndarray) -> float:
    """Return ||r_π + γ P_π V - V||_∞ for a stationary policy on a discounted MDP."""
    pi = policy.at(0)
    backup = np.sum(pi * q_values(mdp, values), axis=1)
    return float(np.max(np.abs(backup - values)))


def _require_infinite(mdp: FiniteMDP) -> None:
    if not isinstance(mdp, FiniteMDP):
        raise InvalidArgument(f"mdp={mdp!r}: expected a FiniteMDP")
    if mdp.horizon is not None:
        raise InvalidArgument(f"mdp: has horizon={mdp.horizon}; use backward_induction for finite-horizon MDPs")


def _recheck(mdp: FiniteMDP, policy: MarkovPolicy, values: np.ndarray) -> None:
    scale = max(1.0, float(np.max(np.abs(values))), float(np.max(np.abs(mdp.expected_rewards))))
    residual = bellman_residual(mdp, policy, values)
    if not residual <= _RESIDUAL_RTOL * scale:
        raise NumericalError(
            f"policy evaluation: Bellman residual {residual:.3g} exceeds {_RESIDUAL_RTOL:g} x {scale:.3g}; "
            "the linear system is too ill-conditioned (gamma close to 1?)"
        )


def evaluate_policy(mdp: FiniteMDP, policy: MarkovPolicy) -> np.ndarray:
    """Return V^π by solving (I - γ P_π) V = r_π for a stationary policy on a discounted MDP.

    Args:
        mdp: a FiniteMDP with ``horizon=None``.
        policy: a stationary MarkovPolicy of matching shape.

    Returns:
        V^π, shape (S,).

    Raises:
        InvalidArgument: for a finite-horizon MDP, a time-dependent or mismatched policy.
        NumericalError: when the re-checked Bellman residual is not small.

    References:
        Balle et al. 2016, eq. (2); Puterman 1994, Thm 6.1.1.
    """
    _require_infinite(mdp)
    policy.check_compatible(mdp)
    pi = policy.at(0)
    p_pi = np.einsum("sa,sat->st", pi, mdp.transitions)
    r_pi = np.sum(pi * mdp.expected_rewards, axis=1)
    values = np.linalg.solve(np.eye(mdp.n_states) - mdp.gamma * p_pi, r_pi)
    _recheck(mdp, policy, values)
    return values


def value_iteration(mdp: FiniteMDP, *, tol: float = 1e-10, max_iterations: int = 1_000_000) -> InfiniteHorizonSolution:
    """Return optimal values within ``tol`` (sup norm) by value iteration.

    Stops when ||V_{k+1} - V_k||_∞ <= tol (1-γ) / γ, which gives ||V_{k+1} - V*||_∞ <= tol.

    Raises:
        InvalidArgument: for a finite-horizon MDP or bad ``tol``/``max_iterations``.
        NumericalError: when ``max_iterations`` sweeps do not reach ``tol``.

    References:
        Puterman 1994, Thm 6.3.1; Gohari et al. 2020, Algorithm 1 (infinite horizon).
    """
    _require_infinite(mdp)
    tol = check_real("tol", tol, low=0.0, low_open=True)
    max_iterations = check_integer("max_iterations", max_iterations, low=1)
    gamma = mdp.gamma
    threshold = np.inf if gamma == 0.0 else tol * (1.0 - gamma) / gamma
    values = np.zeros(mdp.n_states)
    for iteration in range(1, max_iterations + 1):
        q = q_values(mdp, values)
        updated = q.max(axis=1)
        change = float(np.max(np.abs(updated - values)))
        values = updated
        if change <= threshold:
            q = q_values(mdp, values)
            bound = 0.0 if gamma == 0.0 else change * gamma / (1.0 - gamma)
            return InfiniteHorizonSolution(values, q, greedy_policy(q), iteration, bound)
    raise NumericalError(f"value_iteration: no convergence to tol={tol:g} in max_iterations={max_iterations}")


def policy_iteration(
    mdp: FiniteMDP, *, initial_policy: MarkovPolicy | None = None, max_iterations: int = 10_000
) -> InfiniteHorizonSolution:
    """Return an optimal deterministic policy and its exact values by Howard's policy iteration.

    Improvement keeps the current action unless another is better by more than a
    relative 1e-12, so the iteration cannot cycle on ties.

    Args:
        mdp: a discounted FiniteMDP.
        initial_policy: optional starting policy (its most probable action per state is
            used); action 0 everywhere when omitted.
        max_iterations: cap on the number of improvement steps.

    Raises:
        InvalidArgument: for a finite-horizon MDP or a mismatched initial policy.
        NumericalError: when ``max_iterations`` improvements do not reach a fixed point.

    References:
        Puterman 1994, Sec. 6.4.
    """
    _require_infinite(mdp)
    max_iterations = check_integer("max_iterations", max_iterations, low=1)
    policy = MarkovPolicy.deterministic(np.zeros(mdp.n_states, dtype=np.int64), mdp.n_actions)
    if initial_policy is not None:
        initial_policy.check_compatible(mdp)
        policy = greedy_policy(initial_policy.at(0))
    states = np.arange(mdp.n_states)
    for iteration in range(1, max_iterations + 1):
        values = evaluate_policy(mdp, policy)
        q = q_values(mdp, values)
        current = np.argmax(policy.at(0), axis=1)
        best = np.argmax(q, axis=1)
        gain = q[states, best] - q[states, current]
        slack = 1e-12 * np.maximum(1.0, np.abs(q[states, current]))
        improve = gain > slack
        if not improve.any():
            return InfiniteHorizonSolution(values, q, policy, iteration, 0.0)
        policy = MarkovPolicy.deterministic(np.where(improve, best, current), mdp.n_actions)
    raise NumericalError(f"policy_iteration: no fixed point within max_iterations={max_iterations}")


def backward_induction(mdp: FiniteMDP, policy: MarkovPolicy | None = None) -> FiniteHorizonSolution:
    """Return V_t for t = T, T-1, ..., 0 on a finite-horizon MDP (optimal, or of a fixed policy).

    V_T = R_T and V_t(s) = Σ_a π_t(a|s) (r(s, a) + γ Σ_s' P[s, a, s'] V_{t+1}(s')), where π_t
    is ``policy`` when given and otherwise the maximising deterministic choice.

    Args:
        mdp: a FiniteMDP with a finite ``horizon`` T.
        policy: optional stationary or time-dependent policy (at least T stages) to evaluate.

    Raises:
        InvalidArgument: for an infinite-horizon MDP or a mismatched policy.

    References:
        Gohari et al. 2020, Algorithm 1 (finite horizon) and Sec. II-B (V_t^π);
        Puterman 1994, Sec. 4.5.
    """
    if not isinstance(mdp, FiniteMDP):
        raise InvalidArgument(f"mdp={mdp!r}: expected a FiniteMDP")
    if mdp.horizon is None:
        raise InvalidArgument("mdp: has an infinite horizon; use evaluate_policy or value_iteration")
    if policy is not None:
        policy.check_compatible(mdp)
    horizon = mdp.horizon
    values = np.empty((horizon + 1, mdp.n_states))
    q_all = np.empty((horizon, mdp.n_states, mdp.n_actions))
    values[horizon] = mdp.terminal_values
    for stage in range(horizon - 1, -1, -1):
        q = q_values(mdp, values[stage + 1])
        q_all[stage] = q
        values[stage] = q.max(axis=1) if policy is None else np.sum(policy.at(stage) * q, axis=1)
    if policy is None:
        used = greedy_policy(q_all)
    elif policy.is_stationary:
        used = MarkovPolicy(np.broadcast_to(policy.probabilities, q_all.shape))
    else:
        used = MarkovPolicy(policy.probabilities[:horizon])
    return FiniteHorizonSolution(values, q_all, used)
