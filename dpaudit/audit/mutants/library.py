"""The mutant library: realistic privacy bugs planted in the reference mechanisms.

Each mutant is a small subclass of a reference mechanism's frozen dataclass that
overrides one method (or one derived constant) the way a plausible implementation
slip would. A mutant is a *bug* only if it breaks a proof obligation or the claim;
``tests/audit/test_mutants.py`` shows that for each one by a direct computation,
independently of the auditor. ``dpaudit mutants`` (see :mod:`dpaudit.audit.mutants.runs`)
audits each mutant with its spec(s) under ``specs/mutants/`` and reports which
obligation caught it.

References:
    DeMillo, Lipton & Sayward 1978 (mutation analysis); Jia & Harman 2011 (survey);
    the mechanisms' papers are cited on each mutant class.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.policy_evaluation import bounds
from dpaudit.mechanisms.policy_evaluation.private import (
    DPLSL,
    DPLSW,
    DpLslIntermediates,
    DpLswIntermediates,
)
from dpaudit.mechanisms.smooth_gaussian import (
    SmoothGaussianMechanism,
    smooth_gaussian_constants,
)
from dpaudit.mechanisms.subsampled_gaussian import UNIFORM_ONE, GpopeStep
from dpaudit.rng import normalize_rng

__all__ = [
    "FAMILIES",
    "MUTANTS",
    "Mutant",
    "get_mutant",
    "list_mutants",
]

FAMILIES = ("gaussian", "balle2016", "xie2019", "gohari2020")
"""Gaussian / smooth-sensitivity Gaussian; Balle DP-LSW and DP-LSL; Xie GPOPE; Gohari Dirichlet."""


# ---------------------------------------------------------------- Gaussian / smooth Gaussian


class GaussianSigmaAsVariance(GaussianMechanism):
    """Gaussian mechanism that passes σ where a variance is expected: the noise std is √σ.

    The slip of writing ``rng.multivariate_normal(mean, sigma * I)`` (a covariance) for
    N(0, σ² I). For σ > 1 the noise is smaller than stated: the pair at distance Δ sees
    N(0, σ) vs N(Δ, σ), whose exact ε at the claimed δ exceeds the claim's.

    Breaks: the claimed (ε, δ) (Balle & Wang 2018, Theorem 8, with σ replaced by √σ).
    """

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        value = check_finite_array("data", data)
        generator = normalize_rng(rng)
        shape = value.shape if size is None else (size, *value.shape)
        return value + math.sqrt(self.sigma) * generator.standard_normal(shape)


class GaussianSharedNoise(GaussianMechanism):
    """Gaussian mechanism that draws one noise value per release and adds it to every coordinate.

    The slip of ``value + rng.normal(0, sigma)`` without ``size``: the noise vector is
    Z·(1, ..., 1), so y₁ − y₂ = f(X)₁ − f(X)₂ exactly. Two neighbours that differ in one
    coordinate are told apart with certainty (ε = ∞ on the event y₁ − y₂ > Δ/2).

    Breaks: the claimed (ε, δ) for any δ < 1 when d >= 2 (Dwork & Roth 2014, Def. 2.4).
    """

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        value = check_finite_array("data", data)
        generator = normalize_rng(rng)
        batch = () if size is None else (size,)
        shared = generator.standard_normal((*batch, *(1,) * value.ndim))
        return value + self.sigma * shared


class SmoothGaussianBetaWithoutDimension(SmoothGaussianMechanism):
    """Smooth-sensitivity Gaussian whose β is computed for d = 1 whatever the dimension.

    β of Lemma 1 shrinks with d (main text: ε/(4d + 4 ln(2/δ))); computing it once with
    d = 1 lets σ_X vary between neighbours by more than the (α, β) pair was calibrated
    for, and the variance ratio's privacy loss grows like d·β/2. With the tight α (the
    smallest α certified for the correct β), the exact worst-case δ(ε) exceeds δ.

    Breaks: Lemma 1 (Balle, Gomrokchi & Precup 2016, Lemma 1, condition (b) calibration).
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        beta = smooth_gaussian_constants(self.constants, self.epsilon, self.delta, 1).beta
        object.__setattr__(self, "parameters", dataclasses.replace(self.parameters, beta=beta))


