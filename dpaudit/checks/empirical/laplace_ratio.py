"""The product-Laplace likelihood ratio of a vector release, as one score (a half-space family event).

A vector whose coordinates each carry Laplace noise (a histogram, a vector of counts or values)
leaks through its L1 shift: the log likelihood ratio of Lap(a, s) and Lap(b, s) per coordinate is
(|y − a| − |y − b|) / s, which is largest, |a − b| / s, on the whole half-line beyond both centres.
Summed over the coordinates, the ratio reaches e^(Σ|a_i − b_i| / s_i) on the orthant beyond every
pair of centres, an event of probability about 2^-d on the p side. No single coordinate, and no
half-space, holds that event: each sees the ε of its own part. The score below is that sum with
the centres (medians) and scales (mean absolute deviations about them, both sides pooled) fitted on
the pilot; its threshold events include the orthant. The fit only chooses the events: like every
projection, their probabilities are certified on fresh draws, whatever the release's law.

References:
    Dwork & Roth 2014, Theorem 3.6 (the Laplace mechanism's L1 sensitivity); Jagielski, Ullman &
    Oprea 2020 (events chosen on held-out draws).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LaplaceRatioProjection", "laplace_ratio_projection"]


@dataclass(frozen=True)
class LaplaceRatioProjection:
    """The score Σ_i (|y_i − a_i| − |y_i − b_i|) / s_i over the coordinates ``index`` of a flattened output.

    Attributes:
        index: the coordinates whose centres differ (the others add nothing).
        first_centre, second_centre: a and b, the pilot's medians of the two sides there.
        scales: s, the pilot's mean absolute deviations about the medians, both sides pooled.
    """

    index: tuple[int, ...]
    first_centre: tuple[float, ...]
    second_centre: tuple[float, ...]
    scales: tuple[float, ...]

    def scores(self, outputs: np.ndarray) -> np.ndarray:
        """Scores of the rows of ``outputs`` (shape (n, d))."""
        rows = np.asarray(outputs, dtype=np.float64)[:, list(self.index)]
        ratio = np.abs(rows - np.asarray(self.first_centre)) - np.abs(rows - np.asarray(self.second_centre))
        return ratio @ (1.0 / np.asarray(self.scales))

    def describe(self) -> str:
        """A short text for reports."""
        shown = ", ".join(str(i) for i in self.index[:6]) + (", ..." if len(self.index) > 6 else "")
        return f"sum of (|y_i - a_i| - |y_i - b_i|) / s_i over i in ({shown}) [product-Laplace likelihood ratio]"


def laplace_ratio_projection(first: np.ndarray, second: np.ndarray) -> LaplaceRatioProjection | None:
    """The projection fitted on two pilots (rows are outputs), or ``None`` when fewer than two
    coordinates have differing medians and a positive spread (one coordinate: its threshold events
    already hold the ratio's every level set)."""
    a, b = np.median(first, axis=0), np.median(second, axis=0)
    spread = (np.abs(first - a).mean(axis=0) + np.abs(second - b).mean(axis=0)) / 2
    keep = np.flatnonzero((a != b) & (spread > 0) & np.isfinite(a) & np.isfinite(b) & np.isfinite(spread))
    if keep.size < 2:
        return None
    return LaplaceRatioProjection(
        tuple(int(i) for i in keep),
        tuple(float(v) for v in a[keep]),
        tuple(float(v) for v in b[keep]),
        tuple(float(v) for v in spread[keep]),
    )
