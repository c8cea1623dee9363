"""Checks of (ε, δ) claims about the Gaussian mechanism: exact profile and Monte Carlo.

The neighbouring pair is worst-case for the Gaussian mechanism: f(X) = 0 and f(X') = Δ
along one axis (the profile depends only on ‖f(X) − f(X')‖₂, and is largest at Δ).
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.audit.claims import Claim, Obligation
from dpaudit.audit.evidence import Evidence, Measurement
from dpaudit.audit.registry import CheckContext, register_checker
from dpaudit.audit.verdicts import Verdict
from dpaudit.checks.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.registry import build_mechanism
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.profiles import gaussian_delta, gaussian_epsilon

__all__ = ["check_gaussian_exact_profile", "check_gaussian_threshold_monte_carlo"]


def _approx_dp_of(claim: Claim) -> ApproxDP:
    if not isinstance(claim.guarantee, ApproxDP):
        raise InvalidArgument(
            f"claim {claim.id!r}: guarantee kind={claim.guarantee.kind!r}: this checker needs approx_dp"
        )
    return claim.guarantee


def _gaussian_of(claim: Claim) -> Any:
    if claim.mechanism.name != "gaussian":
        raise InvalidArgument(f"claim {claim.id!r}: mechanism={claim.mechanism.name!r}: this checker needs 'gaussian'")
    return build_mechanism(claim.mechanism.name, claim.mechanism.params)


def _validate_exact(params: dict[str, Any], claim: Claim) -> None:
    _approx_dp_of(claim)
    _gaussian_of(claim)
    unknown = set(params) - {"digits"}
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected only 'digits'")
    check_integer("digits", params.get("digits", 60), low=50)


@register_checker(
    "gaussian_exact_profile",
    description="exact delta(epsilon) of the Gaussian mechanism (Balle-Wang 2018) in mpmath, with error bound",
    validate=_validate_exact,
)
def check_gaussian_exact_profile(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an ApproxDP claim for the Gaussian mechanism with the exact privacy profile.

    ``verified`` when the rigorous upper end of δ(ε_claim) is at most δ_claim,
    ``violated`` when its lower end exceeds δ_claim, ``inconclusive`` otherwise.

    References:
        Balle & Wang 2018, Theorem 8.
    """
    guarantee = _approx_dp_of(context.claim)
    mechanism = _gaussian_of(context.claim)
    digits = int(obligation.params.get("digits", 60))
    exact = gaussian_delta(guarantee.epsilon, mechanism.sensitivity, mechanism.sigma, digits=digits)
    eps_low, eps_high = gaussian_epsilon(guarantee.delta, mechanism.sensitivity, mechanism.sigma, digits=digits)
    claimed_delta = mpmath.mpf(guarantee.delta)
    if exact.upper <= claimed_delta:
        verdict = Verdict.VERIFIED
    elif exact.lower > claimed_delta:
        verdict = Verdict.VIOLATED
    else:
        verdict = Verdict.INCONCLUSIVE
    measurements = (
        Measurement(
            quantity=f"delta at epsilon={guarantee.epsilon!r}",
            claimed=guarantee.delta,
            measured=exact.value,
            margin=claimed_delta - exact.value,
            direction=f"exact, absolute error <= {mpmath.nstr(exact.error, 3)} ({exact.digits} digits)",
            interval=(exact.lower, exact.upper),
        ),
        Measurement(
            quantity=f"epsilon at delta={guarantee.delta!r}",
            claimed=guarantee.epsilon,
            measured=eps_high,
            margin=mpmath.mpf(guarantee.epsilon) - eps_high,
            direction="upper end of a bisection enclosure (relative width <= 1e-15)",
            interval=(eps_low, eps_high),
        ),
    )
    sigma, sensitivity = mechanism.sigma, mechanism.sensitivity
    counterexample = None
    if verdict is Verdict.VIOLATED:
        threshold = sigma**2 * guarantee.epsilon / sensitivity + sensitivity / 2
        counterexample = {
            "neighbours": {"f(X)": [0.0], "f(X')": [sensitivity]},
            "event": f"first coordinate > {threshold!r} (privacy loss > epsilon)",
            "delta_of_event": mpmath.nstr(exact.value, 12),
        }
    summary = (
        f"exact delta({guarantee.epsilon:g}) = {mpmath.nstr(exact.value, 6)} vs claimed {guarantee.delta:g}; "
        f"exact epsilon at delta={guarantee.delta:g} is {mpmath.nstr(eps_high, 11)}"
    )
    return Evidence(
        verdict=verdict,
        summary=summary,
        domain=f"the worst-case pair ‖f(X) − f(X')‖₂ = Δ = {sensitivity:g}, sigma = {sigma:g} (exact, all events)",
        method=f"closed-form profile in mpmath at {exact.digits} digits, error from two precisions",
        measurements=measurements,
        budget={"digits": exact.digits},
        counterexample=counterexample,
    )


