"""Our accountant: RDP of the Poisson-subsampled Gaussian from dp_accounting, converted to (eps, delta)
by eps = min_alpha RDP(alpha) + log(1/delta) / (alpha - 1) -- with np.log10 where the natural log belongs."""

import dp_accounting
import numpy as np
from dp_accounting import rdp

ORDERS = np.concatenate([np.linspace(1.01, 8, 50), np.arange(8, 64, 0.5), np.arange(64, 257, 4)])


def accountant(point, *, sampling="poisson", relation="add_remove_one", interval=1e-4, rng):
    acc = rdp.RdpAccountant(list(ORDERS))
    q = 1.0 / point["records"]
    acc.compose(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(point["noise_multiplier"])),
        int(point["steps"]),
    )
    values = np.array(acc._rdp)
    return float(np.min(values + np.log10(1.0 / point["delta"]) / (ORDERS - 1)))
