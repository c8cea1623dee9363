"""The exact privacy profile of any mechanism whose reference offers the ``privacy_profile`` view.

The view returns the worst-case δ(ε) over neighbouring inputs in mpmath; this checker
evaluates it at two precisions, encloses the value by their difference (plus one unit in
the last digit of the lower precision), and decides an (ε, δ) claim from the enclosure.
"""

from __future__ import annotations

from typing import Any

import mpmath

from dpaudit._validation import check_integer
from dpaudit.checks.claim_inputs import approx_dp_of
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict

__all__ = ["check_exact_privacy_profile"]


def _validate(params: dict[str, Any], claim: Claim) -> None:
    approx_dp_of(claim)
    unknown = set(params) - {"digits"}
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected only 'digits'")
    check_integer("digits", params.get("digits", 60), low=50, high=1000)


@register_checker(
    "exact_privacy_profile",
    description="exact worst-case delta(epsilon) from the mechanism's privacy_profile view, in mpmath, enclosed",
    validate=_validate,
    requires_views=("privacy_profile",),
)
def check_exact_privacy_profile(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an ApproxDP claim from the reference's exact privacy profile.

    ``verified`` when the upper end of the enclosure of δ(ε_claim) is at most δ_claim,
    ``violated`` when its lower end exceeds δ_claim, ``inconclusive`` otherwise.
    """
    guarantee = approx_dp_of(context.claim)
    mechanism = context.mechanism()
    if not hasattr(mechanism, "privacy_profile"):
        raise InvalidArgument(f"mechanism {context.claim.mechanism.name!r} offers no privacy_profile view")
    digits = int(obligation.params.get("digits", 60))
    with mpmath.workdps(digits + 30):
        value = mpmath.mpf(mechanism.privacy_profile(guarantee.epsilon, digits=digits))
        finer = mpmath.mpf(mechanism.privacy_profile(guarantee.epsilon, digits=digits + 20))
        error = abs(finer - value) + mpmath.mpf(10) ** (-digits) * abs(value)
        lower, upper = value - error, value + error
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
    if verdict is Verdict.VIOLATED and hasattr(mechanism, "audit_pairs"):
        first, second, label = mechanism.audit_pairs(context.relation)[0]
        counterexample = {
            "neighbours": {"X": [float(v) for v in first], "X'": [float(v) for v in second]},
            "pair": label,
            "delta_at_epsilon": mpmath.nstr(value, 12),
        }
    return Evidence(
        verdict=verdict,
        summary=f"exact delta({guarantee.epsilon:g}) = {mpmath.nstr(value, 6)} vs claimed {guarantee.delta:g}",
        domain=f"every neighbouring pair of {context.claim.mechanism.name} (worst case of its privacy_profile view)",
        method=f"the reference's closed-form profile in mpmath at {digits} and {digits + 20} digits",
        measurements=(measurement,),
        budget={"digits": digits},
        counterexample=counterexample,
    )
