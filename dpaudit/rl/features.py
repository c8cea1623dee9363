"""Feature maps: tabular, aggregation of adjacent states, and the Fourier basis for continuous states.

References:
    Balle et al. 2016, Sec. 2 (Φ ∈ R^{S×d}, V̂ = Φθ) and Sec. 6 (tabular features, and
    aggregation of pairs of adjacent states); Konidaris, Osentoski & Thomas 2011,
    "Value Function Approximation in Reinforcement Learning using the Fourier Basis",
    Sec. 3 (the order-n Fourier basis φ_c(x) = cos(π c·x), c ∈ {0..n}^d, x scaled to [0, 1]^d).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer
from dpaudit.errors import InvalidArgument

__all__ = ["FourierBasis", "aggregated_features", "tabular_features"]


def tabular_features(n_states: int) -> np.ndarray:
    """Return Φ = I_S: one indicator feature per state (Balle et al. 2016, Sec. 6, tabular case)."""
    n_states = check_integer("n_states", n_states, low=1)
    return np.eye(n_states)


def aggregated_features(n_states: int, group_size: int = 2) -> np.ndarray:
    """Return Φ (S × ceil(S/g)) aggregating each run of ``group_size`` adjacent states into one feature.

    State s gets the indicator of group ⌊s/g⌋, so states of a group share one value; the
    last group is smaller when g does not divide S.

    References:
        Balle et al. 2016, Sec. 6 ("we simply aggregate pairs of adjacent states", g = 2).
    """
    n_states = check_integer("n_states", n_states, low=1)
    group_size = check_integer("group_size", group_size, low=1)
    groups = np.arange(n_states) // group_size
    return np.eye(int(groups[-1]) + 1)[groups]


@dataclass(frozen=True, eq=False)
class FourierBasis:
    """The full Fourier basis of order n on the box [low, high] ⊂ R^d.

    Attributes:
        order: n >= 0; there are (n+1)^d features.
        low, high: the box bounds, shape (d,), low < high; inputs are scaled to [0, 1]^d
            and clipped there.
        coefficients: the frequency vectors c ∈ {0..n}^d, shape ((n+1)^d, d).

    References:
        Konidaris et al. 2011, Sec. 3, eq. for φ_i(x) = cos(π c^i · x).
    """

    order: int
    low: Any
    high: Any
    coefficients: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        order = check_integer("order", self.order, low=0)
        low = check_finite_array("low", self.low, ndim=1)
        high = check_finite_array("high", self.high, shape=low.shape)
        if low.size == 0:
            raise InvalidArgument("low: expected at least one dimension")
        if not (high > low).all():
            index = int(np.argmax(~(high > low)))
            raise InvalidArgument(f"high[{index}]={high[index]!r}: expected > low[{index}]={low[index]!r}")
        coefficients = np.array(list(itertools.product(range(order + 1), repeat=low.size)), dtype=np.float64)
        for name, value in (("order", order), ("low", low), ("high", high), ("coefficients", coefficients)):
            if isinstance(value, np.ndarray):
                value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def n_features(self) -> int:
        """(n+1)^d."""
        return int(self.coefficients.shape[0])

    def __call__(self, observations: Any) -> np.ndarray:
        """Return cos(π c·x̃) for observations of shape (d,) or (..., d); result (..., (n+1)^d)."""
        x = check_finite_array("observations", observations)
        if x.ndim == 0 or x.shape[-1] != self.low.size:
            raise InvalidArgument(f"observations: expected last axis of length {self.low.size}, got shape {x.shape}")
        scaled = np.clip((x - self.low) / (self.high - self.low), 0.0, 1.0)
        return np.cos(np.pi * scaled @ self.coefficients.T)
