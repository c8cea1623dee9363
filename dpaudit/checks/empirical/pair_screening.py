"""Which neighbouring pairs a black-box audit samples beyond their pilot, when it has more than it keeps.

Each pair's pilot gives a score: the largest of its events' 99.9% ε lower bounds on the pilot alone (a
ranking; the later phases draw afresh). Pilots differ in length (the first pairs a user gives get the
whole pilot, later ones and the input search's fewer draws), and a score from more draws is tighter, so
two rankings are interleaved: by each pair's score on its whole pilot (a rare-event leak resolves only
on many draws) and by its score on the shortest pilot's draws (equal footing: the first pairs do not win
wherever the leak is). Of the screened pairs (``draws_cap``) one at most competes: the best, and only
when its score exceeds the claimed ε.
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
    best by the interleaved rankings (ties to the lower index).

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
    whole = [score(i, None) for i in range(len(pairs))]
    eligible = [i for i in range(len(pairs)) if i not in screened]
    best = min(screened, key=lambda i: (-whole[i], i), default=None)
    if best is not None and whole[best] > (0.0 if epsilon is None else epsilon):
        eligible.append(best)
    rankings = [sorted(eligible, key=lambda i: (-whole[i], i))]
    shortest = min(lengths[i] for i in eligible)
    if any(lengths[i] > shortest for i in eligible):
        equal = {i: score(i, shortest) for i in eligible}
        rankings.append(sorted(eligible, key=lambda i: (-equal[i], i)))
    kept: list[int] = []
    for row in zip(*rankings, strict=True):
        kept += [i for i in dict.fromkeys(row) if i not in kept]
    return sorted(kept[:keep])
