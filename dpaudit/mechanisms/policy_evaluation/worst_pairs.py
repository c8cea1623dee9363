"""Worst-case neighbouring datasets of DP-LSW and DP-LSL for black-box audits, from a white-box search.

The black-box engine (:mod:`dpaudit.checks.empirical.epsilon_lower_bound`) can only refute a claim on the
pairs it samples, so it should sample the pairs where the release is least private. For
DP-LSW and DP-LSL the release on X is N(θ_X, σ_X² I_d), so the exact privacy of a pair
(X, X') is the profile of two isotropic Gaussians with means ‖θ_X − θ_X'‖₂ apart and
standard deviations σ_X, σ_X' (:mod:`dpaudit.privacy.profiles`). The search enumerates
every dataset of 1..m_max trajectories of a bounded chain universe
(:mod:`dpaudit.mechanisms.policy_evaluation.trajectory_universe`) with the mechanism's own number of states,
evaluates the mechanism's white-box (θ_X, σ_X) once per dataset, screens every ordered
neighbouring pair by ‖θ_X − θ_X'‖₂ / max(σ_X, σ_X'), and ranks the best screened pairs by
the float64 exact δ(ε) of the Gaussian pair at the mechanism's ε, in both orders.

The ranking is a heuristic for choosing pairs, not a certificate: the certificate is the
black-box bound computed later on fresh draws.

References:
    Balle, Gomrokchi & Precup 2016, Algorithms 1-2 and Lemma 1 (the release is Gaussian
    with a data-dependent variance), Sec. 6 (the chain); Ding et al. 2018 and Bichsel et al.
    2021 (audits start from the most distinguishable inputs).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_rational
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import (
    DatasetIndex,
    TrajectoryUniverse,
    chain_universe,
    neighbours,
)
from dpaudit.privacy.gaussian_pair_profile import GaussianPair, gaussian_pair_delta_float64
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rl.trajectory import Trajectory

__all__ = ["RankedPair", "WorstPairSearch", "policy_evaluation_worst_pairs"]

_MAX_DATASETS = 5_000
"""The largest number of datasets searched (the horizon is shortened to stay below it)."""


@dataclass(frozen=True)
class WorstPairSearch:
    """The bounded domain searched for worst pairs.

    Attributes:
        p: the chain's staying probability (rational, in [0, 1)).
        horizon: the cap on trajectory length (1..8); shortened when the domain would hold more
            than 5000 datasets.
        m_max: the largest dataset size (1..4).
        refine: how many screened pairs are ranked by the exact profile.
        count: how many pairs are returned.
    """

    p: Any = "1/2"
    horizon: int = 4
    m_max: int = 2
    refine: int = 64
    count: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", check_rational("p", self.p, low=0.0, high=1.0, high_open=True))
        object.__setattr__(self, "horizon", check_integer("horizon", self.horizon, low=1, high=8))
        object.__setattr__(self, "m_max", check_integer("m_max", self.m_max, low=1, high=4))
        object.__setattr__(self, "refine", check_integer("refine", self.refine, low=1))
        object.__setattr__(self, "count", check_integer("count", self.count, low=1))


@dataclass(frozen=True)
class RankedPair:
    """One proposed pair with the white-box numbers behind its rank.

    Attributes:
        first, second: the datasets X and X' (tuples of trajectories).
        label: the pair in words.
        shift: ‖θ_X − θ_X'‖₂.
        sigma_first, sigma_second: σ_X and σ_X'.
        delta: the float64 exact δ(ε) of the Gaussian pair at the mechanism's ε, the larger
            of the two orders (a ranking score, not a certificate).
    """

    first: tuple[Trajectory, ...]
    second: tuple[Trajectory, ...]
    label: str
    shift: float
    sigma_first: float
    sigma_second: float
    delta: float

    def as_tuple(self) -> tuple[tuple[Trajectory, ...], tuple[Trajectory, ...], str]:
        """``(first, second, label)``, the form ``audit_pairs`` returns."""
        return self.first, self.second, self.label


def _reward_scale(mechanism: Any) -> float:
    """The chain pays 1 on reaching the goal; scale it down to respect R_max and F_max."""
    bounds = [1.0, float(mechanism.r_max)]
    if getattr(mechanism, "f_max", None) is not None:
        bounds.append(float(mechanism.f_max))
    return min(bounds)


def _scaled(trajectory: Trajectory, scale: float) -> Trajectory:
    return Trajectory(
        trajectory.states,
        trajectory.actions,
        tuple(float(r) * scale for r in trajectory.rewards),
        trajectory.next_state,
        trajectory.truncated,
    )


def _domain(mechanism: Any, search: WorstPairSearch) -> tuple[TrajectoryUniverse, DatasetIndex]:
    """The universe at the longest horizon <= ``search.horizon`` that keeps the dataset count searchable."""
    n_states = int(mechanism.n_states)
    if n_states < 2:
        raise InvalidArgument(f"n_states={n_states}: the chain universe needs at least 2 states")
    for horizon in range(search.horizon, 0, -1):
        universe = chain_universe(n_states, search.p, Fraction(float(mechanism.gamma)), horizon)
        index = DatasetIndex(len(universe), search.m_max)
        if index.total <= _MAX_DATASETS:
            return universe, index
    raise InvalidArgument(
        f"n_states={n_states}, m_max={search.m_max}: even horizon 1 gives {index.total} datasets > "
        f"{_MAX_DATASETS}; choose smaller datasets"
    )


def _white_box_table(
    mechanism: Any, universe: TrajectoryUniverse, index: DatasetIndex, scale: float
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    """θ_X and σ_X of every dataset, in global index order, from the mechanism's own statistics path."""
    from dpaudit.mechanisms.policy_evaluation.statistics import FirstVisitStatistics

    thetas, sigmas, datasets = [], [], []
    returns = universe.returns_array * scale
    for m in range(1, index.m_max + 1):
        rows = index.datasets(m)
        counts = universe.visits_array[rows].sum(axis=1)
        averages = returns[rows].sum(axis=1) / np.maximum(counts, 1)
        for row, count, average in zip(rows, counts, averages, strict=False):
            record = mechanism.intermediates_from_statistics(FirstVisitStatistics.from_arrays(count, average, m))
            thetas.append(record.theta)
            sigmas.append(record.sigma)
            datasets.append(tuple(int(i) for i in row))
    return np.array(thetas), np.array(sigmas), datasets


