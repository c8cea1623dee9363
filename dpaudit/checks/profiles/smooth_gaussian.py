"""Rigorous checks of Lemma 1 (smooth-sensitivity Gaussian noise) with exact privacy profiles.

For each (ε, δ, d) of a grid, the named constant set gives (α, β); the exact worst-case
δ(ε) over every configuration that Lemma 1's conditions (a) (for both members of the pair)
and (b) admit is compared with the claimed δ (see :mod:`dpaudit.privacy.calibration` for the
reduction of the supremum).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import mpmath

from dpaudit._validation import check_choice
from dpaudit.checks.certificates.facts import certified_fact
from dpaudit.checks.claim_inputs import DigitsConfig
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Certificate, Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.smooth_gaussian import CONSTANT_SETS, smooth_gaussian_constants
from dpaudit.privacy.calibration import lemma1_worst_case

__all__ = ["Lemma1Config", "check_lemma1_exact_profile"]


@dataclass(frozen=True, kw_only=True)
class Lemma1Config(DigitsConfig):
    """The params of Lemma 1's check: the constant set and the grid of (epsilon, delta, d)."""

    constants: str | None = param(
        "the named constant set", None, choices=tuple(CONSTANT_SETS), default_text="the claim mechanism's (main_text)"
    )
    epsilons: tuple[float, ...] = param("the grid's epsilons", low=0.0, low_open=True)
    deltas: tuple[float, ...] = param("the grid's deltas", low=0.0, high=1.0, low_open=True, high_open=True)
    dims: tuple[int, ...] = param("the grid's dimensions d", low=1)
    alpha_factor: float = param("multiplies alpha (a planted mutant when != 1)", 1.0, low=0.0, low_open=True)

    def constant_set(self, claim: Claim) -> str:
        """The constant set: the param, else the claim mechanism's ``constants``, else ``main_text``.

        Raises:
            InvalidArgument: when the claim mechanism's ``constants`` names no set.
        """
        if self.constants is not None:
            return self.constants
        return str(
            check_choice("constants", claim.mechanism.params.get("constants", "main_text"), tuple(CONSTANT_SETS))
        )

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim mechanism whose ``constants`` names no set."""
        self.constant_set(claim)


def _audited_constants(context: CheckContext, name: str, epsilon: float, delta: float, dim: int) -> Any:
    """(α, β) at one grid point as the mechanism under audit computes them.

    For a ``smooth_gaussian`` claim the mechanism (reference or mutant) is rebuilt at the
    grid point and its resolved constants are used; otherwise the named set's formulas.
    """
    if context.claim.mechanism.name != "smooth_gaussian":
        return smooth_gaussian_constants(name, epsilon, delta, dim)
    mechanism = replace(context.mechanism(), epsilon=epsilon, delta=delta, dim=dim, constants=name)
    return mechanism.parameters


def _point_text(epsilon: float, delta: float, dim: int) -> str:
    return f"epsilon={epsilon:g}, delta={delta:g}, d={dim}"


@dataclass(frozen=True)
class _PointResult:
    """One grid point of Lemma 1 decided: its verdict, text, exact/claimed δ ratio (upper end), the
    certified fact, the measurement, and the counterexample when it is violated."""

    verdict: Verdict
    point: str
    ratio: Any
    fact: Any
    measurement: Measurement
    counterexample: dict[str, Any] | None


def _decide_point(
    epsilon: float, delta: float, dim: int, constants: Any, alpha_factor: float, digits: int
) -> _PointResult:
    """Lemma 1 at one (ε, δ, d): the exact worst-case δ(ε) over its admissible configurations against δ."""
    alpha = constants.alpha * alpha_factor
    worst = lemma1_worst_case(epsilon, alpha, constants.beta, dim, digits=digits)
    claimed = mpmath.mpf(delta)
    if worst.delta.upper <= claimed:
        verdict = Verdict.VERIFIED
    elif worst.delta.lower > claimed:
        verdict = Verdict.VIOLATED
    else:
        verdict = Verdict.INCONCLUSIVE
    point = _point_text(epsilon, delta, dim)
    fact = certified_fact(
        "gaussian_pair_delta",
        f"worst-case delta at {point}",
        {
            "shift": worst.pair.shift,
            "sigma1": worst.pair.sigma1,
            "sigma2": worst.pair.sigma2,
            "dim": dim,
            "epsilon": epsilon,
        },
        (worst.delta.lower, worst.delta.upper),
        delta,
    )
    measurement = Measurement(
        quantity=f"worst-case delta at {point} (alpha={alpha:.6g}, beta={constants.beta:.6g})",
        claimed=delta,
        measured=worst.delta.value,
        margin=claimed - worst.delta.value,
        direction=f"exact, absolute error <= {mpmath.nstr(worst.delta.error, 3)} ({worst.delta.digits} digits)",
        interval=(worst.delta.lower, worst.delta.upper),
    )
    counterexample = None
    if verdict is Verdict.VIOLATED:
        pair = worst.pair
        counterexample = {
            "epsilon": epsilon,
            "delta": delta,
            "dim": dim,
            "alpha": alpha,
            "beta": constants.beta,
            "sigma_X": pair.sigma1,
            "sigma_X_prime": pair.sigma2,
            "mean_distance": pair.shift,
            "condition_a": f"min(sigma_X, sigma_X')/alpha = {pair.shift!r} = ||mu_X - mu_X'||",
            "condition_b": f"|ln sigma_X^2 - ln sigma_X'^2| = {abs(2 * math.log(pair.sigma2)):.17g} <= beta",
            "event": "privacy loss ln(p_X/p_X') > epsilon (a ball or its complement, see profiles)",
            "exact_delta": mpmath.nstr(worst.delta.value, 17),
        }
    return _PointResult(verdict, point, worst.delta.upper / claimed, fact, measurement, counterexample)


@register_checker(
    "lemma1_exact_profile",
    description="Lemma 1 (smooth Gaussian) on a grid: exact worst-case delta over admissible (shift, variance ratio)",
    config=Lemma1Config,
)
def check_lemma1_exact_profile(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide Lemma 1 for a named constant set on a grid of (ε, δ, d) with the exact profile.

    Per grid point: ``verified`` when the upper end of the exact worst-case δ(ε) is at most
    the claimed δ, ``violated`` when its lower end exceeds it (the configuration is the
    counterexample), ``inconclusive`` otherwise; points outside the source's preconditions
    are skipped and listed. The obligation's verdict is violated if any point is, else the
    weakest point verdict.

    The constants are those of the mechanism under audit (a mutant's when one is set) for
    a ``smooth_gaussian`` claim, else the named set's formulas.

    Params: :class:`Lemma1Config`.

    References:
        Balle, Gomrokchi & Precup 2016, Lemma 1 (main text) and supplementary Lemma 1.
    """
    config = parse_config(Lemma1Config, obligation.params)
    name = config.constant_set(context.claim)
    digits, alpha_factor = config.digits, config.alpha_factor
    results: list[_PointResult] = []
    skipped = []
    for epsilon in config.epsilons:
        for delta in config.deltas:
            for dim in config.dims:
                if not smooth_gaussian_constants(name, epsilon, delta, dim).preconditions_met:
                    skipped.append(_point_text(epsilon, delta, dim))
                    continue
                constants = _audited_constants(context, name, epsilon, delta, dim)
                results.append(_decide_point(epsilon, delta, dim, constants, alpha_factor, digits))
    if not results:
        raise InvalidArgument(f"constants={name!r}: every grid point is outside the lemma's preconditions")
    verdicts = [result.verdict for result in results]
    worst_margin_point = max(results, key=lambda result: result.ratio)  # the first of the largest ratios
    counterexample = next((result.counterexample for result in results if result.counterexample is not None), None)
    facts = [result.fact for result in results]
    measurements = [result.measurement for result in results]
    verdict = Verdict.VIOLATED if Verdict.VIOLATED in verdicts else min(verdicts, key=lambda v: v.strength)
    # sorted, not set order: the report must not depend on PYTHONHASHSEED
    counts = {v.value: verdicts.count(v) for v in sorted(set(verdicts), key=lambda v: v.strength)}
    mutant = "" if alpha_factor == 1.0 else f" with alpha multiplied by {alpha_factor:g} (planted mutant)"
    summary = (
        f"Lemma 1 ({name} constants{mutant}): {len(verdicts)} grid points, {counts}; largest exact/claimed "
        f"delta ratio {mpmath.nstr(worst_margin_point.ratio, 4)} at {worst_margin_point.point}"
    )
    certificate = None
    if verdict is Verdict.VERIFIED:
        certificate = Certificate(
            method=f"noncentral chi-square series in mpmath at {digits}+20 digits",
            facts=tuple(facts),
            assumption="per grid point the supremum over Lemma 1's admissible configurations is attained at the "
            "boundary shift min(sigma_X, sigma_X')/alpha with ln(sigma_X'^2/sigma_X^2) in {+-beta, +-beta/2, 0} "
            "(dpaudit.privacy.calibration; a finite set standing for a continuum, not proved here)",
        )
    return Evidence(
        verdict=verdict,
        summary=summary,
        certificate=certificate,
        domain=(
            f"grid epsilons x deltas x dims = {len(verdicts)} points"
            + (f" ({len(skipped)} outside the preconditions skipped)" if skipped else "")
            + "; per point every shift and variance ratio allowed by (a) for both variances and (b), reduced to "
            "the boundary shift min(sigma_X, sigma_X')/alpha and ln(sigma_X'^2/sigma_X^2) in {±beta, ±beta/2, 0}"
        ),
        method=(
            f"exact privacy profile of the Gaussian pair (noncentral chi-square series in mpmath at {digits}+20 "
            "digits, error from two precisions and series truncation bounds)"
        ),
        measurements=tuple(measurements),
        budget={"grid_points": len(verdicts), "skipped_points": len(skipped), "digits": digits},
        counterexample=counterexample,
        details={"constants": name, "alpha_factor": alpha_factor, "skipped": skipped},
    )
