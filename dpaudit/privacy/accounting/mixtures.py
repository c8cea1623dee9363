"""Pairs of one-dimensional Gaussian mixtures: the per-step output distributions accountants consume.

A mechanism that adds isotropic Gaussian noise to one of finitely many vectors lying
on a line reduces exactly to one dimension (project on the line; the orthogonal part
has the same law under both datasets). Its output under a dataset is then a mixture
Σ w_i N(m_i, σ²) with a common σ.

References:
    Mironov, Talwar, Zhang 2019, Sec. 3 (reduction of the sampled Gaussian to one dimension);
    Balle et al. 2018, "Privacy amplification by subsampling", Sec. 5 (mixture pairs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_finite_array, check_real
from dpaudit.errors import InvalidArgument

special = lazy_module("scipy.special")

__all__ = ["GaussianMixture", "OutputPair"]


@dataclass(frozen=True)
class GaussianMixture:
    """The law Σ_i w_i N(m_i, σ²) on the real line.

    Attributes:
        weights: mixture weights, non-negative, summing to 1 (within 1e-12).
        means: component means m_i.
        sigma: the common standard deviation σ > 0.
    """

    weights: tuple[float, ...]
    means: tuple[float, ...]
    sigma: float

    def __post_init__(self) -> None:
        weights = check_finite_array("weights", self.weights, ndim=1, nonnegative=True)
        means = check_finite_array("means", self.means, ndim=1)
        if weights.size == 0 or weights.size != means.size:
            raise InvalidArgument(
                f"weights and means: expected equal non-empty lengths, got {weights.size} and {means.size}"
            )
        if abs(float(weights.sum()) - 1.0) > 1e-12:
            raise InvalidArgument(f"weights: entries sum to {float(weights.sum())!r}, expected 1")
        object.__setattr__(self, "weights", tuple(float(w) for w in weights))
        object.__setattr__(self, "means", tuple(float(m) for m in means))
        object.__setattr__(self, "sigma", check_real("sigma", self.sigma, low=0.0, low_open=True))

    @classmethod
    def gaussian(cls, mean: float, sigma: float) -> GaussianMixture:
        """The single Gaussian N(mean, σ²)."""
        return cls((1.0,), (mean,), sigma)

    @classmethod
    def two_point(cls, q: float, mean_rare: float, mean_common: float, sigma: float) -> GaussianMixture:
        """(1 - q) N(mean_common, σ²) + q N(mean_rare, σ²)."""
        rate = check_real("q", q, low=0.0, high=1.0)
        return cls((1.0 - rate, rate), (mean_common, mean_rare), sigma)

    def reflected(self) -> GaussianMixture:
        """The law of -X."""
        return GaussianMixture(self.weights, tuple(-m for m in self.means), self.sigma)

    def _component_logits(self, x: Any) -> np.ndarray:
        """log w_i − (x − m_i)² / (2σ²) for each point of ``x`` (rows) and component i (last axis): the log
        densities of the weighted components, but for their common factor 1 / (σ √(2π))."""
        points = np.asarray(x, dtype=np.float64)[..., None]
        with np.errstate(divide="ignore"):
            log_weights = np.log(np.asarray(self.weights))
        z = (points - np.asarray(self.means)) / self.sigma
        return log_weights - 0.5 * z * z

    def log_density(self, x: Any) -> np.ndarray:
        """log of the density at each point of ``x`` (vectorised)."""
        logits = self._component_logits(x)
        # log-sum-exp over the components, shifted by the largest logit (by 0 where all are -inf: x = ±inf)
        top = logits.max(axis=-1)
        top = np.where(np.isneginf(top), 0.0, top)
        with np.errstate(divide="ignore"):
            log_spread = np.log(np.exp(logits - top[..., None]).sum(axis=-1))
        return top + log_spread - np.log(self.sigma * np.sqrt(2 * np.pi))

    def posterior_mean(self, x: Any) -> np.ndarray:
        """E[m_I | X = x] for the latent component I (used for the derivative of the privacy loss)."""
        logits = self._component_logits(x)
        posterior = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return (posterior * np.asarray(self.means)).sum(axis=-1) / posterior.sum(axis=-1)

    def mass(self, low: Any, high: Any) -> np.ndarray:
        """P(low <= X < high) for arrays of bounds (``±inf`` allowed), without cancellation in the tails."""
        a = np.asarray(low, dtype=np.float64)[..., None]
        b = np.asarray(high, dtype=np.float64)[..., None]
        means = np.asarray(self.means)
        za = (a - means) / self.sigma
        zb = (b - means) / self.sigma
        right = za > 0
        upper_tail = special.ndtr(-za) - special.ndtr(-zb)
        lower_tail = special.ndtr(zb) - special.ndtr(za)
        per_component = np.where(right, upper_tail, lower_tail)
        # einsum's loop, not a (threaded) BLAS product: this is a long, thin matrix
        return np.einsum("...i,i->...", np.clip(per_component, 0.0, None), np.asarray(self.weights))

    def support_bounds(self, tail: float) -> tuple[float, float]:
        """An interval outside which every component has mass below ``tail`` on each side."""
        width = float(-special.ndtri(tail)) * self.sigma
        return min(self.means) - width, max(self.means) + width


@dataclass(frozen=True)
class OutputPair:
    """An ordered pair of output laws (P under dataset d, Q under its neighbour d').

    Attributes:
        first: P, the output law under d.
        second: Q, the output law under d'.
        label: what the pair is, e.g. ``replace_one: record with gradient +h e1 swapped for -h e1``.
    """

    first: GaussianMixture
    second: GaussianMixture
    label: str = ""

    def __post_init__(self) -> None:
        if self.first.sigma != self.second.sigma:
            raise InvalidArgument(
                f"first.sigma={self.first.sigma!r}, second.sigma={self.second.sigma!r}: expected a common sigma"
            )

    def reversed(self) -> OutputPair:
        """The pair in the other order (Q, P)."""
        return OutputPair(self.second, self.first, f"{self.label} (reversed)" if self.label else "reversed")

    def privacy_loss(self, x: Any) -> np.ndarray:
        """L(x) = log p(x) - log q(x)."""
        return self.first.log_density(x) - self.second.log_density(x)

    def privacy_loss_slope(self, x: Any) -> np.ndarray:
        """dL/dx = (E_P[m | x] - E_Q[m | x]) / σ²."""
        return (self.first.posterior_mean(x) - self.second.posterior_mean(x)) / self.first.sigma**2

    def to_json(self) -> dict[str, Any]:
        """The JSON form used in counterexamples."""
        return {
            "label": self.label,
            "first": {"weights": list(self.first.weights), "means": list(self.first.means), "sigma": self.first.sigma},
            "second": {
                "weights": list(self.second.weights),
                "means": list(self.second.means),
                "sigma": self.second.sigma,
            },
        }
