"""Corpora on a pool and on a cluster (issue 41, point 4): the same corpus (two candidates of the test
fixture, four seeds, --quick) on a local pool of 1 and of 2 processes and on a Dask LocalCluster of 2
worker processes, timed in the same process. Each check runs in a fresh process of its own on every
executor (dpaudit.audit.candidates.corpus_task), so the tables are the same; the figures are the
speed-up from 1 to 2 workers and the cluster's time against the local pool's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dpaudit.audit.candidates.corpus import load_manifest, run_corpus
from dpaudit.audit.candidates.refs import CandidateLimits
from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.checks.empirical.executors import make_executor
from tests.audit.test_corpus import FIXTURES, MANIFEST
from tests.benchmarks.test_executors import _worker_settings
from tests.benchmarks.timing import timed

pytestmark = pytest.mark.benchmark

SEEDS = [0, 1, 2, 3]


def _rows(entries, executor):
    rows = run_corpus(entries, seeds=SEEDS, quick=True, limits=CandidateLimits(), executor=executor)
    return [{key: value for key, value in row.to_json().items() if key != "seconds"} for row in rows]


def test_corpus_on_two_workers_and_on_a_cluster(record, tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    import dask

    (tmp_path / "specs").mkdir()
    shutil.copy(builtin_spec_dir() / "examples" / "gaussian_candidate.toml", tmp_path / "specs" / "gaussian.toml")
    shutil.copy(Path(FIXTURES) / "sample_candidates.py", tmp_path)
    # the per-call candidates (the test's corpus draws in batches): each check keeps its worker busy, the auditor waits
    (tmp_path / "manifest.toml").write_text(
        MANIFEST.replace("vectorised_good_gaussian", "good_gaussian").replace(
            "vectorised_halved_gaussian", "halved_gaussian"
        )
    )
    entries = load_manifest(tmp_path / "manifest.toml")
    timings = {}
    for workers in (1, 2):
        with make_executor(f"process:{workers}") as pool:
            rows, timings[workers] = timed(lambda pool=pool: _rows(entries, pool), repetitions=2)
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    with dask.config.set(_worker_settings(dask)):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        with distributed.Client(cluster) as client, make_executor(client) as on_cluster:
            on_dask_rows, on_dask = timed(lambda: _rows(entries, on_cluster), repetitions=2)
    finally:
        cluster.close()
    assert on_dask_rows == rows  # the same tables on every executor
    speed_up = min(timings[1]) / min(timings[2])
    record(
        "41.4",
        "corpus of 8 checks: local pool of 1 worker time / of 2 workers",
        speed_up,
        "x",
        ">= 1.8x",
        speed_up >= 1.8,
        f"1 worker {min(timings[1]):.1f} s, 2 workers {min(timings[2]):.1f} s (best of 2)",
        timings=timings[2],
    )
    ratio = min(on_dask) / min(timings[2])
    record(
        "41.4",
        "corpus of 8 checks: Dask LocalCluster (2 workers) time / local pool (2 workers)",
        ratio,
        "x",
        "<= 1.2x",
        ratio <= 1.2,
        f"pool {min(timings[2]):.1f} s, Dask {min(on_dask):.1f} s (best of 2)",
        timings=on_dask,
    )
