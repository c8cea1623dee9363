"""Shared pieces of the Xie et al. 2019 reproduction: result tables, spreads over trials, GPOPE runs
scored by MSPBE, and step-size tuning on public data.

References:
    Xie, Thomas & Miklau 2019, Sec. 7 (experiments).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.mechanisms.gpope import GPOPE, StepSizes, paper_noise_multiplier
from dpaudit.mechanisms.gtd2 import (
    DatasetMoments,
    TransitionTable,
    mspbe,
)
from dpaudit.reproduce.gpope_accounting import gpope_epsilon_add_remove, gpope_noise_multiplier_add_remove
from dpaudit.reproduce.xie2019_config import DELTA

MSPBE_COLUMNS = (
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
"""The columns of the chain's MSPBE tables (Fig. 1(a) and 1(b)): a method's spread of MSPBE over trials."""

NOISE_MULTIPLIER_COLUMNS = (
    "domain",
    "m",
    "epsilon",
    "delta",
    "iterations",
    "paper_sigma_b32",
    "dpaudit_sigma_add_remove",
    "epsilon_dpaudit_at_paper_sigma",
)
"""The columns of ``noise_multipliers.csv``: GPOPE's σ by the paper and by dpaudit's accountant (see
:func:`_noise_multipliers`)."""


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


def _noise_multipliers(table: _Table, domain: str, m: int, epsilon: float, iterations: int) -> tuple[float, float]:
    """GPOPE's noise multiplier for ``m`` trajectories, ``iterations`` steps and (ε, :data:`DELTA`): the paper's
    (eq. B.32) and the one dpaudit's Rényi accountant certifies under add/remove-one. Both are added to
    ``table`` as one row, with the ε the accountant certifies at the paper's σ."""
    paper = paper_noise_multiplier(epsilon, DELTA, m, iterations)
    verified = gpope_noise_multiplier_add_remove(epsilon, DELTA, m, iterations)
    table.add(
        domain=domain,
        m=m,
        epsilon=epsilon,
        delta=DELTA,
        iterations=iterations,
        paper_sigma_b32=paper,
        dpaudit_sigma_add_remove=verified,
        epsilon_dpaudit_at_paper_sigma=gpope_epsilon_add_remove(paper, DELTA, m, iterations),
    )
    return paper, verified


def _prefixed(spread: dict[str, float]) -> dict[str, Any]:
    return {
        "mean_mspbe": spread["mean"],
        "std_mspbe": spread["std"],
        "min_mspbe": spread["min"],
        "max_mspbe": spread["max"],
        "trials": spread["trials"],
    }
