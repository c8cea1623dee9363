"""Randomized response on one bit: report the bit with probability e^eps / (1 + e^eps), else flip it.

References:
    Warner 1965; Dwork & Roth 2014, Sec. 3.2 (randomized response is eps-DP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpaudit.plugin import (
    REAL_VECTOR,
    AuditPairsView,
    CandidateSignature,
    Mechanism,
    Neighbourhood,
    OutputSpec,
    PrivacyProfileView,
)


@dataclass(frozen=True)
class RandomizedResponse(AuditPairsView, PrivacyProfileView):
    """Keeps a bit with probability e^eps / (1 + e^eps); offers the white-box views it subclasses."""

    epsilon: float

    def release(self, data: Any, *, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        bit = np.asarray(data, dtype=np.float64)
        keep = 1.0 / (1.0 + np.exp(-self.epsilon))
        shape = bit.shape if size is None else (size, *bit.shape)
        flips = rng.random(shape) >= keep
        return np.where(flips, 1.0 - bit, bit)

    def audit_pairs(self, relation: Any) -> list[tuple[np.ndarray, np.ndarray, str]]:
        return [(np.zeros(1), np.ones(1), "bit 0 vs bit 1")]

    def privacy_profile(self, epsilon: Any, *, digits: int = 60) -> mpmath.mpf:
        """delta(eps') = max(0, (e^eps - e^eps') / (1 + e^eps)): zero exactly at eps' = eps."""
        with mpmath.workdps(digits + 10):
            own = mpmath.exp(mpmath.mpf(self.epsilon))
            return max(mpmath.mpf(0), (own - mpmath.exp(mpmath.mpf(epsilon))) / (1 + own))


MECHANISM = Mechanism(
    name="randomized_response",
    description="randomized response on one bit (example plugin)",
    factory=RandomizedResponse,
    input_domain=REAL_VECTOR,
    relations=("replace_one", "add_remove_one"),
    neighbourhood=Neighbourhood(
        "any two bits", lambda first, second, relation, params: float(abs(first[0] - second[0])), lambda p, r: 1.0
    ),
    output=OutputSpec("one bit", lambda params, data: (1,)),
    views=frozenset({AuditPairsView, PrivacyProfileView}),
    candidate=CandidateSignature("bit", "randomized_response(bit, *, epsilon, rng) -> ndarray"),
    source="Dwork & Roth 2014, Sec. 3.2",
)
