"""Tests of the Balle et al. 2016 Sec. 6 reproduction (small configurations only)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.mechanisms.policy_evaluation.statistics import first_visit_statistics
from dpaudit.reproduce import balle2016
from dpaudit.rl.domains import Chain
from dpaudit.rl.sampling import sample_trajectories
from dpaudit.rl.trajectory import TrajectoryBatch

TINY = replace(
    balle2016.QUICK,
    runs=2,
    batch_sizes=(10, 30, 100),
    regularisation_batch_sizes=(10, 100),
    regularisation_grid=(1.5, 15.0, 150.0, 1500.0),
)


def test_prefix_statistics_match_the_concatenated_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(balle2016, "SAMPLING_BLOCK", 7)
    config = replace(TINY, n_states=6, batch_sizes=(3, 7, 8, 20), regularisation_batch_sizes=(7, 20))
    prefixes = balle2016._prefix_statistics(config, np.random.SeedSequence(99))
    chain = Chain(6, config.p, config.gamma)
    blocks = np.random.SeedSequence(99).spawn(math.ceil(20 / 7))
    trajectories = []
    for index, block_seed in enumerate(blocks):
        count = min(7, 20 - 7 * index)
        batch = sample_trajectories(chain.mdp(), chain.policy(), count, rng=np.random.default_rng(block_seed))
        trajectories.extend(batch.to_dataset())
    assert sorted(prefixes) == [3, 7, 8, 20]
    for m, statistics in prefixes.items():
        direct = first_visit_statistics(TrajectoryBatch.from_trajectories(trajectories[:m], 6), n_states=6, gamma=0.99)
        assert statistics.m == m
        assert np.array_equal(statistics.signature, direct.signature)
        np.testing.assert_allclose(statistics.average_returns, direct.average_returns, rtol=1e-12)
        np.testing.assert_allclose(statistics.squared_returns, direct.squared_returns, rtol=1e-12)


def test_experiment_rows_cover_every_panel() -> None:
    result = balle2016.run_experiment(TINY, seed=3)
    rows = result["rows"]
    panels = {row["panel"] for row in rows}
    assert panels == {"convergence", "regularisation", "batch"}
    metrics = {row["metric"] for row in rows}
    assert metrics == {
        "rmse",
        "sigma",
        "excess_risk",
        "expected_excess_risk",
        "theorem11_bound",
        "excess_risk_lower_bound",
    }
    assert all(row["runs"] == TINY.runs for row in rows)
    lsl = [row for row in rows if row["algorithm"] == "DP-LSL" and row["panel"] == "batch"]
    assert all(row["lam"] > row["aggregation"] for row in lsl)
    sigma = {
        (r["panel"], r["algorithm"], r["aggregation"], r["m"], r["lam"], r["return_bound"]): r["mean"]
        for r in rows
        if r["metric"] == "sigma"
    }
    for (*key, bound), value in sigma.items():
        if bound == "f_max":
            assert sigma[(*key, "r_max")] == pytest.approx(100 * value, rel=1e-12)


def test_run_writes_figures_table_and_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(balle2016, "QUICK", TINY)
    summary = balle2016.run(tmp_path / "out", quick=True, seed=5)
    assert summary == tmp_path / "out" / "summary.md"
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == [
        "balle2016.csv",
        "fig1a_lsw_vs_lsl.svg",
        "fig1b_regularisation.svg",
        "fig1c_batch_size.svg",
        "fig1d_excess_risk.svg",
        "summary.md",
    ]
    text = summary.read_text()
    assert "## Sec. 6 claims" in text
    claims_table = text.split("## Sec. 6 claims")[1].split("##")[0]
    assert sum(line.startswith("| ") for line in claims_table.splitlines()) == 1 + 7
    for svg in (tmp_path / "out").glob("*.svg"):
        assert svg.read_text().startswith("<svg")


def test_same_seed_same_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(balle2016, "QUICK", TINY)
    balle2016.run(tmp_path / "a", quick=True, seed=8)
    balle2016.run(tmp_path / "b", quick=True, seed=8)
    balle2016.run(tmp_path / "c", quick=True, seed=9)
    first = (tmp_path / "a" / "balle2016.csv").read_text()
    assert first == (tmp_path / "b" / "balle2016.csv").read_text()
    assert first != (tmp_path / "c" / "balle2016.csv").read_text()
    for name in ("fig1a_lsw_vs_lsl.svg", "fig1d_excess_risk.svg"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()


@pytest.mark.parametrize("seed, error", [(-1, InvalidArgument), (1.5, InvalidType)])
def test_bad_seed_rejected(tmp_path: Path, seed: object, error: type) -> None:
    with pytest.raises(error):
        balle2016.run(tmp_path, quick=True, seed=seed)
