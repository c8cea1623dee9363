"""First-visit Monte Carlo values + Gaussian noise. The discount is applied from the start of the
episode (gamma**t with t the absolute step) instead of from the first visit -- a utility bug: the
returns are still clipped to [0, B], so the noise calibration (classic bound, eps <= 1) is unchanged."""

import math

import numpy as np


def mc_values(dataset, *, epsilon, delta, gamma, n_states, return_bound, rng):
    return _many(
        dataset, 1, epsilon=epsilon, delta=delta, gamma=gamma, n_states=n_states, return_bound=return_bound, rng=rng
    )[0]


def _many(dataset, n, *, epsilon, delta, gamma, n_states, return_bound, rng):
    sums = np.zeros(n_states)
    for traj in dataset:
        seen = set()
        for t0, (s, _a, _r) in enumerate(traj):
            s = int(s)
            if s in seen:
                continue
            seen.add(s)
            g = sum(gamma**t * float(traj[t][2]) for t in range(t0, len(traj)))
            sums[s] += min(max(g, 0.0), return_bound)
    m = len(dataset)
    sigma = return_bound * math.sqrt(n_states) / m * math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    return sums / m + sigma * rng.standard_normal((n, n_states))


mc_values.sample = _many
