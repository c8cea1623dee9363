"""The ``dpaudit corpus`` command (its text in ``dpaudit corpus --help`` is :data:`DESCRIPTION`)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence

from dpaudit._validation import check_integer
from dpaudit.cli.common import EXIT_OK, Command, add_out_option, add_quick_option, log, parse_call_seconds
from dpaudit.errors import AuditInterrupted, InvalidArgument

#: What ``dpaudit corpus --help`` says above its options.
DESCRIPTION = """\
Run `dpaudit check` on every candidate of a corpus manifest (see dpaudit.audit.candidates.corpus) for each
seed, and write corpus.json and corpus.md (kind, bug, truth, verdicts, certified epsilon lower bound) to
--out. Exit 0."""


def add_arguments(corpus: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit corpus`` to its parser."""
    corpus.add_argument("manifest", help="the corpus manifest, e.g. tests/candidates/manifest.toml")
    add_quick_option(corpus)
    corpus.add_argument("--seeds", type=int, default=1, help="check each candidate with N seeds (default 1)")
    corpus.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the first seed (default 0): seeds K..K+N-1, so a long run can be split into parts",
    )
    corpus.add_argument("--only", nargs="+", metavar="NAME", help="check only these candidates")
    corpus.add_argument(
        "--timeout", type=parse_call_seconds, default=120.0, help="seconds per candidate call (default 120)"
    )
    corpus.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="check this many candidates at once on a local process pool, each in a process of its own "
        "(default 1: one after another in this process); the tables do not change",
    )
    corpus.add_argument(
        "--executor",
        metavar="SPEC",
        help="run the checks on this executor instead: 'process:N' (a local pool) or 'dask://HOST:PORT' (a Dask "
        "scheduler; every worker needs dpaudit and the manifest's folder at the same path; docs/executors.md); "
        "each check runs in a process of its own there; the tables do not change",
    )
    add_out_option(corpus, "dpaudit-corpus")


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit corpus`` and return its exit code."""
    from dpaudit.audit.candidates.corpus import load_manifest, run_corpus
    from dpaudit.audit.candidates.corpus_tables import write_corpus_tables
    from dpaudit.audit.candidates.refs import CandidateLimits
    from dpaudit.checks.empirical.executors import make_executor, stop_at_once

    first = check_integer("first-seed", arguments.first_seed, low=0, high=2**31)
    seeds = list(range(first, first + check_integer("seeds", arguments.seeds, low=1, high=1000)))
    jobs = check_integer("jobs", arguments.jobs, low=1, high=64)
    if arguments.executor is not None and jobs > 1:
        raise InvalidArgument("give --jobs or --executor, not both (--executor process:N is --jobs N)")
    executor_spec = arguments.executor or (f"process:{jobs}" if jobs > 1 else None)
    entries = load_manifest(arguments.manifest)
    only = set(arguments.only) if arguments.only else None
    planned = sum(only is None or entry.name in only for entry in entries) * len(seeds)
    command, interrupted = "dpaudit " + shlex.join(argv), None
    executor = None if executor_spec is None else make_executor(executor_spec)
    try:
        rows = run_corpus(
            entries,
            seeds=seeds,
            quick=arguments.quick,
            limits=CandidateLimits(timeout_seconds=arguments.timeout),
            only=only,
            executor=executor,
        )
    except AuditInterrupted as exc:  # the checks that finished are written; the running ones are stopped
        rows, interrupted = exc.finished, exc.signal_number
        if executor is not None:
            stop_at_once(executor)
            executor = None
    finally:
        if executor is not None:
            executor.shutdown()
    said = (
        None
        if interrupted is None
        else f"signal {interrupted}: {planned - len(rows)} of {planned} check(s) not finished"
    )
    json_path, markdown_path = write_corpus_tables(rows, arguments.out, command=command, interrupted=said)
    print(markdown_path.read_text(encoding="utf-8"))
    print(f"tables: {json_path}, {markdown_path}")
    if interrupted is not None:
        log.error("interrupted (%s); the tables hold the checks that finished", said)
        return 128 + interrupted
    return EXIT_OK


COMMAND = Command(
    "corpus",
    add_arguments,
    run,
    help="check a corpus of candidates with known truth and tabulate the verdicts",
    description=DESCRIPTION,
)
