"""``dpaudit list``: the built-in specs, mechanisms, checkers and mutants."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from dpaudit.cli.common import EXIT_OK, Command


def add_arguments(listing: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit list`` to its parser."""
    listing.add_argument(
        "what", nargs="?", choices=("specs", "mechanisms", "checkers", "mutants"), help="only this kind"
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit list``:`` and return its exit code."""

    from dpaudit.audit.listing import listing

    entries = listing()
    if arguments.what in (None, "specs"):
        print("specs:")
        for file_name, claim_id, title in entries["specs"]:
            print(f"  {file_name:45s} {claim_id}: {title}")
    if arguments.what in (None, "mechanisms"):
        print("mechanisms:")
        for name, description in entries["mechanisms"]:
            print(f"  {name:30s} {description}")
    if arguments.what in (None, "checkers"):
        print("checkers:")
        for name, description in entries["checkers"]:
            print(f"  {name:30s} {description}")
    if arguments.what in (None, "mutants"):
        print("mutants:")
        for name, family, bug in entries["mutants"]:
            print(f"  {name:30s} [{family}] {bug}")
    return EXIT_OK


COMMAND = Command("list", add_arguments, run, help="list built-in specs, mechanisms, checkers and mutants")
