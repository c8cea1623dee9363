"""Black-box privacy auditing: a certified lower bound on ε from a mechanism's outputs alone.

The engine samples a mechanism on neighbouring pairs (X, X') in three independent
phases per side:

1. *pilot* — a small raw sample that fixes the candidate scores (coordinates,
   half-space normals, a logistic classifier on output features) and their threshold
   grids, and screens the pairs;
2. *selection* — histograms of every score on its grid; every threshold event, both
   tails and both orders of the pair (M(X) vs M(X') and M(X') vs M(X)) is scored by the
   bound it would certify, and the best few are chosen;
3. *certification* — fresh draws count only the chosen events; one-sided
   Clopper–Pearson bounds p ≥ p_lo, q ≤ q_hi, each at error (1 − confidence) / (2k)
   for k certified events (union bound), give ε_lb = ln((p_lo − δ) / q_hi) and, at a
   claimed ε, δ_lb = p_lo − e^ε q_hi.

4. *escalation* (``escalations`` rounds; two by default when a candidate is audited) — while
   no bound refutes the claim but the counts of the most promising events (one on exact outputs,
   one other) suggest more draws would (an atom of probability 1e-3 seen on one side only), those
   events are counted again on fresh draws :data:`~dpaudit.checks.empirical.budget.ESCALATION_GROWTH` times as many; the
   union bound counts every round allowed from the start.

Because the events are chosen on data independent of the certification draws, the
certified bound holds with probability at least the stated confidence. A claim is
``violated`` only when a certified ε_lb exceeds it; otherwise ``consistent``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from dpaudit.checks.budget_limits import ceiling as ceiling_in_force
from dpaudit.checks.claim_inputs import approx_dp_of, input_converter
from dpaudit.checks.empirical.bound_evidence import bound_evidence
from dpaudit.checks.empirical.budget import LENGTH_TAGGED, AuditBudget, EmpiricalBound, MonteCarloBudgetConfig
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.input_search import (
    SEARCH_MODES,
    Search,
    screened_pairs,
    search_enabled,
    searched_pairs,
)
from dpaudit.checks.empirical.sampling import (
    NeighbourPair,
    PairsConfig,
    neighbour_pairs,
    no_pairs,
    phase_seed,
    user_made_pairs,
    with_unique_labels,
)
from dpaudit.checks.empirical.shrink import SHRINK_SEED_PATH, shrink_pair
from dpaudit.checks.empirical.statistics import (
    smallest_detectable_probability,
)
from dpaudit.errors import CandidateError, CandidateRaised, CheckerError, DpAuditError
from dpaudit.kernel.checker_config import param, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.views import AuditPairsView
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.rng import seed_sequence

__all__ = [
    "AUTO_SAMPLES",
    "CANDIDATE_ESCALATIONS",
    "EmpiricalConfig",
    "auto_samples",
    "check_empirical_epsilon_lower_bound",
    "with_auto_samples",
]

#: Escalation rounds of a candidate audit whose obligation does not set ``escalations``: code
#: nobody has seen may leak through an event too rare for the spec's budget (an atom).
CANDIDATE_ESCALATIONS = 2


#: ``samples = "auto"``: the budget with which an event of probability delta + AUTO_EVENT_PROBABILITY
#: on one side (and none on the other) refutes the claim, searched from AUTO_START draws per side
#: by doubling up to AUTO_CAP.
AUTO_SAMPLES = "auto"
AUTO_EVENT_PROBABILITY = 0.01
AUTO_START = 100_000
AUTO_CAP = 1 << 24
#: A candidate with a vectorised entry point (outside ``--quick``): the certification may grow to this
#: many times ``samples`` draws per side (:mod:`dpaudit.checks.empirical.power_sizing`).
CANDIDATE_GROWTH = 4

#: Events certified per pair at most (two objectives and the atom slot, each in both orders).
_MAX_CHOSEN_EVENTS = 6


def auto_samples(guarantee: ApproxDP, confidence: float, escalations: int) -> int:
    """Draws per side for ``samples = "auto"``: the fewest (``AUTO_START`` doubled) whose
    certification split lets an event of probability δ + :data:`AUTO_EVENT_PROBABILITY` on one
    side and 0 on the other refute the claim at the error each bound gets; ``AUTO_CAP`` when none
    below it does (the power statement then says what the budget could see)."""
    alpha = (1.0 - confidence) / (2 * (_MAX_CHOSEN_EVENTS + escalations))
    samples = AUTO_START
    while samples < AUTO_CAP:
        certification = AuditBudget(samples).certification
        smallest = smallest_detectable_probability(certification, alpha, guarantee.delta, guarantee.epsilon)
        if smallest is not None and smallest <= guarantee.delta + AUTO_EVENT_PROBABILITY:
            return samples
        samples *= 2
    return AUTO_CAP


@dataclass(frozen=True)
class EmpiricalConfig(MonteCarloBudgetConfig, PairsConfig):
    """The params of the black-box audit: the Monte Carlo budget, the event families and how far the
    audit goes (escalation, confirmation, input search; ``None``: the default for what is audited)."""

    samples: int | Literal["auto"] = param_of(
        AuditBudget,
        "samples",
        doc='draws per side, every phase together ("auto": sized so that an event of probability delta + 0.01 on '
        "one side alone refutes the claim)",
        default=10**6,
        quick_cap=100_000,
    )
    events: tuple[str, ...] = param_of(AuditBudget, "events")
    max_pairs: int = param_of(
        AuditBudget, "max_pairs", doc="pairs kept after the pilot screening (+2 when the input search adds pairs)"
    )
    classifier_samples: int = param_of(AuditBudget, "classifier_samples")
    escalations: int | None = param_of(
        AuditBudget, "escalations", default=None, default_text=f"{CANDIDATE_ESCALATIONS} for a candidate, 0 otherwise"
    )
    confirm: bool | None = param_of(AuditBudget, "confirm", default=None, default_text="true for a candidate")
    search: str = param("the input search (auto: on for a candidate)", "auto", choices=SEARCH_MODES)
    certification_ceiling: int | None = param_of(
        AuditBudget,
        "certification_ceiling",
        default=None,
        default_text=f'{AUTO_CAP} with samples = "auto"; for a candidate with a vectorised entry point outside '
        f"--quick, {CANDIDATE_GROWTH} times samples; 0 otherwise",
    )

    def audit_budget(
        self, guarantee: ApproxDP, *, candidate: bool, vectorised: bool = False, quick: bool = False
    ) -> AuditBudget:
        """The obligation's budget: escalation and confirmation on for a candidate unless set,
        ``samples = "auto"`` sized by :func:`auto_samples`, and the certification's ceiling (sized after
        the selection, :mod:`dpaudit.checks.empirical.power_sizing`) as the param's default text says."""
        budget = self.budget(
            10**6 if self.samples == AUTO_SAMPLES else int(self.samples),
            events=self.events,
            max_pairs=self.max_pairs,
            classifier_samples=self.classifier_samples,
            escalations=(CANDIDATE_ESCALATIONS if candidate else 0) if self.escalations is None else self.escalations,
            confirm=candidate if self.confirm is None else self.confirm,
        )
        if self.samples == AUTO_SAMPLES:
            budget = replace(budget, samples=auto_samples(guarantee, budget.confidence, budget.escalations))
        ceiling = self.certification_ceiling
        if ceiling is None:  # a derived ceiling stays under the samples ceiling in force (--ceiling)
            grown = vectorised and candidate and not quick
            derived = AUTO_CAP if self.samples == AUTO_SAMPLES else CANDIDATE_GROWTH * budget.samples if grown else 0
            ceiling = min(derived, ceiling_in_force("samples"))
        return replace(budget, certification_ceiling=ceiling)


