"""The Gaussian mechanism: output perturbation N(f(X), σ² I_d)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_real
from dpaudit.mechanisms.additive_noise import additive_noise_mechanism
from dpaudit.mechanisms.views import AuditPairsView, GaussianShiftView, GaussianView
from dpaudit.privacy.relations import Relation
from dpaudit.rng import normalize_rng

__all__ = ["MECHANISM", "GaussianMechanism"]


@dataclass(frozen=True)
class GaussianMechanism(GaussianView, GaussianShiftView, AuditPairsView):
    """Adds N(0, σ² I) to a query value f(X) whose L2 sensitivity is Δ.

    Here the dataset *is* the query value f(X) (a vector), so neighbouring datasets are
    any two vectors at L2 distance <= Δ.

    Attributes:
        sigma: noise standard deviation σ > 0.
        sensitivity: the L2 sensitivity Δ > 0 of f under the audited relation.

    References:
        Dwork & Roth 2014, Sec. 3.5.3; Balle & Wang 2018, Theorem 8 (exact profile).
    """

    sigma: float
    sensitivity: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_real("sigma", self.sigma, low=0.0, low_open=True))
        object.__setattr__(self, "sensitivity", check_real("sensitivity", self.sensitivity, low=0.0, low_open=True))

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Return f(X) + N(0, σ² I); with ``size``, a batch of ``size`` independent releases (rows)."""
        value = check_finite_array("data", data)
        generator = normalize_rng(rng)
        shape = value.shape if size is None else (size, *value.shape)
        noise = generator.standard_normal(shape)
        noise *= self.sigma  # in place: the same numbers as value + sigma * noise, two arrays fewer
        noise += value
        return noise if noise.ndim else noise[()]

    def gaussian_view(self, data: Any) -> tuple[np.ndarray, float]:
        """White-box view: the mean f(X) and the noise standard deviation σ."""
        return check_finite_array("data", data), self.sigma

    def gaussian_shift(self) -> tuple[float, float]:
        """White-box view: (Δ, σ) such that every release is N(f(X), σ² I) and neighbours have
        ‖f(X) − f(X')‖₂ <= Δ, all a shift-of-Gaussians profile needs (Balle & Wang 2018, Theorem 8)."""
        return self.sensitivity, self.sigma

    def audit_pairs(self, relation: Relation) -> list[tuple[np.ndarray, np.ndarray, str]]:
        """The worst-case neighbouring pair f(X) = 0, f(X') = Δ e1, for black-box and histogram audits.

        The profile depends only on ‖f(X) − f(X')‖₂ and grows with it, so this one pair is the
        worst case under any relation for which Δ is the stated sensitivity.

        References:
            Balle & Wang 2018, Theorem 8.
        """
        return [
            (np.zeros(1), np.full(1, self.sensitivity), f"f(X) = 0, f(X') = {self.sensitivity:g} ({relation.name})")
        ]


MECHANISM = additive_noise_mechanism(
    "gaussian",
    "N(f(X), sigma^2 I) with a stated L2 sensitivity of f",
    GaussianMechanism,
    norm=2,
    views=frozenset({GaussianView, GaussianShiftView, AuditPairsView}),
    source="Dwork & Roth 2014, Sec. 3.5.3",
)
