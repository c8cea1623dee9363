"""Auditing a candidate implementation against a spec: ``dpaudit check SPEC --candidate module:callable``."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from dpaudit.audit.candidates.implied import implied_obligations
from dpaudit.audit.candidates.kinds import CandidateMechanism, candidate_kind_for
from dpaudit.audit.candidates.pace import DEFAULT_TIME_LIMIT, check_pace
from dpaudit.audit.candidates.refs import CandidateLimits, CandidateRef
from dpaudit.audit.candidates.user_inputs import check_user_pairs, refuse_equal_inputs, user_pairs
from dpaudit.audit.plugins import get_checker
from dpaudit.audit.results import AuditReport
from dpaudit.audit.runner import audit_report, run_audit
from dpaudit.checks.budget_limits import run_time_limit
from dpaudit.errors import AuditInterrupted, CandidateLoadError, InvalidArgument, SpecError
from dpaudit.kernel.claims import Claim
from dpaudit.mechanisms.views import AuditPairsView

__all__ = ["audit_candidate", "candidate_obligations"]

log = logging.getLogger("dpaudit")


def candidate_obligations(claim: Claim, path: str) -> Claim:
    """The claim restricted to the obligations whose checkers audit candidates (black box), plus
    the checks every candidate audit runs (:mod:`dpaudit.audit.candidates.implied`).

    Raises:
        SpecError: if none of the claim's obligations can audit a candidate.
    """
    kept = tuple(o for o in claim.obligations if get_checker(o.checker).audits_candidates)
    if not kept:
        raise SpecError(
            "no obligation of this spec audits a candidate (white-box checks need the reference); "
            "see specs/examples/ for candidate specs",
            path=path,
            key="obligations",
        )
    try:
        added = implied_obligations(claim, kept)
    except InvalidArgument as exc:
        raise SpecError(str(exc), path=path, key="obligations") from None
    return replace(claim, obligations=kept + added).at_each_delta()


def _given_pairs(claim: Claim) -> list[tuple[Any, Any, str]]:
    """The pairs the spec's obligations give (each once), as the kind's inputs."""
    domain = candidate_kind_for(claim.mechanism.name).input_domain
    found: dict[str, tuple[Any, Any, str]] = {}
    for obligation in claim.obligations:
        for index, pair in enumerate(obligation.params.get("pairs") or []):
            label = str(pair.get("label", f"pairs[{index}]"))
            found.setdefault(
                repr((pair["first"], pair["second"])),
                (domain.from_plain(pair["first"]), domain.from_plain(pair["second"]), label),
            )
    return list(found.values())


def _make_user_pairs(claim: Claim, mechanism: CandidateMechanism, path: str, seed: int) -> None:
    """Run the user's input functions (if the spec names any) and check the spec's pairs with the
    user's distance function; a kind without a reference needs pairs from one or the other.

    Raises:
        SpecError: for pairs that are not neighbours, or none at all for a kind without a reference.
    """
    given = _given_pairs(claim)
    try:
        refuse_equal_inputs(given, mechanism.kind.input_domain)
        if claim.candidate_inputs.functions:
            mechanism.proposed_pairs = user_pairs(claim, mechanism, given, seed)
            for relation in claim.relations:
                check_user_pairs(claim, mechanism, given, relation)
    except SpecError as exc:
        raise SpecError(str(exc), path=path, key="candidate") from None
    kind = mechanism.kind
    if (
        not kind.has_reference
        and not kind.offers(AuditPairsView)
        and not given
        and not any(mechanism.proposed_pairs.values())
    ):
        if claim.candidate_inputs.datasets is not None:
            reason = (
                f"the inputs {claim.candidate_inputs.datasets} made could not be paired under "
                f"{[relation.name for relation in claim.relations]}: dpaudit's own neighbours need lists of records "
                "(under replace_one, with two distinct records among them); name a neighbour function "
                "(neighbours = 'module:function') in the [candidate] table, or give pairs"
            )
        else:
            reason = (
                f"the {kind.name} kind has no reference to propose inputs: give pairs in the obligations' params, "
                "or a dataset generator (datasets = 'module:function') in the [candidate] table"
            )
        raise SpecError(reason, path=path, key="candidate")


def _first_input(claim: Claim, mechanism: CandidateMechanism) -> Any:
    """An input the candidate is audited on (to time it): the spec's first pair's, else the user's."""
    given = _given_pairs(claim)
    if given:
        return given[0][0]
    proposed = [pair for pairs in mechanism.proposed_pairs.values() for pair in pairs]
    return proposed[0][0] if proposed else None


