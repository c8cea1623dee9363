"""The ``dpaudit mutants`` command (its text in ``dpaudit mutants --help`` is :data:`DESCRIPTION`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from contextlib import ExitStack

from dpaudit.cli.common import (
    DEFAULT_MUTANTS_OUT,
    EXIT_FAILED,
    EXIT_OK,
    Command,
    add_out_option,
    add_quick_option,
    add_seed_option,
)

#: What ``dpaudit mutants --help`` says above its options.
DESCRIPTION = """\
Audit every mutant (a reference mechanism with a realistic privacy bug) with its specs under specs/mutants/
and the reference on the same specs and seed. Prints the detection table and writes mutants.json and
mutants.md to --out. Exit 0 when every mutant is caught, 1 otherwise."""


def add_arguments(mutants: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit mutants`` to its parser."""
    add_quick_option(mutants)
    mutants.add_argument("--only", nargs="+", metavar="NAME", help="audit only these mutants")
    add_seed_option(mutants)
    add_out_option(mutants, DEFAULT_MUTANTS_OUT)
    mutants.add_argument(
        "--executor",
        metavar="SPEC",
        help="where the audits' Monte Carlo sampling runs: process[:N], thread[:N], serial or dask://HOST:PORT "
        "(default: in this process); the tables do not change",
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit mutants`` and return its exit code."""

    from dpaudit.audit.mutants.library import list_mutants
    from dpaudit.audit.mutants.runs import run_mutants, write_mutant_tables
    from dpaudit.checks.empirical.executors import make_executor

    mutants = list_mutants(arguments.only)
    with ExitStack() as stack:
        executor = None if arguments.executor is None else stack.enter_context(make_executor(arguments.executor))
        run = run_mutants(mutants, seed=arguments.seed, quick=arguments.quick, executor=executor)
    json_path, markdown_path = write_mutant_tables(run, arguments.out)
    print(run.to_text())
    print(f"tables: {json_path}, {markdown_path}")
    return EXIT_OK if run.all_caught else EXIT_FAILED


COMMAND = Command(
    "mutants",
    add_arguments,
    run,
    help="audit the library of planted privacy bugs and print which obligation caught each",
    description=DESCRIPTION,
)
