"""Claims and obligations: a paper's privacy statement as data."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from dpaudit.errors import InvalidArgument
from dpaudit.privacy.guarantees import Guarantee
from dpaudit.privacy.relations import Relation

__all__ = ["Claim", "MechanismSpec", "Obligation", "Source"]


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
class Claim:
    """A privacy claim: mechanism + guarantee + relations + source + obligations.

    A claim is audited separately under every relation in ``relations``.

    ``known_findings`` maps a relation name to a description of a known failure of the
    paper's statement under that relation. Such a relation is still reported
    ``violated``; the CI policy treats it as expected, and treats its *absence* (any
    other verdict) as a failure, so a finding can neither be hidden nor silently vanish.
    """

    id: str
    title: str
    mechanism: MechanismSpec
    guarantee: Guarantee
    relations: tuple[Relation, ...]
    source: Source
    obligations: tuple[Obligation, ...]
    parameters: dict[str, Any] = field(default_factory=dict)
    known_findings: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.relations:
            raise InvalidArgument(f"claim {self.id!r}: expected at least one relation")
        names = {relation.name for relation in self.relations}
        stray = sorted(set(self.known_findings) - names)
        if stray:
            raise InvalidArgument(f"known_findings: {stray} are not among the claim's relations {sorted(names)}")
        if not self.obligations:
            raise InvalidArgument(f"claim {self.id!r}: expected at least one obligation")
        ids = [obligation.id for obligation in self.obligations]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise InvalidArgument(f"claim {self.id!r}: obligation ids must be unique, repeated: {duplicated}")

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
            "known_findings": dict(self.known_findings),
            "obligations": [obligation.to_json() for obligation in self.obligations],
        }
