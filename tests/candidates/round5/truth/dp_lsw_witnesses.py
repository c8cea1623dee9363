"""Exact epsilon at delta for two isotropic Gaussians with a common mean (d dims), both orders."""

import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.stats import chi2

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the candidate modules (c02, c03, c04) are in round5/
SPECS = HERE.parent / "specs"
import dp_lsw_beta_precedence as c4  # noqa: E402
import dp_lsw_every_visit as c3  # noqa: E402
import dp_lsw_local_sensitivity as c2  # noqa: E402


def delta_eps(eps, s1, s2, d):
    # P1 = N(0, s1^2), P2 = N(0, s2^2); L = ln p1/p2 = d ln(s2/s1) - r^2/2 (1/s1^2 - 1/s2^2)
    a = 0.5 * (1 / s1**2 - 1 / s2**2)
    c = d * np.log(s2 / s1)
    # order (P1, P2): L > eps  <=> r^2 < (c - eps)/a  (a > 0 if s1 < s2)
    t = (c - eps) / a
    d12 = 0.0 if t <= 0 else chi2.cdf(t / s1**2, d) - np.exp(eps) * chi2.cdf(t / s2**2, d)
    # order (P2, P1): -L > eps <=> r^2 > (c + eps)/a
    t2 = (c + eps) / a
    d21 = chi2.sf(t2 / s2**2, d) - np.exp(eps) * chi2.sf(t2 / s1**2, d)
    return max(d12, d21)


def eps_at(delta, s1, s2, d):
    if delta_eps(0, s1, s2, d) <= delta:
        return 0.0
    return brentq(lambda e: delta_eps(e, s1, s2, d) - delta, 0, 200)


P = dict(n_states=5, gamma=0.99, r_max=1.0, epsilon=1.0, delta=0.1, f_max=1.0)
pair = json.loads((SPECS / "lsw_pairs.json").read_text())[0]
s1 = c2._theta_sigma(pair["first"], **P)[1]
s2 = c2._theta_sigma(pair["second"], **P)[1]
print("c02 witness sigma", s1, s2, "eps@0.1 =", eps_at(0.1, min(s1, s2), max(s1, s2), 5))
loop = [[s, 0, 0.0] for _ in range(60) for s in range(5)]
short = [[s, 0, 0.0] for s in range(5)]
X, Xp = [loop] + [short] * 9, [short] * 10
s1 = c3._theta_sigma(X, **P)[1]
s2 = c3._theta_sigma(Xp, **P)[1]
print("c03 witness sigma", s1, s2, "eps@0.1 =", eps_at(0.1, s1, s2, 5))
(SPECS / "lsw_loop_pairs.json").write_text(
    json.dumps([{"first": X, "second": Xp, "label": "one trajectory loops 60 times vs a short one"}])
)
s1 = c4._sample(pair["first"], 1, features="tabular", rng=np.random.default_rng(0), **P)  # unused


def sig4(D):
    g = np.random.default_rng(1)
    a = c4._sample(D, 200000, features="tabular", rng=g, **P)
    return a.std()


s1, s2 = sig4(pair["first"]), sig4(pair["second"])
print("c04 witness sigma (empirical)", s1, s2, "eps@0.1 =", eps_at(0.1, min(s1, s2), max(s1, s2), 5))
