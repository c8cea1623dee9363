"""The ``dpaudit check`` command (its text in ``dpaudit check --help`` is :data:`DESCRIPTION`)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from dpaudit.cli.common import (
    EXIT_FAILED,
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    Command,
    add_quick_option,
    add_report_options,
    add_run_options,
    check_output_folder,
    finish,
    log,
    parse_call_seconds,
    parse_memory_mib,
    reporter,
    sampled,
)

#: What ``dpaudit check --help`` says above its options.
DESCRIPTION = """\
Load the candidate in an isolated worker with time and memory limits and run the spec's black-box obligations
on it (see specs/examples/ and README, 'Auditing your implementation')."""


def add_arguments(check: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit check`` to its parser."""
    check.add_argument("spec", metavar="SPEC", help="the spec whose black-box obligations the candidate must pass")
    check.add_argument("--candidate", required=True, metavar="MODULE:CALLABLE", help="the implementation to audit")
    check.add_argument(
        "--timeout", type=parse_call_seconds, default=120.0, help="seconds per candidate request (default 120)"
    )
    check.add_argument(
        "--memory", type=parse_memory_mib, default=4096, help="candidate address-space limit in MiB (default 4096)"
    )
    add_quick_option(check, "use the spec's reduced budgets")
    add_run_options(
        check,
        time_limit_default=" (default one hour; a candidate too slow for it is refused before any check, "
        "with its measured pace)",
    )
    add_report_options(check)
    check.add_argument(
        "--fail-on-conformance",
        action="store_true",
        help="also exit 1 when the candidate's output law differs from the reference's (conformance, not privacy)",
    )


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit check`` and return its exit code."""
    from dpaudit.audit.candidates.audit import audit_candidate
    from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
    from dpaudit.audit.runner import spec_display_path
    from dpaudit.audit.spec import load_spec

    path = Path(arguments.spec)
    claim = sampled(load_spec(path), arguments)
    check_output_folder(arguments.out)
    report = audit_candidate(
        claim,
        spec_display_path(path),
        parse_candidate(arguments.candidate),
        limits=CandidateLimits(timeout_seconds=arguments.timeout, memory_mib=arguments.memory),
        seed=arguments.seed,
        quick=arguments.quick,
        command="dpaudit " + shlex.join(argv),
        time_limit=arguments.time_limit,
        progress=reporter(arguments),
    )
    code = finish(report, arguments)
    differing = [
        f"{claim.claim.id}/{relation.relation.name}/{item.obligation.id}"
        for claim in report.claims
        for relation in claim.relations
        for item in relation.obligations
        if item.evidence.details.get("conformance") == "differs"
    ]
    if differing:
        log.warning("output law differs from the reference (conformance, not privacy): %s", ", ".join(differing))
        if arguments.fail_on_conformance and code in (EXIT_OK, EXIT_INCONCLUSIVE):
            return EXIT_FAILED
    return code


COMMAND = Command(
    "check",
    add_arguments,
    run,
    help="audit a candidate implementation (module:callable) against a spec's black-box obligations",
    description=DESCRIPTION,
)
