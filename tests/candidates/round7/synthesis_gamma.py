"""Privatised transition probabilities for private policy synthesis (Gohari, Hale & Topcu 2020, Algorithm 1,
step 1): every row P(s, a) is replaced by a draw of the Dirichlet mechanism Dir(k P(s, a)), drawn as independent
Gamma(k P(s, a, s'), 1) variables normalised by their sum. Author's names: ``privatise(mdp, *, concentration, rng)``.

No bug known to the author. Truth (claim: row_adjacent(0.2) (one row moves by at most 0.2 in L1, in two
entries), every entry >= eta = 0.15, k = 6, delta = 0.01):

- Only the moved row's law differs; the other rows are independent and identical on both sides. In a Dirichlet
  draw x ~ Dir(k p), U = x_i / (x_i + x_j) ~ Beta(k p_i, k p_j) is independent of (x_i + x_j, x_rest), whose law
  depends on p_i + p_j and p_rest only, which the move keeps. The privacy loss is a function of U:
  delta(eps) = hockey-stick of Beta(k p_i, k p_j) vs Beta(k p_i - k t, k p_j + k t), t <= b / 2 = 0.1.
- truth/truths.py maximises eps(0.01) over p_i, p_j >= eta (p_i - t >= eta), p_i + p_j in [2 eta + t, 1] (rows of
  any length) and both orders: the sup is at (p_i, p_j) = (0.25, 0.15) -> (0.15, 0.25) (the smallest concentrations
  the lower bound eta allows), eps(0.01) = 2.7054. Claim 2.71; the spec's second pair attains the sup:
  true_epsilon = 2.7054. private.
"""

import numpy as np


def privatise(mdp, *, concentration, rng):
    p = np.asarray(mdp, dtype=float)
    draws = rng.standard_gamma(concentration * p)
    return draws / draws.sum(axis=-1, keepdims=True)


def _privatise_many(mdp, n, *, concentration, rng):
    p = np.asarray(mdp, dtype=float)
    draws = rng.standard_gamma(concentration * p, size=(n, *p.shape))
    return draws / draws.sum(axis=-1, keepdims=True)


privatise.sample = _privatise_many
