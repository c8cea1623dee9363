"""The runner: audits each claim under each of its relations and collects the evidence."""

from __future__ import annotations

import hashlib
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from dpaudit._version import __version__
from dpaudit.audit.environment import numeric_environment
from dpaudit.audit.memory_budget import memory_limit
from dpaudit.audit.plugins import found_by_a_fresh_process, get_checker
from dpaudit.audit.progress import ProgressReporter
from dpaudit.audit.rerun import rerun_certificate
from dpaudit.audit.time_budget import TimeBudgetExhausted, wall_time_limit
from dpaudit.checks.budget_limits import ceiling
from dpaudit.checks.empirical.executors import interrupts_deferred
from dpaudit.errors import AuditInterrupted, CheckerError, ClaimFailed, DpAuditError
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict, combine_verdicts, deciding, fails_policy
from dpaudit.privacy.relations import Relation
from dpaudit.rng import SeedRecord

__all__ = ["AuditReport", "ClaimResult", "ObligationResult", "RelationResult", "run_audit", "run_claim"]

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ObligationResult:
    """One obligation's evidence under one relation, with the seed that produced it."""

    obligation: Obligation
    evidence: Evidence
    seed: SeedRecord
    internal_error: bool = False
    known_finding: str | None = None
    finding_changed: str | None = None

    def fails(self, policy: str) -> bool:
        """Whether this result fails ``--fail-on policy``.

        An obligation with a known finding fails exactly when the finding is no longer
        reproduced: any verdict but ``violated``, or a measurement outside the finding's pin
        (``finding_changed``); otherwise the policy decides.
        """
        if self.known_finding is not None:
            return self.evidence.verdict is not Verdict.VIOLATED or self.finding_changed is not None
        return fails_policy(self.evidence.verdict, policy)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "obligation": self.obligation.to_json(),
            "evidence": self.evidence.to_json(),
            "seed": self.seed.to_json(),
            "internal_error": self.internal_error,
            "known_finding": self.known_finding,
            **({"finding_changed": self.finding_changed} if self.finding_changed is not None else {}),
        }


def deciding_obligations(items: tuple[ObligationResult, ...]) -> Sequence[ObligationResult]:
    """The obligations a relation's verdict is derived from (:func:`~dpaudit.kernel.verdicts.deciding`)."""
    return deciding(items, lambda item: bool(item.evidence.details.get("assumption_rejected")))


@dataclass(frozen=True)
class RelationResult:
    """A claim audited under one relation: its derived verdict and its obligations' results."""

    relation: Relation
    verdict: Verdict
    obligations: tuple[ObligationResult, ...]

    @property
    def only_known_findings(self) -> bool:
        """Whether the relation is violated only by obligations with known findings."""
        violated = [item for item in self.obligations if item.evidence.verdict is Verdict.VIOLATED]
        return bool(violated) and all(item.known_finding is not None for item in violated)

    def fails(self, policy: str) -> bool:
        """Whether any obligation that decides the verdict fails ``--fail-on policy`` (see
        :meth:`ObligationResult.fails` and :func:`deciding_obligations`)."""
        return any(item.fails(policy) for item in deciding_obligations(self.obligations))

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "relation": self.relation.name,
            "verdict": self.verdict.value,
            "only_known_findings": self.only_known_findings,
            "obligations": [item.to_json() for item in self.obligations],
        }


@dataclass(frozen=True)
class ClaimResult:
    """A claim with its results under every relation."""

    claim: Claim
    spec_path: str | None
    relations: tuple[RelationResult, ...]

    @property
    def verdict(self) -> Verdict:
        """The claim's overall verdict: the combination over its relations."""
        return combine_verdicts(result.verdict for result in self.relations)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "claim": self.claim.to_json(),
            "spec_path": self.spec_path,
            "verdict": self.verdict.value,
            "relations": [result.to_json() for result in self.relations],
        }


