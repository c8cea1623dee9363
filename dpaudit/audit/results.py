"""What an audit produced: the result of each obligation, relation and claim, and the report
(its verdict counts, its failures under a policy, its canonical JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dpaudit._version import __version__
from dpaudit.errors import ClaimFailed
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, named_event
from dpaudit.kernel.verdicts import Verdict, combine_verdicts, deciding, fails_policy, set_aside
from dpaudit.privacy.relations import Relation
from dpaudit.rng import SeedRecord

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "AuditReport",
    "ClaimResult",
    "ObligationResult",
    "RelationResult",
    "deciding_obligations",
]


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
    return deciding(items, lambda item: set_aside(item.evidence.details))


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

    def failed(self, policy: str = "violated") -> bool:
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
                    for key in ("pair", "shrunk", "event", "neighbours", "replay"):
                        if key in example:
                            shown = _shrunk_text(example[key]) if key == "shrunk" else str(example[key])
                            shown = named_event(example) or shown if key == "event" else shown
                            lines.append(f"    {key}: {shown[:300]}")
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


def _shrunk_text(shrunk: Any) -> str:
    """A shrunk pair's note (:func:`dpaudit.checks.empirical.epsilon_lower_bound`) in words: which pair the
    neighbours and the replay show, and that the verdict rests on the pair before it."""
    if not isinstance(shrunk, dict):
        return str(shrunk)
    bound = shrunk.get("epsilon_lower_bound")
    certified = f", certifying epsilon >= {bound:.4g} on its own draws" if isinstance(bound, float) else ""
    return (
        f"{shrunk.get('pair')} ({shrunk.get('from_records')} -> {shrunk.get('records')} records{certified}); "
        "the neighbours and the replay below are this smaller pair's, the verdict rests on the pair above"
    )
