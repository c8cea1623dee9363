"""A private estimate of the behaviour policy's expected return from the start: the mean over the m trajectories
of the (discounted) return, each return clipped to [0, G_max], plus Laplace(G_max / (m eps)).
Author's names: ``mean_return(dataset, *, eps, discount, r_max, horizon, rng)``; G_max = r_max * horizon when
discount = 1, else r_max / (1 - discount). Rewards are clipped to [0, r_max] first.

No bug known to the author. Truth (claim: replace_one, the 'random' MDP (5 states, 3 actions, horizon 5,
gamma = 1), rewards in [0, 1], m = 10, eps = 0.5, delta = 0):

- Replacing one trajectory moves the mean by at most G_max / m (each clipped return lies in [0, G_max]), and the
  noise is Laplace(G_max / (m eps)): the Laplace mechanism, eps-DP (Dwork & Roth 2014, Theorem 3.6). private.
- The bound is attained when one trajectory's return is G_max = 5 and the other's 0 (5 steps with reward 1 vs
  reward 0): true_epsilon = 0.5 for trajectories of the horizon's length.
"""

import numpy as np


def clipped_returns(dataset, discount, r_max, horizon):
    g_max = r_max * horizon if discount >= 1.0 else r_max / (1.0 - discount)
    out = []
    for trajectory in dataset:
        rewards = np.clip([float(step[2]) for step in trajectory], 0.0, r_max)
        g = float(np.sum(rewards * discount ** np.arange(len(rewards))))
        out.append(min(max(g, 0.0), g_max))
    return np.array(out), g_max


def mean_return(dataset, *, eps, discount, r_max, horizon, rng):
    returns, g_max = clipped_returns(dataset, discount, r_max, horizon)
    return np.array([returns.mean() + rng.laplace(0.0, g_max / (len(returns) * eps))])


def _mean_return_many(dataset, n, *, eps, discount, r_max, horizon, rng):
    returns, g_max = clipped_returns(dataset, discount, r_max, horizon)
    return returns.mean() + rng.laplace(0.0, g_max / (len(returns) * eps), (n, 1))


mean_return.sample = _mean_return_many
