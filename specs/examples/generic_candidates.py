"""Implementations for the black_box and rl_algorithm example specs: each written the way a user
would write it, with its own parameters (epsilon, delta, bounds), a correct and a leaky variant.

Try them from specs/examples/, e.g.
    dpaudit check black_box_noisy_max.toml --candidate generic_candidates:noisy_max
    dpaudit check rl_action_counts.toml --candidate generic_candidates:action_counts_unclipped

Each function also has a vectorised ``sample(dataset, n, *, rng, **params)`` entry point (much faster).
"""

import math

import numpy as np


def _vectorised(one, many):
    one.sample = many
    return one


# --- randomized response on one bit: epsilon-DP (Warner 1965; Dwork & Roth 2014, Sec. 3.2) --------


def _randomized_response_many(bit, n, *, epsilon, rng):
    keep = rng.random(n) < math.exp(epsilon) / (1.0 + math.exp(epsilon))
    return np.where(keep, int(bit), 1 - int(bit))


def randomized_response(bit, *, epsilon, rng):
    """Tell the truth with probability e^eps / (1 + e^eps): epsilon-DP."""
    return int(_randomized_response_many(bit, 1, epsilon=epsilon, rng=rng)[0])


def _randomized_response_squared_many(bit, n, *, epsilon, rng):
    keep = rng.random(n) < math.exp(2 * epsilon) / (1.0 + math.exp(2 * epsilon))
    return np.where(keep, int(bit), 1 - int(bit))


def randomized_response_squared(bit, *, epsilon, rng):
    """Slip: the truth with probability e^(2 eps) / (1 + e^(2 eps)): 2 epsilon-DP."""
    return int(_randomized_response_squared_many(bit, 1, epsilon=epsilon, rng=rng)[0])


_vectorised(randomized_response, _randomized_response_many)
_vectorised(randomized_response_squared, _randomized_response_squared_many)


# --- report noisy max over named counts (Dwork & Roth 2014, Claim 3.9; Gumbel-max = exponential mechanism) ---

NAMES = ("alpha", "beta", "gamma", "delta")


def _noisy_max_many(counts, n, *, epsilon, scale_factor, rng):
    noisy = np.asarray(counts, dtype=float) + rng.gumbel(0.0, scale_factor / epsilon, (n, len(counts)))
    return np.asarray(NAMES)[np.argmax(noisy, axis=1)]


def noisy_max(counts, *, epsilon, rng):
    """argmax of counts + Gumbel(2/eps): the exponential mechanism with utility the count, epsilon-DP."""
    return str(_noisy_max_many(counts, 1, epsilon=epsilon, scale_factor=2.0, rng=rng)[0])


def noisy_max_small_noise(counts, *, epsilon, rng):
    """Slip: Gumbel(1/(2 eps)): the exponential mechanism at 4 eps when one count moves (true eps: 4 eps)."""
    return str(_noisy_max_many(counts, 1, epsilon=epsilon, scale_factor=0.25, rng=rng)[0])


noisy_max.sample = lambda counts, n, *, epsilon, rng: _noisy_max_many(
    counts, n, epsilon=epsilon, scale_factor=2.0, rng=rng
)
noisy_max_small_noise.sample = lambda counts, n, *, epsilon, rng: _noisy_max_many(
    counts, n, epsilon=epsilon, scale_factor=0.25, rng=rng
)


def make_counts(rng):
    """The user's dataset generator: four counts between 0 and 5."""
    return [int(v) for v in rng.integers(0, 6, 4)]


def count_neighbours(counts):
    """The user's neighbours: one count up or down by one (staying >= 0)."""
    found = []
    for index in range(len(counts)):
        for step in (1, -1):
            moved = list(counts)
            moved[index] += step
            if moved[index] >= 0:
                found.append(moved)
    return found


def count_distance(first, second):
    """The user's distance: the number of counts that moved, if each moved by at most one."""
    moves = [abs(a - b) for a, b in zip(first, second, strict=True)]
    return float("inf") if max(moves) > 1 else float(sum(moves))


