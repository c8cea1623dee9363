"""What the commands of ``dpaudit`` share: what a command is, exit codes, help texts, run options, the report's
console table and the end of an audit (report folder, table, exit code)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpaudit._version import DEFAULT_SEED
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import FAIL_POLICIES

if TYPE_CHECKING:
    from dpaudit.audit.results import AuditReport
    from dpaudit.report.background_figures import FigureDrawer

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_INCONCLUSIVE = 0, 1, 2, 3, 4
PROGRESS_HELP = (
    "progress on stderr: auto (a bar with ETA on a terminal, else lines), bar, lines (one per finished claim and "
    "a 'still running' line at least every 10 s) or json (the same events as JSON lines)"
)
TIME_LIMIT_HELP = (
    "wall-time budget of the whole run in seconds: obligations still running or not started then are "
    "inconclusive (budget)"
)
EXIT_CODES_HELP = (
    "exit codes: 0 pass; 1 a claim violated or a known finding changed; 2 bad input or usage; "
    "3 internal error; 4 inconclusive under --fail-on inconclusive; 130/143 interrupted (SIGINT/SIGTERM)"
)
DEFAULT_OUT = "dpaudit-report"
DEFAULT_MUTANTS_OUT = "dpaudit-mutants"
REPRODUCIBLE_PAPERS = ("balle2016", "xie2019", "gohari2020")
QUICK_HELP = "use the specs' reduced budgets"
FAIL_ON_HELP = "exit 1 when a claim is violated or errored (default); 'inconclusive' also exits 4 when inconclusive"

log = logging.getLogger("dpaudit")


@dataclass(frozen=True)
class Command:
    """One command of ``dpaudit``.

    Attributes:
        name: the word after ``dpaudit``.
        add_arguments: adds the command's own arguments and options to its parser.
        run: runs it, ``(arguments, argv) -> exit code``.
        help: its line in ``dpaudit --help``.
        description: the text of ``dpaudit NAME --help`` above the arguments (``None``: none).
    """

    name: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Sequence[str]], int]
    help: str
    description: str | None = None

    def register(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Add the command to ``dpaudit``'s subcommands."""
        parser = commands.add_parser(self.name, help=self.help, description=self.description)
        self.add_arguments(parser)
        parser.set_defaults(run=self.run)


def add_quick_option(command: argparse.ArgumentParser, help: str = QUICK_HELP) -> None:
    """--quick, the reduced budgets (``help``: what the command reduces)."""
    command.add_argument("--quick", action="store_true", help=help)


