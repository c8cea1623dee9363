"""dpaudit: audits of differentially private reinforcement-learning mechanisms.

The public surface (docs/api.md): :func:`check` (audit your own function against a spec),
:func:`audit_specs` (the claims of specs on dpaudit's references; ``dpaudit.audit`` is the
subpackage), the report they return
(``failed``, ``raise_for_failure``, ``to_json``), and the errors below. A plugin imports from
:mod:`dpaudit.plugin`, the other stable surface. Every other module is internal and may change.
"""

from typing import Any

from dpaudit._version import DEFAULT_SEED, __version__
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


def __getattr__(name: str) -> Any:
    """``check`` and ``audit_specs`` load the auditor on first use (``import dpaudit`` stays light)."""
    if name in ("check", "audit_specs"):
        from dpaudit import api

        return getattr(api, name)
    raise AttributeError(f"module 'dpaudit' has no attribute {name!r}")
