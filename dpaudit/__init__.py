"""dpaudit: audits of differentially private reinforcement-learning mechanisms."""

from dpaudit.errors import (
    CandidateError,
    CheckerError,
    DpAuditError,
    InvalidArgument,
    InvalidType,
    NumericalError,
    SpecError,
)

__version__ = "0.1.0"

__all__ = [
    "CandidateError",
    "CheckerError",
    "DpAuditError",
    "InvalidArgument",
    "InvalidType",
    "NumericalError",
    "SpecError",
    "__version__",
]
