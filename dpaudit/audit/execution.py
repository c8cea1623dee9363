"""Running one obligation: its budget (quick caps, time and memory), its seed, the checker, and
what a failure of the check becomes (error, inconclusive budget or precision); one claim run
obligation by obligation."""

from __future__ import annotations

import hashlib
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any

import mpmath
import numpy as np

from dpaudit.audit.memory_budget import ChildEnded, memory_limit, run_in_child
from dpaudit.audit.plugins import get_checker, obligation_context, obligation_for_run
from dpaudit.audit.progress import ProgressReporter
from dpaudit.audit.rerun import with_rerun_certificate
from dpaudit.audit.results import ClaimResult, ObligationResult, RelationResult, deciding_obligations
from dpaudit.audit.time_budget import Alarm, TimeBudgetExhausted, wall_time_limit
from dpaudit.checks.budget_limits import ceiling
from dpaudit.errors import DpAuditError
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict, combine_verdicts
from dpaudit.privacy.guarantees import RenyiDP, ZeroConcentratedDP
from dpaudit.privacy.relations import Relation
from dpaudit.rng import SeedRecord

__all__ = ["claim_result", "error_evidence", "obligation_seed", "run_claim", "run_obligation"]

#: How long past its own time limit the parent waits for a check running in a child process.
_CHILD_GRACE_SECONDS = 30.0


def _stable_key(*parts: str) -> int:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return int.from_bytes(digest[:4], "little")


def obligation_seed(seed: int, claim: Claim, relation: Relation, obligation: Obligation) -> np.random.SeedSequence:
    """The SeedSequence of one obligation run: depends only on the root seed and the three names,
    so adding, removing or reordering specs changes no other result."""
    key = (_stable_key(claim.id), _stable_key(relation.name), _stable_key(obligation.id))
    return np.random.SeedSequence(seed, spawn_key=key)


