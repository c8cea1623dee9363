"""The exact privacy profile of any mechanism whose reference offers the :class:`PrivacyProfileView`.

The view returns the worst-case δ(ε) over neighbouring inputs in mpmath; this checker
evaluates it at two precisions, encloses the value by their difference (plus one unit in
the last digit of the lower precision), and decides an (ε, δ) claim from the enclosure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath

from dpaudit.checks.certificates.facts import certified_fact
from dpaudit.checks.claim_inputs import DigitsConfig, approx_dp_of
from dpaudit.kernel.checker_config import parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Certificate, Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.views import AuditPairsView, PrivacyProfileView

__all__ = ["check_exact_privacy_profile"]


def _route_of(name: str, mechanism: Any) -> tuple[str, dict[str, float]]:
    """The independent route replaying the profile, and its inputs (a plugin's: none known)."""
    if name == "laplace":
        return "laplace_shift_delta", {"scale": mechanism.scale, "sensitivity": mechanism.sensitivity}
    if name == "gaussian":
        return "gaussian_shift_delta", {"sigma": mechanism.sigma, "sensitivity": mechanism.sensitivity}
    return f"{name}_privacy_profile", {}


@dataclass(frozen=True)
class PrivacyProfileConfig(DigitsConfig):
    """The params of the exact privacy profile: the working precision (the check adds 20 digits)."""

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim without an (epsilon, delta) guarantee."""
        approx_dp_of(claim)


@register_checker(
    "exact_privacy_profile",
    description="exact worst-case delta(epsilon) from the mechanism's privacy_profile view, in mpmath, enclosed",
    config=PrivacyProfileConfig,
    requires_views=(PrivacyProfileView,),
)
def check_exact_privacy_profile(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an ApproxDP claim from the reference's exact privacy profile.

    ``verified`` when the upper end of the enclosure of δ(ε_claim) is at most δ_claim,
    ``violated`` when its lower end exceeds δ_claim, ``inconclusive`` otherwise.
    """
    guarantee = approx_dp_of(context.claim)
    mechanism = context.view(PrivacyProfileView)
    digits = parse_config(PrivacyProfileConfig, obligation.params).digits
    with mpmath.workdps(digits + 30):
        value = mpmath.mpf(mechanism.privacy_profile(guarantee.epsilon, digits=digits))
        finer = mpmath.mpf(mechanism.privacy_profile(guarantee.epsilon, digits=digits + 20))
        error = abs(finer - value) + mpmath.mpf(10) ** (-digits) * abs(value)
        lower, upper = mpmath.fsub(value, error, exact=True), mpmath.fadd(value, error, exact=True)
        claimed = mpmath.mpf(guarantee.delta)
        if upper <= claimed:
            verdict = Verdict.VERIFIED
        elif lower > claimed:
            verdict = Verdict.VIOLATED
        else:
            verdict = Verdict.INCONCLUSIVE
        margin = claimed - value
    measurement = Measurement(
        quantity=f"delta at epsilon={guarantee.epsilon!r}",
        claimed=guarantee.delta,
        measured=value,
        margin=margin,
        direction=f"exact, absolute error <= {mpmath.nstr(error, 3)} ({digits} digits, two precisions)",
        interval=(lower, upper),
    )
    counterexample = None
    if verdict is Verdict.VIOLATED and isinstance(mechanism, AuditPairsView):
        first, second, label = mechanism.audit_pairs(context.relation)[0]
        counterexample = {
            "neighbours": {"X": [float(v) for v in first], "X'": [float(v) for v in second]},
            "pair": label,
            "delta_at_epsilon": mpmath.nstr(value, 12),
        }
    certificate = None
    if verdict is Verdict.VERIFIED:
        route, inputs = _route_of(context.claim.mechanism.name, mechanism)
        certificate = Certificate(
            method=f"the reference's closed-form profile in mpmath at {digits} and {digits + 20} digits",
            facts=(
                certified_fact(
                    route,
                    f"delta at epsilon={guarantee.epsilon!r}",
                    {**inputs, "epsilon": guarantee.epsilon},
                    (lower, upper),
                    guarantee.delta,
                ),
            ),
            assumption=f"the privacy_profile view of {context.claim.mechanism.name!r} is its worst case over "
            "neighbouring inputs (for laplace and gaussian: a shift by the sensitivity along one axis)",
        )
    return Evidence(
        verdict=verdict,
        certificate=certificate,
        summary=f"exact delta({guarantee.epsilon:g}) = {mpmath.nstr(value, 6)} vs claimed {guarantee.delta:g}",
        domain=f"every neighbouring pair of {context.claim.mechanism.name} (worst case of its privacy_profile view)",
        method=f"the reference's closed-form profile in mpmath at {digits} and {digits + 20} digits",
        measurements=(measurement,),
        budget={"digits": digits},
        counterexample=counterexample,
    )
