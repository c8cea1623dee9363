"""A corpus row keeps what replays its Monte Carlo bound: the best certified event's counts, its alpha,
its confirmation and the audited delta; the committed candidate reports that record them replay."""

import gzip
import json
from pathlib import Path

import pytest

from dpaudit.audit.candidates.corpus import load_manifest, run_corpus
from dpaudit.audit.candidates.refs import CandidateLimits
from dpaudit.report.counterexample_replay import replay_event

ROOT = Path(__file__).parents[2]


def _violated_rows():
    rows = []
    folder = ROOT / "reports" / "candidates"
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.json.gz")]):
        text = gzip.decompress(path.read_bytes()).decode("utf-8") if path.suffix == ".gz" else path.read_text("utf-8")
        for row in json.loads(text)["rows"]:
            worst = (row.get("detail") or {}).get("worst") if isinstance(row.get("detail"), dict) else None
            # the rows a Monte Carlo event made violated (another obligation, e.g. the public-noise replay of
            # the randomness contract, has its own counterexample)
            bound = float(worst["epsilon_lower_bound"]) if worst and "alpha" in worst else None
            refuting = bound is not None and bound > float(row["claimed_epsilon"])
            if row["verdict"] == "violated" and refuting:
                rows.append(pytest.param(row, id=f"{path.name}/{row['name']}/{row['seed']}"))
    return rows or [pytest.param(None, marks=pytest.mark.skip(reason="no committed row records alpha and delta yet"))]


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_a_corpus_rows_bound_replays_from_its_counts():
    (row,) = run_corpus(
        load_manifest(ROOT / "tests" / "candidates" / "manifest.toml"),
        seeds=[0],
        quick=True,
        limits=CandidateLimits(),
        only={"laplace-scale-halved"},
    )
    worst = row.detail["worst"]
    assert row.verdict == "violated" and worst["delta"] == 0.0
    assert replay_event(worst, row.claimed_epsilon, worst["delta"]) is None
    edited = {**worst, "q_count": worst["q_count"] + 100}
    assert "not the recorded" in replay_event(edited, row.claimed_epsilon, worst["delta"])


@pytest.mark.parametrize("row", _violated_rows())
def test_every_violated_row_of_the_committed_candidate_reports_replays(row):
    worst = row["detail"]["worst"]
    assert replay_event(worst, float(row["claimed_epsilon"]), float(worst["delta"])) is None