def with_auto_samples(claim: Claim) -> Claim:
    """``claim`` with ``samples = "auto"`` in every ``empirical_epsilon_lower_bound`` obligation,
    also under ``--quick`` (``dpaudit audit|check --samples auto``)."""
    obligations = tuple(
        replace(
            obligation,
            params={**obligation.params, "samples": AUTO_SAMPLES},
            quick_params={key: value for key, value in obligation.quick_params.items() if key != "samples"},
        )
        if obligation.checker == EMPIRICAL_CHECKER
        else obligation
        for obligation in claim.obligations
    )
    return replace(claim, obligations=obligations)


def _audited_pairs(mechanism: Any, pairs: Any, context: CheckContext) -> tuple[list[NeighbourPair], str]:
    """The pairs the obligation audits before any search, and where they come from (for the report)."""
    given = neighbour_pairs(pairs, input_converter(context.claim)) if pairs is not None else []
    made = user_made_pairs(context)
    if given or made:
        return given + made, "from the spec"
    if context.candidate is not None:
        mechanism = build_mechanism(context.claim.mechanism.name, context.claim.mechanism.params)
    if isinstance(mechanism, AuditPairsView):
        proposed = mechanism.audit_pairs(context.relation)
        pairs = [pair if isinstance(pair, NeighbourPair) else NeighbourPair(*pair) for pair in proposed]
        return pairs, "of the reference's least private"
    raise CheckerError(no_pairs(context.claim))


EMPIRICAL_CHECKER = "empirical_epsilon_lower_bound"