@dataclass(frozen=True)
class AuditReport:
    """The outcome of one audit run; its JSON form is the source of truth for every renderer."""

    claims: tuple[ClaimResult, ...]
    seed: int
    quick: bool
    command: str | None = None
    started_at: float | None = None
    elapsed_seconds: float | None = None
    environment: dict[str, str] = field(default_factory=dict)
    candidate: dict[str, Any] | None = None
    interrupted: str | None = None
    interrupted_signal: int | None = None

    def failed(self, policy: str) -> bool:
        """Whether any claim fails the ``--fail-on`` policy."""
        return any(relation.fails(policy) for result in self.claims for relation in result.relations)

    def failure_text(self, policy: str = "violated") -> str:
        """What fails ``policy``, in words: each failing (claim, relation), its failing obligations with
        their summaries, the distinguishing event and pair of a counterexample, and how to replay the run."""
        lines = []
        for result in self.claims:
            for relation in result.relations:
                if not relation.fails(policy):
                    continue
                lines.append(f"{result.claim.id} under {relation.relation.name}: {relation.verdict.value}")
                for item in relation.obligations:
                    if not item.fails(policy):
                        continue
                    lines.append(f"  {item.obligation.id}: {item.evidence.verdict.value}: {item.evidence.summary}")
                    example = item.evidence.counterexample or {}
                    for key in ("pair", "event", "neighbours", "replay"):
                        if key in example:
                            lines.append(f"    {key}: {str(example[key])[:300]}")
        if lines and self.command:
            lines.append(f"replay: {self.command} (seed {self.seed})")
        elif lines:
            lines.append(f"replay: the same call with seed={self.seed}, quick={self.quick}")
        return "\n".join(lines)

    def raise_for_failure(self, policy: str = "violated") -> None:
        """Raise :class:`~dpaudit.errors.ClaimFailed` when a claim fails ``policy`` (``violated``, the
        default, or ``inconclusive``: also fail on what could not be decided).

        Raises:
            ClaimFailed: naming what fails (:meth:`failure_text`).
        """
        if self.failed(policy):
            raise ClaimFailed(self.failure_text(policy))

    @property
    def internal_errors(self) -> int:
        """How many obligations ended in an unexpected exception (a dpaudit bug)."""
        return sum(
            item.internal_error
            for claim in self.claims
            for relation in claim.relations
            for item in relation.obligations
        )

    def verdict_counts(self) -> dict[str, int]:
        """Counts of claim verdicts per relation, keyed by verdict name, in strength order."""
        counts = {verdict.value: 0 for verdict in Verdict}
        for claim in self.claims:
            for relation in claim.relations:
                counts[relation.verdict.value] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON document (see README, "Report schema")."""
        document = {
            "schema_version": REPORT_SCHEMA_VERSION,
            "tool": {"name": "dpaudit", "version": __version__},
            "seed": self.seed,
            "quick": self.quick,
            "command": self.command,
            "environment": dict(self.environment),
            "started_at": self.started_at,
            "elapsed_seconds": self.elapsed_seconds,
            "summary": self.verdict_counts(),
            "claims": [result.to_json() for result in self.claims],
        }
        if self.candidate is not None:
            document["candidate"] = dict(self.candidate)
        if self.interrupted is not None:
            document["interrupted"] = self.interrupted
        return document


def _stable_key(*parts: str) -> int:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return int.from_bytes(digest[:4], "little")


def obligation_for_run(obligation: Obligation, quick: bool) -> Obligation:
    """The obligation as it runs: its ``quick`` table applied under ``--quick``, or, when it has
    none, its checker's documented quick caps (``CheckerEntry.quick_caps``; docs/checkers.md)."""
    run = obligation.for_run(quick=quick)
    if quick and not obligation.quick_params:
        try:
            checker = get_checker(obligation.checker)
        except CheckerError:
            return run  # an unknown checker is reported as the obligation's error when it runs
        run = replace(run, params=checker.quick_params(run.params))
    return run


def obligation_seed(seed: int, claim: Claim, relation: Relation, obligation: Obligation) -> np.random.SeedSequence:
    """The SeedSequence of one obligation run: depends only on the root seed and the three names,
    so adding, removing or reordering specs changes no other result."""
    key = (_stable_key(claim.id), _stable_key(relation.name), _stable_key(obligation.id))
    return np.random.SeedSequence(seed, spawn_key=key)


