"""Candidates whose leak only the input search's pairs show (tests/mechanisms/test_*_search.py).

private_synthesis: step 1 of Gohari et al. 2020, Algorithm 1 (every row P(s, a) by Dir(k P(s, a))).
gpope: Xie et al. 2019, Algorithm 1 (N uniform picks, clipped primal-dual gradient, h N(0, sigma^2 I)).
"""

import numpy as np


def _uniform_concentration(rows, k):
    return np.full((*rows.shape[:-1], 1), float(k))


def _first_row_concentration(rows, k):
    scale = np.full((*rows.shape[:-1], 1), 100.0 * k)
    scale[0, 0] = k
    return scale


def _privatised_rows(concentration):
    """A per-call candidate that draws every row P(s, a) from Dir(c(s, a) P(s, a)), and its vectorised
    ``sample`` entry point (n releases stacked on axis 0)."""

    def release(transitions, *, k, structural_zeros="reject", eta=None, rng):
        rows = np.asarray(transitions, dtype=float)
        gammas = rng.standard_gamma(concentration(rows, k) * rows)
        return gammas / gammas.sum(axis=-1, keepdims=True)

    def sample(transitions, n, *, k, structural_zeros="reject", eta=None, rng):
        rows = np.asarray(transitions, dtype=float)
        gammas = rng.standard_gamma(concentration(rows, k) * rows, size=(n, *rows.shape))
        return gammas / gammas.sum(axis=-1, keepdims=True)

    release.sample = sample
    return release


#: Correct: every row by normalised Gamma(k P(s, a, s')) draws.
dirichlet_rows = _privatised_rows(_uniform_concentration)

#: Bug: only row P(0, 0) gets the concentration k; every other row gets 100 k (barely privatised).
#: A pair that moves P(0, 0) alone shows nothing.
first_row_only = _privatised_rows(_first_row_concentration)


def _gpope_runs(table, n, *, clip_norm, noise_multiplier, iterations, step_sizes=None, rng, clip):
    """``n`` independent runs of Algorithm 1 (rows); the runs that picked the same trajectory step together."""
    features, m = len(table["phi"][0]), len(table["offsets"]) - 1
    eta = float((step_sizes or {}).get("eta", 0.1))
    theta, w = np.zeros((n, features)), np.zeros((n, features))
    for _ in range(iterations):
        picks = rng.integers(m, size=n)
        gradient = np.empty((n, 2 * features))
        for i in np.unique(picks):
            runs = picks == i
            lo, hi = table["offsets"][i], table["offsets"][i + 1]
            phi, rho = np.asarray(table["phi"][lo:hi]), np.asarray(table["rho"][lo:hi])
            td = phi - table["gamma"] * np.asarray(table["phi_next"][lo:hi])
            values = phi @ w[runs].T  # (steps, runs)
            primal = -((rho[:, None] * values).T @ td)
            rewards = phi.T @ (rho * np.asarray(table["rewards"][lo:hi]))
            dual = (rho[:, None] * (td @ theta[runs].T)).T @ phi + values.T @ phi - rewards
            gradient[runs] = np.concatenate([primal, dual], axis=1) / (hi - lo)
        if clip:
            gradient /= np.maximum(1.0, np.linalg.norm(gradient, axis=1) / clip_norm)[:, None]
        gradient += clip_norm * noise_multiplier * rng.standard_normal((n, 2 * features))
        theta, w = theta - eta * gradient[:, :features], w - eta * gradient[:, features:]
    return theta


def _gpope(clip, doc):
    """A per-call GPOPE candidate and its vectorised ``sample`` entry point (the audits of the search tests
    draw hundreds of thousands of runs: the same law, drawn by rows)."""

    def release(table, *, rng, records=None, **params):
        return _gpope_runs(table, 1, rng=rng, clip=clip, **params)[0]

    def sample(table, n, *, rng, records=None, **params):
        return _gpope_runs(table, n, rng=rng, clip=clip, **params)

    release.__doc__ = doc
    release.sample = sample
    return release


gpope_clipped = _gpope(True, "Correct: Algorithm 1 as written.")
gpope_unclipped = _gpope(
    False, "Bug: skips step 5 (no clipping): private only while every gradient is within h, as on small rewards."
)
