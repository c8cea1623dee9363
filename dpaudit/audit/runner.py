"""The runner: audits each claim under each of its relations and collects the evidence
(:mod:`~dpaudit.audit.execution` runs one obligation, :mod:`~dpaudit.audit.scheduling` spreads
claims over a pool, :mod:`~dpaudit.audit.results` holds what they produce)."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from dpaudit.audit.environment import numeric_environment
from dpaudit.audit.execution import run_claim
from dpaudit.audit.plugins import found_by_a_fresh_process
from dpaudit.audit.progress import ProgressReporter
from dpaudit.audit.results import AuditReport, ClaimResult
from dpaudit.audit.scheduling import audit_tasks, claim_pool, run_claims_in_pool, tasks_fill_the_workers
from dpaudit.errors import AuditInterrupted
from dpaudit.kernel.claims import Claim

__all__ = ["run_audit", "spec_display_path"]


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
    deadline = None if time_limit is None else time.monotonic() + time_limit
    if progress is not None:
        progress.start(sum(len(claim.relations) * len(claim.obligations) for claim, _ in claims))
    finished: list[ClaimResult] = []
    interrupted = None
    interrupted_signal = None
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
        if interrupted_signal is not None:
            interrupted = (
                f"signal {interrupted_signal}: {len(claims) - len(finished)} of {len(claims)} claim(s) not finished, "
                "not in this report"
            )
        claims = []  # every claim ran (or was interrupted) in the pool
    for claim, path in claims:
        claim_start = time.perf_counter()
        try:
            finished.append(
                run_claim(
                    claim,
                    seed=seed,
                    quick=quick,
                    spec_path=path,
                    executor=executor,
                    candidate=candidate,
                    deadline=deadline,
                    progress=progress,
                )
            )
            if progress is not None:
                progress.claim_finished(len(finished), len(claims), finished[-1], time.perf_counter() - claim_start)
        except KeyboardInterrupt as exc:
            interrupted_signal = int(exc.signal_number if isinstance(exc, AuditInterrupted) else signal.SIGINT)
            left = len(claims) - len(finished)
            interrupted = (
                f"signal {interrupted_signal}: {left} of {len(claims)} claim(s) not finished, not in this report"
            )
            break
    report = AuditReport(
        claims=tuple(finished),
        interrupted=interrupted,
        interrupted_signal=interrupted_signal,
        seed=seed,
        quick=quick,
        command=command,
        started_at=started,
        elapsed_seconds=time.perf_counter() - start,
        environment=numeric_environment(),
    )
    if progress is not None:
        progress.audit_finished(report.verdict_counts(), report.elapsed_seconds or 0.0, interrupted=interrupted)
        progress.close()
    return report


def spec_display_path(path: Path) -> str:
    """A path for reports: relative to the working directory when below it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path.resolve())
