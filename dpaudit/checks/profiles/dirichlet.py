"""Checks of the Dirichlet mechanism's (ε, δ) claims: exact profile of one row, composition over rows.

Lemma 2's concentration bound is checked in :mod:`dpaudit.checks.profiles.dirichlet_concentration`.

References:
    Gohari, Hale, Topcu 2020, Def. 1, Sec. II-D, Sec. III-B, Lemma 2;
    Gohari, Wu, Hale, Topcu, ACC 2020 (the mechanism's privacy statement).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpaudit.checks.budget_limits import Ceiling
from dpaudit.checks.certificates.facts import certified_fact
from dpaudit.checks.claim_inputs import DigitsConfig, approx_dp_of, reference_view
from dpaudit.errors import CheckerError, InvalidArgument
from dpaudit.kernel.checker_config import param, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Certificate, Evidence, Measurement, epsilon_measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.views import ConcentrationView
from dpaudit.privacy.dirichlet_composition import composition_delta_bounds
from dpaudit.privacy.dirichlet_pair import BetaPair
from dpaudit.privacy.dirichlet_worst_case import OPEN_SIMPLEX_FLOOR, worst_pair_delta, worst_pair_delta_float64
from dpaudit.privacy.guarantees import MAX_EPSILON, ApproxDP
from dpaudit.privacy.relations import SIMPLEX_ADJACENT

__all__ = [
    "VIEWS",
    "CompositionConfig",
    "DirichletProfileConfig",
    "check_dirichlet_composition",
    "check_dirichlet_exact_profile",
    "require_dirichlet",
]

READINGS = ("one_row", "all_rows")


#: The white-box view every check here reads: the Dirichlet parameters k·p of the release at input p.
VIEWS = (ConcentrationView,)


def require_dirichlet(claim: Claim) -> None:
    """Fail closed unless the claim's mechanism offers :data:`VIEWS` and its params build the reference."""
    reference_view(claim, ConcentrationView)


def _adjacency_bound(context: CheckContext) -> float:
    """The b of the simplex_adjacent(b) relation the claim is audited under."""
    if context.relation.bound is None:
        raise InvalidArgument(f"relation={context.relation.name!r}: this check needs simplex_adjacent(b)")
    return float(context.relation.bound)


def _audited_parameters(context: CheckContext) -> tuple[float, float | None]:
    """(k, η) of the mechanism under audit (the reference, or a mutant), read from its white-box view.

    k is the total concentration Σ_i (k p)_i at p = (1/2, 1/2); the view must be k·p at a
    second point too, else the mechanism is not a Dirichlet mechanism and the exact
    profile does not apply.

    Raises:
        CheckerError: when the concentration is not proportional to the input.
    """
    mechanism = context.view(ConcentrationView)
    eta = getattr(mechanism, "eta", None)
    low = 0.25 if eta is None else max(float(eta), 0.25)
    points = (np.array([0.5, 0.5]), np.array([low, 1.0 - low]))
    scales = [np.asarray(mechanism.concentration(point), dtype=np.float64) / point for point in points]
    k = float(scales[0][0])
    if not all(np.allclose(scale, k, rtol=1e-12, atol=0.0) for scale in scales):
        raise CheckerError(
            f"mechanism {type(mechanism).__name__}: its Dirichlet parameters are not k * p (got {scales}); "
            "the exact profile applies only to Dir(k p)"
        )
    return k, eta


def _require_simplex_relations(claim: Claim) -> None:
    """Fail closed on any relation but simplex_adjacent(b): a ``dirichlet`` claim is about one probability
    vector, so ``row_adjacent(b)`` (one row of a transition matrix) is not a relation of its inputs."""
    for relation in claim.relations:
        if relation.kind != SIMPLEX_ADJACENT:
            raise InvalidArgument(
                f"claim {claim.id!r}: relation {relation.name}: the Dirichlet mechanism is audited under "
                "simplex_adjacent(b) (Gohari et al. 2020, Def. 1); for one changed row of Algorithm 1's "
                "transition matrix use simplex_adjacent(b) with reading = 'one_row'"
            )


