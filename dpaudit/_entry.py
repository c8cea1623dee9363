"""The ``dpaudit`` console script: a Ctrl-C while dpaudit's modules load is one line and exit 130,
as it is later (:func:`dpaudit.cli.main`), not a traceback from inside an import.

A Ctrl-C is held back from the first line of :func:`run`; before it, only the interpreter's own
start-up and ``import dpaudit`` (which imports nothing) run. This module imports nothing but
``signal`` and ``sys``, which the interpreter has loaded already.
"""

from __future__ import annotations

import signal
import sys

EXIT_INTERRUPTED = 130

#: The signals that stop an audit (as in :mod:`dpaudit._interrupts`).
_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


def run() -> int:
    """Load the command line interface and run it."""
    # From here a Ctrl-C waits in the kernel until the handler that holds it back is in place.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        try:
            from dpaudit._interrupts import interrupts_deferred

            with interrupts_deferred():
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one waiting is now held, then raised
                from dpaudit.cli import main
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    except KeyboardInterrupt:
        sys.stderr.write("dpaudit: ERROR: interrupted\n")
        return EXIT_INTERRUPTED
    return main()
