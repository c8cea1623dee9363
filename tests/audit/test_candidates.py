"""Candidates run isolated, with time and memory limits, and fail with a reason."""

import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dpaudit.audit.candidates.process import MAX_PROCESSES, CandidateProcess
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.errors import CandidateError, CandidateLimitReached, CandidateLoadError, CandidateRaised, InvalidArgument
from dpaudit.mechanisms.interface import CandidateCall
from tests.processes import alive_with

FIXTURES = str(Path(__file__).parent / "candidates_fixture")
VALUE = [0.0, 1.0]
PARAMS = {"sigma": 1.0}
CALL = CandidateCall().to_json(list(PARAMS))


def _ref(name):
    return parse_candidate(f"sample_candidates:{name}", path=FIXTURES)


def test_good_candidate_is_reproducible():
    with CandidateProcess(_ref("gaussian")) as candidate:
        first = candidate.sample(VALUE, PARAMS, CALL, 50, np.random.SeedSequence(4))
        second = candidate.sample(VALUE, PARAMS, CALL, 50, np.random.SeedSequence(4))
    assert first.shape == (50, 2)
    np.testing.assert_array_equal(first, second)


def test_a_per_call_candidate_that_reuses_its_output_array_gives_every_call_its_own_output():
    with CandidateProcess(_ref("reused_buffer_gaussian")) as candidate:
        outputs = candidate.sample(VALUE, PARAMS, CALL, 20, np.random.SeedSequence(4))
    assert len(np.unique(outputs, axis=0)) == 20


def test_each_call_gets_the_input_as_sent_even_when_a_call_edits_it_in_place():
    """A candidate that adds its noise into its input list: each call must still see the input the
    request sent (else the releases are a random walk and the audit samples the wrong law)."""
    with CandidateProcess(_ref("noise_added_in_place_per_call")) as candidate:
        outputs = candidate.sample(VALUE, PARAMS, CALL, 2000, np.random.SeedSequence(4))
        each = candidate.sample_each(VALUE, PARAMS, CALL, [1, 2, 3])
    np.testing.assert_allclose(outputs.mean(axis=0), VALUE, atol=0.15)  # a walk would wander by about 45
    np.testing.assert_allclose(outputs.std(axis=0), 1.0, atol=0.1)
    assert np.abs(each - VALUE).max() < 6.0


def test_an_input_converted_in_place_to_arrays_is_renewed_not_a_crash():
    """Lists of arrays do not compare to the input sent (numpy's 'truth value is ambiguous'): renewed."""
    with CandidateProcess(_ref("converts_its_input_in_place")) as candidate:
        outputs = candidate.sample(VALUE, PARAMS, CALL, 200, np.random.SeedSequence(4))
    np.testing.assert_allclose(outputs.mean(axis=0), VALUE, atol=0.3)


def test_releases_one_per_seed_are_calls_of_the_callable_on_the_input_as_sent():
    """Releases one per seed travel as one request (the randomness contract): the same seed three times
    gives the same release three times, though each call added its noise into its input."""
    with CandidateProcess(_ref("noise_added_in_place")) as candidate:
        each = candidate.sample_each(VALUE, PARAMS, CALL, [5, 5, 5])
    np.testing.assert_array_equal(each[0], each[1])
    np.testing.assert_array_equal(each[0], each[2])
    assert np.abs(each - VALUE).max() < 6.0  # not the vectorised entry point's input moved by 100


def test_releases_one_per_seed_come_from_the_callable_not_its_vectorised_entry_point():
    """The single releases a batch is compared with are the callable's own: a callable whose ``sample`` is
    right and whose own calls are wrong must show it (a batch never stands in for the calls)."""
    with CandidateProcess(_ref("call_and_sample_disagree")) as candidate:
        assert candidate.vectorised
        batch = candidate.sample(VALUE, PARAMS, CALL, 3, np.random.SeedSequence(1))
        each = candidate.sample_each(VALUE, PARAMS, CALL, [1, 2, 3])
    np.testing.assert_array_equal(batch, np.zeros((3, 2)))
    np.testing.assert_array_equal(each, np.ones((3, 2)))


@pytest.mark.parametrize("text", ["nocolon", "a:b:c", "1mod:f", "mod:", ":f", "mod:f-g"])
def test_parse_rejects(text):
    with pytest.raises(InvalidArgument):
        parse_candidate(text)