@dataclass(frozen=True)
class DirichletProfileConfig(DigitsConfig):
    """The params of the exact Dirichlet profile: the simplex's dimension and the grid of pairs searched."""

    n: int = param("the dimension of the simplex", 2, low=2)
    grid: int = param(
        "positions of the worst b-adjacent pair searched on a float64 grid", 200, low=8, high=Ceiling("grid")
    )

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim that is not an (epsilon, delta) claim of a Dirichlet mechanism under simplex_adjacent(b)."""
        approx_dp_of(claim)
        require_dirichlet(claim)
        _require_simplex_relations(claim)


def _float64_epsilon_at(delta: float, k: float, b: float, n: int, eta: float | None, grid: int) -> float:
    """A float64 estimate of the smallest ε with worst-pair δ(ε) <= delta (bisection; informational)."""

    def worst(epsilon: float) -> float:
        return worst_pair_delta_float64(epsilon, k, b, n=n, eta=eta, grid=grid)

    low, high = 0.0, 1.0
    if worst(0.0) <= delta:
        return 0.0
    while worst(high) > delta:
        low, high = high, 2.0 * high
        if high > MAX_EPSILON:  # e^epsilon past float64: no float64 estimate
            return math.inf
    for _ in range(30):
        middle = (low + high) / 2.0
        low, high = (middle, high) if worst(middle) > delta else (low, middle)
    return high


#: Why no claim is verified on the open simplex (eta None): see :data:`OPEN_SIMPLEX_FLOOR`.
_OPEN_SIMPLEX_NOTE = (
    "; open simplex (no eta): delta(epsilon) tends to 1 as a component tends to 0, so no claim with delta < 1 "
    "holds and none is verified (a pair found above the claim is a violation)"
)


def _searched_verdict(verdict: Verdict, at_boundary: bool, eta: float | None) -> Verdict:
    """``verified`` only when the worst pair found lies on the edge of the searched box (where the convexity of
    log Γ puts the maximiser) and the box is closed (eta given); else ``inconclusive``."""
    if verdict is Verdict.VERIFIED and (not at_boundary or eta is None):
        return Verdict.INCONCLUSIVE
    return verdict


def _verdict(lower: mpmath.mpf, upper: mpmath.mpf, claimed: mpmath.mpf) -> Verdict:
    if upper <= claimed:
        return Verdict.VERIFIED
    if lower > claimed:
        return Verdict.VIOLATED
    return Verdict.INCONCLUSIVE


def _beta_certificate(
    verdict: Verdict, guarantee: ApproxDP, pair: BetaPair, enclosure: tuple[Any, Any], digits: int, grid: int
) -> Certificate | None:
    """The certificate of a verified single-pair Dirichlet profile: the worst Beta pair found."""
    if verdict is not Verdict.VERIFIED:
        return None
    fact = certified_fact(
        "beta_pair_delta",
        f"delta at epsilon={guarantee.epsilon!r} of the worst b-adjacent pair",
        {"a_p": pair.a_p, "b_p": pair.b_p, "a_q": pair.a_q, "b_q": pair.b_q, "epsilon": guarantee.epsilon},
        enclosure,
        guarantee.delta,
    )
    return Certificate(
        method=f"regularised incomplete beta in mpmath at {digits} digits",
        facts=(fact,),
        assumption=f"the worst pair is a shift by b/2 between two coordinates (Karlin-Rubin), searched over "
        f"{grid} positions with the maximiser at the edge of the box",
    )


@register_checker(
    "dirichlet_exact_profile",
    description="exact delta(epsilon) of the Dirichlet mechanism, maximised over b-adjacent pairs (mpmath); never "
    "verified without eta (on the open simplex delta tends to 1)",
    config=DirichletProfileConfig,
    requires_views=VIEWS,
)
def check_dirichlet_exact_profile(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an ApproxDP claim for one Dirichlet release under simplex_adjacent(b).

    The exact δ(ε_claim) of every ordered b-adjacent pair with components >= eta is searched
    (see :func:`~dpaudit.privacy.dirichlet_worst_case.worst_pair_delta`) and the worst one is
    evaluated in mpmath. ``violated`` is a rigorous counterexample (one concrete pair);
    ``verified`` covers the stated grid of pairs with rigorous error at each point, with the worst
    at the box's edge, and is never said on the open simplex (no eta), where δ(ε) tends to 1.

    References:
        Gohari et al. 2020, Def. 1 and Sec. II-D; ACC 2020 statement (see the spec's source).
    """
    guarantee = approx_dp_of(context.claim)
    k, eta = _audited_parameters(context)
    b = _adjacency_bound(context)
    config = parse_config(DirichletProfileConfig, obligation.params)
    n, grid, digits = config.n, config.grid, config.digits
    worst = worst_pair_delta(guarantee.epsilon, k, b, n=n, eta=eta, grid=grid, digits=digits)
    with mpmath.workdps(digits + 20):
        claimed = mpmath.mpf(guarantee.delta)
        verdict = _verdict(worst.delta.lower, worst.delta.upper, claimed)
        margin = claimed - worst.delta.value
        interval = (worst.delta.lower, worst.delta.upper)
    verdict = _searched_verdict(verdict, worst.at_boundary, eta)
    epsilon_estimate = _float64_epsilon_at(guarantee.delta, k, b, n, eta, min(grid, 60))
    p_i, p_j, q_i, q_j = (float(v) for v in worst.pair_inputs)
    counterexample = None
    if verdict is Verdict.VIOLATED:
        counterexample = {
            "neighbours": {"p (pair coordinates i, j)": [p_i, p_j], "q (pair coordinates i, j)": [q_i, q_j]},
            "event": "privacy loss log f_p/f_q > epsilon, an interval of x_i / (x_i + x_j)",
            "delta_of_event": mpmath.nstr(worst.delta.value, 12),
        }
    return Evidence(
        verdict=verdict,
        certificate=_beta_certificate(verdict, guarantee, worst.pair, interval, worst.delta.digits, grid),
        summary=(
            f"worst exact delta({guarantee.epsilon:g}) = {mpmath.nstr(worst.delta.value, 6)} vs claimed "
            f"{guarantee.delta:g} for k = {k:g}; float64 estimate of the exact epsilon at the claimed "
            f"delta: {epsilon_estimate:.6g}"
        ),
        domain=(
            f"b-adjacent pairs of the {n}-simplex with components >= {eta if eta is not None else OPEN_SIMPLEX_FLOOR!r}"
            f", shift b/2 = {b / 2:g} (worst by Karlin-Rubin), {worst.grid_points} pair positions; maximiser at the "
            f"box edge: {worst.at_boundary}{_OPEN_SIMPLEX_NOTE if eta is None else ''}"
        ),
        method=f"Beta reduction of the loss, regularised incomplete beta in mpmath at {worst.delta.digits} digits",
        measurements=(
            Measurement(
                quantity=f"delta at epsilon={guarantee.epsilon!r}",
                claimed=guarantee.delta,
                measured=worst.delta.value,
                margin=margin,
                direction=f"exact at the worst pair found, error <= {mpmath.nstr(worst.delta.error, 3)}",
                interval=interval,
            ),
            epsilon_measurement(guarantee, epsilon_estimate, "float64 bisection estimate (informational)"),
        ),
        budget={"grid_points": worst.grid_points, "digits": worst.delta.digits},
        counterexample=counterexample,
        details={
            "worst_pair": [p_i, p_j, q_i, q_j],
            "shift_monotone_on_grid": worst.shift_monotone,
            "k": k,
            "b": b,
        },
    )


