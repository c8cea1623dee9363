"""Local randomized response for a multiple-choice survey question.

With probability p = e^eps / (e^eps + k - 1) the respondent's true answer is reported;
otherwise a random answer is reported, drawn uniformly from the k options.
"""

import math


def randomize_answer(answer, *, epsilon, categories, rng):
    options = list(categories)
    if answer not in options:
        raise ValueError(f"unknown answer {answer!r}")
    k = len(options)
    keep = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    if rng.random() < keep:
        return answer
    return options[int(rng.integers(k))]
