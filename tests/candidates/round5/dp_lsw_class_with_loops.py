"""DP-LSW (Balle et al. 2016, Alg. 1), tabular features, written as a class with __call__ and plain loops."""

import math

import numpy as np


class DPLSW:
    def _stats(self, dataset, n_states, gamma):
        counts = [0] * n_states
        sums = [0.0] * n_states
        for traj in dataset:
            # discounted return from every step, computed backwards
            G = [0.0] * (len(traj) + 1)
            for t in range(len(traj) - 1, -1, -1):
                G[t] = float(traj[t][2]) + gamma * G[t + 1]
            seen = set()
            for t, (s, _a, _r) in enumerate(traj):
                s = int(s)
                if s in seen:
                    continue
                seen.add(s)
                counts[s] += 1
                sums[s] += G[t]
        means = [sums[s] / counts[s] if counts[s] else 0.0 for s in range(n_states)]
        return counts, means

    def _scale(self, counts, *, epsilon, delta, r_max, gamma, f_max, n_states):
        L = math.log(2.0 / delta)
        alpha = 5.0 * math.sqrt(2.0 * L) / epsilon
        beta = epsilon / (4.0 * n_states + 4.0 * L)  # d = S for tabular features
        psi = 0.0
        for k in range(max(counts) + 1):
            phi = 0.0
            for c in counts:
                phi += 1.0 / max(c - k, 1) ** 2
            psi = max(psi, math.exp(-k * beta) * phi)
        bound = f_max if f_max is not None else r_max / (1.0 - gamma)
        return alpha * bound * 1.0 * math.sqrt(psi)  # ||(Gamma^1/2 Phi)^+|| = 1 for tabular, w = 1

    def _prepare(self, dataset, n_states, features, gamma, r_max, epsilon, delta, f_max):
        if features != "tabular":
            raise ValueError("tabular only")
        counts, means = self._stats(dataset, n_states, gamma)
        sigma = self._scale(
            counts, epsilon=epsilon, delta=delta, r_max=r_max, gamma=gamma, f_max=f_max, n_states=n_states
        )
        return np.array(means), sigma

    def __call__(
        self,
        dataset,
        *,
        n_states,
        features,
        gamma,
        r_max,
        epsilon,
        delta,
        f_max=None,
        weights=None,
        constant_set="main_text",
        rng,
    ):
        theta, sigma = self._prepare(dataset, n_states, features, gamma, r_max, epsilon, delta, f_max)
        out = np.empty(n_states)
        for s in range(n_states):
            out[s] = theta[s] + sigma * rng.standard_normal()
        return out

    def sample(
        self,
        dataset,
        n,
        *,
        n_states,
        features,
        gamma,
        r_max,
        epsilon,
        delta,
        f_max=None,
        weights=None,
        constant_set="main_text",
        rng,
    ):
        theta, sigma = self._prepare(dataset, n_states, features, gamma, r_max, epsilon, delta, f_max)
        return theta + sigma * rng.standard_normal((n, n_states))


dp_lsw = DPLSW()
