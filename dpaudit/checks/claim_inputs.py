"""What checkers read from a claim and an obligation's params, checked the same way everywhere."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from dpaudit.checks.budget_limits import Ceiling
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param
from dpaudit.kernel.claims import Claim
from dpaudit.mechanisms.catalogue import get_mechanism
from dpaudit.privacy.guarantees import ApproxDP, RenyiDP, ZeroConcentratedDP

__all__ = ["DigitsConfig", "approx_dp_of", "input_converter", "reference_view"]

View = TypeVar("View")


def approx_dp_of(claim: Claim) -> ApproxDP:
    """The claim's (ε, δ) guarantee: an ``approx_dp`` claim as stated, a ``zcdp`` or ``renyi_dp`` claim as the
    (ε(δ), δ) it implies at its ``delta`` (``implied_approx_dp``; such a claim is only refuted through it:
    the runner caps a ``verified`` of it at ``consistent``).

    Raises:
        InvalidArgument: when the claim states another kind of guarantee.
    """
    if isinstance(claim.guarantee, ZeroConcentratedDP) or (
        isinstance(claim.guarantee, RenyiDP) and claim.guarantee.delta is not None
    ):
        return claim.guarantee.implied_approx_dp()
    if isinstance(claim.guarantee, RenyiDP):
        raise InvalidArgument(
            f"claim {claim.id!r}: a renyi_dp claim without delta: this checker audits the (epsilon(delta), delta) "
            "the curve implies; give claim.guarantee.delta (a number, or a list of them)"
        )
    if not isinstance(claim.guarantee, ApproxDP):
        raise InvalidArgument(
            f"claim {claim.id!r}: guarantee kind={claim.guarantee.kind!r}: this checker audits an (epsilon, delta) "
            "claim (approx_dp, zcdp, or renyi_dp with delta), not this one"
            + (
                ": an accountant's claim is audited by accountant_certified"
                if claim.guarantee.kind == "accountant"
                else ""
            )
        )
    return claim.guarantee


def input_converter(claim: Claim) -> Callable[[Any], Any]:
    """Turns a plain input of a spec (numbers, lists, tables) into the claim's mechanism's input."""
    return get_mechanism(claim.mechanism.name).input_domain.from_plain


def reference_view(claim: Claim, view: Callable[..., View]) -> View:
    """The claim's reference, built from its public parameters, typed as the white-box view ``view`` (a
    Protocol of :mod:`dpaudit.mechanisms.views`): for a validator called on a claim that no spec loaded
    (the spec loader applies the same rule to ``register_checker(requires_views=...)``), or a checker
    that reads the reference's view while it audits a candidate.

    Raises:
        InvalidArgument: naming the view when the claim's mechanism does not offer it, or for parameters
            the reference rejects; UnknownName for an unknown mechanism.
    """
    mechanism = get_mechanism(claim.mechanism.name)
    try:
        mechanism.require_view(cast(type, view))
    except InvalidArgument as exc:
        raise InvalidArgument(f"claim {claim.id!r}: {exc}") from None
    return cast(View, mechanism.build(claim.mechanism.params))


@dataclass(frozen=True)
class DigitsConfig(CheckerConfig):
    """The ``digits`` param of an exact check: its mpmath working precision."""

    digits: int = param("mpmath working precision, in decimal digits", 60, low=50, high=Ceiling("digits"))
