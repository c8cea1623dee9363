"""Candidates used by the candidate-runner tests: good and misbehaving."""

import functools
import time

import numpy as np


def gaussian(value, sigma, *, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(np.shape(value))


def sleeps_forever(value, sigma, *, rng):
    while True:
        time.sleep(1)


def raises(value, sigma, *, rng):
    raise RuntimeError("planted failure in the candidate")


def returns_nan(value, sigma, *, rng):
    return np.full(np.shape(value), np.nan)


def wrong_shapes(value, sigma, *, rng):
    return np.zeros(int(rng.integers(1, 3)))


def eats_memory(value, sigma, *, rng):
    return np.ones(2 * 1024**3 // 8)[:1]


NOT_CALLABLE = 3


def good_gaussian(value, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + sigma * rng.standard_normal(len(value))


def halved_gaussian(value, *, sigma, sensitivity, rng):
    return np.asarray(value, dtype=float) + 0.5 * sigma * rng.standard_normal(len(value))


def hanging_gaussian(value, *, sigma, sensitivity, rng):
    while True:
        time.sleep(1)


def raising_gaussian(value, *, sigma, sensitivity, rng):
    raise ValueError("planted bug in the candidate gaussian")


@functools.lru_cache(maxsize=64)
def _dp_lsw_view(dataset_key, params_key):
    from dpaudit.mechanisms.policy_evaluation.private import DPLSW
    from dpaudit.rl import Trajectory

    trajectories = tuple(
        Trajectory(tuple(int(s) for s, _, _ in x), tuple(int(a) for _, a, _ in x), tuple(r for _, _, r in x))
        for x in dataset_key
    )
    return DPLSW(**dict(params_key)).gaussian_view(trajectories)


def _view(dataset, params):
    dataset_key = tuple(tuple(tuple(step) for step in x) for x in dataset)
    return _dp_lsw_view(dataset_key, tuple(sorted(params.items())))


def reference_dp_lsw(dataset, *, rng, **params):
    theta, sigma = _view(dataset, params)
    return theta + sigma * rng.standard_normal(theta.shape)


def noisy_half_dp_lsw(dataset, *, rng, **params):
    theta, sigma = _view(dataset, params)
    return theta + 0.5 * sigma * rng.standard_normal(theta.shape)
