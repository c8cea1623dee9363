"""Model-free radial events for a multivariate release whose scale differs between the two inputs.

Two isotropic Gaussians N(μ1, σ1² I_d) and N(μ2, σ2² I_d) with σ1 ≠ σ2 have a privacy loss that
depends on x only through ‖x − c‖², c = (σ2² μ1 − σ1² μ2)/(σ2² − σ1²): the likelihood-ratio
events are balls about c and their complements. A projection on one direction sees the variance
ratio in one coordinate; the radial statistic sees it in all d at once (the loss of d coordinates
adds up). Nothing here assumes the release is Gaussian: the centre and the thresholds are chosen on
held-out draws (split A) and the chosen events are counted on the others, so a Clopper–Pearson
bound on each side's probability certifies ε >= ln((p_lo − δ)/q_hi) for any law.

References:
    Balle, Gomrokchi & Precup 2016, Lemma 1 (isotropic Gaussian releases with a data-dependent
    scale); Balle & Wang 2018, Sec. 2 (δ(ε) as a supremum over events); Clopper & Pearson 1934.
"""

from __future__ import annotations

import math

import numpy as np

from dpaudit.checks.empirical.gaussian_projection import TailEvent
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound

__all__ = ["RadialEvent", "choose_radial_events", "radial_centre", "radial_statistic"]

#: Tail levels of the pooled held-out statistic tried as thresholds (both tails).
_TAIL_LEVELS = tuple(2.0**-k for k in range(1, 15))
#: The error probability each held-out score is computed at (it ranks events; it certifies nothing).
_RANKING_ALPHA = 0.05
#: Relative difference of the two scales below which no radial event is tried (the loss is then
#: nearly linear and the projection on the mean difference sees it).
_SCALE_TOLERANCE = 1e-3

RadialEvent = tuple[bool, TailEvent]


def radial_centre(first: np.ndarray, second: np.ndarray) -> np.ndarray | None:
    """The centre c of the likelihood-ratio balls of the isotropic laws estimated from the rows, or
    ``None`` when the two estimated scales agree (see the module docstring)."""
    variances = [float(np.mean(np.var(side, axis=0, ddof=1))) for side in (first, second)]
    if min(variances) <= 0 or abs(variances[0] - variances[1]) <= _SCALE_TOLERANCE * max(variances):
        return None
    means = first.mean(axis=0), second.mean(axis=0)
    return (variances[1] * means[0] - variances[0] * means[1]) / (variances[1] - variances[0])


def radial_statistic(rows: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """‖x − c‖² of every row."""
    return np.sum((rows - centre) ** 2, axis=1)


def _score(event: TailEvent, left: np.ndarray, right: np.ndarray, delta: float) -> float:
    p_lower = clopper_pearson_lower(int(np.count_nonzero(event.contains(left))), left.size, _RANKING_ALPHA)
    q_upper = clopper_pearson_upper(int(np.count_nonzero(event.contains(right))), right.size, _RANKING_ALPHA)
    return epsilon_lower_bound(p_lower, q_upper, delta)


def choose_radial_events(
    first: np.ndarray, second: np.ndarray, centre: np.ndarray, delta: float, count: int
) -> list[RadialEvent]:
    """The ``count`` radial events with the best held-out scores (``True``: the second side on the left).

    Args:
        first, second: held-out rows of the two sides (split A).
        centre: the centre the statistic is measured from.
        delta: the claimed δ.
        count: how many events to keep.
    """
    statistics = radial_statistic(first, centre), radial_statistic(second, centre)
    pooled = np.concatenate(statistics)
    scored: list[tuple[float, RadialEvent]] = []
    for level in _TAIL_LEVELS:
        if level * pooled.size < 1:
            break
        low, high = np.quantile(pooled, [level, 1 - level])
        for event in (TailEvent(float(low), None), TailEvent(None, float(high))):
            for order in (False, True):
                left, right = (statistics[1], statistics[0]) if order else statistics
                score = _score(event, left, right, delta)
                if math.isfinite(score) and score > 0:
                    scored.append((score, (order, event)))
    scored.sort(key=lambda item: item[0], reverse=True)
    return [event for _, event in scored[:count]]
