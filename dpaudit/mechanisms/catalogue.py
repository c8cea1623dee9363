"""The mechanisms dpaudit knows: the built-in list and those plugins add through entry points.

A plugin package declares, in its ``pyproject.toml``::

    [project.entry-points."dpaudit.mechanisms"]
    my_mechanism = "my_package.module:MECHANISM"

where ``MECHANISM`` is a :class:`~dpaudit.mechanisms.interface.Mechanism`.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

import numpy as np

from dpaudit.errors import PluginError, UnknownName
from dpaudit.mechanisms.accountant import MECHANISM as ACCOUNTANT
from dpaudit.mechanisms.black_box import MECHANISM as BLACK_BOX
from dpaudit.mechanisms.dirichlet import MECHANISM as DIRICHLET
from dpaudit.mechanisms.gaussian import MECHANISM as GAUSSIAN
from dpaudit.mechanisms.gpope import MECHANISM as GPOPE
from dpaudit.mechanisms.gpope_step import MECHANISM as GPOPE_STEP
from dpaudit.mechanisms.interface import Mechanism, ReleaseAdapter
from dpaudit.mechanisms.laplace import MECHANISM as LAPLACE
from dpaudit.mechanisms.policy_evaluation.private import DP_LSL, DP_LSW
from dpaudit.mechanisms.private_synthesis import MECHANISM as PRIVATE_SYNTHESIS
from dpaudit.mechanisms.rl_algorithm import MECHANISM as RL_ALGORITHM
from dpaudit.mechanisms.smooth_gaussian import MECHANISM as SMOOTH_GAUSSIAN

__all__ = [
    "BUILTIN_MECHANISMS",
    "ENTRY_POINT_GROUP",
    "AdaptedReference",
    "build_mechanism",
    "get_mechanism",
    "list_mechanisms",
]

ENTRY_POINT_GROUP = "dpaudit.mechanisms"

BUILTIN_MECHANISMS: tuple[Mechanism, ...] = (
    GAUSSIAN,
    LAPLACE,
    SMOOTH_GAUSSIAN,
    DP_LSW,
    DP_LSL,
    GPOPE_STEP,
    GPOPE,
    DIRICHLET,
    PRIVATE_SYNTHESIS,
    ACCOUNTANT,
    BLACK_BOX,
    RL_ALGORITHM,
)

_CATALOGUE: dict[str, Mechanism] = {}


def _plugin_mechanisms() -> list[Mechanism]:
    found = []
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name):
        try:
            mechanism = point.load()
        except Exception as exc:  # a broken plugin is named, not a crash
            raise PluginError(
                f"entry point {point.name!r} ({point.value}) of {ENTRY_POINT_GROUP} failed to load: {exc}"
            ) from exc
        if not isinstance(mechanism, Mechanism):
            raise PluginError(
                f"entry point {point.name!r} ({point.value}) of {ENTRY_POINT_GROUP} is a "
                f"{type(mechanism).__name__}, expected a dpaudit.mechanisms.interface.Mechanism"
            )
        found.append(mechanism)
    return found


def _catalogue() -> dict[str, Mechanism]:
    if not _CATALOGUE:
        catalogue: dict[str, Mechanism] = {}
        for mechanism in (*BUILTIN_MECHANISMS, *_plugin_mechanisms()):
            if mechanism.name in catalogue:
                raise PluginError(f"mechanism {mechanism.name!r} is defined twice")
            catalogue[mechanism.name] = mechanism
        _CATALOGUE.update(catalogue)
    return _CATALOGUE


def get_mechanism(name: str) -> Mechanism:
    """The mechanism named ``name``.

    Raises:
        UnknownName: for an unknown name, listing the known ones.
    """
    catalogue = _catalogue()
    if name not in catalogue:
        raise UnknownName("mechanism", name, catalogue)
    return catalogue[name]


def build_mechanism(name: str, params: Mapping[str, Any]) -> Any:
    """The reference implementation of mechanism ``name`` for ``params``.

    Raises:
        InvalidArgument: for an unknown name or parameters the factory rejects.
    """
    return get_mechanism(name).build(params)


def list_mechanisms() -> list[Mechanism]:
    """Every known mechanism, sorted by name."""
    catalogue = _catalogue()
    return [catalogue[name] for name in sorted(catalogue)]


class AdaptedReference:
    """A reference whose ``release`` does not take the input as one argument, seen through its
    mechanism's ``release_adapter``: ``release(data, *, rng, size=None)`` takes the plain input
    the spec and the candidates use; every other attribute (the white-box views) is the
    reference's. Picklable: the adapter is a module-level function.
    """

    def __init__(self, reference: Any, adapter: ReleaseAdapter):
        self.reference = reference
        self.adapter = adapter

    def release(self, data: Any, *, rng: np.random.Generator, size: int | None = None) -> Any:
        return self.adapter(self.reference, data, rng, size)

    def __getattr__(self, name: str) -> Any:
        if name in ("reference", "adapter"):  # not set yet (unpickling)
            raise AttributeError(name)
        return getattr(self.reference, name)
