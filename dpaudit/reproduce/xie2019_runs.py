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

from dpaudit.mechanisms.gpope import GPOPE, StepSizes
from dpaudit.mechanisms.gtd2 import (
    DatasetMoments,
    TransitionTable,
    mspbe,
)


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


def _prefixed(spread: dict[str, float]) -> dict[str, Any]:
    return {
        "mean_mspbe": spread["mean"],
        "std_mspbe": spread["std"],
        "min_mspbe": spread["min"],
        "max_mspbe": spread["max"],
        "trials": spread["trials"],
    }
