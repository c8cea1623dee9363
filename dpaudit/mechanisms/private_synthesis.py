"""Private policy synthesis as a mechanism: what Algorithm 1 of Gohari et al. 2020 releases.

Step 1 of Algorithm 1 privatises every transition row P(s, a) with the Dirichlet mechanism;
the policy is then computed from the privatised transitions alone (post-processing), so the
privatised transitions are what a candidate is audited on. Two relations say which
transition matrices are neighbours, because the paper's text admits both readings of
"neighbouring MDPs":

* ``row_adjacent(b)``: exactly one row P(s, a) differs, b-adjacently (two coordinates, L1
  distance <= b); the other rows are privatised identically on both sides, so the release is
  as private as one Dirichlet release (the single-row profile);
* ``simplex_adjacent(b)``: every row may differ, each b-adjacently; the |S||A| releases
  compose.

Every input is a matrix of probability rows. With ``structural_zeros = 'reject'`` (the
paper's domain) every entry is > 0; with ``'keep'`` zeros are public structure, so the rows
of neighbouring inputs have the same zeros. With a public lower bound ``eta`` every entry
(on the support, under ``'keep'``) is >= eta, as the Dirichlet mechanism's privacy statement
assumes. An input outside this domain is refused by the release and, in a spec's pairs, when
the spec is loaded.

References:
    Gohari, Hale, Topcu 2020, Algorithm 1 (step 1), Def. 2 (b-adjacency), Sec. II-D, Sec. III-B;
    Gohari, Wu, Hale, Topcu, ACC 2020 (the lower bound eta of the Dirichlet mechanism's domain).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_choice, check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.interface import CandidateSignature, InputDomain, Mechanism, Neighbourhood, OutputSpec
from dpaudit.mechanisms.synthesis import STRUCTURAL_ZEROS, privatize_transitions, privatized_transition_draws
from dpaudit.mechanisms.synthesis_search import explore_transitions
from dpaudit.privacy.dirichlet_pair import SIMPLEX_ATOL, check_open_simplex
from dpaudit.privacy.relations import BOUNDED_KINDS, ROW_ADJACENT, SIMPLEX_ADJACENT, Relation

__all__ = ["MECHANISM", "PrivateTransitions", "check_transitions"]


def _matrix(data: Any) -> np.ndarray:
    matrix = check_finite_array("input", data, ndim=3)
    if matrix.shape[0] != matrix.shape[2]:
        raise InvalidArgument(f"input: transitions P[s][a][s'] have shape (S, A, S), got {matrix.shape}")
    return matrix


def _check_row_on_support(name: str, row: np.ndarray, eta: float | None) -> None:
    """A row under ``structural_zeros = 'keep'``: non-negative, sums to 1, entries on its support >= eta."""
    negative = np.flatnonzero(row < 0.0)
    if negative.size:
        index = int(negative[0])
        raise InvalidArgument(f"{name}[{index}]={float(row[index])!r}: expected a probability (>= 0)")
    total = float(row.sum())
    if abs(total - 1.0) > SIMPLEX_ATOL:
        raise InvalidArgument(f"{name}: entries sum to {total!r}, expected 1 within {SIMPLEX_ATOL:g}")
    below = np.flatnonzero((row > 0.0) & (row < (eta or 0.0)))
    if below.size:
        index = int(below[0])
        raise InvalidArgument(
            f"{name}[{index}]={float(row[index])!r}: below the public lower bound eta={eta!r} "
            "(under structural_zeros='keep' every entry on the row's support must be >= eta)"
        )


def check_transitions(
    name: str, data: Any, *, eta: float | None = None, structural_zeros: str = "reject"
) -> np.ndarray:
    """Return ``data`` as transitions P[s, a, s'] (shape (S, A, S)) inside the mechanism's domain.

    Args:
        name: the input's name, echoed in errors.
        data: the transitions, a nested list or an array.
        eta: the public lower bound on the entries (``None``: none beyond the open simplex).
        structural_zeros: ``reject`` (every row in the open simplex Δ°(S)) or ``keep`` (zeros
            are public structure; the other entries of a row form a probability vector).

    Raises:
        InvalidArgument: naming the row P(s, a) and the entry that is zero under ``reject``,
            below ``eta``, negative, or the row's sum.

    References:
        Gohari et al. 2020, Sec. II-D (inputs in Δ°(n)); ACC 2020 (inputs >= eta).
    """
    check_choice("structural_zeros", structural_zeros, STRUCTURAL_ZEROS)
    matrix = _matrix(data)
    for s, a in np.ndindex(matrix.shape[:2]):
        row_name = f"{name}[{s}][{a}]"
        if structural_zeros == "reject":
            if np.any(matrix[s, a] == 0.0):
                raise InvalidArgument(
                    f"{row_name}={matrix[s, a].tolist()}: a zero probability is outside the domain under "
                    "structural_zeros='reject' (every row in the open simplex); pass structural_zeros='keep' "
                    "to treat zeros as public structure"
                )
            check_open_simplex(row_name, matrix[s, a], eta=eta)
        else:
            _check_row_on_support(row_name, matrix[s, a], eta)
    return matrix


@dataclass(frozen=True)
class PrivateTransitions:
    """Releases P̄(s, a) ~ Dir(k · P(s, a)) independently for every row of P[s, a, s'].

    Attributes:
        k: the Dirichlet mechanism's concentration k > 0.
        structural_zeros: ``reject`` (the paper's domain) or ``keep`` (privatise each row on its support).
        eta: optional public lower bound η on every entry of every row (on the row's support under
            ``keep``), as the Dirichlet mechanism's privacy statement assumes; ``None`` accepts any
            row of the domain.

    References:
        Gohari et al. 2020, Algorithm 1 step 1; Gohari et al., ACC 2020 (η).
    """

    k: float
    structural_zeros: str = "reject"
    eta: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_real("k", self.k, low=0.0, low_open=True))
        if self.structural_zeros not in STRUCTURAL_ZEROS:
            raise InvalidArgument(f"structural_zeros={self.structural_zeros!r}: expected one of {STRUCTURAL_ZEROS}")
        if self.eta is not None:
            object.__setattr__(self, "eta", check_real("eta", self.eta, low=0.0, high=0.5, low_open=True))

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """The privatised transitions (shape (S, A, S)); with ``size``, that many independent releases.

        Raises:
            InvalidArgument: for an input outside the domain (see :func:`check_transitions`).
        """
        matrix = check_transitions("input", data, eta=self.eta, structural_zeros=self.structural_zeros)
        if size is None:
            return privatize_transitions(matrix, self.k, rng=rng, structural_zeros=self.structural_zeros).transitions
        return privatized_transition_draws(
            matrix, self.k, check_integer("size", size, low=1), rng=rng, structural_zeros=self.structural_zeros
        )


def _plain(data: Any) -> list[Any]:
    return np.asarray(data, dtype=np.float64).tolist()


def _in_domain(name: str, data: Any, params: Mapping[str, Any]) -> np.ndarray:
    """The input checked against the domain the spec's parameters give (eta, structural zeros)."""
    structural_zeros = params.get("structural_zeros", "reject")
    eta = params.get("eta")
    if eta is not None:
        eta = check_real("eta", eta, low=0.0, high=0.5, low_open=True)
    return check_transitions(name, data, eta=eta, structural_zeros=structural_zeros)


def _rows_apart(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
    """The largest L1 distance between corresponding rows.

    ``inf`` when the shapes differ, a row differs in more than two entries, or, under
    ``row_adjacent``, more than one row differs.

    Raises:
        InvalidArgument: when an input is outside the domain (a zero entry under
            ``structural_zeros = 'reject'``, an entry below ``eta``), or under ``keep`` when the
            rows do not have the same zeros (zeros are public: a moved zero is seen in every output).
    """
    a, b = _in_domain("first", first, params), _in_domain("second", second, params)
    if a.shape != b.shape:
        return float("inf")
    rows_a, rows_b = a.reshape(-1, a.shape[-1]), b.reshape(-1, b.shape[-1])
    moved_zero = np.flatnonzero(np.any((rows_a == 0.0) != (rows_b == 0.0), axis=1))
    if moved_zero.size:
        s, action = divmod(int(moved_zero[0]), a.shape[1])
        raise InvalidArgument(
            f"row P({s}, {action}): first={rows_a[moved_zero[0]].tolist()}, second={rows_b[moved_zero[0]].tolist()} "
            "have different zeros; under structural_zeros='keep' zeros are public structure and must be the "
            "same in both inputs"
        )
    entries = np.count_nonzero(rows_a != rows_b, axis=1)
    if (entries > 2).any():
        return float("inf")
    if relation.kind == ROW_ADJACENT and np.count_nonzero(entries) > 1:
        return float("inf")
    return float(np.abs(rows_a - rows_b).sum(axis=1).max())


def _bound(params: Mapping[str, Any], relation: Relation) -> float:
    return float(relation.bound) if relation.kind in BOUNDED_KINDS and relation.bound is not None else 0.0


MECHANISM = Mechanism(
    name="private_synthesis",
    description="Gohari et al. 2020 Algorithm 1: every transition row privatised by Dir(k P(s, a))",
    factory=PrivateTransitions,
    input_domain=InputDomain(
        "transition_matrix",
        "P[s][a][s']: an S x A x S nested list, every row a probability vector (entries >= eta when given)",
        _plain,
        _matrix,
    ),
    relations=(ROW_ADJACENT, SIMPLEX_ADJACENT),
    neighbourhood=Neighbourhood(
        "row_adjacent(b): exactly one row P(s, a) differs, in two entries, by <= b in L1; "
        "simplex_adjacent(b): every row may differ so (Def. 2)",
        _rows_apart,
        _bound,
        explore=explore_transitions,
    ),
    output=OutputSpec("the privatised transitions, of the input's shape", lambda params, data: np.shape(data)),
    candidate=CandidateSignature(
        "transitions", "private_synthesis(transitions, *, k, structural_zeros='reject', eta=None, rng) -> ndarray"
    ),
    source="Gohari, Hale, Topcu 2020, Algorithm 1",
)
