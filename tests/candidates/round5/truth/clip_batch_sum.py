"""c21 (clip the summed batch instead of each record): 1-D exact delta(eps) on the pair
others = (-50, 0) x 3, target (1000, 0) vs (0, 0); q = 1/4, h = 2, noise std h*sigma = 2.
Also the reference's replace-one law on its worst pair (target +h vs -h, others 0) for comparison."""

import numpy as np
from scipy.optimize import brentq
from scipy.stats import binom, norm

s, q, h = 2.0, 0.25, 2.0
x = np.linspace(-40, 40, 400001)
dx = x[1] - x[0]


def mix(comps):
    return sum(w * norm.pdf(x, m, s) for w, m in comps)


X, Xp = [], []
for b in range(4):
    pb = binom.pmf(b, 3, q)
    m0 = 0.0 if b == 0 else -h
    X += [(pb * (1 - q), m0), (pb * q, +h)]
    Xp += [(pb * (1 - q), m0), (pb * q, m0)]
pX, pXp = mix(X), mix(Xp)
ref1, ref2 = mix([(1 - q, 0), (q, h)]), mix([(1 - q, 0), (q, -h)])


def eps(p1, p2, delta=1e-3):
    def d(e):
        return max((np.maximum(0, p1 - np.exp(e) * p2) * dx).sum(), (np.maximum(0, p2 - np.exp(e) * p1) * dx).sum())

    return brentq(lambda e: d(e) - delta, 0, 30)


print("buggy pair eps@1e-3 =", eps(pX, pXp))
print("reference worst (+h vs -h) eps@1e-3 =", eps(ref1, ref2))
