"""Reproduce the experiments of Xie, Thomas, Miklau 2019 (Sec. 7): `dpaudit reproduce xie2019`.

Four experiments, each written as a CSV table and an SVG figure, and one Markdown
summary saying which qualitative claims of Sec. 7 the runs reproduce, with numbers:

* Fig. 1(a): on-policy chain (N = 40, p = 0.5, γ = 0.99, ε = 0.1, δ = 1e-5, tabular
  features), MSPBE against the number m of trajectories for GPOPE (step size tuned on an
  independent public sample of the same size, and 0.1× / 10× that step size), DP-LSW,
  DP-LSL (Balle et al. 2016) and the non-private LSTD and GTD2.
* Fig. 1(b): MSPBE against the step size at a fixed m.
* Fig. 2(b): off-policy Mountain Car with the full Fourier basis, behaviour policy a
  fixed competent stochastic policy, target the uniform policy, MSPBE against the
  iteration for several ε.
* Sec. 7 "HIV simulator": a short off-policy run, relative MSPBE.

MSPBE is always measured against the moments A, b, C (eq. 2.2, normalisation ``mean``)
of a large evaluation sample drawn independently of the data the estimators see. GPOPE's
σ is the paper's (:func:`paper_noise_multiplier`, eq. B.32) and, for comparison, the
σ that dpaudit's Rényi accountant certifies under add/remove-one
(:mod:`dpaudit.reproduce.gpope_accounting`). The number of iterations is a public
function of m: the largest N (within the configured range) at which the paper's σ sits
at its floor √(1/ln 2), N = m²ε²/(4 ln 2 · ln(1/δ)), following Theorem 4's
N = O(m²ε²/d) scaling.

References:
    Xie, Thomas, Miklau 2019, "Privacy Preserving Off-Policy Evaluation", Sec. 7,
    Fig. 1(a)-(b), Fig. 2(b), Fig. 4, Algorithm 1, Theorem 1, eq. (B.32);
    Balle, Gomrokchi, Precup 2016, Algorithms 1-2, Sec. 6 (λ ∝ √m for DP-LSL).
"""

from __future__ import annotations

import csv
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gpope import GPOPE, StepSizes, paper_noise_multiplier
from dpaudit.mechanisms.gtd2 import (
    DatasetMoments,
    TransitionTable,
    dataset_moments,
    mspbe,
    saddle_point,
)
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.report.figures import render_svg
from dpaudit.reproduce.behaviour_policies import (
    FixedActionDistribution,
    VelocityFollowingPolicy,
)
from dpaudit.reproduce.gpope_accounting import (
    gpope_epsilon_add_remove,
    gpope_noise_multiplier_add_remove,
)
from dpaudit.reproduce.xie2019_summary import write_summary
from dpaudit.rl import (
    Chain,
    FourierBasis,
    HIVTreatment,
    MountainCar,
    UniformActionPolicy,
    sample_episodes,
    sample_trajectories,
)

__all__ = ["Xie2019Config", "iterations_for", "run"]

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


@dataclass
class _Table:
    """Rows of one CSV file."""

    columns: tuple[str, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)

    def add(self, **row: Any) -> None:
        self.rows.append(row)

    def write(self, path: Path) -> None:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=self.columns, lineterminator="\n")
            writer.writeheader()
            for row in self.rows:
                writer.writerow({key: _csv_value(row.get(key, "")) for key in self.columns})


