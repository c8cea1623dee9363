"""Gaussian output perturbation with a data-dependent variance (smooth sensitivity).

The release is θ_X + N(0, σ_X² I_d) with σ_X = α · S(X), where S is an upper bound on the
local L2 sensitivity that changes by at most a factor e^{β/2} between neighbours; then
σ_X >= α ‖θ_X − θ_X'‖₂ and |ln σ_X² − ln σ_X'²| <= β are conditions (a) and (b) of
Lemma 1. The constants (α, β) come from a named set: the main-text Lemma 1, the
supplementary Lemma 1, or the tight set certified by :mod:`dpaudit.privacy.calibration`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from dpaudit._records import record_json
from dpaudit._validation import (
    check_choice,
    check_finite_array,
    check_integer,
    check_real,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.interface import (
    CandidateSignature,
    InputDomain,
    Mechanism,
    Neighbourhood,
    OutputSpec,
)
from dpaudit.privacy.calibration import calibrate_smooth_gaussian
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rng import normalize_rng

__all__ = [
    "CONSTANT_SETS",
    "MECHANISM",
    "SmoothGaussianConstants",
    "SmoothGaussianMechanism",
    "main_text_constants",
    "smallest_smooth_upper_bound",
    "smooth_gaussian_constants",
    "supplementary_constants",
    "tight_constants",
]


@dataclass(frozen=True)
class SmoothGaussianConstants:
    """A named constant set (α, β) of Lemma 1 for one (ε, δ, d).

    Attributes:
        name: ``main_text``, ``supplementary`` or ``tight``.
        epsilon, delta, dim: the guarantee and dimension the constants are for.
        alpha: α of condition (a), σ_X >= α ‖μ_X − μ_X'‖₂.
        beta: β of condition (b), |ln σ_X² − ln σ_X'²| <= β.
        source: where the constants are stated.
        preconditions: the source's preconditions on (ε, δ, d), in words.
        preconditions_met: whether they hold for these (ε, δ, d).
    """

    name: str
    epsilon: float
    delta: float
    dim: int
    alpha: float
    beta: float
    source: str
    preconditions: tuple[str, ...] = ()
    preconditions_met: bool = True

    def to_json(self) -> dict[str, Any]:
        """The JSON form: every field, the preconditions as a list."""
        return record_json(self)


def _check_target(epsilon: float, delta: float, dim: int) -> tuple[float, float, int]:
    return (
        check_real("epsilon", epsilon, low=0.0, low_open=True),
        check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True),
        check_integer("dim", dim, low=1),
    )


def main_text_constants(epsilon: float, delta: float, dim: int) -> SmoothGaussianConstants:
    """Lemma 1 of the main text: α = 5√(2 ln(2/δ))/ε, β = ε/(4d + 4 ln(2/δ)); no stated preconditions.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1 (Sec. 4, attributed to Nissim et al. 2011);
        the same constants in Algorithms 1 and 2 (β written ε/(4(d + ln(2/δ)))).
    """
    epsilon, delta, dim = _check_target(epsilon, delta, dim)
    log_term = math.log(2 / delta)
    return SmoothGaussianConstants(
        name="main_text",
        epsilon=epsilon,
        delta=delta,
        dim=dim,
        alpha=5 * math.sqrt(2 * log_term) / epsilon,
        beta=epsilon / (4 * dim + 4 * log_term),
        source="Balle, Gomrokchi & Precup 2016, Lemma 1 (main text, Sec. 4); Algorithms 1-2",
    )


SUPPLEMENTARY_PRECONDITIONS = ("epsilon <= 5", "beta <= ln 2")


def supplementary_constants(epsilon: float, delta: float, dim: int) -> SmoothGaussianConstants:
    """Supplementary Lemma 1: α = 15√(2 ln(4/δ))/ε, β = (2 ln 2) ε / (5 (√d + √(2 ln(4/δ)))²).

    The statement writes β as "(2 ln 2)ε/5(√d + √(2 ln(4/δ)))²"; the proof (eq. (18) with
    ϵ = ε/5) fixes the reading with the square in the denominator. Preconditions: ε <= 5
    and β <= ln 2 (``preconditions_met`` says whether they hold).

    References:
        Balle, Gomrokchi & Precup 2016, supplementary material, Lemma 1 and eqs. (6), (7), (17), (18)
        (appendix Lemma 14 of the arXiv version).
    """
    epsilon, delta, dim = _check_target(epsilon, delta, dim)
    log_term = math.log(4 / delta)
    beta = 2 * math.log(2) * epsilon / (5 * (math.sqrt(dim) + math.sqrt(2 * log_term)) ** 2)
    return SmoothGaussianConstants(
        name="supplementary",
        epsilon=epsilon,
        delta=delta,
        dim=dim,
        alpha=15 * math.sqrt(2 * log_term) / epsilon,
        beta=beta,
        source="Balle, Gomrokchi & Precup 2016, supplementary Lemma 1 (Lemma 14 of the appendix)",
        preconditions=SUPPLEMENTARY_PRECONDITIONS,
        preconditions_met=epsilon <= 5 and beta <= math.log(2),
    )


@functools.lru_cache(maxsize=64)
def _tight(epsilon: float, delta: float, dim: int) -> SmoothGaussianConstants:
    calibration = calibrate_smooth_gaussian(epsilon, delta, dim, pareto_points=0)
    return SmoothGaussianConstants(
        name="tight",
        epsilon=epsilon,
        delta=delta,
        dim=dim,
        alpha=calibration.alpha,
        beta=calibration.beta,
        source=(
            "dpaudit calibration: smallest alpha for the main-text beta whose exact worst-case delta "
            f"is <= delta (certified {mpmath.nstr(calibration.certified_delta.value, 12)} "
            f"at {calibration.digits} digits)"
        ),
    )


def tight_constants(epsilon: float, delta: float, dim: int) -> SmoothGaussianConstants:
    """The main-text β with the smallest α certified by the exact profile (cached per (ε, δ, d)).

    References:
        :func:`dpaudit.privacy.calibration.calibrate_smooth_gaussian`.
    """
    return _tight(*_check_target(epsilon, delta, dim))


CONSTANT_SETS: dict[str, Callable[[float, float, int], SmoothGaussianConstants]] = {
    "main_text": main_text_constants,
    "supplementary": supplementary_constants,
    "tight": tight_constants,
}


def smooth_gaussian_constants(name: str, epsilon: float, delta: float, dim: int) -> SmoothGaussianConstants:
    """The constant set ``name`` (``main_text``, ``supplementary`` or ``tight``) for (ε, δ, d).

    Raises:
        InvalidArgument: for an unknown name (listing the known ones) or bad (ε, δ, d).
    """
    check_choice("constants", name, tuple(CONSTANT_SETS))
    return CONSTANT_SETS[name](epsilon, delta, dim)


def smallest_smooth_upper_bound(local_bounds: Any, beta: float) -> np.ndarray:
    """The smallest β-smooth upper bound ψ = max_k e^{−kβ} φ_k of Lemma 4, from the values φ_k.

    Args:
        local_bounds: φ_k for k = 0..K along the last axis, where φ_k(v) is the largest value of
            φ on signatures within ℓ∞ distance k of v. Entries must be finite, >= 0 and
            nondecreasing in k, and φ_k must be constant for k >= K (as for φ_X(k) with
            k >= K_X in DP-LSW), so the supremum over k >= 0 is attained within 0..K.
        beta: β > 0.

    Returns:
        ψ, an array with the last axis removed (a 0-d array for a 1-d input).

    Raises:
        InvalidArgument: for non-finite, negative or decreasing φ_k, or β <= 0.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 4, eq. (16) (after Nissim et al. 2007).
    """
    beta = check_real("beta", beta, low=0.0, low_open=True)
    values = check_finite_array("local_bounds", local_bounds, nonnegative=True)
    if values.ndim == 0 or values.shape[-1] == 0:
        raise InvalidArgument("local_bounds: expected phi_k for k = 0..K along the last axis")
    if (np.diff(values, axis=-1) < 0).any():
        raise InvalidArgument("local_bounds: phi_k must be nondecreasing in k (a maximum over growing balls)")
    discounts = np.exp(-beta * np.arange(values.shape[-1]))
    return np.max(values * discounts, axis=-1)


@dataclass(frozen=True)
class SmoothGaussianMechanism:
    """Gaussian output perturbation with σ_X = α · S(X) for a named constant set.

    The data are θ_X (the vector to release) and S(X), an upper bound on the local L2
    sensitivity with |ln S(X) − ln S(X')| <= β/2 for neighbours, so that Lemma 1's
    conditions (a) and (b) hold with the set's (α, β).

    Attributes:
        epsilon, delta: the target guarantee.
        dim: the dimension d of θ_X.
        constants: the constant-set name (``main_text``, ``supplementary``, ``tight``).
        parameters: the resolved constants (computed at construction).

    Raises:
        InvalidArgument: for bad arguments, or the supplementary set outside its preconditions.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1; Algorithms 1-2 (σ_X built from ψ_X).
    """

    epsilon: float
    delta: float
    dim: int
    constants: str = "main_text"
    parameters: SmoothGaussianConstants = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        epsilon, delta, dim = _check_target(self.epsilon, self.delta, self.dim)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "dim", dim)
        parameters = smooth_gaussian_constants(self.constants, epsilon, delta, dim)
        if not parameters.preconditions_met:
            raise InvalidArgument(
                f"constants={self.constants!r}: preconditions {list(parameters.preconditions)} fail at "
                f"epsilon={epsilon!r}, delta={delta!r}, dim={dim} (beta={parameters.beta!r})"
            )
        object.__setattr__(self, "parameters", parameters)

    def noise_scale(self, smooth_bound: float) -> float:
        """σ_X = α · S(X) for a smooth bound S(X) > 0."""
        bound = check_real("smooth_bound", smooth_bound, low=0.0, low_open=True)
        return self.parameters.alpha * bound

    def gaussian_view(self, theta: Any, smooth_bound: float) -> tuple[np.ndarray, float]:
        """White-box view: the mean θ_X and the standard deviation σ_X = α · S(X)."""
        mean = check_finite_array("theta", theta, shape=(self.dim,))
        return mean, self.noise_scale(smooth_bound)

    def release(self, theta: Any, smooth_bound: float, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Return θ_X + N(0, σ_X² I_d); with ``size``, a batch of ``size`` independent releases (rows)."""
        mean, sigma = self.gaussian_view(theta, smooth_bound)
        generator = normalize_rng(rng)
        shape = mean.shape if size is None else (check_integer("size", size, low=1), *mean.shape)
        return mean + sigma * generator.standard_normal(shape)


def _plain_theta_and_bound(data: Any) -> dict[str, Any]:
    return {
        "theta": [float(v) for v in np.asarray(data["theta"], dtype=np.float64).ravel()],
        "smooth_bound": float(data["smooth_bound"]),
    }


def _theta_and_bound(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or set(data) != {"theta", "smooth_bound"}:
        raise InvalidArgument(f"input={data!r}: expected a table with keys 'theta' (a vector) and 'smooth_bound'")
    return {
        "theta": check_finite_array("theta", data["theta"], ndim=1),
        "smooth_bound": check_real("smooth_bound", data["smooth_bound"], low=0.0, low_open=True),
    }


def _release_on_theta_and_bound(
    reference: SmoothGaussianMechanism, data: Any, rng: np.random.Generator, size: int | None
) -> np.ndarray:
    """The release adapter: ``release(theta, smooth_bound, ...)`` on one table {theta, smooth_bound}."""
    return reference.release(data["theta"], data["smooth_bound"], rng=rng, size=size)


def _lemma1_distance(first: Any, second: Any, relation: Any, params: Any) -> float:
    """Lemma 1's conditions in units of their bounds, in both orders of the pair (a relation is
    symmetric): max(||θ - θ'|| / min(S(X), S(X')), |ln S(X) - ln S(X')| / (β/2))."""
    a, b = _theta_and_bound(first), _theta_and_bound(second)
    if a["theta"].shape != b["theta"].shape:
        return float("inf")
    beta = SmoothGaussianMechanism(**params).parameters.beta
    moved = float(np.linalg.norm(a["theta"] - b["theta"])) / min(a["smooth_bound"], b["smooth_bound"])
    log_ratio = abs(math.log(a["smooth_bound"]) - math.log(b["smooth_bound"])) / (beta / 2)
    return max(moved, log_ratio)


#: Smooth bounds S(X) the input search starts from: a small S (noise that a rounded or floored
#: S removes), the unit, a large S.
SEARCH_SMOOTH_BOUNDS = (1e-3, 1.0, 1e3)

#: Query values θ the input search starts from (a branch may skip the noise above some magnitude).
SEARCH_THETAS = (0.0, 1e3, 1e6)

#: How far inside Lemma 1's edges the searched pairs sit (the conditions are inequalities).
_INSIDE = 1.0 - 1e-9


def _lemma1_edges(start: dict[str, Any], beta: float) -> tuple[list[tuple[dict[str, Any], str]], ...]:
    """Partners of ``start`` at Lemma 1's edges, most informative first: S(X') = S(X) e^{±β/2}
    together with θ moved by min(S(X), S(X')) (along the first axis, both signs, and spread over
    every coordinate); then θ moved by S(X) alone and S moved alone."""
    theta = np.asarray(start["theta"], dtype=np.float64)
    bound = float(start["smooth_bound"])
    axis = np.zeros(theta.size)
    axis[0] = 1.0
    directions = (("+e_1", axis), ("-e_1", -axis), ("spread", np.full(theta.size, 1.0 / math.sqrt(theta.size))))
    ratios = (("S e^{beta/2}", math.exp(beta / 2 * _INSIDE)), ("S e^{-beta/2}", math.exp(-beta / 2 * _INSIDE)))

    def moved(ratio: float, direction: np.ndarray) -> dict[str, Any]:
        allowed = min(bound, bound * ratio) * _INSIDE
        step = allowed * direction
        # θ + step rounds: shrink the step until the move that is stored stays inside the relation
        while np.linalg.norm((theta + step) - theta) > allowed:
            step *= 1.0 - 1e-6
        return {"theta": theta + step, "smooth_bound": bound * ratio}

    together = [
        (moved(ratio, direction), f"theta moved by min(S, S') along {direction_name}, S(X') = {ratio_name}")
        for ratio_name, ratio in ratios
        for direction_name, direction in directions
    ]
    alone = [(moved(1.0, direction), f"theta moved by S along {name}, S unchanged") for name, direction in directions]
    alone += [(moved(ratio, 0.0 * axis), f"theta unchanged, S(X') = {name}") for name, ratio in ratios]
    return together, alone


def _explore(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """Pairs at the edges of Lemma 1's relation (the largest shift and log-ratio together first)
    from the spec's inputs and from θ at :data:`SEARCH_THETAS` with S(X) at :data:`SEARCH_SMOOTH_BOUNDS`."""
    beta = SmoothGaussianMechanism(**params).parameters.beta
    starts = [(f"given input {index}", _theta_and_bound(pair[0])) for index, pair in enumerate(pairs)]
    dim = int(params["dim"])
    starts += [
        (f"theta = {value:g} everywhere, S(X) = {bound:g}", {"theta": np.full(dim, value), "smooth_bound": bound})
        for bound in SEARCH_SMOOTH_BOUNDS
        for value in SEARCH_THETAS
    ]
    tiers: tuple[list[tuple[Any, Any, str]], ...] = ([], [])
    for name, start in starts:
        plain = _plain_theta_and_bound(start)
        for tier, partners in zip(tiers, _lemma1_edges(start, beta), strict=True):
            tier += [(plain, _plain_theta_and_bound(other), f"search: {name}, {text}") for other, text in partners]
    return [*tiers[0], *tiers[1]]


MECHANISM = Mechanism(
    name="smooth_gaussian",
    description="theta_X + N(0, (alpha S(X))^2 I) with a smooth sensitivity bound S (Balle et al. 2016, Lemma 1)",
    factory=SmoothGaussianMechanism,
    input_domain=InputDomain(
        "theta_and_bound", "a table {theta = [...], smooth_bound = S(X)}", _plain_theta_and_bound, _theta_and_bound
    ),
    relations=(REPLACE_ONE, ADD_REMOVE_ONE),
    neighbourhood=Neighbourhood(
        "||theta - theta'||_2 <= min(S(X), S(X')) and |ln S(X) - ln S(X')| <= beta/2 (Lemma 1 (a), (b), both orders), "
        "beta of the `constants` set at (epsilon, delta, dim): main_text and tight epsilon / (4 dim + 4 ln(2/delta)), "
        "supplementary (2 ln 2) epsilon / (5 (sqrt(dim) + sqrt(2 ln(4/delta)))^2)",
        _lemma1_distance,
        lambda params, relation: 1.0,
        explore=_explore,
    ),
    output=OutputSpec("theta + noise: a vector of length dim", lambda params, data: (int(params["dim"]),)),
    candidate=CandidateSignature(
        "data", "smooth_gaussian(data, *, epsilon, delta, dim, constants='main_text', rng) -> ndarray"
    ),
    source="Balle, Gomrokchi & Precup 2016, Lemma 1",
    noise_family="gaussian_release",
    release_adapter=_release_on_theta_and_bound,
)
