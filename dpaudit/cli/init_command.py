"""``dpaudit init KIND``: a starter candidate module and spec."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from dpaudit.cli.common import EXIT_OK, Command


def add_arguments(init: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit init`` to its parser."""
    init.add_argument("kind", metavar="KIND", help="a mechanism kind (dpaudit list mechanisms)")
    init.add_argument(
        "--out", default=".", help="folder to write KIND_candidate.py and KIND_candidate.toml (default .)"
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit init`` and return its exit code."""
    from dpaudit.audit.explain import write_starter

    module_path, spec_path = write_starter(arguments.kind, Path(arguments.out))
    folder = shlex.quote(str(module_path.parent))
    print(
        f"wrote {module_path} and {spec_path}; then, from that folder (the candidate is imported from the working "
        f"directory): cd {folder} && dpaudit check {spec_path.name} --candidate {module_path.stem}:{arguments.kind}"
    )
    return EXIT_OK


COMMAND = Command("init", add_arguments, run, help="write a starter candidate module and spec for a kind")
