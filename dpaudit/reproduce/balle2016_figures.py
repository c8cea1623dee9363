"""The figures of the Balle et al. 2016 reproduction (SVG through dpaudit.report.figures)."""

from __future__ import annotations

import math
from typing import Any

from dpaudit.reproduce.balle2016_claims import _select
from dpaudit.reproduce.balle2016_config import Balle2016Config


def _series(rows: list[dict], label: str, x_key: str = "m") -> dict[str, Any]:
    ordered = sorted(rows, key=lambda row: row[x_key])
    return {
        "label": label,
        "x": [row[x_key] for row in ordered],
        "y": [row["mean"] for row in ordered],
        "lower": [row["mean"] - row["stderr"] for row in ordered],
        "upper": [row["mean"] + row["stderr"] for row in ordered],
    }


def _figures(rows: list[dict], config: Balle2016Config) -> dict[str, dict[str, Any]]:
    batch = _select(rows, panel="batch", metric="rmse")
    convergence_rows = _select(rows, panel="convergence", metric="rmse")
    convergence = [
        _series(
            _select(convergence_rows, algorithm=name, aggregation=g),
            f"{name}, {'tabular' if g == 1 else f'pairs (d={d})'}",
        )
        for g, d in ((1, config.n_states), (2, math.ceil(config.n_states / 2)))
        if g in config.aggregation_groups
        for name in ("LSW", "LSL")
    ]
    regularisation = []
    for m in config.regularisation_batch_sizes:
        for name in ("LSW", "LSL", "DP-LSW", "DP-LSL"):
            bound = "none" if name in ("LSW", "LSL") else "f_max"
            selected = _select(rows, panel="regularisation", algorithm=name, m=m, metric="rmse", return_bound=bound)
            if name.endswith("LSW"):
                selected = [dict(selected[0], lam=lam) for lam in config.regularisation_grid]
            regularisation.append(_series(selected, f"{name}, m={m}", x_key="lam"))
    by_size = [
        _series(
            _select(batch, algorithm=name, aggregation=2, return_bound="none" if "DP" not in name else "f_max"), name
        )
        for name in ("LSW", "LSL", "DP-LSW", "DP-LSL")
    ]
    excess = [
        _series(
            _select(rows, metric="excess_risk", algorithm=name, aggregation=g, return_bound="f_max"), f"{name}, d={d}"
        )
        for name in ("DP-LSW", "DP-LSL")
        for g in config.aggregation_groups
        for d in [math.ceil(config.n_states / g)]
    ]
    common = {"kind": "line", "x_scale": "log", "y_scale": "log"}
    return {
        "fig1a_lsw_vs_lsl.svg": {
            **common,
            "title": "Non-private LSW vs LSL (λ = √m): RMSE vs batch size",
            "x_label": "batch size m",
            "y_label": "RMSE",
            "series": convergence,
        },
        "fig1b_regularisation.svg": {
            **common,
            "title": "Tabular: RMSE vs regularisation λ (DP with F_max = 1)",
            "x_label": "λ",
            "y_label": "RMSE",
            "series": regularisation,
        },
        "fig1c_batch_size.svg": {
            **common,
            "title": "Aggregated pairs: RMSE vs batch size (DP with F_max = 1, λ = c√m)",
            "x_label": "batch size m",
            "y_label": "RMSE",
            "series": by_size,
        },
        "fig1d_excess_risk.svg": {
            **common,
            "title": "Excess empirical risk J(θ̂) − J(θ) vs batch size (F_max = 1)",
            "x_label": "batch size m",
            "y_label": "excess empirical risk",
            "series": excess,
        },
    }
