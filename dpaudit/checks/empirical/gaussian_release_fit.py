"""A parametric audit for releases that are Gaussian given the input, with covariances that differ.

The smooth-sensitivity Gaussian, DP-LSW and DP-LSL release θ(X) + N(0, σ(X)² I): the noise scale
depends on the data, so the two sides of a pair have unequal covariances and the equal-scale fit
of :mod:`dpaudit.checks.empirical.parametric` does not describe them. This checker bounds ε from
below under the assumption "the release is Gaussian given the input" as follows, per pair:

0. **Pairs.** The spec's pairs (else the reference's least private ones) and, for a candidate, the
   two pairs of the kind's input search whose pilot draws (fresh, never reused) show the largest
   point ε, when it reaches the claimed ε
   (:mod:`dpaudit.checks.empirical.gaussian_release_directions`).
1. **Direction, on held-out draws.** The first quarter of each side's draws (split A) gives
   means and covariances; the candidate directions are the mean difference, the Fisher direction
   (Σ1 + Σ2)⁻¹(μ1 − μ2) and the generalised eigenvectors of (Σ1, Σ2) with the largest and the
   smallest variance ratio. The direction and the order of the sides whose point estimates give
   the largest float64 ε at the claimed δ are kept (for a pure claim, at :data:`PURE_CHOICE_DELTA`:
   every bound is still certified at δ = 0, which no Gaussian release with a shift meets). Split A
   is not used again.
2. **Confidence box, on the rest (split B).** Projected on the fixed unit vector v, each side is
   N(m_i, s_i²) under the assumption; :func:`~dpaudit.checks.empirical.gaussian_projection.normal_box`
   gives a rectangle for each side's (m_i, s_i) (t and χ² pivots); both rectangles hold together
   with probability >= 1 − α/2 (Bonferroni over the sides and the pairs).
3. **Events.** For ANY event E, δ(ε) >= P1(E) − e^ε P2(E); on the event that the boxes hold this is
   at least min_box P1(E) − e^ε max_box P2(E), for every E at once. So E may be chosen from split B:
   the likelihood-ratio events of the point estimates at a few ε (a half-line, an interval or the
   complement of one), in both orders; each gives a rigorous ε lower bound
   (:func:`~dpaudit.checks.empirical.gaussian_projection.certified_epsilon`) and the largest is kept.
   Projection is post-processing, so the bound holds for the release itself.
4. **Test of the assumption.** Anderson–Darling (mean and variance estimated) on each side's
   projected draws of split B (the smaller p-value, doubled). A pair whose projection is not normal
   gives no parametric bound.
5. **Model-free events.** The likelihood-ratio events of split A's point estimates on the same
   direction (a mean shift gives a half-line, a variance ratio an interval or two tails) and, for
   a multivariate release whose scales differ, the best balls about the loss centre found on split A
   (:mod:`dpaudit.checks.empirical.radial_events`: a variance ratio in all coordinates at once) are
   counted on split B: Clopper–Pearson bounds on P1(E) and P2(E) (Bonferroni over the events)
   certify ε >= ln((p_lo − δ)/q_hi) with no assumption at all.

Confidence: half of 1 − ``confidence`` goes to the boxes, half to the model-free events; the
pairs share it equally. When no pair's projection is normal and the events certify nothing above
the claim, the evidence says "no family fits" (``details.assumption_rejected``) and leaves the
claim's verdict to the other model-free checks.

The verdict is judged against the claim: ``violated`` when the model-free bound exceeds the claimed
ε, ``violated`` under assumption (Gaussian release) when the parametric bound does; so a candidate
with less noise than the reference but enough for the claim is ``consistent``. A mixture (a
subsampled step, GPOPE end to end) is not Gaussian given its input; the test is its only guard, so
dpaudit adds this check only for the kinds whose release is Gaussian by construction
(``Mechanism.noise_family == "gaussian_release"``).

References:
    Balle, Gomrokchi & Precup 2016, Lemma 1 and Algorithms 1-2 (Gaussian releases with a
    data-dependent scale); Balle & Wang 2018, Sec. 2 (δ(ε) as a supremum over events);
    Casella & Berger 2002, Sec. 9.2 (pivots); D'Agostino & Stephens 1986, Sec. 4.8 (Anderson–Darling).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpaudit.checks.claim_inputs import approx_dp_of
from dpaudit.checks.empirical.gaussian_projection import (
    TailEvent,
    anderson_darling_p_value,
    certified_epsilon,
    likelihood_ratio_event,
    normal_box,
    point_epsilon,
)
from dpaudit.checks.empirical.gaussian_release_directions import (
    choose_direction,
    most_revealing_pairs,
    projected_moments,
)
from dpaudit.checks.empirical.input_search import SEARCH_MODES, search_enabled, searched_pairs_whole
from dpaudit.checks.empirical.parametric import FitConfig
from dpaudit.checks.empirical.radial_events import choose_radial_events, radial_centre, radial_statistic
from dpaudit.checks.empirical.samplers import as_sampler
from dpaudit.checks.empirical.sampling import (
    NeighbourPair,
    reference_or_given_pairs,
)
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound
from dpaudit.kernel.checker_config import param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence, epsilon_measurement
from dpaudit.kernel.verdicts import Verdict

__all__ = ["GaussianReleaseFit", "ReleaseFitConfig", "check_gaussian_release_fit", "fit_gaussian_release"]

#: Pilot draws per side of each searched pair, how many of the search's first pairs (the kinds list
#: their worst cases first) are piloted, and how many are fitted. Each pilot is a request to the
#: candidate's worker, whose round trip, not the draws, sets the cost.
FIT_PILOT = 100
PILOTED_PAIRS = 16
SEARCHED_FITS = 2
#: The share of each side's draws that chooses the direction (split A); the rest certifies.
SELECTION_SHARE = 0.25
#: The ε of the likelihood-ratio events tried, as multiples of the point estimate's ε.
EVENT_TARGETS = (0.5, 0.75, 0.9, 1.0, 1.1)
#: The δ at which a pure claim's directions, events and searched pairs are chosen (only chosen: every
#: bound is certified at the claimed δ = 0). At δ = 0 any shift or change of scale gives an infinite
#: point ε, which ranks nothing; the events of a δ this size hold enough draws to certify.
PURE_CHOICE_DELTA = 1e-3
#: The δ at which a pure claim's parametric events are chosen: their probabilities come from the
#: fitted laws, not from counts, so events deep in the tails certify too (two Gaussian laws whose
#: boxes are apart have an unbounded likelihood ratio there).
PURE_EVENT_DELTAS = (PURE_CHOICE_DELTA, 1e-6, 1e-12, 1e-24, 1e-48)
#: How many radial events (:mod:`dpaudit.checks.empirical.radial_events`) split A chooses.
RADIAL_EVENTS = 2
#: The smallest share of variance (relative to the total) a side keeps along the chosen direction;
#: below it the projected law is a point mass in float64 and no normal law fits.
_DEGENERATE = 1e-12


@dataclass(frozen=True)
class GaussianReleaseFit:
    """The fit of one pair (``epsilon_lower`` under the assumption; ``model_free_epsilon`` without it).

    Attributes:
        epsilon_lower: the certified ε lower bound (0 when the events show none).
        p_value: the normality test's p-value (Bonferroni over the two sides).
        direction: how the projection direction was found.
        order: ``first/second`` or ``second/first``: the side on the left of δ(ε).
        event: the event the bound rests on, in words.
        boxes: each side's (mean, sd) rectangle.
        estimates: each side's projected (mean, sd).
        model_free_epsilon: the Clopper–Pearson ε lower bound of the held-out events (no assumption).
        model_free_event: its event, in words.
    """

    epsilon_lower: float
    p_value: float
    direction: str
    order: str
    event: str
    boxes: tuple[dict[str, list[float]], dict[str, list[float]]]
    estimates: tuple[tuple[float, float], tuple[float, float]]
    model_free_epsilon: float
    model_free_event: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored in evidence."""
        return {
            "epsilon_lower": self.epsilon_lower,
            "fit_p_value": self.p_value,
            "direction": self.direction,
            "order": self.order,
            "event": self.event,
            "boxes": {"first": self.boxes[0], "second": self.boxes[1]},
            "estimates": {"first": list(self.estimates[0]), "second": list(self.estimates[1])},
            "model_free_epsilon": self.model_free_epsilon,
            "model_free_event": self.model_free_event,
        }


