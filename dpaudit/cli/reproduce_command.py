"""``dpaudit reproduce PAPER``: re-run a paper's experiments."""

from __future__ import annotations

import argparse
import importlib
import tempfile
from collections.abc import Sequence
from pathlib import Path

from dpaudit.cli.common import EXIT_OK, REPRODUCIBLE_PAPERS, Command, add_quick_option, add_seed_option


def add_arguments(reproduce: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit reproduce`` to its parser."""
    reproduce.add_argument("paper", choices=REPRODUCIBLE_PAPERS, help="the paper whose experiments to re-run")
    add_quick_option(reproduce, "a smaller configuration (minutes)")
    add_seed_option(reproduce)
    reproduce.add_argument(
        "--out",
        default=None,
        help="output folder (default: a new temporary folder; the committed runs are in reports/reproduce/PAPER)",
    )


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


COMMAND = Command("reproduce", add_arguments, run, help="re-run a paper's experiments: figures, CSV and a summary")
