"""End-to-end (ε, δ) claims of N composed GPOPE steps, decided with the PLD interval of δ(ε).

``approx_dp_pld`` decides a claimed (ε, δ) after N steps at each point of its grid: ``violated``
when the lower end of the PLD enclosure of δ(ε) exceeds the claimed δ, ``verified`` when its upper
end is at or below it. A violation carries the neighbouring pair of per-step output laws.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache, partial
from typing import Any

from dpaudit._validation import check_choice, check_integer, check_real
from dpaudit.checks.accountants.tally import MAX_MEASUREMENTS, Tally, integers, no_unknown, reals, step_witness
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.mechanisms.gpope_step import SAMPLING_SCHEMES, UNIFORM_ONE, GpopeStep
from dpaudit.privacy.accounting.mixtures import OutputPair
from dpaudit.privacy.accounting.pld import compose_pairs
from dpaudit.privacy.accounting.stated_bounds import xie2019_theorem1_noise, xie2019_theorem1_precondition

__all__ = ["check_approx_dp_pld", "laws", "pld_answers"]


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
    no_unknown(params, _PLD_KEYS)
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
    integers("records", params.get("records"), 2)
    if ("steps" in params) == ("steps_per_records_squared" in params):
        raise InvalidArgument("give exactly one of 'steps' (list of N) or 'steps_per_records_squared' (list of N/m^2)")
    if "steps" in params:
        integers("steps", params["steps"], 1)
    else:
        reals("steps_per_records_squared", params["steps_per_records_squared"], low=0.0, low_open=True)
    if ("c2" in params) == ("noise_multipliers" in params):
        raise InvalidArgument("give exactly one of 'c2' (Theorem 1 noise) or 'noise_multipliers' (explicit sigma list)")
    if "c2" in params:
        check_real("c2", params["c2"], low=0.0, low_open=True)
    else:
        reals("noise_multipliers", params["noise_multipliers"], low=0.0, low_open=True)
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


def laws(pairs: Iterable[OutputPair]) -> tuple[tuple[Any, Any], ...]:
    """The ordered pairs' laws without their labels: what the PLD numbers depend on."""
    return tuple((pair.first, pair.second) for pair in pairs)


@lru_cache(maxsize=256)
def pld_answers(
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
    tally = Tally()
    points, skipped = _pld_points(params, eps)
    true_epsilons = []
    for m, steps, sigma in points:
        step = GpopeStep(records=m, clip_norm=1.0, noise_multiplier=sigma, steps=steps, sampling=sampling)
        view = step.step_pairs(context.relation)
        (value, estimate), true_epsilon = pld_answers(laws(view.pairs), steps, interval, (eps,), delta)
        true_epsilons.append(
            {
                "records": m,
                "steps": steps,
                "noise_multiplier": sigma,
                "epsilon_interval": [true_epsilon.lower, true_epsilon.upper],
            }
        )

        witness = partial(step_witness, step, view, context.relation)
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
