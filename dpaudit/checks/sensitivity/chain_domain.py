"""The bounded domain the exhaustive sensitivity checks enumerate: every dataset of 1..m_max
trajectories over a chain universe (a staying probability p, a horizon), its size checked against the
enumeration ceiling before any work, the implementation's σ_X on it, and how a dataset is shown.

References:
    Balle, Gomrokchi, Precup, ICML 2016, Sec. 4.1 and Lemma 1 (the quantities swept).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit.checks.budget_limits import check_enumeration
from dpaudit.checks.sensitivity.lemma1_conditions import SigmaEvaluation, sigma_table
from dpaudit.checks.sensitivity.pair_sweep import pair_count
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param
from dpaudit.kernel.claims import Claim
from dpaudit.kernel.evidence import json_number
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex, TrajectoryUniverse, chain_universe
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE

__all__ = [
    "ChainDomainConfig",
    "dataset_at",
    "dataset_text",
    "require_policy_evaluation",
    "sigma_evaluation",
]


@dataclass(frozen=True)
class ChainDomainConfig(CheckerConfig):
    """The params of an exhaustive chain-domain check: the chain's staying probability, the
    trajectories' cap and the largest dataset."""

    p: Fraction = param("the chain's staying probability", "1/2", low=0.0, high=1.0, high_open=True)
    horizon: int = param("the cap on a trajectory's triples", 6, low=1, high=8)
    m_max: int = param("the largest dataset, in trajectories", 4, low=1, high=6)

    def check_domain_size(self, claim: Claim, *, passes: int) -> None:
        """Refuse a domain whose sweep is above the enumeration ceiling, before any work.

        The chain's trajectories (at most N 2^(L+1) of them, N returns each) are counted first, then
        the ordered pairs of every relation of the claim, times the sweeps over them (``passes``).
        """
        try:
            n_states = int(claim.mechanism.params["n_states"])
            gamma = Fraction(claim.mechanism.params.get("gamma", 0))
        except (KeyError, TypeError, ValueError, OverflowError):
            return  # the mechanism's own validation names what is wrong with its parameters
        universe_size = n_states**2 * 2 ** (self.horizon + 1)
        check_enumeration(f"the chain universe (n_states = {n_states}, horizon = {self.horizon})", universe_size)
        universe = chain_universe(n_states, self.p, gamma, self.horizon)
        for relation in claim.relations:
            if relation.kind in (REPLACE_ONE, ADD_REMOVE_ONE):
                count = pair_count(len(universe), relation.kind, self.m_max) * passes
                check_enumeration(f"the {relation.kind} pairs of datasets of 1..{self.m_max} trajectories", count)


def require_policy_evaluation(claim: Claim) -> None:
    """Refuse a claim whose mechanism is not DP-LSW or DP-LSL (the mechanisms with a chain domain)."""
    if claim.mechanism.name not in ("dp_lsw", "dp_lsl"):
        raise InvalidArgument(f"mechanism={claim.mechanism.name!r}: this checker needs 'dp_lsw' or 'dp_lsl'")


def sigma_evaluation(
    mechanism: Any, universe: TrajectoryUniverse, m_max: int, rng: np.random.Generator
) -> SigmaEvaluation:
    """σ_X of the implementation for every dataset of the domain, by global dataset index."""
    from dpaudit.mechanisms.policy_evaluation.statistics import FirstVisitStatistics

    def sigma_of(signature: np.ndarray, average: np.ndarray, m: int) -> float:
        statistics = FirstVisitStatistics.from_arrays(signature, average, m)
        return float(mechanism.intermediates_from_statistics(statistics).sigma)

    return sigma_table(universe, m_max, sigma_of, rng=rng)


def dataset_text(universe: TrajectoryUniverse, dataset: tuple[int, ...]) -> list[dict[str, Any]]:
    """The trajectories of ``dataset`` (profile indices) as a report shows them."""
    return [
        {
            "profile": i,
            "states": list(universe.profiles[i].representative.states),
            "rewards": [json_number(r) for r in universe.profiles[i].representative.rewards],
            "truncated": universe.profiles[i].representative.truncated,
        }
        for i in dataset
    ]


def dataset_at(index: DatasetIndex, position: int) -> tuple[int, ...]:
    """The dataset (profile indices) at global ``position`` of :meth:`DatasetIndex.global_index`."""
    for m in range(1, index.m_max + 1):
        if position < index.count(m):
            return tuple(int(v) for v in index.datasets(m)[position])
        position -= index.count(m)
    raise InvalidArgument(f"position={position}: outside the domain")
