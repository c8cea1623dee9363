"""Where a Gaussian release fit looks: directions to project on, and the pairs worth fitting.

Both choices are made on draws the certification never sees (held-out rows of the fitted pair, or
a pilot of each searched pair), so the confidence statements made afterwards on fresh draws stay
valid whatever was chosen (see :mod:`dpaudit.checks.empirical.gaussian_release_fit`).

The directions: the mean difference μ1 − μ2 (a mean shift), the Fisher direction
(Σ1 + Σ2)⁻¹(μ1 − μ2) (a mean shift against correlated noise) and the generalised eigenvectors of
(Σ1, Σ2) with the largest and the smallest eigenvalue, the directions of the largest and smallest
variance ratio v'Σ1v / v'Σ2v.

References:
    Fisher 1936 (the discriminant direction); Golub & Van Loan 2013, Sec. 8.7 (the symmetric-definite
    generalised eigenproblem and its Rayleigh-quotient extremes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit.checks.empirical.gaussian_projection import point_epsilon
from dpaudit.checks.empirical.sampling import NeighbourPair

linalg = lazy_module("scipy.linalg")

__all__ = ["candidate_directions", "choose_direction", "most_revealing_pairs", "projected_moments"]


def candidate_directions(first: np.ndarray, second: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Unit vectors worth projecting the rows of both sides on (see the module docstring)."""
    dimension = first.shape[1]
    if dimension == 1:
        return [("the release (one coordinate)", np.ones(1))]
    difference = first.mean(axis=0) - second.mean(axis=0)
    covariances = [np.atleast_2d(np.cov(side, rowvar=False)) for side in (first, second)]
    ridge = [np.eye(dimension) * (1e-9 * max(float(np.trace(c)), 1e-300) / dimension) for c in covariances]
    found = [("the mean difference", difference)]
    try:
        found.append(("the Fisher direction", np.linalg.solve(covariances[0] + covariances[1], difference)))
        _, vectors = linalg.eigh(covariances[0] + ridge[0], covariances[1] + ridge[1])
        found += [("the smallest variance ratio", vectors[:, 0]), ("the largest variance ratio", vectors[:, -1])]
    except (np.linalg.LinAlgError, ValueError):
        pass  # a singular covariance: the mean difference alone
    unit = []
    for name, vector in found:
        norm = float(np.linalg.norm(vector))
        if np.all(np.isfinite(vector)) and norm > 0:
            unit.append((name, vector / norm))
    return unit


def projected_moments(values: np.ndarray) -> tuple[float, float]:
    """The sample mean and standard deviation of projected draws."""
    return float(np.mean(values)), float(np.std(values, ddof=1))


def choose_direction(first: np.ndarray, second: np.ndarray, delta: float) -> tuple[float, str, np.ndarray] | None:
    """The direction whose point estimates give the largest float64 ε at ``delta`` (either order), as
    ``(that ε, its name, the unit vector)``; ``None`` when every projection is a point mass."""
    best: tuple[float, str, np.ndarray] | None = None
    for name, vector in candidate_directions(first, second):
        sides = projected_moments(first @ vector), projected_moments(second @ vector)
        if min(sides[0][1], sides[1][1]) <= 0:
            continue
        score = max(point_epsilon(sides[0], sides[1], delta), point_epsilon(sides[1], sides[0], delta))
        if best is None or score > best[0]:
            best = (score, name, vector)
    return best


def most_revealing_pairs(
    pairs: Sequence[NeighbourPair],
    draw: Callable[[NeighbourPair, int], tuple[np.ndarray, np.ndarray]],
    delta: float,
    pilot: int,
    keep: int,
) -> list[tuple[NeighbourPair, float]]:
    """The ``keep`` pairs whose pilot draws (``pilot`` per side, from ``draw``) give the largest point
    ε at ``delta`` on their best direction, with that ε; ties keep the earlier pair."""
    scored = []
    for index, pair in enumerate(pairs):
        first, second = draw(pair, pilot)
        chosen = choose_direction(first, second, delta)
        scored.append((0.0 if chosen is None else chosen[0], -index, pair))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [(pair, score) for score, _, pair in scored[:keep]]
