"""rl_algorithm candidates: DP reinforcement-learning releases written as a user would, some with bugs.

Every candidate is ``fn(dataset, *, <params>, rng)`` where ``dataset`` is a list of trajectories,
each a list of ``[state, action, reward]``. Written from the definitions (first-visit Monte Carlo:
Sutton & Barto 2018, Sec. 5.1; Balle et al. 2016, Sec. 2; the Gaussian mechanism: Dwork & Roth 2014,
Thm A.1; report-noisy-max: Dwork & Roth 2014, Claim 3.9; DP-SGD style clipping: Abadi et al. 2016),
not from dpaudit's code.

The MDP of the specs (specs/rl_*.toml, inline): 4 states (0 start, 1, 2 rarely visited, 3 an
absorbing goal with reward 0), 2 actions, rewards in [0, 1], gamma = 0.9, rollouts capped at
40 steps. The truth of each candidate is derived in its docstring over the audited domain --
trajectories of states 0..3, actions 0..1, rewards in [0, 1] and at most 40 triples -- and computed
in truth.py (scipy, no dpaudit).
"""

from __future__ import annotations

import json
import math

import numpy as np

ACTIONS = ("left", "right")


def _first_visit_returns(trajectory, gamma, n_states):
    """G(s): the discounted return from the first visit of s (0 when s is not visited), and the mask."""
    rewards = np.array([float(step[2]) for step in trajectory])
    g = np.zeros(len(trajectory) + 1)
    for t in range(len(trajectory) - 1, -1, -1):
        g[t] = rewards[t] + gamma * g[t + 1]
    out = np.zeros(n_states)
    seen = np.zeros(n_states, dtype=bool)
    for t, step in enumerate(trajectory):
        s = int(step[0])
        if not seen[s]:
            seen[s] = True
            out[s] = g[t]
    return out, seen


def _gaussian_sigma(sensitivity, epsilon, delta):
    """The classical calibration sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon (Dwork & Roth, Thm A.1)."""
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def _with_sample(release):
    """Build a per-call function and its vectorised ``sample`` from release(dataset, **params) -> (centre, sampler)."""

    def sample(dataset, n, *, rng, **params):
        centre, noise = release(dataset, **params)
        return centre[None, ...] + noise(rng, (n, *centre.shape))

    def fn(dataset, *, rng, **params):
        return sample(dataset, 1, rng=rng, **params)[0]

    fn.sample = sample
    return fn


# ---------------------------------------------------------------------------------------------
# 1. Private first-visit Monte Carlo value estimates (Gaussian noise, (eps, delta)).


def _mc_release(dataset, *, epsilon, delta, gamma, n_states, return_bound, per_visit=False, scale_by_bound=True):
    m = len(dataset)
    total = np.zeros(n_states)
    visits = np.zeros(n_states)
    for trajectory in dataset:
        g, seen = _first_visit_returns(trajectory, gamma, n_states)
        total += np.clip(g, 0.0, return_bound)
        visits += seen
    if per_visit:  # noqa: SIM108
        centre = np.divide(total, visits, out=np.zeros(n_states), where=visits > 0)  # BUG (mc_avg_over_visits)
    else:
        centre = total / m
    bound = return_bound if scale_by_bound else 1.0  # BUG when False (mc_noise_not_scaled_by_bound)
    sensitivity = math.sqrt(n_states) * bound / m
    sigma = _gaussian_sigma(sensitivity, epsilon, delta)
    return centre, lambda rng, shape: rng.normal(0.0, sigma, size=shape)


mc_gaussian = _with_sample(_mc_release)
mc_gaussian.__doc__ = """V(s) = (1/m) sum_i clip(G_i(s), 0, B) + N(0, sigma^2 I),
sigma classical for Delta_2 = sqrt(S) B/m.

Truth: private. Replacing one trajectory moves each coordinate by at most its return range / m; over
the domain the largest change is the all-ones 40-step trajectory through states 0, 1, 2, 3 at steps
0..3 against one with zero rewards: Delta = ||(B_40, B_39, B_38, B_37)||/m = 19.653/m (B_k =
(1 - 0.9^k)/0.1) <= the assumed 2 B/m = 20/m. True epsilon at delta = 1e-5: the exact Gaussian profile
at mu = 19.653/20 / sqrt(2 ln 1.25e5) (truth.py).
"""


def _mc_avg_over_visits_release(dataset, **params):
    return _mc_release(dataset, per_visit=True, **params)


