"""Modules imported on first use, so that ``dpaudit --help`` and ``dpaudit list`` do not pay for scipy.

``stats = lazy_module("scipy.stats")`` at module level stands for ``from scipy import stats``: the
import happens at the first attribute access (``stats.norm``), once, with interrupts held back until it
ends (a Ctrl-C inside a C extension's import can be lost: see :mod:`dpaudit._interrupts`).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from dpaudit._interrupts import interrupts_deferred

__all__ = ["lazy_module"]


class _LazyModule:
    """A stand-in for a module that imports it at the first attribute access."""

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            with interrupts_deferred():
                self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> Any:
    """The module ``name``, imported when one of its attributes is first read."""
    return _LazyModule(name)