def test_hanging_candidate_is_stopped_at_the_limit():
    limits = CandidateLimits(timeout_seconds=1.0)
    with (
        CandidateProcess(_ref("sleeps_forever"), limits) as candidate,
        pytest.raises(CandidateError, match="did not answer within 1 s") as info,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
    assert not isinstance(info.value, CandidateRaised)  # a limit, not an input the candidate refuses
    assert isinstance(info.value, CandidateLimitReached)


def test_a_worker_that_stopped_answering_is_killed_without_being_asked_to_leave(monkeypatch):
    """It cannot read a stop request while it hangs in the candidate's code: no half-second wait for it (per
    obligation of a check, every one of which waits for a candidate that hangs on every call)."""
    import subprocess

    waits = []
    wait = subprocess.Popen.wait
    monkeypatch.setattr(
        subprocess.Popen, "wait", lambda self, timeout=None: waits.append(timeout) or wait(self, timeout)
    )
    with CandidateProcess(_ref("sleeps_forever"), CandidateLimits(timeout_seconds=0.2)) as candidate:
        with pytest.raises(CandidateLimitReached, match=r"did not answer within 0\.2 s"):
            candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
        assert not candidate.running and 0.5 not in waits, waits
    waits.clear()
    with CandidateProcess(_ref("gaussian")) as candidate:
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
    assert waits[:1] == [0.5]  # a worker that answers is asked to leave and given the time to


def test_raising_candidate_reports_its_traceback():
    with (
        CandidateProcess(_ref("raises")) as candidate,
        pytest.raises(CandidateError, match="planted failure in the candidate") as info,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
    assert "Traceback" in str(info.value)
    assert isinstance(info.value, CandidateRaised)  # its own error: the input search may leave that input out
    assert not isinstance(info.value, CandidateLimitReached)


def test_an_error_whose_message_is_megabytes_long_keeps_its_start_and_end():
    with (
        CandidateProcess(_ref("raises_a_huge_message")) as candidate,
        pytest.raises(CandidateRaised, match=r"(?s)ValueError: the start m+\n\[\.\.\. \d+ characters left out") as info,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
    assert str(info.value).rstrip().endswith("m the end") and len(str(info.value)) < 100_000


def test_a_candidate_whose_attribute_lookups_raise_is_called_not_a_crash():
    with CandidateProcess(_ref("raising_getattr")) as candidate:
        assert not candidate.vectorised
        outputs = candidate.sample(VALUE, PARAMS, CALL, 5, np.random.SeedSequence(0))
    assert outputs.shape == (5, 2)


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("returns_nan", "non-finite"),
        ("wrong_shapes", "different shapes"),
        ("one_row_too_many", r"its vectorised sample returned an array of shape \[21, 2\] for n = 20"),
        ("scaled_past_float64", r"a value of magnitude \d\.\d+e\+16\d: dpaudit audits outputs up to 1e\+100"),
    ],
)
def test_bad_outputs(name, fragment):
    with CandidateProcess(_ref(name)) as candidate, pytest.raises(CandidateError, match=fragment) as info:
        candidate.sample(VALUE, PARAMS, CALL, 20, np.random.SeedSequence(1))
    assert not isinstance(info.value, CandidateRaised)
    assert not isinstance(info.value, CandidateLimitReached)  # an output that cannot be audited is not a limit


def test_memory_limit():
    with (
        CandidateProcess(_ref("eats_memory"), CandidateLimits(memory_mib=512)) as candidate,
        pytest.raises(CandidateError, match=r"MemoryError|died") as info,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(1))
    assert not isinstance(info.value, CandidateRaised)  # the memory limit, not a refusal
    assert isinstance(info.value, CandidateLimitReached)


def test_a_module_too_large_for_the_memory_limit_names_the_limit_and_the_option():
    ref = parse_candidate("allocates_at_import:gaussian", path=FIXTURES)
    with pytest.raises(CandidateLoadError, match=r"its memory limit: 512 MiB; raise it with --memory\):\n"):
        CandidateProcess(ref, CandidateLimits(memory_mib=512)).start()


@pytest.mark.parametrize(
    ("name", "fragment"), [("absent", "has no attribute 'absent'"), ("NOT_CALLABLE", "not a callable")]
)
def test_load_failures(name, fragment):
    with pytest.raises(CandidateError, match=fragment), CandidateProcess(_ref(name)):
        pass


def test_missing_module():
    with (
        pytest.raises(CandidateError, match=r"no module named 'no_such_module_here'.*PYTHONPATH"),
        CandidateProcess(parse_candidate("no_such_module_here:f", path=FIXTURES)),
    ):
        pass


def test_forged_pickle_runs_nothing_in_the_auditor(tmp_path):
    forged = Path("/tmp/dpaudit-forged-by-candidate")
    forged.unlink(missing_ok=True)
    with (
        CandidateProcess(_ref("forged_pickle")) as candidate,
        pytest.raises(CandidateError, match="expected real numbers"),
    ):
        candidate.sample(VALUE, PARAMS, CALL, 3, np.random.SeedSequence(0))
    assert not forged.exists()


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("returns_complex", "complex128 values"),
        ("returns_empty", "empty output"),
        ("returns_strings", "expected real numbers"),
        ("returns_nan", "non-finite value nan at call 0"),
        ("returns_ragged", "call 0 returned a list that is no array"),
        ("returns_random_length", "outputs of different shapes"),
    ],
)
def test_outputs_are_validated(name, fragment):
    with CandidateProcess(_ref(name)) as candidate, pytest.raises(CandidateError, match=fragment) as raised:
        candidate.sample(VALUE, PARAMS, CALL, 4, np.random.SeedSequence(2))
    # the worker's own check refused the output: one line, not a traceback of dpaudit's frames
    assert "Traceback" not in str(raised.value) and "candidate raised" not in str(raised.value)


