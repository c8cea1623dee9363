"""Exact epsilon at delta between two Dirichlet laws (privacy loss histogram by Monte Carlo over 4e6 draws
is not exact; here: 2 coordinates -> Beta, integrate exactly; 3 coordinates -> Monte Carlo estimate)."""

import numpy as np
from scipy import integrate, stats
from scipy.optimize import brentq
from scipy.special import gammaln


def beta_delta(eps, a1, b1, a2, b2):
    def f(x):
        return max(0.0, stats.beta.pdf(x, a1, b1) - np.exp(eps) * stats.beta.pdf(x, a2, b2))

    return integrate.quad(f, 0, 1, limit=400, points=[0.001, 0.01, 0.1, 0.5, 0.9, 0.99])[0]


def eps_beta(delta, a1, b1, a2, b2):
    def g(e):
        return max(beta_delta(e, a1, b1, a2, b2), beta_delta(e, a2, b2, a1, b1)) - delta

    return brentq(g, 0, 30)


for K in (5, 10):
    print("k_eff", K, "pair (0.2,0.8)/(0.3,0.7): eps@0.01 =", eps_beta(0.01, 0.2 * K, 0.8 * K, 0.3 * K, 0.7 * K))


def logdir(x, a):
    return gammaln(a.sum()) - gammaln(a).sum() + ((a - 1) * np.log(x)).sum(axis=1)


def eps_mc(delta, p, q, K, n=4_000_000, seed=0):
    g = np.random.default_rng(seed)
    a, b = K * np.array(p), K * np.array(q)
    best = 0
    for u, v in ((a, b), (b, a)):
        x = g.dirichlet(u, n)
        L = logdir(x, u) - logdir(x, v)

        def dl(e):
            return np.mean(np.maximum(0, 1 - np.exp(e - L)))  # noqa: B023 (used in this iteration only)

        if dl(0) > delta:
            best = max(best, brentq(lambda e: dl(e) - delta, 0, 30))
    return best


for K in (5, 15):
    print("k_eff", K, "3-state worst pair eps@0.01 (MC, 4e6) =", eps_mc(0.01, [0.2, 0.3, 0.5], [0.3, 0.2, 0.5], K))
