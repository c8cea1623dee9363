"""The candidate worker: runs inside the candidate's own process, never inside the auditor.

Started by :class:`dpaudit.audit.candidates.process.CandidateProcess` as
``python -m dpaudit.audit.candidates.worker MODULE ATTRIBUTE PATH CAPTURE MEMORY_MIB [PICKLED]``;
with ``PICKLED``, the candidate is the callable the auditor pickled into that file (sent by
value: a function from a notebook or a test), unpickled here, in the candidate's own process.
It keeps the inherited stdin/stdout as its channel to the auditor, points the file
descriptors 0, 1 and 2 of the process at ``/dev/null`` and the capture file (so whatever
the candidate prints, from Python or C, cannot reach the channel), fences itself off from the
auditor (:mod:`dpaudit.audit.candidates.sandbox`), limits the address space, imports the candidate
and answers requests.

The channel carries no pickle. Requests are JSON lines. Answers are a JSON header line,
followed for a batch of outputs by their raw little-endian float64 bytes, and for a call of one
of the user's input functions (a dataset generator, a neighbour or a distance function) by
its result as UTF-8 JSON; during a batch the worker writes a ``.`` after a finished call
whenever 0.05 s have passed since the last one, so the auditor can tell a slow batch from a
hanging call.

Before each batch the worker seeds ``numpy.random``'s and ``random``'s global state from the
request's seed (a candidate that draws from them still replays) and reports in the header when
the candidate drew from them (it ignores the ``rng`` it is given: the randomness contract says so).

Categorical outputs (a string, or an array of strings), allowed for the kinds that release
any value, travel as codes: the first 48 bits of the BLAKE2b digest of the UTF-8 text, exact
in a float64 and the same in every process; the header names the categories behind the codes.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import ctypes
import errno
import importlib
import inspect
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, BinaryIO, NoReturn

import numpy as np

from dpaudit._validation import check_json_data
from dpaudit.audit.candidates.descendants import TOKEN_VARIABLE, watch_the_auditor
from dpaudit.audit.candidates.global_random import drew_from_global_state, seed_global_state
from dpaudit.audit.candidates.outputs import BadOutput, as_real, same_shapes
from dpaudit.audit.candidates.sandbox import confine, limit_resources
from dpaudit.audit.candidates.strategies import is_strategy, strategy_example

__all__ = ["main"]

_CAPTURE_LIMIT_BYTES = 64 * 1024 * 1024
_TICK_SECONDS = 0.05
_MESSAGE_LIMIT = 64 * 1024  # characters of an error message (the auditor reads headers of 1 MiB at most)

Arguments = tuple[list[Any], dict[str, Any]]


def _isolate_descriptors(capture: str) -> tuple[BinaryIO, BinaryIO]:
    """Keep the channel on new descriptors; fds 0, 1, 2 go to /dev/null and the capture file."""
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    captured = os.open(capture, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(captured, 1)
    os.dup2(captured, 2)
    os.close(captured)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115  (lives as long as the process)
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    return channel_in, channel_out


def _write_all(channel: BinaryIO, data: bytes | memoryview) -> None:
    """Write every byte (an unbuffered write to a pipe may be partial)."""
    view = memoryview(data).cast("B")
    while view:
        written = channel.write(view)
        view = view[written or 0 :]


def _send(channel: BinaryIO, header: dict[str, Any]) -> None:
    message = header.get("message")
    if isinstance(message, str) and len(message) > _MESSAGE_LIMIT:  # its start and its end, within the header
        half, left_out = _MESSAGE_LIMIT // 2, len(message) - _MESSAGE_LIMIT
        header = {**header, "message": f"{message[:half]}\n[... {left_out} characters left out ...]\n{message[-half:]}"}
    _write_all(channel, json.dumps(header).encode("utf-8") + b"\n")


def _load_pickled(pickled: str) -> Callable[..., Any]:
    """The callable the auditor sent by value (see :func:`dpaudit.audit.candidates.process.candidate_by_value`):
    the auditor's ``sys.path`` is put in place before the function itself is unpickled."""
    import pickle

    with open(pickled, "rb") as stream:
        payload = pickle.load(stream)
    for entry in reversed(payload["sys_path"]):
        if isinstance(entry, str) and entry not in sys.path:
            sys.path.insert(0, entry)
    function = pickle.loads(payload["function"])
    if not callable(function):
        raise TypeError(f"the pickled candidate is a {type(function).__name__}, not a callable")
    return function


class _Misspelt(Exception):
    """A module or attribute that is not there: one line, with a suggestion, no traceback."""


