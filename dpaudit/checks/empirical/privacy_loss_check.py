"""The privacy-loss histogram as a checker: a certified δ lower bound at the claimed ε, with a figure.

When the mechanism offers a white-box Gaussian view (``gaussian_view(data) -> (mean, σ)``),
the privacy loss L(y) = ln p_X(y) − ln p_X'(y) of each draw y ~ M(X) is known exactly, and
δ(ε) = E[(1 − e^{ε − L})₊] is estimated from the histogram of L
(:func:`dpaudit.checks.empirical.loss_histogram.privacy_loss_histogram`), with a certified lower
bound (losses rounded down to their cell's lower edge, empirical Bernstein). Both orders
(X, X') and (X', X) of every pair are sampled; the bounds hold together at the stated
confidence (union bound). ``violated`` only when a certified lower bound exceeds the
claimed δ; otherwise ``consistent`` — a Monte Carlo check never verifies.

The log-density ratio is computed from the white-box view, so the draws must come from
the same law: a mutant that changes the noise must change its ``gaussian_view`` too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_real
from dpaudit.checks.budget_limits import Ceiling
from dpaudit.checks.claim_inputs import approx_dp_of, input_converter
from dpaudit.checks.empirical.loss_histogram import (
    GaussianLogDensityRatio,
    PrivacyLossHistogram,
    privacy_loss_histogram,
)
from dpaudit.checks.empirical.sampling import NeighbourPair, PairsConfig, neighbour_pairs, no_pairs, phase_seed
from dpaudit.errors import CheckerError
from dpaudit.kernel.checker_config import param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence, Measurement, delta_measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.views import AuditPairsView, GaussianView
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.rng import seed_sequence

__all__ = [
    "FIGURE_BINS",
    "ORDERS",
    "IsotropicGaussianLogDensityRatio",
    "PrivacyLossConfig",
    "check_privacy_loss_histogram",
    "histogram_figure",
    "log_density_ratio",
]

FIGURE_BINS = 200
"""The most bins a histogram figure shows (adjacent cells are merged)."""

ORDERS = ("X vs X'", "X' vs X")


@dataclass(frozen=True)
class IsotropicGaussianLogDensityRatio:
    """L(y) = ln N(y; μ, σ² I_d) − ln N(y; μ', σ'² I_d) for unequal standard deviations.

    L(y) = d ln(σ'/σ) + ‖y − μ'‖²/(2σ'²) − ‖y − μ‖²/(2σ²).

    Attributes:
        mean_first, mean_second: μ and μ' (flattened).
        sigma_first, sigma_second: σ and σ'.

    References:
        Balle, Gomrokchi & Precup 2016, supplementary Lemma 1, eq. (1) (the privacy loss of two
        Gaussians with data-dependent variances).
    """

    mean_first: tuple[float, ...]
    mean_second: tuple[float, ...]
    sigma_first: float
    sigma_second: float

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """The privacy loss of each row of ``outputs`` (shape (n, d))."""
        first = np.asarray(self.mean_first)
        second = np.asarray(self.mean_second)
        log_ratio = first.size * math.log(self.sigma_second / self.sigma_first)
        far = ((outputs - second) ** 2).sum(axis=1) / (2 * self.sigma_second**2)
        near = ((outputs - first) ** 2).sum(axis=1) / (2 * self.sigma_first**2)
        return log_ratio + far - near


def log_density_ratio(
    mechanism: object, pair: NeighbourPair
) -> GaussianLogDensityRatio | IsotropicGaussianLogDensityRatio:
    """The white-box privacy loss of ``pair`` from the mechanism's :class:`GaussianView`.

    Returns:
        :class:`GaussianLogDensityRatio` when both views share σ, else
        :class:`IsotropicGaussianLogDensityRatio`.

    Raises:
        CheckerError: when the mechanism does not implement :class:`GaussianView`.
        InvalidArgument: for non-finite means, mismatched shapes or σ <= 0.
    """
    if not isinstance(mechanism, GaussianView):
        raise CheckerError(
            f"mechanism {type(mechanism).__name__}: no white-box GaussianView (gaussian_view(data) -> (mean, sigma)), "
            "so the privacy loss of an output is unknown; use empirical_epsilon_lower_bound instead"
        )
    mean_first, sigma_first = mechanism.gaussian_view(pair.first)
    mean_second, sigma_second = mechanism.gaussian_view(pair.second)
    sigma_first = check_real("sigma", sigma_first, low=0.0, low_open=True)
    sigma_second = check_real("sigma", sigma_second, low=0.0, low_open=True)
    if sigma_first == sigma_second:
        return GaussianLogDensityRatio.of(mechanism, pair)
    first = check_finite_array("mean_first", mean_first).ravel()
    second = check_finite_array("mean_second", mean_second, shape=(first.size,)).ravel()
    return IsotropicGaussianLogDensityRatio(
        tuple(map(float, first)), tuple(map(float, second)), float(sigma_first), float(sigma_second)
    )


def histogram_figure(histogram: PrivacyLossHistogram, *, title: str, epsilon: float) -> dict[str, Any]:
    """The report figure (kind ``histogram``) of a privacy-loss histogram, merged to <= 200 bins.

    Cell 0 (losses below the grid) and the last cell (above it) are drawn one grid width wide
    at the ends; adjacent cells are merged so that at most :data:`FIGURE_BINS` bins remain.
    """
    counts = np.asarray(histogram.counts, dtype=np.int64)
    group = max(1, math.ceil(counts.size / FIGURE_BINS))
    padded = np.concatenate([counts, np.zeros(-counts.size % group, dtype=np.int64)])
    merged = padded.reshape(-1, group).sum(axis=1)
    width = histogram.grid.width * group
    start = histogram.grid.low - histogram.grid.width
    edges = start + width * np.arange(merged.size + 1)
    return {
        "kind": "histogram",
        "title": title,
        "x_label": "privacy loss ln p_X(y) / p_X'(y), y ~ M(X)",
        "y_label": "draws",
        "caption": f"{histogram.samples} draws; {group} grid cells per bin; the end bins hold the open tails",
        "series": [{"label": "draws per bin", "x": [float(e) for e in edges], "y": [int(c) for c in merged]}],
        "reference_lines": [{"axis": "x", "value": epsilon, "label": "claimed epsilon"}],
    }


@dataclass(frozen=True)
class PrivacyLossConfig(PairsConfig):
    """The params of the privacy-loss histogram: draws, confidence, bins and the pilot that fixes their range."""

    samples: int = param("draws per order of each pair", 10**6, low=100, high=Ceiling("samples"), quick_cap=100_000)
    confidence: float = param(
        "the probability that all certified bounds hold together", 0.95, low=0.5, high=1.0, high_open=True
    )
    bins: int = param(
        "histogram cells of the privacy loss (a figure merges them to <= 200)", 2048, low=2, high=Ceiling("bins")
    )
    pilot_samples: int = param("draws that fix the histogram's range", 10_000, low=10, high=Ceiling("samples"))


def _pairs(mechanism: Any, pairs: Any, context: CheckContext) -> list[NeighbourPair]:
    if pairs is not None:
        return neighbour_pairs(pairs, input_converter(context.claim))
    if not isinstance(mechanism, AuditPairsView):
        raise CheckerError(no_pairs(context.claim))
    return [p if isinstance(p, NeighbourPair) else NeighbourPair(*p) for p in mechanism.audit_pairs(context.relation)]


def _lower_bounds(
    mechanism: Any,
    pairs: list[NeighbourPair],
    settings: PrivacyLossConfig,
    context: CheckContext,
    *,
    alpha: float,
    epsilon: float,
) -> list[tuple[float, Any, str]]:
    """(δ(ε) lower bound at level ``alpha``, histogram, label) of every pair in both orders, each order
    sampled from its own phase seed of the obligation's seed."""
    root = seed_sequence(context.seed)
    results = []
    for i, pair in enumerate(pairs):
        for order, (first, second) in enumerate(((pair.first, pair.second), (pair.second, pair.first))):
            oriented = NeighbourPair(first, second, pair.label)
            histogram = privacy_loss_histogram(
                mechanism,
                oriented,
                log_density_ratio(mechanism, oriented),
                samples=settings.samples,
                seed=phase_seed(root, i, order),
                bins=settings.bins,
                pilot_samples=settings.pilot_samples,
                executor=context.executor,
            )
            label = f"{pair.label}, {ORDERS[order]}"
            results.append((histogram.delta_lower_bound(epsilon, alpha), histogram, label))
    return results


def _measurements(
    guarantee: ApproxDP, bound: float, estimate: float, histogram: Any, label: str, confidence: str
) -> tuple[Measurement, ...]:
    """The certified δ lower bound, the δ point estimate and the ε point estimate of the worst pair."""
    return (
        delta_measurement(
            guarantee,
            bound,
            f"lower bound at confidence {confidence} (empirical Bernstein, losses rounded down, union bound)",
            lower_bound=True,
            label=label,
        ),
        delta_measurement(guarantee, estimate, "point estimate (histogram, cell midpoints)", label=label),
        Measurement(
            quantity=f"epsilon at delta={guarantee.delta!r} ({label})",
            claimed=guarantee.epsilon,
            measured=histogram.epsilon_estimate(guarantee.delta),
            direction="point estimate (histogram, cell midpoints)",
        ),
    )


def _outcome(
    guarantee: ApproxDP, bound: float, estimate: float, label: str, samples: int, confidence: str
) -> tuple[dict[str, Any] | None, str]:
    """The counterexample (when the certified bound exceeds the claimed δ) and the summary's first part."""
    if bound > guarantee.delta:
        counterexample = {
            "pair": label,
            "delta_lower_bound": bound,
            "samples": samples,
            "event": "privacy loss ln p_X(y)/p_X'(y) > epsilon",
        }
        summary = (
            f"certified delta({guarantee.epsilon:g}) >= {bound:.4g} exceeds the claimed {guarantee.delta:g} "
            f"(confidence {confidence}) on {label}"
        )
        return counterexample, summary
    summary = (
        f"certified delta({guarantee.epsilon:g}) lower bound {bound:.4g} does not exceed the claimed "
        f"{guarantee.delta:g} (confidence {confidence}); point estimate {estimate:.4g}"
    )
    return None, summary


@register_checker(
    "privacy_loss_histogram",
    description="Monte Carlo privacy-loss histogram with a white-box Gaussian density ratio: certified delta "
    "lower bound at the claimed epsilon (empirical Bernstein), both orders of each pair",
    config=PrivacyLossConfig,
    requires_views=(GaussianView,),
)
def check_privacy_loss_histogram(obligation: Obligation, context: CheckContext) -> Evidence:
    """Bound δ(ε_claim) from below with the privacy-loss histogram of every pair, in both orders.

    Params: :class:`PrivacyLossConfig`; the pairs by default are the mechanism's ``audit_pairs(relation)``.

    References:
        Balle & Wang 2018, Theorem 5 (δ(ε) = E[(1 − e^{ε − L})₊] under M(X));
        Maurer & Pontil 2009, Theorem 4 (empirical Bernstein bound).
    """
    guarantee = approx_dp_of(context.claim)
    settings = parse_config(PrivacyLossConfig, obligation.params)
    mechanism = context.sampled_mechanism()
    pairs = _pairs(mechanism, settings.pairs, context)
    alpha = (1.0 - settings.confidence) / (2 * len(pairs))
    results = _lower_bounds(mechanism, pairs, settings, context, alpha=alpha, epsilon=guarantee.epsilon)
    bound, histogram, label = max(results, key=lambda item: item[0])
    estimate = histogram.delta_estimate(guarantee.epsilon)
    violated = bound > guarantee.delta
    confidence = f"{settings.confidence:.6g}"
    measurements = _measurements(guarantee, bound, estimate, histogram, label, confidence)
    counterexample, summary = _outcome(guarantee, bound, estimate, label, histogram.samples, confidence)
    summary += f"; {settings.samples} draws per order, {len(pairs)} pair(s)"
    return Evidence(
        verdict=Verdict.VIOLATED if violated else Verdict.CONSISTENT,
        summary=summary,
        domain=f"{len(pairs)} neighbouring pair(s) under {context.relation.name}, both orders: "
        + ", ".join(pair.label for pair in pairs[:4]),
        method="Monte Carlo privacy-loss histogram with the white-box Gaussian log-density ratio; delta lower "
        f"bound by empirical Bernstein on losses rounded down to {settings.bins}-cell grid edges, union bound "
        f"over {len(results)} bounds",
        measurements=measurements,
        budget={
            "samples_per_order": settings.samples,
            "confidence": settings.confidence,
            "bins": settings.bins,
            "bounds": len(results),
        },
        counterexample=counterexample,
        details={
            "bounds": [{"pair": name, "delta_lower_bound": value} for value, _, name in results],
            "figures": [
                histogram_figure(histogram, title=f"Privacy-loss histogram ({label})", epsilon=guarantee.epsilon)
            ],
        },
    )
