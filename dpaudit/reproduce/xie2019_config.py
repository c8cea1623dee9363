"""Configuration of the Xie et al. 2019 reproduction: domains, trial counts, grids, and the
iteration count N that keeps the paper's noise calibration in range.

References:
    Xie, Thomas & Miklau 2019, Sec. 7 and Theorem 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument

__all__ = ["CHAIN_EPSILON", "DELTA", "PAPER_SIGMA_FLOOR", "Xie2019Config", "iterations_for"]


DELTA = 1e-5


CHAIN_EPSILON = 0.1


PAPER_SIGMA_FLOOR = math.sqrt(1.0 / math.log(2.0))


@dataclass(frozen=True)
class Xie2019Config:
    """Sizes of the reproduction (public choices; see :meth:`quick`, :meth:`full`, :meth:`tiny`).

    Attributes:
        chain_sizes: the m of Fig. 1(a).
        chain_evaluation: trajectories of the independent evaluation sample.
        chain_clip_norm: h for the chain.
        iteration_range: (N_min, N_max) for :func:`iterations_for`.
        trials: independent GPOPE / DP-LSW / DP-LSL runs per point (the data set is fixed).
        step_grid: step sizes tried for tuning (on public data) and in Fig. 1(b).
        sensitivity_m: m of Fig. 1(b).
        mc_order, mc_episodes, mc_evaluation_episodes, mc_max_steps, mc_iterations,
        mc_clip_norm, mc_gamma, mc_step_grid: Mountain Car (Fig. 2(b)).
        hiv_episodes, hiv_evaluation_episodes, hiv_horizon, hiv_iterations, hiv_clip_norm,
        hiv_gamma, hiv_step_grid: the HIV run (Fourier order 1 on log10 observations).
        continuous_epsilons: the ε of Fig. 2(b) and of the HIV run.
        record_points: points per MSPBE-vs-iteration curve.
    """

    chain_sizes: tuple[int, ...]
    chain_evaluation: int
    iteration_range: tuple[int, int]
    trials: int
    step_grid: tuple[float, ...]
    sensitivity_m: int
    mc_order: int
    mc_episodes: int
    mc_evaluation_episodes: int
    mc_max_steps: int
    mc_iterations: int
    hiv_episodes: int
    hiv_evaluation_episodes: int
    hiv_horizon: int
    hiv_iterations: int
    continuous_epsilons: tuple[float, ...] = (0.1, 1.0, 10.0)
    chain_clip_norm: float = 0.1
    mc_clip_norm: float = 1.0
    mc_gamma: float = 0.99
    mc_step_grid: tuple[float, ...] = (1e-3, 1e-2, 1e-1)
    hiv_clip_norm: float = 1e5
    hiv_gamma: float = 0.98
    hiv_step_grid: tuple[float, ...] = (1e-3, 1e-2, 1e-1)
    record_points: int = 15

    def __post_init__(self) -> None:
        for name in (
            "chain_evaluation",
            "trials",
            "mc_order",
            "mc_episodes",
            "mc_evaluation_episodes",
            "mc_max_steps",
            "mc_iterations",
            "hiv_episodes",
            "hiv_evaluation_episodes",
            "hiv_horizon",
            "hiv_iterations",
            "record_points",
        ):
            check_integer(name, getattr(self, name), low=1)
        if not self.chain_sizes or min(self.chain_sizes) < 2:
            raise InvalidArgument(f"chain_sizes={self.chain_sizes!r}: expected sizes m >= 2")
        if self.sensitivity_m < 2:
            raise InvalidArgument(f"sensitivity_m={self.sensitivity_m!r}: expected m >= 2")
        low, high = self.iteration_range
        if not 1 <= low <= high:
            raise InvalidArgument(f"iteration_range={self.iteration_range!r}: expected 1 <= N_min <= N_max")

    @classmethod
    def quick(cls) -> Xie2019Config:
        """The ``--quick`` configuration (a few minutes on two cores)."""
        return cls(
            chain_sizes=(300, 1000, 3000, 10000),
            chain_evaluation=20000,
            iteration_range=(200, 4000),
            trials=5,
            step_grid=(1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0),
            sensitivity_m=3000,
            mc_order=3,
            mc_episodes=100,
            mc_evaluation_episodes=300,
            mc_max_steps=1000,
            mc_iterations=3000,
            hiv_episodes=8,
            hiv_evaluation_episodes=16,
            hiv_horizon=10,
            hiv_iterations=1000,
        )

    @classmethod
    def full(cls) -> Xie2019Config:
        """The default configuration (closer to the paper's sizes; tens of minutes)."""
        return cls(
            chain_sizes=(300, 1000, 3000, 10000, 30000),
            chain_evaluation=100000,
            iteration_range=(200, 30000),
            trials=20,
            step_grid=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1, 1.0, 3.0),
            sensitivity_m=30000,
            mc_order=5,
            mc_episodes=1000,
            mc_evaluation_episodes=3000,
            mc_max_steps=1000,
            mc_iterations=20000,
            hiv_episodes=30,
            hiv_evaluation_episodes=60,
            hiv_horizon=30,
            hiv_iterations=5000,
        )

    @classmethod
    def tiny(cls) -> Xie2019Config:
        """A configuration for unit tests (seconds): every code path, no meaningful numbers."""
        return cls(
            chain_sizes=(50, 200),
            chain_evaluation=500,
            iteration_range=(50, 100),
            trials=2,
            step_grid=(1e-2, 1e-1),
            sensitivity_m=200,
            mc_order=1,
            mc_episodes=6,
            mc_evaluation_episodes=10,
            mc_max_steps=300,
            mc_iterations=60,
            hiv_episodes=3,
            hiv_evaluation_episodes=4,
            hiv_horizon=3,
            hiv_iterations=30,
            continuous_epsilons=(1.0,),
            mc_step_grid=(1e-2, 1e-1),
            hiv_step_grid=(1e-2, 1e-1),
            record_points=3,
        )


def iterations_for(m: int, epsilon: float, delta: float, iteration_range: tuple[int, int]) -> int:
    """The public iteration count N(m): the largest N at which the paper's σ is at its floor, clamped.

    Solving 2√(N ln(1/δ))/(mε) = √(1/ln 2) gives N = m²ε²/(4 ln 2 · ln(1/δ)).

    References:
        Xie et al. 2019, eq. (B.32) and the condition σ² >= 1/ln 2 of (B.26); Theorem 4.
    """
    low, high = iteration_range
    unclamped = (m * epsilon) ** 2 / (4.0 * math.log(2.0) * math.log(1.0 / delta))
    return int(min(high, max(low, math.floor(unclamped))))
