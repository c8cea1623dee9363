"""The ``dpaudit`` console script: a Ctrl-C while dpaudit's modules load is one line and exit 130,
as it is later (:func:`dpaudit.cli.main`), not a traceback from inside an import.

Before :func:`run`, only the interpreter's start-up and ``import dpaudit`` (which imports nothing)
run; this module imports nothing the interpreter has not loaded, so that a Ctrl-C soon after the
start reaches :func:`run`, which makes it one line (CI saw one land in ``dpaudit/__init__``'s
imports, a traceback and exit -2, when they were eager).
"""

from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130


def run() -> int:
    """Load the command line interface and run it."""
    try:
        from dpaudit._interrupts import interrupts_deferred

        with interrupts_deferred():
            from dpaudit.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("dpaudit: ERROR: interrupted\n")
        return EXIT_INTERRUPTED
    return main()