def _normality_p_value(*samples: np.ndarray) -> float:
    """The Anderson–Darling p-value of each sample; the smallest times the number of samples (capped at 1)."""
    return min(1.0, len(samples) * min(anderson_darling_p_value(x) for x in samples))


def _choosing_delta(delta: float) -> float:
    """The δ at which directions, events and pairs are chosen: the claimed one, or :data:`PURE_CHOICE_DELTA`
    for a pure claim."""
    return delta if delta > 0 else PURE_CHOICE_DELTA


def _likelihood_ratio_events(estimates: tuple[tuple[float, float], ...], delta: float) -> list[tuple[bool, TailEvent]]:
    """The events {ln p/q > ε_t} of the estimated laws, ε_t the :data:`EVENT_TARGETS` multiples of their
    point ε, in both orders (``True``: the second side on the left of δ(ε)); repeats dropped."""
    events: dict[tuple[bool, TailEvent], None] = {}
    for order in (False, True):
        p, q = (estimates[1], estimates[0]) if order else (estimates[0], estimates[1])
        target = point_epsilon(p, q, delta)
        for factor in EVENT_TARGETS:
            event = likelihood_ratio_event(p, q, target * factor)
            if event is not None:
                events[(order, event)] = None
    return list(events)


#: A model-free event: the statistic's name, the order (``True``: the second side on the left), the
#: event on that statistic, and the statistic on each side's certification draws.
HeldOutEvent = tuple[str, bool, TailEvent, tuple[np.ndarray, np.ndarray]]


