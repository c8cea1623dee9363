"""What names a candidate and what limits it: ``module:callable`` (or a function sent by value), and
its time and memory limits."""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit._validation import check_integer, check_module_callable, check_real
from dpaudit.errors import CandidateLoadError, InvalidArgument

__all__ = [
    "MAX_MEMORY_MIB",
    "MIN_MEMORY_MIB",
    "CandidateLimits",
    "CandidateRef",
    "candidate_by_value",
    "parse_candidate",
]


@dataclass(frozen=True)
class CandidateRef:
    """Where a candidate lives: ``module:attribute`` plus an optional folder put on ``sys.path``;
    or, for a callable sent by value (defined in a notebook, a script or a test), the file that
    holds it pickled by the auditor (:func:`candidate_by_value`), which only the worker reads.
    """

    module: str
    attribute: str
    path: str | None = None
    pickled: str | None = None

    def __str__(self) -> str:
        if self.pickled is not None:
            return f"{self.module}.{self.attribute} (sent by value)"
        return f"{self.module}:{self.attribute}"


def _defining_module(function: Any) -> str:
    """The name of the module whose code ``function`` runs: a partial's function's, a bound method's
    function's, a callable object's class's (``functools.partial`` itself lives in ``functools``)."""
    while isinstance(function, functools.partial):
        function = function.func
    function = getattr(function, "__func__", function)
    return getattr(function, "__module__", None) or "__main__"


def _installed(name: str, module: Any) -> bool:
    """Whether ``module`` is the standard library's or an installed package's (imported by name in the
    worker, not sent by value)."""
    if name.partition(".")[0] in sys.stdlib_module_names:
        return True
    return any(part in ("site-packages", "dist-packages") for part in Path(getattr(module, "__file__", "") or "").parts)


def candidate_by_value(function: Any, folder: str) -> CandidateRef:
    """A callable as a candidate sent to its worker by value: pickled with cloudpickle (its code,
    and the module it is defined in when that module is not an installed package) into a file in
    ``folder``, with the auditor's ``sys.path`` so that what it imports resolves alike. The auditor
    writes this file and never reads what comes back but JSON and raw numbers.

    Raises:
        InvalidArgument: when ``function`` is not callable.
        CandidateLoadError: when it cannot be pickled.
    """
    import pickle

    import cloudpickle

    if not callable(function):
        raise InvalidArgument(f"candidate={function!r}: expected a callable or 'module:callable'")
    module_name = _defining_module(function)
    module = sys.modules.get(module_name)
    by_value = module is not None and module_name != "__main__" and not _installed(module_name, module)
    if by_value:
        cloudpickle.register_pickle_by_value(module)
    try:
        payload = pickle.dumps({"sys_path": list(sys.path), "function": cloudpickle.dumps(function)})
    except Exception as exc:  # cloudpickle raises many kinds: say what could not be sent
        raise CandidateLoadError(f"candidate {function!r} cannot be sent to its worker by value: {exc}") from exc
    finally:
        if by_value:
            cloudpickle.unregister_pickle_by_value(module)
    handle, path = tempfile.mkstemp(prefix="dpaudit-candidate-", suffix=".pickle", dir=folder)
    with os.fdopen(handle, "wb") as stream:
        stream.write(payload)
    name = getattr(function, "__qualname__", None) or f"{type(function).__qualname__}(...)"  # an instance
    return CandidateRef(module_name, name, None, path)


def parse_candidate(text: str, *, path: str | None = None) -> CandidateRef:
    """Parse ``module:callable``.

    Raises:
        InvalidArgument: when the text is not of that form.
    """
    module, attribute = check_module_callable("candidate", text)
    return CandidateRef(module, attribute, path if path is not None else os.getcwd())


#: The bounds of a worker's address-space limit, in MiB (``--memory``).
MIN_MEMORY_MIB, MAX_MEMORY_MIB = 64, 1 << 22


@dataclass(frozen=True)
class CandidateLimits:
    """Limits for a candidate.

    Attributes:
        timeout_seconds: the longest one call may take (a vectorised call of n outputs: n times it).
        memory_mib: the worker's address-space limit.
        startup_seconds: the longest the import of the candidate may take.
        total_seconds: the budget for all calls of one worker together.
    """

    timeout_seconds: float = 120.0
    memory_mib: int = 4096
    startup_seconds: float = 60.0
    total_seconds: float = 3600.0

    def __post_init__(self) -> None:
        check_real("timeout_seconds", self.timeout_seconds, low=0.0, high=86400.0, low_open=True)
        check_integer("memory_mib", self.memory_mib, low=MIN_MEMORY_MIB, high=MAX_MEMORY_MIB)
        check_real("startup_seconds", self.startup_seconds, low=0.0, high=86400.0, low_open=True)
        check_real("total_seconds", self.total_seconds, low=0.0, high=30 * 86400.0, low_open=True)