def _run_obligation(
    obligation: Obligation,
    claim: Claim,
    relation: Relation,
    seed: int,
    quick: bool,
    executor: Executor | None,
    candidate: Any,
    mechanism_factory: Callable[..., Any] | None = None,
    deadline: float | None = None,
) -> ObligationResult:
    sequence = obligation_seed(seed, claim, relation, obligation)
    run = obligation_for_run(obligation, quick)
    context = CheckContext(
        claim=claim,
        relation=relation,
        rng=np.random.default_rng(sequence),
        seed=sequence,
        quick=quick,
        executor=executor,
        candidate=candidate,
        mechanism_factory=mechanism_factory,
    )
    start = time.perf_counter()
    internal = False
    limits = [obligation.time_limit, None if deadline is None else deadline - time.monotonic()]
    remaining = min((limit for limit in limits if limit is not None), default=None)
    evidence: Evidence | None = None
    try:
        if remaining is not None and remaining <= 0:
            raise TimeBudgetExhausted
        with wall_time_limit(remaining), memory_limit(run.memory_limit):
            evidence = get_checker(run.checker).function(run, context)
    except TimeBudgetExhausted:
        if evidence is None:  # (a late alarm after the checker returned keeps its result)
            if hasattr(candidate, "close"):
                candidate.close()  # a call cut short leaves the worker mid-answer: start a fresh one
            if context.decided:  # cut short in an optional refinement of a result already decided
                decided = context.decided[-1]
                evidence = replace(decided, summary=f"{decided.summary} (refining it was cut short by the time budget)")
            else:
                evidence = _out_of_time(run, remaining, started=remaining is None or remaining > 0)
    except DpAuditError as exc:
        evidence = Evidence(
            verdict=Verdict.ERROR,
            summary=f"the check could not run: {exc}",
            domain="none (the check did not run)",
            method=run.checker,
            details={"error": f"{type(exc).__name__}: {exc}"},
        )
    except MemoryError:
        evidence = _out_of_memory(run)
    except (ArithmeticError, mpmath.libmp.NoConvergence) as exc:
        evidence = _out_of_range(run, exc)
    except Exception as exc:
        internal = True
        evidence = Evidence(
            verdict=Verdict.ERROR,
            summary=f"internal error in checker {run.checker!r}: {type(exc).__name__}: {exc}",
            domain="none (the check did not run)",
            method=run.checker,
            details={"traceback": traceback.format_exc()},
        )
    reference = candidate is None and mechanism_factory is None  # recheck can run it again from the spec
    if reference and evidence.verdict is Verdict.VERIFIED and evidence.certificate is None:
        evidence = replace(evidence, certificate=rerun_certificate(evidence))
    known = claim.known_finding(relation.name, obligation.id)
    changed = None
    if known is not None and known.pin is not None and evidence.verdict is Verdict.VIOLATED:
        changed = known.pin.for_run(quick).check(evidence.measurements)
    return ObligationResult(
        run,
        evidence.with_elapsed(time.perf_counter() - start),
        SeedRecord.of(sequence),
        internal,
        None if known is None else known.finding,
        changed,
    )


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


def _claim_pool(executor: Executor | None) -> ProcessPoolExecutor | None:
    """The executor, when it is a local process pool with at least two workers: obligations run in it."""
    if isinstance(executor, ProcessPoolExecutor) and getattr(executor, "_max_workers", 1) >= 2:
        return executor
    return None


def _claim_tasks(claim: Claim) -> list[_Cells]:
    """The claim's work cut into tasks that may run in parallel, each in the order :func:`run_claim` uses.

    An obligation is a task with all its relations (they often share work: the same worst pair
    under two relations); the obligations of a ``batch_by_relation`` checker under one relation
    are one task (one sweep decides them all).
    """
    groups: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for r in range(len(claim.relations)):
        for o, obligation in enumerate(claim.obligations):
            if _batched(obligation.checker):
                groups.setdefault(("relation", r, obligation.checker), []).append((r, o))
            else:
                groups.setdefault(("obligation", o), []).append((r, o))
    return [tuple(cells) for cells in groups.values()]


def _batched(checker: str) -> bool:
    """Whether ``checker`` decides a relation's obligations in one run (an unknown name: no; running
    its obligation gives the ``error``)."""
    try:
        return get_checker(checker).batch_by_relation
    except CheckerError:
        return False


