"""The ``dpaudit audit`` command (its text in ``dpaudit audit --help`` is :data:`DESCRIPTION`)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from dpaudit.cli.common import (
    Command,
    add_quick_option,
    add_report_options,
    add_run_options,
    check_output_folder,
    finish,
    reporter,
    sampled,
)

#: What ``dpaudit audit --help`` says above its options.
DESCRIPTION = """\
Audit each SPEC (default: every built-in paper claim against the reference implementations). Prints a summary
table; writes audit.json, audit.md, audit.html, junit.xml and figures/ to --out."""


def add_arguments(audit: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit audit`` to its parser."""
    audit.add_argument("specs", nargs="*", metavar="SPEC", help="TOML spec files (default: the built-in specs)")
    add_quick_option(audit, "use each obligation's reduced [obligations.quick] budgets")
    add_report_options(audit)

    add_run_options(audit)
    audit.add_argument(
        "--executor",
        default="process",
        help="where Monte Carlo sampling runs: process[:N] (default), thread[:N], serial, dask://HOST:PORT",
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit audit`` and return its exit code."""
    from dpaudit.audit.runner import run_audit, spec_display_path
    from dpaudit.audit.spec import builtin_specs, load_specs
    from dpaudit.checks.empirical.executors import forkserver_context, make_executor
    from dpaudit.report.background_figures import FigureDrawer

    paths = [Path(spec) for spec in arguments.specs] or builtin_specs()
    claims = [(sampled(claim, arguments), spec_display_path(path)) for claim, path in load_specs(paths)]
    check_output_folder(arguments.out)
    # pool workers start from a server that has already imported the checkers (once, not per worker)
    forkserver_context(["dpaudit.audit.plugins"])
    with make_executor(arguments.executor) as executor, FigureDrawer() as drawer:
        report = run_audit(
            claims,
            seed=arguments.seed,
            quick=arguments.quick,
            command="dpaudit " + shlex.join(argv),
            executor=executor,
            progress=reporter(arguments),
            time_limit=arguments.time_limit,
            while_in_pool=lambda result: drawer.add(result.to_json()),
        )
    return finish(report, arguments, drawer)


COMMAND = Command(
    "audit",
    add_arguments,
    run,
    help="audit spec files (default: every built-in paper claim) and write the report",
    description=DESCRIPTION,
)
