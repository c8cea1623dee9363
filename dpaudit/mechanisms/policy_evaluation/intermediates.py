"""Every quantity DP-LSW and DP-LSL compute on one dataset, for reports and white-box verifiers.

References:
    Balle, Gomrokchi & Precup 2016, Algorithms 1 and 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DpLslIntermediates", "DpLswIntermediates", "SmoothReleaseIntermediates"]


@dataclass(frozen=True, eq=False)
class SmoothReleaseIntermediates:
    """What DP-LSW and DP-LSL both compute on one dataset: θ_X + N(0, σ_X² I) with σ_X from a β-smooth
    bound ψ_X of the φ-profile.

    Attributes:
        theta: θ_X (eq. (8) for DP-LSW, eq. (11) for DP-LSL).
        sigma: σ_X.
        signature: ⟨X⟩; m: the number of trajectories.
        phi_profile: φ_X(k) (eq. (9) for DP-LSW, eq. (12) for DP-LSL).
        k_argmax: the first k attaining ψ_X.
        psi: ψ_X = max_k e^{−kβ} φ_X(k).
        alpha, beta: the Lemma 1 constants of ``constant_set``.
        epsilon, delta: the privacy target; d: the number of features.
        return_bound: R_max/(1−γ), or F_max when given.
    """

    theta: np.ndarray
    sigma: float
    signature: np.ndarray
    m: int
    phi_profile: np.ndarray
    k_argmax: int
    psi: float
    alpha: float
    beta: float
    epsilon: float
    delta: float
    d: int
    constant_set: str
    return_bound: float


@dataclass(frozen=True, eq=False)
class DpLswIntermediates(SmoothReleaseIntermediates):
    """Every quantity DP-LSW (Algorithm 1) computes on one dataset: the shared ones (θ_X^w, φ_X^w(k) for
    k = 0..K_X, ψ_X^w, ...) and

    Attributes:
        k_max: K_X = max_s |X_s|.
        pinv_norm: ‖(Γ^{1/2} Φ)^†‖ (spectral norm).
        sensitivity_bound: the Corollary 3 / eq. (13) bound on ‖θ_X^w − θ_{X'}^w‖_2,
            return_bound · ‖(Γ^{1/2} Φ)^†‖ · √φ_X^w(0).
    """

    k_max: int
    pinv_norm: float
    sensitivity_bound: float


@dataclass(frozen=True, eq=False)
class DpLslIntermediates(SmoothReleaseIntermediates):
    """Every quantity DP-LSL (Algorithm 2) computes on one dataset: the shared ones (θ_X^λ, φ_X^λ(k) for
    k = 0..m, eq. (12) or Cor. 8 / Lemma 9 with saturation "max", ψ_X^λ over 0 <= k <= m, ...) and

    Attributes:
        phi_norm: ‖Φ‖; rho_inf: ‖ρ‖_∞; rho_norm: ‖ρ‖_2; lam: λ.
        c_lambda: ‖Φ‖ ‖ρ‖_∞ / √(2λ).
        sensitivity_bound: the Corollary 8 bound on ‖θ_X^λ − θ_{X'}^λ‖_2,
            2 · return_bound · ‖Φ‖ / (λ − ‖Φ‖²‖ρ‖_∞) · √φ_X^λ(0).
        saturation: "min" (eq. (12)) or "max" (Corollary 8 / Lemma 9 as printed).
    """

    phi_norm: float
    rho_inf: float
    rho_norm: float
    c_lambda: float
    lam: float
    sensitivity_bound: float
    saturation: str
