"""A parametric audit of a subsampled Gaussian step (``gpope_step``) from its releases: the noise
scale fitted, then the mechanism's own privacy profile at the fit.

A one-step release of a subsampled Gaussian is a mixture, not a Gaussian, so the Gaussian fits do not
describe it (:mod:`dpaudit.checks.empirical.gaussian_release_fit`); and its leak sits in the tails of
a component of weight q = 1/m, where a model-free event needs millions of draws. The model here is
the kind's own structure with one unknown, the noise multiplier σ: the release is the sampled sum
(``poisson``) or the sampled record (``uniform_one``) of the clipped gradients, plus h·σ N(0, I).

1. **Noise alone.** On a table of ``records`` zero gradients every release is h·σ Z under the model,
   so the sum of squares SS of n releases of d coordinates is h²σ² χ²(n d): the interval
   [σ_lo, σ_hi] with SS / (h² σ²) between the χ² quantiles at (1 − confidence)/2 is exact.
2. **Test of the model.** Anderson–Darling normality of the zero table's coordinates, and a
   Kolmogorov–Smirnov test of the first coordinate on the table whose first record is h e_1 (the
   others 0) against the model's law there, (1 − q) N(0, h²σ̂²) + q N(h, h²σ̂²) for both schemes;
   the smaller p-value, doubled, must reach ``fit_alpha``. A candidate whose sampling, clipping or
   noise differs from the model is rejected here and bounds nothing.
3. **Bound.** The kind's worst pair per step (:meth:`~dpaudit.mechanisms.gpope_step.GpopeStep.step_pairs`,
   each an instance of real inputs) composed over ``steps`` by the certified privacy-loss
   distribution: ε(δ) decreases in σ, so the lower end of its enclosure at σ_hi is a lower bound on
   the candidate's ε with the interval's confidence, under the tested model; ``violated`` (under
   assumption) when it exceeds the claimed ε. The upper end at σ_lo is reported too.

References:
    Xie, Thomas & Miklau 2019, Algorithm 1 (steps 2, 5, 6); Mironov, Talwar & Zhang 2019 and Zhu,
    Dong & Wang 2022 (the worst pairs of the Poisson-subsampled Gaussian); Casella & Berger 2002,
    Sec. 9.2 (the χ² pivot); D'Agostino & Stephens 1986, Sec. 4.8 (Anderson–Darling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from dpaudit.checks.claim_inputs import approx_dp_of
from dpaudit.checks.empirical.gaussian_projection import anderson_darling_p_value
from dpaudit.checks.empirical.parametric import DEFAULT_CONFIDENCE
from dpaudit.checks.empirical.samplers import as_sampler
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, epsilon_measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gpope_step import GpopeStep
from dpaudit.privacy.accounting.pld import compose_pairs

__all__ = ["SubsampledFitConfig", "check_subsampled_gaussian_fit", "noise_multiplier_interval"]


@dataclass(frozen=True)
class SubsampledFitConfig(CheckerConfig):
    """The params of the subsampled Gaussian fit: draws per table, the gradients' dimension, the PLD grid,
    the interval's confidence and the model test's level; ``pairs`` only to read the dimension."""

    samples: int = param(
        "releases per table (the zero table and the one-record table)", 50_000, low=100, high=10**7, quick_cap=20_000
    )
    dimension: int = param(
        "the gradients' dimension d (0: the rows of the first of `pairs`, else 2)", 0, low=0, high=10_000
    )
    interval: float = param("the privacy-loss grid step of the certified profile", 1e-3, low=1e-6, high=0.1)
    confidence: float = param(
        "of the interval for the noise multiplier", DEFAULT_CONFIDENCE, low=0.5, high=1.0, high_open=True
    )
    fit_alpha: float = param(
        "the model test's level; a rejected model bounds nothing and leaves the verdict to the other checks",
        0.01,
        low=0.0,
        high=0.5,
        low_open=True,
    )
    pairs: Any = param("the spec's neighbouring pairs, if any: only their rows' length is read", None)

    def check_claim(self, claim: Claim) -> None:
        """Refuse a pure claim (a Gaussian step is never pure DP) and a mechanism that is not a step."""
        if approx_dp_of(claim).delta == 0:
            raise InvalidArgument("a subsampled Gaussian is never pure DP: subsampled_gaussian_fit needs delta > 0")
        if claim.mechanism.name != "gpope_step":
            raise InvalidArgument(
                f"mechanism={claim.mechanism.name!r}: subsampled_gaussian_fit fits gpope_step's releases only"
            )


def noise_multiplier_interval(zero_releases: np.ndarray, clip_norm: float, alpha: float) -> tuple[float, float]:
    """The exact two-sided interval at level 1 − ``alpha`` for σ from releases h·σ Z on a zero table."""
    values = np.asarray(zero_releases, dtype=np.float64).ravel()
    freedom = values.size
    squares = float(np.dot(values, values)) / clip_norm**2
    low = np.sqrt(squares / stats.chi2.ppf(1.0 - alpha / 2, freedom))
    high = np.sqrt(squares / stats.chi2.ppf(alpha / 2, freedom))
    return float(low), float(high)


def _dimension(config: SubsampledFitConfig) -> int:
    if config.dimension:
        return config.dimension
    for pair in config.pairs or []:
        first = np.asarray(pair.get("first") if isinstance(pair, dict) else [], dtype=object)
        if first.ndim == 2 and first.shape[1] > 0:
            return int(first.shape[1])
    return 2


def _model_p_value(zero: np.ndarray, witness: np.ndarray, step: GpopeStep, sigma: float) -> float:
    """The smaller of the two tests' p-values (module docstring, item 2), doubled."""
    h, q = step.clip_norm, step.sampling_probability
    normal = anderson_darling_p_value(zero.ravel())
    scale = h * sigma

    def mixture(y: np.ndarray) -> np.ndarray:
        return np.asarray((1.0 - q) * stats.norm.cdf(y / scale) + q * stats.norm.cdf((y - h) / scale))

    shaped = float(stats.kstest(witness[:, 0], mixture).pvalue)
    return min(1.0, 2.0 * min(normal, shaped))


