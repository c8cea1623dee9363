"""Claims and obligations: a paper's privacy statement as data."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.interface import CandidateCall, CandidateInputs
from dpaudit.privacy.guarantees import Guarantee
from dpaudit.privacy.relations import Relation

__all__ = ["Claim", "FindingPin", "KnownFinding", "MechanismSpec", "Obligation", "Source"]


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
        time_limit: wall-time budget in seconds; past it the obligation is ``inconclusive``
            (budget) and nothing is claimed from the partial work (``None``: no own limit).
        memory_limit: the auditor's memory budget in MiB while it runs (a spec's
            ``[ceilings] memory_mib``); an allocation past it makes the obligation
            ``inconclusive`` (budget) (``None``: the command's ceiling only).
        at_delta: the δ of the claim's grid this copy of the obligation audits (a zcdp or renyi_dp claim
            stated at several δ; see :meth:`Claim.at_each_delta`), ``None`` otherwise.
    """

    id: str
    statement: str
    checker: str
    params: dict[str, Any] = field(default_factory=dict)
    source: Source | None = None
    quick_params: dict[str, Any] = field(default_factory=dict)
    time_limit: float | None = None
    memory_limit: float | None = None
    at_delta: float | None = None

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
        } | {
            key: value
            for key, value in (
                ("time_limit", self.time_limit),
                ("memory_limit", self.memory_limit),
                ("at_delta", self.at_delta),
            )
            if value is not None
        }


def at_each(obligation: Obligation, grid: tuple[float, ...]) -> tuple[Obligation, ...]:
    """``obligation`` once per δ of ``grid`` (itself when already bound to a δ)."""
    if obligation.at_delta is not None:
        return (obligation,)
    return tuple(replace(obligation, id=f"{obligation.id}@delta={delta!r}", at_delta=delta) for delta in grid)


@dataclass(frozen=True)
class FindingPin:
    """The size a known finding must keep: the first measurement whose quantity starts with
    ``quantity`` must have its ``measured`` value in ``[low, high]``.

    A finding pinned only by its verdict would hide a regression that makes the violation
    larger (or different); the pin makes "the same finding, of the same size" the expectation.
    """

    quantity: str
    low: float
    high: float
    quick: FindingPin | None = None

    def for_run(self, quick: bool) -> FindingPin:
        """The pin that applies to a run (``quick`` budgets may measure other points)."""
        return self.quick if quick and self.quick is not None else self

    def __post_init__(self) -> None:
        if not isinstance(self.quantity, str) or not self.quantity.strip():
            raise InvalidArgument("pin.quantity: expected the start of a measurement's quantity text")
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high):
            raise InvalidArgument(f"pin.measured=[{self.low!r}, {self.high!r}]: expected finite low <= high")

    def check(self, measurements: Sequence[Any]) -> str | None:
        """Why ``measurements`` do not show the pinned size, or None when they do."""
        for measurement in measurements:
            if str(measurement.quantity).startswith(self.quantity):
                try:
                    value = float(measurement.measured)
                except (TypeError, ValueError):
                    return f"finding changed: {self.quantity!r} measured {measurement.measured!r}, not a number"
                if self.low <= value <= self.high:
                    return None
                return (
                    f"finding changed: expected {self.quantity!r} in [{self.low!r}, {self.high!r}], measured {value!r}"
                )
        return f"finding changed: no measurement {self.quantity!r} in this run"

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        data: dict[str, Any] = {"quantity": self.quantity, "measured": [self.low, self.high]}
        if self.quick is not None:
            data["quick"] = self.quick.to_json()
        return data


@dataclass(frozen=True)
class KnownFinding:
    """A known failure of a paper's statement: these obligations are expected violated under
    ``relation``, with the size ``pin`` states."""

    relation: str
    obligations: tuple[str, ...]
    finding: str
    pin: FindingPin | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "obligations", tuple(self.obligations))
        if not self.obligations:
            raise InvalidArgument("known finding: expected at least one obligation id")
        if not isinstance(self.finding, str) or not self.finding.strip():
            raise InvalidArgument("known finding: expected a non-empty description of the finding")

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in reports."""
        data: dict[str, Any] = {
            "relation": self.relation,
            "obligations": list(self.obligations),
            "finding": self.finding,
        }
        if self.pin is not None:
            data["pin"] = self.pin.to_json()
        return data


@dataclass(frozen=True)
class Claim:
    """A privacy claim: mechanism + guarantee + relations + source + obligations.

    A claim is audited separately under every relation in ``relations``.

    ``known_findings`` lists known failures of the paper's statement: under a relation,
    these obligations are expected ``violated``. They are still reported ``violated``;
    the CI policy treats them as expected and treats their *absence* (any other verdict
    of a listed obligation) as a failure, so a finding can neither hide another
    violation nor silently vanish.

    ``candidate_call`` is how a candidate implementing the mechanism is called (the spec's
    ``[candidate]`` table; by default ``fn(input, **params, rng=rng)``), and
    ``candidate_inputs`` the user's functions that make its inputs and neighbours.
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
    candidate_call: CandidateCall = field(default_factory=CandidateCall)
    candidate_inputs: CandidateInputs = field(default_factory=CandidateInputs)

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

    def known_finding(self, relation: str, obligation: str) -> KnownFinding | None:
        """The known finding that expects ``obligation`` violated under ``relation``, if any."""
        for known in self.known_findings:
            if known.relation == relation and obligation in known.obligations:
                return known
        return None

    def at_each_delta(self) -> Claim:
        """The claim with each obligation once per δ of its guarantee's grid (``deltas`` of a zcdp or
        renyi_dp claim; ids ``<id>@delta=<δ>``, known findings following their obligations); itself when
        it has none. Obligations already bound to a δ are kept."""
        grid = getattr(self.guarantee, "deltas", ())
        if not grid:
            return self
        copies = {o.id: at_each(o, grid) for o in self.obligations}
        return replace(
            self,
            obligations=tuple(copy for o in self.obligations for copy in copies[o.id]),
            known_findings=tuple(
                replace(known, obligations=tuple(copy.id for i in known.obligations for copy in copies.get(i, ())))
                for known in self.known_findings
            ),
        )

    def for_obligation(self, obligation: Obligation) -> Claim:
        """The claim as ``obligation`` audits it: at its δ when it is one point of the claim's grid."""
        if obligation.at_delta is None:
            return self
        return replace(self, guarantee=self.guarantee.at_delta(obligation.at_delta))  # type: ignore[attr-defined]

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
