"""How many certification draws a claim needs: sized after the selection, before any certification draw.

The selection phase has fixed the events. Its counts of the best one (the largest ε lower bound the
selection's counts certify; one pseudo-count on the q side) say how often the event occurs on its
q side; a mechanism whose true ε on that event exceeded the claim by :data:`EXCESS` (at least
:data:`MIN_EXCESS`) would put p = e^(ε + excess) q + δ on its p side. The certification gets the
fewest draws per side (doubled from its share of ``samples``, up to a ceiling) whose counts, at
the :data:`POWER` quantiles of their binomial laws (√POWER on each side, the sides being
independent), would certify more than the claim at the error each bound gets.

The size depends only on draws the certification does not reuse, so every certified bound keeps
its confidence; escalation then grows from the sized count.

References:
    Clopper & Pearson 1934 (the bounds); Jagielski, Ullman & Oprea 2020 (auditing by events).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dpaudit._lazy import lazy_module
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper

stats = lazy_module("scipy.stats")

__all__ = ["EXCESS", "MIN_EXCESS", "POWER", "SelectionCounts", "Sizing", "size_certification"]

#: The relative ε excess the sizing aims to refute, and its absolute floor (a claim of ε = 0).
EXCESS = 0.05
MIN_EXCESS = 0.01
#: The probability with which the sized counts refute such an excess.
POWER = 0.8


@dataclass(frozen=True)
class SelectionCounts:
    """An event's counts on the selection split: ``p_count`` and ``q_count`` of ``trials`` per side, and
    the ε lower bound the selection certified for it (``score``)."""

    p_count: int
    q_count: int
    trials: int
    score: float


@dataclass(frozen=True)
class Sizing:
    """The certification draws per side and why: the q frequency sized for, the ε aimed at, and
    whether the ceiling stopped the growth before that ε was refutable."""

    draws: int
    q_frequency: float
    target_epsilon: float
    reached: bool

    def text(self) -> str:
        """The sizing in words, for the evidence's method."""
        aim = (
            f"an epsilon of {self.target_epsilon:.4g} on the selection's best event (its q side's selection "
            f"frequency {self.q_frequency:.3g}, one pseudo-count added) refuted with probability at least {POWER:g}"
        )
        if self.reached:
            return f"certification sized to {self.draws} draws per side: {aim}"
        return f"certification sized to its ceiling, {self.draws} draws per side (too few for {aim})"


def _refutable(n: int, p: float, q: float, epsilon: float, delta: float, alpha: float) -> bool:
    """Whether the counts of ``n`` draws at the POWER quantiles (p low, q high) certify more than ``epsilon``."""
    quantile = math.sqrt(POWER)
    p_count = int(stats.binom.ppf(1.0 - quantile, n, p))
    q_count = int(stats.binom.ppf(quantile, n, q))
    p_lower = clopper_pearson_lower(min(max(p_count, 0), n), n, alpha)
    q_upper = clopper_pearson_upper(min(max(q_count, 0), n), n, alpha)
    return p_lower - delta > math.exp(epsilon) * q_upper


def size_certification(
    counts: Sequence[SelectionCounts], *, epsilon: float, delta: float, alpha: float, floor: int, ceiling: int
) -> Sizing | None:
    """The certification draws per side for the most promising of ``counts`` (see the module
    docstring): ``floor`` doubled until refutable, at most ``ceiling``; ``None`` when there is nothing to
    size (no events, a ceiling at or below the floor, or an event too frequent on its q side to hold
    the excess: e^(ε + excess) q + δ >= 1)."""
    if not counts or ceiling <= floor:
        return None
    best = max(counts, key=lambda item: (item.score, -item.q_count))
    q = min((best.q_count + 1) / best.trials, 1.0)
    target = epsilon + max(EXCESS * epsilon, MIN_EXCESS)
    p = math.exp(target) * q + delta
    if p >= 1.0:
        return None
    n = floor
    while not _refutable(n, p, q, epsilon, delta, alpha):
        if n >= ceiling:
            return Sizing(ceiling, q, target, False)
        n = min(2 * n, ceiling)
    return Sizing(n, q, target, True)
