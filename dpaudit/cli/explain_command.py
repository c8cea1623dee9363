"""``dpaudit explain CLAIM [ID]``: what a claim, or a finished audit's verdict, rests on."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from dpaudit.cli.common import EXIT_OK, Command
from dpaudit.errors import InvalidArgument


def add_arguments(explain: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit explain`` to its parser."""
    explain.add_argument(
        "claim", metavar="CLAIM", help="a built-in claim id (dpaudit list specs), a spec path, or an audit.json"
    )
    explain.add_argument(
        "claim_in_report", metavar="ID", nargs="?", default=None, help="with an audit.json: explain this claim only"
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit explain`` and return its exit code."""
    from dpaudit.audit.explain import explain_claim, find_claim

    target = Path(arguments.claim)
    if target.suffix == ".json" or target.is_dir():
        from dpaudit.report.explain_report import explain_report
        from dpaudit.report.json_report import load_report

        print(
            explain_report(load_report(target / "audit.json" if target.is_dir() else target), arguments.claim_in_report)
        )
        return EXIT_OK
    if arguments.claim_in_report is not None:
        raise InvalidArgument(f"{arguments.claim_in_report!r}: a claim id goes after an audit.json, not a claim")
    claim, path = find_claim(arguments.claim)
    print(explain_claim(claim, path))
    return EXIT_OK


COMMAND = Command(
    "explain",
    add_arguments,
    run,
    help="print a claim's obligations, the paper statement behind each and how it is checked",
)
