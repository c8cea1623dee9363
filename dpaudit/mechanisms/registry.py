"""The mechanism registry: specs name a mechanism; the registry builds it from public parameters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpaudit.errors import InvalidArgument

__all__ = ["MechanismEntry", "build_mechanism", "list_mechanisms", "register_mechanism"]


@dataclass(frozen=True)
class MechanismEntry:
    """A registered mechanism: a factory taking the spec's params as keyword arguments."""

    name: str
    factory: Callable[..., Any]
    description: str


_REGISTRY: dict[str, MechanismEntry] = {}


def register_mechanism(name: str, *, description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated factory (usually a frozen dataclass) under ``name``."""

    def decorate(factory: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY:
            raise InvalidArgument(f"mechanism {name!r} is registered twice")
        _REGISTRY[name] = MechanismEntry(name, factory, description)
        return factory

    return decorate


def _load_builtin_mechanisms() -> None:
    import dpaudit.mechanisms  # noqa: F401  (importing registers the reference mechanisms)


def build_mechanism(name: str, params: dict[str, Any]) -> Any:
    """Build mechanism ``name`` from ``params``.

    Raises:
        InvalidArgument: for an unknown name (listing the known ones) or parameters the
            factory rejects.
    """
    _load_builtin_mechanisms()
    entry = _REGISTRY.get(name)
    if entry is None:
        known = ", ".join(sorted(_REGISTRY))
        raise InvalidArgument(f"mechanism={name!r}: unknown mechanism; known mechanisms: {known}")
    try:
        return entry.factory(**params)
    except TypeError as exc:
        raise InvalidArgument(f"mechanism {name!r}: bad parameters {sorted(params)}: {exc}") from exc


def list_mechanisms() -> list[MechanismEntry]:
    """All registered mechanisms, sorted by name."""
    _load_builtin_mechanisms()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]
