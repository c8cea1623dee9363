"""Candidates for step 1 of Gohari et al. 2020, Algorithm 1: privatise every transition row
P(s, a) with the Dirichlet mechanism Dir(k P(s, a)). Claim (specs/private_synthesis.toml): k = 5,
two next states, entries >= 0.2, one row moved by 0.2 (row_adjacent), (1.73, 0.01)-DP."""

import numpy as np


def gamma_rows(transitions, *, k, structural_zeros="reject", rng):
    """Correct: every row by normalised Gamma draws."""
    g = rng.standard_gamma(k * np.asarray(transitions, dtype=float))
    return g / g.sum(axis=-1, keepdims=True)


def row_by_row(transitions, *, k, structural_zeros="reject", rng):
    """Correct: numpy's Dirichlet sampler row by row."""
    rows = np.asarray(transitions, dtype=float)
    out = np.empty_like(rows)
    for index in np.ndindex(rows.shape[:-1]):
        out[index] = rng.dirichlet(k * rows[index])
    return out


def k_doubled(transitions, *, k, structural_zeros="reject", rng):
    """Bug: uses 2 k for every row."""
    g = rng.standard_gamma(2.0 * k * np.asarray(transitions, dtype=float))
    return g / g.sum(axis=-1, keepdims=True)


def fixed_seed(transitions, *, k, structural_zeros="reject", rng):
    """Bug: a generator seeded with 3 on every call (public noise)."""
    g = np.random.default_rng(3).standard_gamma(k * np.asarray(transitions, dtype=float))
    return g / g.sum(axis=-1, keepdims=True)