def _suggestion(name: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _candidate_folder_on_path(path: str) -> str:
    """Put the candidate's folder (the working directory when none is given) on ``sys.path`` after the
    standard library and before the installed packages: a candidate's ``json.py`` or ``random.py`` cannot
    replace the modules dpaudit's worker and numpy import, while its own modules still come first among
    the rest. The worker runs with ``python -P``, so the working directory is not on the path otherwise."""
    folder = os.path.abspath(path or os.getcwd())
    if folder not in sys.path:
        installed = [i for i, entry in enumerate(sys.path) if "-packages" in entry]
        sys.path.insert(installed[0] if installed else len(sys.path), folder)
    return folder


def _shadowed(module: str, loaded: Any, folder: str) -> bool:
    """Whether the candidate's folder holds ``module`` but the import found the standard library's of that name
    (a folder that merely shares an installed package's name is not refused: Python's choice stands)."""
    top = module.split(".", 1)[0]
    if top not in sys.stdlib_module_names:
        return False
    here = os.path.join(folder, top)
    origin = os.path.abspath(getattr(loaded, "__file__", None) or "")
    mine = os.path.exists(here + ".py") or os.path.isdir(here)
    return mine and not origin.startswith(os.path.join(folder, ""))


def _import(module: str, path: str) -> Any:
    """The candidate's (or one of the user's input functions') module, from the candidate's folder.

    Raises:
        _Misspelt: when it is not there, or the standard library's module of its name is found instead.
    """
    folder = _candidate_folder_on_path(path)
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module.startswith(exc.name):
            raise  # the module exists but imports something missing: its traceback says what
        raise _Misspelt(
            f"no module named {exc.name!r} (searched from {folder}; "
            "run dpaudit from the folder that holds it, or put that folder on PYTHONPATH)"
        ) from None
    if _shadowed(module, loaded, folder):
        raise _Misspelt(
            f"{module!r} in {folder} has the name of a module of the standard library, which Python imports "
            "instead: rename the file"
        )
    return loaded


def _load(module: str, attribute: str, path: str) -> Callable[..., Any]:
    loaded = _import(module, path)
    if not hasattr(loaded, attribute):
        public = [name for name in dir(loaded) if not name.startswith("_")]
        raise _Misspelt(f"module {module!r} has no attribute {attribute!r}{_suggestion(attribute, public)}")
    function = getattr(loaded, attribute)
    if not callable(function):
        raise _Misspelt(f"{module}:{attribute} is a {type(function).__name__}, not a callable")
    return function


def _vectorised(function: Callable[..., Any]) -> Callable[..., Any] | None:
    try:
        sample = getattr(function, "sample", None)
    except Exception:  # a __getattr__ or a property that raises: no vectorised entry point
        return None
    return sample if callable(sample) else None


def _arguments(call: dict[str, Any], data: Any, params: dict[str, Any], rng: Any, count: int | None) -> Arguments:
    """The positional and keyword arguments of one call under the spec's calling convention.

    ``count`` (the vectorised entry point's sample count) goes right after the input.
    """
    seeded = call.get("seed") is True and isinstance(rng, np.random.Generator)  # [candidate] randomness = "seed"
    values = {**params, "input": data, "rng": int(rng.integers(2**32)) if seeded else rng}  # np.random.seed's range
    positional: list[Any] = []
    for name in call["args"]:
        positional.append(values[name])
        if name == "input" and count is not None:
            positional.append(count)
    keywords = {call["rename"].get(name, name): values[name] for name in call["keywords"]}
    return positional, keywords


def _signature_problem(function: Callable[..., Any], call: dict[str, Any], params: list[str]) -> str | None:
    """Why ``function`` (or its vectorised ``sample`` entry point, which takes the count after the input)
    cannot be called under the calling convention, or None when both can."""
    entries: list[tuple[str, Callable[..., Any], int | None]] = [("the signature", function, None)]
    sample = _vectorised(function)
    if sample is not None:
        entries.append(("the vectorised entry point's signature", sample, 1))
    for what, entry, count in entries:
        try:
            signature = inspect.signature(entry)
        except (TypeError, ValueError):
            continue  # builtins and C functions: try the call
        positional, keywords = _arguments(call, "<input>", dict.fromkeys(params, "..."), "<rng>", count)
        try:
            signature.bind(*positional, **keywords)
        except TypeError as exc:
            shown = ", ".join([*(str(value) for value in positional), *(f"{name}=..." for name in keywords)])
            return (
                f"{what} {signature} does not accept the call ({shown}): {exc}; a spec's [candidate] "
                "table (args, keywords, rename) declares another calling convention (docs/candidates.md)"
            )
    return None


def _sample(function: Callable[..., Any], request: dict[str, Any], channel: BinaryIO) -> None:
    """Answer a sample request: ``count`` outputs from one generator seeded by ``entropy``, or, when the
    request lists ``entropies``, one call of the callable itself per entropy (never its vectorised ``sample``:
    these single releases are what a batch is compared with), each with a generator seeded by it."""
    labels: dict[str, str] | None = {} if request.get("categories") else None
    entropies = request.get("entropies")
    if entropies is None:
        stacked, drew_global = _draw(function, request, int(request["entropy"]), int(request["count"]), labels, channel)
    else:
        drawn, last_tick, one_by_one = [], time.monotonic(), {**request, "vectorised": False}
        for call, entropy in enumerate(entropies):
            output, drew = _draw(function, one_by_one, int(entropy), 1, labels, channel, first_call=call)
            drawn.append((output, drew))
            if time.monotonic() - last_tick >= _TICK_SECONDS:
                _write_all(channel, b".")
                last_tick = time.monotonic()
        same_shapes([output[0] for output, _ in drawn])
        stacked = np.concatenate([output for output, _ in drawn])
        drew_global = any(drew for _, drew in drawn)
    header: dict[str, Any] = {"status": "ok", "shape": list(stacked.shape)}
    if labels:
        header["labels"] = labels
    if drew_global:
        header["global_random"] = True
    _send(channel, header)
    _write_all(channel, stacked.data)


def _draw(
    function: Callable[..., Any],
    request: dict[str, Any],
    entropy: int,
    count: int,
    labels: dict[str, str] | None,
    channel: BinaryIO,
    first_call: int = 0,
) -> tuple[np.ndarray, bool]:
    """``count`` outputs stacked from a generator seeded by ``entropy`` (the global state seeded too), and
    whether the candidate drew from the global state; ``first_call`` numbers the calls in messages."""
    params = dict(request["params"])
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    global_state = seed_global_state(entropy)
    sample = _vectorised(function) if request.get("vectorised") else None
    if sample is not None:
        data = copy.deepcopy(request["input"])  # one call: its edits to its input reach no other request
        positional, keywords = _arguments(request["call"], data, copy.deepcopy(params), rng, count)
        stacked = as_real(sample(*positional, **keywords), first_call, labels, copy=False)  # sent before reuse
        if stacked.shape[:1] != (count,):
            raise BadOutput(f"its vectorised sample returned an array of shape {list(stacked.shape)} for n = {count}")
    else:
        given = _FreshArguments(request["call"], request["input"], params, rng)
        outputs = []
        last_tick = time.monotonic()
        for call in range(count):
            outputs.append(as_real(function(*given.arguments, **given.keywords), first_call + call, labels))
            given.renew_if_changed(reseed=request["call"].get("seed") is True)
            now = time.monotonic()
            if now - last_tick >= _TICK_SECONDS:
                _write_all(channel, b".")
                last_tick = now
        same_shapes(outputs)
        stacked = np.stack(outputs)
    return stacked, drew_from_global_state(global_state)


class _FreshArguments:
    """The arguments of per-call draws, each call given the input and params as the request sent them:
    a candidate that edits its input in place (``dataset.append``, ``values[0] = ...``) would otherwise
    hand its edits to its next call, and the audit would sample a walk instead of the law on one input.
    The copies are compared after each call and made again only when the call changed them."""

    def __init__(self, call: dict[str, Any], data: Any, params: dict[str, Any], rng: Any):
        self._request = (call, data, params, rng)
        self.renew()

    def renew(self) -> None:
        """Fresh copies of the input and params, and the arguments built on them."""
        call, data, params, rng = self._request
        self._data, self._params = copy.deepcopy(data), copy.deepcopy(params)
        self.arguments, self.keywords = _arguments(call, self._data, self._params, rng, None)

    def renew_if_changed(self, *, reseed: bool = False) -> None:
        """Renew the copies if the last call edited them (or put in them what does not compare, such as
        an array where a list was: a changed input too); with ``reseed`` (an integer seed passed for the
        rng), renew the arguments for the next seed in any case."""
        _, data, params, _ = self._request
        try:
            changed = bool(self._data != data) or bool(self._params != params)
        except Exception:  # whatever the candidate put in its input, it is not the input sent
            changed = True
        if changed:
            self.renew()
        elif reseed:
            call, _, _, rng = self._request
            self.arguments, self.keywords = _arguments(call, self._data, self._params, rng, None)


def _call_input_function(request: dict[str, Any], path: str, channel: BinaryIO) -> None:
    """Call one of the user's input functions (or draw from a Hypothesis strategy) and send its result
    as JSON after a header."""
    module, attribute = str(request["ref"]).split(":")
    named = getattr(_import(module, path), attribute, None)
    if is_strategy(named) and request.get("draw") is not None:
        produced = strategy_example(str(request["ref"]), named, request["draw"])
    else:
        function = _load(module, attribute, path)
        arguments = list(request.get("args", []))
        if request.get("entropy") is not None:
            arguments.append(np.random.default_rng(np.random.SeedSequence(int(request["entropy"]))))
        produced = function(*arguments)
    result = check_json_data(produced, f"{request['ref']} returned")
    body = json.dumps(result, allow_nan=False).encode("utf-8")
    _send(channel, {"status": "ok", "bytes": len(body)})
    _write_all(channel, body)


def main(argv: list[str]) -> int:
    """Serve one candidate until the auditor says stop or closes the channel."""
    module, attribute, path, capture, memory_mib, *pickled = argv
    fences = confine(os.path.dirname(capture))  # before any thread starts: each inherits the fences
    if TOKEN_VARIABLE in os.environ:  # started by an auditor: leave with it
        watch_the_auditor(os.environ[TOKEN_VARIABLE])
    channel_in, channel_out = _isolate_descriptors(capture)
    try:
        limit_resources(int(memory_mib), _CAPTURE_LIMIT_BYTES)
        function = _load_pickled(pickled[0]) if pickled else _load(module, attribute, path)
    except _Misspelt as exc:
        _send(channel_out, {"status": "error", "message": f"could not load {module}:{attribute}: {exc}"})
        return 1
    except BaseException as exc:
        hint = _memory_hint(exc, memory_mib)
        _send(
            channel_out,
            {"status": "error", "message": f"could not load {module}:{attribute}{hint}:\n{traceback.format_exc()}"},
        )
        return 1
    _send(channel_out, {"status": "ready", "vectorised": _vectorised(function) is not None, "fences": list(fences)})
    for line in channel_in:
        request = json.loads(line)
        if request.get("op") == "stop":
            return 0
        try:
            if request["op"] == "signature":
                problem = _signature_problem(function, request["call"], list(request["params"]))
                _send(channel_out, {"status": "error", "message": problem} if problem else {"status": "ok"})
            elif request["op"] == "input_function":
                _call_input_function(request, path, channel_out)
            else:
                _sample(function, request, channel_out)
        except OSError as exc:
            if exc.errno != errno.EFBIG:  # ENOMEM (the memory ceiling, e.g. an mmap) is a limit, not a refusal
                limit = exc.errno == errno.ENOMEM
                message = f"candidate raised:\n{traceback.format_exc()}"
                _send(channel_out, {"status": "error", "raised": not limit, "limit": limit, "message": message})
                continue
            message = (
                f"the candidate wrote more than {_CAPTURE_LIMIT_BYTES >> 20} MiB to its standard output and error "
                "(dpaudit keeps what it prints in a file of that size at most): print less, e.g. not once per call"
            )
            _send(channel_out, {"status": "error", "message": message})
        except BadOutput as exc:
            _send(channel_out, {"status": "error", "message": f"its output cannot be audited: {exc}"})
        except _Misspelt as exc:  # one of the user's input functions' modules or names
            _send(channel_out, {"status": "error", "message": f"could not load {request.get('ref')}: {exc}"})
        except BaseException as exc:  # its own error ("raised": the input may be one it refuses), or a limit
            hint = _memory_hint(exc, memory_mib)  # out of memory (a library failing to load under it too)
            limit = bool(hint) or isinstance(exc, RecursionError | SystemExit)  # or out of stack; it exits
            raised = isinstance(exc, Exception) and not limit
            message = f"candidate raised{hint}{_on_input(request)}:\n{traceback.format_exc()}"
            _send(channel_out, {"status": "error", "raised": raised, "limit": limit, "message": message})
    return 0


def _on_input(request: dict[str, Any]) -> str:
    """`` on input <the input, cut to 100 characters>`` for a sampling request, which the message names."""
    if request.get("op") != "sample":
        return ""
    shown = json.dumps(request.get("input"), separators=(",", ":"))
    return f" on input {shown if len(shown) <= 100 else shown[:99] + '…'}"


def _memory_hint(exc: BaseException, memory_mib: str) -> str:
    """The ``--memory`` hint when ``exc`` is the address-space limit's doing (a MemoryError, a library not mapped)."""
    text = str(exc).lower() if isinstance(exc, ImportError | OSError) else ""
    mapped = "failed to map segment" in text or "cannot allocate memory" in text
    return (
        f" (its memory limit: {memory_mib} MiB; raise it with --memory)"
        if mapped or isinstance(exc, MemoryError)
        else ""
    )


def _leave(code: int) -> NoReturn:
    """Exit once the candidate's exit handlers ran and all it printed is in the capture file, skipping the
    interpreter's teardown (slow with numpy loaded, paid by every check); the auditor kills what is left."""
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    with contextlib.suppress(BaseException):  # what C code printed through stdio (a file: fully buffered)
        ctypes.CDLL(None).fflush(None)
    os._exit(code)


if __name__ == "__main__":
    _leave(main(sys.argv[1:]))
