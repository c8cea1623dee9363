"""The figures of the Xie et al. 2019 reproduction (SVG through dpaudit.report.figures)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dpaudit.report.figures import render_svg
from dpaudit.reproduce.xie2019_runs import _Table


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
