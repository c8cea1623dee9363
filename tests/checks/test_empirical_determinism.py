"""Same seed, same certified bound: serial, 1, 2 and 4 process workers, threads, and a Dask LocalCluster."""

import functools
import operator
import time

import numpy as np
import pytest

from dpaudit.checks.empirical.budget import AuditBudget
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.events import LinearProjection, QuadraticProjection
from dpaudit.checks.empirical.executors import make_executor, run_tasks
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.mechanisms.gaussian import GaussianMechanism

PAIR = NeighbourPair(np.zeros(2), np.array([0.6, 0.8]), "planar")
BUDGET = AuditBudget(120_000, chunk_size=10_000, batch_size=4096, events=("threshold", "halfspace", "classifier"))


def _bound(executor):
    return certify_privacy_lower_bound(
        GaussianMechanism(1.0, 1.0), [PAIR], delta=1e-3, epsilon=3.2, budget=BUDGET, seed=2024, executor=executor
    )


@pytest.fixture(scope="module")
def reference():
    return _bound(None)


@pytest.mark.parametrize("spec", ["serial", "thread:2", "process:1", "process:2", "process:4"])
def test_same_bound_on_every_local_executor(reference, spec):
    assert reference.epsilon_lower_bound > 0.5
    with make_executor(spec) as executor:
        assert _bound(executor) == reference


def test_same_bound_on_a_dask_local_cluster(reference, caplog, monkeypatch):
    """Two worker processes (a real LocalCluster); with the nanny's malloc setting a warning says
    how to start faster workers (docs/executors.md), without it none."""
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'dpaudit[dask]'")
    import dask

    environ = dask.config.get("distributed.nanny.pre-spawn-environ")
    settings = [
        ({}, True),
        ({"distributed.nanny.pre-spawn-environ": {k: v for k, v in environ.items() if "MALLOC" not in k}}, False),
    ]
    for config, warned in settings:
        caplog.clear()
        monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)  # a nanny leaves it in this process's environment
        with dask.config.set(config):
            cluster = distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            )
        with cluster, distributed.Client(cluster) as client:
            executor = make_executor(client)
            assert _bound(executor) == reference
            # tasks go in bundles (two per worker thread): results in task order, a task's error raised
            assert run_tasks(operator.neg, range(9), executor=executor) == [-i for i in range(9)]
            with pytest.raises(ZeroDivisionError):
                run_tasks(functools.partial(operator.truediv, 1), [1, 2, 0, 4, 5], executor=executor)
            executor.shutdown()
            assert client.status == "running"
        assert ("MALLOC_TRIM_THRESHOLD_" in caplog.text) is warned


@pytest.mark.parametrize("weights", [(1.0, 0.0), (-0.7, 0.25), (0.0, -1.5), (-0.0, 0.0)])
def test_one_coordinates_scores_are_the_matrix_products_numbers_and_a_zero_is_positive(weights):
    """Half-space and quadratic scores of one-coordinate outputs skip the matrix product: the same numbers,
    and a zero score is +0.0 whatever the signs of its factors (as a sum begun at +0.0 gives, on any BLAS)."""
    linear, quadratic = weights
    rng = np.random.default_rng(5)
    outputs = np.concatenate([rng.standard_normal(1000), [0.0, -0.0, 1e-300, -1e-300, 5e-324, -5e-324]])[:, None]
    expected_linear = outputs @ np.array([linear])
    expected_quadratic = expected_linear + (outputs * outputs) @ np.array([quadratic])
    got_linear = LinearProjection((linear,), "test").scores(outputs)
    got_quadratic = QuadraticProjection((linear,), (quadratic,), "test").scores(outputs)
    for got, expected in ((got_linear, expected_linear), (got_quadratic, expected_quadratic)):
        np.testing.assert_array_equal(got, expected)
        assert not np.signbit(got[got == 0.0]).any()


def test_tasks_waiting_on_a_dask_cluster_without_workers_are_warned_about(caplog, monkeypatch):
    """With its last worker gone a Dask cluster keeps the tasks queued: dpaudit says so rather than wait silently."""
    distributed = pytest.importorskip("distributed", reason="Dask is an optional extra: pip install 'dpaudit[dask]'")
    from dpaudit.checks.empirical.executors import DaskExecutor

    monkeypatch.setattr(DaskExecutor, "worker_check_seconds", 0.1)
    monkeypatch.setattr(DaskExecutor, "no_worker_seconds", 0.3)
    with (
        distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        executor = make_executor(client)
        future = executor.submit(operator.neg, 1)
        deadline = time.monotonic() + 20
        while "has had no worker" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "the Dask cluster has had no worker for" in caplog.text
        assert not future.done()
        executor.shutdown(cancel_futures=True)