def add_seed_option(command: argparse.ArgumentParser) -> None:
    """--seed, the root seed every random draw of the command descends from."""
    command.add_argument("--seed", type=parse_seed, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")


def add_out_option(command: argparse.ArgumentParser, default: str) -> None:
    """--out, the folder the command writes to (``default``, relative to the working folder)."""
    command.add_argument("--out", default=default, help=f"output folder (default ./{default})")


def add_fail_on_option(command: argparse.ArgumentParser, help: str = FAIL_ON_HELP) -> None:
    """--fail-on, the verdict policy of the exit code (``help``: what the command does with it)."""
    command.add_argument("--fail-on", choices=FAIL_POLICIES, default="violated", help=help)


def add_report_options(command: argparse.ArgumentParser) -> None:
    """--seed, --out and --fail-on: the options of a command that writes an audit report (audit, check)."""
    add_seed_option(command)
    add_out_option(command, DEFAULT_OUT)
    add_fail_on_option(command)


def add_run_options(command: argparse.ArgumentParser, *, time_limit_default: str = "") -> None:
    """--quiet, --progress and --time-limit, shared by audit and check (``time_limit_default``: what the
    command does without --time-limit, for its help)."""
    command.add_argument("--quiet", action="store_true", help="no progress on stderr")
    from dpaudit.audit.progress import PROGRESS_MODES  # standard library only: --help stays fast

    command.add_argument("--progress", choices=PROGRESS_MODES, default="auto", help=PROGRESS_HELP)
    command.add_argument(
        "--time-limit", type=parse_seconds, default=None, metavar="SECONDS", help=TIME_LIMIT_HELP + time_limit_default
    )
    command.add_argument(
        "--ceiling",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="lower a budget ceiling for every spec (repeatable; samples, digits, bins, grid, search_examples, "
        "enumeration, memory_mib, time_limit_seconds): a spec asking for more is exit 2 before any work; "
        "an allocation past memory_mib makes the obligation inconclusive (budget)",
    )
    command.add_argument(
        "--samples",
        choices=("auto",),
        default=None,
        help="auto: size every Monte Carlo epsilon check so that an event of probability 1%% seen on one side "
        "only would refute the claim, and its certification so that an epsilon 5%% past the claim on the "
        "selection's best event would (docs/statistics.md); default: the spec's budgets (a vectorised candidate's "
        "certification sized up to 4x its samples)",
    )


def parse_call_seconds(text: str) -> float:
    """``--timeout``: seconds one candidate call may take, in (0, 86400]."""
    return _seconds(text, 86400.0)


def parse_seconds(text: str) -> float:
    """``--time-limit``: seconds, in (0, MAX_TIME_LIMIT_SECONDS]."""
    from dpaudit.checks.budget_limits import MAX_TIME_LIMIT_SECONDS

    return _seconds(text, MAX_TIME_LIMIT_SECONDS)


def _seconds(text: str, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds") from None
    if not 0 < value <= high:
        raise argparse.ArgumentTypeError(f"{text!r}: expected seconds in (0, {high:g}]")
    return value


def parse_memory_mib(text: str) -> int:
    """``--memory``: a candidate worker's address-space limit, a whole number of MiB in its bounds."""
    from dpaudit.audit.candidates.refs import MAX_MEMORY_MIB, MIN_MEMORY_MIB

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of MiB") from None
    if not MIN_MEMORY_MIB <= value <= MAX_MEMORY_MIB:
        raise argparse.ArgumentTypeError(f"{value}: expected MiB in [{MIN_MEMORY_MIB}, {MAX_MEMORY_MIB}]")
    return value


def parse_seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed={text!r}: expected a non-negative integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed={value}: expected a non-negative integer")
    return value


def reason(obligation: str, summary: str) -> str:
    """One line saying why an obligation is ``error`` or ``inconclusive``: the summary's first line, and
    the exception line of a traceback after it (a candidate's raise: what raised, on which input, and why)."""
    lines = [line.strip() for line in summary.splitlines() if line.strip()]
    if not lines:
        return ""
    text = lines[0]
    if any(line.startswith("Traceback") for line in lines):
        text = f"{text.removeprefix('the check could not run: ').rstrip(':')}: {_exception_lines(summary)}"
    return f"{obligation}: {text}" if obligation else text


def _exception_lines(summary: str) -> str:
    """The exception of the last traceback in ``summary``, its message on one line (a message may span lines:
    everything after the last frame's indented lines, up to a blank line or the captured output)."""
    lines = summary[summary.rfind("Traceback") :].splitlines()
    last_frame = max((index for index, line in enumerate(lines) if line.startswith(" ")), default=0)
    message = []
    for line in lines[last_frame + 1 :]:
        if not line.strip() or line.startswith("candidate output"):
            break
        message.append(line.strip())
    return " ".join(message) or lines[-1].strip()


def summary_table(report: AuditReport) -> str:
    from dpaudit.report.summary import summary_table_rows

    rows = [
        (
            row.claim,
            row.relation,
            row.verdict
            + (" (known finding)" if row.known_finding else "")
            + (" (under assumption)" if row.under_assumption else ""),
            row.key_number or (reason(row.obligation, row.summary) if row.verdict in ("error", "inconclusive") else ""),
        )
        for row in summary_table_rows(report.to_json())
    ]
    headers = ("claim", "relation", "verdict", "key number (measured vs claimed), or the reason")
    widths = [max(len(headers[i]), *(len(row[i]) for row in rows)) if rows else len(headers[i]) for i in range(3)]
    # on a terminal the last column is cut to the width; piped or redirected, every number is whole
    longest = max([len(headers[3]), *(len(row[3]) for row in rows)])
    room = max(120 - sum(widths) - 6, len(headers[3])) if sys.stdout.isatty() else longest

    def line(cells: tuple[str, ...]) -> str:
        fixed = "  ".join(cell.ljust(width) for cell, width in zip(cells[:3], widths, strict=True))
        last = cells[3] if len(cells[3]) <= room else cells[3][: room - 1] + "…"
        return f"{fixed}  {last}".rstrip()

    lines = [line(headers), line(tuple("-" * width for width in (*widths, room)))]
    lines += [line(row) for row in rows]
    counts = ", ".join(f"{count} {name}" for name, count in report.verdict_counts().items() if count)
    known = sum(relation.only_known_findings for claim in report.claims for relation in claim.relations)
    lines.append(
        f"\n{len(rows)} claim-relation verdicts: {counts}"
        + (f" ({known} violated only by known findings)" if known else "")
    )
    lines += [  # a known finding no longer reproduced fails under every policy: say which, and why
        f"known finding not reproduced: {claim.claim.id} under {relation.relation.name}, {item.obligation.id}: "
        + (item.finding_changed or f"{item.evidence.verdict.value}, where the finding says violated")
        for claim in report.claims
        for relation in claim.relations
        for item in relation.obligations
        if item.known_finding is not None and item.fails("violated")
    ]
    return "\n".join(lines)


def check_output_folder(out: str) -> None:
    """Check before any work that the report folder ``out`` can be created and written.

    Raises:
        InvalidArgument: naming the folder and what is in the way.
    """
    if not out.strip():  # Path("") is the working directory, whose stale figures a report would remove
        raise InvalidArgument("--out '': expected a folder's path (use --out . for the working directory)")
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise InvalidArgument(f"--out {out}: a file is in the way; expected a folder") from None
    except OSError as exc:
        raise InvalidArgument(f"--out {out}: cannot create the folder ({exc.strerror})") from None
    if not folder.is_dir():
        raise InvalidArgument(f"--out {out}: not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".dpaudit-write-check-"):
            pass
    except OSError as exc:
        raise InvalidArgument(f"--out {out}: the folder is not writable ({exc.strerror})") from None


def sampled(claim: Any, arguments: argparse.Namespace) -> Any:
    """The claim with ``--samples auto`` applied to its Monte Carlo epsilon checks."""
    if arguments.samples != "auto":
        return claim
    from dpaudit.checks.empirical.epsilon_lower_bound import with_auto_samples

    return with_auto_samples(claim)


def reporter(arguments: argparse.Namespace) -> Any:
    """The progress reporter of --progress (None with --quiet)."""
    from dpaudit.audit.progress import make_reporter

    return None if arguments.quiet else make_reporter(arguments.progress, sys.stderr)


def finish(report: AuditReport, arguments: argparse.Namespace, drawer: FigureDrawer | None = None) -> int:
    from dpaudit.report.figures import collect_figures
    from dpaudit.report.folder import write_report_folder

    document = report.to_json()
    figures = collect_figures(document, None if drawer is None else drawer.drawn)
    out = arguments.out if report.interrupted_signal is None else _beside_a_finished_report(Path(arguments.out))
    files = write_report_folder(document, out, fail_on=arguments.fail_on, figures=figures)
    print(summary_table(report))
    print(f"report: {files.json}, {files.markdown}, {files.html}, {files.junit}, {len(files.figures)} figures")
    if report.internal_errors:
        log.error("%d obligation(s) hit an internal error; see the report's tracebacks", report.internal_errors)
        return EXIT_INTERNAL
    if report.interrupted_signal is not None:
        log.error("interrupted (%s); the report holds what finished", report.interrupted)
        return 128 + report.interrupted_signal
    if report.failed("violated"):
        return EXIT_FAILED
    if report.failed(arguments.fail_on):
        show_what_fails(report, arguments.fail_on)
        return EXIT_INCONCLUSIVE
    return EXIT_OK


#: The subfolder of ``--out`` an interrupted run writes to when ``--out`` holds a finished report.
INTERRUPTED_DIR = "interrupted"


def _beside_a_finished_report(out: Path) -> Path:
    """Where an interrupted run writes its report: ``out``, unless ``out`` already holds a report that
    finished, which a part of a run must not replace; then ``out/interrupted``."""
    try:
        previous = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return out  # none, or not a report: nothing finished is lost
    if not isinstance(previous, dict) or previous.get("interrupted") or "claims" not in previous:
        return out
    log.warning(
        "the report already in %s finished and is kept; what this interrupted run finished is in %s",
        out,
        out / INTERRUPTED_DIR,
    )
    return out / INTERRUPTED_DIR


def show_what_fails(report: AuditReport, policy: str) -> None:
    """Name the results the --fail-on policy fails on (beyond violations, which the table shows)."""
    from dpaudit.report.summary import summary_table_rows

    failing = [row for row in summary_table_rows(report.to_json()) if row.verdict in ("inconclusive", "error")]
    log.error("--fail-on %s fails on %d result(s):", policy, len(failing))
    for row in failing:
        log.error("  %s under %s: %s (%s: %s)", row.claim, row.relation, row.verdict, row.obligation, row.summary[:200])
