"""The ``dpaudit`` command line.

Exit codes: 0 no failure under the chosen policy; 1 a claim violated (or errored), or a
known finding no longer reproduced; 2 bad input or usage (spec, candidate that cannot be
loaded, unwritable --out); 3 internal error (a dpaudit bug: please report it); 4 nothing
violated but a result is inconclusive under --fail-on inconclusive; 130 / 143 interrupted
by SIGINT / SIGTERM (the finished claims are written, the report says ``interrupted``).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import logging
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpaudit._validation import check_integer
from dpaudit._version import DEFAULT_SEED, __version__
from dpaudit.errors import AuditInterrupted, DpAuditError, InvalidArgument
from dpaudit.kernel.verdicts import FAIL_POLICIES

if TYPE_CHECKING:
    from dpaudit.audit.runner import AuditReport
    from dpaudit.report.background_figures import FigureDrawer

__all__ = ["main"]

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

log = logging.getLogger("dpaudit")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpaudit",
        description="Audit differentially private RL mechanisms against their papers' privacy claims.",
        epilog=EXIT_CODES_HELP,
    )
    parser.add_argument("-V", "--version", action="version", version=f"dpaudit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    audit = commands.add_parser(
        "audit",
        help="audit spec files (default: every built-in paper claim) and write the report",
        description="Audit each SPEC (default: every built-in paper claim against the reference "
        "implementations). Prints a summary table; writes audit.json, audit.md, audit.html, junit.xml "
        "and figures/ to --out.",
    )
    audit.add_argument("specs", nargs="*", metavar="SPEC", help="TOML spec files (default: the built-in specs)")
    audit.add_argument("--quick", action="store_true", help="use each obligation's reduced [obligations.quick] budgets")
    audit.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    audit.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default ./{DEFAULT_OUT})")
    audit.add_argument(
        "--fail-on",
        choices=FAIL_POLICIES,
        default="violated",
        help="exit 1 when a claim is violated or errored (default); 'inconclusive' also exits 4 when inconclusive",
    )

    _add_run_options(audit)
    audit.add_argument(
        "--executor",
        default="process",
        help="where Monte Carlo sampling runs: process[:N] (default), thread[:N], serial, dask://HOST:PORT",
    )

    check = commands.add_parser(
        "check",
        help="audit a candidate implementation (module:callable) against a spec's black-box obligations",
        description="Load the candidate in an isolated worker with time and memory limits and run the "
        "spec's black-box obligations on it (see specs/examples/ and README, 'Auditing your implementation').",
    )
    check.add_argument("spec", metavar="SPEC", help="the spec whose black-box obligations the candidate must pass")
    check.add_argument("--candidate", required=True, metavar="MODULE:CALLABLE", help="the implementation to audit")
    check.add_argument("--timeout", type=float, default=120.0, help="seconds per candidate request (default 120)")
    check.add_argument("--memory", type=int, default=4096, help="candidate address-space limit in MiB (default 4096)")
    check.add_argument("--quick", action="store_true", help="use the spec's reduced budgets")
    _add_run_options(check)
    check.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    check.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default ./{DEFAULT_OUT})")
    check.add_argument(
        "--fail-on-conformance",
        action="store_true",
        help="also exit 1 when the candidate's output law differs from the reference's (conformance, not privacy)",
    )
    check.add_argument(
        "--fail-on",
        choices=FAIL_POLICIES,
        default="violated",
        help="exit 1 when a claim is violated or errored (default); 'inconclusive' also exits 4 when inconclusive",
    )

    calibrate = commands.add_parser("calibrate", help="exact noise calibration where the papers' constants are loose")
    calibrate.add_argument("target", choices=("smooth-gaussian",), help="what to calibrate")
    calibrate.add_argument("--epsilon", type=float, required=True, help="the target epsilon > 0")
    calibrate.add_argument("--delta", type=float, required=True, help="the target delta in (0, 1)")
    calibrate.add_argument("--dim", type=int, required=True, help="the dimension d of the released vector")
    calibrate.add_argument("--beta", type=float, default=None, help="beta of condition (b) (default the paper's)")
    calibrate.add_argument("--pareto-points", type=int, default=6, help="points of the (alpha, beta) front")

    reproduce = commands.add_parser("reproduce", help="re-run a paper's experiments: figures, CSV and a summary")
    reproduce.add_argument("paper", choices=REPRODUCIBLE_PAPERS, help="the paper whose experiments to re-run")
    reproduce.add_argument("--quick", action="store_true", help="a smaller configuration (minutes)")
    reproduce.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    reproduce.add_argument(
        "--out",
        default=None,
        help="output folder (default: a new temporary folder; the committed runs are in reports/reproduce/PAPER)",
    )

    mutants = commands.add_parser(
        "mutants",
        help="audit the library of planted privacy bugs and print which obligation caught each",
        description="Audit every mutant (a reference mechanism with a realistic privacy bug) with its specs "
        "under specs/mutants/ and the reference on the same specs and seed. Prints the detection table and "
        "writes mutants.json and mutants.md to --out. Exit 0 when every mutant is caught, 1 otherwise.",
    )
    mutants.add_argument("--quick", action="store_true", help="use the specs' reduced budgets")
    mutants.add_argument("--only", nargs="+", metavar="NAME", help="audit only these mutants")
    mutants.add_argument("--seed", type=_seed, default=DEFAULT_SEED, help=f"root seed (default {DEFAULT_SEED})")
    mutants.add_argument("--out", default=DEFAULT_MUTANTS_OUT, help=f"output folder (default ./{DEFAULT_MUTANTS_OUT})")

    corpus = commands.add_parser(
        "corpus",
        help="check a corpus of candidates with known truth and tabulate the verdicts",
        description="Run `dpaudit check` on every candidate of a corpus manifest (see dpaudit.audit.candidates."
        "corpus) for each seed, and write corpus.json and corpus.md (kind, bug, truth, verdicts, certified epsilon "
        "lower bound) to --out. Exit 0.",
    )
    corpus.add_argument("manifest", help="the corpus manifest, e.g. tests/candidates/manifest.toml")
    corpus.add_argument("--quick", action="store_true", help="use the specs' reduced budgets")
    corpus.add_argument("--seeds", type=int, default=1, help="check each candidate with N seeds (default 1)")
    corpus.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the first seed (default 0): seeds K..K+N-1, so a long run can be split into parts",
    )
    corpus.add_argument("--only", nargs="+", metavar="NAME", help="check only these candidates")
    corpus.add_argument("--timeout", type=float, default=120.0, help="seconds per candidate call (default 120)")
    corpus.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="check this many candidates at once, each in its own process (default 1); the tables do not change",
    )
    corpus.add_argument("--out", default="dpaudit-corpus", help="output folder (default ./dpaudit-corpus)")

    explain = commands.add_parser(
        "explain", help="print a claim's obligations, the paper statement behind each and how it is checked"
    )
    explain.add_argument(
        "claim", metavar="CLAIM", help="a built-in claim id (dpaudit list specs), a spec path, or an audit.json"
    )
    explain.add_argument(
        "claim_in_report", metavar="ID", nargs="?", default=None, help="with an audit.json: explain this claim only"
    )

    init = commands.add_parser("init", help="write a starter candidate module and spec for a kind")
    init.add_argument("kind", metavar="KIND", help="a mechanism kind (dpaudit list mechanisms)")
    init.add_argument(
        "--out", default=".", help="folder to write KIND_candidate.py and KIND_candidate.toml (default .)"
    )

    listing = commands.add_parser("list", help="list built-in specs, mechanisms, checkers and mutants")
    listing.add_argument(
        "what", nargs="?", choices=("specs", "mechanisms", "checkers", "mutants"), help="only this kind"
    )

    recheck = commands.add_parser(
        "recheck",
        help="replay the certificate of every verified obligation of an audit.json",
        description="Re-derive every certified fact of the report by an independent route (numerical integration "
        "of the densities in mpmath instead of the checker's closed form), or by running an exhaustive check again "
        "from its spec with the recorded seed; check that each fact belongs to its claim and supports its verdict, "
        "and check the digest and the verdict chain. Exit 1 on any mismatch.",
    )
    recheck.add_argument("file", metavar="FILE.json")
    recheck.add_argument(
        "--require-all",
        action="store_true",
        help="also fail when a verified obligation has no certificate or no independent route",
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

    report = commands.add_parser("report", help="re-render an audit.json")
    report.add_argument("file", metavar="FILE.json")
    report.add_argument(
        "--format",
        choices=("md", "html", "junit", "github"),
        default="md",
        help="output format (default md); github appends the Markdown summary to $GITHUB_STEP_SUMMARY (or --output) "
        "and prints ::error / ::warning annotations for unexpected violations, errors, inconclusive results and "
        "known findings",
    )
    report.add_argument(
        "--output", "-o", help="write here instead of standard output (md: also writes figures/ next to it)"
    )
    report.add_argument(
        "--fail-on",
        choices=FAIL_POLICIES,
        default="violated",
        help="junit: inconclusive is skipped (violated, the default) or a failure (inconclusive)",
    )
    return parser


def _add_run_options(command: argparse.ArgumentParser) -> None:
    """--quiet, --progress and --time-limit, shared by audit and check."""
    command.add_argument("--quiet", action="store_true", help="no progress on stderr")
    from dpaudit.audit.progress import PROGRESS_MODES  # standard library only: --help stays fast

    command.add_argument("--progress", choices=PROGRESS_MODES, default="auto", help=PROGRESS_HELP)
    command.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS", help=TIME_LIMIT_HELP)
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
        "only would refute the claim (docs/statistics.md); default: the spec's budgets",
    )


def _seconds(text: str) -> float:
    from dpaudit.checks.budget_limits import MAX_TIME_LIMIT_SECONDS

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds") from None
    if not 0 < value <= MAX_TIME_LIMIT_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r}: expected seconds in (0, {MAX_TIME_LIMIT_SECONDS:g}]")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed={text!r}: expected a non-negative integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed={value}: expected a non-negative integer")
    return value


def _reason(obligation: str, summary: str) -> str:
    """One line saying why an obligation is ``error`` or ``inconclusive``: the exception line of a
    traceback, else the summary's first line."""
    lines = [line.strip() for line in summary.splitlines() if line.strip()]
    if not lines:
        return ""
    text = lines[-1] if any(line.startswith("Traceback") for line in lines) else lines[0]
    return f"{obligation}: {text}" if obligation else text