@register_checker(
    "subsampled_gaussian_fit",
    description="fits the noise multiplier of a subsampled Gaussian step from its releases on a zero table (an exact "
    "chi-square interval), tests the kind's mixture law, and bounds epsilon by the certified PLD of its worst pair",
    config=SubsampledFitConfig,
    audits_candidates=True,
)
def check_subsampled_gaussian_fit(obligation: Obligation, context: CheckContext) -> Evidence:
    """Bound ε from below under the kind's tested mixture law with a fitted σ (see the module docstring)."""
    config = parse_config(SubsampledFitConfig, obligation.params)
    guarantee = approx_dp_of(context.claim)
    params = dict(context.claim.mechanism.params)
    step = GpopeStep(**params)
    n, d, h = config.samples, _dimension(config), step.clip_norm
    sampler = as_sampler(context.sampled_mechanism())
    zero_table = [[0.0] * d for _ in range(step.records)]
    witness_table = [[h] + [0.0] * (d - 1)] + [[0.0] * d for _ in range(step.records - 1)]
    zero = np.asarray(sampler(zero_table, n, context.rng), dtype=np.float64).reshape(n, -1)
    witness = np.asarray(sampler(witness_table, n, context.rng), dtype=np.float64).reshape(n, -1)
    low, high = noise_multiplier_interval(zero, h, 1.0 - config.confidence)
    estimate = float(np.sqrt(np.mean(zero**2))) / h
    p_value = _model_p_value(zero, witness, step, estimate)
    assumption = (
        f"the release is the {step.sampling} sampled clipped gradients plus h sigma N(0, I) with one unknown sigma "
        f"(Anderson-Darling on the zero table, Kolmogorov-Smirnov of the mixture on the one-record table, level "
        f"{config.fit_alpha:g})"
    )
    domain = (
        f"a table of {step.records} zero gradients (d = {d}) and one with its first record at h e_1, {n} releases "
        f"each; under assumption: {assumption}"
    )
    method = (
        f"exact chi-square interval for sigma at {config.confidence * 100:.4g}%; the worst step pair under "
        f"{context.relation.name} composed over {step.steps} step(s), certified PLD (grid {config.interval:g})"
    )
    fit = {"sigma_estimate": estimate, "sigma_lower": low, "sigma_upper": high, "fit_p_value": p_value}
    budget = {"samples": n, "tables": 2}
    if p_value < config.fit_alpha:
        return Evidence(
            Verdict.INCONCLUSIVE,
            f"no family fits: the subsampled Gaussian model is rejected (p = {p_value:.2g}); no parametric bound, so "
            "this check leaves the claim's verdict to the model-free checks",
            domain,
            method,
            budget=budget,
            details={"assumption": assumption, "fit": fit, "assumption_rejected": True},
        )
    lower = _epsilon(step, high, context, config, guarantee.delta).lower
    upper = _epsilon(step, low, context, config, guarantee.delta).upper
    violated = float(lower) > guarantee.epsilon
    wording = "violated under assumption" if violated else "consistent under assumption"
    summary = (
        f"{wording}: subsampled Gaussian step (fit p = {p_value:.2g}), sigma in [{low:.5g}, {high:.5g}]; certified "
        f"epsilon >= {float(lower):.4g} at delta={guarantee.delta:g} against the claimed {guarantee.epsilon:g} "
        f"(at most {float(upper):.4g} at the interval's low end; {config.confidence * 100:.4g}% confidence)"
    )
    measurement = epsilon_measurement(
        guarantee, float(lower), f"lower bound at confidence {config.confidence} under assumption", lower_bound=True
    )
    record = {**fit, "epsilon_lower": float(lower), "epsilon_upper_at_sigma_lower": float(upper)}
    return Evidence(
        Verdict.VIOLATED if violated else Verdict.CONSISTENT,
        summary,
        domain,
        method,
        measurements=(measurement,),
        budget=budget,
        counterexample={"pair": "the kind's worst step pair at the fitted sigma", **record} if violated else None,
        details={"assumption": assumption, "fit": record},
    )


def _epsilon(step: GpopeStep, sigma: float, context: CheckContext, config: SubsampledFitConfig, delta: float) -> Any:
    """The certified enclosure of ε(δ) of the step at noise multiplier ``sigma``, composed over its steps."""
    at = GpopeStep(step.records, 1.0, sigma, step.steps, step.sampling)
    return compose_pairs(at.step_pairs(context.relation).pairs, step.steps, interval=config.interval).epsilon(delta)
