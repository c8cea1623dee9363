"""The Laplace mechanism: output perturbation f(X) + Lap(b)^d with a stated L1 sensitivity Δ of f.

Exact privacy profile: for neighbours, the worst case is the one-dimensional pair
Lap(0, b) vs Lap(Δ, b) (a dominating pair for an L1-sensitivity-Δ query), whose
hockey-stick divergence is, with t = Δ/b,

    δ(ε) = 1 − exp((ε − t)/2)  for 0 <= ε < t,   δ(ε) = 0  for ε >= t.

References:
    Dwork & Roth 2014, Def. 3.3 and Theorem 3.6 (the mechanism, ε = Δ/b pure DP);
    Balle, Barthe & Gaboardi 2018, "Privacy amplification by subsampling", Sec. 3 (the
    Laplace profile); Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via
    characteristic function" (dominating pairs; the Laplace pair).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpaudit._validation import check_finite_array, check_real
from dpaudit.mechanisms.additive_noise import additive_noise_mechanism
from dpaudit.mechanisms.views import AuditPairsView, LaplaceView, PrivacyProfileView
from dpaudit.privacy.relations import Relation
from dpaudit.rng import normalize_rng

__all__ = ["MECHANISM", "LaplaceMechanism"]


@dataclass(frozen=True)
class LaplaceMechanism(LaplaceView, AuditPairsView, PrivacyProfileView):
    """Adds independent Laplace(0, b) noise to each coordinate of f(X), whose L1 sensitivity is Δ.

    As for the Gaussian mechanism, the dataset *is* the query value f(X).

    Attributes:
        scale: the noise scale b > 0 (standard deviation b·√2).
        sensitivity: the L1 sensitivity Δ > 0 of f under the audited relation.
    """

    scale: float
    sensitivity: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", check_real("scale", self.scale, low=0.0, low_open=True))
        object.__setattr__(self, "sensitivity", check_real("sensitivity", self.sensitivity, low=0.0, low_open=True))

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Return f(X) + Lap(0, b) per coordinate; with ``size``, that many independent releases (rows)."""
        value = check_finite_array("data", data)
        shape = value.shape if size is None else (size, *value.shape)
        return value + normalize_rng(rng).laplace(0.0, self.scale, shape)

    def laplace_view(self, data: Any) -> tuple[np.ndarray, float]:
        """White-box view: the centre f(X) and the noise scale b."""
        return check_finite_array("data", data), self.scale

    def audit_pairs(self, relation: Relation) -> list[tuple[np.ndarray, np.ndarray, str]]:
        """The worst-case pair f(X) = 0, f(X') = Δ (one coordinate), under any relation."""
        return [
            (np.zeros(1), np.full(1, self.sensitivity), f"f(X) = 0, f(X') = {self.sensitivity:g} ({relation.name})")
        ]

    def privacy_profile(self, epsilon: Any, *, digits: int = 60) -> mpmath.mpf:
        """The exact worst-case δ(ε) over neighbouring inputs, at ``digits`` significant digits.

        The result is a correctly rounded mpmath value of 1 − exp((ε − Δ/b)/2) (or 0): one
        subtraction, one division and one exponential, each with error below 2^-(prec) relative.
        """
        with mpmath.workdps(digits + 10):
            eps = mpmath.mpf(check_real("epsilon", epsilon, low=0.0))
            ratio = mpmath.mpf(self.sensitivity) / mpmath.mpf(self.scale)
            if eps >= ratio:
                return mpmath.mpf(0)
            return 1 - mpmath.exp((eps - ratio) / 2)


MECHANISM = additive_noise_mechanism(
    "laplace",
    "f(X) + Lap(0, b) per coordinate with a stated L1 sensitivity of f",
    LaplaceMechanism,
    norm=1,
    views=frozenset({LaplaceView, AuditPairsView, PrivacyProfileView}),
    source="Dwork & Roth 2014, Def. 3.3",
)
