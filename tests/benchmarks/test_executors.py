"""Executors on one machine (issue 20, point 5): the same Monte Carlo workload (10^7 draws per
side, threshold events) serially, on a local process pool of 2 workers, and on a Dask
LocalCluster of 2 worker processes, timed in the same process (best of 3, pools warm)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.executors import make_executor
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.mechanisms.gaussian import GaussianMechanism
from tests.benchmarks.timing import timed

pytestmark = pytest.mark.benchmark


#: Worker settings docs/executors.md recommends for dpaudit: without the nanny's MALLOC_TRIM_THRESHOLD_
#: (it sends every 128 KiB batch array through mmap: tasks 2-4x slower) and without the sampling
#: profiler (it takes the GIL from the task every 10 ms).
def _worker_settings(dask) -> dict:
    environ = dask.config.get("distributed.nanny.pre-spawn-environ")
    return {
        "distributed.nanny.pre-spawn-environ": {k: v for k, v in environ.items() if k != "MALLOC_TRIM_THRESHOLD_"},
        "distributed.worker.profile.enabled": False,
    }


PAIR = NeighbourPair(np.zeros(1), np.ones(1), "f(X) = 0, f(X') = 1")


def _workload(executor):
    return certify_privacy_lower_bound(
        GaussianMechanism(1.0, 1.0),
        [PAIR],
        delta=1e-3,
        epsilon=3.1387,
        budget=AuditBudget(10**7),
        seed=0,
        executor=executor,
    )


def test_dask_against_the_process_pool(record, monkeypatch):
    distributed = pytest.importorskip("distributed")
    import dask

    _, serial = timed(lambda: _workload(None))
    with make_executor("process:2") as pool:
        _workload(pool)  # warm the pool
        expected, process = timed(lambda: _workload(pool))
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)  # a nanny started earlier leaves it here
    with dask.config.set(_worker_settings(dask)):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        with distributed.Client(cluster) as client, make_executor(client) as on_cluster:
            _workload(on_cluster)
            result, on_dask = timed(lambda: _workload(on_cluster))
    finally:
        cluster.close()
    assert result.epsilon_lower_bound == expected.epsilon_lower_bound  # the same bound on every executor
    ratio = min(on_dask) / min(process)
    record(
        "20.5",
        "Monte Carlo 10^7 draws per side: Dask LocalCluster (2 workers) time / process pool (2 workers)",
        ratio,
        "x",
        "<= 1.3x",
        ratio <= 1.3,
        f"serial {min(serial):.3f} s, process pool {min(process):.3f} s, Dask {min(on_dask):.3f} s "
        "(workers started as docs/executors.md says: no MALLOC_TRIM_THRESHOLD_, no profiler)",
        timings=on_dask,
    )