mc_avg_over_visits = _with_sample(_mc_avg_over_visits_release)
mc_avg_over_visits.__doc__ = """LEAKY: each state's returns averaged over the n_s trajectories that visit it,
noise still for Delta = sqrt(S) B/m.

A state visited by the replaced trajectory alone moves by its whole return (up to 9.85), not by 1/m
of it. Pair: m = 5, four trajectories that visit state 0 only with reward 0, and one through states
0, 1, 2, 3 with rewards 1 against one through state 0 alone with reward 0: Delta = ||(9.852/5, 9.836,
9.818, 9.797)|| = 17.13 against the assumed 4 (truth.py: true epsilon >= the profile at that mu).
"""


def _mc_not_scaled_release(dataset, **params):
    return _mc_release(dataset, scale_by_bound=False, **params)


mc_noise_not_scaled_by_bound = _with_sample(_mc_not_scaled_release)
mc_noise_not_scaled_by_bound.__doc__ = """LEAKY: sigma computed for Delta = sqrt(S)/m,
forgetting the return bound B = 10.

True Delta is 19.653/m (as for mc_gaussian): mu is 9.83 times the calibrated one (truth.py).
"""

# ---------------------------------------------------------------------------------------------
# 2. A private tabular Q-function: the noisy table of reward sums per (s, a), Laplace, pure DP.


def _reward_sums(dataset, n_states, n_actions, reward_max, max_length):
    sums = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        steps = trajectory if max_length is None else trajectory[:max_length]
        for s, a, r in steps:
            sums[int(s), int(a)] += min(max(float(r), 0.0), reward_max)
    return sums


def _qtable_release(dataset, *, epsilon, n_states, n_actions, max_length, reward_max, clip_length=True):
    sums = _reward_sums(dataset, n_states, n_actions, reward_max, max_length if clip_length else None)
    scale = 2.0 * max_length * reward_max / epsilon
    return sums, lambda rng, shape: rng.laplace(0.0, scale, size=shape)


qtable_clipped = _with_sample(_qtable_release)
qtable_clipped.__doc__ = """Noisy reward sums per (s, a): each trajectory cut to its first L = max_length steps, rewards
clipped to [0, r_max], Laplace(2 L r_max / eps) per cell (S x A output).

Truth: private. One trajectory adds at most L r_max in L1; replacing it moves the table by at most
2 L r_max (two trajectories on disjoint cells): true epsilon = eps = 0.9 (attained).
"""


def _qtable_no_clip_release(dataset, **params):
    return _qtable_release(dataset, clip_length=False, **params)


qtable_no_length_clip = _with_sample(_qtable_no_clip_release)
qtable_no_length_clip.__doc__ = """LEAKY: the same noise, but trajectories are not cut to L = 5 steps
(they run up to 40).

L1 sensitivity 2 * 40 against the assumed 2 * 5: true epsilon = 8 * 0.9 = 7.2 (two 40-step all-ones
trajectories on disjoint cells); one 40-step trajectory with rewards 1 against the same with rewards 0
gives 40 * 0.9 / 10 = 3.6.
"""

# ---------------------------------------------------------------------------------------------
# 3. DP least-squares on first-visit returns (an LSW of the user's own, global sensitivity):
#    theta = argmin sum_s rho_s (phi_s . theta - v(s))^2 with v = (1/m) sum_i G_i, aggregation
#    features (states {0, 1} and {2, 3}), uniform public weights rho.

PHI = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])


_VALUES_CACHE: dict = {}


def _mean_first_visit_values(dataset, gamma, n_states, return_bound):
    """(1/m) sum_i clip(G_i, 0, B), memoised on the dataset's contents (a pure function of the data:
    the per-call audits call it thousands of times on 400 trajectories)."""
    key = (json.dumps(dataset), gamma, n_states, return_bound)
    if key not in _VALUES_CACHE:
        v = np.zeros(n_states)
        for trajectory in dataset:
            g, _ = _first_visit_returns(trajectory, gamma, n_states)
            v += np.clip(g, 0.0, return_bound)
        if len(_VALUES_CACHE) > 64:
            _VALUES_CACHE.clear()
        _VALUES_CACHE[key] = v / len(dataset)
    return _VALUES_CACHE[key].copy()