@register_checker(
    EMPIRICAL_CHECKER,
    description="black-box Monte Carlo epsilon lower bound: threshold, half-space and classifier events, "
    "held-out selection, Clopper-Pearson with a union bound",
    config=EmpiricalConfig,
    audits_candidates=True,
)
def check_empirical_epsilon_lower_bound(obligation: Obligation, context: CheckContext) -> Evidence:
    """Test an (ε, δ) claim from the outputs of the mechanism (or the candidate) alone.

    The mechanism is the candidate when one is loaded, else ``context.mechanism()`` (the
    reference or a mutant). The pairs come from ``params.pairs`` or from the mechanism's
    ``audit_pairs(relation)`` (the worst pairs a white-box search found). ``violated`` only when a certified ε
    lower bound exceeds the claim at the stated confidence.

    References:
        Dwork & Roth 2014, Def. 2.4; Jagielski, Ullman & Oprea 2020; Bichsel et al. 2021.
    """
    guarantee = approx_dp_of(context.claim)
    config = parse_config(EmpiricalConfig, obligation.params)
    budget = config.audit_budget(
        guarantee,
        candidate=context.candidate is not None,
        vectorised=bool(getattr(context.candidate, "vectorised", False)),
        quick=context.quick,
    )
    mechanism = context.sampled_mechanism()
    pairs, origin = _audited_pairs(mechanism, config.pairs, context)
    explored, screened = Search([]), Search([])
    if search_enabled(config.search, context):
        explored = searched_pairs(pairs, context)
        screened = screened_pairs(pairs, context) if explored.stopped is None else Search([])
    sources = [f"{len(pairs)} {origin}"] + [
        f"{count} {source}"
        for count, source in (
            (len(explored.pairs), "found by the input search"),
            (len(screened.pairs), "screened on large inputs"),
            (explored.refused + screened.refused, "searched but refused by the candidate (it raised), left out"),
        )
        if count
    ]
    stopped = explored.stopped or screened.stopped
    if stopped is not None:
        sources.append("the search stopped early: the candidate hit a limit on a searched input")
    searched = explored.pairs + screened.pairs
    if searched:
        # the spec's pairs and the best searched ones compete in the pilot screening
        pairs = [*pairs, *searched]
        budget = replace(budget, max_pairs=budget.max_pairs + 2)
    pairs = with_unique_labels(pairs)
    bound = certify_privacy_lower_bound(
        mechanism,
        pairs,
        delta=guarantee.delta,
        epsilon=guarantee.epsilon,
        budget=budget,
        seed=context.seed,
        executor=context.executor,
    )
    labels = ", ".join(pair.label for pair in pairs[:4]) + (", ..." if len(pairs) > 4 else "")
    evidence = bound_evidence(
        bound,
        guarantee,
        domain=f"{len(pairs)} neighbouring pair(s) under {context.relation.name} ({', '.join(sources)})"
        f": {labels}; {bound.pairs[1]} kept after the pilot screening; "
        f"event families {', '.join(budget.events)}" + (f"; {LENGTH_TAGGED}" if bound.length_tagged else ""),
        method="Monte Carlo: pilot, held-out event selection, one-sided Clopper-Pearson with a union bound "
        f"over {bound.planned_bounds} bounds"
        + (f" ({budget.escalations} escalation rounds allowed)" if budget.escalations else "")
        + ("; every refuting event certified again on fresh draws from an independent seed" if budget.confirm else "")
        + (f"; {bound.sizing}" if bound.sizing else ""),
    )
    evidence = _with_category_names(evidence, context)
    refused = explored.refused + screened.refused
    if refused:  # named in the console too (dpaudit.audit.candidates.audit): a crash there may hide a leak
        evidence = replace(evidence, details={**evidence.details, "searched_inputs_refused": refused})
    if stopped is not None:
        evidence = _with_search_stopped(evidence, stopped)
    # the verdict is decided: if the time budget stops the shrinking below, the runner reports this
    context.decided.append(_with_replay(evidence, pairs, context))
    return _with_replay(_with_shrunk_pair(evidence, pairs, mechanism, budget, guarantee, context), pairs, context)


def _with_search_stopped(evidence: Evidence, stopped: str) -> Evidence:
    """The evidence when the candidate hit a limit on a searched input (``stopped``): a violation on the pairs
    audited stands; anything else is ``error``, since the pairs the search would have added were not audited
    (what the audited ones showed stays in the summary)."""
    evidence = replace(evidence, details={**evidence.details, "search_stopped": stopped})
    if evidence.verdict is Verdict.VIOLATED:
        return evidence
    summary = f"the input search stopped at {stopped}; on the pairs audited before it: {evidence.summary}"
    return replace(evidence, verdict=Verdict.ERROR, summary=summary)


def _with_category_names(evidence: Evidence, context: CheckContext) -> Evidence:
    """Name the categories behind the codes in a counterexample's event (a candidate that releases
    strings: see :mod:`dpaudit.audit.candidates.worker`)."""
    labels = getattr(context.candidate, "category_labels", None)
    counterexample = evidence.counterexample
    if not labels or not counterexample or not isinstance(counterexample.get("event"), str):
        return evidence
    named = {code: name for code, name in sorted(labels.items()) if code in counterexample["event"]}
    return replace(evidence, counterexample={**counterexample, "categories": named}) if named else evidence