@dataclass(frozen=True, kw_only=True)
class CompositionConfig(DirichletProfileConfig):
    """The params of Algorithm 1's profile: the rows, the reading of adjacency and the events' grid."""

    rows: int = param("the privatised rows |S||A| of Algorithm 1", low=1)
    reading: str = param(
        "one_row: neighbouring MDPs differ in one row; all_rows: every row may differ (the rows compose)",
        choices=READINGS,
    )
    grid: int = param_of(DirichletProfileConfig, "grid", default=100)
    thresholds: int = param(
        "privacy-loss thresholds of the product events of the lower bound (all_rows)", 300, low=10, high=Ceiling("bins")
    )


#: How far (relative) the composed bounds of the ``all_rows`` reading may move between IEEE-754 machines
#: and library versions: each is a mpmath value (error far below this) at inputs chosen in float64 (the
#: worst pair on the grid, ε / rows, the λ grid of the Chernoff bound, the event's threshold), every one
#: a valid choice that another machine may make an ulp away; the bounds are smooth in them, so an ulp
#: moves them by well under 1e-12 relative. The re-run's enclosure of the margin is the margin ∓ this
#: times (|upper| + |lower|).
_COMPOSED_RELATIVE_SPREAD = mpmath.mpf(10) ** -9


@register_checker(
    "dirichlet_composition_profile",
    description="(epsilon, delta) of Algorithm 1 over the |S||A| privatised rows, per reading of 'neighbouring MDPs'",
    config=CompositionConfig,
    requires_views=VIEWS,
)
def check_dirichlet_composition(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide Algorithm 1's ApproxDP claim over all privatised rows under one reading of adjacency.

    ``one_row``: neighbouring MDPs differ in one row P(s, a) (b-adjacent); the other rows are
    privatised identically on both sides, so the profile is the single-row profile.
    ``all_rows``: every row may differ (each b-adjacent); the rows compose. Rigorous lower
    bound from product events, upper bound from basic composition.

    References:
        Gohari et al. 2020, Sec. III-B (post-processing argument), Algorithm 1 step 1.
    """
    guarantee = approx_dp_of(context.claim)
    k, eta = _audited_parameters(context)
    config = parse_config(CompositionConfig, obligation.params)
    rows, reading, n, grid, digits = config.rows, config.reading, config.n, config.grid, config.digits
    thresholds = config.thresholds
    b = _adjacency_bound(context)
    if reading == "one_row":
        worst = worst_pair_delta(guarantee.epsilon, k, b, n=n, eta=eta, grid=grid, digits=digits)
        lower, upper, pair = worst.delta.lower, worst.delta.upper, worst.pair
        method = "single-row exact profile (the other rows carry no information)"
        certificate = _beta_certificate(
            _searched_verdict(_verdict(lower, upper, mpmath.mpf(guarantee.delta)), worst.at_boundary, eta),
            guarantee,
            pair,
            (lower, upper),
            digits,
            grid,
        )
    else:
        worst = worst_pair_delta(guarantee.epsilon / rows, k, b, n=n, eta=eta, grid=grid, digits=digits)
        pair = worst.pair
        lower, upper = composition_delta_bounds(guarantee.epsilon, pair, rows, thresholds=thresholds, digits=digits)
        method = "product-event lower bound and basic-composition upper bound, mpmath"
        certificate = None  # no independent route for the composed bound: recheck re-runs it (its enclosure below)
    with mpmath.workdps(digits + 20):
        claimed = mpmath.mpf(guarantee.delta)
        verdict = _searched_verdict(_verdict(lower, upper, claimed), worst.at_boundary, eta)
        margin = claimed - lower if verdict is Verdict.VIOLATED else claimed - upper
        spread = _COMPOSED_RELATIVE_SPREAD * (abs(upper) + abs(lower))
        verified_composed = reading == "all_rows" and verdict is Verdict.VERIFIED
        margin_interval = (margin - spread, margin + spread) if verified_composed else None
    counterexample = None
    if verdict is Verdict.VIOLATED:
        counterexample = {
            "neighbours": f"{rows if reading == 'all_rows' else 1} row(s) moved by the b-adjacent pair "
            f"(k p_i, k p_j) = ({pair.a_p:g}, {pair.b_p:g}) -> ({pair.a_q:g}, {pair.b_q:g})",
            "event": "every changed row's privacy loss exceeds a threshold t"
            if reading == "all_rows"
            else "the row's privacy loss exceeds epsilon",
            "delta_lower_bound": mpmath.nstr(lower, 12),
        }
    return Evidence(
        verdict=verdict,
        summary=(
            f"reading '{reading}' with {rows} rows: delta({guarantee.epsilon:g}) in "
            f"[{mpmath.nstr(lower, 6)}, {mpmath.nstr(upper, 6)}] vs claimed {guarantee.delta:g}"
        ),
        domain=f"{rows} rows, b = {b:g}, eta = {eta!r}, n = {n}, worst single-row pair"
        + (_OPEN_SIMPLEX_NOTE if eta is None else ""),
        method=method,
        measurements=(
            Measurement(
                quantity=f"delta at epsilon={guarantee.epsilon!r} ({reading})",
                claimed=guarantee.delta,
                measured=upper if verdict is not Verdict.VIOLATED else lower,
                margin=margin,
                direction="upper bound" if verdict is not Verdict.VIOLATED else "lower bound",
                interval=(lower, upper),
                margin_interval=margin_interval,
            ),
        ),
        certificate=certificate,
        budget={"rows": rows, "digits": digits, "thresholds": thresholds if reading == "all_rows" else 0},
        counterexample=counterexample,
        details={"reading": reading},
    )