def _summary_table(report: AuditReport) -> str:
    from dpaudit.report.summary import summary_table_rows

    rows = [
        (
            row.claim,
            row.relation,
            row.verdict + (" (known finding)" if row.known_finding else ""),
            row.key_number
            or (_reason(row.obligation, row.summary) if row.verdict in ("error", "inconclusive") else ""),
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
    return "\n".join(lines)


def check_output_folder(out: str) -> None:
    """Check before any work that the report folder ``out`` can be created and written.

    Raises:
        InvalidArgument: naming the folder and what is in the way.
    """
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


def _command_audit(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    from dpaudit.audit.runner import run_audit, spec_display_path
    from dpaudit.audit.spec import builtin_specs, load_specs
    from dpaudit.checks.empirical.executors import forkserver_context, make_executor
    from dpaudit.report.background_figures import FigureDrawer

    paths = [Path(spec) for spec in arguments.specs] or builtin_specs()
    claims = [(_sampled(claim, arguments), spec_display_path(path)) for claim, path in load_specs(paths)]
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
            progress=_reporter(arguments),
            time_limit=arguments.time_limit,
            while_in_pool=lambda result: drawer.add(result.to_json()),
        )
    return _finish(report, arguments, drawer)


def _sampled(claim: Any, arguments: argparse.Namespace) -> Any:
    """The claim with ``--samples auto`` applied to its Monte Carlo epsilon checks."""
    if arguments.samples != "auto":
        return claim
    from dpaudit.checks.empirical.audit import with_auto_samples

    return with_auto_samples(claim)


def _reporter(arguments: argparse.Namespace) -> Any:
    """The progress reporter of --progress (None with --quiet)."""
    from dpaudit.audit.progress import make_reporter

    return None if arguments.quiet else make_reporter(arguments.progress, sys.stderr)


def _finish(report: AuditReport, arguments: argparse.Namespace, drawer: FigureDrawer | None = None) -> int:
    from dpaudit.report.figures import collect_figures
    from dpaudit.report.folder import write_report_folder

    document = report.to_json()
    figures = collect_figures(document, None if drawer is None else drawer.drawn)
    files = write_report_folder(document, arguments.out, fail_on=arguments.fail_on, figures=figures)
    print(_summary_table(report))
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
        _show_what_fails(report, arguments.fail_on)
        return EXIT_INCONCLUSIVE
    return EXIT_OK


def _show_what_fails(report: AuditReport, policy: str) -> None:
    """Name the results the --fail-on policy fails on (beyond violations, which the table shows)."""
    from dpaudit.report.summary import summary_table_rows

    failing = [row for row in summary_table_rows(report.to_json()) if row.verdict in ("inconclusive", "error")]
    log.error("--fail-on %s fails on %d result(s):", policy, len(failing))
    for row in failing:
        log.error("  %s under %s: %s (%s: %s)", row.claim, row.relation, row.verdict, row.obligation, row.summary[:200])


def _command_check(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    from dpaudit.audit.candidates.audit import audit_candidate
    from dpaudit.audit.candidates.process import CandidateLimits, parse_candidate
    from dpaudit.audit.runner import spec_display_path
    from dpaudit.audit.spec import load_spec

    path = Path(arguments.spec)
    claim = _sampled(load_spec(path), arguments)
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
        progress=_reporter(arguments),
    )
    code = _finish(report, arguments)
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


def _command_calibrate(arguments: argparse.Namespace) -> int:
    from dpaudit.privacy.calibration import calibrate_smooth_gaussian

    result = calibrate_smooth_gaussian(
        arguments.epsilon, arguments.delta, arguments.dim, beta=arguments.beta, pareto_points=arguments.pareto_points
    )
    print(json.dumps(result.to_json(), indent=2, sort_keys=True, default=str))
    return EXIT_OK


def _command_reproduce(arguments: argparse.Namespace) -> int:
    module = importlib.import_module(f"dpaudit.reproduce.{arguments.paper}")
    out = (
        Path(arguments.out) if arguments.out else Path(tempfile.mkdtemp(prefix=f"dpaudit-reproduce-{arguments.paper}-"))
    )
    print(f"writing to {out}")
    summary = module.run(out, quick=arguments.quick, seed=arguments.seed)
    print(f"summary: {summary}")
    return EXIT_OK


def _command_mutants(arguments: argparse.Namespace) -> int:
    from dpaudit.audit.mutants.library import list_mutants
    from dpaudit.audit.mutants.runs import run_mutants, write_mutant_tables

    run = run_mutants(list_mutants(arguments.only), seed=arguments.seed, quick=arguments.quick)
    json_path, markdown_path = write_mutant_tables(run, arguments.out)
    print(run.to_text())
    print(f"tables: {json_path}, {markdown_path}")
    return EXIT_OK if run.all_caught else EXIT_FAILED


def _command_corpus(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    from dpaudit.audit.candidates.corpus import load_manifest, run_corpus, write_corpus_tables
    from dpaudit.audit.candidates.process import CandidateLimits

    entries = load_manifest(arguments.manifest)
    rows = run_corpus(
        entries,
        seeds=list(
            range(
                check_integer("first-seed", arguments.first_seed, low=0, high=2**31),
                arguments.first_seed + check_integer("seeds", arguments.seeds, low=1, high=1000),
            )
        ),
        quick=arguments.quick,
        limits=CandidateLimits(timeout_seconds=arguments.timeout),
        only=set(arguments.only) if arguments.only else None,
        jobs=check_integer("jobs", arguments.jobs, low=1, high=64),
    )
    json_path, markdown_path = write_corpus_tables(rows, arguments.out, command="dpaudit " + shlex.join(argv))
    print(markdown_path.read_text(encoding="utf-8"))
    print(f"tables: {json_path}, {markdown_path}")
    return EXIT_OK


def _command_list(arguments: argparse.Namespace) -> int:
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


def _command_report(arguments: argparse.Namespace) -> int:
    from dpaudit.report.figures import collect_figures
    from dpaudit.report.folder import FIGURE_DIR, write_figures
    from dpaudit.report.html import render_html
    from dpaudit.report.json_report import load_report
    from dpaudit.report.junit import render_junit
    from dpaudit.report.markdown import render_markdown

    document = load_report(arguments.file)
    if arguments.format == "github":
        return _github_summary(document, arguments.output)
    if arguments.format == "html":
        text = render_html(document)
    elif arguments.format == "junit":
        text = render_junit(document, fail_on=arguments.fail_on)
    elif arguments.output:
        figures = collect_figures(document)
        write_figures(figures, Path(arguments.output).parent / FIGURE_DIR)
        text = render_markdown(document, figures=figures, figure_dir=FIGURE_DIR)
    else:
        text = render_markdown(document)
    if arguments.output:
        Path(arguments.output).parent.mkdir(parents=True, exist_ok=True)
        Path(arguments.output).write_text(text, encoding="utf-8")
    else:
        print(text)
    return EXIT_OK


def _github_summary(document: dict[str, Any], output: str | None) -> int:
    """GitHub Actions: the Markdown summary appended to the job summary file, annotations on stdout."""
    from dpaudit.report.markdown import render_markdown
    from dpaudit.report.summary import github_annotations

    target = output or os.environ.get("GITHUB_STEP_SUMMARY")
    text = render_markdown(document)
    if target:
        with Path(target).open("a", encoding="utf-8") as summary:
            summary.write(text + "\n")
    else:
        print(text)
    for line in github_annotations(document):
        print(line)
    return EXIT_OK


def _command_explain(arguments: argparse.Namespace) -> int:
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


def _command_init(arguments: argparse.Namespace) -> int:
    from dpaudit.audit.explain import write_starter

    module_path, spec_path = write_starter(arguments.kind, Path(arguments.out))
    folder = shlex.quote(str(module_path.parent))
    print(
        f"wrote {module_path} and {spec_path}; then, from that folder (the candidate is imported from the working "
        f"directory): cd {folder} && dpaudit check {spec_path.name} --candidate {module_path.stem}:{arguments.kind}"
    )
    return EXIT_OK


def _command_recheck(arguments: argparse.Namespace) -> int:
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
    incomplete = arguments.require_all and (result.uncertified or result.no_route)
    return EXIT_OK if result.ok and not incomplete else EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (see the module docstring)."""
    logging.basicConfig(format="dpaudit: %(levelname)s: %(message)s", level=logging.INFO)
    args = list(sys.argv[1:] if argv is None else argv)
    parser = _build_parser()
    arguments = parser.parse_args(args)
    previous = _stop_on_sigterm()
    try:
        if arguments.command in ("audit", "check"):
            # hashlib's native part loads before the limit: under it, a failed load is logged with a traceback;
            # and the runner's modules too: compiling them from source under a ceiling too low to start can
            # fail inside CPython's compiler with an error that is not a MemoryError
            import hashlib  # noqa: F401

            import dpaudit.audit.candidates.audit
            import dpaudit.audit.runner  # noqa: F401
            from dpaudit.audit.memory_budget import limit_memory
            from dpaudit.checks.budget_limits import ceiling, lowered_ceilings, parse_ceiling

            with lowered_ceilings(dict(parse_ceiling(text) for text in arguments.ceiling)):
                limit_memory(ceiling("memory_mib"))  # before any worker starts, so every worker inherits it
                if arguments.command == "audit":
                    return _command_audit(arguments, args)
                return _command_check(arguments, args)
        if arguments.command == "calibrate":
            return _command_calibrate(arguments)
        if arguments.command == "reproduce":
            return _command_reproduce(arguments)
        if arguments.command == "mutants":
            return _command_mutants(arguments)
        if arguments.command == "list":
            return _command_list(arguments)
        if arguments.command == "corpus":
            return _command_corpus(arguments, args)
        if arguments.command == "explain":
            return _command_explain(arguments)
        if arguments.command == "init":
            return _command_init(arguments)
        if arguments.command == "recheck":
            return _command_recheck(arguments)
        return _command_report(arguments)
    except DpAuditError as exc:
        log.error("%s", exc)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        number = exc.signal_number if isinstance(exc, AuditInterrupted) else int(signal.SIGINT)
        if not isinstance(exc, AuditInterrupted):
            log.error("interrupted")
        return 128 + number
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except MemoryError:  # outside an obligation (those are inconclusive): the ceiling is too low to run at all
        return _out_of_memory()
    except OSError as exc:  # ENOMEM is the system's word for the same (e.g. reading a folder to import from it)
        return _out_of_memory() if exc.errno == errno.ENOMEM else _internal_error()
    except Exception:
        return _internal_error()
    finally:
        signal.signal(signal.SIGTERM, previous)


def _internal_error() -> int:
    log.exception("internal error; please report it with the command line above")
    return EXIT_INTERNAL


def _out_of_memory() -> int:
    from dpaudit.audit.memory_budget import lift_memory_limit

    lift_memory_limit()
    log.error("out of memory outside any obligation: the memory ceiling is too low for this command")
    return EXIT_USAGE


def _stop_on_sigterm() -> Any:
    """Turn SIGTERM into :class:`AuditInterrupted`, so it stops an audit the way Ctrl-C does."""

    def stop(number: int, frame: Any) -> None:
        raise AuditInterrupted(number)

    return signal.signal(signal.SIGTERM, stop)


def _quiet_stdout() -> None:
    """After a broken pipe (``dpaudit list | head``), point stdout at /dev/null so exiting prints nothing."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