def _lsw_release(dataset, *, epsilon, delta, gamma, n_states, return_bound, variance_for_std=False):
    m = len(dataset)
    v = _mean_first_visit_values(dataset, gamma, n_states, return_bound)
    rho = np.full(n_states, 1.0 / n_states)
    w = np.sqrt(rho)
    a_map = np.linalg.pinv(PHI * w[:, None]) * w[None, :]  # theta = A v
    theta = a_map @ v
    sensitivity = np.linalg.norm(a_map, 2) * math.sqrt(n_states) * return_bound / m
    sigma = _gaussian_sigma(sensitivity, epsilon, delta)
    std = sigma**2 if variance_for_std else sigma  # BUG when variance_for_std
    return theta, lambda rng, shape: rng.normal(0.0, std, size=shape)


lsw_global = _with_sample(_lsw_release)
lsw_global.__doc__ = """Weighted least squares of the first-visit values + Gaussian noise for the global sensitivity
||A||_2 sqrt(S) B / m (A the least-squares map, ||A||_2 = 1/sqrt(2)).

Truth: private. theta moves by A dv with dv in [-B_40, B_40]^4 / m (B_40 = 9.852): ||A dv|| <=
sqrt(2) B_40/m = 13.93/m against the assumed 14.14/m: true epsilon <= the Gaussian profile at
mu = 0.9852 / sqrt(2 ln 1.25e5) (truth.py).
"""


def _lsw_variance_release(dataset, **params):
    return _lsw_release(dataset, variance_for_std=True, **params)


lsw_variance_for_std = _with_sample(_lsw_variance_release)
lsw_variance_for_std.__doc__ = """LEAKY: the calibrated variance sigma^2 passed as the standard deviation.

With m = 400 trajectories sigma = 0.1713 < 1, so sigma^2 = 0.0293 is 5.8 times too little noise;
true epsilon at the sup (Delta = 13.93/400) and on one all-ones trajectory through states 0, 1 against
zeros (Delta >= 9.84/400): truth.py.
"""

# ---------------------------------------------------------------------------------------------
# 4. A private behaviour-policy estimate released as action counts N(s, a), Laplace.


def policy_counts(dataset, *, epsilon, n_states, n_actions, max_steps, rng):
    """Counts N(s, a) of every visit in trajectories cut to max_steps = 40, + Laplace(2 max_steps / eps),
    released rounded to non-negative integers (post-processing).

    Truth: private. A trajectory adds at most max_steps counts; replacing it moves the table by at most
    2 max_steps in L1: true epsilon <= eps = 0.9 (the unrounded release attains it).
    """
    return policy_counts.sample(
        dataset, 1, epsilon=epsilon, n_states=n_states, n_actions=n_actions, max_steps=max_steps, rng=rng
    )[0]


def _policy_counts_table(dataset, n_states, n_actions, max_steps):
    counts = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        for s, a, _ in trajectory[:max_steps]:
            counts[int(s), int(a)] += 1
    return counts


def _policy_counts_sample(dataset, n, *, epsilon, n_states, n_actions, max_steps, rng):
    counts = _policy_counts_table(dataset, n_states, n_actions, max_steps)
    noisy = counts[None] + rng.laplace(0.0, 2.0 * max_steps / epsilon, size=(n, *counts.shape))
    return np.maximum(np.rint(noisy), 0).astype(np.int64)


policy_counts.sample = _policy_counts_sample


def policy_counts_ignores_length(dataset, *, epsilon, n_states, n_actions, max_steps, rng):
    """LEAKY: Laplace(2/eps) ("one trajectory, one count"), though a trajectory adds up to 40 counts.

    True epsilon = 40 * 0.9 = 36 (two 40-step trajectories on disjoint cells); a 40-step trajectory
    against a 2-step one on the same cells: 38 * 0.9 / 2 = 17.1.
    """
    counts = _policy_counts_table(dataset, n_states, n_actions, max_steps)
    return counts + rng.laplace(0.0, 2.0 / epsilon, size=counts.shape)


# ---------------------------------------------------------------------------------------------
# 5. A private greedy policy: per non-terminal state, the action with the largest noisy sum of
#    first-visit returns of (s, a) (report-noisy-max), released as action names.


def _pair_first_visit_returns(trajectory, gamma, n_states, n_actions):
    rewards = np.array([float(step[2]) for step in trajectory])
    g = np.zeros(len(trajectory) + 1)
    for t in range(len(trajectory) - 1, -1, -1):
        g[t] = rewards[t] + gamma * g[t + 1]
    out = np.zeros((n_states, n_actions))
    seen = np.zeros((n_states, n_actions), dtype=bool)
    for t, (s, a, _) in enumerate(trajectory):
        s, a = int(s), int(a)
        if not seen[s, a]:
            seen[s, a] = True
            out[s, a] = g[t]
    return out