def _task_cost(claim: Claim, cells: _Cells, quick: bool) -> float:
    """The task's cost hint: one per run of a checker (a batched checker runs once per relation)."""
    runs = set()
    for r, o in cells:
        checker = claim.obligations[o].checker
        runs.add((r, checker, None if _batched(checker) else o))
    return sum(_COST_HINTS.get(checker, (1.0, 0.1))[quick] for _, checker, _ in runs)


def _audit_tasks(claims: Sequence[Claim], quick: bool, workers: int) -> list[tuple[int, _Cells, float]]:
    """The audit's tasks ``(claim index, cells, cost hint)``, the costliest first (spec order on ties).

    Each claim's tasks (:func:`_claim_tasks`); then a claim's tasks of one (not batched) checker
    become one task, its cells in :func:`run_claim`'s order, where :func:`_merges` allows it. Such
    obligations share a worker's warm-up (the libraries the checker imports, its caches, e.g. the
    PLD compositions of the same laws), which a second worker would pay again.
    """
    tasks = [
        (c, cells, _task_cost(claim, cells, quick)) for c, claim in enumerate(claims) for cells in _claim_tasks(claim)
    ]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, (c, cells, _) in enumerate(tasks):
        checker = claims[c].obligations[cells[0][1]].checker  # a task of _claim_tasks has one checker
        groups.setdefault(("alone", index) if _batched(checker) else (c, checker), []).append(index)
    members = list(groups.values())
    decisions = _merges([[tasks[i][2] for i in group] for group in members], workers)
    planned: list[tuple[int, _Cells, float]] = []
    for indices, merged in zip(members, decisions, strict=True):
        if merged:
            cells = tuple(sorted(cell for i in indices for cell in tasks[i][1]))
            planned.append((tasks[indices[0]][0], cells, sum(tasks[i][2] for i in indices)))
        else:
            planned.extend(tasks[i] for i in indices)
    planned.sort(key=lambda task: (-task[2], task[0]))  # stable: spec order on ties
    return planned


def _merges(groups: Sequence[Sequence[float]], workers: int) -> list[bool]:
    """Which groups of task costs become one task each: a group whose summed cost is no more than
    the costliest task's, while the tasks still number one per worker or more (in order).

    The longest task and the total work are then unchanged, and with them the bound on a
    longest-first schedule (at most an even share plus the longest task) and whether the tasks
    fill the workers (:func:`_tasks_fill_the_workers`).
    """
    longest = max((cost for group in groups for cost in group), default=0.0)
    count = sum(len(group) for group in groups)
    decisions = []
    for group in groups:
        merged = len(group) > 1 and sum(group) <= longest and count - len(group) + 1 >= workers
        count -= len(group) - 1 if merged else 0
        decisions.append(merged)
    return decisions


def _tasks_fill_the_workers(costs: Sequence[float], workers: int) -> bool:
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
        _run_obligation(claim.obligations[o], claim, claim.relations[r], seed, quick, None, None, None, deadline)
        for r, o in cells
    )


def _claim_result(claim: Claim, path: str | None, results: dict[tuple[int, int], ObligationResult]) -> ClaimResult:
    """Assemble a claim's result from its (relation index, obligation index) cells."""
    relations = []
    for r, relation in enumerate(claim.relations):
        items = tuple(results[r, o] for o in range(len(claim.obligations)))
        verdict = combine_verdicts(item.evidence.verdict for item in deciding_obligations(items))
        relations.append(RelationResult(relation, verdict, items))
    return ClaimResult(claim, path, tuple(relations))


