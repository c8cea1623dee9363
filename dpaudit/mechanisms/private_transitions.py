"""Private policy synthesis as a mechanism: what Algorithm 1 of Gohari et al. 2020 releases.

Step 1 of Algorithm 1 privatises every transition row P(s, a) with the Dirichlet mechanism;
the policy is then computed from the privatised transitions alone (post-processing), so the
privatised transitions are what a candidate is audited on. Neighbouring inputs are two
transition matrices whose rows are pairwise b-adjacent (each pair of rows differs in at most
two coordinates, by at most b in L1). This is the reading under which every row of
neighbouring MDPs may differ; a pair that differs in one row only is one instance of it.

References:
    Gohari, Hale, Topcu 2020, Algorithm 1 (step 1), Def. 2 (b-adjacency), Sec. II-D.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.interface import CandidateSignature, InputDomain, Mechanism, Neighbourhood, OutputSpec
from dpaudit.mechanisms.synthesis import STRUCTURAL_ZEROS, privatize_transitions
from dpaudit.privacy.relations import SIMPLEX_ADJACENT, Relation
from dpaudit.rng import normalize_rng

__all__ = ["MECHANISM", "PrivateTransitions"]


@dataclass(frozen=True)
class PrivateTransitions:
    """Releases P̄(s, a) ~ Dir(k · P(s, a)) independently for every row of P[s, a, s'].

    Attributes:
        k: the Dirichlet mechanism's concentration k > 0.
        structural_zeros: ``reject`` (the paper's domain) or ``keep`` (privatise each row on its support).
    """

    k: float
    structural_zeros: str = "reject"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_real("k", self.k, low=0.0, low_open=True))
        if self.structural_zeros not in STRUCTURAL_ZEROS:
            raise InvalidArgument(f"structural_zeros={self.structural_zeros!r}: expected one of {STRUCTURAL_ZEROS}")

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """The privatised transitions (shape (S, A, S)); with ``size``, that many independent releases."""
        generator = normalize_rng(rng)

        def once() -> np.ndarray:
            return privatize_transitions(
                data, self.k, rng=generator, structural_zeros=self.structural_zeros
            ).transitions

        if size is None:
            return once()
        return np.stack([once() for _ in range(check_integer("size", size, low=1))])


def _matrix(data: Any) -> np.ndarray:
    matrix = check_finite_array("input", data, ndim=3)
    if matrix.shape[0] != matrix.shape[2]:
        raise InvalidArgument(f"input: transitions P[s][a][s'] have shape (S, A, S), got {matrix.shape}")
    return matrix


def _plain(data: Any) -> list[Any]:
    return np.asarray(data, dtype=np.float64).tolist()


def _rows_apart(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
    """The largest L1 distance between corresponding rows (inf if shapes differ or a row differs in > 2 entries)."""
    a, b = _matrix(first), _matrix(second)
    if a.shape != b.shape:
        return float("inf")
    rows_a, rows_b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
    if (np.count_nonzero(rows_a != rows_b, axis=1) > 2).any():
        return float("inf")
    return float(np.abs(rows_a - rows_b).sum(axis=1).max())


def _bound(params: Mapping[str, Any], relation: Relation) -> float:
    return float(relation.bound) if relation.kind == SIMPLEX_ADJACENT and relation.bound is not None else 0.0


MECHANISM = Mechanism(
    name="private_synthesis",
    description="Gohari et al. 2020 Algorithm 1: every transition row privatised by Dir(k P(s, a))",
    factory=PrivateTransitions,
    input_domain=InputDomain(
        "transition_matrix", "P[s][a][s']: an S x A x S nested list, every row a probability vector", _plain, _matrix
    ),
    relations=(SIMPLEX_ADJACENT,),
    neighbourhood=Neighbourhood("every pair of rows is b-adjacent (Def. 2)", _rows_apart, _bound),
    output=OutputSpec("the privatised transitions, of the input's shape", lambda params, data: np.shape(data)),
    candidate=CandidateSignature(
        "transitions", "private_synthesis(transitions, *, k, structural_zeros='reject', rng) -> ndarray"
    ),
    source="Gohari, Hale, Topcu 2020, Algorithm 1",
)
