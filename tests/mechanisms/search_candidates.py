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


def _gpope(table, *, clip_norm, noise_multiplier, iterations, step_sizes, rng, clip):
    n, m = len(table["phi"][0]), len(table["offsets"]) - 1
    eta = float((step_sizes or {}).get("eta", 0.1))
    theta, w = np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        i = int(rng.integers(m))
        lo, hi = table["offsets"][i], table["offsets"][i + 1]
        phi, rho = np.asarray(table["phi"][lo:hi]), np.asarray(table["rho"][lo:hi])
        td = phi - table["gamma"] * np.asarray(table["phi_next"][lo:hi])
        primal = -(td.T @ (rho * (phi @ w)))
        dual = phi.T @ (rho * (td @ theta)) + phi.T @ (phi @ w) - phi.T @ (rho * np.asarray(table["rewards"][lo:hi]))
        gradient = np.concatenate([primal, dual]) / (hi - lo)
        if clip:
            gradient = gradient / max(1.0, float(np.linalg.norm(gradient)) / clip_norm)
        gradient = gradient + clip_norm * noise_multiplier * rng.standard_normal(2 * n)
        theta, w = theta - eta * gradient[:n], w - eta * gradient[n:]
    return theta


def _gpope_runs(table, n, *, clip_norm, noise_multiplier, iterations, step_sizes, rng, clip):
    """``n`` independent runs of :func:`_gpope` (rows): the runs that picked the same trajectory step together."""
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


def _with_runs(release, clip):
    """``release`` with its vectorised ``sample`` entry point (n releases stacked on axis 0)."""

    def sample(table, n, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
        return _gpope_runs(
            table,
            n,
            clip_norm=clip_norm,
            noise_multiplier=noise_multiplier,
            iterations=iterations,
            step_sizes=step_sizes,
            rng=rng,
            clip=clip,
        )

    release.sample = sample
    return release


def gpope_clipped(table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    """Correct: Algorithm 1 as written."""
    return _gpope(
        table,
        clip_norm=clip_norm,
        noise_multiplier=noise_multiplier,
        iterations=iterations,
        step_sizes=step_sizes,
        rng=rng,
        clip=True,
    )


def gpope_unclipped(table, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng):
    """Bug: skips step 5 (no clipping): private only while every gradient is within h, as on small rewards."""
    return _gpope(
        table,
        clip_norm=clip_norm,
        noise_multiplier=noise_multiplier,
        iterations=iterations,
        step_sizes=step_sizes,
        rng=rng,
        clip=False,
    )


# The audits of the search tests draw hundreds of thousands of runs: the same law, drawn by rows.
_with_runs(gpope_clipped, clip=True)
_with_runs(gpope_unclipped, clip=False)
