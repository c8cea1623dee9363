"""Counterexample search with Hypothesis: shrinks a sensitivity violation to a minimal neighbouring pair.

Datasets are drawn as lists of profile indices of a bounded trajectory universe (so the
search covers trajectories of any start state and length up to the horizon cap), a
neighbour as one edit under the audited relation. Hypothesis shrinks a failing example
towards fewer and earlier trajectories, so the reported pair is minimal in size.

A search that finds nothing proves nothing: its verdict is at most INCONCLUSIVE, with the
number of examples tried; a violation is re-evaluated once more before it is reported.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # hypothesis is imported where a search runs: it is slow to import
    from hypothesis import strategies as st

from dpaudit._validation import check_integer
from dpaudit.checks.budget_limits import Ceiling, ceiling, check_enumeration
from dpaudit.checks.sensitivity.chain_domain import ChainDomainConfig
from dpaudit.errors import CheckerError, InvalidArgument
from dpaudit.kernel.checker_config import param, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import (
    TrajectoryUniverse,
    chain_universe,
)
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE

__all__ = [
    "SearchResult",
    "chain_universes",
    "check_condition_a_search",
    "datasets",
    "neighbouring_pairs",
    "search_sensitivity_violation",
]

Trajectories = tuple[Any, ...]


@dataclass(frozen=True)
class SearchResult:
    """The outcome of a counterexample search.

    Attributes:
        found: whether a violating pair was found.
        examples: the most examples the search was allowed to try.
        dataset, neighbour: the minimal violating pair as profile indices (when found).
        measured: ‖θ_X − θ_X'‖₂ at the pair.
        bound: the claimed bound at X.
    """

    found: bool
    examples: int
    dataset: tuple[int, ...] | None = None
    neighbour: tuple[int, ...] | None = None
    measured: float | None = None
    bound: float | None = None


def chain_universes(max_states: int = 5, max_horizon: int = 5) -> st.SearchStrategy[TrajectoryUniverse]:
    """Small chain universes: 2..max_states states, p and γ in {0, 1/4, 1/2, 3/4}, horizon 1..max_horizon."""
    from hypothesis import strategies as st

    quarters = st.sampled_from(["0", "1/4", "1/2", "3/4"])
    return st.builds(
        chain_universe,
        st.integers(2, max_states),
        quarters,
        quarters,
        st.integers(1, max_horizon),
    )


def datasets(n_profiles: int, m_max: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Datasets of 1..m_max trajectories as sorted tuples of profile indices."""
    from hypothesis import strategies as st

    return st.lists(st.integers(0, n_profiles - 1), min_size=1, max_size=m_max).map(lambda xs: tuple(sorted(xs)))


