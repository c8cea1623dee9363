"""Import an optional DP library the first time an adapter needs it."""

from __future__ import annotations

import importlib
from types import ModuleType

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
        CandidateLoadError: when the library is not installed (or fails to import), naming the extra.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise CandidateLoadError(
            f"this adapter needs {library}, which could not be imported ({type(exc).__name__}: {exc}); "
            f"install it with: pip install 'dpaudit[{extra}]' (or 'dpaudit[ecosystem]' for every library)"
        ) from exc
