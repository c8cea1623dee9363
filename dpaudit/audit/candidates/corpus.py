"""Running a corpus of candidate implementations with known truth, and tabulating what dpaudit said.

A corpus is a folder with a ``manifest.toml``::

    [[candidate]]
    name = "gaussian_sigma_4pct_small"     # a unique slug
    kind = "gaussian"                      # the mechanism it implements
    module = "gaussian_candidates"         # importable from the manifest's folder
    callable = "sigma_4pct_small"
    spec = "specs/gaussian.toml"           # relative to the manifest
    truth = "leaky"                        # or "private"
    bug = "sigma 4% below the calibrated value"
    true_epsilon = 4.59                    # optional; a number or "inf"
    note = "..."                           # optional

A top-level ``include = ["independent/manifest.toml"]`` adds another corpus's candidates,
named ``independent/<name>``.

``dpaudit corpus tests/candidates/manifest.toml`` runs ``dpaudit check`` on each candidate
(for several seeds with ``--seeds``) and writes ``corpus.json`` and ``corpus.md``: one row
per candidate with its kind, bug, truth, verdicts, and the certified ε lower bound.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
import tomllib
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from dpaudit._bounded_json import loads_bounded
from dpaudit.audit.candidates.audit import audit_candidate
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.results import AuditReport
from dpaudit.audit.spec import load_spec
from dpaudit.errors import AuditInterrupted, DpAuditError, SpecError

__all__ = ["CorpusEntry", "CorpusRow", "check_one", "epsilon_or_lowest", "load_manifest", "run_corpus"]

_KEYS = {"name", "kind", "module", "callable", "spec", "truth", "bug", "true_epsilon", "note"}
_TRUTHS = ("private", "leaky")


@dataclass(frozen=True)
class CorpusEntry:
    """One candidate of a corpus with its truth label."""

    name: str
    kind: str
    module: str
    callable: str
    spec: Path
    truth: str
    bug: str
    true_epsilon: float | None = None
    note: str = ""
    folder: Path = Path()


@dataclass(frozen=True)
class CorpusRow:
    """What ``dpaudit check`` said about one candidate for one seed."""

    entry: CorpusEntry
    seed: int
    verdict: str
    epsilon_lower_bound: float | None
    claimed_epsilon: float | None
    reason: str
    elapsed_seconds: float
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def caught(self) -> bool:
        """Whether the candidate was reported ``violated``."""
        return self.verdict == "violated"

    def to_json(self) -> dict[str, Any]:
        """The row as JSON (non-finite numbers as strings)."""
        return {
            "name": self.entry.name,
            "kind": self.entry.kind,
            "truth": self.entry.truth,
            "bug": self.entry.bug,
            "true_epsilon": _number(self.entry.true_epsilon),
            "seed": self.seed,
            "verdict": self.verdict,
            "epsilon_lower_bound": _number(self.epsilon_lower_bound),
            "claimed_epsilon": _number(self.claimed_epsilon),
            "reason": self.reason,
            "seconds": round(self.elapsed_seconds, 1),
            "detail": self.detail,
        }


def _number(value: float | None) -> float | str | None:
    if value is None or math.isfinite(value):
        return value
    return "inf" if value > 0 else "-inf"


def load_manifest(path: str | Path, *, _seen: frozenset[Path] = frozenset()) -> list[CorpusEntry]:
    """Read a corpus manifest, with the manifests its ``include = [...]`` names.

    An included manifest's candidates are named ``<its folder>/<name>``; its paths are read
    relative to its own folder.

    Raises:
        SpecError: naming the entry and key that are wrong, or an include cycle.
    """
    manifest = Path(path).resolve()
    if manifest in _seen:
        raise SpecError("the manifest includes itself", path=str(path), key="include")
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"cannot read the manifest: {exc}", path=str(path)) from None
    if set(data) - {"candidate", "include"}:
        raise SpecError(f"unknown keys {sorted(set(data) - {'candidate', 'include'})}", path=str(path))
    items = data.get("candidate", [])
    includes = data.get("include", [])
    if not isinstance(includes, list) or not all(isinstance(item, str) for item in includes):
        raise SpecError("expected a list of manifest paths", path=str(path), key="include")
    if not isinstance(items, list) or not (items or includes):
        raise SpecError("expected [[candidate]] tables", path=str(path), key="candidate")
    entries = [_entry(manifest, item, index) for index, item in enumerate(items)]
    for included in includes:
        inner = load_manifest(manifest.parent / included, _seen=_seen | {manifest})
        folder = (manifest.parent / included).parent.name
        entries.extend(replace(entry, name=f"{folder}/{entry.name}") for entry in inner)
    names = [entry.name for entry in entries]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise SpecError(f"candidate names must be unique, repeated: {repeated}", path=str(path), key="candidate")
    return entries


def _entry(manifest: Path, item: Any, index: int) -> CorpusEntry:
    key = f"candidate[{index}]"
    if not isinstance(item, dict) or set(item) - _KEYS:
        unknown = sorted(set(item) - _KEYS) if isinstance(item, dict) else item
        raise SpecError(f"unknown keys {unknown}", path=str(manifest), key=key)
    for required in ("name", "kind", "module", "callable", "spec", "truth", "bug"):
        if not isinstance(item.get(required), str) or not item[required].strip():
            raise SpecError("expected a non-empty string", path=str(manifest), key=f"{key}.{required}")
    if item["truth"] not in _TRUTHS:
        raise SpecError(f"expected a truth in {_TRUTHS}", path=str(manifest), key=f"{key}.truth")
    true_epsilon = item.get("true_epsilon")
    if true_epsilon == "inf":
        true_epsilon = math.inf
    if true_epsilon is not None and (isinstance(true_epsilon, bool) or not isinstance(true_epsilon, int | float)):
        raise SpecError("expected a number or 'inf'", path=str(manifest), key=f"{key}.true_epsilon")
    return CorpusEntry(
        name=item["name"],
        kind=item["kind"],
        module=item["module"],
        callable=item["callable"],
        spec=manifest.parent / item["spec"],
        truth=item["truth"],
        bug=item["bug"],
        true_epsilon=None if true_epsilon is None else float(true_epsilon),
        note=str(item.get("note", "")),
        folder=manifest.parent,
    )


def _lower_bound(report: AuditReport) -> tuple[float | None, float | None]:
    """The largest certified ε lower bound over the report's obligations, and the claimed ε."""
    best: float | None = None
    claimed: float | None = None
    for claim in report.claims:
        for relation in claim.relations:
            for item in relation.obligations:
                for measurement in item.evidence.measurements:
                    if not measurement.quantity.startswith("epsilon at delta") or "lower bound" not in (
                        measurement.direction
                    ):
                        continue
                    try:
                        value = float(measurement.measured)
                        claimed = float(measurement.claimed)
                    except (TypeError, ValueError):
                        continue
                    best = value if best is None else max(best, value)
    return best, claimed


