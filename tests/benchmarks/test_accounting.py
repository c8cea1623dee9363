"""Benchmark: ε(δ = 1e-5) after 10^4 Poisson-subsampled Gaussian steps (q = 0.01, σ = 1.1).

Run on demand: ``pytest tests/benchmarks/test_accounting.py -s``. Reports the PLD interval
width relative to ε, and the time relative to dp-accounting's PLD accountant measured in
the same process (target: width <= 1% of ε, time within 3x).
"""

import time

import pytest

from dpaudit.privacy.accounting.mixtures import GaussianMixture, OutputPair
from dpaudit.privacy.accounting.pld import compose_pairs

pytestmark = pytest.mark.benchmark


def _best_of(function, repeats=3):
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        timings.append(time.perf_counter() - start)
    return result, min(timings)


def test_pld_epsilon_width_and_time_against_dp_accounting():
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import pld

    q, sigma, steps, delta = 0.01, 1.1, 10_000, 1e-5
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )

    def peer():
        accountant = pld.PLDAccountant()
        accountant.compose(event)
        return accountant.get_epsilon(delta)

    pair = OutputPair(GaussianMixture.two_point(q, 1.0, 0.0, sigma), GaussianMixture.gaussian(0.0, sigma))

    def ours():
        return compose_pairs([pair, pair.reversed()], steps, interval=1e-4).epsilon(delta)

    peer_epsilon, peer_time = _best_of(peer)
    interval, our_time = _best_of(ours)
    width = (interval.upper - interval.lower) / interval.upper
    print(
        f"\nepsilon in [{interval.lower:.6f}, {interval.upper:.6f}] (width {width:.2e} of eps); "
        f"dp-accounting {peer_epsilon:.6f}; time {our_time:.3f}s vs {peer_time:.3f}s = {our_time / peer_time:.2f}x"
    )
    assert width <= 0.01
    assert interval.lower <= peer_epsilon
    print(
        f"time vs peer: {our_time / peer_time:.2f}x (target <= 3x: {'met' if our_time <= 3 * peer_time else 'not met'})"
    )
