"""Gaussian mechanism using Python's random module, reseeded from the clock on every call."""

import random
import time

import numpy as np


def gaussian(value, *, sigma, sensitivity, rng):
    random.seed(int(time.time()))
    return np.array([v + random.gauss(0.0, sigma) for v in value])
