"""Example candidate implementations, one per kind, written from the definitions.

Run from this folder, e.g.
    dpaudit check laplace_candidate.toml --candidate example_candidates:laplace
Each takes the input first (plain Python values), the spec's mechanism params as keywords and
a keyword-only numpy Generator ``rng`` that it uses for all its randomness. Most also carry a
vectorised entry point, ``sample(input, n, *, rng, **params)`` returning ``n`` releases stacked on
axis 0 (docs/candidates.md): dpaudit then draws a batch per call instead of one release per call.
``laplace`` has none, to show the per-call path; ``laplace_vectorised`` is the same mechanism with one.
"""

import numpy as np


def gaussian(value, *, sigma, sensitivity, rng):
    """f(X) + N(0, sigma^2 I)."""
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def _gaussian_sample(value, n, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal((n, len(value)))


gaussian.sample = _gaussian_sample


def laplace(value, *, scale, sensitivity, rng):
    """f(X) + Lap(0, scale) per coordinate (Dwork & Roth 2014, Def. 3.3)."""
    return np.asarray(value, dtype=float) + rng.laplace(0.0, scale, len(value))


class laplace_vectorised:  # a callable with a vectorised entry point (see README)
    """The same mechanism; dpaudit calls ``sample`` to draw many releases at once."""

    def __new__(cls, value, *, scale, sensitivity, rng):
        return laplace(value, scale=scale, sensitivity=sensitivity, rng=rng)

    @staticmethod
    def sample(value, n, *, rng, scale, sensitivity):
        return np.asarray(value, dtype=float) + rng.laplace(0.0, scale, (n, len(value)))


def dirichlet(p, *, k, eta=None, rng):
    """x ~ Dir(k p) by normalised Gamma(k p_i) draws (Gohari et al. 2020, Sec. II-D)."""
    gammas = rng.standard_gamma(k * np.asarray(p, dtype=float))
    return gammas / gammas.sum()


def _dirichlet_sample(p, n, *, k, eta=None, rng):
    gammas = rng.standard_gamma(k * np.asarray(p, dtype=float), size=(n, len(p)))
    return gammas / gammas.sum(axis=1, keepdims=True)


dirichlet.sample = _dirichlet_sample


def gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    """One step of Xie et al. 2019, Algorithm 1: pick one record, clip it to norm h, add h N(0, sigma^2 I)."""
    matrix = np.asarray(gradients, dtype=float)
    if sampling == "uniform_one":
        chosen = matrix[rng.integers(records)]
        norm = float(np.linalg.norm(chosen))
        clipped = chosen / max(1.0, norm / clip_norm)
    else:  # Poisson sampling at rate 1/m of a clipped sum
        picked = matrix[rng.random(records) < 1.0 / records]
        norms = np.linalg.norm(picked, axis=1, keepdims=True) if len(picked) else np.ones((0, 1))
        clipped = (
            (picked / np.maximum(1.0, norms / clip_norm)).sum(axis=0) if len(picked) else np.zeros(matrix.shape[1])
        )
    return clipped + clip_norm * noise_multiplier * rng.standard_normal(matrix.shape[1])


def _gpope_step_sample(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    matrix = np.asarray(gradients, dtype=float)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    clipped_rows = matrix / np.maximum(1.0, norms / clip_norm)
    if sampling == "uniform_one":
        clipped = clipped_rows[rng.integers(records, size=n)]
    else:  # Poisson sampling at rate 1/m of a clipped sum
        clipped = (rng.random((n, records)) < 1.0 / records) @ clipped_rows
    return clipped + clip_norm * noise_multiplier * rng.standard_normal((n, matrix.shape[1]))


gpope_step.sample = _gpope_step_sample


def gpope(
    table,
    *,
    clip_norm,
    noise_multiplier,
    iterations,
    step_sizes=None,
    normalisation="mean",
    clip=True,
    records=None,
    rng,
):
    """Xie et al. 2019, Algorithm 1: N times pick a trajectory, clip its GTD2 gradient (eq. 4.1) to h,
    add h N(0, sigma^2 I), step theta and w by eta; release theta (of a dataset of `records` trajectories)."""
    n, m = len(table["phi"][0]), len(table["offsets"]) - 1
    if records is not None and m not in (records, records - 1):
        raise ValueError(f"the table has {m} trajectories, expected records = {records}")
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
        gradient = gradient / max(1.0, float(np.linalg.norm(gradient)) / clip_norm)
        gradient = gradient + clip_norm * noise_multiplier * rng.standard_normal(2 * n)
        theta, w = theta - eta * gradient[:n], w - eta * gradient[n:]
    return theta


def _gpope_sample(table, releases, *, clip_norm, noise_multiplier, iterations, step_sizes=None, records=None, rng, **_):
    """``releases`` runs of ``gpope`` side by side: trajectory i's gradient is linear in (theta, w),
    G_i (theta, w) + g_i, so each iteration is one batched product."""
    phi_all, phi_next = np.asarray(table["phi"], dtype=float), np.asarray(table["phi_next"], dtype=float)
    rho_all, rewards = np.asarray(table["rho"], dtype=float), np.asarray(table["rewards"], dtype=float)
    offsets, n = table["offsets"], phi_all.shape[1]
    m = len(offsets) - 1
    if records is not None and m not in (records, records - 1):
        raise ValueError(f"the table has {m} trajectories, expected records = {records}")
    eta = float((step_sizes or {}).get("eta", 0.1))
    linear, constant = np.zeros((m, 2 * n, 2 * n)), np.zeros((m, 2 * n))
    for i in range(m):
        lo, hi = offsets[i], offsets[i + 1]
        phi, rho = phi_all[lo:hi], rho_all[lo:hi]
        td = phi - table["gamma"] * phi_next[lo:hi]
        linear[i, :n, n:] = -(td.T @ (rho[:, None] * phi)) / (hi - lo)
        linear[i, n:, :n] = phi.T @ (rho[:, None] * td) / (hi - lo)
        linear[i, n:, n:] = phi.T @ phi / (hi - lo)
        constant[i, n:] = -(phi.T @ (rho * rewards[lo:hi])) / (hi - lo)
    state = np.zeros((releases, 2 * n))
    for _ in range(iterations):
        picked = rng.integers(m, size=releases)
        gradient = np.einsum("kij,kj->ki", linear[picked], state) + constant[picked]
        gradient = gradient / np.maximum(1.0, np.linalg.norm(gradient, axis=1, keepdims=True) / clip_norm)
        gradient = gradient + clip_norm * noise_multiplier * rng.standard_normal((releases, 2 * n))
        state = state - eta * gradient
    return state[:, :n]


gpope.sample = _gpope_sample


def private_synthesis(transitions, *, k, structural_zeros="reject", eta=None, rng):
    """Step 1 of Gohari et al. 2020, Algorithm 1: every row P(s, a) replaced by a draw of Dir(k P(s, a))
    (every entry of the input at least eta)."""
    rows = np.asarray(transitions, dtype=float)
    if eta is not None and rows.min() < eta:
        raise ValueError(f"an entry {rows.min()} is below eta = {eta}")
    gammas = rng.standard_gamma(k * rows)
    return gammas / gammas.sum(axis=-1, keepdims=True)


def _private_synthesis_sample(transitions, n, *, k, structural_zeros="reject", eta=None, rng):
    rows = np.asarray(transitions, dtype=float)
    if eta is not None and rows.min() < eta:
        raise ValueError(f"an entry {rows.min()} is below eta = {eta}")
    gammas = rng.standard_gamma(k * rows, size=(n, *rows.shape))
    return gammas / gammas.sum(axis=-1, keepdims=True)


private_synthesis.sample = _private_synthesis_sample


def _gaussian_epsilon(mu, delta):
    """The smallest epsilon with delta(epsilon) <= delta for the Gaussian mechanism with Delta/sigma = mu
    (Balle & Wang 2018, Theorem 8), by bisection."""
    from scipy.stats import norm

    def delta_at(eps):
        return norm.cdf(mu / 2 - eps / mu) - np.exp(eps) * norm.cdf(-mu / 2 - eps / mu)

    low, high = 0.0, 1.0
    while delta_at(high) > delta:
        high *= 2
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if delta_at(middle) > delta else (low, middle)
    return high


def accountant(point, *, sampling="poisson", relation="replace_one", interval=1e-4, rng):
    """A valid (loose) accountant: ignores the subsampling and composes N Gaussian steps of
    sensitivity 2 (replace-one, clip norm 1): one Gaussian with Delta/sigma = 2 sqrt(N) / sigma."""
    mu = 2.0 * np.sqrt(point["steps"]) / point["noise_multiplier"]
    return _gaussian_epsilon(mu, point["delta"])


def smooth_gaussian(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Lemma 1 of Balle et al. 2016 (main text): theta + alpha S(X) N(0, I) with
    alpha = 5 sqrt(2 ln(2/delta)) / epsilon (data = {theta, smooth_bound})."""
    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    theta = np.asarray(data["theta"], dtype=float)
    return theta + alpha * data["smooth_bound"] * rng.standard_normal(theta.shape)


def _smooth_gaussian_sample(data, n, *, epsilon, delta, dim, constants="main_text", rng):
    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    theta = np.asarray(data["theta"], dtype=float)
    return theta + alpha * data["smooth_bound"] * rng.standard_normal((n, *theta.shape))


smooth_gaussian.sample = _smooth_gaussian_sample


def _first_visit_statistics(dataset, n_states, gamma):
    """|X_s| and the mean first-visit return F_X(s) of every state (Balle et al. 2016, eq. (4))."""
    counts, sums = np.zeros(n_states), np.zeros(n_states)
    for trajectory in dataset:
        rewards = [float(step[2]) for step in trajectory]
        suffix = np.zeros(len(rewards) + 1)
        for t in range(len(rewards) - 1, -1, -1):
            suffix[t] = rewards[t] + gamma * suffix[t + 1]
        seen = set()
        for t, step in enumerate(trajectory):
            if int(step[0]) not in seen:
                seen.add(int(step[0]))
                counts[int(step[0])] += 1
                sums[int(step[0])] += suffix[t]
    return counts, np.divide(sums, counts, out=np.zeros(n_states), where=counts > 0)


def dp_lsl(dataset, *, rng, **params):
    """Algorithm 2 of Balle et al. 2016 (tabular features, main-text constants): theta_X of eq. (11)
    plus N(0, sigma_X^2 I) with sigma_X = 2 alpha F ||Phi|| sqrt(psi) / (lambda - ||Phi||^2 ||rho||_inf),
    psi = max_k e^(-k beta) (c_lambda sqrt(sum_s rho_s min(|X_s| + k, m)) + ||rho||_2)^2 (eq. (12))."""
    theta, sigma = _dp_lsl_estimate_and_scale(dataset, **params)
    return theta + sigma * rng.standard_normal(len(theta))


def _dp_lsl_sample(dataset, n, *, rng, **params):
    theta, sigma = _dp_lsl_estimate_and_scale(dataset, **params)
    return theta + sigma * rng.standard_normal((n, len(theta)))


dp_lsl.sample = _dp_lsl_sample


def _dp_lsl_estimate_and_scale(
    dataset, *, n_states, features, gamma, r_max, lam, epsilon, delta, rho=None, f_max=None, **_
):
    """theta_X of eq. (11) and sigma_X of Algorithm 2."""
    if features != "tabular":
        raise ValueError("this example implements tabular features only")
    phi = np.eye(n_states)
    rho = np.ones(n_states) if rho is None else np.asarray(rho, dtype=float)
    m = len(dataset)
    counts, means = _first_visit_statistics(dataset, n_states, gamma)
    weights = rho * counts / m
    gram = phi.T @ (weights[:, None] * phi) + lam / (2.0 * m) * np.eye(n_states)
    theta = np.linalg.solve(gram, phi.T @ (weights * means))
    alpha = 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon
    beta = epsilon / (4.0 * (n_states + np.log(2.0 / delta)))
    norm, rho_inf = float(np.linalg.norm(phi, 2)), float(rho.max())
    c_lambda = norm * rho_inf / np.sqrt(2.0 * lam)
    psi = max(
        np.exp(-k * beta) * (c_lambda * np.sqrt(np.sum(rho * np.minimum(counts + k, m))) + np.linalg.norm(rho)) ** 2
        for k in range(m + 1)
    )
    bound = f_max if f_max is not None else r_max / (1.0 - gamma)
    return theta, 2.0 * alpha * bound * norm * np.sqrt(psi) / (lam - norm**2 * rho_inf)


def laplace_from_epsilon(value, *, epsilon, sensitivity, rng):
    """A Laplace mechanism as users write it, parameterised by epsilon: scale = sensitivity / epsilon."""
    return np.asarray(value, dtype=float) + rng.laplace(0.0, sensitivity / epsilon, len(value))


def _laplace_from_epsilon_sample(value, n, *, epsilon, sensitivity, rng):
    return np.asarray(value, dtype=float) + rng.laplace(0.0, sensitivity / epsilon, (n, len(value)))


laplace_from_epsilon.sample = _laplace_from_epsilon_sample
