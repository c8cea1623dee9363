"""The benchmark report: every figure as a ratio against a baseline run in the same process.

``python -m pytest tests/benchmarks -o addopts="--import-mode=importlib" -s --benchmark-report reports``
runs every benchmark and writes ``reports/benchmarks.json`` and ``reports/benchmarks.md``: per
figure the measured value, its baseline (what it is a ratio against, timed in the same process),
the repetitions with min and median, the target and whether it is met. Nothing is asserted on
time: a loaded machine changes the numbers, not the outcome of a test run.
"""

from __future__ import annotations

import json
import platform
import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

_FIGURES: list[Figure] = []


@dataclass(frozen=True)
class Figure:
    """One benchmark figure: ``value`` (a ratio or an absolute number) with how it was measured."""

    issue_point: str
    name: str
    value: float
    unit: str
    target: str
    met: bool | None
    detail: str
    repetitions: int = 1
    minimum_seconds: float | None = None
    median_seconds: float | None = None


@pytest.fixture
def record() -> Callable[..., Figure]:
    """Add a figure to the report (see :class:`Figure`); ``timings`` fills repetitions, min and median."""

    def add(
        issue_point: str,
        name: str,
        value: float,
        unit: str,
        target: str,
        met: bool | None,
        detail: str,
        *,
        timings: list[float] | None = None,
    ) -> Figure:
        figure = Figure(
            issue_point,
            name,
            float(value),
            unit,
            target,
            met,
            detail,
            repetitions=len(timings) if timings else 1,
            minimum_seconds=min(timings) if timings else None,
            median_seconds=statistics.median(timings) if timings else None,
        )
        _FIGURES.append(figure)
        print(f"\n[{issue_point}] {name}: {value:.4g} {unit} (target {target}: {_met_text(met)}) — {detail}")
        return figure

    return add


@pytest.fixture(scope="session", autouse=True)
def _bytecode_compiled() -> None:
    """dpaudit's modules compiled to bytecode before anything is timed, as an installed package has them
    (pip compiles at install; an editable install writes them at the first import, unless
    PYTHONDONTWRITEBYTECODE is set, as on the machines this project runs on: then every command would
    compile every module it imports again)."""
    import compileall

    import dpaudit

    compileall.compile_dir(Path(dpaudit.__file__).parent, quiet=1)


def _met_text(met: bool | None) -> str:
    return "met" if met else "not met" if met is not None else "reported"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--benchmark-report", metavar="DIR", default=None, help="write benchmarks.json and benchmarks.md to DIR"
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = session.config.getoption("--benchmark-report")
    if not folder or not _FIGURES:
        return
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": _cpus()}
    figures = sorted(_FIGURES, key=lambda figure: (figure.issue_point, figure.name))
    document = {"machine": machine, "figures": [asdict(figure) for figure in figures]}
    (out / "benchmarks.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    lines = [
        "# dpaudit benchmarks",
        "",
        'Regenerate: `python -m pytest tests/benchmarks -o addopts="--import-mode=importlib" -s '
        "--benchmark-report reports`.",
        f"Machine: {machine['cpus']} CPUs, {machine['machine']}, Python {machine['python']}. Ratios are against a "
        "baseline timed in the same process; times are the minimum (median) of the repetitions. dpaudit's "
        "modules are compiled to bytecode first, as an installed package has them.",
        "",
        "| point | figure | value | target | | detail |",
        "|---|---|---|---|---|---|",
    ]
    for figure in figures:
        seconds = (
            f" ({figure.minimum_seconds:.3g} s min, {figure.median_seconds:.3g} s median, {figure.repetitions} runs)"
            if figure.minimum_seconds is not None and figure.median_seconds is not None
            else ""
        )
        lines.append(
            f"| {figure.issue_point} | {figure.name} | {figure.value:.4g} {figure.unit} | {figure.target} | "
            f"{_met_text(figure.met)} | {figure.detail}{seconds} |"
        )
    (out / "benchmarks.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
