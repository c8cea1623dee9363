"""IBM's diffprivlib mechanisms as dpaudit candidates, with the library's own parameters.

Each function builds the diffprivlib mechanism of its name with the keywords it is given
(diffprivlib's own: ``epsilon``, ``delta``, ``sensitivity``, ``lower``/``upper`` ...) and
releases through the mechanism's ``randomise``; nothing here computes a noise scale.
diffprivlib draws from the ``random_state`` it is given: each call passes a
``numpy.random.RandomState`` over ``rng``'s bit generator, so the noise comes from ``rng``
and the audit replays bit for bit (the default ``[candidate] randomness = "rng"``).

Numeric inputs may be a number or a list of numbers (f(X), as the ``laplace`` and ``gaussian``
kinds send it): every coordinate is randomised by the same mechanism, as diffprivlib's
mechanisms take one value at a time. The integer mechanisms get whole floats as ints.

Every adapter has a vectorised ``sample(value, count, *, rng, **params)``: one mechanism object
randomises ``count`` times (diffprivlib's own loop; some constructors, such as
``LaplaceBoundedDomain``'s search for its scale, cost far more than a release).

Use, e.g. (specs/examples/ecosystem/)::

    dpaudit check specs/examples/ecosystem/diffprivlib_laplace.toml \\
        --candidate dpaudit.adapters.diffprivlib_mechanisms:laplace

References:
    Holohan et al. 2019, "Diffprivlib: the IBM Differential Privacy Library", arXiv:1907.02444;
    the per-mechanism references are in diffprivlib's docstrings.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.adapters._library import import_library
from dpaudit.errors import CandidateLoadError

__all__ = [
    "binary",
    "exponential",
    "gaussian",
    "gaussian_analytic",
    "gaussian_discrete",
    "geometric",
    "laplace",
    "laplace_bounded_domain",
    "laplace_bounded_noise",
    "laplace_truncated",
    "staircase",
]


def _mechanisms() -> Any:
    """``diffprivlib.mechanisms``; when diffprivlib's package ``__init__`` fails, the mechanisms without it.

    ``import diffprivlib`` imports its models too, and diffprivlib 0.6.6's models import
    ``sklearn.tree._tree.DOUBLE``, which scikit-learn 1.9 removed. The mechanisms need none of it: when the
    package fails to import, diffprivlib's folder is registered as a package whose ``__init__`` is not run,
    and ``diffprivlib.mechanisms`` (its own files, unchanged) is imported from it; the process then holds a
    ``diffprivlib`` without its models, which could not be imported anyway. Raises ``CandidateLoadError``,
    naming the extra, when that fails too.
    """
    try:
        return import_library("diffprivlib.mechanisms", extra="diffprivlib", library="diffprivlib")
    except CandidateLoadError:
        mechanisms = _mechanisms_without_package_init()
        if mechanisms is None:
            raise
        return mechanisms


def _mechanisms_without_package_init() -> Any | None:
    """``diffprivlib.mechanisms`` imported under a ``diffprivlib`` package whose ``__init__`` is not run, or
    ``None`` (nothing left behind) when diffprivlib is not installed, is already imported, or its mechanisms
    fail to import as well."""
    if "diffprivlib" in sys.modules:
        return None
    try:
        found = importlib.util.find_spec("diffprivlib")
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    package = types.ModuleType("diffprivlib")
    package.__path__ = list(found.submodule_search_locations)
    package.__spec__ = found
    before = set(sys.modules)
    sys.modules["diffprivlib"] = package
    try:
        return importlib.import_module("diffprivlib.mechanisms")
    except ImportError:
        for name in set(sys.modules) - before:
            if name == "diffprivlib" or name.startswith("diffprivlib."):
                del sys.modules[name]
        return None


def _random_state(rng: np.random.Generator) -> np.random.RandomState:
    """A legacy RandomState that draws from ``rng``'s own bit generator (its stream advances ``rng``)."""
    return np.random.RandomState(rng.bit_generator)


