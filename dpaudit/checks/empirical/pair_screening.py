"""Which neighbouring pairs a black-box audit samples beyond their pilot, when it has more than it keeps.

Each pair's pilot gives a score: the largest of its events' 99.9% ε lower bounds on the pilot alone (a
ranking; the later phases draw afresh). When the pilots are of one length, the best scores are kept.
Pilots may differ (the first pairs a user gives get the whole pilot, later ones fewer draws), and a score
from more draws is tighter: the first pairs would win wherever the leak is. So the pairs are ranked on
the shortest pilot's number of draws, except that the pair whose whole pilot already certifies more than
the claimed ε (a rare-event leak that shows only on many draws) is kept first. Of the screened pairs
(``draws_cap``: the input search's) one at most competes, on its own pilot: the best, and only when its
score exceeds the claimed ε; their shorter pilots do not set the length the others are ranked on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dpaudit.checks.empirical.sampling import NeighbourPair

__all__ = ["kept_pairs"]


def kept_pairs(
    pairs: Sequence[NeighbourPair],
    lengths: Sequence[int],
    score: Callable[[int, int | None], float],
    keep: int,
    epsilon: float | None,
) -> list[int]:
    """The indices of the pairs sampled further, in index order: all of them, or with more than ``keep`` the
    best (see the module docstring; ties to the lower index).

    Args:
        pairs: the pairs, with their ``draws_cap`` (screened).
        lengths: each pair's pilot draws per side.
        score: ``score(i, n)``, pair i's score on its first ``n`` pilot draws (``None``: all of them).
        keep: how many pairs are kept.
        epsilon: the claimed ε (0 without one), the bar a screened pair's score must pass.
    """
    screened = [i for i, pair in enumerate(pairs) if pair.draws_cap is not None]
    if len(pairs) <= keep and not screened:
        return list(range(len(pairs)))
    floor = 0.0 if epsilon is None else epsilon
    whole = [score(i, None) for i in range(len(pairs))]
    eligible = [i for i in range(len(pairs)) if i not in screened]
    best = min(screened, key=lambda i: (-whole[i], i), default=None)
    if best is not None and whole[best] > floor:
        eligible.append(best)
    shortest = min((lengths[i] for i in eligible if i not in screened), default=0)
    if all(lengths[i] <= shortest for i in eligible if i not in screened):
        return sorted(sorted(eligible, key=lambda i: (-whole[i], i))[:keep])
    equal = {i: whole[i] if i in screened else score(i, shortest) for i in eligible}
    leader = min(eligible, key=lambda i: (-whole[i], i))
    kept = [leader] if whole[leader] > floor else []  # a pilot that shows the leak on its own draws
    kept += [i for i in sorted(eligible, key=lambda i: (-equal[i], i)) if i not in kept]
    return sorted(kept[:keep])
