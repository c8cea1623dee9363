"""A user's randomized response, audited as a candidate of the plugin mechanism."""

import math


def randomized_response(bit, *, epsilon, rng):
    keep = 1.0 / (1.0 + math.exp(-epsilon))
    value = float(bit[0])
    return [value if rng.random() < keep else 1.0 - value]


def leaky_response(bit, *, epsilon, rng):
    keep = 1.0 / (1.0 + math.exp(-2.0 * epsilon))
    value = float(bit[0])
    return [value if rng.random() < keep else 1.0 - value]
