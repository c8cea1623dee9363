"""A mini-batch version of the GPOPE step (Xie, Thomas & Miklau 2019, Alg. 1, steps 2, 5, 6).

Round 9 corpus candidate (see truth/truth_c06_gpope_step_minibatch.py).

``noisy_batch_gradient(per_example_grads, *, num_examples, batch_size, l2_clip, noise_scale, rng)``:
a batch of ``batch_size`` of the ``num_examples`` records (sampling rate q = batch_size/num_examples),
each gradient clipped to L2 norm ``l2_clip``, summed, plus l2_clip * N(0, noise_scale^2 I).
Privacy is accounted as a sampled Gaussian with rate q (Balle et al. 2018, Thm 10 for a fixed-size
batch); the replace-one sensitivity of the clipped sum is 2 * l2_clip.
"""

import numpy as np


def _clipped(per_example_grads, l2_clip):
    g = np.asarray(per_example_grads, dtype=float)
    norm = np.linalg.norm(g, axis=1, keepdims=True)
    return g / np.maximum(1.0, norm / l2_clip)


def noisy_batch_gradient(per_example_grads, *, num_examples, batch_size, l2_clip, noise_scale, rng):
    g = _clipped(per_example_grads, l2_clip)
    batch = rng.integers(0, num_examples, size=batch_size)
    return g[batch].sum(axis=0) + l2_clip * noise_scale * rng.standard_normal(g.shape[1])


def _noisy_batch_gradient_many(per_example_grads, n, *, num_examples, batch_size, l2_clip, noise_scale, rng):
    g = _clipped(per_example_grads, l2_clip)
    batches = rng.integers(0, num_examples, size=(n, batch_size))
    return g[batches].sum(axis=1) + l2_clip * noise_scale * rng.standard_normal((n, g.shape[1]))


noisy_batch_gradient.sample = _noisy_batch_gradient_many
