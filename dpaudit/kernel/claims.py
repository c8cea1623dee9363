"""Claims and obligations: a paper's privacy statement as data."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dpaudit.errors import InvalidArgument
from dpaudit.privacy.guarantees import Guarantee
from dpaudit.privacy.relations import Relation

__all__ = ["Claim", "KnownFinding", "MechanismSpec", "Obligation", "Source"]


@dataclass(frozen=True)
class Source:
    """Where a statement is made: paper, location (theorem, lemma, equation) and page."""

    paper: str
    location: str
    page: str | None = None
    note: str | None = None

    def __str__(self) -> str:
        text = f"{self.paper}, {self.location}"
        if self.page:
            text += f", p. {self.page}"
        return text

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {"paper": self.paper, "location": self.location, "page": self.page, "note": self.note}


@dataclass(frozen=True)
class MechanismSpec:
    """The mechanism a claim is about: a registered name and its public parameters."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {"name": self.name, "params": dict(self.params)}


@dataclass(frozen=True)
class Obligation:
    """One statement a claim rests on, with the checker that discharges it.

    Attributes:
        id: unique within its claim.
        statement: the statement in words, as the source states it.
        checker: the registered name of the checker.
        params: checker-specific parameters (the domain it is checked on, budgets).
        source: where the statement stands, when it differs from the claim's.
        quick_params: overrides of ``params`` for ``--quick`` runs (smaller domains, budgets).
    """

    id: str
    statement: str
    checker: str
    params: dict[str, Any] = field(default_factory=dict)
    source: Source | None = None
    quick_params: dict[str, Any] = field(default_factory=dict)

    def for_run(self, *, quick: bool) -> Obligation:
        """The obligation with ``quick_params`` applied when ``quick`` is set."""
        if not quick or not self.quick_params:
            return self
        return replace(self, params={**self.params, **self.quick_params}, quick_params={})

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "id": self.id,
            "statement": self.statement,
            "checker": self.checker,
            "params": dict(self.params),
            "quick_params": dict(self.quick_params),
            "source": None if self.source is None else self.source.to_json(),
        }


@dataclass(frozen=True)
class KnownFinding:
    """A known failure of a paper's statement: these obligations are expected violated under ``relation``."""

    relation: str
    obligations: tuple[str, ...]
    finding: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "obligations", tuple(self.obligations))
        if not self.obligations:
            raise InvalidArgument("known finding: expected at least one obligation id")
        if not isinstance(self.finding, str) or not self.finding.strip():
            raise InvalidArgument("known finding: expected a non-empty description of the finding")

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {"relation": self.relation, "obligations": list(self.obligations), "finding": self.finding}


@dataclass(frozen=True)
class Claim:
    """A privacy claim: mechanism + guarantee + relations + source + obligations.

    A claim is audited separately under every relation in ``relations``.

    ``known_findings`` lists known failures of the paper's statement: under a relation,
    these obligations are expected ``violated``. They are still reported ``violated``;
    the CI policy treats them as expected and treats their *absence* (any other verdict
    of a listed obligation) as a failure, so a finding can neither hide another
    violation nor silently vanish.
    """

    id: str
    title: str
    mechanism: MechanismSpec
    guarantee: Guarantee
    relations: tuple[Relation, ...]
    source: Source
    obligations: tuple[Obligation, ...]
    parameters: dict[str, Any] = field(default_factory=dict)
    known_findings: tuple[KnownFinding, ...] = ()

    def __post_init__(self) -> None:
        if not self.relations:
            raise InvalidArgument(f"claim {self.id!r}: expected at least one relation")
        if not self.obligations:
            raise InvalidArgument(f"claim {self.id!r}: expected at least one obligation")
        listed = [obligation.id for obligation in self.obligations]
        duplicated = sorted({i for i in listed if listed.count(i) > 1})
        if duplicated:
            raise InvalidArgument(f"claim {self.id!r}: obligation ids must be unique, repeated: {duplicated}")
        names = {relation.name for relation in self.relations}
        ids = set(listed)
        for index, known in enumerate(self.known_findings):
            if known.relation not in names:
                raise InvalidArgument(
                    f"known_findings[{index}].relation={known.relation!r}: not among the claim's relations "
                    f"{sorted(names)}"
                )
            stray = sorted(set(known.obligations) - ids)
            if stray:
                raise InvalidArgument(f"known_findings[{index}].obligations: {stray} are not obligations of the claim")

    def known_finding(self, relation: str, obligation: str) -> str | None:
        """The known finding that expects ``obligation`` violated under ``relation``, if any."""
        for known in self.known_findings:
            if known.relation == relation and obligation in known.obligations:
                return known.finding
        return None

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        return {
            "id": self.id,
            "title": self.title,
            "mechanism": self.mechanism.to_json(),
            "guarantee": self.guarantee.to_json(),
            "relations": [relation.name for relation in self.relations],
            "source": self.source.to_json(),
            "parameters": dict(self.parameters),
            "known_findings": [known.to_json() for known in self.known_findings],
            "obligations": [obligation.to_json() for obligation in self.obligations],
        }