def _greedy_sample(dataset, n, *, epsilon, gamma, return_bound, rng):
    n_states, n_actions, decided = 4, 2, 3  # the goal state 3 needs no action
    scores = np.zeros((n_states, n_actions))
    for trajectory in dataset:
        scores += np.clip(_pair_first_visit_returns(trajectory, gamma, n_states, n_actions), 0.0, return_bound)
    # each score moves by at most B in any direction: Laplace(2B/eps_s) per state, eps_s = eps/3
    scale = 2.0 * return_bound * decided / epsilon
    noisy = scores[None, :decided, :] + rng.laplace(0.0, scale, size=(n, decided, n_actions))
    return np.asarray(ACTIONS)[np.argmax(noisy, axis=2)]


def greedy_policy(dataset, *, epsilon, gamma, return_bound, rng):
    """Greedy action names for states 0, 1, 2 by report-noisy-max over Q-sums, Laplace(6B/eps).

    Truth: private. Scores of one state move by at most B each, in any direction: report-noisy-max with
    Laplace(2B/eps_s) is eps_s-DP (Dwork & Roth Claim 3.9 gives eps_s/2 for Laplace(B/eps_s) when all
    scores move one way; the general case costs a factor 2); three states compose to eps = 0.9.
    """
    return _greedy_sample(dataset, 1, epsilon=epsilon, gamma=gamma, return_bound=return_bound, rng=rng)[0]


greedy_policy.sample = _greedy_sample

# ---------------------------------------------------------------------------------------------
# 6. A private policy-gradient step (REINFORCE at theta = 0, softmax tabular policy):
#    per-trajectory gradients g_i = sum_t grad log pi(a_t|s_t) G_t, clipped, averaged, + Gaussian.


def _reinforce_gradient(trajectory, gamma, n_states, n_actions):
    rewards = np.array([float(step[2]) for step in trajectory])
    g = np.zeros(len(trajectory) + 1)
    for t in range(len(trajectory) - 1, -1, -1):
        g[t] = rewards[t] + gamma * g[t + 1]
    grad = np.zeros((n_states, n_actions))
    for t, (s, a, _) in enumerate(trajectory):
        score = -np.full(n_actions, 1.0 / n_actions)  # grad of log softmax at theta = 0
        score[int(a)] += 1.0
        grad[int(s)] += score * g[t]
    return grad.ravel()


def _clip(v, c):
    norm = np.linalg.norm(v)
    return v if norm <= c else v * (c / norm)


def _pg_release(dataset, *, epsilon, delta, gamma, clip, n_states, n_actions, clip_after=False):
    m = len(dataset)
    grads = [_reinforce_gradient(t, gamma, n_states, n_actions) for t in dataset]
    if clip_after:  # noqa: SIM108
        mean = _clip(np.mean(grads, axis=0), clip)  # BUG (pg_clip_after_average)
    else:
        mean = np.mean([_clip(g, clip) for g in grads], axis=0)
    sigma = _gaussian_sigma(2.0 * clip / m, epsilon, delta)  # replace-one: L2 sensitivity 2C/m
    return mean, lambda rng, shape: rng.normal(0.0, sigma, size=shape)


pg_step = _with_sample(_pg_release)
pg_step.__doc__ = """Per-trajectory gradients clipped to norm C, averaged over the (public) m, + N(0, sigma^2 I) with
sigma classical for Delta_2 = 2C/m.

Truth: private. Delta = 2C/m exactly (two one-step trajectories (0, left, 1) and (0, right, 1) have
antipodal gradients): true epsilon = the Gaussian profile at mu = 1/sqrt(2 ln 1.25e5) (truth.py).
"""


def _pg_after_release(dataset, **params):
    return _pg_release(dataset, clip_after=True, **params)


pg_clip_after_average = _with_sample(_pg_after_release)
pg_clip_after_average.__doc__ = """LEAKY: the average of the raw gradients clipped to norm C, noise still for 2C/m.

The clipped average lies in the ball of radius C, so one trajectory can move it by 2C (all other
trajectories with zero rewards, the replaced one with a large gradient against its mirror image):
Delta = 2C = m times the assumed 2C/m, m = 5 (truth.py).
"""
