"""r8-c10 (accountant, LEAKY, subtle): a textbook RDP accountant (Mironov, Talwar & Zhang 2019 integer
orders + the classic conversion) that ignores the ``relation`` argument and always accounts add/remove.

For a point {records m, noise_multiplier sigma, steps N, delta}: q = 1/m,
RDP(a) = N / (a - 1) * ln sum_{k=0}^{a} C(a, k) (1 - q)^(a - k) q^k exp((k^2 - k) / (2 sigma^2)) for
a = 2..256, and epsilon = min_a RDP(a) + ln(1/delta) / (a - 1).  This is a valid upper bound under
add/remove-one (the MTZ formula is exact there).  The claim audited is replace_one, passed in
``relation``, which the code never reads (copied from a per-example DP-SGD tutorial).

Truth.  Under replace_one the one-step pair is (1 - q) N(0) + q N(1) vs (1 - q) N(0) + q N(-1) (clip
norm 1; dp_accounting's REPLACE_ONE agrees); its composed epsilon is up to ~1.8 times the add/remove one
when sigma is large and q is not small.  truth/truth.py (own PLD, cross-checked with dp_accounting):
  records 100, sigma 1.0, N 100,  delta 1e-5: reported 1.617, true 0.896  (holds)
  records 1000, sigma 0.8, N 1000, delta 1e-5: reported 1.662, true 0.368 (holds)
  records 10,  sigma 2.0, N 50,   delta 1e-5: reported 2.210, true 2.955 (understated, +33.7%)
  records 4,   sigma 2.0, N 8,    delta 1e-5: reported 2.506, true 2.979 (understated, +18.9%)
So the accountant is leaky on the spec's grid (under the reading "replaced gradient moves by 2" the true
epsilons are larger still: 6.47, 7.0, 5.14, 5.46, and every point is understated).
"""

import math

import numpy as np
from scipy.special import gammaln, logsumexp

ORDERS = np.arange(2, 257)


def _rdp_add_remove(q, sigma, order):
    k = np.arange(order + 1)
    log_binom = gammaln(order + 1) - gammaln(k + 1) - gammaln(order - k + 1)
    terms = log_binom + (order - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2.0 * sigma**2)
    return float(logsumexp(terms)) / (order - 1)


def accountant(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    q = 1.0 / float(point["records"])
    sigma = float(point["noise_multiplier"])
    steps = int(point["steps"])
    if q >= 1.0:
        q = 1.0 - 1e-12
    if "order" in point:
        order = math.ceil(float(point["order"]))
        return steps * _rdp_add_remove(q, sigma, max(order, 2))
    delta = float(point["delta"])
    best = math.inf
    for order in ORDERS:
        rdp = steps * _rdp_add_remove(q, sigma, int(order))
        best = min(best, rdp + math.log(1.0 / delta) / (order - 1))
    return float(best)
