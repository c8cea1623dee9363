"""The exact smooth sensitivity of DP-LSW/DP-LSL on a tiny domain, and the check of σ_X against it.

``balle_smooth_sensitivity_slack``: conditions (a) and (b) of Lemma 1 make σ_X/α a (β/2)-smooth
upper bound of the local sensitivity on the domain's neighbour graph, so σ_X >= α S*_{β/2}(X) is
necessary; it is decided at every dataset against rigorous bounds of the right side.

References:
    Balle et al. 2016, Lemma 1, Lemma 4; Nissim, Raskhodnikova, Smith 2007, Def. 3.1, Lemma 3.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpaudit.checks.sensitivity.chain_domain import (
    ChainDomainConfig,
    dataset_at,
    dataset_text,
    require_policy_evaluation,
    sigma_evaluation,
)
from dpaudit.checks.sensitivity.exact_setting import _Setting
from dpaudit.checks.sensitivity.lemma1_conditions import lemma1_constants_exact, sigma_relative_error
from dpaudit.checks.sensitivity.pair_sweep import DatasetBlock, pair_blocks
from dpaudit.checks.sensitivity.statements import mechanism_problem
from dpaudit.kernel.checker_config import parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex, TrajectoryUniverse, chain_universe

__all__ = ["check_smooth_sensitivity_slack", "local_sensitivities", "local_sensitivity_bounds", "smooth_sensitivity"]


def local_sensitivities(setting: _Setting, relation: str, m_max: int) -> np.ndarray:
    """LS(X)² = max over neighbours X' in the domain of ‖θ_X − θ_X'‖₂², for every dataset (float64).

    References:
        Balle et al. 2016, Sec. 2.1 (local sensitivity LS_2(f, X)).
    """
    universe = setting.universe
    index = DatasetIndex(len(universe), m_max)
    values = np.zeros(index.total)
    for block in pair_blocks(universe, relation, m_max):
        distances = np.where(block.mask, setting.theta_distances(block), 0.0)
        np.maximum.at(values, index.global_index(block.left.rows), distances.max(axis=2))
    return values


def smooth_sensitivity(
    local: np.ndarray, universe: TrajectoryUniverse, relation: str, m_max: int, beta: float
) -> np.ndarray:
    """S*(X) = max_k e^{−kβ} max_{d(X,Y) <= k} LS(Y) on the domain's neighbour graph (LS given squared).

    References:
        Nissim, Raskhodnikova, Smith 2007, Def. 3.1 and Lemma 3.2 (the smallest smooth bound);
        Balle et al. 2016, Lemma 4.
    """
    return _smooth(np.sqrt(local), universe, relation, m_max, lambda k: float(np.exp(-k * beta)))


def _smooth(reach: np.ndarray, universe: TrajectoryUniverse, relation: str, m_max: int, factor: Any) -> np.ndarray:
    """max_k factor(k) max_{d(X,Y) <= k} reach(Y), k = 0.. until the reach stops growing (factor(0) = 1)."""
    index = DatasetIndex(len(universe), m_max)
    best = reach.copy()
    for k in range(1, 2 * m_max + 2):
        grown = reach.copy()
        for block in pair_blocks(universe, relation, m_max):
            left = index.global_index(block.left.rows)
            right = index.global_index(block.right.rows)
            candidates = np.where(block.mask, reach[right][:, None, :], 0.0).max(axis=2)
            np.maximum.at(grown, left, candidates)
        if np.array_equal(grown, reach):
            break
        reach = grown
        best = np.maximum(best, factor(k) * reach)
    return best


_U = 2.0**-53  # the unit roundoff of float64


def _float_bound(value: Any, *, up: bool) -> float:
    """A float on the given side of an mpmath value computed far beyond float precision."""
    return float(np.nextafter(float(value), np.inf if up else -np.inf))


def local_sensitivity_bounds(setting: _Setting, relation: str, m_max: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Rigorous lower and upper bounds on LS(X) = max over neighbours ‖θ_X − θ_X'‖₂ for every dataset.

    θ is computed in float64 once per dataset and compared with the exact rational θ_X: the
    largest entry error e is measured exactly. The distances are taken from those floats as a
    sum of d squared differences (relative error <= (d + 3) u with u = 2⁻⁵³), and the triangle
    inequality moves a distance by at most 2 √d e; a factor (1 ± 64 u) absorbs the rounding of
    the bound's own arithmetic.

    Returns:
        (lower, upper, e), indexed like :meth:`DatasetIndex.global_index`.
    """
    universe = setting.universe
    index = DatasetIndex(len(universe), m_max)
    theta = np.concatenate([setting.theta(DatasetBlock.of(universe, index.datasets(m))) for m in range(1, m_max + 1)])
    error = Fraction(0)
    position = 0
    for m in range(1, m_max + 1):
        for rows in index.datasets(m):
            exact = setting.exact_theta(tuple(int(v) for v in rows))
            error = max([error, *(abs(Fraction(float(a)) - b) for a, b in zip(theta[position], exact, strict=True))])
            position += 1
    dimension = theta.shape[1]
    shift = _float_bound(2 * mpmath.sqrt(dimension) * mpmath.mpf(error.numerator) / error.denominator, up=True)
    squared = np.zeros(index.total)
    for block in pair_blocks(universe, relation, m_max):
        left = theta[index.global_index(block.left.rows)]
        right = theta[index.global_index(block.right.rows)]
        distances = ((left[:, :, None, :] - right[:, None, :, :]) ** 2).sum(axis=-1)
        np.maximum.at(squared, index.global_index(block.left.rows), np.where(block.mask, distances, 0.0).max(axis=2))
    root = np.sqrt(squared)
    upper = (root * (1 + (dimension + 64) * _U) + shift) * (1 + 4 * _U)
    lower = np.maximum((root * (1 - (dimension + 64) * _U) - shift) * (1 - 4 * _U), 0.0)
    return lower, upper, float(error)


