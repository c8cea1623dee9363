"""Lemma 2 of Gohari et al. 2020 checked: the Dirichlet mechanism's release concentrates around its input.

``dirichlet_concentration`` checks P(‖M(p) − p‖∞ >= sqrt(log(1/β) / (2(k+1)))) <= β over a grid of
(p, k, β): exact Beta-marginal bounds where they decide, Monte Carlo with Clopper–Pearson otherwise.

References:
    Gohari, Hale, Topcu 2020, Lemma 2, Appendix A.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit.checks.budget_limits import Ceiling
from dpaudit.checks.profiles.dirichlet import VIEWS, require_dirichlet
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement, exact_fraction
from dpaudit.kernel.verdicts import Verdict, combine_verdicts
from dpaudit.mechanisms.dirichlet import DirichletMechanism, check_open_simplex
from dpaudit.mechanisms.synthesis import concentration_radius
from dpaudit.privacy.dirichlet_composition import concentration_tail_bounds
from dpaudit.privacy.guarantees import Concentration

stats = lazy_module("scipy.stats")

__all__ = ["ConcentrationConfig", "check_dirichlet_concentration"]


@dataclass(frozen=True, kw_only=True)
class ConcentrationConfig(CheckerConfig):
    """The params of Lemma 2's check: the grid of (p, k, beta) and the Monte Carlo budget of undecided points."""

    inputs: tuple[Any, ...] = param("probability vectors p of the open simplex")
    ks: tuple[float, ...] = param("concentrations k", low=0.0, low_open=True)
    betas: tuple[float, ...] = param("tail probabilities beta", low=0.0, high=1.0, low_open=True, high_open=True)
    samples: int = param(
        "draws per grid point the exact bounds leave undecided", 20000, low=100, high=Ceiling("samples")
    )
    confidence: float = param(
        "of the Clopper-Pearson intervals together (Bonferroni over the Monte Carlo points)",
        0.95,
        low=0.5,
        high=1.0,
        high_open=True,
    )
    radius_scale: float = param("a factor on Lemma 2's radius (plants a wrong constant)", 1.0, low=0.0, low_open=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        for index, vector in enumerate(self.inputs):
            check_open_simplex(f"inputs[{index}]", vector)

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim that is not a concentration claim of a Dirichlet mechanism."""
        if not isinstance(claim.guarantee, Concentration):
            raise InvalidArgument(f"claim {claim.id!r}: guarantee kind={claim.guarantee.kind!r}: needs concentration")
        require_dirichlet(claim)


@dataclass(frozen=True)
class _MonteCarlo:
    """How an undecided point is sampled: the generator, the draws and the per-point two-sided level."""

    rng: np.random.Generator
    samples: int
    alpha: float


def _decide_point(
    p: np.ndarray, k: float, beta: float, exact: tuple[Any, Any, float], monte_carlo: _MonteCarlo
) -> tuple[dict[str, Any], Verdict, float]:
    """One grid point: the exact Beta-marginal bounds ``(lower, upper, radius)`` decide when they can,
    else a Monte Carlo estimate with a two-sided Clopper–Pearson interval at ``monte_carlo.alpha``.

    Returns:
        The report row, the point's verdict and the certified lower bound on the tail probability.
    """
    lower, upper, radius = exact
    row: dict[str, Any] = {
        "p": p.tolist(),
        "k": k,
        "beta": beta,
        "radius": radius,
        "exact_lower": float(lower),
        "exact_upper": float(upper),
    }
    if upper <= beta:
        verdict, certified_lower = Verdict.VERIFIED, float(lower)
    elif lower > beta:
        verdict, certified_lower = Verdict.VIOLATED, float(lower)
    else:
        samples, alpha = monte_carlo.samples, monte_carlo.alpha
        draws = DirichletMechanism(k).release_log(p, rng=monte_carlo.rng, size=samples)
        hits = int(np.count_nonzero(np.max(np.abs(np.exp(draws) - p), axis=1) >= radius))
        low_cp = float(stats.beta.ppf(alpha / 2, hits, samples - hits + 1)) if hits else 0.0
        high_cp = float(stats.beta.isf(alpha / 2, hits + 1, samples - hits)) if hits < samples else 1.0
        row.update({"monte_carlo_hits": hits, "samples": samples, "interval": [low_cp, high_cp]})
        verdict = Verdict.VIOLATED if low_cp > beta else Verdict.CONSISTENT
        certified_lower = max(float(lower), low_cp)
    row["verdict"] = verdict.value
    return row, verdict, certified_lower


#: How far (relative) the float radius sqrt(log(1/β) / (2(k + 1))) may lie from the exact one on any IEEE-754
#: machine, before the term for 1/β: the log within 4 ulps (libm), the division, addition, square root and
#: scaling correctly rounded. Rounding 1/β moves log(1/β) by u, i.e. by u / log(1/β) relative, which grows as β
#: nears 1 (:func:`_radius_relative_error`).
_RADIUS_RELATIVE_ERROR = 8 * 2.0**-53


def _radius_relative_error(beta: float) -> float:
    """The float radius's relative error bound at ``beta``: :data:`_RADIUS_RELATIVE_ERROR` plus u / log(1/β)
    for the rounding of 1/β (halved by the square root; taken whole)."""
    return _RADIUS_RELATIVE_ERROR + 2.0**-53 / abs(math.log(beta))


def _exact_bounds(p: np.ndarray, k: float, radius: float) -> tuple[Any, Any, float]:
    """The rigorous Beta-marginal (lower, upper) bounds on the point's tail probability, and its radius."""
    lower, upper = concentration_tail_bounds(p, k, radius)
    return lower, upper, radius


def _margin_enclosure(points: list[tuple[np.ndarray, float, float]], radii: list[float]) -> tuple[Any, Any]:
    """An enclosure, valid on any IEEE-754 machine, of min over the grid of β − P(‖M(p) − p‖∞ >= r) at the
    lemma's exact radii: the tail falls as r grows, so its upper bound at r(1 − e) and its lower bound at
    r(1 + e) bracket it for every radius within e (:func:`_radius_relative_error`) of the float one."""
    lows, highs = [], []
    for (p, k, beta), radius in zip(points, radii, strict=True):
        error = _radius_relative_error(beta)
        _, upper = concentration_tail_bounds(p, k, radius * (1 - error))
        lower, _ = concentration_tail_bounds(p, k, radius * (1 + error))
        lows.append(exact_fraction(beta) - exact_fraction(upper))
        highs.append(exact_fraction(beta) - exact_fraction(lower))
    return min(lows), min(highs)


def _verified_margin(points: list[tuple[np.ndarray, float, float]], exact_results: list[tuple]) -> Measurement:
    """The verified grid's smallest margin β − P(‖M(p) − p‖∞ >= r) with its enclosure (:func:`_margin_enclosure`)."""
    low, high = _margin_enclosure(points, [radius for _, _, radius in exact_results])
    return Measurement(
        quantity="smallest beta - P(||M(p) - p||_inf >= radius) over the grid",
        claimed=0.0,
        measured=float(low),
        margin=float(low),
        direction="enclosure valid on any IEEE-754 machine: mpmath Beta tails at the radius moved by its "
        "float error either way (the tail falls as the radius grows)",
        margin_interval=(low, high),
    )


@register_checker(
    "dirichlet_concentration",
    description="Lemma 2 tail bound: exact from Beta marginals where they decide, else Monte Carlo (Clopper-Pearson)",
    config=ConcentrationConfig,
    requires_views=VIEWS,
)
def check_dirichlet_concentration(obligation: Obligation, context: CheckContext) -> Evidence:
    """Check P(‖M(p) − p‖∞ >= sqrt(log(1/β) / (2(k+1)))) <= β over a grid of (p, k, β).

    Per point: the rigorous Beta-marginal bounds decide when they can (n = 2 is exact; for
    n >= 3 the union bound verifies and the largest marginal tail refutes); otherwise a
    Monte Carlo estimate with a two-sided Clopper–Pearson interval, Bonferroni over the
    Monte Carlo points. ``radius_scale`` plants a wrong constant (mutant testing).

    References:
        Gohari et al. 2020, Lemma 2, Appendix A.
    """
    config = parse_config(ConcentrationConfig, obligation.params)
    inputs = [np.asarray(vector, dtype=float) for vector in config.inputs]
    ks, betas = list(config.ks), list(config.betas)
    samples, confidence, scale = config.samples, config.confidence, config.radius_scale
    points = [(p, k, beta) for p in inputs for k in ks for beta in betas]
    exact_results = [_exact_bounds(p, k, scale * concentration_radius(k, beta)) for p, k, beta in points]
    undecided = [
        i for i, (lower, upper, _) in enumerate(exact_results) if not (upper <= points[i][2] or lower > points[i][2])
    ]
    alpha = (1.0 - confidence) / max(len(undecided), 1)
    rows = []
    verdicts = []
    worst_index, worst_excess = 0, -math.inf
    for index, ((p, k, beta), exact) in enumerate(zip(points, exact_results, strict=False)):
        row, verdict, certified_lower = _decide_point(p, k, beta, exact, _MonteCarlo(context.rng, samples, alpha))
        rows.append(row)
        verdicts.append(verdict)
        if certified_lower - beta > worst_excess:
            worst_index, worst_excess = index, certified_lower - beta
    overall = combine_verdicts(verdicts)
    worst = rows[worst_index]
    # every point decided by the exact bounds: the margin, enclosed for recheck
    enclosed = (_verified_margin(points, exact_results),) if overall is Verdict.VERIFIED else ()
    counterexample = None
    if overall is Verdict.VIOLATED:
        bad = next(row for row in rows if row["verdict"] == "violated")
        counterexample = {key: bad[key] for key in ("p", "k", "beta", "radius")} | {
            "probability_lower_bound": bad.get("interval", [bad["exact_lower"]])[0]
        }
    return Evidence(
        verdict=overall,
        summary=(
            f"{sum(v is Verdict.VIOLATED for v in verdicts)} of {len(points)} grid points violate Lemma 2; "
            f"largest certified excess over beta {worst_excess:.4g} (lower bound) at p={worst['p']}, k={worst['k']}, "
            f"beta={worst['beta']}"
        ),
        domain=f"{len(inputs)} inputs x {len(ks)} values of k x {len(betas)} values of beta "
        f"(radius scaled by {scale:g})",
        method=(
            "exact Beta-marginal bounds in mpmath (n = 2 exact; union / largest marginal for n >= 3), else Monte "
            f"Carlo with two-sided Clopper-Pearson at {confidence:.0%} (Bonferroni over {len(undecided)} points)"
        ),
        measurements=(
            Measurement(
                quantity="largest lower bound on P(||M(p) - p||_inf >= radius) - beta over the grid",
                claimed=0.0,
                measured=worst_excess,
                margin=-worst_excess,
                direction=(
                    f"lower bound: exact Beta-marginal bound, or one-sided Clopper-Pearson at {confidence:.0%} "
                    "(Bonferroni) where the exact bounds do not decide"
                ),
            ),
            *enclosed,
        ),
        budget={
            "grid_points": len(points),
            "monte_carlo_points": len(undecided),
            "samples_per_point": samples,
            "confidence": confidence,
        },
        counterexample=counterexample,
        details={"points": rows},
    )
