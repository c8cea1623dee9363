"""Benchmark: cost of privacy for Example 2 per k, exact greedy inner solution vs cvxpy on every LP (P).

Run on demand: ``pytest tests/benchmarks/test_cost_of_privacy.py -s``. Reports, per k, the
time of both ways measured in the same process, the speed-up (target >= 10x) and the largest
difference of the pessimistic and optimistic values (target <= 1e-8), next to the paper's
4.88 s per k (Gohari et al. 2020, Sec. VI).
"""

import time

import numpy as np
import pytest

from dpaudit.mechanisms.synthesis import cost_of_privacy, synthesize
from dpaudit.reproduce.gohari2020 import BETA, PAPER_SECONDS_PER_K
from dpaudit.rl.domains.random_mdp import random_mdp

pytestmark = pytest.mark.benchmark


@pytest.mark.parametrize("k", [1.0, 10.0, 40.0])
def test_exact_inner_solution_is_faster_and_equal(k, record):
    mdp = random_mdp(rng=0)
    result = synthesize(mdp, k, rng=1)
    start = time.perf_counter()
    for _ in range(20):
        exact = cost_of_privacy(mdp, result.policy, result.privatized.transitions, k, BETA)
    exact_seconds = (time.perf_counter() - start) / 20
    start = time.perf_counter()
    lp = cost_of_privacy(mdp, result.policy, result.privatized.transitions, k, BETA, inner="cvxpy")
    lp_seconds = time.perf_counter() - start
    difference = max(np.max(np.abs(exact.lower - lp.lower)), np.max(np.abs(exact.upper - lp.upper)))
    print(
        f"\nk={k:g}: exact {exact_seconds * 1e3:.2f} ms, cvxpy {lp_seconds:.2f} s "
        f"({2 * mdp.horizon * mdp.n_states * mdp.n_actions} LPs), speed-up {lp_seconds / exact_seconds:.0f}x, "
        f"max difference {difference:.1e}; paper {PAPER_SECONDS_PER_K} s per k"
    )
    ratio = lp_seconds / exact_seconds
    record(
        "gohari",
        f"cost of privacy, k = {k:g}: cvxpy LP time / exact inner solution",
        ratio,
        "x",
        ">= 10x",
        ratio >= 10,
        f"exact {exact_seconds * 1e3:.2f} ms, cvxpy {lp_seconds:.2f} s, max difference {difference:.1e}",
    )
    assert difference <= 1e-8
