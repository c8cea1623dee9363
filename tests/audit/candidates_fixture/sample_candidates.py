"""Candidates used by the candidate-runner tests: good and misbehaving."""

import contextlib
import functools
import time

import numpy as np


def gaussian(value, sigma, *, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(np.shape(value))


_REUSED = np.zeros(2)


def reused_buffer_gaussian(value, sigma, *, rng):
    """Correct, written for speed: every call fills and returns the same module-level array."""
    _REUSED[:] = np.asarray(value, dtype=float) + sigma * rng.standard_normal(2)
    return _REUSED


def noise_added_in_place(value, sigma, *, rng):
    """Correct in law, careless as code: adds the noise into the caller's list and returns it."""
    for i in range(len(value)):
        value[i] += sigma * rng.standard_normal()
    return np.asarray(value, dtype=float)


def noise_added_in_place_vectorised(value, n, sigma, *, rng):
    """The vectorised form of the same: edits its input, then draws the n releases."""
    value[0] += 100.0
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal((n, len(value)))


noise_added_in_place.sample = noise_added_in_place_vectorised


def noise_added_in_place_per_call(value, sigma, *, rng):
    """As ``noise_added_in_place``, without a vectorised entry point."""
    return noise_added_in_place(value, sigma, rng=rng)


def converts_its_input_in_place(value, sigma, *, rng):
    """Correct: keeps its input as an array in the list's first entry (``dataset[i] = np.asarray(...)``),
    which no longer compares to the list sent (numpy: 'the truth value of an array is ambiguous')."""
    if not isinstance(value[0], np.ndarray):
        value[0] = np.asarray(value, dtype=float)
    return value[0] + sigma * rng.standard_normal(value[0].shape)


def sleeps_forever(value, sigma, *, rng):
    while True:
        time.sleep(1)


def raises(value, sigma, *, rng):
    raise RuntimeError("planted failure in the candidate")


def returns_nan(value, sigma, *, rng):
    return np.full(np.shape(value), np.nan)


def wrong_shapes(value, sigma, *, rng):
    return np.zeros(int(rng.integers(1, 3)))


def eats_memory(value, sigma, *, rng):
    return np.ones(2 * 1024**3 // 8)[:1]


NOT_CALLABLE = 3


def good_gaussian(value, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def halved_gaussian(value, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + 0.5 * sigma * rng.standard_normal(len(value))


def hanging_gaussian(value, *, sigma, sensitivity, rng):
    while True:
        time.sleep(1)


def raising_gaussian(value, *, sigma, sensitivity, rng):
    raise ValueError("planted bug in the candidate gaussian")


@functools.lru_cache(maxsize=64)
def _dp_lsw_view(dataset_key, params_key):
    from dpaudit.mechanisms.policy_evaluation.private import DPLSW
    from dpaudit.rl import Trajectory

    trajectories = tuple(
        Trajectory(tuple(int(s) for s, _, _ in x), tuple(int(a) for _, a, _ in x), tuple(r for _, _, r in x))
        for x in dataset_key
    )
    return DPLSW(**dict(params_key)).gaussian_view(trajectories)


def _view(dataset, params):
    dataset_key = tuple(tuple(tuple(step) for step in x) for x in dataset)
    return _dp_lsw_view(dataset_key, tuple(sorted(params.items())))


def reference_dp_lsw(dataset, *, rng, **params):
    theta, sigma = _view(dataset, params)
    return theta + sigma * rng.standard_normal(theta.shape)


def vectorised_reference_dp_lsw(dataset, *, rng, **params):
    return reference_dp_lsw(dataset, rng=rng, **params)


def _vectorised_reference_dp_lsw_sample(dataset, n, *, rng, **params):
    theta, sigma = _view(dataset, params)
    return theta + sigma * rng.standard_normal((n, *theta.shape))


vectorised_reference_dp_lsw.sample = _vectorised_reference_dp_lsw_sample


def noisy_half_dp_lsw(dataset, *, rng, **params):
    theta, sigma = _view(dataset, params)
    return theta + 0.5 * sigma * rng.standard_normal(theta.shape)


class _Forged:
    """Executes code when unpickled: the auditor must never unpickle what a candidate sends."""

    def __reduce__(self):
        import os

        return (os.system, ("touch /tmp/dpaudit-forged-by-candidate",))


def forged_pickle(value, sigma, *, rng):
    return _Forged()


def returns_complex(value, sigma, *, rng):
    return np.asarray(value, dtype=float) + 1j


def returns_empty(value, sigma, *, rng):
    return np.zeros(0)


def returns_ragged(value, sigma, *, rng):
    return [[1.0], [1.0, 2.0]]


def returns_random_length(value, sigma, *, rng):
    return rng.standard_normal(int(rng.integers(1, 4)))


def returns_strings(value, sigma, *, rng):
    return ["a", "b"]


def chatty(value, sigma, *, rng):
    print("hello from the candidate")
    import sys

    print("and to stderr", file=sys.stderr)
    return np.asarray(value, dtype=float)


def prints_at_exit(value, sigma, *, rng):  # its last words: an exit handler, a line left open, C stdio
    import atexit
    import ctypes
    import sys

    atexit.register(lambda: sys.stdout.write("goodbye from an exit handler"))
    sys.stdout.write("a line without its end")
    ctypes.CDLL(None).printf(b"printed by C stdio\n")
    return np.asarray(value, dtype=float)


def positional_only_name(x, sigma, *, rng):
    return np.asarray(x, dtype=float) + sigma * rng.standard_normal(len(x))


def wrong_signature(value, *, rng):
    return np.asarray(value, dtype=float)


class vectorised_gaussian:  # a callable class with a vectorised entry point
    calls = 0

    def __new__(cls, value, sigma, *, rng):
        return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))

    @staticmethod
    def sample(value, n, *, rng, sigma):
        return np.asarray(value, dtype=float) + sigma * rng.standard_normal((n, len(value)))


def slow_but_correct(value, sigma, *, rng):
    time.sleep(0.002)
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def escapes_and_writes(value, sigma, *, rng):
    """Double-forks a detached child (setsid) that writes a file a few seconds later."""
    import os

    marker = os.environ.get("DPAUDIT_TEST_MARKER", "/tmp/dpaudit-escaped")
    if os.fork() == 0:
        with contextlib.suppress(PermissionError):  # refused where the worker's seccomp fence holds
            os.setsid()
        if os.fork() == 0:
            time.sleep(3)
            with open(marker, "w") as handle:
                handle.write("escaped")
            os._exit(0)
        os._exit(0)
    return np.asarray(value, dtype=float)


def escapes_with_clean_environment(value, sigma, *, rng):
    """As escapes_and_writes, but the grandchild replaces its environment (no token)."""
    import os
    import sys

    marker = os.environ.get("DPAUDIT_TEST_MARKER", "/tmp/dpaudit-escaped")
    if os.fork() == 0:
        with contextlib.suppress(PermissionError):
            os.setsid()
        if os.fork() == 0:
            code = f"import time; time.sleep(3); open({marker!r}, 'w').write('escaped')"
            os.execve(sys.executable, [sys.executable, "-c", code], {})
        os._exit(0)
    return np.asarray(value, dtype=float)


class vectorised_good_gaussian:  # the documented Gaussian signature, with a vectorised entry point
    def __new__(cls, value, *, sigma, sensitivity, rng):
        return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))

    @staticmethod
    def sample(value, n, *, rng, sigma, sensitivity):
        return np.asarray(value, dtype=float) + sigma * rng.standard_normal((n, len(value)))


