"""r8-c11 (black_box, LEAKY, subtle): randomized response on k = 3 categories with the *binary* keep
probability.

``categorical_rr(answer, *, epsilon, categories, rng)``: with probability p keep the true answer, otherwise
answer a uniformly random category (out of all k, the true one included).  The engineer took
p = (e^eps - 1) / (e^eps + 1) from the two-category derivation (with k = 2 this is exactly eps-DP).

Claim: (1, 0)-DP when the respondent's answer changes (the correct code, with
p = (e^eps - 1) / (e^eps - 1 + k), is exactly eps-DP).

Truth.  P(report the truth) = p + (1 - p)/k, P(report a given other category) = (1 - p)/k, so the
worst likelihood ratio is 1 + p k / (1 - p) = 1 + k (e^eps - 1) / 2.  With k = 3, eps = 1:
ln(1 + 1.5 (e - 1)) = 1.27458 > 1 claimed (+27.5%).  Witness: "red" vs "green", output "red".
"""

import math

import numpy as np


def _keep_probability(epsilon):
    e = math.exp(epsilon)
    return (e - 1.0) / (e + 1.0)


def categorical_rr(answer, *, epsilon, categories, rng):
    if rng.random() < _keep_probability(epsilon):
        return str(answer)
    return str(categories[int(rng.integers(len(categories)))])


def _many(answer, n, *, epsilon, categories, rng):
    keep = rng.random(n) < _keep_probability(epsilon)
    random_answers = np.asarray(categories)[rng.integers(len(categories), size=n)]
    return np.where(keep, str(answer), random_answers)


categorical_rr.sample = _many