@dataclass(frozen=True)
class SlackConfig(ChainDomainConfig):
    """The params of the smooth-sensitivity slack: the chain domain."""

    def check_claim(self, claim: Claim) -> None:
        """Refuse a mechanism without a chain domain, or a domain whose passes are above the ceiling."""
        require_policy_evaluation(claim)
        self.check_domain_size(claim, passes=2 * self.m_max + 3)  # LS once, then up to 2 m_max + 2 reach steps


@register_checker(
    "balle_smooth_sensitivity_slack",
    description="exact smooth sensitivity S* on a tiny domain: sigma_X >= alpha S*_{beta/2}(X) and the slack sigma_X "
    "/ (alpha S*_beta(X))",
    config=SlackConfig,
)
def check_smooth_sensitivity_slack(obligation: Obligation, context: CheckContext) -> Evidence:
    """Compare σ_X with the smallest smooth bound of the exact local sensitivity on a tiny domain.

    Conditions (a) and (b) of Lemma 1 make σ_X/α a (β/2)-smooth upper bound of LS on the
    domain's neighbour graph, so σ_X >= α S*_{β/2}(X) is necessary; it is checked at every
    dataset against rigorous bounds of the right side (:func:`local_sensitivity_bounds`,
    e^{−kβ/2} and α rounded outward): ``verified`` when σ_X is above the upper bound everywhere,
    ``violated`` when it is below the lower bound somewhere, else ``inconclusive``. The slack
    σ_X / (α S*_β(X)) is reported (min, median, max) as a float64 point value.

    References:
        Balle et al. 2016, Lemma 1, Lemma 4; Nissim, Raskhodnikova, Smith 2007, Sec. 3.
    """
    config = parse_config(SlackConfig, obligation.params)
    p, horizon, m_max = config.p, config.horizon, config.m_max
    mechanism = context.mechanism()
    universe = chain_universe(mechanism.n_states, p, Fraction(mechanism.gamma), horizon)
    relation = context.relation.kind
    setting = _Setting(universe, mechanism_problem(mechanism))
    alpha, beta = lemma1_constants_exact(
        mechanism.constant_set, epsilon=mechanism.epsilon, delta=mechanism.delta, d=mechanism.estimator.d
    )
    sigmas = sigma_evaluation(mechanism, universe, m_max, np.random.default_rng(context.seed)).table
    local = local_sensitivities(setting, relation, m_max)
    ratio_beta = sigmas / (float(alpha) * smooth_sensitivity(local, universe, relation, m_max, float(beta)))
    low_ls, high_ls, theta_error = local_sensitivity_bounds(setting, relation, m_max)
    with mpmath.workdps(60):  # e^{-k beta/2} from above and below, then each product rounded outward
        half = beta / 2
        decay_up = {k: _float_bound(mpmath.exp(-k * half), up=True) * (1 + 2 * _U) for k in range(2 * m_max + 2)}
        decay_low = {k: _float_bound(mpmath.exp(-k * half), up=False) * (1 - 2 * _U) for k in range(2 * m_max + 2)}
    necessary_high = _float_bound(alpha, up=True) * _smooth(high_ls, universe, relation, m_max, decay_up.get)
    necessary_low = _float_bound(alpha, up=False) * _smooth(low_ls, universe, relation, m_max, decay_low.get)
    necessary_high, necessary_low = necessary_high * (1 + 2 * _U), necessary_low * (1 - 2 * _U)
    index = DatasetIndex(len(universe), m_max)
    if np.all(sigmas >= necessary_high):
        verdict, worst = Verdict.VERIFIED, int(np.argmin(sigmas / necessary_high))
    elif np.any(sigmas < necessary_low):
        verdict, worst = Verdict.VIOLATED, int(np.argmin(sigmas / np.maximum(necessary_low, 1e-300)))
    else:
        verdict, worst = Verdict.INCONCLUSIVE, int(np.argmin(sigmas / necessary_high))
    necessary = necessary_high
    worst_rows = dataset_at(index, worst)
    summary = (
        f"sigma_X >= alpha S*_(beta/2)(X) at all {index.total} datasets: {verdict is Verdict.VERIFIED}; slack "
        f"sigma_X / (alpha S*_beta(X)) min {ratio_beta.min():.4g}, median {np.median(ratio_beta):.4g}, max "
        f"{ratio_beta.max():.4g}"
    )
    counterexample = (
        None
        if verdict is not Verdict.VIOLATED
        else {
            "X": dataset_text(universe, worst_rows),
            "sigma_X": float(sigmas[worst]),
            "alpha_S_star": float(necessary[worst]),
        }
    )
    return Evidence(
        verdict,
        summary,
        f"{universe.description}; every dataset of 1..{m_max} trajectories ({index.total}), {relation} graph",
        f"exact enumeration of LS and S* on the domain, bounded rigorously: theta in float64 against the exact "
        f"rational theta (largest entry error {theta_error:.2e}), distances and products rounded outward, "
        "e^(-k beta/2) and alpha from mpmath at 60 digits; sigma_X from the implementation",
        (
            Measurement(
                "min over X of sigma_X / (alpha S*_beta(X))",
                1.0,
                float(ratio_beta.min()),
                float(ratio_beta.min()) - 1.0,
                "float64 point value of the slack (the verdict uses sigma_X >= alpha S*_(beta/2) with a 1e-9 "
                "relative guard band)",
            ),
            _necessary_ratio(sigmas, necessary_low, necessary_high, sigma_relative_error(setting)),
        ),
        {"datasets": index.total},
        counterexample,
        {"slack_quantiles": [float(q) for q in np.quantile(ratio_beta, [0.0, 0.25, 0.5, 0.75, 1.0])]},
    )


