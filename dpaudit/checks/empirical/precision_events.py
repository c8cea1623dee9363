"""Events on the floating-point format of a release: noise drawn (or a release kept) in half or
single precision puts f(X) + noise on that format's grid for one input and mostly off it for a
neighbour whose f(X') is not on the noise's grid, so the event "every value of y is exactly a
float16 (float32) number" has very different probabilities on the two sides. The support of
floating-point noise depends on the input: Mironov 2012 (there for double-precision Laplace noise).

A projection is offered only when the pilot shows the two sides' shares of such outputs differ
and one of them is at least :data:`MIN_SHARE`: a release drawn in double precision is almost never
on these grids (about 2^-29 per float32 value), and an integer one is always on them on both sides.

References:
    Mironov 2012, "On significance of the least significant bits for differential privacy" (CCS).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PrecisionProjection", "precision_projections"]

#: The narrow formats tried, narrowest first.
FORMATS = ("float16", "float32")

#: The smallest share of one side's pilot outputs on a format's grid for its projection to be offered.
MIN_SHARE = 0.01


@dataclass(frozen=True)
class PrecisionProjection:
    """Score 1 where every value of the output is exactly a number of ``format``, else 0."""

    format: str

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """Scores of the rows of ``outputs`` (shape (n, d))."""
        rows = np.asarray(outputs, dtype=np.float64).reshape(len(outputs), -1)
        with np.errstate(over="ignore"):  # beyond the format's range: infinity, never equal
            exact = rows.astype(self.format).astype(np.float64) == rows
        return exact.all(axis=1).astype(np.float64)

    def describe(self) -> str:
        """A short text for reports."""
        return f"1 if every value of y is exactly a {self.format} number, else 0"


def precision_projections(first: np.ndarray, second: np.ndarray) -> list[PrecisionProjection]:
    """The projections whose pilot shares differ between the sides, one of them at least :data:`MIN_SHARE`."""
    offered = []
    for name in FORMATS:
        projection = PrecisionProjection(name)
        shares = (projection.scores(first).mean(), projection.scores(second).mean())
        if max(shares) >= MIN_SHARE and shares[0] != shares[1]:
            offered.append(projection)
    return offered
