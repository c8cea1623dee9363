"""Privatised transition model by stick-breaking Dirichlet draws (round 10, candidate 10) -- PRIVATE.

What it implements: step 1 of Gohari, Hale & Topcu 2020, Algorithm 1 -- every transition row P(s, a) is
replaced by a draw of the Dirichlet mechanism Dir(k P(s, a)), independently per row.  The user samples the
Dirichlet by stick-breaking with Beta draws (``rng.beta``), not by normalised Gamma variables:
y_1 ~ Beta(k p_1, k (p_2 + ... + p_n)), y_i = (1 - y_1 - ... - y_{i-1}) Beta(k p_i, k (p_{i+1} + ... + p_n)),
y_n the remaining mass -- which is exactly Dir(k p).  Inputs with an entry below the public floor eta are
rejected (the paper's domain; the claim's eta says so); rows with structural zeros are rejected too.

Correct?  Yes, under row_adjacent(b) (one row P(s, a) differs, in two entries, by <= b in L1): the other rows
are privatised alike on both sides and independently, so the release is as private as one Dirichlet draw.
For two b-adjacent rows p, p' (entries i, j differ by t = p_i - p'_i) the privacy loss is
ln B(k p') / B(k p) + k t ln(y_i / y_j), a function of Z = y_i / (y_i + y_j) ~ Beta(k p_i, k p_j) alone, so
delta(eps) is an exact difference of regularised incomplete Beta functions.  Maximised over every feasible
(p_i + p_j, p_i, t) at k = 8, eta = 0.15, b = 0.1, delta = 0.01 the epsilon is 1.2365 (worst rows
(0.2, 0.15, 0.65) vs (0.15, 0.2, 0.65), both moved entries at the floor on one side); the claim 1.24 holds.
truth/truth_c10_private_synthesis_stickbreaking.py.
"""

from __future__ import annotations

import numpy as np


def _check(rows: np.ndarray, eta) -> None:
    if np.any(rows <= 0):
        raise ValueError("structural zeros are not supported (every entry must be positive)")
    if eta is not None and rows.min() < eta - 1e-12:
        raise ValueError(f"an entry {rows.min()} is below the public floor eta = {eta}")
    if not np.allclose(rows.sum(axis=-1), 1.0, atol=1e-9):
        raise ValueError("every row must be a probability vector")


def _stick_breaking(concentration: np.ndarray, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
    """Dir(concentration) along the last axis by stick-breaking; n extra leading draws when given."""
    shape = concentration.shape if n is None else (n, *concentration.shape)
    out = np.empty(shape)
    tails = np.cumsum(concentration[..., ::-1], axis=-1)[..., ::-1]  # sum_{j >= i}
    remaining = np.ones(shape[:-1])
    width = concentration.shape[-1]
    for i in range(width - 1):
        a = np.broadcast_to(concentration[..., i], shape[:-1])
        b = np.broadcast_to(tails[..., i + 1], shape[:-1])
        v = rng.beta(a, b)
        out[..., i] = remaining * v
        remaining = remaining - out[..., i]
    out[..., width - 1] = remaining
    return out


def privatise_transitions(transitions, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    _check(rows, eta)
    return _stick_breaking(k * rows, rng)


def _privatise_transitions_many(transitions, n, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    _check(rows, eta)
    return _stick_breaking(k * rows, rng, n)


privatise_transitions.sample = _privatise_transitions_many
