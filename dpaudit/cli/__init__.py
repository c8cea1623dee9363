"""The ``dpaudit`` command line: one module per command (``*_command.py``: its ``COMMAND``, with its
arguments and its run), the parser built from them, and the exit codes every command shares.

Exit codes: 0 no failure under the chosen policy; 1 a claim violated (or errored), or a
known finding no longer reproduced; 2 bad input or usage (spec, candidate that cannot be
loaded, unwritable --out, a file that cannot be written); 3 internal error (a dpaudit bug:
please report it); 4 nothing violated but a result is inconclusive under --fail-on
inconclusive; 130 / 143 interrupted by SIGINT / SIGTERM (the finished claims are written, the
report says ``interrupted``).
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from dpaudit._interrupts import interrupts_deferred
from dpaudit._version import __version__
from dpaudit.cli import (
    audit_command,
    calibrate_command,
    check_command,
    corpus_command,
    explain_command,
    init_command,
    list_command,
    mutants_command,
    recheck_command,
    report_command,
    reproduce_command,
)
from dpaudit.cli.common import EXIT_CODES_HELP, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, log
from dpaudit.errors import AuditInterrupted, DpAuditError

__all__ = ["EXIT_CODES_HELP", "main"]

#: The commands, in the order ``dpaudit --help`` lists them.
COMMANDS = (
    audit_command.COMMAND,
    check_command.COMMAND,
    calibrate_command.COMMAND,
    reproduce_command.COMMAND,
    mutants_command.COMMAND,
    corpus_command.COMMAND,
    explain_command.COMMAND,
    init_command.COMMAND,
    list_command.COMMAND,
    recheck_command.COMMAND,
    report_command.COMMAND,
)

#: Commands that run audits: they start under the memory ceiling and the lowered budget ceilings.
_AUDITING = ("audit", "check")

#: Errors of the file system that are the user's to fix (a full disk, a size limit, no permission).
_FILE_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EACCES, errno.EPERM, errno.EROFS, errno.EDQUOT, errno.EISDIR}


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit differentially private RL mechanisms against their papers' privacy claims.",
        epilog=EXIT_CODES_HELP,
    )
    parser.add_argument("-V", "--version", action="version", version=f"dpaudit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.register(commands)
    return parser


def _under_ceilings(arguments: argparse.Namespace, run: Callable[[], int]) -> int:
    """Run an auditing command under ``--ceiling`` and the memory ceiling (set before any worker
    starts, so every worker inherits it)."""
    # hashlib's native part loads before the limit: under it, a failed load is logged with a traceback;
    # and the runner's modules too: compiling them from source under a ceiling too low to start can
    # fail inside CPython's compiler with an error that is not a MemoryError. The report's modules and
    # the pool's load here too, with interrupts held back: a Ctrl-C inside a C extension's import can be
    # lost (ElementTree's ``from _elementtree import *`` under ``except ImportError``: the audit ran on)
    with interrupts_deferred():
        import hashlib  # noqa: F401
        import multiprocessing.forkserver
        import multiprocessing.popen_forkserver
        import multiprocessing.synchronize  # noqa: F401

        import dpaudit.audit.candidates.audit
        import dpaudit.audit.runner
        import dpaudit.report.background_figures
        import dpaudit.report.folder  # noqa: F401
        from dpaudit.audit.memory_budget import limit_memory
        from dpaudit.checks.budget_limits import ceiling, lowered_ceilings, parse_ceiling

    with lowered_ceilings(dict(parse_ceiling(text) for text in arguments.ceiling)):
        limit_memory(ceiling("memory_mib"))
        return run()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (see the module docstring)."""
    logging.basicConfig(format="dpaudit: %(levelname)s: %(message)s", level=logging.INFO)
    args = list(sys.argv[1:] if argv is None else argv)
    previous = _stop_on_sigterm()
    try:
        arguments = _build_parser().parse_args(args)  # a Ctrl-C while it loads translations is caught below
        if arguments.command in _AUDITING:
            return _under_ceilings(arguments, lambda: int(arguments.run(arguments, args)))
        return int(arguments.run(arguments, args))
    except DpAuditError as exc:
        log.error("%s", exc)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        number = AuditInterrupted.number_of(exc)
        if not isinstance(exc, AuditInterrupted):
            log.error("interrupted")
        return 128 + number
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except MemoryError:  # outside an obligation (those are inconclusive): the ceiling is too low to run at all
        return _out_of_memory()
    except OSError as exc:
        if exc.errno == errno.ENOMEM:  # the system's word for the same (e.g. reading a folder to import from it)
            return _out_of_memory()
        if exc.errno in _FILE_ERRORS:
            where = f"{exc.filename}: " if exc.filename else ""
            log.error("%scannot write (%s)", where, exc.strerror or exc)
            return EXIT_USAGE
        return _internal_error()
    except Exception:
        return _internal_error()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _internal_error() -> int:
    log.exception("internal error; please report it with the command line above")
    return EXIT_INTERNAL


def _out_of_memory() -> int:
    from dpaudit.audit.memory_budget import lift_memory_limit

    lift_memory_limit()
    log.error("out of memory outside any obligation: the memory ceiling is too low for this command")
    return EXIT_USAGE


def _stop_on_sigterm() -> Any:
    """Turn SIGTERM into :class:`AuditInterrupted`, so it stops an audit the way Ctrl-C does."""

    def stop(number: int, frame: Any) -> None:
        raise AuditInterrupted(number)

    return signal.signal(signal.SIGTERM, stop)


def _quiet_stdout() -> None:
    """After a broken pipe (``dpaudit list | head``), point stdout at /dev/null so exiting prints nothing."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
