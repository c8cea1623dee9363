"""One noisy GPOPE gradient step: ``fn(gradients, *, records, clip_norm, noise_multiplier, steps,
sampling, rng)``.

Xie, Thomas, Miklau 2019, Algorithm 1, steps 2, 5, 6: pick the data used in this iteration,
clip each per-record gradient B_i to L2 norm h (B̄_i = B_i / max(1, ‖B_i‖/h)), and release the
clipped gradient plus h·ζ with ζ ~ N(0, σ² I). Under ``sampling = "poisson"`` (the model of the
proof of Lemma 1) every record is used independently with probability q = 1/m and the release is
Σ_{i used} B̄_i + h ζ. The spec ``specs/gpope_step.toml`` audits m = 8, h = 2, σ = 1
against the claim (0.95, 1e-3)-DP under replace-one (exact ε 0.9466: truth.py, the mixture
(1−q)N(0) + qN(+h) against (1−q)N(0) + qN(−h) in units of hσ).

Private candidates implement the same law, a post-processing of it, or more noise; leaky ones
have a privacy bug named in their docstring.
"""

from __future__ import annotations

import numpy as np


def _records(gradients, records):
    g = np.asarray(gradients, dtype=np.float64)
    if g.ndim != 2 or g.shape[0] != records:
        raise ValueError(f"expected {records} per-record gradients, got shape {g.shape}")
    return g


def _clip(g, h):
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    return g / np.maximum(1.0, norms / h)


def _poisson_mask(m, rng):
    return rng.random(m) < 1.0 / m


# --------------------------------------------------------------------------- private


def loop_over_records(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Private. Algorithm 1 written as a loop: for each record, a coin with probability 1/m decides
    whether its clipped gradient joins the sum; then h·N(0, σ² I) is added. ``uniform_one`` draws one
    record instead (Algorithm 1, step 2 as printed)."""
    g = _records(gradients, records)
    h = clip_norm
    total = np.zeros(g.shape[1])
    if sampling == "uniform_one":
        i = int(rng.integers(records))
        row = g[i]
        total += row / max(1.0, float(np.linalg.norm(row)) / h)
    else:
        for i in range(records):
            if rng.random() < 1.0 / records:
                row = g[i]
                total += row / max(1.0, float(np.linalg.norm(row)) / h)
    return total + h * noise_multiplier * rng.standard_normal(g.shape[1])


class vectorised:  # a callable class with a ``sample`` attribute, named like a function
    """Private. The Poisson-sampled step with a vectorised ``sample`` entry point (a 0/1 mask matrix
    times the clipped gradients)."""

    def __new__(cls, gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
        return cls.sample(
            gradients, 1, rng=rng, records=records, clip_norm=clip_norm, noise_multiplier=noise_multiplier
        )[0]

    @staticmethod
    def sample(gradients, n, *, rng, records, clip_norm, noise_multiplier, steps=1, sampling="poisson"):
        clipped = _clip(_records(gradients, records), clip_norm)
        mask = (rng.random((n, records)) < 1.0 / records).astype(np.float64)
        noise = clip_norm * noise_multiplier * rng.standard_normal((n, clipped.shape[1]))
        return mask @ clipped + noise


def batch_size_then_subset(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Private (equivalent code). Poisson sampling drawn as a batch size K ~ Binomial(m, 1/m) followed
    by a uniformly random subset of size K: the same law as independent coins."""
    clipped = _clip(_records(gradients, records), clip_norm)
    size = int(rng.binomial(records, 1.0 / records))
    chosen = rng.choice(records, size=size, replace=False)
    return clipped[chosen].sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])


def more_noise(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Private (more noise). Noise multiplier 1.5 σ: exact ε 0.443 at δ = 1e-3 (truth.py)."""
    clipped = _clip(_records(gradients, records), clip_norm)
    mask = _poisson_mask(records, rng)
    noise = 1.5 * clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])
    return clipped[mask].sum(axis=0) + noise


def rounded_output(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Private (post-processing). The noisy gradient is rounded to 3 decimals before it is applied."""
    clipped = _clip(_records(gradients, records), clip_norm)
    mask = _poisson_mask(records, rng)
    noisy = clipped[mask].sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])
    return np.round(noisy, 3)


def clip_by_rescaling(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Private (equivalent code). Clips with g · min(1, h/‖g‖) (0 stays 0), the same map as
    g / max(1, ‖g‖/h)."""
    g = _records(gradients, records)
    norms = np.linalg.norm(g, axis=1)
    factors = np.ones_like(norms)
    big = norms > clip_norm
    factors[big] = clip_norm / norms[big]
    clipped = g * factors[:, None]
    mask = _poisson_mask(records, rng)
    return clipped[mask].sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(g.shape[1])


# --------------------------------------------------------------------------- leaky


def no_clipping(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: forgets step 5 (no clipping): the sensitivity is unbounded. A gradient far away is
    seen with probability q = 1/8 > δ, so ε = inf."""
    g = _records(gradients, records)
    mask = _poisson_mask(records, rng)
    return g[mask].sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(g.shape[1])


def clips_to_twice_h(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: clips to 2h but calibrates the noise for h: exact ε 4.238 at δ = 1e-3."""
    clipped = _clip(_records(gradients, records), 2.0 * clip_norm)
    mask = _poisson_mask(records, rng)
    return clipped[mask].sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])


def noise_not_scaled_by_h(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: adds ζ ~ N(0, σ² I) instead of h ζ (h = 2): the noise is half what the clipping
    needs, exact ε 4.238 at δ = 1e-3 (the same law as clipping to 2h)."""
    clipped = _clip(_records(gradients, records), clip_norm)
    mask = _poisson_mask(records, rng)
    return clipped[mask].sum(axis=0) + noise_multiplier * rng.standard_normal(clipped.shape[1])


def full_batch(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: uses every record in every step (no sampling) with the noise calibrated for the
    sampled step: no amplification, a Gaussian with Δ/σ = 2h/(hσ) = 2, exact ε 7.581 at δ = 1e-3."""
    clipped = _clip(_records(gradients, records), clip_norm)
    return clipped.sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])


def sampling_rate_doubled(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: samples each record with probability 2/m (an off-by-factor in the rate):
    exact ε 1.753 at δ = 1e-3."""
    clipped = _clip(_records(gradients, records), clip_norm)
    mask = rng.random(records) < 2.0 / records
    return clipped[mask].sum(axis=0) + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])


def ignores_sampling_parameter(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: ignores ``sampling`` and always draws exactly one record uniformly (Algorithm 1,
    step 2 as printed). Then every release is some record's clipped gradient plus noise, and with
    the other records at −h e and the replaced one moving from +h e to −h e, ε >= 4.105 at δ = 1e-3
    (truth.py), far above the Poisson claim."""
    clipped = _clip(_records(gradients, records), clip_norm)
    i = int(rng.integers(records))
    return clipped[i] + clip_norm * noise_multiplier * rng.standard_normal(clipped.shape[1])


def fixed_seed(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="poisson", rng):
    """Leaky. BUG: a module-level habit, ``np.random.default_rng(0)`` inside the step, ignoring ``rng``:
    the sampling and the noise are the same on every call, so the release determines the data
    (ε = inf)."""
    own = np.random.default_rng(0)
    clipped = _clip(_records(gradients, records), clip_norm)
    mask = _poisson_mask(records, own)
    return clipped[mask].sum(axis=0) + clip_norm * noise_multiplier * own.standard_normal(clipped.shape[1])
