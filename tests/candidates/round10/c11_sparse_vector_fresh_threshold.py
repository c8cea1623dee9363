"""AboveThreshold (sparse vector, c = 1) with the threshold noise redrawn per query (round 10, c11) -- LEAKY.

What it implements: AboveThreshold (Dwork & Roth 2014, Algorithm 1 of Sec. 3.6; Lyu, Su & Li 2017, Alg. 1)
over a list of k = 5 counting-query answers q_1..q_k (sensitivity 1 each) and a public threshold T: report
the index of the first query whose noisy answer q_i + nu_i reaches the noisy threshold T + rho, or k when
none does, with rho ~ Lap(2/eps) and nu_i ~ Lap(4/eps).  The release is an integer in {0, ..., k}.

The bug: the threshold noise rho is drawn *inside* the loop, afresh for every query (the user moved the
draw next to the comparison when refactoring).  The proof of AboveThreshold conditions on one rho shared by
all comparisons; with a fresh rho per query every "below" answer is an independent noisy comparison whose
privacy loss adds up.

True epsilon (pure DP, inputs in [0, 20], T = 10, eps = 1, k = 5): writing G for the CDF of nu - rho, the
probability of "no query above" is prod_i G(T - q_i); since ln G is concave, each factor's log-ratio when
q_i moves by one is largest for the largest q_i, where it is close to the tail slope 1/(4/eps) = eps/4.  The
supremum over the domain is 5 * [ln G(-9) - ln G(-10)] = 1.2202 (output "none", all queries at 19 against
all at 20), against the claim 1 (22% over).  truth/truth_c11_sparse_vector_fresh_threshold.py (closed-form G).
"""

from __future__ import annotations

import numpy as np


def above_threshold(queries, *, epsilon, threshold, rng):
    q = np.asarray(queries, dtype=float)
    for i, answer in enumerate(q):
        rho = rng.laplace(0.0, 2.0 / epsilon)  # should be drawn once, before the loop
        if answer + rng.laplace(0.0, 4.0 / epsilon) >= threshold + rho:
            return i
    return len(q)


def _above_threshold_many(queries, n, *, epsilon, threshold, rng):
    q = np.asarray(queries, dtype=float)
    k = len(q)
    rho = rng.laplace(0.0, 2.0 / epsilon, size=(n, k))
    nu = rng.laplace(0.0, 4.0 / epsilon, size=(n, k))
    above = q[None, :] + nu >= threshold + rho
    first = np.where(above.any(axis=1), above.argmax(axis=1), k)
    return first


above_threshold.sample = _above_threshold_many


# --- the user's input generator, neighbour function and distance (run in the candidate's worker) ----------


def make_queries(rng):
    """Five counting-query answers between 0 and 20 (our dashboard's counts)."""
    return [int(v) for v in rng.integers(0, 21, 5)]


def query_neighbours(queries):
    """One individual changes every count by at most one: all up, all down, or one count up or down."""
    found = []
    for step in (1, -1):
        moved = [v + step for v in queries]
        if all(0 <= v <= 20 for v in moved):
            found.append(moved)
    for i in range(len(queries)):
        for step in (1, -1):
            moved = list(queries)
            moved[i] += step
            if 0 <= moved[i] <= 20:
                found.append(moved)
    return found


def query_distance(first, second):
    """Neighbours when no count moved by more than one."""
    return float(max(abs(a - b) for a, b in zip(first, second, strict=True)))
