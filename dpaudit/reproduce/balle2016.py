"""Reproduction of Balle, Gomrokchi & Precup 2016, Sec. 6 and Fig. 1 (the chain experiment).

The chain has N = 40 states, staying probability p = 0.5, γ = 0.99 and a reward of 1 on
entering the absorbing state (:class:`dpaudit.rl.domains.Chain`; start state uniform).
The DP algorithms run with ε = 0.1, δ = 0.1 and the main-text Lemma 1 constants. Each of
``runs`` independent runs samples one batch of trajectories; every batch size m uses the
first m trajectories of it, and all algorithms see the same trajectories ("the same
batches are processed by all algorithms"). The four panels:

1. non-private LSW vs LSL (λ = √m), RMSE against batch size, tabular and aggregated (pairs);
2. tabular RMSE of all four algorithms against λ for two batch sizes;
3. aggregated (pairs) RMSE of all four algorithms against batch size;
4. excess empirical risk J(θ̂) − J(θ) of DP-LSW and DP-LSL against batch size for
   aggregation groups of 1, 2 and 4 states (d = 40, 20, 10).

RMSE is √(mean_s (Φθ − V)_s²) against the exact values V of the chain; points are means
over runs with ± one standard error. What the paper leaves open is fixed here and said in
the summary: the start law (uniform), the LSW weights (w_s = 1/N), ρ = 1, the bound on
returns (both R_max/(1−γ) = 100 and the public F_max = 1, the largest return of the
chain; σ_X is linear in that bound, so both use one σ computation and the same noise
draw), and the λ schedule of panels 3-4, λ(m) = c√m with c taken from panel 2 (the best
DP-LSL λ at the smaller batch size, divided by its √m). Batches are sampled in blocks of
:data:`SAMPLING_BLOCK` trajectories so that a million-trajectory batch fits in memory.

References:
    Balle et al. 2016, Sec. 6 and Fig. 1; Algorithms 1 and 2; eqs. (3), (6), (10).
"""

from __future__ import annotations

import math
import os
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.mechanisms.policy_evaluation.estimators import LSL
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.mechanisms.policy_evaluation.statistics import FirstVisitStatistics
from dpaudit.mechanisms.policy_evaluation.utility import (
    lsw_excess_risk_bound,
    lsw_psi_lower_bound,
)
from dpaudit.report.figures import render_svg
from dpaudit.reproduce.balle2016_claims import _BOUNDS, _claims
from dpaudit.reproduce.balle2016_config import FULL, QUICK, Balle2016Config
from dpaudit.reproduce.balle2016_figures import _figures
from dpaudit.reproduce.balle2016_summary import summary_text, write_csv
from dpaudit.rl.domains import Chain
from dpaudit.rl.first_visit import first_visit_return_matrix
from dpaudit.rl.sampling import sample_trajectories
from dpaudit.rng import spawn_seed_sequences

__all__ = ["run", "run_experiment"]


SAMPLING_BLOCK = 50_000
"""Trajectories sampled (and reduced to per-state sums) at a time."""


def _features(group: int) -> str:
    return "tabular" if group == 1 else f"aggregation:{group}"


def _prefix_statistics(config: Balle2016Config, seed: np.random.SeedSequence) -> dict[int, FirstVisitStatistics]:
    """Sample one batch of the largest size, block by block, and return the statistics of each prefix."""
    chain = Chain(config.n_states, config.p, config.gamma)
    mdp, policy = chain.mdp(), chain.policy()
    sizes = list(config.all_batch_sizes)
    largest = sizes[-1]
    block_seeds = seed.spawn(math.ceil(largest / SAMPLING_BLOCK))
    totals, squares = np.zeros(config.n_states), np.zeros(config.n_states)
    counts = np.zeros(config.n_states, np.int64)
    largest_return, position, result = 0.0, 0, {}
    for block_seed in block_seeds:
        count = min(SAMPLING_BLOCK, largest - position)
        batch = sample_trajectories(mdp, policy, count, rng=np.random.default_rng(block_seed))
        returns, visited = first_visit_return_matrix(batch, config.gamma, config.n_states)
        start = 0
        while start < count:
            stop = min(count, sizes[0] - position) if sizes else count
            rows = slice(start, stop)
            totals += returns[rows].sum(axis=0)
            squares += (returns[rows] ** 2).sum(axis=0)
            counts += visited[rows].sum(axis=0)
            largest_return = max(largest_return, float(returns[rows].max(initial=0.0)))
            if sizes and position + stop == sizes[0]:
                m = sizes.pop(0)
                result[m] = FirstVisitStatistics.from_arrays(
                    counts.copy(),
                    totals / np.maximum(counts, 1),
                    m,
                    squared_returns=squares.copy(),
                    max_return=largest_return,
                )
            start = stop
        position += count
    return result


