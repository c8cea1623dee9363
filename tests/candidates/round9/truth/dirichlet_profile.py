"""Exact privacy profile of the Dirichlet mechanism on one b-adjacent pair of rows.

Two rows p, p' that differ in coordinates i, j only (p'_i = p_i + t, p'_j = p_j - t) give Dirichlet
densities whose ratio depends on (x_i, x_j) alone, and by aggregation (x_i, x_j, 1 - x_i - x_j) ~
Dir(k p_i, k p_j, k r), r = 1 - p_i - p_j; so any number of next states reduces to three coordinates
(or two when r = 0, a Beta law). The profile max(H_eps(P||Q), H_eps(Q||P)) is a Gauss-Legendre
quadrature on the triangle (x1 = u, x2 = (1-u) v), n^2 nodes; with k p >= 1 the densities are bounded.
Check: k = 5, (0.2, 0.3, 0.5) vs (0.3, 0.2, 0.5) gives eps(0.01) = 1.94847 and delta(1.95) = 0.0099699,
the numbers of specs/examples/dirichlet_candidate.toml.
"""

import math

import numpy as np
from scipy import special, stats


def pair_profile_fn(k, a, b, r, t, n=1500):
    """Dir(k(a, b, r)) vs Dir(k(a+t, b-t, r)); r=0 means two coordinates (Beta)."""
    if r == 0:
        # x ~ Beta(ka, kb): Gauss-Legendre on (0, 1)
        xs, ws = np.polynomial.legendre.leggauss(4000)
        x = 0.5 * (xs + 1)
        w = 0.5 * ws
        lp = stats.beta.logpdf(x, k * a, k * b)
        lq = stats.beta.logpdf(x, k * (a + t), k * (b - t))
        P = np.exp(lp)
        Q = np.exp(lq)

        def prof(e):
            return max(np.sum(w * np.maximum(P - math.exp(e) * Q, 0)), np.sum(w * np.maximum(Q - math.exp(e) * P, 0)))

        return prof
    # 2D: (x1, x2) on simplex, x3 = 1-x1-x2; map x1 = u, x2 = (1-u) v
    xs, ws = np.polynomial.legendre.leggauss(n)
    u = 0.5 * (xs + 1)
    wu = 0.5 * ws
    U, V = np.meshgrid(u, u, indexing="ij")
    W = np.outer(wu, wu) * (1 - U)
    X1 = U
    X2 = (1 - U) * V
    X3 = (1 - U) * (1 - V)

    def logdir(al):
        return (
            special.gammaln(sum(al))
            - sum(special.gammaln(x) for x in al)
            + (al[0] - 1) * np.log(X1)
            + (al[1] - 1) * np.log(X2)
            + (al[2] - 1) * np.log(X3)
        )

    P = np.exp(logdir([k * a, k * b, k * r]))
    Q = np.exp(logdir([k * (a + t), k * (b - t), k * r]))

    def prof(e):
        return max(np.sum(W * np.maximum(P - math.exp(e) * Q, 0)), np.sum(W * np.maximum(Q - math.exp(e) * P, 0)))

    return prof
