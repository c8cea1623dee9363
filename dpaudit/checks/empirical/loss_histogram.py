"""The privacy-loss histogram, when a white-box log-density ratio is available.

For y ~ M(X) the privacy loss is L(y) = ln(p_X(y) / p_X'(y)), and the hockey-stick
divergence is δ(ε) = E[(1 − e^{ε − L})₊]. The histogram of L on a uniform grid gives
a point estimate of δ(ε) and, by rounding every loss down to its cell's lower edge
(which can only lower (1 − e^{ε − L})₊), a certified lower bound on δ(ε) from an
empirical Bernstein bound on values in [0, 1].
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.checks.empirical.events import ThresholdGrid
from dpaudit.checks.empirical.samplers import as_sampler
from dpaudit.checks.empirical.sampling import (
    NeighbourPair,
    draw_outputs,
    histogram_scores,
    phase_seed,
)
from dpaudit.checks.empirical.statistics import empirical_bernstein_lower
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.views import GaussianView
from dpaudit.rng import seed_sequence

__all__ = ["GaussianLogDensityRatio", "PrivacyLossHistogram", "privacy_loss_histogram"]


@dataclass(frozen=True)
class GaussianLogDensityRatio:
    """L(y) = ln N(y; μ, σ² I) − ln N(y; μ', σ² I) = (‖y − μ'‖² − ‖y − μ‖²) / (2σ²).

    Attributes:
        mean_first: μ, the mean of M(X) (flattened).
        mean_second: μ', the mean of M(X') (flattened).
        sigma: the common noise standard deviation.

    References:
        Balle & Wang 2018, Lemma 3 (the Gaussian privacy loss is itself Gaussian).
    """

    mean_first: tuple[float, ...]
    mean_second: tuple[float, ...]
    sigma: float

    @classmethod
    def of(cls, mechanism: GaussianView, pair: NeighbourPair) -> GaussianLogDensityRatio:
        """Build the ratio from a mechanism's white-box ``gaussian_view(data) -> (mean, sigma)``."""
        mean_first, sigma = mechanism.gaussian_view(pair.first)
        mean_second, sigma_second = mechanism.gaussian_view(pair.second)
        check_real("sigma", sigma, low=0.0, low_open=True)
        if sigma_second != sigma:
            raise InvalidArgument(f"sigma={sigma!r} and {sigma_second!r}: the two views must share their noise")
        first = check_finite_array("mean_first", mean_first).ravel()
        second = check_finite_array("mean_second", mean_second, shape=(first.size,)).ravel()
        return cls(tuple(map(float, first)), tuple(map(float, second)), float(sigma))

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """The privacy loss of each row of ``outputs`` (shape (n, d))."""
        first = np.asarray(self.mean_first)
        second = np.asarray(self.mean_second)
        return (outputs @ (first - second) - 0.5 * (first @ first - second @ second)) / self.sigma**2


@dataclass(frozen=True)
class PrivacyLossHistogram:
    """Counts of the privacy loss of draws from M(X) on a uniform grid.

    Attributes:
        grid: the cells (cell 0 is below ``grid.low``, the last is unbounded above).
        counts: draws per cell (``grid.size + 1`` entries).
    """

    grid: ThresholdGrid
    counts: tuple[int, ...]

    @property
    def samples(self) -> int:
        """The number of draws."""
        return int(sum(self.counts))

    def _values(self, epsilon: float, edge: str) -> np.ndarray:
        thresholds = self.grid.thresholds()
        losses = thresholds if edge == "lower" else thresholds + 0.5 * self.grid.width
        with np.errstate(over="ignore"):
            values = np.maximum(0.0, 1.0 - np.exp(epsilon - losses))
        return np.concatenate([[0.0], values])

    def delta_estimate(self, epsilon: float) -> float:
        """Point estimate of δ(ε) with every loss at its cell's midpoint (cell 0 counted as 0)."""
        eps = check_real("epsilon", epsilon, low=0.0)
        counts = np.asarray(self.counts, dtype=np.float64)
        return float(counts @ self._values(eps, "mid") / counts.sum())

    def delta_lower_bound(self, epsilon: float, alpha: float) -> float:
        """δ(ε) lower bound holding with probability >= 1 − alpha (losses rounded down to cell edges).

        References:
            Maurer & Pontil 2009, Theorem 4 (empirical Bernstein bound).
        """
        eps = check_real("epsilon", epsilon, low=0.0)
        counts = np.asarray(self.counts, dtype=np.float64)
        values = self._values(eps, "lower")
        n = counts.sum()
        mean = float(counts @ values / n)
        variance = float(counts @ (values - mean) ** 2 / (n - 1))
        return max(0.0, empirical_bernstein_lower(min(mean, 1.0), variance, int(n), alpha))

    def epsilon_estimate(self, delta: float) -> float:
        """Point estimate of the ε at which δ(ε) = ``delta`` (bisection on :meth:`delta_estimate`)."""
        target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        low, high = 0.0, max(1.0, float(self.grid.thresholds()[-1]) + self.grid.width)
        if self.delta_estimate(low) <= target:
            return 0.0
        for _ in range(100):
            middle = 0.5 * (low + high)
            low, high = (middle, high) if self.delta_estimate(middle) > target else (low, middle)
        return high


def privacy_loss_histogram(
    mechanism: Any,
    pair: NeighbourPair,
    log_ratio: Any,
    *,
    samples: int,
    seed: int | np.random.SeedSequence,
    bins: int = 4096,
    pilot_samples: int = 10_000,
    chunk_size: int = 1 << 19,
    batch_size: int = 1 << 14,
    executor: Executor | None = None,
    progress: bool | None = None,
) -> PrivacyLossHistogram:
    """Sample M(X) and histogram the privacy loss L = ``log_ratio.scores(outputs)``.

    Args:
        mechanism: a sampler or an object with ``release``.
        pair: the neighbouring pair (X, X'); draws come from X.
        log_ratio: an object whose ``scores(outputs)`` is ln p_X(y) − ln p_X'(y) per row.
        samples: draws of M(X) in the histogram.
        seed: root of the chunk seeds.
        bins: grid cells; the grid spans a pilot sample of the losses.

    Returns:
        The histogram; its :meth:`~PrivacyLossHistogram.delta_lower_bound` is certified.
    """
    n = check_integer("samples", samples, low=2)
    root = seed_sequence(seed)
    sampler = as_sampler(mechanism)
    common: dict[str, Any] = {
        "chunk_size": chunk_size,
        "batch_size": batch_size,
        "executor": executor,
        "progress": progress,
    }
    pilot_count = check_integer("pilot_samples", pilot_samples, low=10)
    (pilot,) = draw_outputs(sampler, [(pair.first, phase_seed(root, 0))], pilot_count, **common)
    grid = ThresholdGrid.spanning(log_ratio.scores(pilot), bins)
    ((counts,),) = histogram_scores(sampler, [(pair.first, phase_seed(root, 1))], n, [log_ratio], [grid], **common)
    return PrivacyLossHistogram(grid, tuple(int(c) for c in counts))
