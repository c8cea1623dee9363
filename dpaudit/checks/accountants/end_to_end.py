"""End-to-end (ε, δ) claims of N composed GPOPE steps, decided with the PLD interval of δ(ε).

``approx_dp_pld`` decides a claimed (ε, δ) after N steps at each point of its grid: ``violated``
when the lower end of the PLD enclosure of δ(ε) exceeds the claimed δ, ``verified`` when its upper
end is at or below it. A violation carries the neighbouring pair of per-step output laws.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from dpaudit._validation import check_integer, check_real
from dpaudit.checks.accountants.tally import MAX_MEASUREMENTS, Tally, step_witness
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.mechanisms.gpope_step import SAMPLING_SCHEMES, UNIFORM_ONE, GpopeStep
from dpaudit.privacy.accounting.mixtures import OutputPair
from dpaudit.privacy.accounting.pld import compose_pairs
from dpaudit.privacy.accounting.stated_bounds import xie2019_theorem1_noise, xie2019_theorem1_precondition

__all__ = ["PldConfig", "check_approx_dp_pld", "laws", "pld_answers"]


_POINT_KEYS = {"records", "steps", "noise_multiplier"}


@dataclass(frozen=True, kw_only=True)
class PldConfig(CheckerConfig):
    """The params of the end-to-end check: the claimed (epsilon, delta), and either a grid of (m, N, sigma)
    (records; steps or steps_per_records_squared; c2 or noise_multipliers) or explicit points."""

    epsilon: int | float = param("the claimed epsilon", low=0.0, low_open=True)
    delta: float = param("the claimed delta", low=0.0, high=1.0, low_open=True, high_open=True)
    sampling: str = param("the step's sampling scheme", UNIFORM_ONE, choices=SAMPLING_SCHEMES)
    records: tuple[int, ...] | None = param("records m of the grid", None, low=2)
    steps: tuple[int, ...] | None = param("composed steps N of the grid", None, low=1)
    steps_per_records_squared: tuple[int | float, ...] | None = param(
        "N / m^2 of the grid, instead of steps", None, low=0.0, low_open=True
    )
    c2: int | float | None = param(
        "sigma set by Xie et al. 2019 Theorem 1 (eq. 5.1) with equality", None, low=0.0, low_open=True
    )
    c1: int | float | None = param(
        "Theorem 1's domain constant (left out: the proof's eq. B.31); points outside are skipped",
        None,
        low=0.0,
        low_open=True,
    )
    noise_multipliers: tuple[int | float, ...] | None = param(
        "noise multipliers sigma of the grid, instead of c2", None, low=0.0, low_open=True
    )
    interval: float = param("the PLD grid step", 1e-4, low=1e-9, high=0.1)
    delta_scale: int | float = param("multiplies the claimed delta (1: as stated)", 1.0, low=0.0, low_open=True)
    points: Any = param(
        "list of {records, steps, noise_multiplier} tables, instead of the grid (e.g. a paper's settings)", None
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        grid = {"records", "steps", "steps_per_records_squared", "c2", "c1", "noise_multipliers"}
        if self.points is not None:
            given = sorted(name for name in grid if getattr(self, name) is not None)
            if given:
                raise InvalidArgument(f"points: give either 'points' or a grid ({', '.join(given)}), not both")
            _check_points(self.points)
            return
        if self.records is None:
            raise InvalidArgument("records: required (a list of m) unless 'points' are given")
        if (self.steps is None) == (self.steps_per_records_squared is None):
            raise InvalidArgument(
                "give exactly one of 'steps' (list of N) or 'steps_per_records_squared' (list of N/m^2)"
            )
        if (self.c2 is None) == (self.noise_multipliers is None):
            raise InvalidArgument(
                "give exactly one of 'c2' (Theorem 1 noise) or 'noise_multipliers' (explicit sigma list)"
            )


def _check_points(points: Any) -> None:
    if not isinstance(points, list) or not points:
        raise InvalidArgument("points: expected a non-empty list of {records, steps, noise_multiplier} tables")
    for i, point in enumerate(points):
        if not isinstance(point, dict) or set(point) != _POINT_KEYS:
            raise InvalidArgument(f"points[{i}]={point!r}: expected a table with keys {sorted(_POINT_KEYS)}")
        check_integer(f"points[{i}].records", point["records"], low=2)
        check_integer(f"points[{i}].steps", point["steps"], low=1)
        check_real(f"points[{i}].noise_multiplier", point["noise_multiplier"], low=0.0, low_open=True)


def _pld_points(config: PldConfig, eps: float) -> tuple[list[tuple[int, int, float]], list[dict[str, Any]]]:
    """The (m, N, sigma) points to account, and those skipped outside Theorem 1's domain."""
    if config.points is not None:
        return [(p["records"], p["steps"], p["noise_multiplier"]) for p in config.points], []
    points: list[tuple[int, int, float]] = []
    skipped: list[dict[str, Any]] = []
    for m in config.records or ():
        for steps in _steps_for(config, m):
            sigmas = (
                [xie2019_theorem1_noise(eps, config.delta, steps, m, config.c2)]
                if config.c2 is not None
                else list(config.noise_multipliers or ())
            )
            for sigma in sigmas:
                if config.c2 is not None and not xie2019_theorem1_precondition(eps, steps, m, sigma, config.c1):
                    skipped.append({"records": m, "steps": steps, "noise_multiplier": sigma})
                else:
                    points.append((m, steps, sigma))
    return points, skipped


def _steps_for(config: PldConfig, m: int) -> list[int]:
    if config.steps is not None:
        return list(config.steps)
    return [max(1, round(ratio * m * m)) for ratio in config.steps_per_records_squared or ()]


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
    config=PldConfig,
)
def check_approx_dp_pld(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide an end-to-end (ε, δ) claim for N composed GPOPE steps with the PLD interval.

    Params: :class:`PldConfig`. The details give the enclosure of the true ε at δ at every point.

    References:
        Xie et al. 2019, Theorem 1 and eqs. (B.31)–(B.33).
    """
    config = parse_config(PldConfig, obligation.params)
    eps, delta = config.epsilon, config.delta * config.delta_scale
    sampling, interval = config.sampling, config.interval
    tally = Tally()
    points, skipped = _pld_points(config, eps)
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
            if config.points is not None
            else f"m in {list(config.records or ())}, grid of N and sigma"
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