def _randomise_each(mechanism: Any, value: Any) -> Any:
    """``mechanism.randomise`` of a number, or of every coordinate of a list (same shape back)."""
    if np.ndim(value) == 0:
        return mechanism.randomise(value)
    return np.asarray([_randomise_each(mechanism, item) for item in value])


def _integral(value: Any) -> Any:
    """Whole floats as ints (the ``laplace`` kind sends f(X) as floats; diffprivlib's integer mechanisms
    take ints); any other value unchanged, for diffprivlib to accept or refuse."""
    if np.ndim(value) == 0:
        return int(value) if isinstance(value, float) and value.is_integer() else value
    return [_integral(item) for item in value]


#: The diffprivlib class behind each adapter, and whether its values are integers.
_CLASSES: dict[str, tuple[str, bool]] = {
    "laplace": ("Laplace", False),
    "laplace_truncated": ("LaplaceTruncated", False),
    "laplace_bounded_domain": ("LaplaceBoundedDomain", False),
    "laplace_bounded_noise": ("LaplaceBoundedNoise", False),
    "gaussian": ("Gaussian", False),
    "gaussian_analytic": ("GaussianAnalytic", False),
    "gaussian_discrete": ("GaussianDiscrete", True),
    "geometric": ("Geometric", True),
    "staircase": ("Staircase", False),
    "binary": ("Binary", False),
}


def _releases(adapter: str, value: Any, rng: np.random.Generator, count: int | None, params: dict[str, Any]) -> Any:
    """One release (``count`` None) or ``count`` stacked on axis 0, from one diffprivlib mechanism built with
    ``params`` (the adapter's keywords are diffprivlib's) and a random state over ``rng``."""
    name, integral = _CLASSES[adapter]
    mechanism = getattr(_mechanisms(), name)(**params, random_state=_random_state(rng))
    if integral:
        value = _integral(value)
    if count is None:
        return _randomise_each(mechanism, value)
    return np.asarray([_randomise_each(mechanism, value) for _ in range(count)])


def _vectorised(adapter: Callable[..., Any]) -> Callable[..., Any]:
    """Give ``adapter`` its ``sample(value, count, *, rng, **params)`` entry point."""

    def sample(value: Any, count: int, *, rng: np.random.Generator, **params: Any) -> Any:
        return _releases(adapter.__name__, value, rng, int(count), params)

    adapter.sample = sample  # type: ignore[attr-defined]
    return adapter


@_vectorised
def laplace(value: Any, *, epsilon: float, sensitivity: float, delta: float = 0.0, rng: np.random.Generator) -> Any:
    """``diffprivlib.mechanisms.Laplace(epsilon=, delta=, sensitivity=)``: value + Laplace noise (ε-DP at δ = 0)."""
    return _releases("laplace", value, rng, None, {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity})


def _interval_laplace(adapter: str, summary: str) -> Callable[..., Any]:
    """The adapter of a diffprivlib Laplace variant built with ``lower``/``upper`` (named ``adapter`` in
    :data:`_CLASSES`): the same keywords, only the class and what it does at the bounds differ."""

    def interval_adapter(
        value: Any,
        *,
        epsilon: float,
        sensitivity: float,
        lower: float,
        upper: float,
        delta: float = 0.0,
        rng: np.random.Generator,
    ) -> Any:
        params = {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity, "lower": lower, "upper": upper}
        return _releases(adapter, value, rng, None, params)

    interval_adapter.__name__ = interval_adapter.__qualname__ = adapter
    interval_adapter.__doc__ = f"``diffprivlib.mechanisms.{_CLASSES[adapter][0]}``: {summary}."
    return _vectorised(interval_adapter)


laplace_truncated = _interval_laplace("laplace_truncated", "Laplace noise, the release clamped to [lower, upper]")
laplace_bounded_domain = _interval_laplace(
    "laplace_bounded_domain", "Laplace noise conditioned to stay in [lower, upper]"
)


