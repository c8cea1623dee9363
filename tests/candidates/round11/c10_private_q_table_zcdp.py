"""Private Monte Carlo Q-table under zero-concentrated DP (Bun & Steinke 2016).

For every (state, action) we keep two statistics over the batch: the sum of first-visit
discounted returns, each clipped to [0, return_cap], and the number of episodes that visit
the pair.  Scaled as (sum / return_cap, count), one episode moves each cell by at most
(1, 1), so the stacked statistic has L2 sensitivity sqrt(2 S A) under replace-one.  Gaussian
noise with sigma^2 = Delta^2 / (2 rho) makes the pair of tables rho-zCDP (Bun & Steinke 2016,
Prop. 1.6); the Q-table  Q = return_cap * noisy_sum / max(noisy_count, 1)  is post-processing.

Normals come from our own vectorised Marsaglia polar sampler (rejection on the unit disc).
"""

import math

import numpy as np


def _polar_normals(rng, count):
    out = np.empty(count)
    filled = 0
    while filled < count:
        need = count - filled
        batch = max(16, int(need * 1.3) // 2 + 8)
        u = 2.0 * rng.random(batch) - 1.0
        v = 2.0 * rng.random(batch) - 1.0
        s = u * u + v * v
        ok = (s > 0.0) & (s < 1.0)
        u, v, s = u[ok], v[ok], s[ok]
        factor = np.sqrt(-2.0 * np.log(s) / s)
        pairs = np.concatenate([u * factor, v * factor])
        take = min(need, pairs.size)
        out[filled : filled + take] = pairs[:take]
        filled += take
    return out


def _statistics(episodes, gamma, return_cap, n_states, n_actions):
    sums = np.zeros((n_states, n_actions))
    counts = np.zeros((n_states, n_actions))
    for episode in episodes:
        rewards = [float(step[2]) for step in episode]
        returns = [0.0] * len(rewards)
        running = 0.0
        for t in range(len(rewards) - 1, -1, -1):
            running = rewards[t] + gamma * running
            returns[t] = running
        seen = set()
        for t, (state, action, _reward) in enumerate(episode):
            cell = (int(state), int(action))
            if cell in seen:
                continue
            seen.add(cell)
            sums[cell] += min(max(returns[t], 0.0), return_cap) / return_cap
            counts[cell] += 1.0
    return sums, counts


def _sigma(rho, n_states, n_actions):
    l2_sensitivity = math.sqrt(2.0 * n_states * n_actions)
    sigma = l2_sensitivity / math.sqrt(2.0 * rho)
    return math.nextafter(sigma, math.inf)  # never let float rounding shrink the noise


def _q_from(noisy_sums, noisy_counts, return_cap):
    return return_cap * noisy_sums / np.maximum(noisy_counts, 1.0)


def zcdp_q_table(episodes, *, rho, gamma, return_cap, n_states, n_actions, rng):
    sums, counts = _statistics(episodes, gamma, return_cap, n_states, n_actions)
    sigma = _sigma(rho, n_states, n_actions)
    z = _polar_normals(rng, 2 * sums.size).reshape(2, *sums.shape)
    return _q_from(sums + sigma * z[0], counts + sigma * z[1], return_cap)


def _zcdp_q_table_batch(episodes, n, *, rho, gamma, return_cap, n_states, n_actions, rng):
    sums, counts = _statistics(episodes, gamma, return_cap, n_states, n_actions)
    sigma = _sigma(rho, n_states, n_actions)
    z = _polar_normals(rng, 2 * int(n) * sums.size).reshape(int(n), 2, *sums.shape)
    return _q_from(sums[None] + sigma * z[:, 0], counts[None] + sigma * z[:, 1], return_cap)


zcdp_q_table.sample = _zcdp_q_table_batch
