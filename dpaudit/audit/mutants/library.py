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

from dpaudit._validation import check_finite_array
from dpaudit.audit.mutants.gpope_step_variants import (
    GpopeStepClipAfterNoise,
    GpopeStepComplementSampling,
    GpopeStepLinfClip,
    GpopeStepMissingClip,
    GpopeStepNoiseNotScaledByClip,
)
from dpaudit.errors import InvalidArgument, UnknownName
from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.policy_evaluation import bounds
from dpaudit.mechanisms.policy_evaluation.intermediates import DpLslIntermediates, DpLswIntermediates
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.mechanisms.smooth_gaussian import (
    SmoothGaussianMechanism,
    smooth_gaussian_constants,
)
from dpaudit.rng import normalize_rng

__all__ = ["FAMILIES", "MUTANTS", "Mutant", "get_mutant", "list_mutants"]

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
        UnknownName: naming the known mutants (and the closest) when ``name`` is unknown.
    """
    for mutant in MUTANTS:
        if mutant.name == name:
            return mutant
    raise UnknownName("mutant", name, (mutant.name for mutant in MUTANTS))


def _check_unique() -> None:
    names = [mutant.name for mutant in MUTANTS]
    if len(set(names)) != len(names):
        raise InvalidArgument(f"mutant names must be unique: {names}")


_check_unique()