def test_printed_output_is_captured_not_shown():
    with CandidateProcess(_ref("chatty")) as candidate:
        outputs = candidate.sample(VALUE, PARAMS, CALL, 3, np.random.SeedSequence(0))
    assert outputs.shape == (3, 2)
    assert "hello from the candidate" in candidate.captured_output
    assert "and to stderr" in candidate.captured_output


def test_what_a_candidate_prints_on_its_way_out_is_kept(monkeypatch):
    """The worker leaves without the interpreter's teardown: the candidate's exit handlers still run, and what
    Python and C buffered is still flushed into the capture."""
    monkeypatch.delenv("PYTHONUNBUFFERED", raising=False)  # else C stdio is unbuffered and nothing waits in it
    with CandidateProcess(_ref("prints_at_exit")) as candidate:
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
    assert "goodbye from an exit handler" in candidate.captured_output
    assert "a line without its end" in candidate.captured_output
    assert "printed by C stdio" in candidate.captured_output


def test_the_input_goes_by_position_whatever_its_name():
    with CandidateProcess(_ref("positional_only_name")) as candidate:
        candidate.check_signature(["sigma"], CALL)
        assert candidate.sample(VALUE, PARAMS, CALL, 5, np.random.SeedSequence(0)).shape == (5, 2)


def test_a_signature_that_does_not_fit_is_a_load_error():
    with CandidateProcess(_ref("wrong_signature")) as candidate, pytest.raises(CandidateLoadError, match="signature"):
        candidate.check_signature(["sigma"], CALL)


def test_vectorised_entry_point_is_used_and_reproducible():
    with CandidateProcess(_ref("vectorised_gaussian")) as candidate:
        assert candidate.vectorised
        first = candidate.sample(VALUE, PARAMS, CALL, 1000, np.random.SeedSequence(4))
        second = candidate.sample(VALUE, PARAMS, CALL, 1000, np.random.SeedSequence(4))
    assert first.shape == (1000, 2)
    np.testing.assert_array_equal(first, second)


def test_a_stream_of_batches_gives_the_batches_one_by_one_and_stays_in_step_when_left_early():
    seeds = [np.random.SeedSequence(k) for k in range(4)]
    with CandidateProcess(_ref("vectorised_gaussian")) as candidate:
        one_by_one = [candidate.sample(VALUE, PARAMS, CALL, 300 + k, seed) for k, seed in enumerate(seeds)]
        streamed = list(candidate.sample_stream(VALUE, PARAMS, CALL, [(300 + k, s) for k, s in enumerate(seeds)]))
        stream = candidate.sample_stream(VALUE, PARAMS, CALL, [(300 + k, s) for k, s in enumerate(seeds)])
        next(stream)
        stream.close()  # the batch requested ahead is read and dropped
        after = candidate.sample(VALUE, PARAMS, CALL, 300, seeds[0])
    for expected, got in zip(one_by_one, streamed, strict=True):
        np.testing.assert_array_equal(expected, got)
    np.testing.assert_array_equal(after, one_by_one[0])


def test_a_stream_keeps_two_small_requests_ahead_and_one_large_one():
    """The worker always has a request waiting while the requests are small (it never idles between answers);
    a large request waits for the answer before it (the worker's input pipe might not hold it)."""
    seeds = [np.random.SeedSequence(k) for k in range(4)]
    for value, ahead in ((VALUE, 2), (list(np.arange(20_000, dtype=float)), 1)):
        with CandidateProcess(_ref("vectorised_gaussian")) as candidate:
            sent = []
            send = candidate._request
            candidate._request = lambda request, send=send, sent=sent: sent.append(request["op"]) or send(request)
            stream = candidate.sample_stream(value, PARAMS, CALL, [(10, seed) for seed in seeds])
            next(stream)
            assert len(sent) == ahead + 1  # the first answer read: as many ahead as before it
            assert len(list(stream)) == 3 and len(sent) == 4


