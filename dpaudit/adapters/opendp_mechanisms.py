"""OpenDP measurements as dpaudit candidates, with the library's own parameters.

Each function builds the OpenDP measurement of its name (``opendp.measurements.make_*``) on the
input domain and metric the mechanism is documented with, with OpenDP's own parameters
(``scale``, ``k``, ``bounds``, ``prob``, ``optimize`` ...), and invokes it; nothing here computes a
noise scale. The claim a spec makes is OpenDP's privacy map: ``measurement.map(d_in)``.
A built measurement is cached per parameters (building one costs more than a release).

OpenDP samples from a cryptographically secure RNG that cannot be seeded: ``rng`` is accepted
and not used, and a spec declares ``[candidate] randomness = "external"`` (dpaudit's own draws
stay seeded; the audit is reproducible in distribution, not bit for bit). The library's
``contrib`` feature is enabled when the first measurement is built (OpenDP's constructors of
these measurements are behind it).

Every adapter has a vectorised ``sample(value, count, *, rng, **params)``. For the vector
measurements (``laplace``, ``discrete_laplace``, ``gaussian``, ``geometric``), ``count`` releases of
an input of length d are one OpenDP call on the input repeated ``count`` times (the measurement adds
independent noise to every coordinate), returned as ``(count, d)``; the others invoke their
measurement ``count`` times in a loop (one measurement built, no worker round trip per release, and
the import of OpenDP on the first call spread over a batch when dpaudit times the candidate).

Use, e.g. (specs/examples/ecosystem/)::

    dpaudit check specs/examples/ecosystem/opendp_laplace.toml \\
        --candidate dpaudit.adapters.opendp_mechanisms:laplace

References:
    The OpenDP Library, https://docs.opendp.org (each constructor's proof document).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.adapters._library import import_library

__all__ = [
    "discrete_laplace",
    "gaussian",
    "geometric",
    "laplace",
    "noisy_max",
    "randomized_response",
    "randomized_response_bool",
]


@functools.cache
def _opendp() -> Any:
    prelude = import_library("opendp.prelude", extra="opendp", library="opendp")
    prelude.enable_features("contrib")
    return prelude


@functools.lru_cache(maxsize=64)
def _vector_measurement(
    constructor: str, atom: str, metric: str, size: int, scale: float, extra: tuple[tuple[str, Any], ...]
) -> Any:
    """``make_<constructor>`` on vectors of ``size`` elements of ``atom`` (``"f64"`` or ``"i64"``) under
    ``metric`` (cached; OpenDP needs the size when a float mechanism rounds to a granularity ``k``)."""
    dp = _opendp()
    element = dp.atom_domain(T=atom, nan=False) if atom == "f64" else dp.atom_domain(T=atom)
    domain = dp.vector_domain(element, size=size)
    return getattr(dp.m, f"make_{constructor}")(domain, getattr(dp, metric)(T=atom), scale, **dict(extra))


def _vector_releases(
    constructor: str, atom: str, metric: str, value: Any, count: int, scale: float, **extra: Any
) -> np.ndarray:
    """``count`` releases of ``value`` (a number or a vector) stacked on axis 0: one OpenDP call on the
    input repeated ``count`` times."""
    convert: Callable[[Any], Any] = float if atom == "f64" else int
    values = [convert(item) for item in np.ravel(value).tolist()]
    key = tuple(sorted(extra.items()))
    measurement = _vector_measurement(constructor, atom, metric, len(values) * count, float(scale), key)
    return np.asarray(measurement(values * count)).reshape((count, *np.shape(value)))


def _bounds(bounds: list[int] | None) -> tuple[int, int] | None:
    return None if bounds is None else (int(bounds[0]), int(bounds[1]))


def laplace(value: Any, *, scale: float, k: int | None = None, rng: np.random.Generator) -> np.ndarray:
    """``make_laplace(vector_domain(atom_domain(T=float, nan=False)), l1_distance(T=float), scale, k)``:
    f(X) + Laplace(scale) noise per coordinate; ε = map(d_in) = d_in / scale (max divergence)."""
    return _vector_releases("laplace", "f64", "l1_distance", value, 1, scale, k=k)[0]


def _laplace_vectorised(
    value: Any, count: int, *, scale: float, k: int | None = None, rng: np.random.Generator
) -> np.ndarray:
    return _vector_releases("laplace", "f64", "l1_distance", value, count, scale, k=k)


def discrete_laplace(value: Any, *, scale: float, rng: np.random.Generator) -> np.ndarray:
    """``make_laplace(vector_domain(atom_domain(T=int)), l1_distance(T=int), scale)``: the discrete Laplace
    (two-sided geometric) mechanism on integers; ε = map(d_in) = d_in / scale."""
    return _vector_releases("laplace", "i64", "l1_distance", value, 1, scale)[0]


def _discrete_laplace_vectorised(value: Any, count: int, *, scale: float, rng: np.random.Generator) -> np.ndarray:
    return _vector_releases("laplace", "i64", "l1_distance", value, count, scale)


def gaussian(value: Any, *, scale: float, k: int | None = None, rng: np.random.Generator) -> np.ndarray:
    """``make_gaussian(vector_domain(atom_domain(T=float, nan=False)), l2_distance(T=float), scale, k)``:
    f(X) + N(0, scale²) per coordinate; ρ-zCDP with ρ = map(d_in) = d_in² / (2 scale²)."""
    return _vector_releases("gaussian", "f64", "l2_distance", value, 1, scale, k=k)[0]


def _gaussian_vectorised(
    value: Any, count: int, *, scale: float, k: int | None = None, rng: np.random.Generator
) -> np.ndarray:
    return _vector_releases("gaussian", "f64", "l2_distance", value, count, scale, k=k)


def geometric(value: Any, *, scale: float, bounds: list[int] | None = None, rng: np.random.Generator) -> np.ndarray:
    """``make_geometric(vector_domain(atom_domain(T=int)), l1_distance(T=int), scale, bounds)``: the discrete
    Laplace mechanism (constant-time within ``bounds``); ε = map(d_in) = d_in / scale."""
    return _vector_releases("geometric", "i64", "l1_distance", value, 1, scale, bounds=_bounds(bounds))[0]


def _geometric_vectorised(
    value: Any, count: int, *, scale: float, bounds: list[int] | None = None, rng: np.random.Generator
) -> np.ndarray:
    return _vector_releases("geometric", "i64", "l1_distance", value, count, scale, bounds=_bounds(bounds))


laplace.sample = _laplace_vectorised  # type: ignore[attr-defined]
discrete_laplace.sample = _discrete_laplace_vectorised  # type: ignore[attr-defined]
gaussian.sample = _gaussian_vectorised  # type: ignore[attr-defined]
geometric.sample = _geometric_vectorised  # type: ignore[attr-defined]


@functools.cache
def _noisy_max(scale: float, negate: bool) -> Any:
    dp = _opendp()
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    return dp.m.make_noisy_max(domain, dp.linf_distance(T=float), dp.max_divergence(), scale, negate=negate)


def noisy_max(scores: Any, *, scale: float, negate: bool = False, rng: np.random.Generator) -> int:
    """``make_noisy_max(vector_domain(atom_domain(T=float, nan=False)), linf_distance(T=float), max_divergence(),
    scale, negate)``: the index of the largest score plus Gumbel(scale) noise (the exponential mechanism);
    ε = map(d_in) = 2 d_in / scale (d_in the largest change of one score)."""
    return int(_noisy_max_vectorised(scores, 1, scale=scale, negate=negate, rng=rng)[0])


def _noisy_max_vectorised(
    scores: Any, count: int, *, scale: float, negate: bool = False, rng: np.random.Generator
) -> np.ndarray:
    measurement = _noisy_max(float(scale), bool(negate))
    values = [float(item) for item in scores]
    return np.asarray([measurement(values) for _ in range(int(count))], dtype=np.int64)


@functools.cache
def _randomized_response_bool(prob: float, constant_time: bool) -> Any:
    return _opendp().m.make_randomized_response_bool(prob, constant_time=constant_time)


def randomized_response_bool(
    value: bool, *, prob: float, constant_time: bool = False, rng: np.random.Generator
) -> bool:
    """``make_randomized_response_bool(prob, constant_time)``: the bit kept with probability ``prob``;
    ε = map(1) = ln(prob / (1 - prob))."""
    return bool(_randomized_response_bool_vectorised(value, 1, prob=prob, constant_time=constant_time, rng=rng)[0])


def _randomized_response_bool_vectorised(
    value: bool, count: int, *, prob: float, constant_time: bool = False, rng: np.random.Generator
) -> np.ndarray:
    measurement = _randomized_response_bool(float(prob), bool(constant_time))
    return np.asarray([measurement(bool(value)) for _ in range(int(count))], dtype=bool)


@functools.cache
def _randomized_response(categories: tuple[str, ...], prob: float) -> Any:
    return _opendp().m.make_randomized_response(list(categories), prob, T=str)


def randomized_response(value: str, *, categories: list[str], prob: float, rng: np.random.Generator) -> str:
    """``make_randomized_response(categories, prob)``: the category kept with probability ``prob``, else another
    one uniformly; ε = map(1) = ln(prob (k - 1) / (1 - prob)) for k categories."""
    return str(_randomized_response_vectorised(value, 1, categories=categories, prob=prob, rng=rng)[0])


def _randomized_response_vectorised(
    value: str, count: int, *, categories: list[str], prob: float, rng: np.random.Generator
) -> np.ndarray:
    measurement = _randomized_response(tuple(str(item) for item in categories), float(prob))
    return np.asarray([measurement(str(value)) for _ in range(int(count))])


noisy_max.sample = _noisy_max_vectorised  # type: ignore[attr-defined]
randomized_response_bool.sample = _randomized_response_bool_vectorised  # type: ignore[attr-defined]
randomized_response.sample = _randomized_response_vectorised  # type: ignore[attr-defined]
