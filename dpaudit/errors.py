"""The one error hierarchy of dpaudit.

Every error dpaudit raises on purpose is a :class:`DpAuditError`. Errors about a
caller's input also derive from the matching built-in (``ValueError`` or
``TypeError``) so that generic handlers keep working.
"""

from __future__ import annotations

import difflib
import signal
from collections.abc import Iterable
from typing import Any

__all__ = [
    "AuditInterrupted",
    "CandidateError",
    "CandidateLimitReached",
    "CandidateLoadError",
    "CandidateRaised",
    "CheckerError",
    "DpAuditError",
    "InvalidArgument",
    "InvalidType",
    "NumericalError",
    "OutputError",
    "PluginError",
    "SpecError",
    "UnknownName",
]


class DpAuditError(Exception):
    """Base class of every error dpaudit raises deliberately."""


class InvalidArgument(DpAuditError, ValueError):
    """An argument has the right type but a value outside what is accepted."""


class UnknownName(InvalidArgument):
    """A name looked up in one of dpaudit's registries (a mechanism, a checker) is not there.

    The message echoes ``kind=name``, the closest known name when one is close, and every known name.

    Args:
        kind: what was looked up (``"mechanism"``, ``"checker"``).
        name: the name that was asked for.
        known: the names that exist.
    """

    def __init__(self, kind: str, name: str, known: Iterable[str]):
        self.kind = kind
        self.name = name
        names = sorted(known)
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        super().__init__(f"{kind}={name!r}: unknown {kind}{hint}; known {kind}s: {', '.join(names)}")


class InvalidType(DpAuditError, TypeError):
    """An argument has a type that is not accepted."""


class SpecError(DpAuditError, ValueError):
    """A spec file is malformed: the message names the file, the key and the expected form.

    Args:
        message: what is wrong and what was expected.
        path: the spec file, when known.
        key: the dotted key inside the file, when known.
    """

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None):
        self.path = path
        self.key = key
        where = []
        if path is not None:
            where.append(f"{path}")
        if key is not None:
            where.append(f"key '{key}'")
        prefix = ": ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class CheckerError(DpAuditError):
    """A checker could not run on the obligation it was given (bad parameters, bad output of the
    mechanism under audit); an unknown checker name is an :class:`UnknownName`."""


class NumericalError(DpAuditError):
    """A computation could not reach the precision its result must carry."""


class CandidateError(DpAuditError):
    """A candidate implementation could not be loaded, crashed, timed out or returned bad output."""


class CandidateLoadError(CandidateError):
    """A candidate cannot be audited at all: its module or callable cannot be imported, or its
    signature does not accept the documented call (a usage error: exit 2)."""


class CandidateRaised(CandidateError):
    """The candidate's own code raised on a call (not a timeout, a crash or bad output): the input may be
    one it refuses."""


class CandidateLimitReached(CandidateError):
    """A call of the candidate hit a limit: it did not answer within its time, it died (a crash, a signal, the
    memory ceiling), or it ran out of memory or stack (MemoryError, RecursionError). Not bad output."""


class ClaimFailed(DpAuditError, AssertionError):
    """An audited claim fails its policy (``AuditReport.raise_for_failure``): the message names each
    failing claim, relation and obligation with its numbers and how to replay it. An AssertionError
    too, so a test that calls it fails as an assertion does."""


class OutputError(DpAuditError, OSError):
    """A file dpaudit writes cannot be written (a full disk, a file size limit, no permission): the
    message names the path; what was there before is left as it was."""


class PluginError(DpAuditError):
    """A plugin's entry point fails to load or does not provide what its group expects."""


class AuditInterrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived: stop, keep what is finished, exit 128 + the signal number.

    A KeyboardInterrupt, not an Exception: no ``except Exception`` in a checker swallows it.
    """

    def __init__(self, signal_number: int, finished: list[Any] | None = None):
        super().__init__(f"interrupted by signal {signal_number}")
        self.signal_number = signal_number
        #: What finished before the signal, when the raiser keeps it (``dpaudit corpus``: its checks' rows).
        self.finished = finished or []

    @staticmethod
    def number_of(interrupt: KeyboardInterrupt) -> int:
        """The signal behind ``interrupt``: its own, or SIGINT's for a plain KeyboardInterrupt (Ctrl-C)."""
        return interrupt.signal_number if isinstance(interrupt, AuditInterrupted) else int(signal.SIGINT)