# ---------------------------------------------------------------- Balle et al. 2016: DP-LSW, DP-LSL


class DpLswVarianceForStd(DPLSW):
    """DP-LSW with σ_X proportional to ψ_X instead of √ψ_X (variance used for standard deviation).

    ψ_X bounds the *squared* sensitivity (φ^w of eq. (9) is a sum of squared terms), so
    Algorithm 1 takes its square root. Without it σ_X scales like the square of the
    sensitivity: for weights w = 0.01 (ψ_X < 1) the noise falls below α ‖θ_X − θ_X'‖₂.

    Breaks: Lemma 1 condition (a), σ_X >= α ‖θ_X − θ_X'‖₂ (Balle et al. 2016, Algorithm 1, eq. (14)).
    """

    def intermediates_from_statistics(self, statistics: Any) -> DpLswIntermediates:
        record = super().intermediates_from_statistics(statistics)
        sigma = self.alpha * self.return_bound * self.pinv_norm * record.psi
        return dataclasses.replace(record, sigma=float(sigma))


class DpLswBetaWithoutDimension(DPLSW):
    """DP-LSW whose smoothing β is computed for d = 1 instead of the number of features d.

    ψ_X = max_k e^{−kβ} φ(k) is β-smooth only for the β it is computed with; a β that is
    too large (d dropped from ε/(4d + 4 ln(2/δ))) lets ln σ_X² change by more than the
    paper's β between neighbours.

    Breaks: Lemma 1 condition (b), |ln σ_X² − ln σ_X'²| <= β (Balle et al. 2016, Algorithm 1; Lemma 4).
    """

    @property
    def beta(self) -> float:
        return smooth_gaussian_constants(self.constant_set, self.epsilon, self.delta, 1).beta


