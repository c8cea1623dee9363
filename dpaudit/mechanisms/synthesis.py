"""Private policy synthesis (Algorithm 1) and the cost-of-privacy bounds of Theorems 1 and 2.

Algorithm 1 privatises every transition row P(s, a) with the Dirichlet mechanism, plans on
the privatised MDP (backward induction for T < ∞, value iteration for T = ∞) and evaluates
the synthesised policy π̄. The cost of privacy is bounded by the pessimistic and optimistic
value functions of π̄ whose inner problem is

    min (or max) over p ∈ P̂_{α,β}(s, a) of Σ_s' p(s') v(s'),
    P̂_{α,β}(s, a) = {β P1 + (1 − β) P2 : P1 ∈ Δ, P2 ∈ Δ, ‖P2 − P̄(s, a)‖∞ <= α},

a linear objective over a mixture of a simplex and a box ∩ simplex. It separates:
β · min_s' v(s') + (1 − β) · min over the box ∩ simplex, and the latter is solved exactly
by filling the box's lower corner and pouring the remaining mass into the states of lowest
v first (a fractional knapsack). ``cvxpy`` solves the LP (P) as an independent cross-check
whose answer is re-checked (primal feasibility, dual feasibility, complementary slackness,
duality gap) before it is used.

References:
    Gohari, Hale, Topcu 2020: Algorithm 1; eq. (1) (P̂_{α,β}); Lemma 2 (α); Theorem 1
    (finite horizon); Lemma 4 and Theorem 2 (infinite horizon, γ-contractions); Sec. V-A,
    LP (P).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_choice, check_real
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.mechanisms.dirichlet import (
    SIMPLEX_ATOL,
    DirichletMechanism,
    log_gamma_variates,
)
from dpaudit.mechanisms.synthesis_lp import inner_problem_cvxpy
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.planning import backward_induction, evaluate_policy, value_iteration
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rng import normalize_rng

special = lazy_module("scipy.special")

__all__ = [
    "CostOfPrivacy",
    "PrivatizedTransitions",
    "SynthesisResult",
    "concentration_radius",
    "cost_of_privacy",
    "inner_problem_exact",
    "privatize_transitions",
    "privatized_transition_draws",
    "synthesize",
]

STRUCTURAL_ZEROS = ("reject", "keep")


def concentration_radius(k: float, beta: float) -> float:
    """α = sqrt(log(1/β) / (2 (k + 1))) of Lemma 2 / Theorem 1.

    References:
        Gohari et al. 2020, Lemma 2 and the definition of α before eq. (1).
    """
    k = check_real("k", k, low=0.0, low_open=True)
    beta = check_real("beta", beta, low=0.0, high=1.0, low_open=True, high_open=True)
    return math.sqrt(math.log(1.0 / beta) / (2.0 * (k + 1.0)))


@dataclass(frozen=True, eq=False)
class PrivatizedTransitions:
    """The output of step 1 of Algorithm 1.

    Attributes:
        transitions: P̄[s, a, s'], every row a probability vector.
        privatized_rows: mask (S, A) of the rows that went through the mechanism (rows with
            a single support point under ``structural_zeros='keep'`` are point masses and
            stay as they are).
        underflowed_entries: entries whose privatised value is below the float64 range and
            became 0 (reported, never silent); their log value is below −745.
    """

    transitions: np.ndarray
    privatized_rows: np.ndarray
    underflowed_entries: int


def privatize_transitions(
    transitions: Any, k: float, *, rng: Any, structural_zeros: str = "reject"
) -> PrivatizedTransitions:
    """Step 1 of Algorithm 1: P̄(s, a) = M_D^(k)(P(s, a)) independently for every row.

    Args:
        transitions: P[s, a, s'], shape (S, A, S).
        k: the Dirichlet mechanism's parameter.
        rng: randomness (keyword-only).
        structural_zeros: ``reject`` (the paper's domain: every row in the open simplex)
            or ``keep`` (a documented variant: each row is privatised on its support, zeros
            are treated as public structure and stay 0).

    Raises:
        InvalidArgument: a zero entry under ``reject`` (naming the row), rows not summing to
            1, k <= 0.

    References:
        Gohari et al. 2020, Algorithm 1 step 1; Sec. II-D (inputs in Δ°(n)).
    """
    matrix = _checked_transitions(transitions, structural_zeros)
    privatized, underflow = _privatized_draws(matrix, k, 1, normalize_rng(rng))
    rows = matrix.reshape(-1, matrix.shape[2])
    mask = ((rows > 0.0).sum(axis=1) != 1).reshape(matrix.shape[:2])
    return PrivatizedTransitions(privatized[0], mask, underflow)


def privatized_transition_draws(
    transitions: Any, k: float, size: int, *, rng: Any, structural_zeros: str
) -> np.ndarray:
    """``size`` independent draws of Step 1 of Algorithm 1, stacked on axis 0 (shape (size, S, A, S)).

    The draws consume ``rng`` as ``size`` calls of :func:`privatize_transitions` would not (one
    batch of Gamma variates, then one of uniforms), with the same law.

    Raises:
        InvalidArgument, NumericalError: as :func:`privatize_transitions`.

    References:
        Gohari et al. 2020, Algorithm 1 step 1.
    """
    matrix = _checked_transitions(transitions, structural_zeros)
    return _privatized_draws(matrix, k, size, normalize_rng(rng))[0]


def _checked_transitions(transitions: Any, structural_zeros: str) -> np.ndarray:
    """``transitions`` as a float64 array of shape (S, A, S), rows in the simplex (:func:`privatize_transitions`)."""
    check_choice("structural_zeros", structural_zeros, STRUCTURAL_ZEROS)
    matrix = np.asarray(transitions, dtype=np.float64)
    if matrix.ndim != 3 or matrix.shape[0] != matrix.shape[2]:
        raise InvalidArgument(f"transitions: expected shape (S, A, S), got {matrix.shape}")
    rows = matrix.reshape(-1, matrix.shape[2])
    if not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise InvalidArgument("transitions: expected finite, non-negative entries")
    sums = rows.sum(axis=1)
    bad_sum = np.flatnonzero(np.abs(sums - 1.0) > SIMPLEX_ATOL)
    if bad_sum.size:
        s, a = divmod(int(bad_sum[0]), matrix.shape[1])
        raise InvalidArgument(f"transitions[{s}, {a}, :] sums to {float(sums[bad_sum[0]])!r}, expected 1")
    zero_rows = np.flatnonzero(np.any(rows == 0.0, axis=1))
    if structural_zeros == "reject" and zero_rows.size:
        s, a = divmod(int(zero_rows[0]), matrix.shape[1])
        raise InvalidArgument(
            f"transitions[{s}, {a}, :] has a zero probability: the Dirichlet mechanism needs rows in the open "
            "simplex; pass structural_zeros='keep' to privatise each row on its support (documented variant)"
        )
    return matrix


def _privatized_draws(
    matrix: np.ndarray, k: float, size: int, generator: np.random.Generator
) -> tuple[np.ndarray, int]:
    """``size`` privatised copies of the checked ``matrix`` (shape (size, S, A, S)) and the count of
    supported entries that underflowed to 0 (each row on its support; a row with one supported entry is kept)."""
    mechanism = DirichletMechanism(k)
    rows = matrix.reshape(-1, matrix.shape[2])
    support = rows > 0.0
    shapes = np.where(support, mechanism.k * rows, 1.0)
    log_g = np.where(support, log_gamma_variates(shapes, (size, *shapes.shape), generator), -np.inf)
    if np.any(support & ~np.isfinite(log_g)):
        raise NumericalError(
            f"privatize_transitions: a shape k*P(s,a,s')={float(shapes[support].min())!r} is too small for float64 "
            "log-space sampling"
        )
    log_x = log_g - special.logsumexp(log_g, axis=-1, keepdims=True)
    privatized = np.exp(log_x)
    single = support.sum(axis=1) == 1
    privatized[:, single] = rows[single]
    underflow = int(np.count_nonzero(support & (privatized == 0.0)))
    return privatized.reshape(size, *matrix.shape), underflow


@dataclass(frozen=True, eq=False)
class SynthesisResult:
    """The outputs of Algorithm 1 and the values used to judge it.

    Attributes:
        privatized: P̄ and its bookkeeping.
        policy: π̄, optimal for the privatised MDP.
        private_values: V̄^π̄ (values of π̄ under P̄; shape (T+1, S) or (S,)).
        true_values: V^π̄ (values of π̄ under the true P).
        optimal_values: V* of the true MDP (the non-private optimum).
    """

    privatized: PrivatizedTransitions
    privatized_mdp: FiniteMDP
    policy: MarkovPolicy
    private_values: np.ndarray
    true_values: np.ndarray
    optimal_values: np.ndarray


def synthesize(mdp: FiniteMDP, k: float, *, rng: Any, structural_zeros: str = "reject") -> SynthesisResult:
    """Algorithm 1: privatise every row, synthesise π̄ on the privatised MDP, evaluate it.

    Raises:
        InvalidArgument: see :func:`privatize_transitions`.

    References:
        Gohari et al. 2020, Algorithm 1, Sec. III-A.
    """
    if not isinstance(mdp, FiniteMDP):
        raise InvalidArgument(f"mdp={mdp!r}: expected a FiniteMDP")
    privatized = privatize_transitions(mdp.transitions, k, rng=rng, structural_zeros=structural_zeros)
    private_mdp = mdp.with_transitions(privatized.transitions)
    if mdp.horizon is not None:
        solution = backward_induction(private_mdp)
        policy = solution.policy
        private_values = solution.values
        true_values = backward_induction(mdp, policy).values
        optimal_values = backward_induction(mdp).values
    else:
        infinite = value_iteration(private_mdp, tol=1e-12)
        policy = infinite.policy
        private_values = evaluate_policy(private_mdp, policy)
        true_values = evaluate_policy(mdp, policy)
        optimal_values = value_iteration(mdp, tol=1e-12).values
    return SynthesisResult(privatized, private_mdp, policy, private_values, true_values, optimal_values)


def _box(center: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    return np.maximum(center - alpha, 0.0), np.minimum(center + alpha, 1.0)


def _box_simplex_min(values: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min over {x : lower <= x <= upper, Σ x = 1} of x · values, row by row (greedy)."""
    order = np.argsort(values, kind="stable")
    low, high = lower[:, order], upper[:, order]
    remaining = np.maximum(1.0 - low.sum(axis=1), 0.0)
    capacity = high - low
    before = np.cumsum(capacity, axis=1) - capacity
    sorted_x = low + np.clip(remaining[:, None] - before, 0.0, capacity)
    x = np.empty_like(sorted_x)
    x[:, order] = sorted_x
    return x @ values, x


def inner_problem_exact(
    values: np.ndarray, centers: np.ndarray, alpha: float, beta: float, *, sense: str = "min"
) -> tuple[np.ndarray, np.ndarray]:
    """Exact optimum of the inner problem of Theorem 1 for every row of ``centers``.

    Args:
        values: v(s'), shape (S,).
        centers: P̄(s, a) rows, shape (R, S).
        alpha: the box radius α.
        beta: the mixture weight β ∈ (0, 1).
        sense: ``min`` (pessimistic) or ``max`` (optimistic).

    Returns:
        (optimal objective per row, shape (R,); an optimal p per row, shape (R, S)).

    References:
        Gohari et al. 2020, eq. (1) and LP (P) (Sec. V-A).
    """
    check_choice("sense", sense, ("min", "max"))
    values = np.asarray(values, dtype=np.float64)
    signed = values if sense == "min" else -values
    lower, upper = _box(np.atleast_2d(centers), alpha)
    objective, p2 = _box_simplex_min(signed, lower, upper)
    corner = int(np.argmin(signed))
    p1 = np.zeros_like(p2)
    p1[:, corner] = 1.0
    best = beta * signed[corner] + (1.0 - beta) * objective
    p = beta * p1 + (1.0 - beta) * p2
    return (best if sense == "min" else -best), p


"""Solver tolerances well below the 1e-8 agreement the cross-check asks for."""


@dataclass(frozen=True, eq=False)
class CostOfPrivacy:
    """The pessimistic and optimistic value functions of π̄ (Theorems 1 and 2).

    Attributes:
        lower: v̲ (shape (T+1, S) for a finite horizon, (S,) otherwise).
        upper: v̄, same shape.
        alpha: the box radius α of Lemma 2.
        beta: the confidence parameter β.
        iterations: sweeps of the contractions L1 (Theorem 2); T for a finite horizon.
    """

    lower: np.ndarray
    upper: np.ndarray
    alpha: float
    beta: float
    iterations: int

    def at_start(self, initial: np.ndarray) -> tuple[float, float]:
        """(v̲_0, v̄_0) averaged over the start distribution (= v(s0) for a point mass)."""
        low = self.lower[0] if self.lower.ndim == 2 else self.lower
        high = self.upper[0] if self.upper.ndim == 2 else self.upper
        return float(initial @ low), float(initial @ high)


def _inner_all_rows(values, centers, alpha, beta, sense, inner):
    if inner == "exact":
        return inner_problem_exact(values, centers, alpha, beta, sense=sense)[0]
    return np.array([inner_problem_cvxpy(values, row, alpha, beta, sense=sense) for row in centers])


def cost_of_privacy(
    mdp: FiniteMDP,
    policy: MarkovPolicy,
    privatized_transitions: np.ndarray,
    k: float,
    beta: float,
    *,
    inner: str = "exact",
    tol: float = 1e-10,
    max_iterations: int = 100_000,
) -> CostOfPrivacy:
    """The pessimistic and optimistic values v̲^π̄, v̄^π̄ of Theorem 1 (T < ∞) or Theorem 2 (T = ∞).

    Args:
        mdp: the MDP (its rewards, γ, horizon, terminal values R_T; its transitions are not used).
        policy: π̄.
        privatized_transitions: P̄, shape (S, A, S).
        k: the mechanism's k (through α).
        beta: β ∈ (0, 1).
        inner: ``exact`` (greedy) or ``cvxpy`` (the LP (P) for every inner problem, re-checked).
        tol: sup-norm accuracy of the infinite-horizon fixed points.
        max_iterations: sweep limit for T = ∞.

    Raises:
        NumericalError: when the contraction does not reach ``tol``.

    References:
        Gohari et al. 2020, Theorem 1, Lemma 4, Theorem 2, Sec. V.
    """
    check_choice("inner", inner, ("exact", "cvxpy"))
    alpha = concentration_radius(k, beta)
    centers = np.asarray(privatized_transitions, dtype=np.float64)
    n_states, n_actions = mdp.n_states, mdp.n_actions
    rows = centers.reshape(-1, n_states)
    rewards = mdp.expected_rewards
    policy.check_compatible(mdp)

    def backup(values: np.ndarray, sense: str, stage: int) -> np.ndarray:
        inner_values = _inner_all_rows(values, rows, alpha, beta, sense, inner).reshape(n_states, n_actions)
        return np.sum(policy.at(stage) * (rewards + mdp.gamma * inner_values), axis=1)

    if mdp.horizon is not None:
        horizon = mdp.horizon
        stage_lower = np.empty((horizon + 1, n_states))
        stage_upper = np.empty((horizon + 1, n_states))
        stage_lower[horizon] = stage_upper[horizon] = mdp.terminal_values
        for stage in range(horizon - 1, -1, -1):
            stage_lower[stage] = backup(stage_lower[stage + 1], "min", stage)
            stage_upper[stage] = backup(stage_upper[stage + 1], "max", stage)
        return CostOfPrivacy(stage_lower, stage_upper, alpha, beta, horizon)
    threshold = math.inf if mdp.gamma == 0.0 else tol * (1.0 - mdp.gamma) / mdp.gamma
    lower = np.zeros(n_states)
    upper = np.zeros(n_states)
    for iteration in range(1, max_iterations + 1):
        new_lower, new_upper = backup(lower, "min", 0), backup(upper, "max", 0)
        change = max(float(np.max(np.abs(new_lower - lower))), float(np.max(np.abs(new_upper - upper))))
        lower, upper = new_lower, new_upper
        if change <= threshold:
            return CostOfPrivacy(lower, upper, alpha, beta, iteration)
    raise NumericalError(f"cost_of_privacy: the contractions did not reach tol={tol:g} in {max_iterations} sweeps")
