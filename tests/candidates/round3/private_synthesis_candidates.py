"""Round-3 candidates for private policy synthesis (Gohari, Hale & Topcu 2020, Algorithm 1, step 1:
every transition row P(s, a) is replaced by a draw of Dir(k P(s, a)))."""

import numpy as np


def skips_last_action(transitions, *, k, structural_zeros="reject", eta=None, rng):
    """Leaky: an off-by-one in the action loop (range(n_actions - 1)) leaves the rows of the last action
    unprivatised: they are released exactly."""
    rows = np.array(transitions, dtype=float)
    n_states, n_actions, _ = rows.shape
    for s in range(n_states):
        for a in range(n_actions - 1):
            gammas = rng.standard_gamma(k * rows[s, a])
            rows[s, a] = gammas / gammas.sum()
    return rows


def stick_breaking(transitions, *, k, structural_zeros="reject", eta=None, rng):
    """Private: Dir(k p) drawn by stick breaking, x_i = (1 - x_1 - ... - x_{i-1}) Beta(k p_i, k (p_{i+1} + ...))."""
    rows = np.asarray(transitions, dtype=float)
    if eta is not None and rows.min() < eta:
        raise ValueError(f"an entry {rows.min()} is below eta = {eta}")
    out = np.empty_like(rows)
    for index in np.ndindex(rows.shape[:2]):
        p = k * rows[index]
        left, remaining = 1.0, p.sum()
        for i in range(len(p) - 1):
            remaining -= p[i]
            share = rng.beta(p[i], remaining)
            out[(*index, i)] = left * share
            left *= 1.0 - share
        out[(*index, len(p) - 1)] = left
    return out
