"""The accounting point the ``accountant`` kind sends an adapter, in the libraries' own terms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["sampling_probability"]


def sampling_probability(point: Mapping[str, Any]) -> float:
    """The Poisson sampling probability q = 1/m of a point ``{records, noise_multiplier, steps, delta}``.

    Each record joins a step's batch with probability 1/m (Xie et al. 2019, Algorithm 1), which is
    what the libraries call ``sampling_probability`` (dp_accounting, prv-accountant) or
    ``sample_rate`` (Opacus).
    """
    return 1.0 / float(point["records"])
