"""Google's python-dp (``pydp``) mechanisms and aggregations as dpaudit candidates, with the
library's own parameters.

Each function builds the python-dp object of its name with the keywords it is given (python-dp's
own: ``epsilon``, ``delta``, ``sensitivity``, ``lower_bound``/``upper_bound``, ``dtype`` ...) and
releases through it; nothing here computes a noise scale.

python-dp draws from Google's C++ library's secure RNG, which cannot be seeded from Python:
``rng`` is accepted and not used, and a spec declares ``[candidate] randomness = "external"``
(dpaudit's own draws stay seeded; the audit is reproducible in distribution, not bit for bit).
python-dp releases one value per call; each adapter's vectorised ``sample(value, count, *, rng,
**params)`` calls it ``count`` times in a loop (no worker round trip per release).

The additive mechanisms take a number or a list of numbers (f(X), as the ``laplace`` and
``gaussian`` kinds send it) and add noise to every coordinate; the aggregations take a dataset
(a list of records) and are audited under ``add_remove_one``, the relation of Google's library
(one record, of one user, added or removed; ``max_partitions_contributed`` = 1).

Use, e.g. (specs/examples/ecosystem/)::

    dpaudit check specs/examples/ecosystem/python_dp_laplace.toml \\
        --candidate dpaudit.adapters.python_dp_mechanisms:laplace

References:
    Google's differential privacy library, "Secure noise generation" and
    "Differential Privacy Building Blocks" (github.com/google/differential-privacy, docs/).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.adapters._library import import_library

__all__ = ["bounded_mean", "bounded_sum", "count", "gaussian", "laplace"]


def _numerical_mechanisms() -> Any:
    return import_library("pydp.algorithms.numerical_mechanisms", extra="python-dp", library="python-dp")


def _aggregations() -> Any:
    return import_library("pydp.algorithms.laplacian", extra="python-dp", library="python-dp")


def _add_noise_each(mechanism: Any, value: Any) -> Any:
    """``mechanism.add_noise`` of a number, or of every coordinate of a list (same shape back)."""
    if np.ndim(value) == 0:
        return mechanism.add_noise(float(value))
    return np.asarray([_add_noise_each(mechanism, item) for item in value])


def _looped(adapter: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``adapter`` a ``sample(value, count, *, rng, **params)`` that calls it ``count`` times."""

    def sample(value: Any, count: int, *, rng: np.random.Generator, **params: Any) -> np.ndarray:
        return np.asarray([adapter(value, rng=rng, **params) for _ in range(int(count))])

    adapter.sample = sample  # type: ignore[attr-defined]
    return adapter


@_looped
def laplace(value: Any, *, epsilon: float, sensitivity: float = 1.0, rng: np.random.Generator) -> Any:
    """``pydp.algorithms.numerical_mechanisms.LaplaceMechanism(epsilon, sensitivity).add_noise``: value plus
    Laplace noise of scale sensitivity / epsilon, snapped to a power-of-two granularity (ε-DP)."""
    return _add_noise_each(_numerical_mechanisms().LaplaceMechanism(epsilon, sensitivity), value)


@_looped
def gaussian(value: Any, *, epsilon: float, delta: float, sensitivity: float = 1.0, rng: np.random.Generator) -> Any:
    """``pydp.algorithms.numerical_mechanisms.GaussianMechanism(epsilon, delta, sensitivity).add_noise``: value plus
    Gaussian noise of the analytic calibration (Balle & Wang 2018) for L2 sensitivity ``sensitivity``."""
    return _add_noise_each(_numerical_mechanisms().GaussianMechanism(epsilon, delta, sensitivity), value)


@_looped
def count(dataset: list[Any], *, epsilon: float, rng: np.random.Generator) -> int:
    """``pydp.algorithms.laplacian.Count(epsilon=epsilon, dtype="int").quick_result``: the noisy number of records."""
    return int(_aggregations().Count(epsilon=epsilon, dtype="int").quick_result(list(dataset)))


def _bounded_aggregation(adapter: str, algorithm: str, summary: str) -> Callable[..., Any]:
    """The adapter named ``adapter`` of python-dp's ``algorithm`` (``BoundedSum``, ``BoundedMean``): the same
    keywords, the records clamped to [lower_bound, upper_bound] and aggregated by ``quick_result``."""

    def aggregation_adapter(
        dataset: list[float],
        *,
        epsilon: float,
        lower_bound: float,
        upper_bound: float,
        delta: float = 0.0,
        dtype: str = "float",
        rng: np.random.Generator,
    ) -> float:
        aggregation = getattr(_aggregations(), algorithm)(
            epsilon=epsilon, delta=delta, lower_bound=lower_bound, upper_bound=upper_bound, dtype=dtype
        )
        return float(aggregation.quick_result(list(dataset)))

    aggregation_adapter.__name__ = aggregation_adapter.__qualname__ = adapter
    aggregation_adapter.__doc__ = (
        f"``pydp.algorithms.laplacian.{algorithm}(epsilon, delta, lower_bound, upper_bound, dtype=).quick_result``: "
        f"{summary}."
    )
    return _looped(aggregation_adapter)


bounded_sum = _bounded_aggregation(
    "bounded_sum", "BoundedSum", "the noisy sum of the records clamped to [lower_bound, upper_bound]"
)
bounded_mean = _bounded_aggregation(
    "bounded_mean", "BoundedMean", "the noisy mean of the records clamped to [lower_bound, upper_bound]"
)
