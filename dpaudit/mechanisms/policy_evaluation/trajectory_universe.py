"""A bounded trajectory universe: every trajectory of a small chain up to a horizon, and its datasets.

The universe holds every trajectory of a small chain up to a horizon cap, grouped into
*profiles*: two trajectories with the same visit set S_x and the same first-visit
returns F_{x,s} are interchangeable for every quantity of Balle et al. 2016 (F_X, the
signature ⟨X⟩, Γ_X, θ^w_X, θ^λ_X, φ, ψ), so a dataset is a multiset of profiles. Datasets
of size 1..m_max are enumerated as sorted index tuples and ranked in colex order, so
that vectorised sweeps can find the index of X° + x without hashing. The exact LSW/LSL
estimators on these datasets are in :mod:`dpaudit.mechanisms.policy_evaluation.exact_estimators`.

References:
    Balle, Gomrokchi, Precup 2016, Sec. 2.2 (F_{x,s}, eq. (3)–(5)), Sec. 4.1 (the signature ⟨X⟩).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache
from math import comb
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE
from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.first_visit import first_visit_returns
from dpaudit.rl.trajectory import Trajectory

__all__ = [
    "DatasetIndex",
    "TrajectoryProfile",
    "TrajectoryUniverse",
    "chain_universe",
    "neighbours",
]

Dataset = tuple[int, ...]
"""A dataset as a sorted tuple of profile indices (a multiset of trajectories)."""


@dataclass(frozen=True)
class TrajectoryProfile:
    """The visit set and exact first-visit returns shared by a class of trajectories.

    Attributes:
        visits: S_x, the states the trajectories visit.
        returns: F_{x,s} for every state (0 where not visited), exact.
        representative: one trajectory of the class (the first enumerated).
        multiplicity: how many enumerated trajectories share the profile.
    """

    visits: frozenset[int]
    returns: tuple[Fraction, ...]
    representative: Trajectory
    multiplicity: int


@dataclass(frozen=True, eq=False)
class TrajectoryUniverse:
    """Every trajectory of a finite domain up to a horizon cap, grouped into profiles.

    Attributes:
        n_states: the number S of states.
        gamma: the discount, exact.
        profiles: the distinct profiles, in enumeration order.
        n_trajectories: the number of enumerated trajectories (before grouping).
        description: the domain in words (for evidence).
    """

    n_states: int
    gamma: Fraction
    profiles: tuple[TrajectoryProfile, ...]
    n_trajectories: int
    description: str

    def __len__(self) -> int:
        return len(self.profiles)

    @cached_property
    def returns_array(self) -> np.ndarray:
        """F_{x,s} as a float64 array of shape (U, S) (for vectorised pre-screens only)."""
        return np.array([[float(r) for r in p.returns] for p in self.profiles], dtype=np.float64)

    @cached_property
    def visits_array(self) -> np.ndarray:
        """The indicator of s ∈ S_x as an int64 array of shape (U, S)."""
        table = np.zeros((len(self.profiles), self.n_states), dtype=np.int64)
        for i, profile in enumerate(self.profiles):
            table[i, sorted(profile.visits)] = 1
        return table

    def trajectories(self, dataset: Sequence[int]) -> tuple[Trajectory, ...]:
        """The representative trajectories of a dataset given by profile indices."""
        return tuple(self.profiles[i].representative for i in dataset)


def chain_universe(n_states: int, p: Any, gamma: Any, horizon: int) -> TrajectoryUniverse:
    """Enumerate every chain trajectory with at most ``horizon`` triples from every start state.

    Args:
        n_states: N, the chain's states including the absorbing goal (N - 1 non-absorbing).
        p: staying probability (rational, in [0, 1)).
        gamma: discount (rational, in [0, 1)).
        horizon: the cap L on the number of triples; trajectories cut at L are kept.

    Returns:
        The universe, profiles in enumeration order (start state, then depth-first).

    References:
        Balle et al. 2016, Sec. 6 (the chain domain).
    """
    chain = Chain(n_states=n_states, p=p, gamma=gamma)
    return _chain_universe(chain.n_states, chain.p, chain.gamma, check_integer("horizon", horizon, low=1))


@lru_cache(maxsize=16)
def _chain_universe(n_states: int, p: Fraction, gamma: Fraction, cap: int) -> TrajectoryUniverse:
    """:func:`chain_universe` on checked arguments, kept per process (a spec's validation counts
    the pairs of the same universe that its checker then sweeps)."""
    chain = Chain(n_states=n_states, p=p, gamma=gamma)
    groups: dict[tuple[frozenset[int], tuple[Fraction, ...]], list[Trajectory]] = {}
    total = 0
    for start in range(chain.n_states):
        for trajectory, _ in chain.enumerate_trajectories(start, cap):
            returns = tuple(first_visit_returns(trajectory, chain.gamma, chain.n_states))
            groups.setdefault((frozenset(trajectory.states), returns), []).append(trajectory)
            total += 1
    profiles = tuple(
        TrajectoryProfile(visits, returns, members[0], len(members)) for (visits, returns), members in groups.items()
    )
    description = (
        f"chain N={chain.n_states} ({chain.n_states - 1} non-absorbing), p={chain.p}, gamma={chain.gamma}, "
        f"horizon cap {cap}: {total} trajectories in {len(profiles)} profiles"
    )
    return TrajectoryUniverse(chain.n_states, chain.gamma, profiles, total, description)


@dataclass(frozen=True, eq=False)
class DatasetIndex:
    """All datasets (multisets of profiles) of sizes 1..m_max, ranked in colex order per size.

    A sorted multiset a_1 <= ... <= a_m maps to the strictly increasing b_i = a_i + i - 1,
    whose colex rank Σ_i C(b_i, i) (1-based i) is the dataset's rank among size-m datasets.

    Attributes:
        n_profiles: U, the universe size.
        m_max: the largest dataset size.
    """

    n_profiles: int
    m_max: int
    _binomials: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_integer("n_profiles", self.n_profiles, low=1)
        check_integer("m_max", self.m_max, low=1)
        top = self.n_profiles + self.m_max + 1
        table = np.array([[comb(n, k) for k in range(self.m_max + 2)] for n in range(top)], dtype=np.int64)
        object.__setattr__(self, "_binomials", table)

    def count(self, m: int) -> int:
        """The number of datasets of size m: C(U + m - 1, m)."""
        return comb(self.n_profiles + m - 1, m)

    @property
    def total(self) -> int:
        """The number of datasets of every size 1..m_max."""
        return sum(self.count(m) for m in range(1, self.m_max + 1))

    def offset(self, m: int) -> int:
        """The global index of the first dataset of size m."""
        return sum(self.count(k) for k in range(1, m))

    def datasets(self, m: int) -> np.ndarray:
        """All size-m datasets as an int64 array (count(m), m) of sorted rows, in rank order."""
        rows = np.zeros((1, 0), dtype=np.int64)
        for k in range(1, m + 1):
            # Size k in colex order: by largest element L, then the size-(k - 1) datasets within 0..L, which
            # are the first C(L + k - 1, k - 1) of the previous size's colex order.
            prefixes = self._binomials[np.arange(k - 1, self.n_profiles + k - 1), k - 1]
            largest = np.repeat(np.arange(self.n_profiles, dtype=np.int64), prefixes)
            starts = np.repeat(np.cumsum(prefixes) - prefixes, prefixes)
            rows = np.concatenate([rows[np.arange(largest.size) - starts], largest[:, None]], axis=1)
        return rows

    def rank(self, rows: np.ndarray) -> np.ndarray:
        """The colex rank of each sorted row among datasets of its size (vectorised)."""
        m = rows.shape[-1]
        shifted = rows + np.arange(m, dtype=np.int64)
        ranks = np.zeros(rows.shape[:-1], dtype=np.int64)
        for i in range(m):
            ranks += self._binomials[shifted[..., i], i + 1]
        return ranks

    def global_index(self, rows: np.ndarray) -> np.ndarray:
        """The index of each sorted row among all datasets of sizes 1..m_max."""
        return self.offset(rows.shape[-1]) + self.rank(rows)


def neighbours(dataset: Sequence[int], relation: str, n_profiles: int, m_max: int) -> Iterator[Dataset]:
    """Yield every neighbour of a dataset inside the domain of sizes 1..m_max (each once).

    ``replace_one``: replace one element by a different profile. ``add_remove_one``: add any
    profile (if the size stays <= m_max) or remove one element (if one remains).
    """
    items = tuple(sorted(dataset))
    distinct = sorted(set(items))
    seen: set[Dataset] = set()
    if relation == REPLACE_ONE:
        for removed in distinct:
            rest = list(items)
            rest.remove(removed)
            for added in range(n_profiles):
                if added != removed:
                    candidate = tuple(sorted([*rest, added]))
                    if candidate not in seen:
                        seen.add(candidate)
                        yield candidate
    elif relation == ADD_REMOVE_ONE:
        if len(items) < m_max:
            for added in range(n_profiles):
                yield tuple(sorted((*items, added)))
        if len(items) > 1:
            for removed in distinct:
                rest = list(items)
                rest.remove(removed)
                yield tuple(rest)
    else:
        raise InvalidArgument(f"relation={relation!r}: expected {REPLACE_ONE!r} or {ADD_REMOVE_ONE!r}")