def test_a_stream_of_large_inputs_and_answers_does_not_block():
    """A request larger than the worker's input pipe and answers larger than its output pipe: the next
    request goes only once an answer is read whole (sent before it, both sides blocked writing)."""
    import threading

    value = list(np.arange(20_000, dtype=float))
    batches = [(100, np.random.SeedSequence(k)) for k in range(3)]
    shapes = []
    with CandidateProcess(_ref("gaussian"), CandidateLimits(timeout_seconds=30.0)) as candidate:
        worker = threading.Thread(
            target=lambda: shapes.extend(out.shape for out in candidate.sample_stream(value, PARAMS, CALL, batches)),
            daemon=True,
        )
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "the stream blocked"
    assert shapes == [(100, 20_000)] * 3


def test_a_stream_reports_the_batch_that_failed():
    planted = "planted failure in the candidate"
    with CandidateProcess(_ref("raises")) as candidate, pytest.raises(CandidateError, match=planted):
        list(candidate.sample_stream(VALUE, PARAMS, CALL, [(10, np.random.SeedSequence(k)) for k in range(3)]))


def test_timeout_is_per_call_not_per_batch():
    with CandidateProcess(_ref("slow_but_correct"), CandidateLimits(timeout_seconds=0.5)) as candidate:
        assert candidate.sample(VALUE, PARAMS, CALL, 400, np.random.SeedSequence(0)).shape == (400, 2)


def test_total_budget_stops_a_long_batch():
    limits = CandidateLimits(timeout_seconds=5.0, total_seconds=0.3)
    with (
        CandidateProcess(_ref("slow_but_correct"), limits) as candidate,
        pytest.raises(CandidateError, match="total budget"),
    ):
        candidate.sample(VALUE, PARAMS, CALL, 100_000, np.random.SeedSequence(0))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("name", ["escapes_and_writes", "escapes_with_clean_environment"])
def test_detached_descendants_are_killed(name, tmp_path, monkeypatch):
    marker = tmp_path / "escaped"
    monkeypatch.setenv("DPAUDIT_TEST_MARKER", str(marker))
    with CandidateProcess(_ref(name)) as candidate:
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
        time.sleep(0.3)
        assert alive_with(marker), "the planted grandchild should be running before stop()"
    assert alive_with(marker) == []
    time.sleep(3.5)
    assert not marker.exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_candidate_running_too_many_processes_is_stopped_and_they_are_killed(tmp_path, monkeypatch):
    marker = tmp_path / "many"
    monkeypatch.setenv("DPAUDIT_TEST_MARKER", str(marker))
    with (
        CandidateProcess(_ref("starts_too_many_processes"), CandidateLimits(timeout_seconds=60.0)) as candidate,
        pytest.raises(CandidateLimitReached, match=rf"ran \d+ processes, more than the limit of {MAX_PROCESSES}"),
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))
    assert alive_with(marker) == []


@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="the fences are built for these")
def test_a_candidate_can_neither_trace_nor_write_into_nor_signal_its_auditor_nor_leave_its_group(tmp_path, monkeypatch):
    """The worker's fences (dpaudit.audit.candidates.sandbox): tracing the auditor, opening its memory or its
    standard output, leaving the process group and signalling the auditor or everyone all fail; writing outside
    the worker's folder fails where the kernel has Landlock, which the report then names."""
    monkeypatch.setenv("DPAUDIT_TEST_MARKER", str(tmp_path / "written"))
    with CandidateProcess(_ref("tries_to_reach_its_auditor")) as candidate:
        worked = candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(0))[0]
        fences = candidate.fences
    traced, memory, stdout, written, left, signalled, everyone, by_proxy = (bool(value) for value in worked)
    assert any(fence.startswith("seccomp: no tracing") for fence in fences), fences
    assert not (traced or memory or stdout or left or signalled or everyone or by_proxy), worked
    if any(fence.startswith("Landlock ABI") for fence in fences):
        assert not written and not (tmp_path / "written").exists()


_AUDITOR_KILLED_MID_CALL = """
import sys
import numpy as np
from dpaudit.audit.candidates.process import CandidateProcess
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.mechanisms.interface import CandidateCall

candidate = CandidateProcess(parse_candidate(sys.argv[1], path=sys.argv[2]), CandidateLimits(timeout_seconds=600.0))
candidate.start()
print("started", flush=True)
candidate.sample([0.0, 1.0], {"sigma": 1.0}, CandidateCall().to_json(["sigma"]), 1, np.random.SeedSequence(0))
"""


