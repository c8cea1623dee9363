"""The budget of a black-box audit: samples per side, confidence, event families, pilot and
selection splits, read from an obligation's params; and the certified results."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dpaudit._validation import (
    check_choice,
    check_integer,
    check_real,
)
from dpaudit.checks.budget_limits import ceiling
from dpaudit.errors import InvalidArgument

__all__ = [
    "ESCALATION_GROWTH",
    "EVENT_FAMILIES",
    "MAX_ESCALATION_SAMPLES",
    "AuditBudget",
    "CertifiedEvent",
    "EmpiricalBound",
    "budget_from_params",
]


EVENT_FAMILIES = ("threshold", "interval", "halfspace", "classifier", "atom", "outcome")

#: Escalation: rounds at most, growth of the certification draws per round, and their cap per side.
MAX_ESCALATIONS = 4
ESCALATION_GROWTH = 4
MAX_ESCALATION_SAMPLES = 1 << 22


@dataclass(frozen=True)
class AuditBudget:
    """How much sampling an empirical audit may spend, and how it is split.

    Attributes:
        samples: draws per side (per dataset of a pair), all phases together.
        confidence: the probability that every certified bound holds (union bound).
        thresholds: grid points per score in the selection phase.
        pilot_samples: cap on the pilot draws per side (the pilot takes at most a tenth).
        selection_fraction: share of the non-pilot draws used for selection.
        chunk_size: draws per chunk (the unit of seeding and of parallel work).
        batch_size: draws per mechanism call inside a chunk (keeps arrays in cache).
        events: event families: ``threshold`` (coordinates), ``interval`` (ranges of 1, 2, 4, ...
            grid steps of every score's histogram), ``halfspace``
            (mean difference and a linear logistic classifier), ``classifier`` (logistic on
            (y, y²)), ``atom`` (exact repeated outputs and the input itself), ``outcome``
            (for discrete outputs: sets of outcomes in the pilot's likelihood-ratio order, and
            single outcomes).
        max_pairs: pairs kept after the pilot screening.
        classifier_samples: cap on the pilot draws per side used to fit classifiers.
        escalations: rounds of re-certifying the most promising events (one on exact outputs, one
            other) on fresh draws, each
            :data:`ESCALATION_GROWTH` times larger (up to :data:`MAX_ESCALATION_SAMPLES`), when
            the certified bound stays at or below the claim but the counts suggest more
            draws would refute it (an atom of probability 1e-3 needs about 10^6 draws at
            delta = 1e-5). Their bounds share the union bound from the start.
        confirm: re-certify every event that refutes the claim on fresh draws from an independent
            seed before the claim is reported violated (the default for a candidate): each event's
            bound is then the smaller of its two certifications, so a false alarm needs both rounds
            to err (at most (1 - confidence)^2 when the first round's error is 1 - confidence).
    """

    samples: int
    confidence: float = 0.95
    thresholds: int = 1024
    pilot_samples: int = 100_000
    selection_fraction: float = 0.25
    chunk_size: int = 1 << 19
    batch_size: int = 1 << 14
    events: tuple[str, ...] = EVENT_FAMILIES
    max_pairs: int = 2
    classifier_samples: int = 20_000
    escalations: int = 0
    confirm: bool = False

    def __post_init__(self) -> None:
        check_integer("samples", self.samples, low=100, high=ceiling("samples"))
        check_real("confidence", self.confidence, low=0.5, high=1.0, high_open=True)
        check_integer("thresholds", self.thresholds, low=2, high=ceiling("bins"))
        check_integer("pilot_samples", self.pilot_samples, low=10, high=ceiling("samples"))
        check_real("selection_fraction", self.selection_fraction, low=0.0, high=1.0, low_open=True, high_open=True)
        check_integer("chunk_size", self.chunk_size, low=1)
        check_integer("batch_size", self.batch_size, low=1)
        check_integer("max_pairs", self.max_pairs, low=1)
        check_integer("classifier_samples", self.classifier_samples, low=10, high=ceiling("samples"))
        check_integer("escalations", self.escalations, low=0, high=MAX_ESCALATIONS)
        if not isinstance(self.confirm, bool):
            raise InvalidArgument(f"confirm={self.confirm!r}: expected true or false")
        families = tuple(self.events)
        if not families:
            raise InvalidArgument(f"events={self.events!r}: expected at least one of {', '.join(EVENT_FAMILIES)}")
        for family in families:
            check_choice("events", family, EVENT_FAMILIES)
        object.__setattr__(self, "events", families)

    @property
    def pilot(self) -> int:
        """Pilot draws per side."""
        return max(10, min(self.pilot_samples, self.samples // 10))

    @property
    def selection(self) -> int:
        """Selection draws per side."""
        return max(1, int((self.samples - self.pilot) * self.selection_fraction))

    @property
    def certification(self) -> int:
        """Certification draws per side."""
        return self.samples - self.pilot - self.selection


@dataclass(frozen=True)
class CertifiedEvent:
    """One event certified on fresh draws: P[M(A) ∈ E] >= p_lower and P[M(B) ∈ E] <= q_upper.

    Attributes:
        pair: the label of the neighbouring pair.
        order: which dataset is A (the p side): ``X vs X'`` or ``X' vs X``.
        event: the event in words.
        objective: ``epsilon`` or ``delta``, what the event was selected to maximise.
        p_count, q_count: draws in E out of ``samples`` on A and on B.
        samples: certification draws per side.
        alpha: the error probability of each one-sided bound.
        p_lower, q_upper: the Clopper–Pearson bounds.
        epsilon_lower_bound: ln((p_lower − δ) / q_upper) at the audited δ.
        delta_lower_bound: p_lower − e^ε q_upper at the claimed ε (``None`` without a claim).
        escalated: certified on the larger fresh draws of an escalation round.
        confirmation: the same event certified again on fresh draws from an independent seed
            (``confirm``), or ``None``; the event's bounds above are then the smaller of the two.
    """

    pair: str
    order: str
    event: str
    objective: str
    p_count: int
    q_count: int
    samples: int
    alpha: float
    p_lower: float
    q_upper: float
    epsilon_lower_bound: float
    delta_lower_bound: float | None
    escalated: bool = False
    confirmation: CertifiedEvent | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in evidence details."""
        return {
            key: value.to_json() if isinstance(value, CertifiedEvent) else _json_float(value)
            for key, value in self.__dict__.items()
            if not (key == "confirmation" and value is None)
        }


def _json_float(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


@dataclass(frozen=True)
class EmpiricalBound:
    """The outcome of :func:`certify_privacy_lower_bound`.

    Attributes:
        epsilon_lower_bound: the largest certified ε lower bound at ``delta`` (``-inf``
            when no event refutes anything).
        delta: the δ at which ε is bounded.
        epsilon: the ε at which δ is bounded (``None`` if not asked).
        delta_lower_bound: the largest certified δ lower bound at ``epsilon`` (>= 0).
        confidence: all certified bounds hold together with at least this probability.
        budget: the sampling budget used.
        pairs: the number of pairs sampled in the pilot, and kept after screening.
        events_tried: candidate events scored in the selection phase.
        events: the certified events (escalated ones last, with their own draw counts).
        planned_bounds: one-sided bounds the union bound was split over.
        event_histogram: the best event in the output's coordinates with a small histogram of
            both sides' pilot outputs around it (:mod:`dpaudit.checks.empirical.event_histogram`).
    """

    epsilon_lower_bound: float
    delta: float
    epsilon: float | None
    delta_lower_bound: float | None
    confidence: float
    budget: AuditBudget
    pairs: tuple[int, int]
    events_tried: int
    events: tuple[CertifiedEvent, ...] = field(default_factory=tuple)
    planned_bounds: int = 0
    event_histogram: dict[str, Any] | None = None

    @property
    def best_event(self) -> CertifiedEvent | None:
        """The certified event with the largest ε lower bound."""
        return max(self.events, key=lambda event: event.epsilon_lower_bound, default=None)

    def details(self) -> dict[str, Any]:
        """JSON-ready details for evidence."""
        return {
            "phases_per_side": {
                "pilot": self.budget.pilot,
                "selection": self.budget.selection,
                "certification": self.budget.certification,
            },
            "pairs_sampled": self.pairs[0],
            "pairs_kept": self.pairs[1],
            "events_tried": self.events_tried,
            "events_certified": len(self.events),
            "event_families": list(self.budget.events),
            "escalations_allowed": self.budget.escalations,
            "escalated_samples": [event.samples for event in self.events if event.escalated],
            **({"confirmed_on_fresh_draws": True} if self.budget.confirm else {}),
            "certified_events": [event.to_json() for event in self.events],
        }


_BUDGET_KEYS = (
    "samples",
    "confidence",
    "thresholds",
    "pilot_samples",
    "selection_fraction",
    "chunk_size",
    "events",
    "max_pairs",
    "classifier_samples",
    "escalations",
    "confirm",
)


def budget_from_params(params: dict[str, Any], *, default_samples: int, extra_keys: Sequence[str] = ()) -> AuditBudget:
    """Build an :class:`AuditBudget` from an obligation's params, rejecting unknown keys.

    Raises:
        InvalidArgument: naming unknown keys or bad values.
    """
    unknown = set(params) - set(_BUDGET_KEYS) - set(extra_keys)
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected some of {', '.join(_BUDGET_KEYS)}")
    values = {key: params[key] for key in _BUDGET_KEYS if key in params}
    values.setdefault("samples", default_samples)
    if "events" in values:
        events = values["events"]
        values["events"] = (events,) if isinstance(events, str) else tuple(events)
    return AuditBudget(**values)