def neighbouring_pairs(
    n_profiles: int, m_max: int, relation: str
) -> st.SearchStrategy[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Pairs (X, X') of neighbours under ``relation`` with both sizes in 1..m_max.

    Raises:
        InvalidArgument: for a relation other than replace_one / add_remove_one.
    """
    from hypothesis import strategies as st

    if relation == REPLACE_ONE:

        def replace(data: tuple[int, ...], position: int, added: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
            rest = list(data)
            rest.pop(position % len(data))
            return data, tuple(sorted([*rest, added]))

        return st.builds(
            replace, datasets(n_profiles, m_max), st.integers(0, m_max - 1), st.integers(0, n_profiles - 1)
        )
    if relation == ADD_REMOVE_ONE:

        def edit(
            data: tuple[int, ...], add: bool, position: int, added: int
        ) -> tuple[tuple[int, ...], tuple[int, ...]]:
            if (add and len(data) < m_max) or len(data) == 1:
                return data, tuple(sorted((*data, added)))
            rest = list(data)
            rest.pop(position % len(data))
            return data, tuple(rest)

        return st.builds(
            edit, datasets(n_profiles, m_max), st.booleans(), st.integers(0, m_max - 1), st.integers(0, n_profiles - 1)
        )
    raise InvalidArgument(f"relation={relation!r}: expected {REPLACE_ONE!r} or {ADD_REMOVE_ONE!r}")


def search_sensitivity_violation(
    mean: Callable[[Trajectories], Any],
    bound: Callable[[Trajectories], float],
    *,
    universe: TrajectoryUniverse,
    relation: str,
    m_max: int,
    max_examples: int = 500,
    seed: int = 0,
    tolerance: float = 1e-9,
) -> SearchResult:
    """Search for X ≃ X' with ‖mean(X) − mean(X')‖₂ > bound(X) · (1 + tolerance); shrink it.

    Args:
        mean: the white-box mean of the mechanism (θ_X), called on a tuple of trajectories.
        bound: the claimed bound at X (e.g. σ_X / α for Lemma 1 (a), or a sensitivity bound).
        universe: where trajectories come from.
        relation: ``replace_one`` or ``add_remove_one``.
        m_max: the largest dataset size.
        max_examples: the search budget.
        seed: makes the search reproducible.
        tolerance: relative slack absorbing float rounding in ``mean`` (a violation must exceed it).

    Returns:
        The minimal violating pair Hypothesis shrank to, or ``found=False``.

    References:
        Balle et al. 2016, Lemma 1 (a), Corollaries 3 and 8 (the bounds searched against).
    """
    check_integer("m_max", m_max, low=1)
    check_integer("max_examples", max_examples, low=1, high=ceiling("search_examples"))

    def excess(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[float, float]:
        left, right = (universe.trajectories(d) for d in pair)
        distance = float(np.linalg.norm(np.asarray(mean(left), dtype=float) - np.asarray(mean(right), dtype=float)))
        return distance, float(bound(left))

    def violates(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
        distance, limit = excess(pair)
        return distance > limit * (1 + tolerance)

    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    options = settings(max_examples=max_examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    try:
        pair = find(
            neighbouring_pairs(len(universe), m_max, relation), violates, settings=options, random=random.Random(seed)
        )
    except NoSuchExample:
        return SearchResult(False, max_examples)
    distance, limit = excess(pair)
    return SearchResult(True, max_examples, pair[0], pair[1], distance, limit)


@dataclass(frozen=True)
class SearchConfig(ChainDomainConfig):
    """The params of the Lemma 1 (a) search: the chain domain (longer trajectories and larger datasets
    than a sweep reaches) and the examples tried."""

    horizon: int = param_of(ChainDomainConfig, "horizon", high=10)
    m_max: int = param_of(ChainDomainConfig, "m_max", default=6, high=None)
    max_examples: int = param("random pairs of datasets tried", 500, low=1, high=Ceiling("search_examples"))

    def __post_init__(self) -> None:
        super().__post_init__()
        check_enumeration(
            f"{self.max_examples} examples of datasets of up to {self.m_max} trajectories",
            2 * self.m_max * self.max_examples,
        )


@register_checker(
    "balle_condition_a_search",
    description="Hypothesis search for a pair breaking Lemma 1 (a) (sigma_X >= alpha ||theta_X - theta_X'||), shrunk "
    "to a minimal pair",
    config=SearchConfig,
)
def check_condition_a_search(obligation: Obligation, context: CheckContext) -> Evidence:
    """Search the mechanism's white-box view for a Lemma 1 (a) violation; VIOLATED or INCONCLUSIVE.

    The mean and σ_X are the implementation's (reference, mutant or candidate view); α is
    re-derived from the paper's formula. A found pair is reported with both sides.

    References:
        Balle et al. 2016, Lemma 1 (a).
    """
    from dpaudit.checks.sensitivity.lemma1_conditions import lemma1_constants_exact

    config = parse_config(SearchConfig, obligation.params)
    mechanism = context.mechanism()
    horizon, m_max, examples = config.horizon, config.m_max, config.max_examples
    universe = chain_universe(mechanism.n_states, config.p, Fraction(mechanism.gamma), horizon)
    alpha, _ = lemma1_constants_exact(
        mechanism.constant_set, epsilon=mechanism.epsilon, delta=mechanism.delta, d=mechanism.estimator.d
    )
    result = search_sensitivity_violation(
        lambda data: mechanism.gaussian_view(data)[0],
        lambda data: mechanism.gaussian_view(data)[1] / float(alpha),
        universe=universe,
        relation=context.relation.kind,
        m_max=m_max,
        max_examples=examples,
        seed=int(context.seed.generate_state(1)[0]),
    )
    domain = f"{universe.description}; up to {examples} random pairs of datasets of 1..{m_max} trajectories"
    if not result.found or result.dataset is None or result.neighbour is None:
        return Evidence(
            Verdict.INCONCLUSIVE,
            f"no violation of Lemma 1 (a) in {examples} examples (a search proves nothing)",
            domain,
            "Hypothesis search with shrinking",
            budget={"examples": examples},
        )
    if result.measured is None or result.bound is None:
        raise CheckerError("the search reported a violation without its measured value and bound")
    counterexample = {
        "X": list(result.dataset),
        "X_prime": list(result.neighbour),
        "alpha_distance": result.measured * float(alpha),
        "sigma_X": result.bound * float(alpha),
    }
    return Evidence(
        Verdict.VIOLATED,
        f"Lemma 1 (a) fails at |X| = {len(result.dataset)}, |X'| = {len(result.neighbour)}: "
        f"alpha ||theta_X - theta_X'|| = {result.measured * float(alpha):.6g} > sigma_X = "
        f"{result.bound * float(alpha):.6g}",
        domain,
        "Hypothesis search with shrinking (implementation floats, relative tolerance 1e-9)",
        (
            Measurement(
                "||theta_X - theta_X'||_2 vs sigma_X / alpha",
                result.bound,
                result.measured,
                result.bound - result.measured,
                "float64 from the implementation",
            ),
        ),
        {"examples": examples},
        counterexample,
    )
