"""The sweep's enclosure of the smallest exact relative margin: every pair within the guard band is taken
exactly, the others at their float margin less the screen's error, and the implementation's float inputs
widen both ends; the true minimum is inside and the lower end decides the verdict."""

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.checks.sensitivity.pair_sweep import SCREEN_RELATIVE_ERROR, Comparison, sweep_pairs
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import chain_universe


@pytest.fixture(scope="module")
def universe():
    return chain_universe(3, "1/2", "1/2", 3)


@dataclass(frozen=True)
class NearBound:
    """measured = 1 − gap (bound 1) when X starts with profile 0, else 1/2: a tight pair below the screen's error."""

    gap: Fraction
    name: str = "near_bound"
    input_variation: Fraction = Fraction(0)

    def _measured(self, first_profile):
        return Fraction(1) - self.gap if first_profile == 0 else Fraction(1, 2)

    def screen(self, block):
        tight = np.where(block.left.rows[:, :, 0] == 0, float(1 - self.gap), 0.5)[:, :, None]
        measured = np.broadcast_to(tight, block.mask.shape).copy()
        return measured, np.ones_like(measured)

    def exact(self, left, right):
        return Comparison.of(self._measured(left[0]), Fraction(1))


@dataclass(frozen=True)
class IntegerCounts:
    name: str = "integers"
    screen_is_exact: bool = True

    def screen(self, block):
        return np.ones(block.mask.shape), np.ones(block.mask.shape)

    def exact(self, left, right):
        return Comparison.of(Fraction(1), Fraction(1))


def test_a_pair_tighter_than_the_screen_error_is_taken_exactly(universe):
    gap = Fraction(1, 10**12)  # below the screen's error 1e-11: only the exact re-check keeps low >= 0
    result = sweep_pairs(NearBound(gap), universe, "replace_one", 2)
    low, high = result.relative_margin_enclosure
    assert result.holds and result.flagged > 0
    assert 0 <= low <= gap <= high and high - low < Fraction(1, 10**30)


def test_without_a_pair_in_the_guard_band_the_screen_error_widens_the_lower_end(universe):
    result = sweep_pairs(NearBound(Fraction(1, 2)), universe, "replace_one", 2)
    low, high = result.relative_margin_enclosure
    assert result.flagged == 0
    assert low == Fraction(1, 2) - SCREEN_RELATIVE_ERROR
    assert Fraction(1, 2) <= high < Fraction(1, 2) + Fraction(1, 10**30)


def test_the_implementations_inputs_widen_both_ends(universe):
    variation = Fraction(1, 10**6)
    result = sweep_pairs(NearBound(Fraction(1, 2), input_variation=variation), universe, "replace_one", 2)
    low, high = result.relative_margin_enclosure
    assert low == Fraction(1, 2) - SCREEN_RELATIVE_ERROR - variation and high > Fraction(1, 2) + variation


def test_an_exact_screen_encloses_a_zero_margin_at_zero(universe):
    low, high = sweep_pairs(IntegerCounts(), universe, "add_remove_one", 2).relative_margin_enclosure
    assert low == 0 and 0 <= high < Fraction(1, 10**30)
