"""Permute-and-flip selection of the most popular option (round 10, candidate 12) -- PRIVATE.

What it implements: the permute-and-flip mechanism (McKenna & Sheldon 2020, Algorithm 1) over four named
options with utility u_r = the option's count: visit the options in a uniformly random order and stop at
option r with probability exp(eps (u_r - u*) / (2 Delta)), u* = max_r u_r, Delta = 1 (the option with the top
count is accepted for sure, so the loop always ends).  The release is the chosen option's name (a category).

Correct?  Yes.  McKenna & Sheldon prove permute-and-flip is eps-DP for utilities of sensitivity Delta (every
score may move by up to Delta, in any direction).  The exact output law is
P(r) = p_r sum_{S subset of the others} |S|! (n - 1 - |S|)! / n! prod_{s in S} (1 - p_s); enumerated over every
count vector in [0, 10]^4 and every neighbour (each count moved by -1, 0 or +1), the largest log-ratio is
exactly 1 = eps (attained, e.g. counts (1, 0, 1, 9) against (0, 1, 2, 10)): the claim holds with equality
(truth/truth_c12_permute_and_flip.py).
"""

from __future__ import annotations

import math

import numpy as np

OPTIONS = ("walk", "bike", "bus", "car")


def permute_and_flip(counts, *, epsilon, sensitivity, rng):
    u = [float(c) for c in counts]
    top = max(u)
    for r in rng.permutation(len(u)):
        if rng.random() <= math.exp(epsilon * (u[r] - top) / (2.0 * sensitivity)):
            return OPTIONS[r]
    raise AssertionError("unreachable: the top option is always accepted")


def _permute_and_flip_many(counts, n, *, epsilon, sensitivity, rng):
    u = np.asarray(counts, dtype=float)
    k = len(u)
    accept_prob = np.exp(epsilon * (u - u.max()) / (2.0 * sensitivity))
    order = np.argsort(rng.random((n, k)), axis=1)  # a uniform random permutation per draw
    coins = rng.random((n, k)) <= accept_prob[order]
    first = coins.argmax(axis=1)  # the top option is accepted with probability 1, so some coin is True
    return np.asarray(OPTIONS)[order[np.arange(n), first]]


permute_and_flip.sample = _permute_and_flip_many
