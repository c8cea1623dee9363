"""``dpaudit recheck audit.json``: replay the certificate of every ``verified`` obligation.

Each certified fact is checked four ways, without running the audited code:

1. it is bound to the claim: its ε and its bound are the claim's (ε, δ) or on the
   obligation's grid, every input named like a mechanism parameter has the claim's value, and a
   pair of inputs is one the claim admits (:mod:`dpaudit.report.fact_binding`);
2. its enclosure is ordered and supports the verdict (``high <= bound`` for ``<=``);
3. its route (:mod:`dpaudit.checks.certificates.routes`) re-derives the value by an
   independent computation, and the value lies in the enclosure up to the route's error;
4. the file's digest (a file without one fails) and the verdicts above each obligation follow (as
   ``dpaudit report``).

A ``verified`` obligation whose own measurement of ε or δ (exact or an upper bound) exceeds the claimed
value fails. The counterexample of every ``violated`` Monte Carlo obligation is replayed too (its event and
counts are certified ones and give the recorded bound: :mod:`dpaudit.report.counterexample_replay`),
so a candidate's report, which has no ``verified`` facts, is rechecked as well.

A fact of the route ``rerun`` (an exhaustive enumeration or a rigorous accountant, which
no second formula re-derives) is checked by running its obligation again from the claim's
spec with the recorded seed (:mod:`dpaudit.audit.rerun`): the verdict must be ``verified``
again, the re-run's enclosure of each margin must lie at or above 0 and meet the recorded
enclosure (both contain the true margin, whichever machine and library versions computed
them). ``rerun=False`` skips those runs and lists them.

A ``proven`` obligation (a symbolic proof: no certificate) is run again from its spec and must be
``proven`` again. A verified obligation of a reference audit without a certificate fails (dpaudit
gives every one a certificate or makes it ``consistent``); in a candidate's report, or with a route
dpaudit does not know, it is listed as such: the replay covers what it names and no more. Each
claim must hold exactly the obligations its spec states (:mod:`dpaudit.report.completeness`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath

from dpaudit._bounded_json import loads_bounded
from dpaudit._interrupts import interrupts_deferred
from dpaudit.audit.environment import environment_differences
from dpaudit.audit.rerun import RERUN_ROUTE, replayed_enclosure, rerun_obligation
from dpaudit.audit.scheduling import decided_by_relation
from dpaudit.checks.certificates.routes import MAX_RELATIVE_WIDTH, ROUTES, replay
from dpaudit.checks.empirical.executors import process_pool
from dpaudit.errors import DpAuditError, SpecError
from dpaudit.kernel.evidence import NOT_INSTALLED
from dpaudit.report.completeness import missing_obligations
from dpaudit.report.counterexample_replay import replay_counterexamples
from dpaudit.report.fact_binding import WORST_CASE_SEARCHED, bound_to_claim, searched_again
from dpaudit.report.folder import verify_report_folder
from dpaudit.report.integrity import check_shapes, verify_report
from dpaudit.report.json_report import with_digest

__all__ = ["RecheckResult", "recheck_report"]


@dataclass
class RecheckResult:
    """What the replay found."""

    replayed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    environment: list[str] = field(default_factory=list)
    no_route: list[str] = field(default_factory=list)
    uncertified: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        """The result for a terminal, failures first."""
        out = [f"env  {line} (the recording machine -> this one)" for line in self.environment]
        out += [f"FAIL {line}" for line in self.failures]
        out += [f"ok   {line}" for line in self.replayed]
        out += [f"note {line} (no independent route to replay it)" for line in self.no_route]
        out += [f"note {line}: verified without a certificate (not replayed)" for line in self.uncertified]
        out += [f"note {line} (unchecked: fails under --require-all)" for line in self.unchecked]
        out.append(
            f"{len(self.replayed)} facts replayed, {len(self.failures)} failures, {len(self.no_route)} facts "
            f"without a route, {len(self.uncertified)} verified obligations without a certificate"
        )
        return out


def _fraction(text: Any, what: str) -> Fraction:
    if not isinstance(text, str):
        raise ValueError(f"{what} is {text!r}, not a decimal string")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{what} {text!r} is not a decimal number") from None
    if not value.is_finite():
        raise ValueError(f"{what} {text!r} is not finite")
    return Fraction(value)


def _check_fact(
    fact: Any, claim: dict[str, Any], obligation: dict[str, Any], rerun: Callable[[], Any] | None
) -> tuple[str, str]:
    """(status, message): status "ok" (replayed), "no_route" or "fail"; raises nothing.

    ``rerun`` gives the evidence of the obligation run again (for ``rerun`` facts), or is None
    when re-runs are skipped.
    """
    if not isinstance(fact, dict):
        return "fail", "a fact is not a table"
    if fact.get("route") == RERUN_ROUTE:
        if fact.get("relation") != ">=" or fact.get("bound") not in ("0", "1"):
            return "fail", "a re-run fact must state a margin >= 0"
    else:
        problem = bound_to_claim(fact, claim, obligation)
        if problem:
            return "fail", problem
    try:
        low, high = (_fraction(v, "an enclosure end") for v in fact.get("enclosure", [None, None]))
        bound = _fraction(fact.get("bound"), "the bound")
    except (ValueError, TypeError) as exc:
        return "fail", str(exc)
    relation = fact.get("relation")
    if low > high:
        return "fail", f"its enclosure [{fact['enclosure'][0]}, {fact['enclosure'][1]}] is empty"
    if relation == "<=" and not high <= bound:
        return "fail", f"its upper end {fact['enclosure'][1]} exceeds the bound {fact['bound']}"
    if relation == ">=" and not low >= bound:
        return "fail", f"its lower end {fact['enclosure'][0]} is below the bound {fact['bound']}"
    if relation not in ("<=", ">="):
        return "fail", f"unknown relation {relation!r}"
    if fact.get("route") in ROUTES and high - low > Fraction(MAX_RELATIVE_WIDTH) * max(abs(low), abs(high)):
        return "fail", f"its enclosure is wider than {MAX_RELATIVE_WIDTH:g} relative, more than its route's precision"
    if fact.get("route") == RERUN_ROUTE:
        return _check_rerun(fact, low, high, rerun)
    if fact.get("route") not in ROUTES:
        return "no_route", f"{fact.get('route')}: enclosure supports the verdict"
    try:
        value, error = replay(str(fact.get("route")), fact.get("inputs", {}))
    except DpAuditError as exc:
        return "fail", f"replay failed: {exc}"
    with mpmath.workdps(60):
        lo, hi = mpmath.mpf(low.numerator) / low.denominator, mpmath.mpf(high.numerator) / high.denominator
        if not lo - error <= value <= hi + error:
            return "fail", (
                f"the independent route gives {mpmath.nstr(value, 20)} (error <= {mpmath.nstr(error, 3)}), "
                f"outside the certified [{fact['enclosure'][0]}, {fact['enclosure'][1]}]"
            )
    return "ok", f"{fact.get('route')} = {mpmath.nstr(value, 15)} in the enclosure, <= {fact['bound']}"


def _check_rerun(
    fact: dict[str, Any], low: Fraction, high: Fraction, rerun: Callable[[], Any] | None
) -> tuple[str, str]:
    quantity = str(fact.get("quantity"))
    evidence = _ran_again(rerun, "verified", f"{quantity} in [{fact['enclosure'][0]}, {fact['enclosure'][1]}]")
    if isinstance(evidence, tuple):
        return evidence
    enclosure = replayed_enclosure(evidence, quantity)
    if enclosure is None:
        return "fail", f"run again, the check states no enclosure of {quantity!r}"
    again_low, again_high = enclosure
    again = f"[{_text(again_low)}, {_text(again_high)}]"
    if again_low < 0:
        return "fail", f"run again, {quantity} lies in {again}, which does not support the verdict"
    if again_low > high or again_high < low:
        return "fail", (
            f"run again, {quantity} lies in {again}, which does not meet the certified "
            f"[{fact['enclosure'][0]}, {fact['enclosure'][1]}]"
        )
    # both hold the true margin, so the recorded one cannot reach far above the re-run's (a widened margin)
    if high > again_high + 2 * (again_high - again_low) + abs(again_high) / 10**20:
        return (
            "fail",
            f"run again, {quantity} lies in {again}; the certified upper end {fact['enclosure'][1]} is above it",
        )
    return "ok", f"rerun: verified again, {quantity} in {again}, meeting the recorded enclosure"


def _text(value: Fraction) -> str:
    return f"{float(value):.15g}"


def recheck_report(
    path: str | Path,
    *,
    rerun: bool = True,
    progress: Callable[[str], None] | None = None,
    claim_id: str | None = None,
    workers: int = 1,
) -> RecheckResult:
    """Replay every certificate of the report at ``path`` (an audit.json, or a report folder whose
    files must then name one run). ``progress`` hears one line per certified obligation when its
    replay ends (and a line at least every 10 s on a pool). ``claim_id`` rechecks that claim
    only; ``workers`` > 1 replays obligations on that many processes (the lines of the result
    keep the report's order).

    Raises:
        SpecError: when the file cannot be read as a dpaudit report, or names no claim ``claim_id``.
    """
    result = RecheckResult()
    if Path(path).is_dir():  # a report folder: its files must come from one run
        try:
            verify_report_folder(path)
        except SpecError as exc:
            result.failures.append(f"folder: {exc}")
        path = Path(path) / "audit.json"
    location = str(path)
    try:
        document = loads_bounded(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SpecError(f"not a readable JSON file: {exc}", path=location) from None
    if not isinstance(document, dict) or not isinstance(document.get("claims"), list):
        raise SpecError("not a dpaudit report (no claims list)", path=location, key="claims")
    recorded = document.get("environment")
    if isinstance(recorded, dict):
        result.environment = environment_differences(recorded)
    try:
        check_shapes(document, location)
    except SpecError as exc:  # malformed: nothing below can be read as dpaudit wrote it
        result.failures.append(f"integrity: {exc}")
        return result
    if "digest" not in document:
        result.failures.append(
            "integrity: no digest: every audit.json dpaudit writes has one, so this file was edited or not written "
            "by dpaudit"
        )
    try:
        recomputed = with_digest(document)["digest"] if "digest" in document else None
        verify_report(document, location, recomputed_digest=recomputed)
    except SpecError as exc:
        result.failures.append(f"integrity: {exc}")
    units = _certified_units(document, result, claim_id)
    if claim_id is not None and not units and not any(_claim_id(entry) == claim_id for entry in document["claims"]):
        raise SpecError(f"no claim {claim_id!r} in the report", path=location, key="claims")
    for status, message in missing_obligations(document, Path(path), claim_id):
        (result.failures if status == "fail" else result.unchecked).append(message)
    if document.get("interrupted"):
        result.unchecked.append(f"the run was interrupted: {document['interrupted']}")
    if not isinstance(document.get("candidate"), dict):  # dpaudit certifies every verdict verified on a reference
        result.failures += [f"{where}: verified without a certificate" for where in result.uncertified]
        result.uncertified.clear()
    quick = bool(document.get("quick"))
    for unit, outcomes in zip(units, _checked_units(units, Path(path), quick, rerun, workers, progress), strict=True):
        for index, (status, message) in enumerate(outcomes, start=unit.first):
            target = {"ok": result.replayed, "no_route": result.no_route, "fail": result.failures}[status]
            target.append(f"{unit.where} {'search' if unit.search else f'fact {index}'}: {message}")
    for status, where, message in replay_counterexamples(document):
        if claim_id is None or where.split("/")[0] == claim_id:
            (result.replayed if status == "ok" else result.failures).append(f"{where}: {message}")
    return result


def _claim_id(entry: Any) -> Any:
    return entry.get("claim", {}).get("id") if isinstance(entry, dict) else None


@dataclass(frozen=True)
class _Unit:
    """Facts ``first`` to ``first + count`` of one verified obligation's certificate, checked together."""

    where: str
    entry: dict[str, Any]
    relation: dict[str, Any]
    item: dict[str, Any]
    first: int
    count: int
    rerun: bool = False
    search: bool = False


#: Facts replayed by their routes together at most (a re-run's facts stay together: one run).
FACTS_PER_UNIT = 8


def _certified_units(document: dict[str, Any], result: RecheckResult, claim_id: str | None) -> list[_Unit]:
    """The verified obligations with certificates to replay (in the report's order); the others
    are noted in ``result`` (uncertified, or a failure when a certificate sits on another verdict)."""
    units: list[_Unit] = []
    for entry in document["claims"]:
        if claim_id is not None and _claim_id(entry) != claim_id:
            continue
        claim = entry.get("claim", {}) if isinstance(entry, dict) else {}
        for relation in entry.get("relations", []) if isinstance(entry, dict) else []:
            for item in relation.get("obligations", []):
                where = f"{claim.get('id')}/{relation.get('relation')}/{item.get('obligation', {}).get('id')}"
                evidence = item.get("evidence", {})
                certificate = evidence.get("certificate")
                if evidence.get("verdict") == "proven" and certificate is None:  # symbolic: it must prove again
                    units.append(_Unit(where, entry, relation, item, 0, 0, rerun=True))
                    continue
                if evidence.get("verdict") != "verified":
                    if certificate is not None:
                        result.failures.append(f"{where}: a certificate on a {evidence.get('verdict')!r} verdict")
                    continue
                if not isinstance(certificate, dict):
                    result.uncertified.append(where)
                    continue
                facts = certificate.get("facts")
                if not isinstance(facts, list) or not facts:
                    result.failures.append(f"{where}: a certificate without facts")
                    continue
                if item.get("obligation", {}).get("checker") in WORST_CASE_SEARCHED:
                    units.append(_Unit(where, entry, relation, item, 0, len(facts), rerun=True, search=True))
                if any(isinstance(fact, dict) and fact.get("route") == RERUN_ROUTE for fact in facts):
                    units.append(_Unit(where, entry, relation, item, 0, len(facts), rerun=True))
                    continue
                for first in range(0, len(facts), FACTS_PER_UNIT):
                    count = min(FACTS_PER_UNIT, len(facts) - first)
                    units.append(_Unit(where, entry, relation, item, first, count))
    return units


def _check_unit(unit: _Unit, path: Path, quick: bool, rerun: bool) -> list[tuple[str, str]]:
    """The unit's facts checked (its obligation run again at most once); a ``proven`` obligation is run again."""
    run_again = _once(unit.entry, unit.relation, unit.item, path, quick) if rerun else None
    if unit.count == 0:
        return [_proven_again(run_again)]
    facts = unit.item["evidence"]["certificate"]["facts"][unit.first : unit.first + unit.count]
    if unit.search:
        evidence = _ran_again(run_again, "verified", "the search that found the worst cases is not run again")
        return [evidence if isinstance(evidence, tuple) else searched_again(facts, evidence)]
    obligation = unit.item.get("obligation", {})
    return [_check_fact(fact, unit.entry.get("claim", {}), obligation, run_again) for fact in facts]


def _proven_again(run_again: Callable[[], Any] | None) -> tuple[str, str]:
    """A ``proven`` obligation (a symbolic proof, no certificate) run again from its spec: proven again, or a
    failure (a verdict edited to ``proven``, a spec changed since the run)."""
    evidence = _ran_again(run_again, "proven", "proven, not run again")
    return evidence if isinstance(evidence, tuple) else ("ok", "proven again when run again from its spec")


def _ran_again(rerun: Callable[[], Any] | None, verdict: str, skipped: str) -> Any:
    """The evidence of an obligation run again, or the (status, message) that ends its check: the re-run
    skipped (``--no-rerun``; ``skipped`` says what is not checked), failed, or gave another verdict."""
    if rerun is None:
        return "no_route", f"rerun skipped: {skipped}"
    try:
        evidence = rerun()
    except DpAuditError as exc:
        return "fail", f"could not run it again: {exc}"
    if evidence.details.get(NOT_INSTALLED):  # an optional library this machine lacks: not a mismatch
        return "no_route", f"not run again here: {evidence.summary}"
    if evidence.verdict.value != verdict:
        return "fail", f"run again, the check says {evidence.verdict.value} (the report: {verdict}): {evidence.summary}"
    return evidence


def _check_units(units: list[_Unit], path: Path, quick: bool, rerun: bool) -> list[list[tuple[str, str]]]:
    """The units' facts checked one unit after the other, in one process."""
    return [_check_unit(unit, path, quick, rerun) for unit in units]


def _tasks(units: list[_Unit], rerun: bool) -> list[list[int]]:
    """The units cut into the tasks of a pool, in the units' order: the re-runs of one claim's obligations
    under one relation by a checker that decides them all in one sweep (``batch_by_relation``) are one task,
    so that the sweep runs once, as in the audit (on two processes it would run twice); any other unit is a
    task of its own (so is a unit whose claim id or relation is not a string: an edited report's, which the
    re-run then refuses)."""
    tasks: dict[tuple[Any, ...], list[int]] = {}
    for index, unit in enumerate(units):
        key: tuple[Any, ...] = (index,)
        shared = (_claim_id(unit.entry), unit.relation.get("relation"), unit.item.get("obligation", {}).get("checker"))
        if rerun and unit.rerun and all(isinstance(name, str) for name in shared) and decided_by_relation(shared[2]):
            key = shared
        tasks.setdefault(key, []).append(index)
    return list(tasks.values())


def _checked_units(
    units: list[_Unit], path: Path, quick: bool, rerun: bool, workers: int, progress: Callable[[str], None] | None
) -> list[list[tuple[str, str]]]:
    """The outcomes of every unit, in the units' order: on ``workers`` processes when more than one
    (re-runs and route replays take seconds each), with a progress line per finished unit and at
    least every :data:`PROGRESS_SECONDS` while they run."""
    outcomes: dict[int, list[tuple[str, str]]] = {}

    def finished(index: int, checked: list[tuple[str, str]]) -> None:
        outcomes[index] = checked
        if progress is not None:
            failed = sum(status == "fail" for status, _ in checked)
            state = f"{failed} failed" if failed else "ok"
            unit = units[index]
            facts = f"fact {unit.first}" if unit.count == 1 else f"facts {unit.first}-{unit.first + unit.count - 1}"
            facts = "its search run again" if unit.search else facts
            progress(f"[{len(outcomes)}/{len(units)}] {unit.where}, {facts}: {state}")

    if workers <= 1 or len(units) <= 1:
        for index, unit in enumerate(units):
            finished(index, _check_unit(unit, path, quick, rerun))
    else:
        tasks = _tasks(units, rerun)
        with process_pool(workers) as pool:
            with interrupts_deferred():
                futures = {
                    pool.submit(_check_units, [units[index] for index in task], path, quick, rerun): number
                    for number, task in enumerate(tasks)
                }
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=PROGRESS_SECONDS, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=futures.__getitem__):
                    for index, checked in zip(tasks[futures[future]], future.result(), strict=True):
                        finished(index, checked)
                if not done and progress is not None:
                    progress(f"still rechecking: {len(outcomes)} of {len(units)} parts done")
    return [outcomes[index] for index in range(len(units))]


#: The longest a recheck on the pool stays silent (seconds).
PROGRESS_SECONDS = 10.0


def _once(entry: dict[str, Any], relation: dict[str, Any], item: dict[str, Any], path: Path, quick: bool) -> Any:
    """A function running the obligation again on its first call and remembering the evidence."""
    memo: list[Any] = []

    def run() -> Any:
        if not memo:
            memo.append(rerun_obligation(entry, relation, item, path, quick=quick))
        return memo[0]

    return run
