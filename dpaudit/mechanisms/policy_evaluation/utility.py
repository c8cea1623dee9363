"""The utility statements of Balle et al. 2016 for DP-LSW, as functions to compare against runs.

* Lemma 22 (appendix D): E_η[J_X^w(θ̂_X^w) − J_X^w(θ_X^w) | X] = σ_X² ‖Γ^{1/2} Φ‖_F².
* Theorem 11 (main text; Corollary 27 of the appendix): with S_0 the states of visit
  probability p_s = 0, S_+ the others, C = α R_max ‖(Γ^{1/2}Φ)^†‖ ‖Γ^{1/2}Φ‖_F / (1 − γ)
  and β <= 1/2,
  E_{X,η}[J_X^w(θ̂_X^w) − J_X^w(θ_X^w)] <= C² (Σ_{S_0} w_s + 6 Σ_{S_+} w_s (1/(p_s² m²) + β² (1 − β p_s/2)^m)).

Finding (see tests/mechanisms/test_policy_evaluation_utility.py): Theorem 11 does not hold
on the paper's own chain experiment. Its proof rests on Lemma 23, whose "otherwise" case
max_{0<=x<=a−1} e^{−bx}/(a−x)² = (e²/4) b² e^{−ab} is the *minimum* of that function (the
only critical point, x = a − 2/b, has a positive second derivative); the maximum is
max{1/a², e^{−b(a−1)}}. Since k = K_X − 1 is in Algorithm 1's range, ψ_X^w >= e^{−(K_X−1)β} Σ_s w_s
>= e^{−(m−1)β} Σ_s w_s for every dataset, which exceeds the bound for moderate m.

The DP-LSL analysis of appendix E has the same kind of slip: Lemma 30 returns a for
b < a/2, but max_{0<=x<=m−a} e^{−2bx}(a + x) is attained at the interior point
x = 1/(2b) − a whenever b < 1/(2a); and the proof of Theorem 32 bounds e^{−kβ}(·)² with
e^{−2kβ} (which is smaller). Theorem 32 is not encoded here.

References:
    Balle, Gomrokchi & Precup 2016, Theorem 11 and Corollary 12 (Sec. 5); appendix D:
    Lemmas 22, 23, 25, Theorem 26, Corollary 27.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument

__all__ = ["lsw_excess_risk_bound", "lsw_psi_lower_bound"]


def lsw_excess_risk_bound(
    weights: Any,
    visit_probabilities: Any,
    m: int,
    beta: float,
    alpha: float,
    bound: float,
    pinv_norm: float,
    frobenius: float,
) -> float:
    """Return Theorem 11's upper bound on DP-LSW's expected excess empirical risk, as stated.

    Args:
        weights: w_s > 0 per state.
        visit_probabilities: p_s = P[s ∈ x] per state, in [0, 1].
        m: the number of trajectories.
        beta: β of Lemma 1 (Theorem 11 assumes β <= 1/2).
        alpha: α of Lemma 1.
        bound: R_max/(1−γ) (or F_max, the same substitution as in σ_X).
        pinv_norm: ‖(Γ^{1/2}Φ)^†‖; frobenius: ‖Γ^{1/2}Φ‖_F.

    Raises:
        InvalidArgument: for β > 1/2 (outside the theorem's hypothesis) or bad arrays.

    References:
        Balle et al. 2016, Theorem 11 (Corollary 27 in appendix D).
    """
    w = check_finite_array("weights", weights, ndim=1, nonnegative=True)
    p = check_finite_array("visit_probabilities", visit_probabilities, shape=w.shape, nonnegative=True)
    if (p > 1).any():
        raise InvalidArgument("visit_probabilities: expected probabilities in [0, 1]")
    m = check_integer("m", m, low=1)
    beta = check_real("beta", beta, low=0.0, high=0.5, low_open=True)
    c_squared = (alpha * bound * pinv_norm * frobenius) ** 2
    visited = p > 0
    terms = np.zeros_like(w)
    safe = np.where(visited, p, 1.0)
    terms[visited] = 6 * (1 / (safe[visited] ** 2 * m**2) + beta**2 * (1 - beta * safe[visited] / 2) ** m)
    return float(c_squared * (np.sum(w[~visited]) + np.sum(w[visited] * terms[visited])))


def lsw_psi_lower_bound(weights: Any, m: int, beta: float) -> float:
    """Return e^{−(m−1)β} Σ_s w_s, a lower bound on ψ_X^w for every dataset of m >= 1 trajectories.

    Algorithm 1 maximises over 0 <= k <= K_X with K_X = max_s |X_s| <= m; at k = K_X − 1 every
    max{|X_s| − k, 1} is 1, so φ_X^w(K_X − 1) = Σ_s w_s (Lemma 5) when K_X >= 1, and
    φ_X^w(0) = Σ_s w_s when K_X = 0.

    References:
        Balle et al. 2016, Algorithm 1, eq. (9), Lemma 5.
    """
    w = check_finite_array("weights", weights, ndim=1, nonnegative=True)
    m = check_integer("m", m, low=1)
    beta = check_real("beta", beta, low=0.0)
    return float(np.exp(-(m - 1) * beta) * np.sum(w))