def _model_free_epsilon(events: list[HeldOutEvent], delta: float, alpha: float) -> tuple[float, str]:
    """The largest Clopper–Pearson ε lower bound of ``events`` (chosen before the certification draws
    were seen); Bonferroni over the events and the two bounds of each."""
    best = (0.0, "none")
    each = alpha / max(2 * len(events), 1)
    for statistic, order, event, values in events:
        left, right = (values[1], values[0]) if order else values
        p_lower = clopper_pearson_lower(int(np.count_nonzero(event.contains(left))), left.size, each)
        q_upper = clopper_pearson_upper(int(np.count_nonzero(event.contains(right))), right.size, each)
        bound = epsilon_lower_bound(p_lower, q_upper, delta)
        if bound > best[0]:
            best = (bound, f"{statistic}: {event.describe()} ({'second/first' if order else 'first/second'})")
    return best


def _held_out_events(
    first: np.ndarray, second: np.ndarray, selected: int, vector: np.ndarray, delta: float
) -> list[HeldOutEvent]:
    """The model-free events chosen on split A: the likelihood-ratio events of the projection's point
    estimates and, for a multivariate release whose scales differ, the best radial events."""
    projected = first[selected:] @ vector, second[selected:] @ vector
    held_out = projected_moments(first[:selected] @ vector), projected_moments(second[:selected] @ vector)
    events: list[HeldOutEvent] = [
        ("x on the projection", order, event, projected) for order, event in _likelihood_ratio_events(held_out, delta)
    ]
    centre = radial_centre(first[:selected], second[:selected]) if first.shape[1] > 1 else None
    if centre is not None:
        radial = radial_statistic(first[selected:], centre), radial_statistic(second[selected:], centre)
        chosen = choose_radial_events(first[:selected], second[:selected], centre, delta, RADIAL_EVENTS)
        events += [("x = squared distance to the loss centre", order, event, radial) for order, event in chosen]
    return events


def fit_gaussian_release(
    first: np.ndarray, second: np.ndarray, delta: float, alpha: float
) -> GaussianReleaseFit | None:
    """Certify ε lower bounds for one pair's releases (rows): one under the Gaussian assumption, one
    model-free.

    Args:
        first, second: releases on X and X' (n rows each, n >= 100).
        delta: the claimed δ.
        alpha: the error probability of everything certified: half for the two sides' boxes, half
            for the model-free events.

    Returns:
        The fit, or ``None`` when the projected releases are a point mass on some side (no normal
        law fits; an atom check sees such outputs).
    """
    selected = max(int(first.shape[0] * SELECTION_SHARE), 2)
    choosing = _choosing_delta(delta)
    chosen = choose_direction(first[:selected], second[:selected], choosing)
    if chosen is None:
        return None
    _, name, vector = chosen
    projected = first[selected:] @ vector, second[selected:] @ vector
    spread = max(float(np.var(np.concatenate(projected))), 1e-300)
    if min(float(np.var(side)) for side in projected) <= _DEGENERATE * spread:
        return None
    model_free = _model_free_epsilon(_held_out_events(first, second, selected, vector, choosing), delta, alpha / 2)
    boxes = normal_box(projected[0], alpha / 4), normal_box(projected[1], alpha / 4)
    estimates = projected_moments(projected[0]), projected_moments(projected[1])
    best = (0.0, "none (no event shows a loss above the claimed delta)", False)
    events = {
        found: None
        for at in (PURE_EVENT_DELTAS if delta == 0 else (delta,))
        for found in _likelihood_ratio_events(estimates, at)
    }
    for order, event in events:  # any event: the boxes hold for all at once
        bound = certified_epsilon(event, *((boxes[1], boxes[0]) if order else boxes), delta)
        if bound > best[0]:
            best = (bound, event.describe(), order)
    return GaussianReleaseFit(
        epsilon_lower=best[0],
        p_value=_normality_p_value(*projected),
        direction=name,
        order="second/first" if best[2] else "first/second",
        event=best[1],
        boxes=(boxes[0].to_json(), boxes[1].to_json()),
        estimates=estimates,
        model_free_epsilon=model_free[0],
        model_free_event=model_free[1],
    )


