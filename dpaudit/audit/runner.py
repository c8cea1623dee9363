"""The runner: audits each claim under each of its relations and collects the evidence
(:mod:`~dpaudit.audit.execution` runs one obligation, :mod:`~dpaudit.audit.scheduling` spreads
claims over a pool, :mod:`~dpaudit.audit.results` holds what they produce)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.audit.environment import numeric_environment
from dpaudit.audit.execution import run_claim
from dpaudit.audit.plugins import found_by_a_fresh_process
from dpaudit.audit.progress import ProgressReporter
from dpaudit.audit.results import AuditReport, ClaimResult
from dpaudit.audit.scheduling import audit_tasks, claim_pool, run_claims_in_pool, tasks_fill_the_workers
from dpaudit.audit.spec import builtin_spec_dir
from dpaudit.checks.budget_limits import run_time_limit
from dpaudit.errors import AuditInterrupted
from dpaudit.kernel.claims import Claim

__all__ = ["audit_report", "run_audit", "spec_display_path"]


@dataclass(frozen=True)
class _ClaimRun:
    """How each claim runs in this process (see :func:`run_audit`)."""

    seed: int
    quick: bool
    executor: Executor | None
    candidate: Any
    deadline: float | None
    progress: ProgressReporter | None


def _run_claims_here(
    claims: Sequence[tuple[Claim, str | None]], run: _ClaimRun
) -> tuple[list[ClaimResult], int | None]:
    """Run the claims one after the other in this process: their results, and the signal that
    interrupted them (SIGINT or SIGTERM) or None."""
    finished: list[ClaimResult] = []
    for claim, path in claims:
        claim_start = time.perf_counter()
        try:
            finished.append(
                run_claim(
                    claim,
                    seed=run.seed,
                    quick=run.quick,
                    spec_path=path,
                    executor=run.executor,
                    candidate=run.candidate,
                    deadline=run.deadline,
                    progress=run.progress,
                )
            )
            if run.progress is not None:
                run.progress.claim_finished(len(finished), len(claims), finished[-1], time.perf_counter() - claim_start)
        except KeyboardInterrupt as exc:
            return finished, AuditInterrupted.number_of(exc)
    return finished, None


def run_audit(
    claims: Sequence[tuple[Claim, str | None]],
    *,
    seed: int,
    quick: bool = False,
    command: str | None = None,
    executor: Executor | None = None,
    candidate: Any = None,
    progress: ProgressReporter | None = None,
    time_limit: float | None = None,
    while_in_pool: Callable[[ClaimResult], None] | None = None,
) -> AuditReport:
    """Audit every ``(claim, spec_path)`` and return the report.

    ``progress`` (:class:`~dpaudit.audit.progress.ProgressReporter`) hears when each obligation
    starts and ends and when each claim finishes (the CLI prints lines, a bar or JSON).
    On SIGINT (KeyboardInterrupt) or SIGTERM (:class:`AuditInterrupted`) the report holds the
    claims finished so far and says ``interrupted`` (which signal, how many claims were left).
    Past ``time_limit`` seconds the obligations still running or not started are ``inconclusive``
    (budget); every claim is still in the report. When the obligations run in pool workers,
    ``while_in_pool`` is called (in the calling thread) with each claim's result as soon as its
    last task ends, while this process only waits for the others: e.g. to start drawing the
    claim's figures. It is not called when they run in this process (serially, or only their
    Monte Carlo spread out), where it would compete with them for the interpreter and for their
    memory ceilings.
    """
    started = time.time()
    start = time.perf_counter()
    time_limit = run_time_limit(time_limit)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    if progress is not None:
        progress.start(sum(len(claim.relations) * len(claim.obligations) for claim, _ in claims))
    local = any(not found_by_a_fresh_process(item.checker) for claim, _ in claims for item in claim.obligations)
    pool = claim_pool(executor) if candidate is None and not local else None
    workers = getattr(pool, "_max_workers", 2)
    planned = audit_tasks([claim for claim, _ in claims], quick, workers) if pool is not None else []
    if pool is not None and not tasks_fill_the_workers([cost for *_, cost in planned], workers):
        pool = None
    if pool is not None:
        finished, interrupted_signal = run_claims_in_pool(
            pool, claims, planned, seed, quick, deadline, progress, while_in_pool
        )
    else:
        run = _ClaimRun(seed, quick, executor, candidate, deadline, progress)
        finished, interrupted_signal = _run_claims_here(claims, run)
    report = audit_report(
        [claim for claim, _ in claims],
        finished,
        interrupted_signal,
        seed=seed,
        quick=quick,
        command=command,
        started_at=started,
        elapsed_seconds=time.perf_counter() - start,
    )
    if progress is not None:
        progress.audit_finished(report.verdict_counts(), report.elapsed_seconds or 0.0, interrupted=report.interrupted)
        progress.close()
    return report


def audit_report(
    claims: Sequence[Claim],
    finished: Sequence[ClaimResult],
    interrupted_signal: int | None,
    *,
    seed: int,
    quick: bool,
    command: str | None,
    started_at: float,
    elapsed_seconds: float,
) -> AuditReport:
    """The report of a run of ``claims`` of which ``finished`` finished; when a signal interrupted it, the
    report says so, naming the claims it does not hold."""
    interrupted = None
    if interrupted_signal is not None:
        done = {result.claim.id for result in finished}
        left = [claim.id for claim in claims if claim.id not in done]
        interrupted = (
            f"signal {interrupted_signal}: {len(left)} of {len(claims)} claim(s) not finished, not in this report: "
            + ", ".join(left)
        )
    return AuditReport(
        claims=tuple(finished),
        interrupted=interrupted,
        interrupted_signal=interrupted_signal,
        seed=seed,
        quick=quick,
        command=command,
        started_at=started_at,
        elapsed_seconds=elapsed_seconds,
        environment=numeric_environment(),
    )


def spec_display_path(path: Path) -> str:
    """A path for reports: a built-in spec's as ``specs/...`` wherever dpaudit runs from (the same report bytes
    from any working directory), another relative to the working directory when below it, else absolute."""
    resolved = path.resolve()
    builtin = builtin_spec_dir()
    if resolved.is_relative_to(builtin):
        return str(resolved.relative_to(builtin.parent))
    try:
        return str(resolved.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(resolved)