_MIN_SHRINK_SAMPLES = 10_000


def _with_shrunk_pair(
    evidence: Evidence,
    pairs: list[NeighbourPair],
    mechanism: Any,
    budget: AuditBudget,
    guarantee: ApproxDP,
    context: CheckContext,
) -> Evidence:
    """On a violation, shrink the violating pair (:mod:`dpaudit.checks.empirical.shrink`) and add the
    smallest pair that still refutes the claim, with its own certified bound, to the counterexample."""
    counterexample = evidence.counterexample
    if evidence.verdict is not Verdict.VIOLATED or not counterexample:
        return evidence
    pair = next((pair for pair in pairs if pair.label == counterexample.get("pair")), None)
    if pair is None:
        return evidence
    root = seed_sequence(context.seed)
    # a tenth of the budget per attempt: a clear leak survives it, a marginal one is not shrunk
    samples = min(budget.samples, max(budget.samples // 10, _MIN_SHRINK_SAMPLES))
    attempt_budget = replace(budget, samples=samples, escalations=0, max_pairs=1, confirm=False)

    def refutes(candidate: NeighbourPair, attempt: int) -> float | None:
        try:
            bound = certify_one(candidate, attempt)
        except CandidateRaised:  # e.g. a candidate that needs as many records as its params say
            return None
        except CandidateError:  # a timeout, a crash: shrinking stops (below), the violation stands
            raise
        except DpAuditError:  # a pair the reference refuses
            return None
        refuted = bound.epsilon_lower_bound > guarantee.epsilon or (bound.delta_lower_bound or 0.0) > guarantee.delta
        return bound.epsilon_lower_bound if refuted else None

    def certify_one(candidate: NeighbourPair, attempt: int) -> EmpiricalBound:
        return certify_privacy_lower_bound(
            mechanism,
            [candidate],
            delta=guarantee.delta,
            epsilon=guarantee.epsilon,
            budget=attempt_budget,
            seed=phase_seed(root, SHRINK_SEED_PATH, attempt),
            executor=context.executor,
        )

    try:
        shrunk = shrink_pair(
            pair, get_mechanism(context.claim.mechanism.name), context.claim.mechanism.params, context.relation, refutes
        )
    except CandidateError:
        return evidence
    if shrunk is None:
        return evidence
    shrunk_pair = with_unique_labels([*pairs, shrunk.pair])[-1]
    pairs.append(shrunk_pair)
    note = {
        "pair": shrunk_pair.label,
        "records": list(shrunk.records),
        "from_records": list(shrunk.original_records),
        "epsilon_lower_bound": shrunk.epsilon_lower_bound,
        "confidence": budget.confidence,
        "attempts": shrunk.attempts,
        "note": "certified by its own run on fresh draws; the verdict rests on the pair named in 'pair', while "
        "'neighbours' and 'pair_json' are this smaller pair's",
    }
    return replace(evidence, counterexample={**counterexample, "shrunk": note})


#: The largest JSON text of a pair of inputs a counterexample carries inline.
MAX_INLINE_INPUTS = 20_000


def _with_replay(evidence: Evidence, pairs: list[NeighbourPair], context: CheckContext) -> Evidence:
    """Add the violating pair's inputs and how to replay it to the counterexample.

    The pair may be one the input search found, which no spec names: its inputs (as the spec
    writes them) and the steps to audit that pair alone make the finding reproducible.
    """
    counterexample = evidence.counterexample
    if not counterexample:
        return evidence
    label = (counterexample.get("shrunk") or {}).get("pair", counterexample.get("pair"))
    pair = next((pair for pair in pairs if pair.label == label), None)
    if pair is None:
        return evidence
    domain = get_mechanism(context.claim.mechanism.name).input_domain
    try:
        plain = {"first": domain.to_plain(pair.first), "second": domain.to_plain(pair.second), "label": pair.label}
        text = json.dumps([plain], allow_nan=False)
    except (TypeError, ValueError):
        return evidence
    if len(text) > MAX_INLINE_INPUTS:
        note = f"the pair's inputs are {len(text)} characters of JSON, too large to inline; its label says how "
        note += "the input search built it from the pairs the spec names"
        return replace(evidence, counterexample={**counterexample, "replay": note})
    added = {
        "neighbours": {"X": plain["first"], "X'": plain["second"]},
        "pair_json": text,
        "replay": "save pair_json as pair.json next to the spec, and in this obligation's params set "
        'pairs_file = "pair.json" and search = "off"; then run the same dpaudit command (its seed is in the report)',
    }
    return replace(evidence, counterexample={**counterexample, **added})
