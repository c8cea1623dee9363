"""Microsoft's prv-accountant as a candidate of the ``accountant`` kind, with the library's own
parameters (docs/adapters.md).

``prv`` receives one accounting point ``{records, noise_multiplier, steps, delta}`` (N steps of the
Poisson-subsampled Gaussian mechanism, q = 1/records), builds
``PRVAccountant(prvs=[PoissonSubsampledGaussianMechanism(noise_multiplier, sampling_probability)],
max_self_compositions=[steps], eps_error=..., delta_error=...)`` with the keywords it is given and
returns one of the three numbers of ``compute_epsilon(delta, [steps])``: the library documents them as
a lower bound, an estimate and an upper bound of ε. ``bound = "upper"`` (the default) is the one the
library states as the guarantee; ``"estimate"`` and ``"lower"`` audit a user who reports another.

An accountant is deterministic: ``rng`` is accepted and not used.

References:
    Gopi, Lee & Wutschitz 2021, "Numerical Composition of Differential Privacy" (Theorem 5.5: the
    error bounds of the discretised privacy loss).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dpaudit._validation import check_choice
from dpaudit.adapters._library import import_library
from dpaudit.adapters._subsampled_gaussian import sampling_probability, target_delta

__all__ = ["BOUNDS", "prv"]

#: The order of the three numbers ``compute_epsilon`` returns.
BOUNDS = ("lower", "estimate", "upper")


def prv(
    point: Mapping[str, Any],
    *,
    rng: np.random.Generator,
    eps_error: float,
    delta_error: float,
    eps_max: float | None = None,
    bound: str = "upper",
) -> float:
    """One of (lower, estimate, upper) of ``PRVAccountant.compute_epsilon`` at the point (see the module)."""
    check_choice("bound", bound, BOUNDS)
    delta = target_delta(point, "prv-accountant")
    library: Any = import_library("prv_accountant", extra="prv-accountant", library="prv-accountant")
    mechanism = library.PoissonSubsampledGaussianMechanism(
        noise_multiplier=float(point["noise_multiplier"]), sampling_probability=sampling_probability(point)
    )
    steps = int(point["steps"])
    accountant = library.PRVAccountant(
        prvs=[mechanism],
        max_self_compositions=[steps],
        eps_error=float(eps_error),
        delta_error=float(delta_error),
        eps_max=eps_max,
    )
    answers = accountant.compute_epsilon(delta=delta, num_self_compositions=[steps])
    return float(answers[BOUNDS.index(bound)])