def _command_lines(pids):
    """What each of ``pids`` runs, for a failure's message."""
    lines = {}
    for pid in pids:
        try:
            lines[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:100]
        except OSError as exc:
            lines[pid] = exc
    return lines


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)")
def test_a_worker_in_a_call_that_never_returns_leaves_with_its_auditor_when_the_auditor_is_killed(
    tmp_path, monkeypatch
):
    """SIGKILL leaves the auditor no time to stop its candidate: the worker, hanging in a call with a process
    it detached, notices its parent has gone and kills both."""
    marker = tmp_path / "orphaned"
    monkeypatch.setenv("DPAUDIT_TEST_MARKER", str(marker))
    auditor = subprocess.Popen(
        [sys.executable, "-c", _AUDITOR_KILLED_MID_CALL, "sample_candidates:escapes_then_hangs", FIXTURES],
        stdout=subprocess.PIPE,
    )
    assert auditor.stdout is not None and auditor.stdout.readline() == b"started\n"
    deadline = time.monotonic() + 30
    while len(alive_with(marker)) < 3 and time.monotonic() < deadline:  # the auditor, the worker, its sleep
        time.sleep(0.1)
    assert len(alive_with(marker)) == 3, _command_lines(alive_with(marker))
    auditor.kill()
    auditor.wait()
    deadline = time.monotonic() + 30
    while alive_with(marker) and time.monotonic() < deadline:  # (zombies do not count)
        time.sleep(0.1)
    auditor.stdout.close()
    assert alive_with(marker) == []


def test_a_candidate_folder_holding_a_standard_library_name_neither_breaks_the_worker_nor_loads_silently(tmp_path):
    """A ``json.py`` beside the candidate cannot replace the json module the worker speaks with; a candidate
    module named like the standard library's is refused with a one-line reason."""
    (tmp_path / "json.py").write_text("def laplace(value, sigma, *, rng):\n    return value\n", encoding="utf-8")
    (tmp_path / "mine.py").write_text(
        "import numpy as np\n\n\ndef gaussian(value, sigma, *, rng):\n"
        "    return np.asarray(value) + rng.normal(0, sigma)\n",
        encoding="utf-8",
    )
    with CandidateProcess(parse_candidate("mine:gaussian", path=str(tmp_path))) as candidate:
        assert candidate.sample(VALUE, PARAMS, CALL, 3, np.random.SeedSequence(1)).shape[0] == 3
    with (
        pytest.raises(CandidateError, match="has the name of a module of the standard library"),
        CandidateProcess(parse_candidate("json:laplace", path=str(tmp_path))),
    ):
        pass


def test_a_candidate_that_exits_is_reported_with_its_exit_code_not_as_a_signal():
    with (
        CandidateProcess(_ref("exits_quietly")) as candidate,
        pytest.raises(CandidateError, match=r"exited with code 0\)") as raised,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 5, np.random.SeedSequence(1))
    assert "signal" not in str(raised.value) and "memory" not in str(raised.value)
    assert isinstance(raised.value, CandidateLimitReached)  # it died: a limit, not a refusal


@pytest.mark.parametrize(
    ("name", "named"),
    [("recurses_forever", "RecursionError"), ("calls_sys_exit", "SystemExit"), ("maps_too_much", "OSError")],
)
def test_out_of_stack_exiting_or_out_of_memory_is_a_limit_whose_first_line_names_it(name, named):
    with (
        CandidateProcess(_ref(name), CandidateLimits(memory_mib=512)) as candidate,
        pytest.raises(CandidateLimitReached) as raised,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(1))
    assert named in str(raised.value).splitlines()[0]


def test_a_candidate_printing_past_the_capture_limit_is_told_so_in_one_line():
    with (
        CandidateProcess(_ref("prints_too_much")) as candidate,
        pytest.raises(CandidateError, match=r"wrote more than 64 MiB to its standard output"),
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(1))


def test_a_library_that_cannot_be_mapped_under_the_memory_limit_is_a_limit_naming_the_option():
    with (
        CandidateProcess(_ref("cannot_map_a_library"), CandidateLimits(memory_mib=512)) as candidate,
        pytest.raises(CandidateLimitReached) as raised,
    ):
        candidate.sample(VALUE, PARAMS, CALL, 1, np.random.SeedSequence(1))
    assert "its memory limit: 512 MiB; raise it with --memory" in str(raised.value)