def _necessary_ratio(
    sigmas: np.ndarray, necessary_low: np.ndarray, necessary_high: np.ndarray, sigma_error: Fraction
) -> Measurement:
    """min over X of σ_X / (α S*_(β/2)(X)), the quantity the verdict compares with 1, with an enclosure valid
    on any IEEE-754 machine: ``necessary_low`` <= α S* <= ``necessary_high`` rigorously, each float
    quotient is within one rounding (a factor 1 ∓ 2u covers it), and the implementation's σ_X within
    ``sigma_error`` ρ (:func:`~dpaudit.checks.sensitivity.lemma1_conditions.sigma_relative_error`) of
    what another machine computes."""
    with np.errstate(divide="ignore"):
        low_ratio = float(np.min(sigmas / necessary_high))
        high_ratio = float(np.min(sigmas / necessary_low))
    rounding, rho = Fraction(2 * _U), sigma_error
    margin_interval = None
    if np.isfinite(low_ratio) and np.isfinite(high_ratio):
        margin_interval = (
            Fraction(low_ratio) * (1 - rounding) * (1 - rho) - 1,
            Fraction(high_ratio) * (1 + rounding) * (1 + rho) - 1,
        )
    return Measurement(
        "min over X of sigma_X / (alpha S*_(beta/2)(X))",
        1.0,
        low_ratio,
        low_ratio - 1.0,
        "rigorous: against outward-rounded bounds of alpha S*_(beta/2), each quotient rounded outward, "
        f"sigma_X within {float(sigma_error):.3g} relative of any other machine's (from the problem's conditioning)",
        margin_interval=margin_interval,
    )
