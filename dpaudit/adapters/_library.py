"""Import an optional DP library the first time an adapter needs it, at a version the adapters are written for."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import sys
from types import ModuleType

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from dpaudit._interrupts import interrupts_deferred
from dpaudit.errors import CandidateLoadError

__all__ = ["import_library"]


def import_library(module: str, *, extra: str, library: str) -> ModuleType:
    """Import ``module`` of an optional library, or say which dpaudit extra installs it.

    Args:
        module: the module to import, e.g. ``"diffprivlib.mechanisms"``.
        extra: the dpaudit extra that installs the library, e.g. ``"diffprivlib"``.
        library: the library's name on PyPI, for the message.

    Returns:
        The imported module.

    Raises:
        CandidateLoadError: when the library is not installed (or fails to import), or is installed at a
            version outside the one its extra requires (an older library's API differs: OpenDP 0.9's
            ``atom_domain`` takes no ``nan``, and every release was an ``error`` of a TypeError), naming the extra.
    """
    imported = sys.modules.get(module)  # an adapter asks on every call: once imported, no signal juggling
    if imported is None:
        try:
            with interrupts_deferred():  # a Ctrl-C inside a C extension's import can be lost (dpaudit._interrupts)
                imported = importlib.import_module(module)
        except ImportError as exc:
            raise CandidateLoadError(
                f"this adapter needs {library}, which could not be imported ({type(exc).__name__}: {exc}); "
                f"install it with: pip install 'dpaudit[{extra}]' (or 'dpaudit[ecosystem]' for every library)"
            ) from exc
    _check_version(library, extra)
    return imported


@functools.cache
def _check_version(library: str, extra: str) -> None:
    """Refuse ``library`` installed at a version its dpaudit extra does not allow (once per library)."""
    wanted = _required(library, extra)
    try:
        installed = importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        return  # imported from a folder on the path, not installed: its version is not known
    if wanted is not None and not wanted.specifier.contains(installed, prereleases=True):
        needed = f"{wanted.name}{wanted.specifier}"
        raise CandidateLoadError(
            f"this adapter needs {needed} (dpaudit's '{extra}' extra); {library} {installed} is installed, whose "
            f"API the adapter is not written for: pip install 'dpaudit[{extra}]' (or pip install '{needed}')"
        )


def _required(library: str, extra: str) -> Requirement | None:
    """The requirement on ``library`` of dpaudit's extra ``extra`` (None when dpaudit is not installed)."""
    try:
        requirements = importlib.metadata.requires("dpaudit") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for text in requirements:
        requirement = Requirement(text)
        named = canonicalize_name(requirement.name) == canonicalize_name(library)
        if named and requirement.marker is not None and requirement.marker.evaluate({"extra": extra}):
            return requirement
    return None
