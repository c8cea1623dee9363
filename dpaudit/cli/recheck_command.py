"""The ``dpaudit recheck`` command (its text in ``dpaudit recheck --help`` is :data:`DESCRIPTION`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from dpaudit.cli.common import EXIT_FAILED, EXIT_OK, Command, log
from dpaudit.errors import InvalidArgument

#: What ``dpaudit recheck --help`` says above its options.
DESCRIPTION = """\
Re-derive every certified fact of the report by an independent route (numerical integration of the densities
in mpmath instead of the checker's closed form), or by running an exhaustive check again from its spec with
the recorded seed (its enclosure of each margin must meet the recorded one); check that each fact belongs to
its claim and supports its verdict; replay the counterexample of every violated Monte Carlo obligation from
its counts (also on a `dpaudit check` report); and check the digest and the verdict chain. Exit 1 on any
mismatch."""


def add_arguments(recheck: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit recheck`` to its parser."""
    recheck.add_argument("file", metavar="FILE.json|FOLDER", help="a report's audit.json, or the folder that holds it")
    recheck.add_argument(
        "--require-all",
        action="store_true",
        help="also fail when a verified obligation has no certificate or no independent route, when a claim "
        "cannot be compared with its spec (not found here, or no longer stating the report's claim), or when "
        "the run was interrupted",
    )
    recheck.add_argument(
        "--no-rerun",
        action="store_true",
        help="do not run again the obligations certified by re-running (exhaustive enumerations, accountants); "
        "list them instead (with --require-all, they fail)",
    )
    recheck.add_argument("--claim", metavar="ID", default=None, help="recheck this claim only")
    recheck.add_argument(
        "--jobs", type=int, default=None, help="obligations replayed at once (default: the cores this process may use)"
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit recheck`` and return its exit code."""
    from dpaudit.report.recheck import recheck_report

    jobs = arguments.jobs if arguments.jobs is not None else len(os.sched_getaffinity(0))
    if jobs < 1:
        raise InvalidArgument(f"--jobs {jobs}: expected at least 1")
    result = recheck_report(
        arguments.file,
        rerun=not arguments.no_rerun,
        progress=lambda line: log.info("%s", line),
        claim_id=arguments.claim,
        workers=jobs,
    )
    for line in result.lines():
        print(line)
    incomplete = arguments.require_all and (result.uncertified or result.no_route or result.unchecked)
    return EXIT_OK if result.ok and not incomplete else EXIT_FAILED


COMMAND = Command(
    "recheck",
    add_arguments,
    run,
    help="replay the certificates and counterexamples of an audit.json",
    description=DESCRIPTION,
)
