"""Checks of (ε, δ) claims about the Gaussian mechanism: exact profile and Monte Carlo.

The neighbouring pair is worst-case for the Gaussian mechanism: f(X) = 0 and f(X') = Δ
along one axis (the profile depends only on ‖f(X) − f(X')‖₂, and is largest at Δ).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import mpmath
import numpy as np

from dpaudit.checks.certificates.facts import certified_fact
from dpaudit.checks.claim_inputs import DigitsConfig, approx_dp_of, reference_view
from dpaudit.checks.empirical.bound_evidence import bound_evidence
from dpaudit.checks.empirical.budget import AuditBudget, MonteCarloBudgetConfig
from dpaudit.checks.empirical.certification import certify_privacy_lower_bound
from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.kernel.checker_config import CheckerConfig, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Certificate, Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.views import GaussianShiftView
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.profiles import gaussian_delta, gaussian_epsilon

__all__ = ["check_gaussian_exact_profile", "check_gaussian_threshold_monte_carlo"]


#: The white-box view both checks read: (Δ, σ) of a shift of Gaussians.
VIEWS = (GaussianShiftView,)


def _shift_of(source: Claim | CheckContext) -> tuple[float, float]:
    """(Δ, σ) from the :class:`GaussianShiftView`: of the mechanism under audit (a mutant when the context
    carries one) for a context, of the reference for a claim.

    Raises:
        InvalidArgument: when the claim's mechanism does not offer the view or its params do not
            build the reference.
    """
    if isinstance(source, CheckContext):
        sensitivity, sigma = source.view(GaussianShiftView).gaussian_shift()
    else:
        sensitivity, sigma = reference_view(source, GaussianShiftView).gaussian_shift()
    return float(sensitivity), float(sigma)


@dataclass(frozen=True)
class GaussianShiftClaim(CheckerConfig):
    """What both Gaussian checks need of a claim: an (epsilon, delta) guarantee and a mechanism with a
    Gaussian shift view whose parameters build the reference."""

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim without an (epsilon, delta) guarantee or whose mechanism has no Gaussian shift."""
        super().check_claim(claim)
        approx_dp_of(claim)
        _shift_of(claim)


@dataclass(frozen=True)
class ExactProfileConfig(DigitsConfig, GaussianShiftClaim):
    """The params of the exact Gaussian profile: the working precision."""


