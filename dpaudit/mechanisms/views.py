"""White-box views: what a reference offers beyond ``release``, each stated as a ``typing.Protocol``.

A view is a method an exact or white-box checker calls on the mechanism under audit. Each one is a
runtime-checkable Protocol, so the type checker knows what a checker may call: a reference class
declares the views it implements by subclassing them (mypy then checks its methods against the
Protocol's signatures), its :class:`~dpaudit.mechanisms.interface.Mechanism` lists them in
``views``, a checker names the ones it reads in ``register_checker(requires_views=...)`` and
narrows the mechanism under audit with ``context.view(SomeView)``.

A plugin may define views of its own the same way: a ``@runtime_checkable`` Protocol of methods.

The string names of the views (``"gaussian_view"``, ...) are deprecated: :func:`as_view` still maps
them to their Protocol, with a ``DeprecationWarning``, for one minor release.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from dpaudit.errors import InvalidArgument

if TYPE_CHECKING:
    import mpmath
    import numpy as np

    from dpaudit.privacy.relations import Relation

__all__ = [
    "BUILTIN_VIEWS",
    "DEPRECATED_VIEW_NAMES",
    "AuditPairsView",
    "ConcentrationView",
    "GaussianShiftView",
    "GaussianView",
    "LaplaceView",
    "PerStepView",
    "PrivacyProfileView",
    "StatisticsView",
    "as_view",
    "is_view",
    "view_names",
]


@runtime_checkable
class GaussianView(Protocol):
    """The release on ``data`` is N(mean, sigma^2 I)."""

    def gaussian_view(self, data: Any) -> tuple[np.ndarray, float]:
        """(mean, sigma) of the release on ``data``."""
        ...


@runtime_checkable
class GaussianShiftView(Protocol):
    """Every release is N(f(X), sigma^2 I) and neighbours have ||f(X) - f(X')||_2 <= sensitivity: all a
    shift-of-Gaussians profile needs (Balle & Wang 2018, Theorem 8)."""

    def gaussian_shift(self) -> tuple[float, float]:
        """(sensitivity, sigma)."""
        ...


@runtime_checkable
class LaplaceView(Protocol):
    """The release on ``data`` is centre + Laplace(0, scale) per coordinate."""

    def laplace_view(self, data: Any) -> tuple[np.ndarray, float]:
        """(centre, scale) of the release on ``data``."""
        ...


@runtime_checkable
class ConcentrationView(Protocol):
    """The release on ``data`` is Dirichlet-distributed."""

    def concentration(self, data: Any) -> np.ndarray:
        """The Dirichlet parameters of the release on ``data``."""
        ...


@runtime_checkable
class AuditPairsView(Protocol):
    """The reference proposes its least private neighbouring pairs (for the black-box and histogram audits)."""

    def audit_pairs(self, relation: Relation) -> Sequence[tuple[Any, ...]]:
        """``(X, X', label)`` or ``(X, X', label, pilot draws per side)`` for each pair under ``relation``."""
        ...


@runtime_checkable
class StatisticsView(Protocol):
    """The release is computed from the first-visit statistics of its dataset (Balle et al. 2016)."""

    def statistics(self, data: Any) -> Any:
        """The first-visit statistics (signature, F_X, m) of ``data``: a
        :class:`~dpaudit.mechanisms.policy_evaluation.statistics.FirstVisitStatistics` (typed ``Any`` here:
        the views sit below the mechanisms that use them)."""
        ...


@runtime_checkable
class PerStepView(Protocol):
    """The sampled-Gaussian structure of one step of an iterative release (one GPOPE iteration)."""

    def per_step_view(self, m: int | None = None) -> dict[str, Any]:
        """Sampling probability, clip norm, noise and steps for a dataset of ``m`` records."""
        ...


@runtime_checkable
class PrivacyProfileView(Protocol):
    """The reference knows its exact worst-case privacy profile over neighbouring inputs."""

    def privacy_profile(self, epsilon: Any, *, digits: int = 60) -> mpmath.mpf:
        """delta(epsilon) at ``digits`` significant digits."""
        ...


#: The views of dpaudit's own references.
BUILTIN_VIEWS: tuple[type, ...] = (
    AuditPairsView,
    ConcentrationView,
    GaussianShiftView,
    GaussianView,
    LaplaceView,
    PerStepView,
    PrivacyProfileView,
    StatisticsView,
)

#: The deprecated string names of the built-in views (the method each one is), mapped to their Protocol.
DEPRECATED_VIEW_NAMES: dict[str, type] = {
    "gaussian_view": GaussianView,
    "gaussian_shift": GaussianShiftView,
    "laplace_view": LaplaceView,
    "concentration": ConcentrationView,
    "audit_pairs": AuditPairsView,
    "statistics": StatisticsView,
    "per_step_view": PerStepView,
    "privacy_profile": PrivacyProfileView,
}


def is_view(view: object) -> bool:
    """Whether ``view`` is a runtime-checkable Protocol of methods (what a view is): one that
    ``isinstance`` and ``issubclass`` can check."""
    # typing marks Protocol classes with _is_protocol (typing.is_protocol exists only from Python 3.13)
    if not isinstance(view, type) or not getattr(view, "_is_protocol", False):
        return False
    try:
        issubclass(object, view)  # TypeError unless runtime-checkable with methods only
    except TypeError:
        return False
    return True


def as_view(view: type | str, *, where: str, stacklevel: int = 2) -> type:
    """``view`` checked to be a view; a deprecated string name is mapped to its Protocol (with a
    ``DeprecationWarning``).

    Args:
        view: a view Protocol, or the string name of a built-in one (``"privacy_profile"``).
        where: who declares it, for the messages (``"mechanism 'laplace'"``).
        stacklevel: the frame the deprecation warning points at, counted from the caller of this function.

    Raises:
        InvalidArgument: naming ``where`` and the value, for an unknown string or anything else that is
            not a runtime-checkable Protocol class.
    """
    if isinstance(view, str):
        if view not in DEPRECATED_VIEW_NAMES:
            raise InvalidArgument(
                f"{where}: unknown view {view!r}; the views are Protocols: {view_names(BUILTIN_VIEWS)}"
            )
        protocol = DEPRECATED_VIEW_NAMES[view]
        warnings.warn(
            f"{where}: the view name {view!r} is deprecated; use the Protocol {protocol.__name__} from dpaudit.plugin",
            DeprecationWarning,
            stacklevel=stacklevel + 1,
        )
        return protocol
    if not is_view(view):
        raise InvalidArgument(
            f"{where}: view={view!r} is not a view: expected a @runtime_checkable typing.Protocol of methods such as "
            f"{view_names(BUILTIN_VIEWS)}"
        )
    return view


def view_names(views: Iterable[type]) -> list[str]:
    """The names of ``views`` (their Protocol classes), sorted: what messages and docs show."""
    return sorted(view.__name__ for view in views)
