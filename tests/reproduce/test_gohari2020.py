"""The gohari2020 reproduction: files, the domain note for Example 1, bracketing and timing columns."""

import csv

import pytest

from dpaudit.reproduce import gohari2020


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gohari2020, "RUNS", 4)
        patch.setattr(gohari2020, "K_GRID_QUICK", (5.0,))
        return gohari2020.run(tmp_path_factory.mktemp("gohari2020"), quick=True, seed=3)


def test_run_writes_summary_figures_and_tables(small_run):
    folder = small_run.parent
    assert small_run.name == "gohari2020_summary.md"
    for name in (
        "gohari2020_fig1a.svg",
        "gohari2020_fig1b.svg",
        "gohari2020_fig1c.svg",
        "gohari2020_runs.csv",
        "gohari2020_summary.csv",
    ):
        assert (folder / name).stat().st_size > 0
    text = small_run.read_text(encoding="utf-8")
    assert "outside the Dirichlet mechanism's domain" in text and "structural_zeros='keep'" in text
    assert "4.88" in text and "implied" in text


def test_bounds_bracket_the_private_value_in_every_run(small_run):
    with open(small_run.parent / "gohari2020_runs.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 4
    for row in rows:
        assert float(row["pessimistic"]) <= float(row["private"]) + 1e-9 <= float(row["optimistic"]) + 2e-9
        assert float(row["cost"]) > 0


def test_same_seed_same_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(gohari2020, "RUNS", 2)
    monkeypatch.setattr(gohari2020, "K_GRID_QUICK", (2.0,))
    monkeypatch.setattr(
        gohari2020,
        "_cvxpy_comparison",
        lambda example, k, seed: {
            "k": k,
            "exact_seconds": 1.0,
            "cvxpy_seconds": 1.0,
            "speedup": 1.0,
            "max_difference": 0.0,
        },
    )
    first = gohari2020.run(tmp_path / "a", quick=True, seed=1).parent / "gohari2020_summary.csv"
    second = gohari2020.run(tmp_path / "b", quick=True, seed=1).parent / "gohari2020_summary.csv"
    columns = slice(0, 9)
    assert _rows(first, columns) == _rows(second, columns)


def test_negative_seed_is_rejected(tmp_path):
    with pytest.raises(ValueError):
        gohari2020.run(tmp_path, quick=True, seed=-1)


def _rows(path, columns):
    with open(path, encoding="utf-8") as handle:
        return [row[columns] for row in csv.reader(handle)]