def _csv_value(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def _spread(values: Sequence[float] | np.ndarray) -> dict[str, float]:
    array = np.asarray(values, dtype=np.float64)
    return {
        "mean": float(array.mean()),
        "std": float(array.std()),
        "min": float(array.min()),
        "max": float(array.max()),
        "trials": int(array.size),
    }


def _gpope_mspbe(
    table: TransitionTable,
    evaluation: DatasetMoments,
    *,
    clip_norm: float,
    sigma: float,
    iterations: int,
    step: float,
    seeds: Sequence[np.random.SeedSequence],
    private: bool = True,
) -> list[float]:
    mechanism = GPOPE(
        clip_norm=clip_norm,
        noise_multiplier=sigma if private else 0.0,
        iterations=iterations,
        step_sizes=StepSizes("constant", eta=step),
        clip=private,
    )
    return [mspbe(mechanism.run(table, rng=np.random.default_rng(s)).theta, evaluation) for s in seeds]


def _tune_step(
    public: TransitionTable,
    evaluation: DatasetMoments,
    grid: Sequence[float],
    seed: np.random.SeedSequence,
    **gpope: Any,
) -> float:
    """The step size of ``grid`` with the smallest MSPBE of one run on the public sample."""
    seeds = seed.spawn(len(grid))
    scores = [
        _gpope_mspbe(public, evaluation, step=step, seeds=[s], **gpope)[0] for step, s in zip(grid, seeds, strict=False)
    ]
    return float(grid[int(np.nanargmin(scores))])


def _chain_table(chain: Chain, m: int, seed: np.random.SeedSequence) -> tuple[Any, TransitionTable]:
    dataset = sample_trajectories(chain.mdp(), chain.policy(), m, rng=np.random.default_rng(seed)).to_dataset()
    return dataset, TransitionTable.from_trajectories(dataset, np.eye(chain.n_states), float(chain.gamma))


EVALUATION_CHUNK = 5000
"""Trajectories per chunk of the chain's evaluation sample (bounds the memory of the dense tabular features)."""


def _chain_evaluation_moments(chain: Chain, count: int, seed: np.random.SeedSequence) -> DatasetMoments:
    """Moments (eq. 2.2) of ``count`` fresh trajectories, computed chunk by chunk.

    The moments are averages over trajectories, so those of the whole sample are the
    chunk moments weighted by the chunk sizes.
    """
    sizes = [min(EVALUATION_CHUNK, count - start) for start in range(0, count, EVALUATION_CHUNK)]
    parts = [
        dataset_moments(_chain_table(chain, size, child)[1])
        for size, child in zip(sizes, seed.spawn(len(sizes)), strict=False)
    ]
    weights = np.asarray(sizes, dtype=np.float64) / count
    return DatasetMoments(
        A=sum(w * part.A for w, part in zip(weights, parts, strict=False)),
        b=sum(w * part.b for w, part in zip(weights, parts, strict=False)),
        C=sum(w * part.C for w, part in zip(weights, parts, strict=False)),
    )


def _chain_experiments(config: Xie2019Config, seed: np.random.SeedSequence) -> dict[str, Any]:
    """Fig. 1(a) and Fig. 1(b) on the 40-state chain."""
    chain = Chain(n_states=40, p="1/2", gamma="99/100")
    gamma = float(chain.gamma)
    eval_seed, sizes_seed, sensitivity_seed = seed.spawn(3)
    evaluation = _chain_evaluation_moments(chain, config.chain_evaluation, eval_seed)
    zero = mspbe(np.zeros(chain.n_states), evaluation)
    fig_a = _Table(
        (
            "method",
            "m",
            "iterations",
            "noise_multiplier",
            "step_size",
            "mean_mspbe",
            "std_mspbe",
            "min_mspbe",
            "max_mspbe",
            "trials",
        )
    )
    sigmas = _Table(
        (
            "domain",
            "m",
            "epsilon",
            "delta",
            "iterations",
            "paper_sigma_b32",
            "dpaudit_sigma_add_remove",
            "epsilon_dpaudit_at_paper_sigma",
        )
    )
    tuned: dict[int, float] = {}
    for m, m_seed in zip(config.chain_sizes, sizes_seed.spawn(len(config.chain_sizes)), strict=False):
        private_seed, public_seed, tune_seed, run_seed, release_seed = m_seed.spawn(5)
        dataset, private = _chain_table(chain, m, private_seed)
        _, public = _chain_table(chain, m, public_seed)
        n_iter = iterations_for(m, CHAIN_EPSILON, DELTA, config.iteration_range)
        paper_sigma = paper_noise_multiplier(CHAIN_EPSILON, DELTA, m, n_iter)
        verified_sigma = gpope_noise_multiplier_add_remove(CHAIN_EPSILON, DELTA, m, n_iter)
        sigmas.add(
            domain="chain",
            m=m,
            epsilon=CHAIN_EPSILON,
            delta=DELTA,
            iterations=n_iter,
            paper_sigma_b32=paper_sigma,
            dpaudit_sigma_add_remove=verified_sigma,
            epsilon_dpaudit_at_paper_sigma=gpope_epsilon_add_remove(paper_sigma, DELTA, m, n_iter),
        )
        common: dict[str, Any] = {"clip_norm": config.chain_clip_norm, "iterations": n_iter}
        best = _tune_step(public, evaluation, config.step_grid, tune_seed, sigma=paper_sigma, **common)
        tuned[m] = best
        runs = iter(run_seed.spawn(5))
        for method, sigma, step, private_run in (
            ("GPOPE (paper sigma, tuned step)", paper_sigma, best, True),
            ("GPOPE (paper sigma, 0.1x step)", paper_sigma, 0.1 * best, True),
            ("GPOPE (paper sigma, 10x step)", paper_sigma, 10.0 * best, True),
            ("GPOPE (dpaudit sigma, tuned step)", verified_sigma, best, True),
            ("GTD2 (non-private, tuned step)", 0.0, best, False),
        ):
            values = _gpope_mspbe(
                private,
                evaluation,
                sigma=sigma,
                step=step,
                seeds=next(runs).spawn(config.trials),
                private=private_run,
                **common,
            )
            fig_a.add(
                method=method,
                m=m,
                iterations=n_iter,
                noise_multiplier=sigma,
                step_size=step,
                **_prefixed(_spread(values)),
            )
        lstd = mspbe(saddle_point(dataset_moments(private)).theta, evaluation)
        fig_a.add(method="LSTD (non-private)", m=m, **_prefixed(_spread([lstd])))
        lsw_seed, lsl_seed = release_seed.spawn(2)
        for method, mechanism, release_rng in (
            ("DP-LSW", DPLSW(chain.n_states, "tabular", gamma, 1.0, CHAIN_EPSILON, DELTA), lsw_seed),
            (
                "DP-LSL (lambda = sqrt(m))",
                DPLSL(chain.n_states, "tabular", gamma, 1.0, math.sqrt(m), CHAIN_EPSILON, DELTA),
                lsl_seed,
            ),
        ):
            theta, sigma = mechanism.gaussian_view(dataset)
            releases = theta + sigma * np.random.default_rng(release_rng).standard_normal((config.trials, theta.size))
            fig_a.add(
                method=method,
                m=m,
                noise_multiplier=sigma,
                **_prefixed(_spread([mspbe(row, evaluation) for row in releases])),
            )
    fig_b = _step_size_experiment(config, chain, evaluation, sensitivity_seed)
    return {
        "fig_a": fig_a,
        "fig_b": fig_b,
        "sigmas": sigmas,
        "zero": zero,
        "tuned": tuned,
        "evaluation": config.chain_evaluation,
    }


def _prefixed(spread: dict[str, float]) -> dict[str, Any]:
    return {
        "mean_mspbe": spread["mean"],
        "std_mspbe": spread["std"],
        "min_mspbe": spread["min"],
        "max_mspbe": spread["max"],
        "trials": spread["trials"],
    }


def _step_size_experiment(
    config: Xie2019Config, chain: Chain, evaluation: DatasetMoments, seed: np.random.SeedSequence
) -> _Table:
    """Fig. 1(b): MSPBE against the constant step size at m = ``sensitivity_m``."""
    data_seed, run_seed = seed.spawn(2)
    m = config.sensitivity_m
    _, private = _chain_table(chain, m, data_seed)
    n_iter = iterations_for(m, CHAIN_EPSILON, DELTA, config.iteration_range)
    sigma = paper_noise_multiplier(CHAIN_EPSILON, DELTA, m, n_iter)
    table = _Table(
        (
            "method",
            "m",
            "iterations",
            "noise_multiplier",
            "step_size",
            "mean_mspbe",
            "std_mspbe",
            "min_mspbe",
            "max_mspbe",
            "trials",
        )
    )
    for step, step_seed in zip(config.step_grid, run_seed.spawn(len(config.step_grid)), strict=False):
        private_seed, public_seed = step_seed.spawn(2)
        for method, noise, private_run, seeds in (
            ("GPOPE (paper sigma)", sigma, True, private_seed.spawn(config.trials)),
            ("GTD2 (non-private)", 0.0, False, public_seed.spawn(1)),
        ):
            values = _gpope_mspbe(
                private,
                evaluation,
                clip_norm=config.chain_clip_norm,
                sigma=noise,
                iterations=n_iter,
                step=step,
                seeds=seeds,
                private=private_run,
            )
            table.add(
                method=method,
                m=m,
                iterations=n_iter,
                noise_multiplier=noise,
                step_size=step,
                **_prefixed(_spread(values)),
            )
    return table


@dataclass(frozen=True)
class _OffPolicyDomain:
    """One continuous off-policy domain: how to sample, featurise and score it."""

    name: str
    environment: Any
    behaviour: Any
    target: Any
    basis: FourierBasis
    gamma: float
    episodes: int
    evaluation_episodes: int
    max_steps: int
    iterations: int
    clip_norm: float
    step_grid: tuple[float, ...]


def _episode_table(domain: _OffPolicyDomain, count: int, seed: np.random.SeedSequence) -> TransitionTable:
    episodes = sample_episodes(
        domain.environment, domain.behaviour, count, rng=np.random.default_rng(seed), max_steps=domain.max_steps
    )
    return TransitionTable.from_episodes(
        episodes,
        domain.basis,
        domain.gamma,
        target=domain.target.probabilities,
        behaviour=domain.behaviour.probabilities,
    )


def _off_policy_experiment(
    config: Xie2019Config, domain: _OffPolicyDomain, seed: np.random.SeedSequence, *, relative: bool = False
) -> dict[str, Any]:
    """MSPBE against the iteration, for each ε and non-private GTD2.

    With ``relative``, MSPBE is divided by r̄², r̄ the importance-weighted average reward
    per step of the evaluation sample (our reading of "normalizes MSPBE using the average
    reward", Xie et al. 2019, Sec. 7, Fig. 4: MSPBE has the units of a squared reward).
    """
    eval_seed, private_seed, public_seed, runs_seed = seed.spawn(4)
    evaluation_table = _episode_table(domain, domain.evaluation_episodes, eval_seed)
    evaluation = dataset_moments(evaluation_table)
    average_reward = float(np.mean(evaluation_table.rho * evaluation_table.rewards))
    scale = average_reward**2 if relative else 1.0

    def score(value: float) -> float:
        return value / scale

    private = _episode_table(domain, domain.episodes, private_seed)
    public = _episode_table(domain, domain.episodes, public_seed)
    n = private.n_features
    every = max(1, domain.iterations // config.record_points)
    curves = _Table(
        ("domain", "method", "epsilon", "noise_multiplier", "step_size", "iteration", "mean", "min", "max", "trials")
    )
    finals = _Table(
        ("domain", "method", "epsilon", "noise_multiplier", "step_size", "iterations", "mean", "min", "max", "trials")
    )
    sigmas = _Table(
        (
            "domain",
            "m",
            "epsilon",
            "delta",
            "iterations",
            "paper_sigma_b32",
            "dpaudit_sigma_add_remove",
            "epsilon_dpaudit_at_paper_sigma",
        )
    )
    settings: list[tuple[str, float | None, float, bool]] = []
    for epsilon in config.continuous_epsilons:
        paper = paper_noise_multiplier(epsilon, DELTA, private.n_trajectories, domain.iterations)
        verified = gpope_noise_multiplier_add_remove(epsilon, DELTA, private.n_trajectories, domain.iterations)
        sigmas.add(
            domain=domain.name,
            m=private.n_trajectories,
            epsilon=epsilon,
            delta=DELTA,
            iterations=domain.iterations,
            paper_sigma_b32=paper,
            dpaudit_sigma_add_remove=verified,
            epsilon_dpaudit_at_paper_sigma=gpope_epsilon_add_remove(
                paper, DELTA, private.n_trajectories, domain.iterations
            ),
        )
        settings.append(("GPOPE (paper sigma)", epsilon, paper, True))
        settings.append(("GPOPE (dpaudit sigma)", epsilon, verified, True))
    settings.append(("GTD2 (non-private)", None, 0.0, False))
    for (method, setting_epsilon, sigma, private_run), setting_seed in zip(
        settings, runs_seed.spawn(len(settings)), strict=False
    ):
        tune_seed, trial_seed = setting_seed.spawn(2)
        common: dict[str, Any] = {
            "clip_norm": domain.clip_norm,
            "iterations": domain.iterations,
            "sigma": sigma,
            "private": private_run,
        }
        step = _tune_step(public, evaluation, domain.step_grid, tune_seed, **common)
        mechanism = GPOPE(
            clip_norm=domain.clip_norm,
            noise_multiplier=sigma,
            iterations=domain.iterations,
            step_sizes=StepSizes("constant", eta=step),
            clip=private_run,
        )
        trajectories = [
            mechanism.run(private, rng=np.random.default_rng(s), record_every=every)
            for s in trial_seed.spawn(config.trials)
        ]
        scores = np.array([[score(mspbe(theta, evaluation)) for theta in run.recorded_theta] for run in trajectories])
        label = "none" if setting_epsilon is None else setting_epsilon
        if method != "GPOPE (dpaudit sigma)":
            for column, iteration in enumerate(trajectories[0].recorded_steps):
                curves.add(
                    domain=domain.name,
                    method=method,
                    epsilon=label,
                    noise_multiplier=sigma,
                    step_size=step,
                    iteration=int(iteration),
                    trials=config.trials,
                    **{k: v for k, v in _spread(scores[:, column]).items() if k != "trials"},
                )
        final = _spread(scores[:, -1])
        finals.add(
            domain=domain.name,
            method=method,
            epsilon=label,
            noise_multiplier=sigma,
            step_size=step,
            iterations=domain.iterations,
            **final,
        )
    for method, theta in (("zero vector", np.zeros(n)), ("LSTD (non-private, per-decision rho)", None)):
        if theta is None:
            theta = saddle_point(dataset_moments(private)).theta
        finals.add(domain=domain.name, method=method, epsilon="none", **_spread([score(mspbe(theta, evaluation))]))
    return {
        "curves": curves,
        "finals": finals,
        "sigmas": sigmas,
        "m": private.n_trajectories,
        "transitions": int(private.offsets[-1]),
        "evaluation_transitions": int(evaluation_table.offsets[-1]),
        "features": n,
        "average_reward": average_reward,
    }


def _mountain_car(config: Xie2019Config, seed: np.random.SeedSequence) -> dict[str, Any]:
    environment = MountainCar()
    domain = _OffPolicyDomain(
        name="mountain_car",
        environment=environment,
        behaviour=VelocityFollowingPolicy(0.8),
        target=UniformActionPolicy(3),
        basis=FourierBasis(config.mc_order, environment.observation_low, environment.observation_high),
        gamma=config.mc_gamma,
        episodes=config.mc_episodes,
        evaluation_episodes=config.mc_evaluation_episodes,
        max_steps=config.mc_max_steps,
        iterations=config.mc_iterations,
        clip_norm=config.mc_clip_norm,
        step_grid=config.mc_step_grid,
    )
    return _off_policy_experiment(config, domain, seed)


HIV_TARGET = (0.1, 0.1, 0.1, 0.7)
"""The evaluated HIV policy: both drugs with probability 0.7, each other action 0.1 (our choice)."""


def _hiv(config: Xie2019Config, seed: np.random.SeedSequence) -> dict[str, Any]:
    environment = HIVTreatment()
    domain = _OffPolicyDomain(
        name="hiv",
        environment=environment,
        behaviour=FixedActionDistribution([0.25] * 4),
        target=FixedActionDistribution(HIV_TARGET),
        basis=FourierBasis(1, environment.observation_low, environment.observation_high),
        gamma=config.hiv_gamma,
        episodes=config.hiv_episodes,
        evaluation_episodes=config.hiv_evaluation_episodes,
        max_steps=config.hiv_horizon,
        iterations=config.hiv_iterations,
        clip_norm=config.hiv_clip_norm,
        step_grid=config.hiv_step_grid,
    )
    return _off_policy_experiment(config, domain, seed, relative=True)


def _series(
    table: _Table,
    method: str,
    x_key: str,
    *,
    where: Callable[[dict[str, Any]], bool] = lambda row: True,
    y_key: str = "mean_mspbe",
    low_key: str = "min_mspbe",
    high_key: str = "max_mspbe",
    label: str | None = None,
) -> dict[str, Any] | None:
    rows = [row for row in table.rows if row["method"] == method and where(row)]
    if not rows:
        return None
    return {
        "label": label or method,
        "x": [float(row[x_key]) for row in rows],
        "y": [float(row[y_key]) for row in rows],
        "lower": [float(row[low_key]) for row in rows],
        "upper": [float(row[high_key]) for row in rows],
    }


def _write_svg(path: Path, figure: dict[str, Any]) -> None:
    figure["series"] = [series for series in figure["series"] if series is not None]
    path.write_text(render_svg(figure) + "\n", encoding="utf-8")


def _chain_figures(out: Path, chain: dict[str, Any]) -> None:
    fig_a, fig_b = chain["fig_a"], chain["fig_b"]
    methods = dict.fromkeys(row["method"] for row in fig_a.rows)
    _write_svg(
        out / "fig1a_chain_mspbe_vs_m.svg",
        {
            "kind": "line",
            "title": "Chain (N=40, p=0.5, gamma=0.99, eps=0.1, delta=1e-5): MSPBE vs m",
            "x_label": "m (trajectories)",
            "y_label": "MSPBE (independent evaluation sample)",
            "x_scale": "log",
            "y_scale": "log",
            "series": [_series(fig_a, method, "m") for method in methods],
            "reference_lines": [{"axis": "y", "value": chain["zero"], "label": "MSPBE of theta = 0"}],
        },
    )
    _write_svg(
        out / "fig1b_chain_mspbe_vs_step_size.svg",
        {
            "kind": "line",
            "title": f"Chain: MSPBE vs constant step size (m = {fig_b.rows[0]['m']})",
            "x_label": "step size",
            "y_label": "MSPBE",
            "x_scale": "log",
            "y_scale": "log",
            "series": [
                _series(fig_b, method, "step_size") for method in dict.fromkeys(r["method"] for r in fig_b.rows)
            ],
            "reference_lines": [{"axis": "y", "value": chain["zero"], "label": "MSPBE of theta = 0"}],
        },
    )


def _matching_epsilon(epsilon: Any) -> Callable[[dict[str, Any]], bool]:
    def matches(row: dict[str, Any]) -> bool:
        return bool(row["epsilon"] == epsilon)

    return matches


def _curve_figure(out: Path, name: str, title: str, y_label: str, result: dict[str, Any]) -> None:
    curves, finals = result["curves"], result["finals"]
    keys = dict.fromkeys((row["method"], row["epsilon"]) for row in curves.rows)
    series = []
    for method, epsilon in keys:
        label = method if epsilon == "none" else f"{method}, eps={epsilon:g}"
        series.append(
            _series(
                curves,
                method,
                "iteration",
                where=_matching_epsilon(epsilon),
                y_key="mean",
                low_key="min",
                high_key="max",
                label=label,
            )
        )
    lines = [
        {"axis": "y", "value": row["mean"], "label": row["method"]}
        for row in finals.rows
        if row["method"].startswith(("zero", "LSTD")) and row["mean"] > 0
    ]
    _write_svg(
        out / name,
        {
            "kind": "line",
            "title": title,
            "x_label": "iteration",
            "y_label": y_label,
            "y_scale": "log",
            "series": series,
            "reference_lines": lines,
        },
    )


def run(out_dir: Path, *, quick: bool, seed: int, config: Xie2019Config | None = None) -> Path:
    """Run the Xie et al. 2019 reproduction and write figures, CSV tables and a Markdown summary.

    Args:
        out_dir: output folder (created).
        quick: use :meth:`Xie2019Config.quick` instead of :meth:`Xie2019Config.full`.
        seed: root seed; every random draw descends from it (same seed, same numbers).
        config: overrides the configuration chosen by ``quick`` (e.g. ``Xie2019Config.tiny()``).

    Returns:
        The path of ``summary.md``.
    """
    seed = check_integer("seed", seed, low=0)
    settings = config or (Xie2019Config.quick() if quick else Xie2019Config.full())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started, load_before = time.perf_counter(), os.getloadavg()
    chain_seed, mc_seed, hiv_seed = np.random.SeedSequence(seed).spawn(3)
    timings = {}
    clock = time.perf_counter()
    chain = _chain_experiments(settings, chain_seed)
    timings["chain (Fig. 1a, 1b)"] = time.perf_counter() - clock
    clock = time.perf_counter()
    car = _mountain_car(settings, mc_seed)
    timings["Mountain Car (Fig. 2b)"] = time.perf_counter() - clock
    clock = time.perf_counter()
    hiv = _hiv(settings, hiv_seed)
    timings["HIV"] = time.perf_counter() - clock
    chain["fig_a"].write(out / "fig1a_chain_mspbe_vs_m.csv")
    chain["fig_b"].write(out / "fig1b_chain_mspbe_vs_step_size.csv")
    sigma_table = chain["sigmas"]
    sigma_table.rows.extend(car["sigmas"].rows + hiv["sigmas"].rows)
    sigma_table.write(out / "noise_multipliers.csv")
    car["curves"].write(out / "fig2b_mountain_car_mspbe_vs_iteration.csv")
    car["finals"].write(out / "fig2b_mountain_car_final.csv")
    hiv["curves"].write(out / "hiv_relative_mspbe_vs_iteration.csv")
    hiv["finals"].write(out / "hiv_final.csv")
    _chain_figures(out, chain)
    _curve_figure(
        out,
        "fig2b_mountain_car_mspbe_vs_iteration.svg",
        f"Off-policy Mountain Car (Fourier order {settings.mc_order}, m = {car['m']}): MSPBE vs iteration",
        "MSPBE",
        car,
    )
    _curve_figure(
        out,
        "hiv_relative_mspbe_vs_iteration.svg",
        f"Off-policy HIV (Fourier order 1, m = {hiv['m']}, horizon {settings.hiv_horizon}): relative MSPBE",
        "MSPBE / (average reward)^2",
        hiv,
    )
    return write_summary(
        out / "summary.md",
        settings=settings,
        quick=quick,
        seed=seed,
        chain=chain,
        car=car,
        hiv=hiv,
        timings=timings,
        elapsed=time.perf_counter() - started,
        load=(load_before, os.getloadavg()),
        config_fields=asdict(settings),
    )
