"""Private transition synthesis (Gohari et al. 2020, Alg. 1 step 1), row by row. We read the
concentration as "k per next state", so each row is drawn from Dir(k * |S| * P(s, a))."""

import numpy as np


def synthesise(P, *, concentration, rng):
    P = np.asarray(P, dtype=float)
    out = np.empty_like(P)
    n_next = P.shape[-1]
    for s in range(P.shape[0]):
        for a in range(P.shape[1]):
            out[s, a] = rng.dirichlet(concentration * n_next * P[s, a])
    return out