class _Recorder:
    """Collects one value per (key, run) and summarises keys as mean and standard error."""

    def __init__(self) -> None:
        self.values: dict[tuple, list[float]] = defaultdict(list)

    def add(self, key: tuple, value: float) -> None:
        self.values[key].append(float(value))

    def summary(self, key: tuple) -> tuple[float, float]:
        values = np.asarray(self.values[key])
        error = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else float("nan")
        return float(values.mean()), error


def _rmse(phi: np.ndarray, theta: np.ndarray, truth: np.ndarray) -> float:
    return float(np.sqrt(np.mean((phi @ theta - truth) ** 2)))


def _private_rows(
    recorder: _Recorder,
    key: tuple,
    theta: np.ndarray,
    sigma: float,
    scale_r: float,
    noise: Any,
    phi: np.ndarray,
    truth: np.ndarray,
) -> list[np.ndarray]:
    """Record σ and RMSE of θ + σ z for both return bounds (σ is linear in the bound); return both θ̂."""
    released = []
    for bound, factor in zip(_BOUNDS, (1.0, scale_r), strict=False):
        theta_hat = theta + sigma * factor * noise
        recorder.add((*key, bound, "sigma"), sigma * factor)
        recorder.add((*key, bound, "rmse"), _rmse(phi, theta_hat, truth))
        released.append(theta_hat)
    return released


def _lsl_pair(config: Balle2016Config, group: int, lam: float) -> DPLSL:
    return DPLSL(
        config.n_states,
        _features(group),
        config.gamma,
        config.r_max,
        lam,
        config.epsilon,
        config.delta,
        f_max=config.f_max,
        constant_set=config.constant_set,
    )


def _dp_lsw(config: Balle2016Config, group: int) -> DPLSW:
    """DP-LSW on aggregation ``group`` with the uniform weights w_s = 1/N."""
    return DPLSW(
        config.n_states,
        _features(group),
        config.gamma,
        config.r_max,
        config.epsilon,
        config.delta,
        weights=1.0 / config.n_states,
        f_max=config.f_max,
        constant_set=config.constant_set,
    )


@dataclass(frozen=True)
class _Experiment:
    """What every panel of the experiment shares: the configuration, the chain's exact
    values V, the ratio R_max/(1−γ) / F_max of the two return bounds, DP-LSW per aggregation group,
    and the recorder of every value."""

    config: Balle2016Config
    truth: np.ndarray
    scale_r: float
    dp_lsw: dict[int, DPLSW]
    recorder: _Recorder


def _regularisation_panel(
    experiment: _Experiment, statistics: list[dict[int, FirstVisitStatistics]], noise_streams: list[np.random.Generator]
) -> None:
    """Panel 2: record the tabular RMSE of LSW, DP-LSW and, for every λ of the grid, LSL and DP-LSL."""
    config, recorder, truth, scale_r = experiment.config, experiment.recorder, experiment.truth, experiment.scale_r
    lsw_mechanism = experiment.dp_lsw[1]
    regularised = {lam: _lsl_pair(config, 1, lam) for lam in config.regularisation_grid}
    for run_index, per_size in enumerate(statistics):
        rng = noise_streams[run_index]
        for m in config.regularisation_batch_sizes:
            stats = per_size[m]
            lsw_record = lsw_mechanism.intermediates_from_statistics(stats)
            phi = lsw_mechanism.estimator.phi
            recorder.add(("regularisation", "LSW", 1, m, 0.0, "none", "rmse"), _rmse(phi, lsw_record.theta, truth))
            noise = rng.standard_normal(phi.shape[1])
            key = ("regularisation", "DP-LSW", 1, m, 0.0)
            _private_rows(recorder, key, lsw_record.theta, lsw_record.sigma, scale_r, noise, phi, truth)
            for lam, mechanism in regularised.items():
                lsl_record = mechanism.intermediates_from_statistics(stats)
                recorder.add(("regularisation", "LSL", 1, m, lam, "none", "rmse"), _rmse(phi, lsl_record.theta, truth))
                noise = rng.standard_normal(phi.shape[1])
                key = ("regularisation", "DP-LSL", 1, m, lam)
                _private_rows(recorder, key, lsl_record.theta, lsl_record.sigma, scale_r, noise, phi, truth)


def _schedule_constant(experiment: _Experiment) -> float:
    """c of the schedule λ(m) = c√m: the best DP-LSL λ of panel 2 at the smaller batch size (F_max), over √m."""
    config = experiment.config
    smaller = config.regularisation_batch_sizes[0]
    best_lam = min(
        config.regularisation_grid,
        key=lambda lam: experiment.recorder.summary(("regularisation", "DP-LSL", 1, smaller, lam, "f_max", "rmse"))[0],
    )
    return best_lam / math.sqrt(smaller)


