"""My private policy synthesis step: every transition row P(s, a) is replaced by a draw of Dir(k P(s, a)).
Rows that are uniform "carry no information about the MDP", so they are copied as they are (saves the
Gamma draws on large MDPs with many uniform rows).

BUG (branch on the input): a uniform row is released exactly. For the row_adjacent(0.2) pair in which
P(0, 0) = (0.5, 0.5) vs (0.4, 0.6) (L1 distance 0.2, entries >= 0.2), the first release has P(0, 0) equal
to (0.5, 0.5) with probability 1 and the second never: the true epsilon is inf (at any delta < 1). On
pairs where neither moving row is uniform, the release is the Dirichlet mechanism (the claim's 1.95).
"""

import numpy as np


def _uniform_rows(rows):
    return np.all(np.isclose(rows, rows.mean(axis=-1, keepdims=True)), axis=-1)


def private_synthesis(transitions, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    gammas = rng.standard_gamma(k * rows)
    noisy = gammas / gammas.sum(axis=-1, keepdims=True)
    return np.where(_uniform_rows(rows)[..., None], rows, noisy)


def _sample(transitions, n, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    gammas = rng.standard_gamma(k * rows, size=(n, *rows.shape))
    noisy = gammas / gammas.sum(axis=-1, keepdims=True)
    return np.where(_uniform_rows(rows)[..., None], rows, noisy)


private_synthesis.sample = _sample