@_vectorised
def laplace_bounded_noise(
    value: Any, *, epsilon: float, delta: float, sensitivity: float, rng: np.random.Generator
) -> Any:
    """``diffprivlib.mechanisms.LaplaceBoundedNoise``: Laplace noise with bounded support ((ε, δ)-DP, δ > 0)."""
    params = {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity}
    return _releases("laplace_bounded_noise", value, rng, None, params)


@_vectorised
def gaussian(value: Any, *, epsilon: float, delta: float, sensitivity: float, rng: np.random.Generator) -> Any:
    """``diffprivlib.mechanisms.Gaussian``: the classic Gaussian mechanism, (ε, δ)-DP for ε <= 1."""
    return _releases("gaussian", value, rng, None, {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity})


@_vectorised
def gaussian_analytic(value: Any, *, epsilon: float, delta: float, sensitivity: float, rng: np.random.Generator) -> Any:
    """``diffprivlib.mechanisms.GaussianAnalytic``: the analytic Gaussian mechanism (Balle & Wang 2018)."""
    params = {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity}
    return _releases("gaussian_analytic", value, rng, None, params)


@_vectorised
def gaussian_discrete(
    value: Any, *, epsilon: float, delta: float, sensitivity: int = 1, rng: np.random.Generator
) -> Any:
    """``diffprivlib.mechanisms.GaussianDiscrete``: the discrete Gaussian on integers (Canonne et al. 2020)."""
    params = {"epsilon": epsilon, "delta": delta, "sensitivity": sensitivity}
    return _releases("gaussian_discrete", value, rng, None, params)


@_vectorised
def geometric(value: Any, *, epsilon: float, sensitivity: int = 1, rng: np.random.Generator) -> Any:
    """``diffprivlib.mechanisms.Geometric``: the two-sided geometric (discrete Laplace) mechanism on integers."""
    return _releases("geometric", value, rng, None, {"epsilon": epsilon, "sensitivity": sensitivity})


@_vectorised
def staircase(
    value: Any, *, epsilon: float, sensitivity: float, gamma: float | None = None, rng: np.random.Generator
) -> Any:
    """``diffprivlib.mechanisms.Staircase``: the staircase mechanism (Geng & Viswanath 2016), ε-DP."""
    return _releases("staircase", value, rng, None, {"epsilon": epsilon, "sensitivity": sensitivity, "gamma": gamma})


@_vectorised
def binary(value: str, *, epsilon: float, value0: str, value1: str, rng: np.random.Generator) -> Any:
    """``diffprivlib.mechanisms.Binary``: randomized response on the two labels ``value0``, ``value1``."""
    return _releases("binary", value, rng, None, {"epsilon": epsilon, "value0": value0, "value1": value1})


def _exponential_mechanism(utility: Any, rng: np.random.Generator, params: dict[str, Any]) -> Any:
    """diffprivlib's ``Exponential`` over the candidates' ``utility``, built with its own keywords ``params``."""
    return _mechanisms().Exponential(**params, utility=list(utility), random_state=_random_state(rng))


def exponential(
    utility: Any,
    *,
    epsilon: float,
    sensitivity: float,
    candidates: list[Any] | None = None,
    monotonic: bool = False,
    rng: np.random.Generator,
) -> Any:
    """``diffprivlib.mechanisms.Exponential``: one candidate, chosen with weight exp(ε u / (2 Δ)) (exp(ε u / Δ)
    when ``monotonic``); the input is the utility of each candidate on the data."""
    params = {"epsilon": epsilon, "sensitivity": sensitivity, "candidates": candidates, "monotonic": monotonic}
    return _exponential_mechanism(utility, rng, params).randomise()


def _exponential_vectorised(utility: Any, count: int, *, rng: np.random.Generator, **params: Any) -> Any:
    mechanism = _exponential_mechanism(utility, rng, params)
    return np.asarray([mechanism.randomise() for _ in range(int(count))])


exponential.sample = _exponential_vectorised  # type: ignore[attr-defined]
