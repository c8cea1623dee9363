"""Checkers of accounting claims: moment bounds, end-to-end (ε, δ), and the moments-accountant tail bound.

Each checker recomputes the quantity a claim bounds with controlled precision, point by
point over the grid in its obligation, under the relation of the run:

* ``moment_bound_exact`` — a claimed bound on the per-step log moment α_M(λ) against the
  exact moment (MTZ 2019 series in mpmath, >= 50 digits, error reported) and, where the
  worst case is not a single closed-form pair, a rigorous upper bound (WBK 2019 Thm 27);
* ``approx_dp_pld`` — a claimed (ε, δ) after N steps against the PLD interval of δ(ε);
* ``moments_tail_bound`` — Abadi et al. Theorem 2: δ = min_λ exp(α(λ) - λε) against the
  PLD interval, with the moments computed exactly.

``violated`` needs the lower end of the enclosure above the claim; ``verified`` needs the
upper end at or below it; anything else is ``inconclusive``. A violation carries the
neighbouring pair of per-step output laws and the exact numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache, partial
from typing import Any

import mpmath

from dpaudit._validation import check_choice, check_integer, check_real
from dpaudit.checks.accountants.tally import MAX_MEASUREMENTS, PointTally
from dpaudit.checks.budget_limits import ceiling
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.mechanisms.subsampled_gaussian import (
    POISSON,
    SAMPLING_SCHEMES,
    UNIFORM_ONE,
    GpopeStep,
)
from dpaudit.privacy.accounting.conversions import moments_tail_delta
from dpaudit.privacy.accounting.mixtures import OutputPair
from dpaudit.privacy.accounting.pld import compose_pairs
from dpaudit.privacy.accounting.rdp import (
    moment_from_rdp,
    poisson_gaussian_rdp,
    wor_gaussian_rdp_upper,
)
from dpaudit.privacy.accounting.stated_bounds import (
    STATED_MOMENT_BOUNDS,
    xie2019_theorem1_lambda_range,
    xie2019_theorem1_noise,
    xie2019_theorem1_precondition,
)
from dpaudit.privacy.accounting.values import AccountedValue
from dpaudit.privacy.relations import ADD_REMOVE_ONE, Relation

__all__ = ["check_approx_dp_pld", "check_moment_bound_exact", "check_moments_tail_bound", "step_moment"]


def step_moment(
    step: GpopeStep, relation: Relation, lam: float, *, digits: int = 60, exceeds: Any = None
) -> AccountedValue:
    """An enclosure of the per-step moments accountant α_M(λ) = max over neighbours of λ D_{λ+1}(M(d) ‖ M(d')).

    Lower end: the exact moment of the mechanism's witness pair (MTZ 2019, in mpmath).
    Upper end: the same value where that pair is the exact worst case for Rényi divergence
    (add/remove-one under either sampling scheme: MTZ 2019 Theorem 5 covers the reverse
    order); WBK 2019 Theorem 27 at order ⌈λ+1⌉ for ``uniform_one`` under replace-one; none
    (``inf``) for ``poisson`` under replace-one. With ``exceeds`` given, the (costly) upper
    bound is skipped when the lower end already exceeds that value.

    References:
        Xie et al. 2019, eq. (B.15); Mironov, Talwar, Zhang 2019; Wang, Balle, Kasiviswanathan 2019.
    """
    order = float(lam) + 1.0
    q = step.sampling_probability
    pair_sensitivity = 2.0 if step.sampling == UNIFORM_ONE else 1.0
    effective = step.noise_multiplier / pair_sensitivity
    exact = moment_from_rdp(poisson_gaussian_rdp(order, q, effective, digits=digits), lam)
    if relation.kind == ADD_REMOVE_ONE:
        return exact
    if step.sampling == UNIFORM_ONE and not (exceeds is not None and exact.lower > exceeds):
        upper = moment_from_rdp(wor_gaussian_rdp_upper(math.ceil(order), q, effective, digits=digits), lam)
        return AccountedValue(
            exact.value,
            exact.lower,
            max(upper.upper, exact.upper),
            "interval",
            f"{exact.method}; {upper.method}",
            digits,
        )
    return AccountedValue(exact.value, exact.lower, mpmath.inf, "lower bound", exact.method, digits)


def _step_witness(step: GpopeStep, view: Any, relation: Relation) -> dict[str, Any]:
    """The counterexample of a failing point: the step's parameters and its per-step pair."""
    return {
        "records": step.records,
        "steps": step.steps,
        "noise_multiplier": step.noise_multiplier,
        "relation": relation.name,
        "sampling": step.sampling,
        "per_step": view.to_json(),
    }


def _reals(name: str, values: Any, **bounds: Any) -> list[float]:
    if not isinstance(values, (list, tuple)) or not values:
        raise InvalidArgument(f"{name}={values!r}: expected a non-empty list")
    return [check_real(f"{name}[{i}]", v, **bounds) for i, v in enumerate(values)]


def _integers(name: str, values: Any, low: int) -> list[int]:
    if not isinstance(values, (list, tuple)) or not values:
        raise InvalidArgument(f"{name}={values!r}: expected a non-empty list")
    return [check_integer(f"{name}[{i}]", v, low=low) for i, v in enumerate(values)]


def _no_unknown(params: dict[str, Any], allowed: Iterable[str]) -> None:
    unknown = set(params) - set(allowed)
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected only {sorted(allowed)}")


_MOMENT_KEYS = ("claimed", "sampling", "records", "noise_multipliers", "lambdas", "lambda_range", "scale", "digits")


def _validate_moment(params: dict[str, Any], claim: Any = None) -> None:
    _no_unknown(params, _MOMENT_KEYS)
    check_choice("claimed", params.get("claimed"), sorted(STATED_MOMENT_BOUNDS))
    check_choice("sampling", params.get("sampling", UNIFORM_ONE), SAMPLING_SCHEMES)
    _integers("records", params.get("records"), 2)
    _reals("noise_multipliers", params.get("noise_multipliers"), low=0.0, low_open=True)
    _reals("lambdas", params.get("lambdas"), low=0.0, low_open=True)
    check_choice("lambda_range", params.get("lambda_range", "all"), ("all", "theorem1_proof"))
    check_real("scale", params.get("scale", 1.0), low=0.0, low_open=True)
    check_integer("digits", params.get("digits", 60), low=50, high=ceiling("digits"))


@register_checker(
    "moment_bound_exact",
    description="claimed per-step moment bound alpha(lambda) vs the exact moment (MTZ series, mpmath >= 50 digits)",
    validate=_validate_moment,
)
def check_moment_bound_exact(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide a claimed bound on the per-step log moment of GPOPE's step over a grid of (m, σ, λ).

    Params: ``claimed`` (a name in STATED_MOMENT_BOUNDS), ``sampling``, ``records``,
    ``noise_multipliers``, ``lambdas``, ``lambda_range`` (``all``, or ``theorem1_proof``:
    only λ <= σ² log(m/σ), eq. B.31), ``scale`` (multiplies the claimed bound; 1 = as stated),
    ``digits``.

    References:
        Xie et al. 2019, Lemma 1 (eq. 5.5) and eqs. (B.15), (B.31).
    """
    params = obligation.params
    _validate_moment(params)
    bound = STATED_MOMENT_BOUNDS[params["claimed"]]
    sampling = params.get("sampling", UNIFORM_ONE)
    scale = mpmath.mpf(params.get("scale", 1.0))
    digits = params.get("digits", 60)
    restricted = params.get("lambda_range", "all") == "theorem1_proof"
    tally = PointTally(claim_relative_error=mpmath.mpf(10) ** (5 - digits))
    skipped = 0
    for m in params["records"]:
        for sigma in params["noise_multipliers"]:
            step = GpopeStep(records=m, clip_norm=1.0, noise_multiplier=sigma, sampling=sampling)
            limit = xie2019_theorem1_lambda_range(m, sigma) if restricted else math.inf
            for lam in params["lambdas"]:
                if lam > limit:
                    skipped += 1
                    continue
                with mpmath.workdps(digits):
                    claimed = scale * bound(lam, m, sigma)
                value = step_moment(step, context.relation, lam, digits=digits, exceeds=claimed)

                def witness(step=step, lam=lam):
                    return {
                        "records": step.records,
                        "noise_multiplier": step.noise_multiplier,
                        "lambda": lam,
                        "relation": context.relation.name,
                        "sampling": step.sampling,
                        "per_step_pair": step.step_witness_pair(context.relation).to_json(),
                    }

                tally.add(f"alpha({lam:g}) at m={m}, sigma={sigma:g}", claimed, value, witness)
    domain = (
        f"{context.relation.name}, sampling={sampling}, m in {params['records']}, sigma in "
        f"{params['noise_multipliers']}, "
        f"lambda in {params['lambdas']}" + (" with lambda <= sigma^2 log(m/sigma)" if restricted else "")
    )
    return tally.evidence(
        what=f"{params['claimed']} (x{mpmath.nstr(scale, 6)})",
        domain=domain,
        method=f"exact moments: MTZ 2019 series in mpmath {digits} digits (two precisions + tail bound); WBK 2019 Thm "
        "27 upper bound where needed",
        budget={"digits": digits, "skipped_outside_range": skipped},
        details={"claimed_bound": params["claimed"], "scale": float(scale)},
    )


_PLD_KEYS = (
    "epsilon",
    "delta",
    "c2",
    "c1",
    "sampling",
    "records",
    "steps",
    "steps_per_records_squared",
    "noise_multipliers",
    "interval",
    "delta_scale",
    "points",
)

_POINT_KEYS = {"records", "steps", "noise_multiplier"}


def _validate_pld(params: dict[str, Any], claim: Any = None) -> None:
    _no_unknown(params, _PLD_KEYS)
    check_real("epsilon", params.get("epsilon"), low=0.0, low_open=True)
    check_real("delta", params.get("delta"), low=0.0, high=1.0, low_open=True, high_open=True)
    check_choice("sampling", params.get("sampling", UNIFORM_ONE), SAMPLING_SCHEMES)
    check_real("interval", params.get("interval", 1e-4), low=1e-9, high=0.1)
    check_real("delta_scale", params.get("delta_scale", 1.0), low=0.0, low_open=True)
    if "points" in params:
        grid_keys = sorted(
            {"records", "steps", "steps_per_records_squared", "c2", "c1", "noise_multipliers"} & set(params)
        )
        if grid_keys:
            raise InvalidArgument(f"points: give either 'points' or a grid ({', '.join(grid_keys)}), not both")
        points = params["points"]
        if not isinstance(points, list) or not points:
            raise InvalidArgument("points: expected a non-empty list of {records, steps, noise_multiplier} tables")
        for i, point in enumerate(points):
            if not isinstance(point, dict) or set(point) != _POINT_KEYS:
                raise InvalidArgument(f"points[{i}]={point!r}: expected a table with keys {sorted(_POINT_KEYS)}")
            check_integer(f"points[{i}].records", point["records"], low=2)
            check_integer(f"points[{i}].steps", point["steps"], low=1)
            check_real(f"points[{i}].noise_multiplier", point["noise_multiplier"], low=0.0, low_open=True)
        return
    _integers("records", params.get("records"), 2)
    if ("steps" in params) == ("steps_per_records_squared" in params):
        raise InvalidArgument("give exactly one of 'steps' (list of N) or 'steps_per_records_squared' (list of N/m^2)")
    if "steps" in params:
        _integers("steps", params["steps"], 1)
    else:
        _reals("steps_per_records_squared", params["steps_per_records_squared"], low=0.0, low_open=True)
    if ("c2" in params) == ("noise_multipliers" in params):
        raise InvalidArgument("give exactly one of 'c2' (Theorem 1 noise) or 'noise_multipliers' (explicit sigma list)")
    if "c2" in params:
        check_real("c2", params["c2"], low=0.0, low_open=True)
    else:
        _reals("noise_multipliers", params["noise_multipliers"], low=0.0, low_open=True)
    if params.get("c1") is not None:
        check_real("c1", params["c1"], low=0.0, low_open=True)


def _pld_points(params: dict[str, Any], eps: float) -> tuple[list[tuple[int, int, float]], list[dict[str, Any]]]:
    """The (m, N, sigma) points to account, and those skipped outside Theorem 1's domain."""
    if "points" in params:
        return [(p["records"], p["steps"], p["noise_multiplier"]) for p in params["points"]], []
    points: list[tuple[int, int, float]] = []
    skipped: list[dict[str, Any]] = []
    for m in params["records"]:
        for steps in _steps_for(params, m):
            sigmas = (
                [xie2019_theorem1_noise(eps, params["delta"], steps, m, params["c2"])]
                if "c2" in params
                else list(params["noise_multipliers"])
            )
            for sigma in sigmas:
                if "c2" in params and not xie2019_theorem1_precondition(eps, steps, m, sigma, params.get("c1")):
                    skipped.append({"records": m, "steps": steps, "noise_multiplier": sigma})
                else:
                    points.append((m, steps, sigma))
    return points, skipped


def _steps_for(params: dict[str, Any], m: int) -> list[int]:
    if "steps" in params:
        return list(params["steps"])
    return [max(1, round(ratio * m * m)) for ratio in params["steps_per_records_squared"]]


def _laws(pairs: Iterable[OutputPair]) -> tuple[tuple[Any, Any], ...]:
    """The ordered pairs' laws without their labels: what the PLD numbers depend on."""
    return tuple((pair.first, pair.second) for pair in pairs)


@lru_cache(maxsize=256)
def _pld_answers(
    laws: tuple[tuple[Any, Any], ...], steps: int, interval: float, epsilons: tuple[float, ...], delta: float | None
) -> tuple[Any, ...]:
    """δ(ε) (enclosure and estimate) at each ε and, if ``delta`` is given, the enclosure of ε(δ),
    of ``steps`` compositions of the pairs with these laws.

    Kept per process: the same laws recur under several relations of a claim (GPOPE's
    uniform_one step has one worst pair under both), and a composition costs seconds; only the
    answers are kept, not the composed distributions (megabytes each).
    """
    composed = compose_pairs([OutputPair(first, second) for first, second in laws], steps, interval=interval)
    answers = [(composed.delta(eps), composed.delta_estimate(eps)) for eps in epsilons]
    return (*answers, None if delta is None else composed.epsilon(delta))


@register_checker(
    "approx_dp_pld",
    description="claimed (epsilon, delta) after N GPOPE steps vs the PLD interval of delta(epsilon)",
    validate=_validate_pld,
)
def check_approx_dp_pld(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an end-to-end (ε, δ) claim for N composed GPOPE steps with the PLD interval.

    Params: ``epsilon``, ``delta`` (the claim), ``sampling``, ``records``, ``steps`` or
    ``steps_per_records_squared``, and either ``c2`` (σ set by Theorem 1, eq. 5.1, with
    equality; points outside the theorem's domain — ``c1`` if given, else the proof's
    eq. B.31 — are skipped and counted) or ``noise_multipliers``; or instead of that grid
    ``points`` (a list of ``{records, steps, noise_multiplier}``, e.g. a paper's experimental
    settings); ``interval`` (PLD grid step); ``delta_scale`` (multiplies the claimed δ;
    1 = as stated). The details give the enclosure of the true ε at δ at every point.

    References:
        Xie et al. 2019, Theorem 1 and eqs. (B.31)–(B.33).
    """
    params = obligation.params
    _validate_pld(params)
    eps, delta = params["epsilon"], params["delta"] * params.get("delta_scale", 1.0)
    sampling = params.get("sampling", UNIFORM_ONE)
    interval = params.get("interval", 1e-4)
    tally = PointTally()
    points, skipped = _pld_points(params, eps)
    true_epsilons = []
    for m, steps, sigma in points:
        step = GpopeStep(records=m, clip_norm=1.0, noise_multiplier=sigma, steps=steps, sampling=sampling)
        view = step.step_pairs(context.relation)
        (value, estimate), true_epsilon = _pld_answers(_laws(view.pairs), steps, interval, (eps,), delta)
        true_epsilons.append(
            {
                "records": m,
                "steps": steps,
                "noise_multiplier": sigma,
                "epsilon_interval": [true_epsilon.lower, true_epsilon.upper],
            }
        )

        witness = partial(_step_witness, step, view, context.relation)
        tally.add(
            f"delta({eps:g}) at m={m}, N={steps}, sigma={sigma:.6g}",
            delta,
            value,
            witness,
            estimate,
        )
    return tally.evidence(
        what=f"({eps:g}, {delta:g})-DP after N steps",
        domain=f"{context.relation.name}, sampling={sampling}, "
        + (
            "(m, N, sigma) in " + ", ".join(f"({m}, {n}, {sigma:.6g})" for m, n, sigma in points)
            if "points" in params
            else f"m in {params['records']}, grid of N and sigma"
        ),
        method=f"PLD (pessimistic split / optimistic merge), grid step {interval:g}, FFT self-composition",
        budget={"interval": interval, "skipped_outside_domain": len(skipped)},
        details={
            "skipped": skipped[:MAX_MEASUREMENTS],
            "epsilon": eps,
            "delta": delta,
            "true_epsilon_at_delta": true_epsilons[:MAX_MEASUREMENTS],
        },
    )


_TAIL_KEYS = (
    "sampling",
    "records",
    "noise_multipliers",
    "steps",
    "epsilons",
    "lambdas",
    "moment_scale",
    "interval",
    "digits",
)


def _validate_tail(params: dict[str, Any], claim: Any = None) -> None:
    _no_unknown(params, _TAIL_KEYS)
    check_choice("sampling", params.get("sampling", POISSON), SAMPLING_SCHEMES)
    _integers("records", params.get("records"), 2)
    _reals("noise_multipliers", params.get("noise_multipliers"), low=0.0, low_open=True)
    _integers("steps", params.get("steps"), 1)
    _reals("epsilons", params.get("epsilons"), low=0.0, low_open=True)
    lambdas = _reals("lambdas", params.get("lambdas"), low=0.0, low_open=True)
    if any(not float(lam).is_integer() for lam in lambdas):
        raise InvalidArgument(f"lambdas={lambdas}: expected integers (exact moments at integer orders)")
    check_real("moment_scale", params.get("moment_scale", 1.0), low=0.0, low_open=True)
    check_real("interval", params.get("interval", 1e-4), low=1e-9, high=0.1)
    check_integer("digits", params.get("digits", 60), low=50, high=ceiling("digits"))


@register_checker(
    "moments_tail_bound",
    description="Abadi et al. Theorem 2: delta = min_lambda exp(alpha(lambda) - lambda*eps) vs the PLD interval",
    validate=_validate_tail,
)
def check_moments_tail_bound(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide the moments-accountant tail bound on composed GPOPE steps.

    The claim at each point: the mechanism is (ε, δ_tail)-DP with δ_tail = min_λ exp(N α(λ) - λε)
    over the listed λ, α(λ) the exact per-step moment (``moment_scale`` multiplies it; 1 = as
    stated). ``violated`` when the PLD lower end of δ(ε) exceeds δ_tail computed from the
    upper ends of the moments; ``verified`` when the PLD upper end is below δ_tail from the
    lower ends.

    References:
        Abadi et al. 2016, Theorem 2; Xie et al. 2019, Theorem 4 (B.20)–(B.21).
    """
    params = obligation.params
    _validate_tail(params)
    sampling = params.get("sampling", POISSON)
    scale = mpmath.mpf(params.get("moment_scale", 1.0))
    digits = params.get("digits", 60)
    interval = params.get("interval", 1e-4)
    lambdas = [float(lam) for lam in params["lambdas"]]
    tally = PointTally(claim_relative_error=mpmath.mpf(10) ** (5 - digits))
    for m in params["records"]:
        for sigma in params["noise_multipliers"]:
            for steps in params["steps"]:
                step = GpopeStep(records=m, clip_norm=1.0, noise_multiplier=sigma, steps=steps, sampling=sampling)
                moments = [step_moment(step, context.relation, lam, digits=digits) for lam in lambdas]
                factor = scale * steps
                upper = [
                    AccountedValue(v.upper * factor, 0, v.upper * factor, "upper bound", v.method, digits)
                    for v in moments
                ]
                lower = [
                    AccountedValue(v.lower * factor, 0, v.lower * factor, "upper bound", v.method, digits)
                    for v in moments
                ]
                view = step.step_pairs(context.relation)
                epsilons = tuple(float(eps) for eps in params["epsilons"])
                *answers, _ = _pld_answers(_laws(view.pairs), steps, interval, epsilons, None)
                for eps, (measured, estimate) in zip(epsilons, answers, strict=True):
                    claim_high = moments_tail_delta(lambdas, upper, eps).value
                    claim_low = moments_tail_delta(lambdas, lower, eps).value
                    quantity = f"delta({eps:g}) at m={m}, sigma={sigma:g}, N={steps}"
                    if mpmath.mpf(measured.upper) <= claim_low or mpmath.mpf(measured.lower) > claim_high:
                        claimed = claim_low if mpmath.mpf(measured.upper) <= claim_low else claim_high
                    else:
                        claimed = claim_low

                    witness = partial(_step_witness, step, view, context.relation)
                    tally.add(quantity, claimed, measured, witness, estimate, claimed_range=(claim_low, claim_high))
    return tally.evidence(
        what=f"moments tail bound (moments x{mpmath.nstr(scale, 6)})",
        domain=f"{context.relation.name}, sampling={sampling}, m in {params['records']}, sigma in "
        f"{params['noise_multipliers']}, N in {params['steps']}, eps in {params['epsilons']}",
        method=f"exact moments (MTZ 2019, mpmath {digits} digits) + tail bound; PLD interval, grid step {interval:g}",
        budget={"digits": digits, "interval": interval, "lambdas": len(lambdas)},
        details={"lambdas": lambdas, "moment_scale": float(scale)},
    )
