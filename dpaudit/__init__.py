"""dpaudit: audits of differentially private reinforcement-learning mechanisms.

The public surface (docs/api.md): :func:`check` (audit your own function against a spec),
:func:`audit_specs` (the claims of specs on dpaudit's references; ``dpaudit.audit`` is the
subpackage), the report they return
(``failed``, ``raise_for_failure``, ``to_json``), and the errors below. A plugin imports from
:mod:`dpaudit.plugin`, the other stable surface. Every other module is internal and may change.

Every name here loads on first use: ``import dpaudit`` runs no import at all, so that the
``dpaudit`` command reaches the code that holds a Ctrl-C back (:mod:`dpaudit._entry`) as soon as
the interpreter has started.
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (mypy reads the name)
if TYPE_CHECKING:
    from typing import Any

    from dpaudit._version import DEFAULT_SEED, __version__
    from dpaudit.api import audit_specs, check
    from dpaudit.errors import (
        CandidateError,
        CandidateLoadError,
        CheckerError,
        ClaimFailed,
        DpAuditError,
        InvalidArgument,
        InvalidType,
        NumericalError,
        SpecError,
        UnknownName,
    )

__all__ = [
    "DEFAULT_SEED",
    "CandidateError",
    "CandidateLoadError",
    "CheckerError",
    "ClaimFailed",
    "DpAuditError",
    "InvalidArgument",
    "InvalidType",
    "NumericalError",
    "SpecError",
    "UnknownName",
    "__version__",
    "audit_specs",
    "check",
]

#: The module that holds each public name other than the errors (:mod:`dpaudit.errors`).
_HOME = {
    "DEFAULT_SEED": "dpaudit._version",
    "__version__": "dpaudit._version",
    "check": "dpaudit.api",
    "audit_specs": "dpaudit.api",
}


def __getattr__(name: str) -> "Any":
    """A public name, from the module that holds it (loaded on first use); ``dpaudit.errors`` too, as when
    this module imported it."""
    from importlib import import_module

    if name == "errors":
        return import_module("dpaudit.errors")
    if name not in __all__:
        raise AttributeError(f"module 'dpaudit' has no attribute {name!r}")
    return getattr(import_module(_HOME.get(name, "dpaudit.errors")), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
