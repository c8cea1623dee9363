"""The executor layer: make_executor forms, ordered results, progress bar, optional Dask."""

import operator
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

import pytest

from dpaudit.checks.empirical.executors import SerialExecutor, make_executor, run_tasks
from dpaudit.errors import InvalidArgument, InvalidType
from tests.processes import alive_with


def _square(x):
    return x * x


def _fail(x):
    raise ZeroDivisionError(x)


@pytest.mark.parametrize("spec", ["serial", "thread", "thread:2", "process:1", " serial "])
def test_valid_specs_give_working_executors(spec):
    with make_executor(spec) as executor:
        assert isinstance(executor, Executor)
        assert run_tasks(operator.neg, [3, 1, 2], executor=executor, progress=False) == [-3, -1, -2]


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("", InvalidArgument),
        ("process:0", InvalidArgument),
        ("process:-1", InvalidArgument),
        ("process:two", InvalidArgument),
        ("thread:1.5", InvalidArgument),
        ("serial:2", InvalidArgument),
        ("cluster", InvalidArgument),
        ("dask://", InvalidArgument),
        (4, InvalidType),
        (None, InvalidType),
    ],
)
def test_invalid_specs(spec, error):
    with pytest.raises(error, match="executor="):
        make_executor(spec)


def test_existing_executor_is_returned_as_is():
    with ThreadPoolExecutor(1) as pool:
        assert make_executor(pool) is pool


def test_serial_executor_carries_exceptions_and_refuses_after_shutdown():
    executor = SerialExecutor()
    future = executor.submit(_fail, 1)
    with pytest.raises(ZeroDivisionError):
        future.result()
    executor.shutdown()
    with pytest.raises(RuntimeError):
        executor.submit(_square, 2)


def test_run_tasks_in_process_and_errors_propagate():
    assert run_tasks(_square, [], progress=False) == []
    with pytest.raises(ZeroDivisionError):
        run_tasks(_fail, [1], executor=SerialExecutor(), progress=False)


def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    run_tasks(_square, [1, 2], progress=True, label="demo")
    assert "demo [" in capsys.readouterr().err
    run_tasks(_square, [1, 2], progress=None)
    assert capsys.readouterr().err == ""


def test_dask_address_without_dask_gives_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(InvalidArgument, match="optional 'dask' extra"):
        make_executor("dask://127.0.0.1:8786")


def test_an_unreachable_dask_scheduler_is_a_usage_error_naming_the_address(monkeypatch, tmp_path):
    pytest.importorskip("distributed")
    import socket

    from dpaudit.checks.empirical import executors
    from dpaudit.cli import main

    monkeypatch.setattr(executors, "_DASK_CONNECT_SECONDS", 1.0)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(InvalidArgument, match=f"no Dask scheduler answers at tcp://127.0.0.1:{port}"):
        make_executor(f"dask://127.0.0.1:{port}")
    spec = str(Path(__file__).parents[2] / "specs" / "gaussian_mechanism.toml")
    assert main(["audit", spec, "--quick", "--executor", f"dask://127.0.0.1:{port}", "--out", str(tmp_path)]) == 2


class _RemoteFuture:
    """A stand-in for a Dask future: ends when told, runs its callbacks then, records a cancel."""

    def __init__(self):
        self.callbacks, self.outcome, self.cancelled = [], None, False

    def add_done_callback(self, callback):
        self.callbacks.append(callback)

    def end(self, outcome):
        self.outcome = outcome
        for callback in self.callbacks:
            callback(self)

    def result(self):
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome

    def cancel(self):
        self.cancelled = True


def test_a_dask_bundle_is_mirrored_task_by_task_with_its_results_its_error_and_its_cancellation():
    from dpaudit.checks.empirical.executors import _mirrored

    done, failed, dropped = _RemoteFuture(), _RemoteFuture(), _RemoteFuture()
    mirrors = [_mirrored(remote, count) for remote, count in ((done, 3), (failed, 2), (dropped, 2))]
    done.end([41, 42, 43])
    failed.end(ValueError("the task failed"))
    assert [mirror.result() for mirror in mirrors[0]] == [41, 42, 43]
    for mirror in mirrors[1]:  # each task of a bundle that raised
        with pytest.raises(ValueError, match="the task failed"):
            mirror.result()
    assert mirrors[2][1].cancel() and dropped.cancelled
    dropped.end([7, 8])  # (Dask would cancel the bundle) a mirror cancelled first stays cancelled
    assert mirrors[2][1].cancelled() and mirrors[2][0].result() == 7


