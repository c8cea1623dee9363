"""Benchmark: exact-rational pair checks vs the float64 vectorised pre-screen (Balle et al. 2016 statements).

Run on demand:
    python -m pytest tests/benchmarks/test_exact_enumeration.py -s -o addopts="--import-mode=importlib"

Throughputs (ordered neighbouring pairs per second) are measured in the same process on the
DP-LSW / DP-LSL spec parameters over the chain with 4 non-absorbing states, horizon cap 5,
datasets of 1..3 trajectories. Target (issue 5): the pre-screen is >= 50x faster, and every
pair it flags or that lies within 1e-9 relative of the bound is re-checked exactly.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from fractions import Fraction

import pytest

from dpaudit.checks.sensitivity.exact_setting import _Setting
from dpaudit.checks.sensitivity.pair_sweep import pair_blocks, sweep_pairs
from dpaudit.checks.sensitivity.statements import LslCorollary8, LswCorollary3, LswParameters, mechanism_problem
from dpaudit.mechanisms.policy_evaluation.private import DPLSL, DPLSW
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import chain_universe

pytestmark = pytest.mark.benchmark

LSW = {"n_states": 5, "features": "tabular", "gamma": 0.5, "r_max": 1.0, "epsilon": 1.0, "delta": 0.1}
EXACT_PAIRS = 3000


def _exact_throughput(statement, universe, relation, m_max):
    pairs = []
    for block in pair_blocks(universe, relation, m_max, chunk=8):
        for b, p, q in itertools.product(*(range(n) for n in block.mask.shape)):
            if block.mask[b, p, q]:
                pairs.append(block.pair(b, p, q))
            if len(pairs) >= EXACT_PAIRS:
                break
        if len(pairs) >= EXACT_PAIRS:
            break
    start = time.perf_counter()
    for left, right in pairs:
        statement.exact(left, right)
    return len(pairs) / (time.perf_counter() - start)


@pytest.mark.parametrize(
    "label, make",
    [
        ("LSW Corollary 3", lambda u: LswCorollary3(_Setting(u, mechanism_problem(DPLSW(**LSW))))),
        ("LSW parameters (eq. 13)", lambda u: LswParameters(_Setting(u, mechanism_problem(DPLSW(**LSW))))),
        ("LSL Corollary 8", lambda u: LslCorollary8(_Setting(u, mechanism_problem(DPLSL(**LSW, lam=2.0))))),
    ],
)
def test_prescreen_speedup(label, make) -> None:
    universe = chain_universe(5, "1/2", "1/2", 5)
    statement = make(universe)
    exact = _exact_throughput(statement, universe, "replace_one", 3)
    start = time.perf_counter()
    result = sweep_pairs(statement, universe, "replace_one", 3)
    screen = result.pairs / (time.perf_counter() - start)
    print(
        f"\n{label}: exact {exact:,.0f} pairs/s, float pre-screen {screen:,.0f} pairs/s "
        f"({result.pairs:,} pairs), ratio {screen / exact:,.0f}x"
    )
    assert result.holds is True
    print(
        f"float screen / exact: {screen / exact:.0f}x (target >= 50x: {'met' if screen >= 50 * exact else 'not met'})"
    )


def test_every_near_bound_pair_is_rechecked_exactly() -> None:
    """Scale Corollary 3's constant so the tightest pair sits 2e-12 inside the bound.

    Every flagged pair is re-checked."""
    universe = chain_universe(5, "1/2", "1/2", 4)
    problem = mechanism_problem(DPLSW(**LSW))
    honest = sweep_pairs(LswCorollary3(_Setting(universe, problem)), universe, "replace_one", 3)
    ratio = honest.tightest.measured / honest.tightest.bound
    scale = Fraction(math.sqrt(ratio)) * (1 + Fraction(1, 10**12))
    squeezed = _Setting(universe, dataclasses.replace(problem, r_max=problem.r_max * scale))
    result = sweep_pairs(LswCorollary3(squeezed), universe, "replace_one", 3)
    print(
        f"\nsqueezed Corollary 3: {result.pairs:,} pairs, {result.flagged} flagged, "
        f"{result.exact_checks} exact checks, "
        f"tightest exact margin {float(result.tightest.margin):.3g}"
    )
    assert result.flagged >= 1
    assert result.holds is True
    assert result.exact_checks == result.flagged + 1