def _run_claims_in_pool(
    pool: ProcessPoolExecutor,
    claims: Sequence[tuple[Claim, str | None]],
    planned: Sequence[tuple[int, _Cells, float]],
    seed: int,
    quick: bool,
    deadline: float | None,
    progress: ProgressReporter | None,
    while_in_pool: Callable[[ClaimResult], None] | None,
) -> tuple[list[ClaimResult], int | None]:
    """Run the planned tasks (:func:`_audit_tasks`) on every worker of ``pool``; the results keep the claims' order.

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
                results[c] = _claim_result(claims[c][0], claims[c][1], cells_done[c])
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
        number = int(exc.signal_number if isinstance(exc, AuditInterrupted) else signal.SIGINT)
        return [results[index] for index in sorted(results)], number
    return [results[index] for index in range(len(claims))], None


def _lost_in_the_pool(claim: Claim, r: int, o: int, seed: int, quick: bool, exc: Exception) -> ObligationResult:
    """The ``error`` of an obligation whose pool task failed outside every checker: the rest of the
    audit goes on and its report is written."""
    obligation, relation = claim.obligations[o], claim.relations[r]
    known = claim.known_finding(relation.name, obligation.id)
    evidence = Evidence(
        verdict=Verdict.ERROR,
        summary=f"the worker process running this check failed: {type(exc).__name__}: {exc}",
        domain="none (the check did not finish)",
        method=obligation.checker,
        details={"error": f"{type(exc).__name__}: {exc}"},
    )
    return ObligationResult(
        obligation_for_run(obligation, quick),
        evidence,
        SeedRecord.of(obligation_seed(seed, claim, relation, obligation)),
        True,
        None if known is None else known.finding,
    )


def _out_of_memory(obligation: Obligation) -> Evidence:
    limits = [limit for limit in (obligation.memory_limit, ceiling("memory_mib")) if limit is not None]
    return Evidence(
        verdict=Verdict.INCONCLUSIVE,
        summary=f"budget: stopped when an allocation went past the memory ceiling ({min(limits):.0f} MiB); "
        "nothing is claimed from the partial work",
        domain="none (out of memory)",
        method=obligation.checker,
        details={"budget": "memory", "memory_mib": min(limits)},
    )


def _out_of_range(obligation: Obligation, exc: Exception) -> Evidence:
    """A computation left float64's range (an overflow, a division by zero) or a series did not
    converge: the spec's numbers are outside what the checker computes with. Nothing is claimed;
    the traceback stays in the report."""
    return Evidence(
        verdict=Verdict.INCONCLUSIVE,
        summary=f"precision: a computation of the check left the range of float64 or did not converge "
        f"({type(exc).__name__}: {exc}); "
        "the claim's or the mechanism's numbers are outside what this checker computes with, nothing is claimed",
        domain="none (out of numeric range)",
        method=obligation.checker,
        details={"precision": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()},
    )


def _out_of_time(obligation: Obligation, seconds: float | None, *, started: bool) -> Evidence:
    if started:
        summary = f"budget: stopped after {seconds:.3g} s, the time limit; nothing is claimed from the partial work"
    else:
        summary = "budget: not run, the audit's time limit was reached before it started"
    return Evidence(
        verdict=Verdict.INCONCLUSIVE,
        summary=summary,
        domain="none (out of time)",
        method=obligation.checker,
        details={"budget": "time", "time_limit_seconds": seconds if started else 0.0},
    )


def run_claim(
    claim: Claim,
    *,
    seed: int,
    quick: bool = False,
    spec_path: str | None = None,
    executor: Executor | None = None,
    candidate: Any = None,
    mechanism_factory: Callable[..., Any] | None = None,
    deadline: float | None = None,
    progress: ProgressReporter | None = None,
) -> ClaimResult:
    """Audit ``claim`` under each of its relations; every obligation gets its own seeded stream.

    ``mechanism_factory`` replaces the registered reference mechanism (to audit a mutant);
    ``deadline`` (``time.monotonic()``) ends every obligation still running or not started then.
    """
    results = {}
    for r, relation in enumerate(claim.relations):
        for o, obligation in enumerate(claim.obligations):
            if progress is not None:
                progress.obligation_started(claim.id, relation.name, obligation.id)
            results[r, o] = _run_obligation(
                obligation, claim, relation, seed, quick, executor, candidate, mechanism_factory, deadline
            )
            if progress is not None:
                progress.obligation_finished()
    return _claim_result(claim, spec_path, results)


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
    pool = _claim_pool(executor) if candidate is None and not local else None
    workers = getattr(pool, "_max_workers", 2)
    planned = _audit_tasks([claim for claim, _ in claims], quick, workers) if pool is not None else []
    if pool is not None and not _tasks_fill_the_workers([cost for *_, cost in planned], workers):
        pool = None
    if pool is not None:
        finished, interrupted_signal = _run_claims_in_pool(
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
