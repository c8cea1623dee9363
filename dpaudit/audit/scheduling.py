"""Scheduling an audit on a process pool: claims cut into tasks of (relation, obligation) cells,
the longest first, merged until they fill the workers; an interrupt stops the workers at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from typing import Any

from dpaudit._interrupts import interrupts_deferred
from dpaudit.audit.execution import claim_result, error_evidence, obligation_seed, run_obligation
from dpaudit.audit.plugins import get_checker, obligation_for_run
from dpaudit.audit.progress import ProgressReporter
from dpaudit.audit.results import ClaimResult, ObligationResult
from dpaudit.errors import AuditInterrupted, UnknownName
from dpaudit.kernel.claims import Claim
from dpaudit.rng import SeedRecord

__all__ = [
    "audit_tasks",
    "claim_pool",
    "claim_tasks",
    "decided_by_relation",
    "merges",
    "run_claims_in_pool",
    "task_cost",
    "tasks_fill_the_workers",
]


#: Typical seconds of one run of a checker (an obligation under one relation; a batched checker: all
#: its obligations under one relation), (full budgets, quick budgets), measured on the built-in specs
#: on a 2-core machine: the scheduler starts the longest tasks first. Others: (1, 0.1).
_COST_HINTS = {
    "balle_exhaustive_sensitivity": (15.0, 0.2),
    "approx_dp_pld": (8.0, 1.0),
    "peer_accountant": (2.0, 1.0),
    "moments_tail_bound": (2.0, 0.6),
    "lemma1_exact_profile": (1.0, 0.1),
    "balle_smooth_sensitivity_slack": (2.0, 0.1),
    "balle_symbolic_closed_form": (1.5, 0.1),
    "balle_lemma4_smoothness": (0.3, 0.03),
    "empirical_epsilon_lower_bound": (1.0, 0.4),
    "dirichlet_concentration": (1.0, 0.3),
}


#: A task: one claim's (relation index, obligation index) cells, run in this order in one worker.
_Cells = tuple[tuple[int, int], ...]


def claim_pool(executor: Executor | None) -> ProcessPoolExecutor | None:
    """The executor, when it is a local process pool with at least two workers: obligations run in it."""
    if isinstance(executor, ProcessPoolExecutor) and getattr(executor, "_max_workers", 1) >= 2:
        return executor
    return None


def claim_tasks(claim: Claim) -> list[_Cells]:
    """The claim's work cut into tasks that may run in parallel, each in the order :func:`run_claim` uses.

    An obligation is a task with all its relations (they often share work: the same worst pair
    under two relations); the obligations of a ``batch_by_relation`` checker under one relation
    are one task (one sweep decides them all).
    """
    groups: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for r in range(len(claim.relations)):
        for o, obligation in enumerate(claim.obligations):
            if decided_by_relation(obligation.checker):
                groups.setdefault(("relation", r, obligation.checker), []).append((r, o))
            else:
                groups.setdefault(("obligation", o), []).append((r, o))
    return [tuple(cells) for cells in groups.values()]


def decided_by_relation(checker: str) -> bool:
    """Whether ``checker`` decides a relation's obligations in one run (an unknown name: no; running
    its obligation gives the ``error``)."""
    try:
        return get_checker(checker).batch_by_relation
    except UnknownName:
        return False


def task_cost(claim: Claim, cells: _Cells, quick: bool) -> float:
    """The task's cost hint: one per run of a checker (a batched checker runs once per relation)."""
    runs = set()
    for r, o in cells:
        checker = claim.obligations[o].checker
        runs.add((r, checker, None if decided_by_relation(checker) else o))
    return sum(_COST_HINTS.get(checker, (1.0, 0.1))[quick] for _, checker, _ in runs)


def audit_tasks(claims: Sequence[Claim], quick: bool, workers: int) -> list[tuple[int, _Cells, float]]:
    """The audit's tasks ``(claim index, cells, cost hint)``, the costliest first (spec order on ties).

    Each claim's tasks (:func:`claim_tasks`); then a claim's tasks of one (not batched) checker
    become one task, its cells in :func:`run_claim`'s order, where :func:`merges` allows it. Such
    obligations share a worker's warm-up (the libraries the checker imports, its caches, e.g. the
    PLD compositions of the same laws), which a second worker would pay again.
    """
    tasks = [
        (c, cells, task_cost(claim, cells, quick)) for c, claim in enumerate(claims) for cells in claim_tasks(claim)
    ]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, (c, cells, _) in enumerate(tasks):
        checker = claims[c].obligations[cells[0][1]].checker  # a task of claim_tasks has one checker
        groups.setdefault(("alone", index) if decided_by_relation(checker) else (c, checker), []).append(index)
    members = list(groups.values())
    decisions = merges([[tasks[i][2] for i in group] for group in members], workers)
    planned: list[tuple[int, _Cells, float]] = []
    for indices, merged in zip(members, decisions, strict=True):
        if merged:
            cells = tuple(sorted(cell for i in indices for cell in tasks[i][1]))
            planned.append((tasks[indices[0]][0], cells, sum(tasks[i][2] for i in indices)))
        else:
            planned.extend(tasks[i] for i in indices)
    planned.sort(key=lambda task: (-task[2], task[0]))  # stable: spec order on ties
    return planned


