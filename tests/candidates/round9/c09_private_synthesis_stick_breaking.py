"""Privatised transition probabilities (Gohari, Hale & Topcu 2020, Algorithm 1, step 1).

Round 9 corpus candidate (see truth/truth_c09_private_synthesis_stick_breaking.py).

Every row P(s, a) is replaced by a draw of the Dirichlet mechanism Dir(k P(s, a)) (Sec. II-D). The
draw is made by stick breaking: with alpha = k P(s, a), B_j ~ Beta(alpha_j, alpha_{j+1} + ... + alpha_n)
and x_j = B_j prod_{l<j} (1 - B_l), x_n = prod_{l<n} (1 - B_l), which is exactly Dir(alpha).
Rows must have every entry >= eta when eta is given (structural zeros are rejected).
"""

import numpy as np


def _check(rows, eta):
    if np.any(rows <= 0.0):
        raise ValueError("structural zeros are not supported (structural_zeros='reject')")
    if eta is not None and rows.min() < eta - 1e-12:
        raise ValueError(f"an entry {rows.min()} is below eta = {eta}")


def _stick_breaking(alpha, rng, size=None):
    shape = alpha.shape if size is None else (size, *alpha.shape)
    tails = np.cumsum(alpha[..., ::-1], axis=-1)[..., ::-1]  # tails[j] = alpha_j + ... + alpha_n
    a = np.broadcast_to(alpha[..., :-1], (*shape[:-1], alpha.shape[-1] - 1))
    rest = np.broadcast_to(tails[..., 1:], a.shape)
    breaks = rng.beta(a, rest)
    left = np.cumprod(1.0 - breaks, axis=-1)
    x = np.empty(shape)
    x[..., 0] = breaks[..., 0]
    x[..., 1:-1] = breaks[..., 1:] * left[..., :-1]
    x[..., -1] = left[..., -1]
    return x


def private_synthesis(transitions, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    _check(rows, eta)
    return _stick_breaking(k * rows, rng)


def _private_synthesis_many(transitions, n, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    _check(rows, eta)
    return _stick_breaking(k * rows, rng, size=n)


private_synthesis.sample = _private_synthesis_many
