"""Private "most popular option" of a poll, by the exponential mechanism.

Each ballot is one option in {0, ..., n_choices - 1}.  The utility of option i is its count.
Counts are monotone -- one ballot more raises exactly one count, one ballot less lowers
exactly one count, and no count ever moves the other way -- so, as for monotone utilities
(McSherry & Talwar 2007; Dwork & Roth 2014, remark after Theorem 3.10), the factor 2 of
the exponential mechanism can be dropped:

    P(option i) proportional to exp(epsilon * count_i).

Sampled by inversion of the softmax CDF (log-sum-exp for stability).
"""

import numpy as np


def _probabilities(ballots, epsilon, n_choices):
    votes = np.asarray(ballots, dtype=np.int64).ravel()
    if votes.size and (votes.min() < 0 or votes.max() >= n_choices):
        raise ValueError(f"ballots must be options in 0..{n_choices - 1}")
    counts = np.bincount(votes, minlength=n_choices).astype(float)
    scores = float(epsilon) * counts
    scores -= scores.max()
    weights = np.exp(scores)
    return weights / weights.sum()


def private_mode(ballots, *, epsilon, n_choices, rng):
    cdf = np.cumsum(_probabilities(ballots, epsilon, n_choices))
    u = rng.random()
    return int(min(np.searchsorted(cdf, u, side="right"), n_choices - 1))


def _private_mode_batch(ballots, n, *, epsilon, n_choices, rng):
    cdf = np.cumsum(_probabilities(ballots, epsilon, n_choices))
    u = rng.random(int(n))
    return np.minimum(np.searchsorted(cdf, u, side="right"), n_choices - 1).astype(np.int64)


private_mode.sample = _private_mode_batch


def make_ballots(rng):
    """Our test polls: 6 to 12 ballots over 4 options, option 0 the favourite."""
    size = int(rng.integers(6, 13))
    return [int(v) for v in rng.choice(4, size=size, p=[0.4, 0.3, 0.2, 0.1])]