def merges(groups: Sequence[Sequence[float]], workers: int) -> list[bool]:
    """Which groups of task costs become one task each: a group whose summed cost is no more than
    the costliest task's, while the tasks still number one per worker or more (in order).

    The longest task and the total work are then unchanged, and with them the bound on a
    longest-first schedule (at most an even share plus the longest task) and whether the tasks
    fill the workers (:func:`tasks_fill_the_workers`).
    """
    longest = max((cost for group in groups for cost in group), default=0.0)
    count = sum(len(group) for group in groups)
    decisions = []
    for group in groups:
        merged = len(group) > 1 and sum(group) <= longest and count - len(group) + 1 >= workers
        count -= len(group) - 1 if merged else 0
        decisions.append(merged)
    return decisions


def tasks_fill_the_workers(costs: Sequence[float], workers: int) -> bool:
    """Whether running whole tasks side by side keeps ``workers`` busy: at least one task each, and
    no task longer than an even share of the work. Otherwise the tasks run one after another, each
    spreading its Monte Carlo over every worker (one long sampling task alone would use one core).
    """
    return len(costs) >= workers and max(costs, default=0.0) <= sum(costs) / workers


def _cells_task(
    claim: Claim, cells: _Cells, seed: int, quick: bool, deadline: float | None
) -> tuple[ObligationResult, ...]:
    """One task in a pool worker: its Monte Carlo runs in the worker (the result is the same bytes)."""
    return tuple(
        run_obligation(claim.obligations[o], claim, claim.relations[r], seed, quick, None, None, None, deadline)
        for r, o in cells
    )


def run_claims_in_pool(
    pool: ProcessPoolExecutor,
    claims: Sequence[tuple[Claim, str | None]],
    planned: Sequence[tuple[int, _Cells, float]],
    seed: int,
    quick: bool,
    deadline: float | None,
    progress: ProgressReporter | None,
    while_in_pool: Callable[[ClaimResult], None] | None,
) -> tuple[list[ClaimResult], int | None]:
    """Run the planned tasks (:func:`audit_tasks`) on every worker of ``pool``; the results keep the claims' order.

    A claim is finished when its last task is. On SIGINT/SIGTERM the workers are killed at once
    (a task can run for minutes) and the claims finished so far are returned with the signal number.
    """
    tasks = [(c, cells) for c, cells, _ in planned]
    cells_done: dict[int, dict[tuple[int, int], ObligationResult]] = {c: {} for c in range(len(claims))}
    left = {c: sum(1 for task_claim, _ in tasks if task_claim == c) for c in range(len(claims))}
    results: dict[int, ClaimResult] = {}
    try:
        with interrupts_deferred():  # a Ctrl-C lands after the workers started are known (and stopped below)
            futures = {
                pool.submit(_cells_task, claims[c][0], cells, seed, quick, deadline): (c, cells) for c, cells in tasks
            }
        if progress is not None:
            workers = getattr(pool, "_max_workers", 2)
            progress.obligation_started(f"{len(tasks)} tasks of {len(claims)} claims on {workers} workers", "", "")
        for future in as_completed(futures):
            c, cells = futures[future]
            try:
                outcome = future.result()
            except Exception as exc:  # the worker died (killed by the system, a crash) or its result was lost
                outcome = tuple(_lost_in_the_pool(claims[c][0], r, o, seed, quick, exc) for r, o in cells)
            cells_done[c].update(zip(cells, outcome, strict=True))
            if progress is not None:
                for _ in cells:
                    progress.obligation_finished()
            left[c] -= 1
            if left[c] == 0:
                results[c] = claim_result(claims[c][0], claims[c][1], cells_done[c])
                if while_in_pool is not None:
                    while_in_pool(results[c])
                if progress is not None:
                    items = [item for relation in results[c].relations for item in relation.obligations]
                    seconds = sum(item.evidence.elapsed_seconds or 0.0 for item in items)
                    progress.claim_finished(len(results), len(claims), results[c], seconds)
    except KeyboardInterrupt as exc:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        number = AuditInterrupted.number_of(exc)
        return [results[index] for index in sorted(results)], number
    return [results[index] for index in range(len(claims))], None


def _lost_in_the_pool(claim: Claim, r: int, o: int, seed: int, quick: bool, exc: Exception) -> ObligationResult:
    """The ``error`` of an obligation whose pool task failed outside every checker: the rest of the
    audit goes on and its report is written."""
    obligation, relation = claim.obligations[o], claim.relations[r]
    known = claim.known_finding(relation.name, obligation.id)
    evidence = error_evidence(
        obligation.checker,
        f"the worker process running this check failed: {type(exc).__name__}: {exc}",
        "none (the check did not finish)",
        exc,
    )
    return ObligationResult(
        obligation_for_run(obligation, quick),
        evidence,
        SeedRecord.of(obligation_seed(seed, claim, relation, obligation)),
        True,
        None if known is None else known.finding,
    )
