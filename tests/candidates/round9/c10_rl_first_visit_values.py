"""Private first-visit Monte Carlo state values with Laplace noise (a batch policy-evaluation release).

Round 9 corpus candidate (see truth/truth_c10_rl_first_visit_values.py).

V(s) = (1/m) sum_i G_i(s), G_i(s) the discounted return of trajectory i from its first visit to s
(0 when it never visits s; Balle et al. 2016, Sec. 2.2). Rewards lie in [0, r_max], so every
return lies in [0, r_max/(1-gamma)]; replacing one trajectory moves each coordinate by at most
r_max/((1-gamma) m), and V by at most S r_max/((1-gamma) m) in L1: Laplace noise of that scale over
epsilon per coordinate is epsilon-DP (Dwork & Roth 2014, Theorem 3.6).
The return-to-go is computed from one vectorised discounted cumulative sum per trajectory:
sum_{j>=t} gamma^j r_j, brought back to the visit time by the visit's discount.
"""

import numpy as np


def _values(dataset, gamma, n_states):
    m = len(dataset)
    totals = np.zeros(n_states)
    for trajectory in dataset:
        if not trajectory:
            continue
        steps = np.asarray(trajectory, dtype=float).reshape(-1, 3)
        states = np.rint(steps[:, 0]).astype(int)
        discount = gamma ** np.arange(len(steps))
        tail = np.cumsum((discount * steps[:, 2])[::-1])[::-1]
        seen = set()
        for t, s in enumerate(states):
            if s not in seen:
                seen.add(s)
                totals[s] += tail[t] / gamma ** (t + 1)
    return totals / m


def private_state_values(dataset, *, epsilon, gamma, n_states, r_max, rng):
    scale = n_states * r_max / ((1.0 - gamma) * len(dataset) * epsilon)
    return _values(dataset, gamma, n_states) + rng.laplace(0.0, scale, n_states)


def _private_state_values_many(dataset, n, *, epsilon, gamma, n_states, r_max, rng):
    scale = n_states * r_max / ((1.0 - gamma) * len(dataset) * epsilon)
    return _values(dataset, gamma, n_states) + rng.laplace(0.0, scale, (n, n_states))


private_state_values.sample = _private_state_values_many