def _record_dp_lsw(
    experiment: _Experiment,
    stats: FirstVisitStatistics,
    g: int,
    m: int,
    rng: np.random.Generator,
    visit_probabilities: np.ndarray,
) -> np.ndarray:
    """Panels 3-4 for LSW on one batch: the RMSE of LSW and DP-LSW, then under each return bound DP-LSW's
    excess risk, its expectation, Theorem 11's bound and the lower bound on it; returns LSW's θ."""
    recorder, truth, scale_r = experiment.recorder, experiment.truth, experiment.scale_r
    lsw_mechanism = experiment.dp_lsw[g]
    phi = lsw_mechanism.estimator.phi
    record = lsw_mechanism.intermediates_from_statistics(stats)
    recorder.add(("batch", "LSW", g, m, 0.0, "none", "rmse"), _rmse(phi, record.theta, truth))
    noise = rng.standard_normal(phi.shape[1])
    released = _private_rows(
        recorder, ("batch", "DP-LSW", g, m, 0.0), record.theta, record.sigma, scale_r, noise, phi, truth
    )
    base = lsw_mechanism.estimator.objective(record.theta, stats.average_returns)
    frobenius_squared = float(np.sum(lsw_mechanism.estimator.w[:, None] * phi**2))
    for bound, theta_hat, factor in zip(_BOUNDS, released, (1.0, scale_r), strict=False):
        row_key = ("batch", "DP-LSW", g, m, 0.0, bound)
        excess = lsw_mechanism.estimator.objective(theta_hat, stats.average_returns) - base
        recorder.add((*row_key, "excess_risk"), excess)
        recorder.add((*row_key, "expected_excess_risk"), (record.sigma * factor) ** 2 * frobenius_squared)
        recorder.add((*row_key, "theorem11_bound"), _theorem11(lsw_mechanism, visit_probabilities, m, factor))
        lower = lsw_psi_lower_bound(lsw_mechanism.estimator.w, m, lsw_mechanism.beta)
        scale = lsw_mechanism.alpha * lsw_mechanism.return_bound * factor * lsw_mechanism.pinv_norm
        recorder.add((*row_key, "excess_risk_lower_bound"), scale**2 * frobenius_squared * lower)
    return record.theta


def _record_dp_lsl(
    experiment: _Experiment, stats: FirstVisitStatistics, g: int, m: int, lam: float, rng: np.random.Generator
) -> None:
    """Panels 3-4 for LSL on one batch at ``lam``: the RMSE of LSL and DP-LSL and DP-LSL's excess risk
    under each return bound."""
    recorder, truth = experiment.recorder, experiment.truth
    phi = experiment.dp_lsw[g].estimator.phi
    lsl_mechanism = _lsl_pair(experiment.config, g, lam)
    lsl_record = lsl_mechanism.intermediates_from_statistics(stats)
    recorder.add(("batch", "LSL", g, m, lam, "none", "rmse"), _rmse(phi, lsl_record.theta, truth))
    noise = rng.standard_normal(phi.shape[1])
    released = _private_rows(
        recorder,
        ("batch", "DP-LSL", g, m, lam),
        lsl_record.theta,
        lsl_record.sigma,
        experiment.scale_r,
        noise,
        phi,
        truth,
    )
    estimator: LSL = lsl_mechanism.estimator
    base = estimator.objective(lsl_record.theta, stats)
    for bound, theta_hat in zip(_BOUNDS, released, strict=False):
        recorder.add(("batch", "DP-LSL", g, m, lam, bound, "excess_risk"), estimator.objective(theta_hat, stats) - base)


def _batch_panels(
    experiment: _Experiment,
    statistics: list[dict[int, FirstVisitStatistics]],
    noise_streams: list[np.random.Generator],
    schedule_constant: float,
) -> None:
    """Panels 1, 3 and 4 on every batch size and aggregation group: LSW and DP-LSW, LSW against LSL at
    λ = √m (tabular and pairs), then LSL and DP-LSL on the schedule λ(m) = c√m (above Algorithm 2's least λ)."""
    config, recorder, truth = experiment.config, experiment.recorder, experiment.truth
    visit_probabilities = np.arange(1, config.n_states + 1) / config.n_states
    for run_index, per_size in enumerate(statistics):
        rng = noise_streams[run_index]
        for m in config.batch_sizes:
            stats = per_size[m]
            for g in config.aggregation_groups:
                phi = experiment.dp_lsw[g].estimator.phi
                theta = _record_dp_lsw(experiment, stats, g, m, rng, visit_probabilities)
                if g in (1, 2):
                    convergence = LSL(config.n_states, _features(g), config.gamma, math.sqrt(m))
                    recorder.add(("convergence", "LSW", g, m, 0.0, "none", "rmse"), _rmse(phi, theta, truth))
                    recorder.add(
                        ("convergence", "LSL", g, m, math.sqrt(m), "none", "rmse"),
                        _rmse(phi, convergence.solve(stats), truth),
                    )
                lam = max(schedule_constant * math.sqrt(m), 1.01 * _threshold(phi))
                _record_dp_lsl(experiment, stats, g, m, lam, rng)