def audit_candidate(
    claim: Claim,
    spec_path: str | Path,
    candidate: CandidateRef,
    *,
    limits: CandidateLimits,
    seed: int,
    quick: bool,
    command: str | None = None,
    time_limit: float | None = None,
    progress: Any = None,
) -> AuditReport:
    """Run the black-box obligations of ``claim`` on ``candidate`` in an isolated worker.

    A candidate that crashes, hangs past the limit or returns bad output makes the
    affected obligations ``error`` with the reason (see the report); what it printed is kept
    in the report's ``candidate.captured_output``. ``time_limit`` (default
    :data:`~dpaudit.audit.candidates.pace.DEFAULT_TIME_LIMIT`) bounds the whole audit.

    Raises:
        CandidateLoadError: before any check runs, when the candidate cannot be imported or
            its signature does not accept the documented call.
        CandidateError: before any check runs, when the candidate is too slow for the time
            limit (:func:`~dpaudit.audit.candidates.pace.check_pace`).
    """
    kind = candidate_kind_for(claim.mechanism.name)
    restricted = candidate_obligations(claim, str(spec_path))
    white_box = _white_box_left_out(claim)
    started, start = time.time(), time.perf_counter()
    with CandidateMechanism(candidate, limits, kind, claim.mechanism.params, claim.candidate_call) as mechanism:
        try:
            limit = _prepare(claim, restricted, mechanism, str(spec_path), seed, quick, time_limit, str(candidate))
        except KeyboardInterrupt as exc:  # before any check: a report that says so, as an audit writes one
            elapsed = time.perf_counter() - start
            report = audit_report(
                [restricted],
                [],
                AuditInterrupted.number_of(exc),
                seed=seed,
                quick=quick,
                command=command,
                started_at=started,
                elapsed_seconds=elapsed,
            )
        else:
            report = run_audit(
                [(restricted, str(spec_path))],
                seed=seed,
                quick=quick,
                command=command,
                candidate=mechanism,
                time_limit=limit,
                progress=progress,
            )
    if kind.candidate is None:
        raise CandidateLoadError(f"mechanism {kind.name!r} has no candidate signature")
    warning = refused_inputs_warning(report)
    if warning is not None:
        log.warning("%s", warning)
    return replace(
        report,
        candidate={
            "ref": str(candidate),
            "kind": kind.name,
            "signature": kind.candidate.text,
            "params": mechanism.call_params,
            **({"input_functions": claim.candidate_inputs.functions} if claim.candidate_inputs.functions else {}),
            **({"categories": dict(sorted(mechanism.category_labels.items()))} if mechanism.category_labels else {}),
            "captured_output": "\n".join(mechanism.captured_output),
            **({"isolation": list(mechanism.fences)} if mechanism.fences else {}),
            **({"white_box_left_out": white_box} if white_box else {}),
        },
    )


def refused_inputs_warning(report: AuditReport) -> str | None:
    """What to warn of when the candidate raised on inputs the search tried: those inputs are left out of the
    audit (an implementation may refuse what is outside its domain), so a leak that shows only there is not
    seen; None when it raised on none."""
    refused = sum(
        int(item.evidence.details.get("searched_inputs_refused", 0))
        for claim in report.claims
        for relation in claim.relations
        for item in relation.obligations
    )
    if not refused:
        return None
    return (
        f"the candidate raised on {refused} input(s) the search tried; they are left out of the audit, so a leak "
        "that shows only on them is not seen (a crash on a valid input is a bug of its own; the report's domain "
        "names them)"
    )


def _white_box_left_out(claim: Claim) -> list[str]:
    """The ids of the claim's white-box obligations, which a candidate audit leaves out (a warning names them)."""
    white_box = [o.id for o in claim.obligations if not get_checker(o.checker).audits_candidates]
    if white_box:
        log.warning(
            "white-box obligation(s) %s read the reference, not your candidate: dpaudit check leaves them out "
            "(dpaudit audit SPEC runs them)",
            ", ".join(white_box),
        )
    return white_box


def _prepare(
    claim: Claim,
    restricted: Claim,
    mechanism: CandidateMechanism,
    spec_path: str,
    seed: int,
    quick: bool,
    time_limit: float | None,
    ref: str,
) -> float | None:
    """Start the candidate's worker, make and check the user's pairs, and refuse a candidate too slow for the
    run's time limit (:func:`~dpaudit.audit.candidates.pace.check_pace`); return that limit."""
    mechanism.start()
    _make_user_pairs(claim, mechanism, spec_path, seed)
    limit = run_time_limit(DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
    probe = _first_input(claim, mechanism)
    if probe is not None:
        check_pace(restricted, mechanism, probe, quick=quick, time_limit=limit, ref=ref)
    return limit
