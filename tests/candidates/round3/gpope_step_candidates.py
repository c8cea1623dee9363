"""Round-3 candidates for one GPOPE step (Xie, Thomas & Miklau 2019, Algorithm 1, one iteration):
sample the records, clip each sampled gradient to norm h, sum, add h N(0, sigma^2 I)."""

import numpy as np


def clip_each_coordinate(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
    """Leaky: every coordinate is clipped to [-h, h] (np.clip) instead of the vector to norm h; in d
    dimensions a clipped gradient can have norm h sqrt(d)."""
    matrix = np.asarray(gradients, dtype=float)
    poisson = sampling == "poisson"
    chosen = matrix[rng.random(records) < 1.0 / records] if poisson else matrix[[rng.integers(records)]]
    total = np.clip(chosen, -clip_norm, clip_norm).sum(axis=0)
    return total + clip_norm * noise_multiplier * rng.standard_normal(matrix.shape[1])


class poisson_vectorised:
    """Private: the Poisson-sampled step, vectorised over n releases (a mask of coins per release)."""

    def __new__(cls, gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
        return cls.sample(
            gradients,
            1,
            records=records,
            clip_norm=clip_norm,
            noise_multiplier=noise_multiplier,
            steps=steps,
            sampling=sampling,
            rng=rng,
        )[0]

    @staticmethod
    def sample(gradients, n, *, rng, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one"):
        if sampling != "poisson":
            raise ValueError("this implementation samples with Poisson coins only")
        matrix = np.asarray(gradients, dtype=float)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        clipped = matrix * np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
        mask = rng.random((n, len(matrix))) < 1.0 / records
        noise = clip_norm * noise_multiplier * rng.standard_normal((n, matrix.shape[1]))
        return mask.astype(float) @ clipped + noise