class DpLswNormOfMatrix(DPLSW):
    """DP-LSW that uses ‖Γ^{1/2} Φ‖ where eq. (13) has the norm of its pseudo-inverse ‖(Γ^{1/2} Φ)^†‖.

    The wrong norm: the spectral norm of the matrix instead of its pseudo-inverse
    (1/σ_max instead of 1/σ_min after inverting the slip). For weights w = 0.01 the
    factor is 0.1 instead of 10, so σ_X is 100 times too small.

    Breaks: Lemma 1 condition (a) (Balle et al. 2016, eq. (13)-(14), Algorithm 1).
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        weighted = np.sqrt(self.estimator.w)[:, None] * self.estimator.phi
        object.__setattr__(self, "pinv_norm", float(np.linalg.norm(weighted, 2)))


class DpLslKRangeOffByOne(DPLSL):
    """DP-LSL that maximises e^{−kβ} φ^λ(k) over k = 0..m−1 instead of 0..m (``range(m)``).

    The last term matters: φ^λ(k) grows with k until every min{|X_s| + k, m} saturates
    at k = m − min_s |X_s|, so a dataset with an unvisited state needs k = m. Without it
    ψ_X is no longer a β-smooth bound and σ_X jumps between neighbours.

    Breaks: Lemma 1 condition (b) (Balle et al. 2016, Algorithm 2, eq. (12); Lemma 4).
    """

    def intermediates_from_statistics(self, statistics: Any) -> DpLslIntermediates:
        record = super().intermediates_from_statistics(statistics)
        psi, k_star = bounds.smooth_maximum(record.phi_profile[:-1], self.beta)
        sigma = bounds.lsl_sigma(self.alpha, self.return_bound, self.phi_norm, self.lam, self.rho_inf, psi)
        return dataclasses.replace(record, psi=psi, k_argmax=k_star, sigma=float(sigma))


# ---------------------------------------------------------------- Xie et al. 2019: GPOPE's step


def _clip_rows(values: np.ndarray, bound: float, order: Any = 2) -> np.ndarray:
    norms = np.linalg.norm(values, ord=order, axis=-1, keepdims=True)
    return values / np.maximum(1.0, norms / bound)


class _GpopeStepVariant(GpopeStep):
    """GPOPE's step with hooks for one slip each; with no override it equals the reference.

    :meth:`release` consumes the generator exactly like :meth:`GpopeStep.release`, so the
    unmodified hooks give identical draws (checked in the tests).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        """Step 5: clip each record's gradient to ℓ2 norm h."""
        return _clip_rows(values, self.clip_norm)

    def selection_probability(self) -> float:
        """The probability with which ``poisson`` sampling keeps each record."""
        return self.sampling_probability

    def noise_scale(self) -> float:
        """The noise standard deviation per coordinate (h·σ)."""
        return self.noise_std

    def after_noise(self, noisy: np.ndarray) -> np.ndarray:
        """What happens to the noisy gradient (nothing)."""
        return noisy

    def release(self, gradients: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        values = check_finite_array("gradients", gradients, ndim=2)
        if values.shape[0] != self.records:
            raise InvalidArgument(f"gradients: expected {self.records} rows (one per record), got {values.shape[0]}")
        clipped = self.clip_gradients(values)
        generator = normalize_rng(rng)
        count = 1 if size is None else check_integer("size", size, low=1)
        if self.sampling == UNIFORM_ONE:
            chosen = clipped[generator.integers(0, self.records, size=count)]
        else:
            mask = generator.random((count, self.records)) < self.selection_probability()
            chosen = mask.astype(np.float64) @ clipped
        noisy = self.after_noise(chosen + self.noise_scale() * generator.standard_normal(chosen.shape))
        return noisy[0] if size is None else noisy


class GpopeStepMissingClip(_GpopeStepVariant):
    """GPOPE step without the clipping of step 5 (the clamp is missing).

    An unclipped gradient has unbounded norm, so one record moves the output mean by
    an arbitrary amount while the noise stays h·σ.

    Breaks: the per-step sensitivity 2h behind Lemma 1 and every (ε, δ) of Theorem 1
    (Xie, Thomas & Miklau 2019, Algorithm 1 step 5; Appendix B.1).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        return values


class GpopeStepClipAfterNoise(_GpopeStepVariant):
    """GPOPE step that adds the noise first and clips the noisy gradient afterwards.

    Clipping after noise bounds the output, not the sensitivity: a large gradient
    survives as the *direction* of the clipped output (noise cannot hide it when the
    gradient dwarfs h·σ), and clipping is post-processing of an unbounded-sensitivity
    release.

    Breaks: the per-step sensitivity 2h (Xie et al. 2019, Algorithm 1, steps 5-6 in that order).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        return values

    def after_noise(self, noisy: np.ndarray) -> np.ndarray:
        return _clip_rows(noisy, self.clip_norm)


class GpopeStepLinfClip(_GpopeStepVariant):
    """GPOPE step that clips each gradient to ℓ∞ norm h instead of ℓ2 norm h (wrong norm).

    An ℓ∞-clipped vector in R^n has ℓ2 norm up to h√n, so the ℓ2 sensitivity the noise
    h·σ was calibrated for (2h) grows to 2h√n.

    Breaks: the per-step sensitivity behind Lemma 1 (Xie et al. 2019, Algorithm 1 step 5, ℓ2 clipping).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        return _clip_rows(values, self.clip_norm, order=np.inf)


class GpopeStepComplementSampling(_GpopeStepVariant):
    """Poisson-sampled GPOPE step that keeps each record with probability 1 − 1/m instead of 1/m.

    The comparison flipped (``random() > q``): privacy amplification by sampling assumes
    the differing record is used with probability q = 1/m; at 1 − q it is almost always
    used. (In ``uniform_one`` mode the slip has no effect; it is audited under ``poisson``.)

    Breaks: the sampling probability q = 1/m of Lemma 1's mixture (Xie et al. 2019, eqs. (B.6)-(B.9)).
    """

    def selection_probability(self) -> float:
        return 1.0 - self.sampling_probability


class GpopeStepNoiseNotScaledByClip(_GpopeStepVariant):
    """GPOPE step that adds N(0, σ² I) instead of h·N(0, σ² I): the noise ignores the clip norm.

    The noise must scale with the sensitivity (a multiple of h); with h = 2 the noise is
    half of what the accountant assumes.

    Breaks: step 6 of Algorithm 1 (h ζ with ζ ~ N(0, σ² I)) and Lemma 1's calibration (Xie et al. 2019).
    """

    def noise_scale(self) -> float:
        return self.noise_multiplier


# ---------------------------------------------------------------- Gohari et al. 2020: Dirichlet


class DirichletKTimesDimension(DirichletMechanism):
    """Dirichlet mechanism that samples Dir(k·n·p) instead of Dir(k·p) (k off by the dimension n).

    The slip of treating k as a per-coordinate concentration: the effective k is n times
    the stated one, and the privacy loss grows with k (the output concentrates on p).

    Breaks: the claimed (ε, δ) of the Dirichlet mechanism (Gohari et al. 2020, Sec. II-D).
    """

    def concentration(self, data: Any) -> np.ndarray:
        alpha = super().concentration(data)
        return alpha * alpha.size


# ---------------------------------------------------------------- the library


@dataclass(frozen=True)
class Mutant:
    """One planted bug and how it is audited.

    Attributes:
        name: unique, kebab-case.
        family: one of :data:`FAMILIES`.
        reference: the registered mechanism the mutant replaces.
        factory: builds the mutant from the claim's public parameters (a subclass of the
            reference's dataclass).
        specs: the spec files (under ``specs/mutants/``) it is audited with.
        bug: the slip, in one line.
        breaks: the privacy property it breaks, with its source.
        fast: part of the small subset the default CI test runs.
    """

    name: str
    family: str
    reference: str
    factory: Callable[..., Any]
    specs: tuple[str, ...]
    bug: str
    breaks: str
    fast: bool = False

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise InvalidArgument(f"family={self.family!r}: expected one of {', '.join(FAMILIES)}")
        if not self.specs:
            raise InvalidArgument(f"mutant {self.name!r}: expected at least one spec")

    @property
    def why(self) -> str:
        """The factory's docstring: why the mutant is a real bug."""
        return " ".join((self.factory.__doc__ or "").split())

    def to_json(self) -> dict[str, Any]:
        """The JSON form used in the detection table."""
        return {
            "name": self.name,
            "family": self.family,
            "reference": self.reference,
            "factory": f"{self.factory.__module__}.{self.factory.__qualname__}",
            "specs": list(self.specs),
            "bug": self.bug,
            "breaks": self.breaks,
        }


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "gaussian-sigma-as-variance",
        "gaussian",
        "gaussian",
        GaussianSigmaAsVariance,
        ("gaussian_sigma4.toml",),
        "sigma passed as a covariance: noise std sqrt(sigma)",
        "the claimed (epsilon, delta) (Balle & Wang 2018, Thm 8)",
        fast=True,
    ),
    Mutant(
        "gaussian-shared-noise",
        "gaussian",
        "gaussian",
        GaussianSharedNoise,
        ("gaussian_sigma4.toml",),
        "one noise draw added to every coordinate",
        "the claimed (epsilon, delta) for d >= 2",
    ),
    Mutant(
        "smooth-gaussian-beta-without-d",
        "gaussian",
        "smooth_gaussian",
        SmoothGaussianBetaWithoutDimension,
        ("smooth_gaussian_tight.toml",),
        "beta of Lemma 1 computed for d = 1",
        "Lemma 1 (Balle et al. 2016): exact worst-case delta > delta",
        fast=True,
    ),
    Mutant(
        "dp-lsw-variance-for-std",
        "balle2016",
        "dp_lsw",
        DpLswVarianceForStd,
        ("balle2016_dp_lsw_weighted.toml",),
        "sigma_X proportional to psi_X, not sqrt(psi_X)",
        "Lemma 1 (a) (Balle et al. 2016, Alg. 1, eq. (14))",
        fast=True,
    ),
    Mutant(
        "dp-lsw-beta-without-d",
        "balle2016",
        "dp_lsw",
        DpLswBetaWithoutDimension,
        ("balle2016_dp_lsw_weighted.toml",),
        "smoothing beta computed for d = 1",
        "Lemma 1 (b) (Balle et al. 2016, Alg. 1; Lemma 4)",
    ),
    Mutant(
        "dp-lsw-norm-of-matrix",
        "balle2016",
        "dp_lsw",
        DpLswNormOfMatrix,
        ("balle2016_dp_lsw_weighted.toml",),
        "||Gamma^1/2 Phi|| used for ||(Gamma^1/2 Phi)^+||",
        "Lemma 1 (a) (Balle et al. 2016, eq. (13)-(14))",
    ),
    Mutant(
        "dp-lsl-k-range-off-by-one",
        "balle2016",
        "dp_lsl",
        DpLslKRangeOffByOne,
        ("balle2016_dp_lsl_small_rho.toml",),
        "psi maximised over k = 0..m-1 instead of 0..m",
        "Lemma 1 (b) (Balle et al. 2016, Alg. 2, eq. (12))",
    ),
    Mutant(
        "gpope-step-missing-clip",
        "xie2019",
        "gpope_step",
        GpopeStepMissingClip,
        ("xie2019_gpope_step_poisson.toml",),
        "gradient not clipped (step 5 missing)",
        "per-step sensitivity 2h (Xie et al. 2019, Alg. 1)",
        fast=True,
    ),
    Mutant(
        "gpope-step-clip-after-noise",
        "xie2019",
        "gpope_step",
        GpopeStepClipAfterNoise,
        ("xie2019_gpope_step_poisson.toml",),
        "noise added before clipping",
        "per-step sensitivity 2h (Xie et al. 2019, Alg. 1 steps 5-6)",
    ),
    Mutant(
        "gpope-step-linf-clip",
        "xie2019",
        "gpope_step",
        GpopeStepLinfClip,
        ("xie2019_gpope_step_poisson.toml",),
        "gradient clipped in the l-inf norm instead of l2",
        "per-step l2 sensitivity (Xie et al. 2019, Alg. 1 step 5)",
    ),
    Mutant(
        "gpope-step-complement-sampling",
        "xie2019",
        "gpope_step",
        GpopeStepComplementSampling,
        ("xie2019_gpope_step_poisson.toml",),
        "records kept with probability 1 - 1/m instead of 1/m",
        "sampling probability of Lemma 1 (Xie et al. 2019, eqs. (B.6)-(B.9))",
    ),
    Mutant(
        "gpope-step-noise-not-scaled-by-clip",
        "xie2019",
        "gpope_step",
        GpopeStepNoiseNotScaledByClip,
        ("xie2019_gpope_step_poisson.toml",),
        "noise N(0, sigma^2) instead of h N(0, sigma^2)",
        "noise calibration of Lemma 1 (Xie et al. 2019, Alg. 1 step 6)",
    ),
    Mutant(
        "dirichlet-k-times-dimension",
        "gohari2020",
        "dirichlet",
        DirichletKTimesDimension,
        ("gohari2020_dirichlet_tight.toml",),
        "Dir(k n p) sampled instead of Dir(k p)",
        "the claimed (epsilon, delta) (Gohari et al. 2020, Sec. II-D)",
        fast=True,
    ),
)


def list_mutants(names: Any = None) -> list[Mutant]:
    """The library's mutants, in table order; with ``names``, only those (in the given order).

    Raises:
        InvalidArgument: naming the known mutants when a name is unknown.
    """
    if names is None:
        return list(MUTANTS)
    return [get_mutant(name) for name in names]


def get_mutant(name: str) -> Mutant:
    """The mutant called ``name``.

    Raises:
        InvalidArgument: naming the known mutants when ``name`` is unknown.
    """
    for mutant in MUTANTS:
        if mutant.name == name:
            return mutant
    known = ", ".join(mutant.name for mutant in MUTANTS)
    raise InvalidArgument(f"mutant={name!r}: unknown mutant; known mutants: {known}")


def _check_unique() -> None:
    names = [mutant.name for mutant in MUTANTS]
    if len(set(names)) != len(names):
        raise InvalidArgument(f"mutant names must be unique: {names}")


_check_unique()
