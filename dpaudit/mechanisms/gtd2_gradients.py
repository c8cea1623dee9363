"""GTD2's per-trajectory primal-dual gradients B_i(θ, w) of Xie et al. 2019, eq. (4.1).

References:
    Xie, Thomas, Miklau 2019, "Privacy Preserving Off-Policy Evaluation", Sec. 4, eq. (4.1).
"""

from __future__ import annotations

import numpy as np

from dpaudit.mechanisms.gtd2 import TransitionTable, trajectory_normalisers

__all__ = ["primal_dual_gradients", "primal_dual_operators"]


def primal_dual_gradients(
    table: TransitionTable, indices: np.ndarray, theta: np.ndarray, w: np.ndarray, *, normalisation: str = "mean"
) -> np.ndarray:
    """B_i(θ, w) of eq. (4.1) for the trajectories ``indices`` (rows of the result).

    B_i = [−Â_iᵀ w ; Â_i θ + Ĉ_i w − b̂_i], computed with matrix–vector products per
    transition (Â_i is never formed).
    """
    norms = trajectory_normalisers(table, normalisation)
    result = np.empty((len(indices), 2 * table.n_features))
    for row, i in enumerate(np.asarray(indices, dtype=np.int64)):
        lo, hi = table.offsets[i], table.offsets[i + 1]
        phi = table.phi[lo:hi]
        delta_phi = phi - table.gamma * table.phi_next[lo:hi]
        rho = table.rho[lo:hi]
        phi_w = phi @ w
        result[row, : table.n_features] = -(delta_phi.T @ (rho * phi_w)) / norms[i]
        result[row, table.n_features :] = (
            phi.T @ (rho * (delta_phi @ theta)) + phi.T @ phi_w - phi.T @ (rho * table.rewards[lo:hi])
        ) / norms[i]
    return result


def primal_dual_operators(table: TransitionTable, *, normalisation: str = "mean") -> tuple[np.ndarray, np.ndarray]:
    """B_i(θ, w) of eq. (4.1) as an affine map of (θ, w), for every trajectory i.

    Returns:
        ``(linear, constant)`` of shapes (m, 2n, 2n) and (m, 2n) with
        B_i(θ, w) = linear[i] @ [θ; w] + constant[i]: linear[i] = [[0, −Â_iᵀ], [Â_i, Ĉ_i]] and
        constant[i] = [0; −b̂_i], each divided by the trajectory's normaliser (the same numbers as
        :func:`primal_dual_gradients`, up to rounding).
    """
    norms = trajectory_normalisers(table, normalisation)
    n, m = table.n_features, table.n_trajectories
    linear, constant = np.zeros((m, 2 * n, 2 * n)), np.zeros((m, 2 * n))
    for i in range(m):
        lo, hi = table.offsets[i], table.offsets[i + 1]
        phi, rho = table.phi[lo:hi], table.rho[lo:hi]
        delta_phi = phi - table.gamma * table.phi_next[lo:hi]
        linear[i, :n, n:] = -(delta_phi.T @ (rho[:, None] * phi)) / norms[i]
        linear[i, n:, :n] = phi.T @ (rho[:, None] * delta_phi) / norms[i]
        linear[i, n:, n:] = phi.T @ phi / norms[i]
        constant[i, n:] = -(phi.T @ (rho * table.rewards[lo:hi])) / norms[i]
    return linear, constant