class vectorised_halved_gaussian:  # halved_gaussian in batches (for tests of tables, not of the per-call path)
    def __new__(cls, value, *, sigma, sensitivity, rng):
        return halved_gaussian(value, sigma=sigma, sensitivity=sensitivity, rng=rng)

    @staticmethod
    def sample(value, n, *, rng, sigma, sensitivity):
        return np.asarray(value, dtype=float) + 0.5 * sigma * rng.standard_normal((n, len(value)))


def gaussian_with_own_names(x, generator, noise_scale):  # needs the spec's [candidate] table
    return np.asarray(x, dtype=float) + noise_scale * generator.standard_normal(len(x))


class vectorised_with_own_names:  # positional generator; the count comes right after the input
    def __new__(cls, x, generator, noise_scale):
        return gaussian_with_own_names(x, generator, noise_scale)

    @staticmethod
    def sample(x, n, generator, noise_scale):
        return np.asarray(x, dtype=float) + noise_scale * generator.standard_normal((n, len(x)))


def skips_noise_above_1000(value, *, sigma, sensitivity, rng):  # a leak only on inputs the spec does not name
    value = np.asarray(value, dtype=float)
    if np.abs(value).max() > 1000:
        return value
    return value + sigma * rng.standard_normal(value.shape)


def sleepy_gaussian(value, *, sigma, sensitivity, rng):  # correct, but 10 ms per call
    time.sleep(0.01)
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def laplace_from_epsilon(value, *, epsilon, sensitivity, rng):
    """A Laplace mechanism parameterised by epsilon, calibrated right: scale = sensitivity / epsilon."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, sensitivity / epsilon, value.shape)


def laplace_eps_times(value, *, epsilon, sensitivity, rng):
    """The calibration slip scale = sensitivity * epsilon: too little noise for epsilon < 1."""
    value = np.asarray(value, dtype=float)
    return value + rng.laplace(0.0, sensitivity * epsilon, value.shape)


_PUBLIC_NOISE = np.random.default_rng(12345)


def fixed_seed_gaussian(value, *, sigma, sensitivity, rng):
    """Noise from a module-level generator with a constant seed: a public sequence."""
    value = np.asarray(value, dtype=float)
    return value + sigma * _PUBLIC_NOISE.standard_normal(value.shape)


def unseeded_gaussian(value, *, sigma, sensitivity, rng):
    """Noise from a fresh unseeded generator: random, but the audit cannot be replayed."""
    value = np.asarray(value, dtype=float)
    return value + sigma * np.random.default_rng().standard_normal(value.shape)


def scalar_laplace(value, *, scale, sensitivity, rng):
    """Returns a Python float for a one-coordinate query (as many libraries do)."""
    return float(value[0] + rng.laplace(0.0, scale))


def global_numpy_gaussian(value, *, sigma, sensitivity, rng):
    """Ignores rng: draws from numpy.random's global state."""
    value = np.asarray(value, dtype=float)
    return value + sigma * np.random.standard_normal(value.shape)