def _validate_monte_carlo(params: dict[str, Any], claim: Claim) -> None:
    _approx_dp_of(claim)
    _gaussian_of(claim)
    unknown = set(params) - {"samples", "confidence", "thresholds"}
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected samples, confidence, thresholds")
    check_integer("samples", params.get("samples", 10**6), low=100)
    check_real("confidence", params.get("confidence", 0.95), low=0.5, high=1.0, high_open=True)
    check_integer("thresholds", params.get("thresholds", 200), low=1)


def _certify_direction(
    first: np.ndarray, second: np.ndarray, upper_tail: bool, thresholds: int, alpha: float, delta: float
) -> dict[str, Any]:
    """Choose a threshold event on the first halves, certify it on the second halves."""
    half = first.size // 2
    select_p, certify_p = first[:half], first[half:]
    select_q, certify_q = second[:half], second[half:]
    candidates = np.quantile(select_p, np.linspace(0.5, 1.0 - 1.0 / half, thresholds))
    sorted_p, sorted_q = np.sort(select_p), np.sort(select_q)
    if upper_tail:
        p_counts = half - np.searchsorted(sorted_p, candidates, side="right")
        q_counts = half - np.searchsorted(sorted_q, candidates, side="right")
    else:
        p_counts = np.searchsorted(sorted_p, candidates, side="left")
        q_counts = np.searchsorted(sorted_q, candidates, side="left")
    estimates = np.log(np.maximum(p_counts / half - delta, 1e-300)) - np.log(np.maximum(q_counts, 1) / half)
    threshold = float(candidates[int(np.argmax(estimates))])
    n = certify_p.size
    in_p = int(np.count_nonzero(certify_p > threshold if upper_tail else certify_p < threshold))
    in_q = int(np.count_nonzero(certify_q > threshold if upper_tail else certify_q < threshold))
    p_lower = clopper_pearson_lower(in_p, n, alpha)
    q_upper = clopper_pearson_upper(in_q, certify_q.size, alpha)
    return {
        "event": f"y {'>' if upper_tail else '<'} {threshold!r}",
        "count_first": in_p,
        "count_second": in_q,
        "certify_samples": n,
        "p_lower": p_lower,
        "q_upper": q_upper,
        "epsilon_lower_bound": epsilon_lower_bound(p_lower, q_upper, delta),
    }


@register_checker(
    "gaussian_threshold_monte_carlo",
    description="Monte Carlo epsilon lower bound from threshold events with Clopper-Pearson bounds",
    validate=_validate_monte_carlo,
)
def check_gaussian_threshold_monte_carlo(obligation: Obligation, context: CheckContext) -> Evidence:
    """Test an ApproxDP claim of the Gaussian mechanism from its outputs alone.

    Samples the mechanism on the pair f(X) = 0, f(X') = Δ, picks the best threshold event
    per direction on one half of the samples and certifies it on the other half with
    one-sided Clopper–Pearson bounds. The four bounds (two per direction) share the
    error budget 1 − confidence (union bound). ``violated`` only if a certified lower
    bound on ε exceeds the claim; otherwise ``consistent``.
    """
    guarantee = _approx_dp_of(context.claim)
    mechanism = _gaussian_of(context.claim)
    samples = int(obligation.params.get("samples", 10**6))
    confidence = float(obligation.params.get("confidence", 0.95))
    thresholds = int(obligation.params.get("thresholds", 200))
    alpha = (1.0 - confidence) / 4.0
    outputs_x = mechanism.release(np.zeros(1), rng=context.rng, size=samples)[:, 0]
    outputs_y = mechanism.release(np.full(1, mechanism.sensitivity), rng=context.rng, size=samples)[:, 0]
    directions = [
        _certify_direction(outputs_x, outputs_y, False, thresholds, alpha, guarantee.delta),
        _certify_direction(outputs_y, outputs_x, True, thresholds, alpha, guarantee.delta),
    ]
    best = max(directions, key=lambda item: item["epsilon_lower_bound"])
    bound = best["epsilon_lower_bound"]
    verdict = Verdict.VIOLATED if bound > guarantee.epsilon else Verdict.CONSISTENT
    counterexample = None
    if verdict is Verdict.VIOLATED:
        counterexample = {"neighbours": {"f(X)": [0.0], "f(X')": [mechanism.sensitivity]}, "event": best["event"]}
    return Evidence(
        verdict=verdict,
        summary=(
            f"certified epsilon lower bound {bound:.4g} at {confidence:.0%} confidence vs claimed "
            f"{guarantee.epsilon:g} ({samples} samples per side)"
        ),
        domain=f"the pair f(X) = 0, f(X') = {mechanism.sensitivity:g}; threshold events",
        method="Monte Carlo, held-out threshold selection, one-sided Clopper-Pearson, union bound over 4 bounds",
        measurements=(
            Measurement(
                quantity=f"epsilon at delta={guarantee.delta!r}",
                claimed=guarantee.epsilon,
                measured=bound,
                margin=guarantee.epsilon - bound,
                direction=f"lower bound at {confidence:.0%} confidence",
            ),
        ),
        budget={"samples_per_side": samples, "confidence": confidence, "thresholds": thresholds},
        counterexample=counterexample,
        details={"directions": directions},
    )
