"""The budget of a black-box audit: samples per side, confidence, event families, pilot and
selection splits, read from an obligation's params; and the certified results."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dpaudit.checks.budget_limits import Ceiling
from dpaudit.kernel.checker_config import CheckerConfig, check_fields, param, param_of

__all__ = [
    "ESCALATION_GROWTH",
    "EVENT_FAMILIES",
    "LENGTH_TAGGED",
    "MAX_ESCALATION_SAMPLES",
    "AuditBudget",
    "CertifiedEvent",
    "EmpiricalBound",
    "MonteCarloBudgetConfig",
]


EVENT_FAMILIES = ("threshold", "interval", "halfspace", "classifier", "atom", "outcome")

#: Escalation: rounds at most, growth of the certification draws per round, and their cap per side.
MAX_ESCALATIONS = 4
ESCALATION_GROWTH = 4
MAX_ESCALATION_SAMPLES = 1 << 22


@dataclass(frozen=True)
class AuditBudget:
    """How much sampling an empirical audit may spend, and how it is split; each field's
    :func:`~dpaudit.kernel.checker_config.param` says what it holds, and the Monte Carlo checkers'
    configs (:class:`MonteCarloBudgetConfig`, :class:`EventBudgetConfig`) read these same params.

    Escalation re-certifies the most promising events (one on exact outputs, one other) on fresh
    draws, each round :data:`ESCALATION_GROWTH` times larger (up to :data:`MAX_ESCALATION_SAMPLES`),
    when the certified bound stays at or below the claim but the counts suggest more draws would
    refute it (an atom of probability 1e-3 needs about 10^6 draws at delta = 1e-5); their bounds
    share the union bound from the start. With ``confirm``, each refuting event's bound is the
    smaller of its two certifications, so a false alarm needs both rounds to err (at most
    (1 - confidence)^2 when the first round's error is 1 - confidence).
    """

    samples: int = param(
        "draws per side (per dataset of a pair), every phase together", low=100, high=Ceiling("samples")
    )
    confidence: float = param(
        "the probability that every certified bound holds together (union bound)",
        0.95,
        low=0.5,
        high=1.0,
        high_open=True,
    )
    thresholds: int = param("grid points per score in the selection phase", 1024, low=2, high=Ceiling("bins"))
    pilot_samples: int = param(
        "cap on the pilot draws per side (the pilot takes at most a tenth)", 100_000, low=10, high=Ceiling("samples")
    )
    selection_fraction: float = param(
        "share of the non-pilot draws used for selection", 0.25, low=0.0, high=1.0, low_open=True, high_open=True
    )
    chunk_size: int = param("draws per chunk, the unit of seeding and of parallel work", 1 << 19, low=1)
    batch_size: int = param("draws per mechanism call inside a chunk (keeps arrays in cache)", 1 << 14, low=1)
    events: tuple[str, ...] = param(
        "event families: threshold (coordinates), interval (ranges of 1, 2, 4, ... grid steps of every score's "
        "histogram), halfspace (mean difference, a linear logistic classifier, and the product-Laplace likelihood "
        "ratio of the pilot's medians: the orthant beyond both sides' centres), classifier (logistic on (y, y^2)), "
        "atom (exact repeated outputs, the input itself, and outputs exactly on the float16 or float32 grid when "
        "the pilot's sides differ there), outcome (for discrete outputs: sets of outcomes in the "
        "pilot's likelihood-ratio order, and single outcomes)",
        EVENT_FAMILIES,
        choices=EVENT_FAMILIES,
    )
    max_pairs: int = param("pairs kept after the pilot screening", 2, low=1)
    classifier_samples: int = param(
        "cap on the pilot draws per side used to fit the classifiers", 20_000, low=10, high=Ceiling("samples")
    )
    escalations: int = param(
        f"rounds re-counting the most promising events (one on exact outputs, one other) on {ESCALATION_GROWTH}x "
        "more fresh draws",
        0,
        low=0,
        high=MAX_ESCALATIONS,
    )
    confirm: bool = param(
        "certify every refuting event again on fresh draws from an independent seed before reporting a violation",
        False,
    )
    certification_ceiling: int = param(
        "the most certification draws per side when they are sized after the selection, so that an epsilon 5% "
        "above the claim on the selection's best event would be refuted with probability at least 0.8 (0: the "
        "certification keeps its share of samples; docs/statistics.md)",
        0,
        low=0,
        high=Ceiling("samples"),
    )

    def __post_init__(self) -> None:
        check_fields(self)

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


#: How releases of different lengths are audited (the details and the domain of the evidence say it).
LENGTH_TAGGED = (
    "releases of different lengths: each audited as y = (its number of values, its values, zeros to the longest), "
    "one to one on the flattened values, so y[0] is the length"
)


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
        length_tagged: the releases held different numbers of values on the two sides of a pair and
            were audited as (number of values, values, zeros): coordinate 0 is the length.
        certification: the certification draws per side (the budget's share, or sized after the selection).
        sizing: how the certification was sized, in words (``None``: its share of the budget).
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
    certification: int = 0
    sizing: str | None = None
    event_histogram: dict[str, Any] | None = None
    length_tagged: bool = False

    @property
    def samples_per_side(self) -> int:
        """Draws per side of the pilot, the selection and the certification (the budget's ``samples``
        unless the certification was sized after the selection; escalation and confirmation come on top)."""
        return self.budget.pilot + self.budget.selection + self.certification

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
                "certification": self.certification,
            },
            **({"certification_sizing": self.sizing} if self.sizing else {}),
            "pairs_sampled": self.pairs[0],
            "pairs_kept": self.pairs[1],
            "events_tried": self.events_tried,
            "events_certified": len(self.events),
            "event_families": list(self.budget.events),
            "escalations_allowed": self.budget.escalations,
            "escalated_samples": [event.samples for event in self.events if event.escalated],
            **({"confirmed_on_fresh_draws": True} if self.budget.confirm else {}),
            "certified_events": [event.to_json() for event in self.events],
            **({"releases": LENGTH_TAGGED} if self.length_tagged else {}),
        }


@dataclass(frozen=True)
class MonteCarloBudgetConfig(CheckerConfig):
    """The budget params every Monte Carlo check of the empirical engine reads, declared once; a
    checker's config adds its own ``samples`` (with its default, and ``"auto"`` where it sizes one)."""

    confidence: float = param_of(AuditBudget, "confidence")
    thresholds: int = param_of(AuditBudget, "thresholds")
    pilot_samples: int = param_of(AuditBudget, "pilot_samples")
    selection_fraction: float = param_of(AuditBudget, "selection_fraction")
    chunk_size: int = param_of(AuditBudget, "chunk_size")

    def budget(self, samples: int, **changes: Any) -> AuditBudget:
        """The :class:`AuditBudget` of these params with ``samples`` draws per side and ``changes``."""
        fields = ("confidence", "thresholds", "pilot_samples", "selection_fraction", "chunk_size")
        return AuditBudget(samples, **{name: getattr(self, name) for name in fields}, **changes)
