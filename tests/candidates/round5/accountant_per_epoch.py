"""Our accountant composes one subsampled Gaussian per epoch (steps * q epochs), not one per step."""

import dp_accounting
from dp_accounting import rdp


def accountant(point, *, sampling="poisson", relation="add_remove_one", interval=1e-4, rng):
    q = 1.0 / point["records"]
    epochs = max(1, round(point["steps"] * q))
    acc = rdp.RdpAccountant()
    acc.compose(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(point["noise_multiplier"])), epochs
    )
    return float(acc.get_epsilon(point["delta"]))