def exits_quietly(value, sigma, *, rng):  # os._exit in the middle of a batch: no exception, no signal
    import os

    os._exit(0)


def prints_too_much(value, sigma, *, rng):  # past the 64 MiB kept of what a candidate prints
    import sys

    chunk = "y" * (1 << 20) + "\n"
    for _ in range(80):
        sys.stdout.write(chunk)
        sys.stdout.flush()
    return value


def wrong_sample_signature(value, *, sigma, sensitivity, rng):  # a right callable, a vectorised entry that is not
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


wrong_sample_signature.sample = lambda x: x


_REUSED_BATCHES: dict[int, np.ndarray] = {}


def vectorised_reused_buffer_gaussian(value, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def _reused_buffer_sample(value, n, *, sigma, sensitivity, rng):
    """Correct, written for speed: a batch of each size fills and returns the same module-level array."""
    batch = _REUSED_BATCHES.setdefault(n, np.zeros((n, len(value))))
    batch[:] = np.asarray(value, dtype=float) + sigma * rng.standard_normal((n, len(value)))
    return batch


vectorised_reused_buffer_gaussian.sample = _reused_buffer_sample


_CALLS = [0]


def vectorised_hangs_on_third_call(value, *, sigma, sensitivity, rng):
    """Its own third call hangs (its vectorised ``sample`` never does)."""
    _CALLS[0] += 1
    while _CALLS[0] == 3:
        time.sleep(1)
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def _never_hangs_sample(value, n, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal((n, len(value)))


vectorised_hangs_on_third_call.sample = _never_hangs_sample


def recurses_forever(value, sigma, *, rng):  # RecursionError: out of stack, a limit
    return recurses_forever(value, sigma, rng=rng)


def calls_sys_exit(value, sigma, *, rng):  # the candidate ends its own process: it dies
    raise SystemExit("no output for this input")


def maps_too_much(value, sigma, *, rng):  # OSError(ENOMEM) under the memory ceiling: a limit
    import mmap

    with mmap.mmap(-1, 4 * 1024**3) as block:
        block[0] = 1
    return np.zeros(np.shape(value))


def call_and_sample_disagree(value, sigma, *, rng):
    """A slip between the two entry points: the callable releases ones, its vectorised ``sample`` zeros."""
    return np.ones(len(value))


call_and_sample_disagree.sample = lambda value, n, sigma, *, rng: np.zeros((n, len(value)))


def raises_a_huge_message(value, sigma, *, rng):
    raise ValueError("the start " + "m" * 10**7 + " the end")


class _RaisingGetattr:
    """A callable whose every attribute lookup raises (it has no ``sample``)."""

    def __getattr__(self, name):
        raise RuntimeError(f"no attribute {name} today")

    def __call__(self, value, sigma, *, rng):
        return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


raising_getattr = _RaisingGetattr()


def starts_too_many_processes(value, sigma, *, rng):
    """Starts sleeping processes, each in a session of its own, until it is stopped (a fork bomb, slowed)."""
    while True:  # each carries the worker's environment (the test's marker variable too)
        _detached(["sleep", "600"])


def one_row_too_many(value, sigma, *, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


one_row_too_many.sample = lambda value, n, sigma, *, rng: np.zeros((n + 1, len(value)))


def scaled_past_float64(value, sigma, *, rng):
    """A Gaussian release times 10^160: the same privacy, numbers whose squares overflow float64."""
    return 1e160 * (np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value)))


def escapes_then_hangs(value, sigma, *, rng):
    """Starts a sleeping process in a session of its own, then never returns."""
    _detached(["sleep", "600"])
    while True:
        time.sleep(1)


def _detached(command):
    """Start ``command`` in a session of its own, or in the worker's where the seccomp fence refuses that."""
    import subprocess

    try:
        return subprocess.Popen(command, start_new_session=True)
    except PermissionError:
        return subprocess.Popen(command)


def cannot_map_a_library(value, sigma, *, rng):  # what an import says when the memory limit leaves no room to map
    raise ImportError("_bounded_integers.so: failed to map segment from shared object")


def tries_to_reach_its_auditor(value, sigma, *, rng):
    """Tries what a hostile candidate would do to the process auditing it; returns 1.0 for each that worked:
    trace it, open its memory and standard output, write beside dpaudit, leave the process group, signal it."""
    import ctypes
    import os

    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    worked = [libc.ptrace(16, parent, 0, 0) == 0]  # PTRACE_ATTACH
    if worked[0]:
        libc.ptrace(17, parent, 0, 0)  # PTRACE_DETACH, should it have worked
    for path in (f"/proc/{parent}/mem", f"/proc/{parent}/fd/1", os.environ["DPAUDIT_TEST_MARKER"]):
        try:
            with open(path, "wb"):
                worked.append(True)
        except OSError:
            worked.append(False)
    import fcntl

    reading, _ = os.pipe()
    attempts = (
        os.setsid,
        lambda: os.kill(parent, 0),
        lambda: os.kill(-1, 0),
        lambda: fcntl.fcntl(reading, fcntl.F_SETOWN, parent),  # SIGIO to the auditor by proxy
    )
    for attempt in attempts:
        try:
            attempt()
            worked.append(True)
        except OSError:
            worked.append(False)
    return np.array(worked, dtype=float)
