"""Events for black-box auditing: projections of outputs, threshold and interval events, and a
logistic classifier.

An event is ``{score(y) >= t}``, ``{score(y) < t}`` or ``{a <= score(y) < b}`` (a histogram
range: it sees a leak in the middle of the output law, such as noise that is sometimes far
too small, which every tail event dilutes) for a scalar score of the output y.
An atom score (1 when y equals a value seen repeatedly or the input itself) sees point masses;
an outcome score (the rank of a discrete output in the pilot's likelihood-ratio order) gives
sets of outcomes and single outcomes for outputs that take few values.
A coordinate score gives threshold events, a linear score gives half-space events, and
the score of a logistic-regression classifier on output features (y, y²) gives the
event family a classifier-based search looks for (in the spirit of DP-Sniper).
Every class here is a frozen, picklable record so that chunks can run anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_integer, check_real
from dpaudit.checks.empirical.laplace_ratio import LaplaceRatioProjection
from dpaudit.checks.empirical.precision_events import PrecisionProjection
from dpaudit.errors import InvalidArgument, NumericalError

optimize = lazy_module("scipy.optimize")

__all__ = [
    "AtomProjection",
    "CoordinateProjection",
    "Event",
    "IntervalEvent",
    "LinearProjection",
    "OutcomeProjection",
    "Projection",
    "QuadraticProjection",
    "ThresholdEvent",
    "ThresholdGrid",
    "atoms_of",
    "fit_logistic_projection",
    "mean_difference_projection",
    "outcome_projection",
]


@dataclass(frozen=True)
class CoordinateProjection:
    """The score y[index] of a flattened output y (threshold events)."""

    index: int

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """Scores of the rows of ``outputs`` (shape (n, d))."""
        return outputs[:, self.index]

    def describe(self) -> str:
        """A short text for reports."""
        return f"y[{self.index}]"


def _dot(outputs: np.ndarray, weights: tuple[float, ...]) -> np.ndarray:
    """``outputs @ weights``; for one coordinate, one product per row, added to +0.0 as the matrix product's
    sum is (the same numbers, a zero product's sign included, without a matrix product per batch)."""
    if outputs.shape[1] == 1 == len(weights):
        product = outputs[:, 0] * weights[0]
        product += 0.0
        return product
    return outputs @ np.asarray(weights)


@dataclass(frozen=True)
class LinearProjection:
    """The score w · y of a flattened output y (half-space events).

    Attributes:
        weights: the normal vector w, one entry per output coordinate.
        origin: how w was chosen, for reports (``mean difference``, ``logistic regression``).
    """

    weights: tuple[float, ...]
    origin: str

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """Scores of the rows of ``outputs`` (shape (n, d))."""
        return _dot(outputs, self.weights)

    def describe(self) -> str:
        """A short text for reports."""
        shown = ", ".join(f"{w:.4g}" for w in self.weights[:6]) + (", ..." if len(self.weights) > 6 else "")
        return f"w·y, w=({shown}) [{self.origin}]"


@dataclass(frozen=True)
class QuadraticProjection:
    """The score a · y + b · y² (coordinatewise square) of a flattened output y.

    Attributes:
        linear: a, one entry per output coordinate.
        quadratic: b, one entry per output coordinate.
        origin: how the coefficients were chosen, for reports.
    """

    linear: tuple[float, ...]
    quadratic: tuple[float, ...]
    origin: str

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """Scores of the rows of ``outputs`` (shape (n, d))."""
        scores = _dot(outputs, self.linear)
        scores += _dot(outputs * outputs, self.quadratic)
        return scores

    def describe(self) -> str:
        """A short text for reports."""
        a = ", ".join(f"{w:.4g}" for w in self.linear[:4])
        b = ", ".join(f"{w:.4g}" for w in self.quadratic[:4])
        return f"a·y + b·y², a=({a}), b=({b}) [{self.origin}]"


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One key per row, equal exactly when the rows' float64 values are (-0.0 folded into 0.0) and ordered as
    the rows' bytes: a one-value row's eight bytes read as a big-endian integer (sorted as fast as any
    integer), a longer row's bytes as one opaque value."""
    matrix = np.ascontiguousarray(np.asarray(rows, dtype=np.float64) + 0.0)
    if matrix.ndim == 2 and matrix.shape[1] == 1:
        return matrix.view(">u8").ravel().astype(np.uint64)
    return matrix.view(np.dtype((np.void, 8 * matrix.shape[1]))).ravel()


@dataclass(frozen=True)
class AtomProjection:
    """Score 1 where the output equals one of ``atoms`` exactly, else 0: sees point masses.

    A continuous output law gives every single value probability 0, so an event
    ``{y in atoms}`` that has positive probability on one input and none on its neighbour
    certifies a large ε (an implementation that sometimes returns the exact value, or noise
    that repeats). The atoms are chosen on the pilot split (repeated outputs, and the input
    itself when it has the output's shape), never on the samples that certify.
    """

    atoms: tuple[tuple[float, ...], ...]
    label: str

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        if not self.atoms or rows.shape[1] != len(self.atoms[0]):
            return np.zeros(rows.shape[0])
        return np.isin(_row_keys(rows), _row_keys(np.array(self.atoms))).astype(np.float64)

    def describe(self) -> str:
        shown = ", ".join(str(list(atom))[:40] for atom in self.atoms[:2])
        more = f" and {len(self.atoms) - 2} more" if len(self.atoms) > 2 else ""
        return f"output equals exactly {shown}{more} ({self.label})"


def atoms_of(outputs: np.ndarray, data: object, *, limit: int = 32) -> tuple[tuple[float, ...], ...]:
    """Candidate atoms of one side: output rows seen at least twice (the most frequent first), and
    the input itself when it has the output's shape (an output equal to the non-private value)."""
    rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1) + 0.0
    keys = _row_keys(rows)
    _, first_index, counts = np.unique(keys, return_index=True, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    order = order[counts[order] >= 2][:limit]
    repeated = [tuple(float(v) for v in rows[first_index[i]]) for i in order]
    try:
        value = np.asarray(data, dtype=np.float64).ravel() + 0.0
    except (TypeError, ValueError):
        value = np.zeros(0)
    if value.size == rows.shape[1] and np.isfinite(value).all():
        repeated.append(tuple(float(v) for v in value))
    return tuple(dict.fromkeys(repeated))


#: The most distinct outputs a pilot may show for the outputs to count as discrete (outcome events).
MAX_OUTCOMES = 1024

#: The share of a pilot's outputs that may be distinct for the outputs to count as discrete.
DISCRETE_SHARE = 0.25


@dataclass(frozen=True)
class OutcomeProjection:
    """Score of a discrete output: the rank of its outcome in the pilot's likelihood-ratio order.

    For outputs that take few values (an action, a category, a count, a histogram of small
    counts), the most informative events are sets of outcomes: by Neyman–Pearson, the sets
    {y : P(y) / Q(y) >= t}. The pilot split (independent of the draws that select and certify)
    estimates each outcome's ratio as (c_X + 1/2) / (c_X' + 1/2); the score of an output is the
    dense rank of its outcome's log-ratio, an output the pilot never showed taking the rank of
    log-ratio 0 (no evidence either way). Threshold events on the score are then the
    likelihood-ratio superlevel sets of the pilot (both orders of the pair: upper and lower
    tails), and interval events of one grid step are single outcomes (per-outcome events).

    Attributes:
        outcomes: the distinct output rows of the pilot (flattened).
        ranks: the score of each outcome (its dense rank, 0 = most favouring X').
        unseen_rank: the score of an output the pilot never showed.
    """

    outcomes: tuple[tuple[float, ...], ...]
    ranks: tuple[float, ...]
    unseen_rank: float

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        scores = np.full(rows.shape[0], self.unseen_rank)
        if not self.outcomes or rows.shape[1] != len(self.outcomes[0]):
            return scores
        known = _row_keys(np.array(self.outcomes))
        order = np.argsort(known, kind="stable")
        known, ranks = known[order], np.asarray(self.ranks)[order]
        keys = _row_keys(rows)
        index = np.minimum(np.searchsorted(known, keys), known.size - 1)
        found = known[index] == keys
        scores[found] = ranks[index[found]]
        return scores

    def outcomes_between(self, low: float, high: float) -> str:
        """The outcomes whose score lies in [low, high), in words (for an event's description)."""
        inside = [outcome for outcome, rank in zip(self.outcomes, self.ranks, strict=True) if low <= rank < high]
        shown = ", ".join(_outcome_text(outcome) for outcome in inside[:6])
        more = f" and {len(inside) - 6} more" if len(inside) > 6 else ""
        unseen = " and every output the pilot did not show" if low <= self.unseen_rank < high else ""
        return f"y in {{{shown}}}{more}{unseen}" if inside else f"y not among the pilot's outcomes{unseen}"

    def describe(self) -> str:
        return f"outcome rank by the pilot's likelihood ratio ({len(self.outcomes)} outcomes)"


def _outcome_text(outcome: tuple[float, ...]) -> str:
    values = [str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(v) for v in outcome]
    return values[0] if len(values) == 1 else "(" + ", ".join(values[:8]) + (", ...)" if len(values) > 8 else ")")


def outcome_projection(first: np.ndarray, second: np.ndarray) -> OutcomeProjection | None:
    """The outcome projection of a pilot when its outputs are discrete, else ``None``.

    The outputs count as discrete when the two sides together show at most :data:`MAX_OUTCOMES`
    distinct rows and at most :data:`DISCRETE_SHARE` of the draws are distinct.
    """
    rows_first = np.asarray(first, dtype=np.float64).reshape(len(first), -1) + 0.0
    rows_second = np.asarray(second, dtype=np.float64).reshape(len(second), -1) + 0.0
    pooled = np.concatenate([rows_first, rows_second])
    if pooled.size == 0:
        return None
    keys, index, inverse = np.unique(_row_keys(pooled), return_index=True, return_inverse=True)
    if keys.size > MAX_OUTCOMES or keys.size > DISCRETE_SHARE * pooled.shape[0]:
        return None
    inverse = inverse.ravel()
    count_first = np.bincount(inverse[: len(rows_first)], minlength=keys.size)
    count_second = np.bincount(inverse[len(rows_first) :], minlength=keys.size)
    log_ratio = np.log((count_first + 0.5) / len(rows_first)) - np.log((count_second + 0.5) / len(rows_second))
    levels = np.unique(np.concatenate([log_ratio, [0.0]]))
    ranks = np.searchsorted(levels, log_ratio).astype(np.float64)
    unseen = float(np.searchsorted(levels, 0.0))
    outcomes = tuple(tuple(float(v) for v in pooled[i]) for i in index)
    return OutcomeProjection(outcomes, tuple(float(r) for r in ranks), unseen)


Projection = (
    CoordinateProjection
    | LinearProjection
    | QuadraticProjection
    | AtomProjection
    | OutcomeProjection
    | PrecisionProjection
    | LaplaceRatioProjection
)


@dataclass(frozen=True)
class ThresholdEvent:
    """The event ``{score(y) >= threshold}`` (``upper``) or ``{score(y) < threshold}``."""

    projection: Projection
    threshold: float
    upper: bool

    def indicator(self, scores: np.ndarray) -> np.ndarray:
        """Boolean membership of each score in the event."""
        return scores >= self.threshold if self.upper else scores < self.threshold

    def describe(self) -> str:
        """A short text for reports."""
        if isinstance(self.projection, OutcomeProjection):
            low, high = (self.threshold, np.inf) if self.upper else (-np.inf, self.threshold)
            return f"{self.projection.outcomes_between(low, high)} [{self.projection.describe()}]"
        return f"{self.projection.describe()} {'>=' if self.upper else '<'} {self.threshold!r}"


@dataclass(frozen=True)
class IntervalEvent:
    """The event ``{low <= score(y) < high}`` (a range of a histogram of the score)."""

    projection: Projection
    low: float
    high: float

    def indicator(self, scores: np.ndarray) -> np.ndarray:
        """Boolean membership of each score in the event."""
        return (scores >= self.low) & (scores < self.high)

    def describe(self) -> str:
        """A short text for reports."""
        if isinstance(self.projection, OutcomeProjection):
            return f"{self.projection.outcomes_between(self.low, self.high)} [{self.projection.describe()}]"
        return f"{self.low!r} <= {self.projection.describe()} < {self.high!r}"


Event = ThresholdEvent | IntervalEvent


@dataclass(frozen=True)
class ThresholdGrid:
    """Uniform candidate thresholds t_j = low + j · width, j = 0 … size − 1.

    The histogram of a score on this grid has ``size + 1`` cells: cell 0 holds scores
    below t_0 and cell j + 1 holds scores in [t_j, t_{j+1}) (the last cell is unbounded).
    Histogram counts only *select* events; certification recounts the chosen event
    with exact comparisons, so rounding at cell edges cannot bias a certified bound.
    """

    low: float
    width: float
    size: int

    def __post_init__(self) -> None:
        check_real("low", self.low)
        check_real("width", self.width, low=0.0, low_open=True)
        check_integer("size", self.size, low=1)

    @classmethod
    def spanning(cls, scores: np.ndarray, size: int) -> ThresholdGrid:
        """A grid over the central range of ``scores``, widened by half its span on each side."""
        check_integer("size", size, low=2)
        low, high = np.quantile(scores, [0.0005, 0.9995])
        span = float(high - low)
        if not np.isfinite(span) or span <= 0.0:
            span = max(abs(float(low)), 1.0)
        start = float(low) - 0.5 * span
        return cls(low=start, width=2.0 * span / (size - 1), size=size)

    def thresholds(self) -> np.ndarray:
        """The grid points t_0 … t_{size−1}."""
        return self.low + self.width * np.arange(self.size)

    def histogram(self, scores: np.ndarray) -> np.ndarray:
        """Counts of ``scores`` in the ``size + 1`` cells (int64)."""
        position = np.subtract(scores, self.low)  # the same numbers as before, computed in place
        position *= 1.0 / self.width
        np.clip(position, -1.0, self.size - 1.0, out=position)
        np.floor(position, out=position)
        cells = position.astype(np.int64)
        cells += 1
        return np.bincount(cells, minlength=self.size + 1)

    def tail_counts(self, histogram: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Counts of ``{score >= t_j}`` and ``{score < t_j}`` for every j, from a histogram."""
        below = np.cumsum(histogram)[:-1]
        total = int(histogram.sum())
        return total - below, below

    def interval_counts(self, histogram: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Counts of ``{t_a <= score < t_b}`` for every range of 1, 2, 4, ... grid steps (b - a a
        power of two below ``size``): fine ranges for narrow spikes, wide ones for shifted bulk.
        Returns (index a, index b, count), one entry per range (about size * log2(size) of them)."""
        below = np.cumsum(histogram)[:-1]
        widths = 1 << np.arange(max(int(self.size - 1).bit_length(), 0))
        starts = np.concatenate([np.arange(self.size - w) for w in widths])
        stops = starts + np.repeat(widths, self.size - widths)
        return starts, stops, below[stops] - below[starts]


def mean_difference_projection(first: np.ndarray, second: np.ndarray) -> LinearProjection:
    """The half-space normal w = mean(first) − mean(second) (rows are outputs).

    Raises:
        InvalidArgument: when the means coincide (no direction to test along).
    """
    direction = first.mean(axis=0) - second.mean(axis=0)
    norm = float(np.linalg.norm(direction))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidArgument("the two output samples have the same mean: no mean-difference direction")
    return LinearProjection(tuple(float(w) for w in direction / norm), "mean difference")


def _logistic_loss(params: np.ndarray, features: np.ndarray, signs: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    weights, bias = params[:-1], params[-1]
    margins = signs * (features @ weights + bias)
    loss = np.logaddexp(0.0, -margins).mean() + 0.5 * l2 * float(weights @ weights)
    slope = -signs * np.exp(-np.logaddexp(0.0, margins)) / margins.size
    gradient = np.empty_like(params)
    gradient[:-1] = features.T @ slope + l2 * weights
    gradient[-1] = slope.sum()
    return float(loss), gradient


def fit_logistic_projection(
    first: np.ndarray, second: np.ndarray, *, quadratic: bool, l2: float = 1e-4
) -> LinearProjection | QuadraticProjection:
    """Fit a logistic regression telling ``first`` outputs (label 1) from ``second`` ones.

    The fitted log-odds is monotone in the returned score, so thresholding the score
    spans the events a posterior-threshold classifier would pick. Features are the
    flattened output y, or (y, y²) when ``quadratic``; they are standardised for the
    fit and the weights mapped back (the constant offset is dropped: it only shifts
    thresholds).

    Args:
        first, second: outputs, shape (n, d) each.
        quadratic: add coordinatewise squares to the features.
        l2: ridge penalty on the standardised weights.

    Returns:
        The score as a :class:`LinearProjection` or :class:`QuadraticProjection`.

    Raises:
        NumericalError: when the optimiser fails.

    References:
        Bichsel, Steffen, Bogunovic & Vechev 2021, "DP-Sniper: Black-box discovery of
        differential privacy violations using classifiers", IEEE S&P, Sec. IV (a classifier's
        posterior ranks outputs; thresholding it yields the candidate events).
    """
    check_real("l2", l2, low=0.0)
    pooled = np.concatenate([first, second])
    features = np.concatenate([pooled, pooled * pooled], axis=1) if quadratic else pooled
    centre = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale == 0.0] = 1.0
    standard = (features - centre) / scale
    signs = np.concatenate([np.ones(first.shape[0]), -np.ones(second.shape[0])])
    start = np.zeros(standard.shape[1] + 1)
    result = optimize.minimize(_logistic_loss, start, args=(standard, signs, l2), jac=True, method="L-BFGS-B")
    if not np.all(np.isfinite(result.x)):
        raise NumericalError(f"logistic regression did not converge: {result.message}")
    weights = result.x[:-1] / scale
    d = first.shape[1]
    if quadratic:
        linear, squares = tuple(float(w) for w in weights[:d]), tuple(float(w) for w in weights[d:])
        return QuadraticProjection(linear, squares, "logistic regression on (y, y²)")
    return LinearProjection(tuple(float(w) for w in weights), "logistic regression on y")