def _fitted_pairs(
    config: ReleaseFitConfig,
    context: CheckContext,
    draw: Callable[[NeighbourPair, int], tuple[np.ndarray, np.ndarray]],
    guarantee: Any,
) -> tuple[list[NeighbourPair], int]:
    """The spec's pairs (else the reference's), plus, when the search is on, the :data:`SEARCHED_FITS`
    of the first :data:`PILOTED_PAIRS` searched pairs whose pilot draws show the largest point ε, if
    that is at least the claimed ε (the point ε of 100 draws is biased upward by the choice of
    direction, so a lower bar has a correct implementation pay for fits that find nothing); and how
    many searched pairs were piloted."""
    pairs = reference_or_given_pairs(config.pairs, context)
    found = searched_pairs_whole(pairs, context)[:PILOTED_PAIRS] if search_enabled(config.search, context) else []
    chosen = most_revealing_pairs(found, draw, _choosing_delta(guarantee.delta), FIT_PILOT, SEARCHED_FITS)
    return pairs + [pair for pair, score in chosen if score >= guarantee.epsilon], len(found)


@dataclass(frozen=True)
class ReleaseFitConfig(FitConfig):
    """The params of the Gaussian release fit: draws per side and whether searched pairs are fitted too."""

    samples: int = param(
        "draws per side of each pair (a quarter chooses the direction)", 50_000, low=400, high=10**7, quick_cap=20_000
    )
    search: str = param(
        f"also fit the {SEARCHED_FITS} searched pairs whose pilot draws show the largest epsilon (auto: for a "
        "candidate)",
        "auto",
        choices=SEARCH_MODES,
    )


@register_checker(
    "gaussian_release_fit",
    description="fits a Gaussian law with its own mean and covariance to each side's releases, projects on a "
    "direction chosen on held-out draws, tests normality, and bounds epsilon rigorously over the fit's confidence box",
    config=ReleaseFitConfig,
    audits_candidates=True,
)
def check_gaussian_release_fit(obligation: Obligation, context: CheckContext) -> Evidence:
    """Bound ε from below under a tested Gaussian release law, and model-free on the held-out events
    (see the module docstring)."""
    config = parse_config(ReleaseFitConfig, obligation.params)
    guarantee = approx_dp_of(context.claim)
    samples, confidence, fit_alpha = config.samples, config.confidence, config.fit_alpha
    sampler = as_sampler(context.sampled_mechanism())

    def draw(pair: NeighbourPair, count: int) -> tuple[np.ndarray, np.ndarray]:
        first = np.asarray(sampler(pair.first, count, context.rng), dtype=np.float64).reshape(count, -1)
        return first, np.asarray(sampler(pair.second, count, context.rng), dtype=np.float64).reshape(count, -1)

    pairs, searched = _fitted_pairs(config, context, draw, guarantee)
    fits: list[dict[str, Any]] = []
    rejected: list[str] = []
    for pair in pairs:
        first, second = draw(pair, samples)
        fit = fit_gaussian_release(first, second, guarantee.delta, (1.0 - confidence) / len(pairs))
        if fit is None:
            rejected.append(f"{pair.label} (a point mass)")
            continue
        fits.append({"pair": pair.label, "accepted": fit.p_value >= fit_alpha, **fit.to_json()})
        if fit.p_value < fit_alpha:
            rejected.append(f"{pair.label} (fit p = {fit.p_value:.2g})")
    assumption = (
        "the release is Gaussian given the input (its projection on the chosen direction is normal on each side; "
        f"Anderson-Darling at level {fit_alpha:g})"
    )
    method = (
        f"direction and model-free events chosen on held-out draws ({SELECTION_SHARE:.0%}), Clopper-Pearson on the "
        f"rest; t and chi-square boxes; {confidence * 100:.4g}% for everything (Bonferroni over sides, events and "
        "pairs); rigorous normal tail bounds (mpmath) at the boxes' corners"
    )
    report = _Report(
        guarantee,
        f"{len(pairs)} pair(s) ({searched} searched pairs piloted on {FIT_PILOT} draws per side, the {SEARCHED_FITS} "
        f"most revealing fitted if their point epsilon reaches the claim's), {samples} samples per side; the "
        f"parametric bound under assumption: {assumption}",
        method,
        {"samples": samples, "pairs": len(pairs), "searched_pairs": searched},
        confidence,
        {"assumption": assumption, "fits": fits, "rejected": rejected, "mpmath": mpmath.__version__},
    )
    return _evidence(report, fits, rejected)


