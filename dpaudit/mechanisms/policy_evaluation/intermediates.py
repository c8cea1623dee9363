"""Every quantity DP-LSW and DP-LSL compute on one dataset, for reports and white-box verifiers.

References:
    Balle, Gomrokchi & Precup 2016, Algorithms 1 and 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DpLslIntermediates", "DpLswIntermediates"]


@dataclass(frozen=True, eq=False)
class DpLswIntermediates:
    """Every quantity DP-LSW (Algorithm 1) computes on one dataset, for reports and verifiers.

    Attributes:
        theta: θ_X^w (eq. (8)).
        sigma: σ_X.
        signature: ⟨X⟩; m: the number of trajectories.
        phi_profile: φ_X^w(k) for k = 0..K_X (eq. (9)).
        k_max: K_X = max_s |X_s|; k_argmax: the first k attaining ψ_X^w.
        psi: ψ_X^w = max_k e^{−kβ} φ_X^w(k).
        alpha, beta: the Lemma 1 constants of ``constant_set``.
        return_bound: R_max/(1−γ), or F_max when given.
        pinv_norm: ‖(Γ^{1/2} Φ)^†‖ (spectral norm).
        sensitivity_bound: the Corollary 3 / eq. (13) bound on ‖θ_X^w − θ_{X'}^w‖_2,
            return_bound · ‖(Γ^{1/2} Φ)^†‖ · √φ_X^w(0).
    """

    theta: np.ndarray
    sigma: float
    signature: np.ndarray
    m: int
    phi_profile: np.ndarray
    k_max: int
    k_argmax: int
    psi: float
    alpha: float
    beta: float
    epsilon: float
    delta: float
    d: int
    constant_set: str
    return_bound: float
    pinv_norm: float
    sensitivity_bound: float


@dataclass(frozen=True, eq=False)
class DpLslIntermediates:
    """Every quantity DP-LSL (Algorithm 2) computes on one dataset, for reports and verifiers.

    Attributes:
        theta: θ_X^λ (eq. (11)).
        sigma: σ_X.
        signature: ⟨X⟩; m: the number of trajectories.
        phi_profile: φ_X^λ(k) for k = 0..m (eq. (12), or Cor. 8 / Lemma 9 with saturation "max").
        k_argmax: the first k attaining ψ_X^λ.
        psi: ψ_X^λ = max_{0 <= k <= m} e^{−kβ} φ_X^λ(k).
        alpha, beta: the Lemma 1 constants of ``constant_set``.
        return_bound: R_max/(1−γ), or F_max when given.
        phi_norm: ‖Φ‖; rho_inf: ‖ρ‖_∞; rho_norm: ‖ρ‖_2; lam: λ.
        c_lambda: ‖Φ‖ ‖ρ‖_∞ / √(2λ).
        sensitivity_bound: the Corollary 8 bound on ‖θ_X^λ − θ_{X'}^λ‖_2,
            2 · return_bound · ‖Φ‖ / (λ − ‖Φ‖²‖ρ‖_∞) · √φ_X^λ(0).
        saturation: "min" (eq. (12)) or "max" (Corollary 8 / Lemma 9 as printed).
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
    phi_norm: float
    rho_inf: float
    rho_norm: float
    c_lambda: float
    lam: float
    sensitivity_bound: float
    saturation: str
