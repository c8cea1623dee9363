"""Benchmark: vectorised batch sampling of chain trajectories vs a plain Python loop.

Run on demand:
    python -m pytest tests/benchmarks/test_rl_sampling.py -s -o addopts="--import-mode=importlib"

Both samplers draw from the same law (see dpaudit.rl.sampling); the figure reported is
the ratio of wall-clock times measured in the same process. Target (issue 3): >= 20x.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.first_visit import first_visit_estimate
from dpaudit.rl.sampling import sample_trajectories, sample_trajectory

pytestmark = pytest.mark.benchmark

N_TRAJECTORIES = 100_000


def test_batch_sampling_speedup(record) -> None:
    chain = Chain(40, "1/2", "99/100")
    mdp, policy = chain.mdp(), chain.policy()

    start = time.perf_counter()
    batch = sample_trajectories(mdp, policy, N_TRAJECTORIES, rng=1)
    batch_seconds = time.perf_counter() - start

    generator = np.random.default_rng(2)
    start = time.perf_counter()
    loop = [sample_trajectory(mdp, policy, rng=generator) for _ in range(N_TRAJECTORIES)]
    loop_seconds = time.perf_counter() - start

    start = time.perf_counter()
    first_visit_estimate(batch, 0.99, 40)
    statistics_seconds = time.perf_counter() - start

    ratio = loop_seconds / batch_seconds
    steps = int(batch.lengths.sum())
    print(
        f"\nchain N=40 p=0.5: {N_TRAJECTORIES} trajectories, {steps} steps "
        f"(loop: {sum(len(x) for x in loop)} steps)\n"
        f"batch {batch_seconds:.3f} s, loop {loop_seconds:.3f} s, speed-up {ratio:.1f}x (target >= 20x); "
        f"first-visit statistics of the batch {statistics_seconds:.3f} s"
    )
    record(
        "rl",
        "trajectory sampling: batch speed-up over a Python loop",
        ratio,
        "x",
        ">= 20x",
        ratio >= 20.0,
        f"{N_TRAJECTORIES} trajectories, batch {batch_seconds:.3f} s, loop {loop_seconds:.3f} s",
    )
