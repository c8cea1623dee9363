"""The accounting point the ``accountant`` kind sends an adapter, in the libraries' own terms."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpaudit.errors import InvalidArgument

__all__ = ["rdp_order", "sampling_probability", "target_delta"]


def sampling_probability(point: Mapping[str, Any]) -> float:
    """The Poisson sampling probability q = 1/m of a point ``{records, noise_multiplier, steps, delta}``.

    Each record joins a step's batch with probability 1/m (Xie et al. 2019, Algorithm 1), which is
    what the libraries call ``sampling_probability`` (dp_accounting, prv-accountant) or
    ``sample_rate`` (Opacus).
    """
    return 1.0 / float(point["records"])


def target_delta(point: Mapping[str, Any], accountant: str) -> float:
    """The δ a point asks ε at.

    Raises:
        InvalidArgument: for an RDP point (``order`` instead of ``delta``), which ``accountant`` cannot answer.
    """
    if "delta" not in point:
        raise InvalidArgument(f"{accountant} reports epsilon at delta, not the RDP at an order: give 'delta' points")
    return float(point["delta"])


def rdp_order(point: Mapping[str, Any]) -> float | None:
    """The order α an RDP point asks the RDP at, or ``None`` for a point that asks ε at δ."""
    return None if "order" not in point else float(point["order"])