def run_obligation(
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
    context = obligation_context(
        claim,
        obligation,
        relation,
        sequence,
        quick,
        executor=executor,
        candidate=candidate,
        mechanism_factory=mechanism_factory,
    )
    start = time.perf_counter()
    limits = [obligation.time_limit, None if deadline is None else deadline - time.monotonic()]
    remaining = min((limit for limit in limits if limit is not None), default=None)
    if run.memory_limit is None or candidate is not None:
        evidence, internal = _checked(run, context, remaining)
    else:
        evidence, internal = _checked_in_child(run, replace(context, executor=None), remaining)
    evidence = _through_implied_point(evidence, context.claim)
    reference = candidate is None and mechanism_factory is None  # recheck can run it again from the spec
    if reference and evidence.verdict is Verdict.VERIFIED and evidence.certificate is None:
        evidence = with_rerun_certificate(evidence)
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


def _checked(run: Obligation, context: CheckContext, remaining: float | None) -> tuple[Evidence, bool]:
    """The checker's evidence on ``run`` within its time (``remaining`` seconds) and memory budgets, and
    whether a failure was an internal error of the checker."""
    evidence: Evidence | None = None
    alarm = Alarm()
    try:
        if remaining is not None and remaining <= 0:
            raise TimeBudgetExhausted
        # the timer is the inner context: disarmed before the memory limit is restored, never during it
        with memory_limit(run.memory_limit), wall_time_limit(remaining) as alarm:
            evidence = get_checker(run.checker).function(run, context)
    except TimeBudgetExhausted:
        if evidence is None:  # (a late alarm after the checker returned keeps its result)
            evidence = _cut_short(run, context, context.candidate, remaining)
    except Exception as exc:
        if alarm.fired:  # the alarm interrupted a library that turned it into an error of its own
            evidence = _cut_short(run, context, context.candidate, remaining)
            evidence = replace(evidence, details={**evidence.details, "interrupted_as": traceback.format_exc()})
        else:
            return _failed(run, exc)
    return evidence, False


def _checked_in_child(run: Obligation, context: CheckContext, remaining: float | None) -> tuple[Evidence, bool]:
    """:func:`_checked` under a spec's memory ceiling, in a child process: a library that crashes when the
    ceiling refuses an allocation (rather than raising MemoryError) then ends the child, not the audit,
    and the obligation is ``inconclusive`` (budget: memory). Parallel work runs in the child's own process
    (results do not depend on the executor)."""
    wait = None if remaining is None else max(remaining, 0.0) + _CHILD_GRACE_SECONDS
    outcome = run_in_child(lambda: _checked(run, context, remaining), wait_seconds=wait)
    if isinstance(outcome, ChildEnded):
        if outcome.overdue:
            return _out_of_time(run, remaining, started=True), False
        return _out_of_memory(run, ended=outcome), False
    return outcome


def _through_implied_point(evidence: Evidence, claim: Claim) -> Evidence:
    """A claim stated as ρ-zCDP or as an RDP curve is audited at the one (ε(δ), δ) point it implies
    (``implied_approx_dp``): a check can refute it there, but holding at that point does not prove the
    claim, so ``verified`` (or ``proven``) becomes ``consistent``, saying why."""
    guarantee = claim.guarantee
    if evidence.verdict not in (Verdict.VERIFIED, Verdict.PROVEN) or not isinstance(
        guarantee, ZeroConcentratedDP | RenyiDP
    ):
        return evidence
    implied = guarantee.implied_approx_dp()
    reason = (
        f"{evidence.verdict.value} at the (epsilon, delta) = ({implied.epsilon:.6g}, {implied.delta:.3g}) point the "
        f"{guarantee.kind} claim implies, which does not prove the {guarantee.kind} claim itself"
    )
    return replace(
        evidence,
        verdict=Verdict.CONSISTENT,
        summary=f"{evidence.summary} (consistent: {reason})",
        details={**evidence.details, "implied_point": reason},
        certificate=None,
    )


def _out_of_memory(obligation: Obligation, ended: ChildEnded | None = None) -> Evidence:
    """``inconclusive`` (budget: memory): an allocation went past the ceiling, or the child process that
    ran the check under a spec's ceiling ``ended`` without an answer."""
    limit = min(limit for limit in (obligation.memory_limit, ceiling("memory_mib")) if limit is not None)
    details: dict[str, Any] = {"budget": "memory", "memory_mib": limit}
    if ended is None:
        stopped = f"stopped when an allocation went past the memory ceiling ({limit:.0f} MiB)"
    else:
        stopped = f"the process running the check under the memory ceiling ({limit:.0f} MiB) {ended.describe()}"
        details["child_process"] = ended.describe()
    return Evidence(
        verdict=Verdict.INCONCLUSIVE,
        summary=f"budget: {stopped}; nothing is claimed from the partial work",
        domain="none (out of memory)",
        method=obligation.checker,
        details=details,
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


def _cut_short(run: Obligation, context: CheckContext, candidate: Any, remaining: float | None) -> Evidence:
    """The evidence of an obligation the time budget ended: what it had decided, or ``inconclusive`` (budget)."""
    if hasattr(candidate, "close"):
        candidate.close()  # a call cut short leaves the worker mid-answer: start a fresh one
    if context.decided:  # cut short in an optional refinement of a result already decided
        decided = context.decided[-1]
        return replace(decided, summary=f"{decided.summary} (refining it was cut short by the time budget)")
    return _out_of_time(run, remaining, started=remaining is None or remaining > 0)


def error_evidence(checker: str, summary: str, domain: str, exc: Exception) -> Evidence:
    """The ``error`` of a check by ``checker`` that ``exc`` stopped (a DpAuditError it raised, or the failure
    of the worker running it), with ``summary`` and the ``domain`` it covers; the exception is in the details."""
    return Evidence(
        verdict=Verdict.ERROR,
        summary=summary,
        domain=domain,
        method=checker,
        details={"error": f"{type(exc).__name__}: {exc}"},
    )


def _failed(run: Obligation, exc: Exception) -> tuple[Evidence, bool]:
    """The evidence of a check that raised ``exc``, and whether it is an internal error of the checker."""
    if isinstance(exc, DpAuditError):
        return error_evidence(
            run.checker, f"the check could not run: {exc}", "none (the check did not run)", exc
        ), False
    if isinstance(exc, MemoryError) or (run.memory_limit is not None and _allocation_refused_silently(exc)):
        return _out_of_memory(run), False
    if isinstance(exc, ArithmeticError | mpmath.libmp.NoConvergence):
        return _out_of_range(run, exc), False
    evidence = Evidence(
        verdict=Verdict.ERROR,
        summary=f"internal error in checker {run.checker!r}: {type(exc).__name__}: {exc}",
        domain="none (the check did not run)",
        method=run.checker,
        details={"traceback": traceback.format_exc()},
    )
    return evidence, True


def _allocation_refused_silently(exc: Exception) -> bool:
    """Whether ``exc`` is a numpy ufunc whose buffer allocation the memory ceiling refused without its setting
    MemoryError (numpy 2.x, seen on ``noise += value`` under a 1 MiB ceiling): a SystemError "returned NULL
    without setting an exception". Read as the memory budget only while a ceiling is in force."""
    return isinstance(exc, SystemError) and "returned NULL without setting an exception" in str(exc)


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


def claim_result(claim: Claim, path: str | None, results: dict[tuple[int, int], ObligationResult]) -> ClaimResult:
    """Assemble a claim's result from its (relation index, obligation index) cells."""
    relations = []
    for r, relation in enumerate(claim.relations):
        items = tuple(results[r, o] for o in range(len(claim.obligations)))
        verdict = combine_verdicts(item.evidence.verdict for item in deciding_obligations(items))
        relations.append(RelationResult(relation, verdict, items))
    return ClaimResult(claim, path, tuple(relations))


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
            results[r, o] = run_obligation(
                obligation, claim, relation, seed, quick, executor, candidate, mechanism_factory, deadline
            )
            if progress is not None:
                progress.obligation_finished()
    return claim_result(claim, spec_path, results)