@register_checker(
    "gaussian_exact_profile",
    description="exact delta(epsilon) of the Gaussian mechanism (Balle-Wang 2018) in mpmath, with error bound",
    config=ExactProfileConfig,
    requires_views=VIEWS,
)
def check_gaussian_exact_profile(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an ApproxDP claim for the Gaussian mechanism with the exact privacy profile.

    ``verified`` when the rigorous upper end of δ(ε_claim) is at most δ_claim,
    ``violated`` when its lower end exceeds δ_claim, ``inconclusive`` otherwise.

    References:
        Balle & Wang 2018, Theorem 8.
    """
    guarantee = approx_dp_of(context.claim)
    sensitivity, sigma = _shift_of(context)
    digits = parse_config(ExactProfileConfig, obligation.params).digits
    exact = gaussian_delta(guarantee.epsilon, sensitivity, sigma, digits=digits)
    eps_low, eps_high = gaussian_epsilon(guarantee.delta, sensitivity, sigma, digits=digits)
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
    certificate = None
    if verdict is Verdict.VERIFIED:
        fact = certified_fact(
            "gaussian_shift_delta",
            f"delta at epsilon={guarantee.epsilon!r}",
            {"sigma": sigma, "sensitivity": sensitivity, "epsilon": guarantee.epsilon},
            (exact.lower, exact.upper),
            guarantee.delta,
        )
        certificate = Certificate(
            method=f"Balle-Wang closed form (Theorem 8) in mpmath at {exact.digits} digits",
            facts=(fact,),
            assumption="the worst neighbouring pair is f(X) = 0, f(X') = Delta along one axis "
            "(Balle & Wang 2018, Thm 8: the profile depends on ||f(X) - f(X')||_2 only and grows with it)",
        )
    return Evidence(
        verdict=verdict,
        summary=summary,
        certificate=certificate,
        domain=f"the worst-case pair ‖f(X) − f(X')‖₂ = Δ = {sensitivity:g}, sigma = {sigma:g} (exact, all events)",
        method=f"closed-form profile in mpmath at {exact.digits} digits, error from two precisions",
        measurements=measurements,
        budget={"digits": exact.digits},
        counterexample=counterexample,
        details={"figures": [_profile_figure(guarantee, sensitivity, sigma)]},
    )


def _profile_figure(guarantee: ApproxDP, sensitivity: float, sigma: float, points: int = 60) -> dict[str, Any]:
    """The figure data (report convention) of the exact δ(ε) curve against the claimed point."""
    top = max(2.0 * guarantee.epsilon, 1.0)
    epsilons = [top * i / (points - 1) for i in range(points)]
    deltas = [float(gaussian_delta(eps, sensitivity, sigma, digits=30).value) for eps in epsilons]
    return {
        "kind": "line",
        "title": "Gaussian mechanism: exact delta(epsilon) and the claimed point",
        "x_label": "epsilon",
        "y_label": "delta",
        "y_scale": "log",
        "series": [{"label": "exact delta(epsilon) (Balle-Wang, mpmath)", "x": epsilons, "y": deltas}],
        "reference_lines": [
            {"axis": "y", "value": guarantee.delta, "label": "claimed delta"},
            {"axis": "x", "value": guarantee.epsilon, "label": "claimed epsilon"},
        ],
    }


@dataclass(frozen=True)
class ThresholdMonteCarloConfig(MonteCarloBudgetConfig, GaussianShiftClaim):
    """The params of the Monte Carlo check of the Gaussian mechanism: the budget of threshold events."""

    samples: int = param_of(AuditBudget, "samples", default=10**6, quick_cap=100_000)


@register_checker(
    "gaussian_threshold_monte_carlo",
    description="Monte Carlo epsilon lower bound from threshold events with Clopper-Pearson bounds",
    config=ThresholdMonteCarloConfig,
    audits_candidates=True,
    requires_views=VIEWS,
)
def check_gaussian_threshold_monte_carlo(obligation: Obligation, context: CheckContext) -> Evidence:
    """Test an ApproxDP claim of the Gaussian mechanism from its outputs alone.

    Samples the mechanism on the pair f(X) = 0, f(X') = Δ with the empirical engine
    (:func:`dpaudit.checks.empirical.certification.certify_privacy_lower_bound`): threshold events
    in both tails and both orders of the pair are chosen on held-out draws and certified
    on fresh ones with one-sided Clopper–Pearson bounds under a union bound.
    ``violated`` only if a certified lower bound on ε exceeds the claim; otherwise
    ``consistent``.

    References:
        Balle & Wang 2018, Theorem 8 (the pair is worst case); Jagielski, Ullman & Oprea 2020.
    """
    guarantee = approx_dp_of(context.claim)
    mechanism = context.mechanism()
    sensitivity, _ = _shift_of(context.claim)  # the reference's stated sensitivity: the candidate's pair
    config = parse_config(ThresholdMonteCarloConfig, obligation.params)
    budget = config.budget(config.samples, events=("threshold",))
    pair = NeighbourPair(np.zeros(1), np.full(1, sensitivity), f"f(X) = 0, f(X') = {sensitivity:g}")
    bound = certify_privacy_lower_bound(
        mechanism,
        [pair],
        delta=guarantee.delta,
        epsilon=guarantee.epsilon,
        budget=budget,
        seed=context.seed,
        executor=context.executor,
    )
    evidence = bound_evidence(
        bound,
        guarantee,
        domain=f"the pair f(X) = 0, f(X') = {sensitivity:g}; threshold events on the output",
        method="Monte Carlo, held-out threshold selection, one-sided Clopper-Pearson with a union bound",
    )
    if evidence.counterexample is not None:
        neighbours = {"neighbours": {"f(X)": [0.0], "f(X')": [sensitivity]}}
        evidence = replace(evidence, counterexample={**neighbours, **evidence.counterexample})
    return evidence
