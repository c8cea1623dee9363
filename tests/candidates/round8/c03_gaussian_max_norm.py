"""r8-c03 (gaussian, LEAKY): a vector Gaussian release calibrated with the max-norm of the per-feature
sensitivities instead of their L2 norm.

``release_means(means, generator, *, eps, delta, feature_sensitivities)`` releases the four feature means
of a small dataset (each feature clipped to [0, 1], n = 2 records, so one record moves every mean by up
to 1/n = 0.5: the caller passes feature_sensitivities = [0.5, 0.5, 0.5, 0.5]), so the L2 sensitivity is
||(0.5, 0.5, 0.5, 0.5)||_2 = 1.  The engineer wrote ``np.linalg.norm(s, ord=np.inf)``
("the largest change of one coordinate") = 0.5 and calibrates
sigma = 0.5 sqrt(2 ln(1.25/delta)) / eps = 2.4224 instead of 4.8448.

Claim: (1, 1e-5)-DP under ||f(X) - f(X')||_2 <= 1 (the correct sigma 4.8448).

Truth.  mu = 1 / 2.4224 = 0.41282; exact epsilon at delta = 1e-5 (Balle & Wang 2018, Thm 8) = 1.61032
> 1 (+61%).  Witness: f(X) = (0, 0, 0, 0), f(X') = (0.5, 0.5, 0.5, 0.5) (or any shift of L2 norm 1).
truth/truth.py computes it.
"""

import numpy as np


def _sigma(eps, delta, feature_sensitivities):
    sensitivity = float(np.linalg.norm(np.asarray(feature_sensitivities, dtype=float), ord=np.inf))
    return sensitivity * np.sqrt(2.0 * np.log(1.25 / delta)) / eps


def release_means(means, generator, *, eps, delta, feature_sensitivities):
    means = np.asarray(means, dtype=float)
    return means + _sigma(eps, delta, feature_sensitivities) * generator.standard_normal(means.shape)


def _release_many(means, n, generator, *, eps, delta, feature_sensitivities):
    means = np.asarray(means, dtype=float)
    return means + _sigma(eps, delta, feature_sensitivities) * generator.standard_normal((n, *means.shape))


release_means.sample = _release_many