class _MappingClient:
    """A stand-in for a Dask client with two one-thread workers: records what ``map`` sends."""

    def __init__(self):
        self.sent = []

    def get_executor(self, pure):
        return None

    def run(self, function, on_error):
        return {}

    def nthreads(self):
        return {"tcp://a": 1, "tcp://b": 1}

    def map(self, fn, functions, bundles, pure):
        self.sent = [(fn, function, list(bundle)) for function, bundle in zip(functions, bundles, strict=True)]
        self.remotes = [_RemoteFuture() for _ in bundles]
        return self.remotes

    def run_them(self):
        for remote, (fn, function, bundle) in zip(self.remotes, self.sent, strict=True):
            remote.end(fn(function, bundle))
        return [bundle for *_, bundle in self.sent]


def test_dask_gets_two_bundles_of_consecutive_tasks_per_worker_thread():
    from dpaudit.checks.empirical.executors import DaskExecutor

    client = _MappingClient()
    futures = DaskExecutor(client, owns_client=False).submit_all(operator.neg, range(10))
    assert client.run_them() == [[0, 1], [2, 3, 4], [5, 6], [7, 8, 9]]  # 4 = 2 per thread, 2 threads
    assert [future.result(timeout=5) for future in futures] == [-i for i in range(10)]
    futures = DaskExecutor(client, owns_client=False).submit_all(operator.neg, [5])
    assert client.run_them() == [[5]] and [future.result(timeout=5) for future in futures] == [-5]


_POOL_OWNER = """
import time
from dpaudit.checks.empirical.executors import process_pool

pool = process_pool(2)
futures = [pool.submit(time.sleep, 600) for _ in range(2)]
print("started", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_process_pools_workers_leave_with_the_process_that_started_it(tmp_path, monkeypatch):
    """SIGKILL leaves a process no time to shut its pool down: its workers, busy or waiting, notice and exit, and
    with them the forkserver and its resource tracker."""
    marker = f"dpaudit-pool-test-{tmp_path.name}"
    monkeypatch.setenv("DPAUDIT_TEST_MARKER", marker)

    owner = subprocess.Popen([sys.executable, "-c", _POOL_OWNER], stdout=subprocess.PIPE)
    assert owner.stdout is not None and owner.stdout.readline() == b"started\n"
    deadline = time.monotonic() + 30
    while len(alive_with(marker)) < 5 and time.monotonic() < deadline:  # owner, forkserver, tracker, 2 workers
        time.sleep(0.1)
    assert len(alive_with(marker)) >= 4
    owner.kill()
    owner.wait()
    owner.stdout.close()
    deadline = time.monotonic() + 30
    while alive_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive_with(marker) == []


def test_a_ctrl_c_while_the_fork_server_starts_reaches_the_auditor(monkeypatch):
    """The server starts with SIGINT blocked in this thread, not ignored: a Ctrl-C meanwhile waits and raises
    once it has started (ignored, it was discarded and the audit ran on to its end: a CI run's Ctrl-C test
    at 0.6 s saw exit 0)."""
    from multiprocessing import forkserver

    from dpaudit.checks.empirical.executors import forkserver_context

    main = threading.main_thread().ident
    monkeypatch.setattr(forkserver, "ensure_running", lambda: signal.pthread_kill(main, signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # a pytest-xdist worker ignores SIGINT
    try:
        with pytest.raises(KeyboardInterrupt):
            forkserver_context()
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGINT, previous)


WORKER_SIGNALS = """
import signal
from dpaudit.checks.empirical.executors import process_pool

def sigint_held_off():
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return blocked or signal.getsignal(signal.SIGINT) == signal.SIG_IGN

if __name__ == "__main__":
    with process_pool(1) as pool:
        print(pool.submit(sigint_held_off).result(), sigint_held_off())
"""


def test_a_pool_worker_never_sees_a_ctrl_c_and_the_auditor_does(tmp_path):
    """A fresh process's pool: its worker holds SIGINT off (a Ctrl-C to the process group would print its
    traceback), the process that started it neither blocks nor ignores it."""
    script = tmp_path / "probe.py"
    script.write_text(WORKER_SIGNALS)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from a shell: an xdist worker ignores it
    )
    assert done.stdout.split() == ["True", "False"], done.stderr


CALLER_MASK = """
import signal
from dpaudit.checks.empirical.executors import forkserver_context

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
forkserver_context()
print(sorted(int(number) for number in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
"""


def test_starting_the_fork_server_leaves_the_callers_signal_mask_as_it_was(tmp_path):
    """The resource tracker's start ends by unblocking SIGINT and SIGTERM: a caller that had blocked them
    found them unblocked (a fresh process, so that the tracker starts there)."""
    script = tmp_path / "mask.py"
    script.write_text(CALLER_MASK)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split("\n")[0] == str(sorted([int(signal.SIGINT), int(signal.SIGTERM)])), done.stderr
