"""The inner problem of the cost-of-privacy bounds solved as an LP with cvxpy, as an independent
cross-check of the exact solution; the solver's answer is re-checked (feasibility, duality gap,
complementary slackness) before it is used.

References:
    Gohari, Hale, Topcu 2020, Sec. V-A, LP (P).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit._validation import check_choice
from dpaudit.errors import NumericalError

__all__ = ["LPCertificate", "inner_problem_cvxpy"]


@dataclass(frozen=True)
class LPCertificate:
    """The re-check of a cvxpy solution of the LP (P).

    Attributes:
        objective: the primal objective value found.
        dual_objective: the dual objective built from the returned dual values.
        primal_infeasibility: largest constraint violation of the primal point.
        dual_infeasibility: largest negative part of the inequality multipliers plus the
            stationarity residual.
        complementary_slackness: largest |z_i (G x − h)_i|.
    """

    objective: float
    dual_objective: float
    primal_infeasibility: float
    dual_infeasibility: float
    complementary_slackness: float

    def trusted(self, tolerance: float) -> bool:
        """Whether every residual and the duality gap are within ``tolerance``."""
        return (
            self.primal_infeasibility <= tolerance
            and self.dual_infeasibility <= tolerance
            and self.complementary_slackness <= tolerance
            and abs(self.objective - self.dual_objective) <= tolerance
        )


class _InnerLP:
    """The LP (P) in matrix form, x = (P1, P2, p) ∈ R^{3n}, built once per n and re-solved."""

    def __init__(self, n: int, solver: str):
        import cvxpy as cp

        self.n = n
        self.solver = solver
        eye = np.eye(n)
        zero = np.zeros((n, n))
        ones = np.ones((1, n))
        empty = np.zeros((1, n))
        self.a_matrix = np.vstack(
            [
                np.hstack([ones, empty, empty]),
                np.hstack([empty, ones, empty]),
                np.hstack([empty, empty, ones]),
            ]
        )
        self.x = cp.Variable(3 * n)
        self.cost = cp.Parameter(3 * n)
        self.mix = cp.Parameter(nonneg=True)
        self.h = cp.Parameter(5 * n)
        self.g_matrix = np.vstack(
            [
                -np.hstack([eye, zero, zero]),
                -np.hstack([zero, eye, zero]),
                -np.hstack([zero, zero, eye]),
                np.hstack([zero, eye, zero]),
                -np.hstack([zero, eye, zero]),
            ]
        )
        self.b_vector = np.array([1.0, 1.0, 1.0])
        mixing = cp.hstack([self.mix * self.x[:n] + (1 - self.mix) * self.x[n : 2 * n] - self.x[2 * n :]])
        self.equalities = self.a_matrix @ self.x == self.b_vector
        self.mixing = mixing == 0
        self.inequalities = self.g_matrix @ self.x <= self.h
        self.problem = cp.Problem(cp.Minimize(self.cost @ self.x), [self.equalities, self.mixing, self.inequalities])

    def solve(self, signed: np.ndarray, center: np.ndarray, alpha: float, beta: float) -> LPCertificate:
        n = self.n
        cost = np.concatenate([np.zeros(2 * n), signed])
        h = np.concatenate([np.zeros(3 * n), center + alpha, -(center - alpha)])
        self.cost.value, self.mix.value, self.h.value = cost, beta, h
        options = _TIGHT_OPTIONS.get(self.solver, {})
        self.problem.solve(solver=self.solver, **options)
        if self.problem.status != "optimal":
            raise NumericalError(f"cvxpy ({self.solver}) returned status {self.problem.status!r} for the LP (P)")
        x = np.asarray(self.x.value)
        y = np.asarray(self.equalities.dual_value)
        w = np.asarray(self.mixing.dual_value)
        z = np.asarray(self.inequalities.dual_value)
        mix_matrix = np.hstack([beta * np.eye(n), (1 - beta) * np.eye(n), -np.eye(n)])
        slack = self.g_matrix @ x - h
        primal = max(
            float(np.max(np.abs(self.a_matrix @ x - self.b_vector))),
            float(np.max(np.abs(mix_matrix @ x))),
            float(np.max(slack, initial=0.0)),
        )
        stationarity = cost + self.a_matrix.T @ y + mix_matrix.T @ w + self.g_matrix.T @ z
        dual = max(float(np.max(-z, initial=0.0)), float(np.max(np.abs(stationarity))))
        return LPCertificate(
            objective=float(cost @ x),
            dual_objective=float(-self.b_vector @ y - h @ z),
            primal_infeasibility=primal,
            dual_infeasibility=dual,
            complementary_slackness=float(np.max(np.abs(z * slack))),
        )


_LP_CACHE: dict[tuple[int, str], _InnerLP] = {}


_TIGHT_OPTIONS: dict[str, dict[str, float]] = {
    "CLARABEL": {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12, "tol_ktratio": 1e-10},
}


def inner_problem_cvxpy(
    values: np.ndarray,
    center: np.ndarray,
    alpha: float,
    beta: float,
    *,
    sense: str = "min",
    solver: str = "CLARABEL",
    tolerance: float = 1e-7,
) -> float:
    """Solve one inner problem as the LP (P) with cvxpy and return its value after re-checking it.

    The solution is trusted only if primal feasibility, dual feasibility (sign of the
    multipliers and stationarity), complementary slackness and the duality gap are all
    within ``tolerance``.

    Raises:
        NumericalError: when the solver fails or its answer does not pass the re-check.

    References:
        Gohari et al. 2020, LP (P), Sec. V-A.
    """
    check_choice("sense", sense, ("min", "max"))
    values = np.asarray(values, dtype=np.float64)
    signed = values if sense == "min" else -values
    key = (values.size, solver)
    if key not in _LP_CACHE:
        _LP_CACHE[key] = _InnerLP(values.size, solver)
    certificate = _LP_CACHE[key].solve(signed, np.asarray(center, dtype=np.float64), alpha, beta)
    if not certificate.trusted(tolerance * max(1.0, float(np.max(np.abs(values))))):
        raise NumericalError(f"cvxpy solution of the LP (P) failed its re-check: {certificate}")
    return certificate.objective if sense == "min" else -certificate.objective
