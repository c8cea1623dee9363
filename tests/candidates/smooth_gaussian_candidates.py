"""Smooth-sensitivity Gaussian candidates (Balle, Gomrokchi & Precup 2016, Lemma 1, main-text constants).

``fn(data, *, epsilon, delta, dim, constants="main_text", rng)`` with ``data = {theta, smooth_bound}``;
the mechanism releases theta + alpha S(X) N(0, I_d) with alpha = 5 sqrt(2 ln(2/delta)) / epsilon.
The spec's claim is (1, 0.01)-DP on a pair meeting Lemma 1's conditions (||theta - theta'|| = S(X) = 1,
S(X') = 1.02 S(X)); the main-text alpha (16.3) leaves a wide margin, so only gross bugs leak.
"""

from __future__ import annotations

import numpy as np


def _alpha(epsilon, delta):
    return 5.0 * np.sqrt(2.0 * np.log(2.0 / delta)) / epsilon


def lemma1(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Private: Lemma 1 as stated."""
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _alpha(epsilon, delta) * data["smooth_bound"] * rng.standard_normal(theta.shape)


def twice_the_noise(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Private: 2 alpha S(X) (more noise)."""
    theta = np.asarray(data["theta"], dtype=float)
    return theta + 2 * _alpha(epsilon, delta) * data["smooth_bound"] * rng.standard_normal(theta.shape)


def rounded_output(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Private: the release rounded to 3 decimals (post-processing)."""
    return np.round(lemma1(data, epsilon=epsilon, delta=delta, dim=dim, rng=rng), 3)


def alpha_left_out(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Leaky: sigma = S(X), alpha forgotten (epsilon at delta = 0.01 above 1.9 on the spec's pair)."""
    theta = np.asarray(data["theta"], dtype=float)
    return theta + data["smooth_bound"] * rng.standard_normal(theta.shape)


def exact_once_in_twenty(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Leaky: releases theta itself with probability 1/20 (an atom of mass 0.05 > delta)."""
    if rng.random() < 0.05:
        return np.asarray(data["theta"], dtype=float)
    return lemma1(data, epsilon=epsilon, delta=delta, dim=dim, rng=rng)


def fixed_seed(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Leaky: ignores rng; the noise comes from a constant seed (public)."""
    return lemma1(data, epsilon=epsilon, delta=delta, dim=dim, rng=np.random.default_rng(1234))


def a_sixth_of_the_noise(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Private: alpha S(X) / 6, less noise than the reference but enough for the claim (epsilon 0.68 at 0.01)."""
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _alpha(epsilon, delta) / 6 * data["smooth_bound"] * rng.standard_normal(theta.shape)


def a_twelfth_of_the_noise(data, *, epsilon, delta, dim, constants="main_text", rng):
    """Leaky: alpha S(X) / 12 (epsilon at delta = 0.01 is 1.64 on the spec's pair)."""
    theta = np.asarray(data["theta"], dtype=float)
    return theta + _alpha(epsilon, delta) / 12 * data["smooth_bound"] * rng.standard_normal(theta.shape)
