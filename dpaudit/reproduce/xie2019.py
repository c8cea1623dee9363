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

import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.mechanisms.gpope import paper_noise_multiplier
from dpaudit.mechanisms.gtd2 import (
    DatasetMoments,
    TransitionTable,
    dataset_moments,
    mspbe,
    saddle_point,
)
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.reproduce.xie2019_config import CHAIN_EPSILON, DELTA, Xie2019Config, iterations_for
from dpaudit.reproduce.xie2019_figures import _chain_figures, _curve_figure
from dpaudit.reproduce.xie2019_off_policy import _hiv, _mountain_car
from dpaudit.reproduce.xie2019_runs import (
    MSPBE_COLUMNS,
    NOISE_MULTIPLIER_COLUMNS,
    _gpope_mspbe,
    _noise_multipliers,
    _prefixed,
    _spread,
    _Table,
    _tune_step,
)
from dpaudit.reproduce.xie2019_summary import write_summary
from dpaudit.rl import (
    Chain,
    sample_trajectories,
)

__all__ = ["run"]


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


def _add_gpope_row(
    table: _Table, method: str, m: int, data: TransitionTable, evaluation: DatasetMoments, **gpope: Any
) -> None:
    """Add to ``table`` the row of ``method``: the spread of MSPBE over GPOPE runs on ``data`` (``gpope``:
    the keywords of :func:`_gpope_mspbe`, one run per seed)."""
    values = _gpope_mspbe(data, evaluation, **gpope)
    table.add(
        method=method,
        m=m,
        iterations=gpope["iterations"],
        noise_multiplier=gpope["sigma"],
        step_size=gpope["step"],
        **_prefixed(_spread(values)),
    )


def _chain_experiments(config: Xie2019Config, seed: np.random.SeedSequence) -> dict[str, Any]:
    """Fig. 1(a) and Fig. 1(b) on the 40-state chain."""
    chain = Chain(n_states=40, p="1/2", gamma="99/100")
    gamma = float(chain.gamma)
    eval_seed, sizes_seed, sensitivity_seed = seed.spawn(3)
    evaluation = _chain_evaluation_moments(chain, config.chain_evaluation, eval_seed)
    zero = mspbe(np.zeros(chain.n_states), evaluation)
    fig_a = _Table(MSPBE_COLUMNS)
    sigmas = _Table(NOISE_MULTIPLIER_COLUMNS)
    tuned: dict[int, float] = {}
    for m, m_seed in zip(config.chain_sizes, sizes_seed.spawn(len(config.chain_sizes)), strict=False):
        private_seed, public_seed, tune_seed, run_seed, release_seed = m_seed.spawn(5)
        dataset, private = _chain_table(chain, m, private_seed)
        _, public = _chain_table(chain, m, public_seed)
        n_iter = iterations_for(m, CHAIN_EPSILON, DELTA, config.iteration_range)
        paper_sigma, verified_sigma = _noise_multipliers(sigmas, "chain", m, CHAIN_EPSILON, n_iter)
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
            _add_gpope_row(
                fig_a,
                method,
                m,
                private,
                evaluation,
                sigma=sigma,
                step=step,
                seeds=next(runs).spawn(config.trials),
                private=private_run,
                **common,
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


def _step_size_experiment(
    config: Xie2019Config, chain: Chain, evaluation: DatasetMoments, seed: np.random.SeedSequence
) -> _Table:
    """Fig. 1(b): MSPBE against the constant step size at m = ``sensitivity_m``."""
    data_seed, run_seed = seed.spawn(2)
    m = config.sensitivity_m
    _, private = _chain_table(chain, m, data_seed)
    n_iter = iterations_for(m, CHAIN_EPSILON, DELTA, config.iteration_range)
    sigma = paper_noise_multiplier(CHAIN_EPSILON, DELTA, m, n_iter)
    common: dict[str, Any] = {"clip_norm": config.chain_clip_norm, "iterations": n_iter}
    table = _Table(MSPBE_COLUMNS)
    for step, step_seed in zip(config.step_grid, run_seed.spawn(len(config.step_grid)), strict=False):
        private_seed, public_seed = step_seed.spawn(2)
        for method, noise, private_run, seeds in (
            ("GPOPE (paper sigma)", sigma, True, private_seed.spawn(config.trials)),
            ("GTD2 (non-private)", 0.0, False, public_seed.spawn(1)),
        ):
            _add_gpope_row(
                table,
                method,
                m,
                private,
                evaluation,
                sigma=noise,
                step=step,
                seeds=seeds,
                private=private_run,
                **common,
            )
    return table


#: The experiments of a run, in the order their seeds are spawned: the keyword their results go by in the
#: summary, their line in its timings, and what runs them.
_EXPERIMENTS = (
    ("chain", "chain (Fig. 1a, 1b)", _chain_experiments),
    ("car", "Mountain Car (Fig. 2b)", _mountain_car),
    ("hiv", "HIV", _hiv),
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
    results: dict[str, Any] = {}
    timings = {}
    seeds = np.random.SeedSequence(seed).spawn(len(_EXPERIMENTS))
    for (name, label, experiment), part_seed in zip(_EXPERIMENTS, seeds, strict=True):
        clock = time.perf_counter()
        results[name] = experiment(settings, part_seed)
        timings[label] = time.perf_counter() - clock
    chain, car, hiv = results["chain"], results["car"], results["hiv"]
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
        timings=timings,
        elapsed=time.perf_counter() - started,
        load=(load_before, os.getloadavg()),
        **results,
    )