_REASON_CHARS = 200


def _reason(report: AuditReport) -> str:
    """Why the verdict: the first violated or failed obligation's summary; otherwise (a miss, for
    a leaky candidate) what the Monte Carlo check certified and what its budget could have seen."""
    items = [item for claim in report.claims for relation in claim.relations for item in relation.obligations]
    for item in items:
        if item.evidence.verdict.value in ("violated", "error"):
            return item.evidence.summary.splitlines()[0][:_REASON_CHARS]
    for item in items:
        if item.obligation.checker == "empirical_epsilon_lower_bound":
            text = item.evidence.summary.splitlines()[0]
            if len(text) <= _REASON_CHARS:
                return text
            head, _, power = text.partition("; power: ")
            shown = head[: _REASON_CHARS // 2] + " ..."
            return shown + (f" power: {power}"[: _REASON_CHARS // 2] if power else "")
    return ""


def _detail(report: AuditReport) -> dict[str, Any]:
    """What the Monte Carlo check did: the pairs (how many, how chosen), samples, the worst pair and
    event with its counts and bound, and the power statement (empty without such a check)."""
    items = [item for claim in report.claims for relation in claim.relations for item in relation.obligations]
    for item in items:
        if item.obligation.checker != "empirical_epsilon_lower_bound" or not item.evidence.details:
            continue
        details = item.evidence.details
        events = details.get("certified_events", [])
        best = max(events, key=lambda event: epsilon_or_lowest(event.get("epsilon_lower_bound")), default=None)
        _, _, power = item.evidence.summary.partition("; power: ")
        return {
            "pairs": item.evidence.domain,
            "samples_per_side": (item.evidence.budget or {}).get("samples_per_side"),
            "events_tried": details.get("events_tried"),
            "worst": None
            if best is None
            else {key: best[key] for key in _WORST_KEYS if key in best} | {"delta": _audited_delta(item.evidence)},
            "confidence": (item.evidence.budget or {}).get("confidence"),
            "power": power.split("; ")[0],
        }
    return {}


#: What a row keeps of its best certified event: enough to replay its bound from its counts
#: (:func:`dpaudit.report.counterexample_replay.replay_event`).
_WORST_KEYS = (
    "pair",
    "order",
    "event",
    "p_count",
    "q_count",
    "samples",
    "alpha",
    "p_lower",
    "q_upper",
    "epsilon_lower_bound",
    "confirmation",
)


def _audited_delta(evidence: Any) -> float | None:
    """The δ a Monte Carlo check audited (its measurement "epsilon at delta=δ")."""
    for measurement in evidence.measurements:
        if str(measurement.quantity).startswith("epsilon at delta="):
            return float(str(measurement.quantity).removeprefix("epsilon at delta=").split(" ")[0])
    return None


def epsilon_or_lowest(value: Any) -> float:
    """A recorded bound as a float; one that is missing or not a number sorts lowest."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return -math.inf


def run_corpus(
    entries: list[CorpusEntry],
    *,
    seeds: list[int],
    quick: bool,
    limits: CandidateLimits,
    only: set[str] | None = None,
    executor: Executor | None = None,
) -> list[CorpusRow]:
    """Check every candidate (or those named in ``only``) for every seed.

    Without an ``executor`` the checks run one after another in this process. With one (a local
    process pool, a Dask cluster: :func:`~dpaudit.checks.empirical.executors.make_executor`),
    each check is a task that runs it in a fresh process of its own
    (:mod:`dpaudit.audit.candidates.corpus_task`), as many at once as the executor has workers.
    The rows are the same either way (their times aside), in the same order: by candidate, then
    by seed.

    Raises:
        AuditInterrupted: on SIGINT or SIGTERM, with the rows of the checks that finished (``finished``).
    """
    runs = [(entry, seed) for entry in entries if only is None or entry.name in only for seed in seeds]
    rows: list[CorpusRow] = []
    futures: list[Future[CorpusRow]] = []
    try:
        if executor is None:
            for entry, seed in runs:
                rows.append(check_one(entry, seed, quick, limits))
            return rows
        futures = [executor.submit(check_in_own_process, entry, seed, quick, limits) for entry, seed in runs]
        return [future.result() for future in futures]
    except KeyboardInterrupt as exc:  # the checks that finished, in the run's order; the others are not started
        for future in futures:
            future.cancel()
        done = [f for f in futures if f.done() and not f.cancelled() and f.exception() is None]
        raise AuditInterrupted(AuditInterrupted.number_of(exc), rows + [f.result() for f in done]) from None


def check_one(entry: CorpusEntry, seed: int, quick: bool, limits: CandidateLimits) -> CorpusRow:
    """Check one candidate for one seed in this process; a candidate's failure is an ``error`` row.

    Raises:
        DpAuditError: when the manifest is wrong (its spec or candidate reference does not load).
    """
    claim = load_spec(entry.spec)  # a broken spec or candidate reference stops the run: the manifest is wrong
    ref = parse_candidate(f"{entry.module}:{entry.callable}", path=str(entry.folder))
    started = time.perf_counter()
    try:
        report = audit_candidate(claim, entry.spec, ref, limits=limits, seed=seed, quick=quick)
    except DpAuditError as exc:
        return CorpusRow(entry, seed, "error", None, None, str(exc)[:200], time.perf_counter() - started)
    if report.interrupted_signal is not None or not report.claims:  # Ctrl-C or SIGTERM: the run stops here
        raise AuditInterrupted(report.interrupted_signal or int(signal.SIGINT))
    verdict = report.claims[0].verdict.value
    bound, claimed = _lower_bound(report)
    elapsed = time.perf_counter() - started
    return CorpusRow(entry, seed, verdict, bound, claimed, _reason(report), elapsed, _detail(report))


def check_in_own_process(entry: CorpusEntry, seed: int, quick: bool, limits: CandidateLimits) -> CorpusRow:
    """Check ``entry`` for ``seed`` in a fresh ``python`` process (see :mod:`.corpus_task`); return its row.

    Raises:
        DpAuditError: when the process fails (its last lines of standard error are in the message).
    """
    request = {
        "entry": {key: str(value) if isinstance(value, Path) else value for key, value in asdict(entry).items()},
        "seed": seed,
        "quick": quick,
        "limits": asdict(limits),
    }
    done = subprocess.run(
        [sys.executable, "-m", "dpaudit.audit.candidates.corpus_task"],
        input=json.dumps(request).encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode > 128:  # the check was interrupted (Ctrl-C or SIGTERM): so is the run
        raise AuditInterrupted(done.returncode - 128)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.decode(errors="replace").splitlines()[-5:])
        raise DpAuditError(f"the corpus check of {entry.name} (seed {seed}) failed (exit {done.returncode}): {tail}")
    try:
        answer = loads_bounded(done.stdout)
    except ValueError:
        raise DpAuditError(f"the corpus check of {entry.name} (seed {seed}) answered no JSON row") from None
    if "error" in answer:
        raise DpAuditError(answer["error"])
    return CorpusRow(
        entry,
        seed,
        answer["verdict"],
        answer["epsilon_lower_bound"],
        answer["claimed_epsilon"],
        answer["reason"],
        answer["elapsed_seconds"],
        answer["detail"],
    )
