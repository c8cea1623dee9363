"""Round-3 smooth-sensitivity Gaussian candidates (Balle, Gomrokchi & Precup 2016, Lemma 1, main text:
theta + alpha S(X) N(0, I) with alpha = 5 sqrt(2 ln(2/delta)) / epsilon)."""

import math

import numpy as np
from scipy import special


def _alpha(epsilon, delta):
    return 5.0 * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon


def bound_rounded_to_power_of_two(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Leaky: S(X) is rounded down to a power of two 'so the noise scale can be cached'. Two smooth
    bounds a hair apart on either side of 2^j get noise scales a factor 2 apart, which Lemma 1 (b)
    (|ln S(X) - ln S(X')| <= beta / 2) was there to prevent."""
    bucket = 2.0 ** math.floor(math.log2(float(data["smooth_bound"])))
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _alpha(epsilon, delta) * bucket * rng.standard_normal(theta.shape)


class inverse_cdf_vectorised:
    """Private: Lemma 1 as stated, the normal draws made by the inverse CDF of uniforms, with a
    vectorised entry point."""

    def __new__(cls, data, *, epsilon, delta, dim, constants="main_text", rng):
        return cls.sample(data, 1, epsilon=epsilon, delta=delta, dim=dim, rng=rng)[0]

    @staticmethod
    def sample(data, n, *, rng, epsilon, delta, dim, constants="main_text"):
        theta = np.asarray(data["theta"], dtype=float)
        uniforms = rng.random((n, theta.size))
        uniforms = np.where(uniforms == 0.0, np.nextafter(0.0, 1.0), uniforms)
        normals = special.ndtri(uniforms)
        return theta + _alpha(epsilon, delta) * float(data["smooth_bound"]) * normals