def _pair_label(universe: TrajectoryUniverse, first: tuple[int, ...], second: tuple[int, ...]) -> str:
    def text(dataset: tuple[int, ...]) -> str:
        return "[" + ", ".join("-".join(map(str, universe.profiles[i].representative.states)) for i in dataset) + "]"

    return f"X = {text(first)}, X' = {text(second)} (visited states per trajectory)"


def policy_evaluation_worst_pairs(
    mechanism: Any, relation: Relation, search: WorstPairSearch | None = None
) -> list[RankedPair]:
    """The neighbouring pairs of a small chain where DP-LSW/DP-LSL is least private, best first.

    Args:
        mechanism: a DP-LSW or DP-LSL mechanism (anything with ``n_states``, ``gamma``,
            ``r_max``, ``epsilon`` and ``intermediates_from_statistics``).
        relation: ``replace_one`` or ``add_remove_one``.
        search: the bounded domain (default :class:`WorstPairSearch()`).

    Returns:
        Up to ``search.count`` distinct pairs ordered by their float64 exact δ(ε), largest first.
        Chain rewards (1 on reaching the goal) are scaled to min(1, R_max, F_max).

    Raises:
        InvalidArgument: for another relation, or when even horizon 1 gives too many datasets.

    References:
        Balle, Gomrokchi & Precup 2016, Algorithms 1-2, Lemma 1, Sec. 6.
    """
    search = WorstPairSearch() if search is None else search
    if relation.kind not in (REPLACE_ONE, ADD_REMOVE_ONE):
        raise InvalidArgument(
            f"relation={relation.name!r}: DP-LSW/DP-LSL pairs exist for replace_one and add_remove_one"
        )
    universe, index = _domain(mechanism, search)
    scale = _reward_scale(mechanism)
    thetas, sigmas, datasets = _white_box_table(mechanism, universe, index, scale)
    position = {dataset: i for i, dataset in enumerate(datasets)}
    lefts, rights = [], []
    for i, dataset in enumerate(datasets):
        for other in neighbours(dataset, relation.kind, len(universe), search.m_max):
            j = position[other]
            if i < j:
                lefts.append(i)
                rights.append(j)
    if not lefts:
        raise InvalidArgument(f"m_max={search.m_max}: the domain holds no {relation.name} pair")
    left, right = np.array(lefts), np.array(rights)
    shifts = np.linalg.norm(thetas[left] - thetas[right], axis=1)
    screen = shifts / np.maximum(sigmas[left], sigmas[right])
    chosen = np.argsort(-screen, kind="stable")[: search.refine]
    dim = thetas.shape[1]
    ranked = []
    for k in chosen:
        i, j = int(left[k]), int(right[k])
        pair = GaussianPair(float(shifts[k]), float(sigmas[i]), float(sigmas[j]), dim)
        delta = max(
            gaussian_pair_delta_float64(mechanism.epsilon, pair),
            gaussian_pair_delta_float64(mechanism.epsilon, pair.swapped()),
        )
        ranked.append((delta, float(screen[k]), i, j))
    ranked.sort(key=lambda item: (-item[0], -item[1], item[2], item[3]))
    result = []
    for delta, _, i, j in ranked[: search.count]:
        first = tuple(_scaled(universe.profiles[p].representative, scale) for p in datasets[i])
        second = tuple(_scaled(universe.profiles[p].representative, scale) for p in datasets[j])
        result.append(
            RankedPair(
                first,
                second,
                _pair_label(universe, datasets[i], datasets[j]),
                float(np.linalg.norm(thetas[i] - thetas[j])),
                float(sigmas[i]),
                float(sigmas[j]),
                float(delta),
            )
        )
    return result
