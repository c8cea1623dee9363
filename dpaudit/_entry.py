"""The ``dpaudit`` console script: a Ctrl-C while dpaudit's modules load is one line and exit 130,
as it is later (:func:`dpaudit.cli.main`), not a traceback from inside an import."""

from __future__ import annotations

import sys

from dpaudit._interrupts import interrupts_deferred

EXIT_INTERRUPTED = 130


def run() -> int:
    """Load the command line interface and run it."""
    try:
        with interrupts_deferred():
            from dpaudit.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("dpaudit: ERROR: interrupted\n")
        return EXIT_INTERRUPTED
    return main()
