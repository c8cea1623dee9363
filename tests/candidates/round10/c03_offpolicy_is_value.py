"""Private off-policy value estimate by clipped importance sampling (round 10, candidate 03) -- LEAKY.

What it implements: the ordinary importance-sampling estimate of the value of a target policy pi from
episodes collected under a behaviour policy mu,

    V = (1/m) sum_i min(w_i, W) * clip(G_i, 0, B),      w_i = prod_t pi(a_t | s_t) / mu(a_t | s_t),

with the importance weights truncated at W ("weight clipping", for variance) and the discounted returns
G_i clipped to [0, B]; rewards are clipped to [0, 1] first.  Laplace noise of scale B / (m eps) is added.

The bug: the noise is calibrated to the sensitivity of the clipped *returns*, B/m, as for an on-policy
Monte Carlo average.  After weighting, one episode contributes up to W * B, so replacing it moves V by up
to W * B / m.  The privacy loss of the Laplace release is then |Delta| / scale = W * eps.

True epsilon: exactly W * eps = 3 * 1 = 3 (pure DP, delta = 0), attained by an episode with weight
>= W and clipped return B (e.g. two or more steps of the target policy's favoured action, pi/mu = 1.8 each,
and rewards 1) against any episode with return 0.  truth/truth_c03_offpolicy_is_value.py.
"""

from __future__ import annotations

import numpy as np


def _weights_and_returns(dataset, target_policy, behaviour_policy, gamma, return_cap, weight_cap):
    pi = np.asarray(target_policy, dtype=float)
    mu = np.asarray(behaviour_policy, dtype=float)
    terms = []
    for episode in dataset:
        w = 1.0
        g = 0.0
        discount = 1.0
        for state, action, reward in episode:
            s, a = int(state), int(action)
            w *= pi[s, a] / mu[s, a]
            g += discount * min(max(float(reward), 0.0), 1.0)
            discount *= gamma
        terms.append(min(w, weight_cap) * min(max(g, 0.0), return_cap))
    return np.asarray(terms)


def _estimate_and_scale(dataset, *, epsilon, target_policy, behaviour_policy, gamma, return_cap, weight_cap):
    m = len(dataset)
    if m == 0:
        raise ValueError("no episodes")
    terms = _weights_and_returns(dataset, target_policy, behaviour_policy, gamma, return_cap, weight_cap)
    # each clipped return is in [0, B], so one episode moves the mean by at most B / m
    scale = return_cap / (m * epsilon)
    return float(terms.mean()), scale


def offpolicy_value(dataset, *, epsilon, target_policy, behaviour_policy, gamma, return_cap, weight_cap, rng):
    value, scale = _estimate_and_scale(
        dataset,
        epsilon=epsilon,
        target_policy=target_policy,
        behaviour_policy=behaviour_policy,
        gamma=gamma,
        return_cap=return_cap,
        weight_cap=weight_cap,
    )
    return value + rng.laplace(0.0, scale)


def _offpolicy_value_many(dataset, n, *, rng, **params):
    value, scale = _estimate_and_scale(dataset, **params)
    return value + rng.laplace(0.0, scale, size=n)


offpolicy_value.sample = _offpolicy_value_many
