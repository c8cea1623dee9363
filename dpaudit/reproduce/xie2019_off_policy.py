"""The off-policy experiments of the Xie et al. 2019 reproduction: Mountain Car and HIV treatment
episodes under a behaviour policy, GPOPE against GTD2.

References:
    Xie, Thomas & Miklau 2019, Sec. 7.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.mechanisms.gpope import GPOPE, StepSizes
from dpaudit.mechanisms.gtd2 import (
    DatasetMoments,
    TransitionTable,
    dataset_moments,
    mspbe,
    saddle_point,
)
from dpaudit.reproduce.behaviour_policies import (
    FixedActionDistribution,
    VelocityFollowingPolicy,
)
from dpaudit.reproduce.xie2019_config import Xie2019Config
from dpaudit.reproduce.xie2019_runs import NOISE_MULTIPLIER_COLUMNS, _noise_multipliers, _spread, _Table, _tune_step
from dpaudit.rl import (
    FourierBasis,
    HIVTreatment,
    MountainCar,
    UniformActionPolicy,
    sample_episodes,
)

__all__ = ["HIV_TARGET"]


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


_SETTING_COLUMNS = ("domain", "method", "epsilon", "noise_multiplier", "step_size")
_SPREAD_COLUMNS = ("mean", "min", "max", "trials")
#: The columns of the MSPBE curves (one row per recorded iteration) and of the final MSPBE.
_CURVE_COLUMNS = (*_SETTING_COLUMNS, "iteration", *_SPREAD_COLUMNS)
_FINAL_COLUMNS = (*_SETTING_COLUMNS, "iterations", *_SPREAD_COLUMNS)

#: One run of the experiment: method, ε (``None``: non-private), noise multiplier, and whether it clips.
_Setting = tuple[str, float | None, float, bool]


def _settings(config: Xie2019Config, domain: _OffPolicyDomain, sigmas: _Table, m: int) -> list[_Setting]:
    """For every ε, GPOPE at the paper's noise multiplier and at dpaudit's (both recorded in ``sigmas``),
    then non-private GTD2."""
    settings: list[_Setting] = []
    for epsilon in config.continuous_epsilons:
        paper, verified = _noise_multipliers(sigmas, domain.name, m, epsilon, domain.iterations)
        settings.append(("GPOPE (paper sigma)", epsilon, paper, True))
        settings.append(("GPOPE (dpaudit sigma)", epsilon, verified, True))
    settings.append(("GTD2 (non-private)", None, 0.0, False))
    return settings


def _setting_scores(
    config: Xie2019Config,
    domain: _OffPolicyDomain,
    tables: tuple[TransitionTable, TransitionTable, DatasetMoments],
    sigma: float,
    private_run: bool,
    seed: np.random.SeedSequence,
    score: Callable[[float], float],
) -> tuple[float, np.ndarray, np.ndarray]:
    """Tune the step size on the public sample, then run ``config.trials`` trials on the private one.

    Args:
        tables: the private and public samples and the moments of the evaluation sample.

    Returns:
        The step size, the recorded iterations, and the score of MSPBE at each (one row per trial).
    """
    private, public, evaluation = tables
    tune_seed, trial_seed = seed.spawn(2)
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
    every = max(1, domain.iterations // config.record_points)
    trajectories = [
        mechanism.run(private, rng=np.random.default_rng(s), record_every=every)
        for s in trial_seed.spawn(config.trials)
    ]
    scores = np.array([[score(mspbe(theta, evaluation)) for theta in run.recorded_theta] for run in trajectories])
    return step, trajectories[0].recorded_steps, scores


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
    curves, finals, sigmas = _Table(_CURVE_COLUMNS), _Table(_FINAL_COLUMNS), _Table(NOISE_MULTIPLIER_COLUMNS)
    settings = _settings(config, domain, sigmas, private.n_trajectories)
    for (method, setting_epsilon, sigma, private_run), setting_seed in zip(
        settings, runs_seed.spawn(len(settings)), strict=False
    ):
        tables = (private, public, evaluation)
        step, steps, scores = _setting_scores(config, domain, tables, sigma, private_run, setting_seed, score)
        label = "none" if setting_epsilon is None else setting_epsilon
        if method != "GPOPE (dpaudit sigma)":
            for column, iteration in enumerate(steps):
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
