"""``dpaudit reproduce PAPER``: re-run a paper's experiments."""

from __future__ import annotations

import argparse
import importlib
import tempfile
from collections.abc import Sequence
from pathlib import Path

from dpaudit.cli.common import EXIT_OK, REPRODUCIBLE_PAPERS, add_seed_option


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the command to ``dpaudit``'s subcommands."""
    reproduce = commands.add_parser("reproduce", help="re-run a paper's experiments: figures, CSV and a summary")
    reproduce.add_argument("paper", choices=REPRODUCIBLE_PAPERS, help="the paper whose experiments to re-run")
    reproduce.add_argument("--quick", action="store_true", help="a smaller configuration (minutes)")
    add_seed_option(reproduce)
    reproduce.add_argument(
        "--out",
        default=None,
        help="output folder (default: a new temporary folder; the committed runs are in reports/reproduce/PAPER)",
    )
    reproduce.set_defaults(run=run)


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit reproduce`` and return its exit code."""
    module = importlib.import_module(f"dpaudit.reproduce.{arguments.paper}")
    out = (
        Path(arguments.out) if arguments.out else Path(tempfile.mkdtemp(prefix=f"dpaudit-reproduce-{arguments.paper}-"))
    )
    print(f"writing to {out}")
    summary = module.run(out, quick=arguments.quick, seed=arguments.seed)
    print(f"summary: {summary}")
    return EXIT_OK
