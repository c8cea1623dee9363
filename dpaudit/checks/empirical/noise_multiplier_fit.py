"""A parametric audit of a kind whose release is its reference's structure plus Gaussian noise of
one unknown multiplier: the multiplier fitted from the releases, then the kind's own exact worst
case at the fit.

Two kinds have it (:data:`NOISE_MODELS`): a subsampled Gaussian step (``gpope_step``: the sampled
sum or sampled record of the clipped gradients plus h·σ N(0, I), a mixture, whose leak sits in the
tails of a component of weight q = 1/m, where a model-free event needs millions of draws), and the
smooth-sensitivity Gaussian (``smooth_gaussian``: θ + α S(X) N(0, I), whose worst pair has two
variances about 2% apart, which a Gaussian fit of each side cannot resolve from 10^4 draws). Per kind:

1. **Noise alone.** On an input whose release is the multiplier times a known unit times Z (a table
   of zero gradients, unit h; θ = 0 with S(X) = 1, unit 1), the sum of squares SS of n releases of
   d coordinates is (unit · multiplier)² χ²(n d): the interval [lo, hi] with SS / (unit · m)²
   between the χ² quantiles at (1 − confidence)/2 is exact.
2. **Test of the model.** Anderson–Darling normality of those coordinates, and a Kolmogorov–Smirnov
   test of the first coordinate on a second input against the model's law there at the point
   estimate (gpope_step: first record h e_1, (1 − q) N(0, h²σ̂²) + q N(h, h²σ̂²); smooth_gaussian:
   θ = e_1 with S(X) = 2, N(1, 4α̂²)); the smaller p-value, doubled, must reach ``fit_alpha``. A
   candidate whose sampling, clipping, centre or noise differs from the model is rejected here and
   bounds nothing.
3. **Bound.** The kind's worst case at the multiplier (gpope_step: its worst step pair, an instance
   of real inputs, composed over ``steps`` by the certified privacy-loss distribution;
   smooth_gaussian: the exact δ(ε) of the configurations Lemma 1's relation admits at the
   reference's β, :func:`~dpaudit.privacy.calibration.lemma1_worst_case`). δ(ε) falls as the
   multiplier grows, so the certified lower end of δ at the claimed ε, at ``hi``, is a lower bound
   on the candidate's with the interval's confidence under the tested model; ``violated`` (under
   assumption) when it exceeds the claimed δ. The upper end at ``lo`` is reported too. Both are
   evaluated at :data:`SMALLEST_MULTIPLIER` at least (a valid, weaker bound below it).

References:
    Xie, Thomas & Miklau 2019, Algorithm 1 (steps 2, 5, 6); Zhu, Dong & Wang 2022 (the worst pairs of
    the Poisson-subsampled Gaussian); Balle, Gomrokchi & Precup 2016, Lemma 1; Casella & Berger 2002,
    Sec. 9.2 (the χ² pivot); D'Agostino & Stephens 1986, Sec. 4.8 (Anderson–Darling).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit.checks.claim_inputs import approx_dp_of
from dpaudit.checks.empirical.gaussian_projection import anderson_darling_p_value
from dpaudit.checks.empirical.parametric import DEFAULT_CONFIDENCE
from dpaudit.checks.empirical.samplers import as_sampler
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, delta_measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.gpope_step import GpopeStep
from dpaudit.mechanisms.smooth_gaussian import SmoothGaussianMechanism
from dpaudit.privacy.accounting.pld import compose_pairs
from dpaudit.privacy.calibration import lemma1_worst_case
from dpaudit.privacy.relations import Relation

stats = lazy_module("scipy.stats")

#: The smallest multiplier the kind's worst case is evaluated at. Below it the exact profiles grow costly
#: or overflow (sigma 0.01: 84 s, then an overflow) while delta there already exceeds 0.2 (sigma 0.3, q = 1/4)
#: or 0.7 (alpha 0.3); a smaller fitted multiplier is bounded at this one: delta falls as the multiplier grows,
#: so the bound stays valid, only weaker.
SMALLEST_MULTIPLIER = 0.3

__all__ = ["NOISE_MODELS", "NoiseModel", "NoiseMultiplierConfig", "check_noise_multiplier_fit", "multiplier_interval"]


@dataclass(frozen=True)
class NoiseModel:
    """What the fit needs of a kind (module docstring, items 1-3).

    Attributes:
        name: the multiplier's name in reports (``sigma``, ``alpha``).
        structure: the model in words.
        unit: the noise unit of the pure-noise input, from the claim's params.
        pure_noise: the input whose release is unit · multiplier · Z, from the params and the dimension d.
        witness: the second input, and the model's CDF of its first coordinate at a multiplier.
        delta_bounds: the certified [lower, upper] of the kind's worst-case δ at the claimed ε, at a multiplier.
        dimension: d from the params, or ``None`` (then the ``dimension`` param, the spec's pairs, else 2).
    """

    name: str
    structure: str
    unit: Callable[[Mapping[str, Any]], float]
    pure_noise: Callable[[Mapping[str, Any], int], Any]
    witness: Callable[[Mapping[str, Any], int], tuple[Any, Callable[[np.ndarray, float], np.ndarray]]]
    delta_bounds: Callable[[Mapping[str, Any], float, float, Relation, float], tuple[float, float]]
    dimension: Callable[[Mapping[str, Any]], int | None]


def _step_witness(params: Mapping[str, Any], d: int) -> tuple[Any, Callable[[np.ndarray, float], np.ndarray]]:
    step = GpopeStep(**params)
    h, q = step.clip_norm, step.sampling_probability
    table = [[h] + [0.0] * (d - 1)] + [[0.0] * d for _ in range(step.records - 1)]

    def cdf(y: np.ndarray, sigma: float) -> np.ndarray:
        return np.asarray((1.0 - q) * stats.norm.cdf(y / (h * sigma)) + q * stats.norm.cdf((y - h) / (h * sigma)))

    return table, cdf


def _step_delta(
    params: Mapping[str, Any], sigma: float, epsilon: float, relation: Relation, grid: float
) -> tuple[float, float]:
    step = GpopeStep(**params)
    at = GpopeStep(step.records, 1.0, sigma, step.steps, step.sampling)
    value = compose_pairs(at.step_pairs(relation).pairs, step.steps, interval=grid).delta(epsilon)
    return float(value.lower), float(value.upper)


def _smooth_witness(params: Mapping[str, Any], d: int) -> tuple[Any, Callable[[np.ndarray, float], np.ndarray]]:
    def cdf(y: np.ndarray, alpha: float) -> np.ndarray:
        return np.asarray(stats.norm.cdf((y - 1.0) / (2.0 * alpha)))

    return {"theta": [1.0] + [0.0] * (d - 1), "smooth_bound": 2.0}, cdf


def _smooth_delta(
    params: Mapping[str, Any], alpha: float, epsilon: float, relation: Relation, grid: float
) -> tuple[float, float]:
    reference = SmoothGaussianMechanism(**params)
    worst = lemma1_worst_case(epsilon, alpha, reference.parameters.beta, reference.dim).delta
    return float(worst.lower), float(worst.upper)


#: The kinds the fit knows, by name.
NOISE_MODELS: dict[str, NoiseModel] = {
    "gpope_step": NoiseModel(
        "sigma",
        "the sampled clipped gradients (the kind's sampling) plus h sigma N(0, I)",
        lambda params: float(GpopeStep(**params).clip_norm),
        lambda params, d: [[0.0] * d for _ in range(GpopeStep(**params).records)],
        _step_witness,
        _step_delta,
        lambda params: None,
    ),
    "smooth_gaussian": NoiseModel(
        "alpha",
        "theta + alpha S(X) N(0, I)",
        lambda params: 1.0,
        lambda params, d: {"theta": [0.0] * d, "smooth_bound": 1.0},
        _smooth_witness,
        _smooth_delta,
        lambda params: int(SmoothGaussianMechanism(**params).dim),
    ),
}


@dataclass(frozen=True)
class NoiseMultiplierConfig(CheckerConfig):
    """The params of the noise multiplier fit: draws per input, the dimension, the PLD grid, the
    interval's confidence and the model test's level; ``pairs`` only to read the dimension."""

    samples: int = param(
        "releases per input (the pure-noise input and the witness)", 50_000, low=100, high=10**7, quick_cap=20_000
    )
    dimension: int = param(
        "the release's dimension d where the kind does not fix it (0: the rows of the first of `pairs`, else 2)",
        0,
        low=0,
        high=10_000,
    )
    interval: float = param("the privacy-loss grid step of a certified profile", 1e-3, low=1e-6, high=0.1)
    confidence: float = param(
        "of the interval for the multiplier", DEFAULT_CONFIDENCE, low=0.5, high=1.0, high_open=True
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
        """Refuse a kind the fit has no model of (a pure claim is bounded like any other: its δ = 0 is
        exceeded by the kind's δ at the claimed ε, Gaussian noise being never pure DP)."""
        if claim.mechanism.name not in NOISE_MODELS:
            raise InvalidArgument(
                f"mechanism={claim.mechanism.name!r}: noise_multiplier_fit models {sorted(NOISE_MODELS)} only"
            )


def multiplier_interval(pure_noise: np.ndarray, unit: float, alpha: float) -> tuple[float, float]:
    """The exact two-sided interval at level 1 − ``alpha`` for m from releases unit · m · Z."""
    values = np.asarray(pure_noise, dtype=np.float64).ravel()
    squares = float(np.dot(values, values)) / unit**2
    low = np.sqrt(squares / stats.chi2.ppf(1.0 - alpha / 2, values.size))
    high = np.sqrt(squares / stats.chi2.ppf(alpha / 2, values.size))
    return float(low), float(high)


def _dimension(config: NoiseMultiplierConfig, model: NoiseModel, params: Mapping[str, Any]) -> int:
    fixed = model.dimension(params)
    if fixed is not None:
        return fixed
    if config.dimension:
        return config.dimension
    for pair in config.pairs or []:
        first = np.asarray(pair.get("first") if isinstance(pair, dict) else [], dtype=object)
        if first.ndim == 2 and first.shape[1] > 0:
            return int(first.shape[1])
    return 2


@register_checker(
    "noise_multiplier_fit",
    description="fits the one noise multiplier of a gpope_step or smooth_gaussian candidate from releases on a "
    "pure-noise input (an exact chi-square interval), tests the kind's law on a second input, and bounds delta by "
    "the kind's own exact worst case at the fit",
    config=NoiseMultiplierConfig,
    audits_candidates=True,
)
def check_noise_multiplier_fit(obligation: Obligation, context: CheckContext) -> Evidence:
    """Bound δ at the claimed ε from below under the kind's tested law with a fitted multiplier
    (see the module docstring)."""
    config = parse_config(NoiseMultiplierConfig, obligation.params)
    guarantee = approx_dp_of(context.claim)
    params = dict(context.claim.mechanism.params)
    model = NOISE_MODELS[context.claim.mechanism.name]
    n, d, unit = config.samples, _dimension(config, model, params), model.unit(params)
    sampler = as_sampler(context.sampled_mechanism())
    witness_input, witness_cdf = model.witness(params, d)
    noise = np.asarray(sampler(model.pure_noise(params, d), n, context.rng), dtype=np.float64).reshape(n, -1)
    witness = np.asarray(sampler(witness_input, n, context.rng), dtype=np.float64).reshape(n, -1)
    low, high = multiplier_interval(noise, unit, 1.0 - config.confidence)
    estimate = float(np.sqrt(np.mean(noise**2))) / unit
    p_value = 0.0  # no noise at all (or not finite) is not the model: the model-free checks judge it
    if estimate > 0 and np.all(np.isfinite(noise)) and np.all(np.isfinite(witness)) and np.std(noise) > 0:
        shaped = float(stats.kstest(witness[:, 0], lambda y: witness_cdf(y, estimate)).pvalue)
        p_value = min(1.0, 2.0 * min(anderson_darling_p_value(noise.ravel()), shaped))
    name = model.name
    assumption = (
        f"the release is {model.structure} with one unknown {name} (Anderson-Darling on the pure-noise input, "
        f"Kolmogorov-Smirnov of the model's law on the witness input, level {config.fit_alpha:g})"
    )
    domain = f"a pure-noise input and a witness input, {n} releases each (d = {d}); under assumption: {assumption}"
    method = (
        f"exact chi-square interval for {name} at {config.confidence * 100:.4g}%; the kind's exact worst case under "
        f"{context.relation.name} at the interval's ends"
    )
    fit = {f"{name}_estimate": estimate, f"{name}_lower": low, f"{name}_upper": high, "fit_p_value": p_value}
    if p_value < config.fit_alpha:
        return Evidence(
            Verdict.INCONCLUSIVE,
            f"no family fits: the model is rejected (p = {p_value:.2g}); no parametric bound, so this check leaves "
            "the claim's verdict to the model-free checks",
            domain,
            method,
            budget={"samples": n, "inputs": 2},
            details={"assumption": assumption, "fit": fit, "assumption_rejected": True},
        )
    epsilon, claimed = guarantee.epsilon, guarantee.delta
    lower, _ = model.delta_bounds(params, max(high, SMALLEST_MULTIPLIER), epsilon, context.relation, config.interval)
    upper = 1.0
    if low >= SMALLEST_MULTIPLIER:
        _, upper = model.delta_bounds(params, low, epsilon, context.relation, config.interval)
    violated = lower > claimed
    record = {**fit, "delta_lower": lower, f"delta_upper_at_{name}_lower": upper}
    return Evidence(
        Verdict.VIOLATED if violated else Verdict.CONSISTENT,
        f"{'violated' if violated else 'consistent'} under assumption: {model.structure} (fit p = {p_value:.2g}), "
        f"{name} in [{low:.5g}, {high:.5g}]; certified delta({epsilon:g}) >= {lower:.4g} against the claimed "
        f"{claimed:g} (at most {upper:.4g} at the interval's low end; {config.confidence * 100:.4g}% confidence)",
        domain,
        method,
        measurements=(
            delta_measurement(
                guarantee, lower, f"lower bound at confidence {config.confidence} under assumption", lower_bound=True
            ),
        ),
        budget={"samples": n, "inputs": 2},
        counterexample={"pair": f"the kind's worst case at the fitted {name}", **record} if violated else None,
        details={"assumption": assumption, "fit": record},
    )