def _summary_rows(experiment: _Experiment) -> list[dict[str, Any]]:
    """One row per recorded key, in recording order: its panel, algorithm, aggregation and d, m, λ,
    return bound and metric with the mean, standard error and number of runs."""
    recorder, dp_lsw = experiment.recorder, experiment.dp_lsw
    rows = []
    for recorded in recorder.values:
        panel, algorithm, group, m, lam, bound, metric = recorded
        mean, error = recorder.summary(recorded)
        rows.append(
            {
                "panel": panel,
                "algorithm": algorithm,
                "aggregation": group,
                "d": dp_lsw[group].estimator.d if group in dp_lsw else experiment.config.n_states,
                "m": m,
                "lam": lam,
                "return_bound": bound,
                "metric": metric,
                "mean": mean,
                "stderr": error,
                "runs": len(recorder.values[recorded]),
            }
        )
    return rows


def run_experiment(config: Balle2016Config, *, seed: int) -> dict[str, Any]:
    """Run every panel and return the summarised rows, the λ schedule constant and timings.

    Returns:
        A dict with ``rows`` (one dict per (panel, algorithm, features, m, λ, bound, metric)
        with mean, stderr and runs), ``schedule_constant`` c of λ(m) = c√m, and ``seconds``.
    """
    started = time.perf_counter()
    check_integer("runs", config.runs, low=2)
    chain = Chain(config.n_states, config.p, config.gamma)
    sampling_seeds = spawn_seed_sequences(seed, config.runs)
    noise_seeds = spawn_seed_sequences(seed + 1, config.runs)
    statistics = [_prefix_statistics(config, s) for s in sampling_seeds]
    experiment = _Experiment(
        config,
        truth=np.array([float(v) for v in chain.exact_values()]),
        scale_r=(config.r_max / (1.0 - config.gamma)) / config.f_max,
        dp_lsw={g: _dp_lsw(config, g) for g in config.aggregation_groups},
        recorder=_Recorder(),
    )
    noise_streams = [np.random.default_rng(s) for s in noise_seeds]
    _regularisation_panel(experiment, statistics, noise_streams)
    schedule_constant = _schedule_constant(experiment)
    _batch_panels(experiment, statistics, noise_streams, schedule_constant)
    rows = _summary_rows(experiment)
    return {"rows": rows, "schedule_constant": schedule_constant, "seconds": time.perf_counter() - started}


def _theorem11(mechanism: DPLSW, visit_probabilities: np.ndarray, m: int, factor: float) -> float:
    """Theorem 11's bound for DP-LSW on the chain: a uniform start visits s iff it is <= s, so p_s = (s+1)/N."""
    frobenius = float(np.linalg.norm(np.sqrt(mechanism.estimator.w)[:, None] * mechanism.estimator.phi))
    return lsw_excess_risk_bound(
        mechanism.estimator.w,
        visit_probabilities,
        m,
        mechanism.beta,
        mechanism.alpha,
        mechanism.return_bound * factor,
        mechanism.pinv_norm,
        frobenius,
    )


def _threshold(phi: np.ndarray) -> float:
    """‖Φ‖² ‖ρ‖_∞ with ρ = 1, the least λ DP-LSL accepts (Algorithm 2)."""
    return float(np.linalg.norm(phi, 2) ** 2)


def run(out_dir: Path, *, quick: bool, seed: int) -> Path:
    """Run the reproduction, write SVG figures, a CSV table and a Markdown summary; return the summary path.

    Args:
        out_dir: the output folder (created if needed).
        quick: the small configuration (:data:`QUICK`, under 3 minutes on 2 cores) instead of :data:`FULL`.
        seed: the root seed; the same seed gives the same CSV and figures.

    Returns:
        The path of ``summary.md``.

    References:
        Balle et al. 2016, Sec. 6 and Fig. 1.
    """
    config = QUICK if quick else FULL
    seed = check_integer("seed", seed, low=0)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    result = run_experiment(config, seed=seed)
    rows = result["rows"]
    write_csv(out / "balle2016.csv", rows)
    figures = _figures(rows, config)
    for name, figure in figures.items():
        (out / name).write_text(render_svg(figure))
    truth = np.array([float(v) for v in Chain(config.n_states, config.p, config.gamma).exact_values()])
    claims = _claims(rows, config, result["schedule_constant"], truth)
    load_after = os.getloadavg()
    summary = out / "summary.md"
    summary.write_text(
        summary_text(config, result, claims, figures, quick=quick, seed=seed, loads=(load_before, load_after))
    )
    return summary