@dataclass(frozen=True)
class _Report:
    """What every evidence of one run states besides its verdict."""

    guarantee: Any
    domain: str
    method: str
    budget: dict[str, int]
    confidence: float
    details: dict[str, Any]

    def with_bound(self, summary: str, bound: float, assumption: str, record: dict[str, Any]) -> Evidence:
        """``violated`` or ``consistent`` evidence for a certified ε lower bound ``bound``."""
        violated = bound > self.guarantee.epsilon
        measurement = epsilon_measurement(
            self.guarantee, bound, f"lower bound at confidence {self.confidence}{assumption}", lower_bound=True
        )
        return Evidence(
            Verdict.VIOLATED if violated else Verdict.CONSISTENT,
            summary,
            self.domain,
            self.method,
            measurements=(measurement,),
            budget=self.budget,
            counterexample=record if violated else None,
            details=self.details,
        )


def _evidence(report: _Report, fits: list[dict[str, Any]], rejected: list[str]) -> Evidence:
    """The verdict: ``violated`` on a model-free bound above the claim, else ``violated under
    assumption`` on an accepted fit's bound above it; ``inconclusive`` (no family fits) when no fit is
    accepted; else ``consistent under assumption``."""
    guarantee, confidence = report.guarantee, report.confidence
    model_free = max(fits, key=lambda record: record["model_free_epsilon"], default=None)
    free_epsilon = 0.0 if model_free is None else float(model_free["model_free_epsilon"])
    free_text = "none" if model_free is None else f"{free_epsilon:.4g} ({model_free['model_free_event']})"
    claim_text = f"at delta={guarantee.delta:g} against the claimed {guarantee.epsilon:g}"
    if model_free is not None and free_epsilon > guarantee.epsilon:
        summary = (
            f"violated: a held-out event ({model_free['model_free_event']}) certifies epsilon >= "
            f"{free_epsilon:.4g} {claim_text} on {model_free['pair']}, model-free ({confidence * 100:.4g}% confidence)"
        )
        return report.with_bound(summary, free_epsilon, "", model_free)
    accepted = [record for record in fits if record["accepted"]]
    if not accepted:
        return Evidence(
            Verdict.INCONCLUSIVE,
            f"no family fits: the release is not Gaussian on any pair: {', '.join(rejected)}; no parametric bound "
            f"(model-free epsilon >= {free_text}), so this check leaves the claim's verdict to the model-free checks",
            report.domain,
            report.method,
            budget=report.budget,
            details={**report.details, "assumption_rejected": True},
        )
    best = max(accepted, key=lambda record: record["epsilon_lower"])
    bound = float(best["epsilon_lower"])
    summary = (
        f"{'violated' if bound > guarantee.epsilon else 'consistent'} under assumption: Gaussian release (fit p = "
        f"{best['fit_p_value']:.2g}); certified epsilon >= {bound:.4g} {claim_text} on {best['pair']} (projection on "
        f"{best['direction']}, event {best['event']}, {confidence * 100:.4g}% confidence; model-free: {free_text})"
    )
    return report.with_bound(summary, bound, " under assumption: Gaussian release", best)
