"""c24: Lemma 1 release with alpha from log10: worst-case delta at eps = 1 over admissible pairs (d = 1):
theta shift <= min(S, S'), S'/S in [e^-beta/2, e^beta/2]; exact by quadrature of two 1-D Gaussians."""

import numpy as np
from scipy import integrate
from scipy.stats import norm

eps, delta, d = 1.0, 0.01, 1
beta = eps / (4 * d + 4 * np.log(2 / delta))
alpha = 5 * np.sqrt(2 * np.log10(2 / delta)) / eps


def dl(m1, s1, m2, s2):
    def f(x):
        return max(0.0, norm.pdf(x, m1, s1) - np.exp(eps) * norm.pdf(x, m2, s2))

    return integrate.quad(f, -20 * max(s1, s2), 20 * max(s1, s2), limit=500, points=[m1, m2])[0]


worst = 0
for r in np.linspace(-beta / 2, beta / 2, 9):
    S1, S2 = 1.0, np.exp(r)
    shift = min(S1, S2)
    worst = max(worst, dl(0, alpha * S1, shift, alpha * S2), dl(shift, alpha * S2, 0, alpha * S1))
print("alpha_bug", alpha, "beta", beta, "worst-case delta(eps=1) =", worst)