# --- the behaviour policy's action counts over trajectories, with Laplace noise -------------------

STEP_CAP = 5


def _action_counts(dataset, n_states, n_actions, cap):
    counts = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        for state, action, _reward in trajectory[:cap]:
            counts[int(state), int(action)] += 1
    return counts


def _action_counts_many(dataset, n, *, epsilon, n_states, n_actions, rng, cap=STEP_CAP, scale=None):
    counts = _action_counts(dataset, n_states, n_actions, cap)
    noise_scale = 2.0 * STEP_CAP / epsilon if scale is None else scale
    return counts + rng.laplace(0.0, noise_scale, (n, n_states, n_actions))


def action_counts(dataset, *, epsilon, n_states, n_actions, rng):
    """Counts of (state, action) over the first 5 steps of each trajectory + Laplace(2 * 5 / eps):
    replacing one trajectory moves the counts by at most 2 * 5 in L1, so epsilon-DP."""
    return _action_counts_many(dataset, 1, epsilon=epsilon, n_states=n_states, n_actions=n_actions, rng=rng)[0]


def action_counts_unclipped(dataset, *, epsilon, n_states, n_actions, rng):
    """Slip: every step is counted, but the noise assumes 5 steps per trajectory."""
    return _action_counts_many(dataset, 1, epsilon=epsilon, n_states=n_states, n_actions=n_actions, rng=rng, cap=None)[
        0
    ]


action_counts.sample = _action_counts_many
action_counts_unclipped.sample = lambda dataset, n, *, epsilon, n_states, n_actions, rng: _action_counts_many(
    dataset, n, epsilon=epsilon, n_states=n_states, n_actions=n_actions, rng=rng, cap=None
)


# --- a private first-visit Monte Carlo value estimate with Gaussian noise --------------------------


def first_visit_sums(dataset, n_states, gamma, return_bound):
    """Per state, the sum over trajectories of the first-visit discounted return, each clipped to [0, B]."""
    sums = np.zeros(n_states)
    for trajectory in dataset:
        rewards = [float(step[2]) for step in trajectory]
        returns = np.zeros(len(rewards))
        following = 0.0
        for t in range(len(rewards) - 1, -1, -1):
            following = rewards[t] + gamma * following
            returns[t] = following
        seen = set()
        for t, step in enumerate(trajectory):
            state = int(step[0])
            if state not in seen:
                seen.add(state)
                sums[state] += min(max(returns[t], 0.0), return_bound)
    return sums


def _mc_values_many(dataset, n, *, epsilon, delta, gamma, n_states, return_bound, rng, noise_bound=None):
    m = len(dataset)
    values = first_visit_sums(dataset, n_states, gamma, return_bound) / m
    sensitivity = (return_bound if noise_bound is None else noise_bound) * math.sqrt(n_states) / m
    sigma = sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    return values + rng.normal(0.0, sigma, (n, n_states))


def mc_values(dataset, *, epsilon, delta, gamma, n_states, return_bound, rng):
    """V(s) = (1/m) sum_i min(G_i(s), B) + N(0, sigma^2 I): one trajectory moves each state's sum by at
    most B, so the L2 sensitivity is B sqrt(S) / m and the Gaussian mechanism's sigma gives (eps, delta)
    for eps < 1 (Dwork & Roth 2014, Theorem A.1)."""
    return _mc_values_many(
        dataset, 1, epsilon=epsilon, delta=delta, gamma=gamma, n_states=n_states, return_bound=return_bound, rng=rng
    )[0]


def mc_values_unit_bound(dataset, *, epsilon, delta, gamma, n_states, return_bound, rng):
    """Slip: the noise is calibrated for returns at most 1, though they are clipped to B."""
    return _mc_values_many(
        dataset,
        1,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        n_states=n_states,
        return_bound=return_bound,
        rng=rng,
        noise_bound=1.0,
    )[0]


mc_values.sample = _mc_values_many
mc_values_unit_bound.sample = lambda dataset, n, **params: _mc_values_many(dataset, n, noise_bound=1.0, **params)
