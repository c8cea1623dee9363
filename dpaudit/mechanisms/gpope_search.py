"""The input search of end-to-end GPOPE: transition tables the spec did not name.

A spec's pair usually changes one trajectory's rewards. The trajectory that differs can
also be pushed to the edges of what GPOPE's domain allows, where an implementation that
skips a step of Algorithm 1 leaks: its rewards far beyond what the clipping norm h bounds
(a missing or misplaced clip), zero or negated; one step or the longest trajectory seen (a
normalisation by the length that goes wrong); every transition into a terminal state with no
reward; importance weights ρ at the largest seen and at 0; and the other trajectories all
copies of one shortest unrewarded trajectory (every gradient zero but the differing one's, so
noise scaled by the data shows). Every proposal has the trajectory counts of the spec's pair
(so ``records`` and the relation hold), the spec's feature dimension and discount, and, under
``normalisation = 'paper'``, no one-step trajectory (eq. (2.2) divides by τ_i = length − 1).

References:
    Xie, Thomas, Miklau 2019, Algorithm 1 (steps 2, 5, 6), eq. (2.2), eq. (4.1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpaudit.errors import DpAuditError
from dpaudit.mechanisms.gtd2 import TransitionTable
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation

__all__ = ["SEARCH_REWARD_FACTOR", "explore_tables"]

#: The far rewards are this many times the largest of the rewards seen and the clipping norm h:
#: beyond anything the clip lets through (the reference's domain bounds no reward).
SEARCH_REWARD_FACTOR = 1e3


@dataclass(frozen=True)
class _Trajectory:
    """One trajectory's rows of a transition table."""

    phi: np.ndarray
    phi_next: np.ndarray
    rewards: np.ndarray
    rho: np.ndarray

    def key(self) -> tuple[float, ...]:
        return tuple(float(v) for part in (self.phi, self.phi_next, self.rewards, self.rho) for v in np.ravel(part))

    def rewarded(self, reward: float) -> _Trajectory:
        return replace(self, rewards=np.full(self.rewards.shape, float(reward)))

    def steps(self, length: int) -> _Trajectory:
        """Its steps repeated in turn (or cut) to ``length`` steps."""
        index = np.arange(length) % self.rewards.size
        return _Trajectory(self.phi[index], self.phi_next[index], self.rewards[index], self.rho[index])


@dataclass(frozen=True)
class _Split:
    """A neighbouring pair as the common trajectories, the position of the one that differs, and
    that trajectory: under replace-one X's (``differing``) and the one replacing it in X'
    (``partner``); under add/remove-one the added one (``partner`` is ``None``, and
    ``added_to_first`` says whether X is the larger table)."""

    others: list[_Trajectory]
    index: int
    differing: _Trajectory
    partner: _Trajectory | None
    added_to_first: bool
    gamma: float


def _trajectories(plain: Any) -> tuple[list[_Trajectory], float] | None:
    try:
        table = plain if isinstance(plain, TransitionTable) else TransitionTable(**plain)
    except (DpAuditError, TypeError, ValueError):
        return None
    bounds = zip(table.offsets[:-1], table.offsets[1:], strict=True)
    found = [
        _Trajectory(table.phi[lo:hi], table.phi_next[lo:hi], table.rewards[lo:hi], table.rho[lo:hi])
        for lo, hi in bounds
    ]
    return found, float(table.gamma)


def _plain(trajectories: Sequence[_Trajectory], gamma: float) -> dict[str, Any]:
    lengths = [t.rewards.size for t in trajectories]
    return {
        "phi": np.vstack([t.phi for t in trajectories]).tolist(),
        "phi_next": np.vstack([t.phi_next for t in trajectories]).tolist(),
        "rewards": np.concatenate([t.rewards for t in trajectories]).tolist(),
        "rho": np.concatenate([t.rho for t in trajectories]).tolist(),
        "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(int).tolist(),
        "gamma": gamma,
    }


def _extra(larger: list[_Trajectory], smaller: list[_Trajectory]) -> list[int]:
    """Positions in ``larger`` of the trajectories ``smaller`` does not have (as multisets)."""
    left = Counter(t.key() for t in smaller)
    positions = []
    for index, trajectory in enumerate(larger):
        key = trajectory.key()
        if left[key] > 0:
            left[key] -= 1
        else:
            positions.append(index)
    return positions


def _split(first: Any, second: Any, relation: Relation) -> _Split | None:
    """The spec's pair as common trajectories and the differing one; ``None`` when it is not one
    step of the relation apart (or not a pair of tables)."""
    a, b = _trajectories(first), _trajectories(second)
    if a is None or b is None or a[1] != b[1] or a[0][0].phi.shape[1] != b[0][0].phi.shape[1]:
        return None
    (x, gamma), (y, _) = a, b
    only_x, only_y = _extra(x, y), _extra(y, x)
    if relation.kind == REPLACE_ONE and len(only_x) == len(only_y) == 1:
        index = only_x[0]
        return _Split([t for i, t in enumerate(x) if i != index], index, x[index], y[only_y[0]], True, gamma)
    if relation.kind == ADD_REMOVE_ONE and sorted((len(only_x), len(only_y))) == [0, 1]:
        larger, (index,) = (x, only_x) if only_x else (y, only_y)
        others = [t for i, t in enumerate(larger) if i != index]
        return _Split(others, index, larger[index], None, bool(only_x), gamma)
    return None


_Case = tuple["_Trajectory | None", "_Trajectory | None", list["_Trajectory"], str]


@dataclass(frozen=True)
class _Proposal:
    """What every case around one split pair is built from: the differing (or added) trajectory and its
    partner, the shortest seen trajectory unrewarded (copied for the others), a terminal one, its first
    step, and the scales (a reward far beyond the clipping norm, the largest seen, the largest weight,
    the longest length)."""

    base: _Trajectory
    other: _Trajectory
    copies: list[_Trajectory]
    terminal: _Trajectory
    first_step: _Trajectory
    far: float
    largest: float
    weight: float
    longest: int
    clip_norm: float

    @property
    def steps(self) -> str:
        return f"{self.longest} step" + ("s" if self.longest > 1 else "")


def _proposal(split: _Split, seen: list[_Trajectory], params: Mapping[str, Any]) -> _Proposal:
    clip = params.get("clip_norm", 1.0)
    clip_norm = float(clip) if isinstance(clip, int | float) and not isinstance(clip, bool) and clip > 0 else 1.0
    largest = max(float(np.abs(t.rewards).max()) for t in seen)
    base = split.differing
    shortest = min(seen, key=lambda t: t.rewards.size).rewarded(0.0)
    return _Proposal(
        base=base,
        other=split.partner or base,
        copies=[shortest] * len(split.others),
        terminal=replace(base, phi_next=np.zeros_like(base.phi_next)).rewarded(0.0),
        first_step=base.steps(1),
        far=SEARCH_REWARD_FACTOR * max(largest, clip_norm),
        largest=largest,
        weight=max(float(t.rho.max()) for t in seen),
        longest=max(t.rewards.size for t in seen),
        clip_norm=clip_norm,
    )


def _replace_cases(split: _Split, proposal: _Proposal) -> list[_Case]:
    """The cases of a replace-one split: the differing trajectory against its partner, changed."""
    base, other, copies, terminal, first_step = (
        proposal.base,
        proposal.other,
        proposal.copies,
        proposal.terminal,
        proposal.first_step,
    )
    far, largest, weight, longest, clip_norm, steps = (
        proposal.far,
        proposal.largest,
        proposal.weight,
        proposal.longest,
        proposal.clip_norm,
        proposal.steps,
    )
    return [
        (
            base.rewarded(far),
            base.rewarded(-far),
            split.others,
            f"rewards {far:g} vs {-far:g} (far beyond the clipping norm h = {clip_norm:g})",
        ),
        (base.rewarded(far), base.rewarded(-far), copies, f"rewards {far:g} vs {-far:g}, the others unrewarded"),
        (base.rewarded(0.0), base.rewarded(far), split.others, f"unrewarded vs rewards {far:g}"),
        (
            terminal,
            other.rewarded(far),
            copies,
            f"a terminal unrewarded trajectory vs rewards {far:g}, the others unrewarded",
        ),
        (
            first_step.rewarded(far),
            first_step.rewarded(-far),
            split.others,
            f"a single step with reward {far:g} vs {-far:g}",
        ),
        (
            first_step.rewarded(far),
            other.steps(longest).rewarded(-far),
            split.others,
            f"a single step with reward {far:g} vs the longest ({steps}) with rewards {-far:g}",
        ),
        (
            base.steps(longest).rewarded(far),
            base.steps(longest).rewarded(-far),
            split.others,
            f"the longest ({steps}) with rewards {far:g} vs {-far:g}",
        ),
        (
            replace(base.rewarded(far), rho=np.full(base.rho.shape, weight)),
            replace(base, rho=np.zeros_like(base.rho)),
            split.others,
            f"importance weights {weight:g} and rewards {far:g} vs weights 0",
        ),
        (
            base.rewarded(largest),
            base.rewarded(-largest),
            split.others,
            f"rewards {largest:g} vs {-largest:g} (the largest seen)",
        ),
        (base, replace(base, rewards=-base.rewards), split.others, "its rewards negated"),
        (base, other.rewarded(0.0), split.others, "the one on X' unrewarded"),
    ]


def _added_cases(split: _Split, proposal: _Proposal) -> list[_Case]:
    """The cases of an add/remove-one split: the added trajectory, changed, against its absence."""
    base, copies, terminal, first_step = proposal.base, proposal.copies, proposal.terminal, proposal.first_step
    far, largest, weight, longest, steps = (
        proposal.far,
        proposal.largest,
        proposal.weight,
        proposal.longest,
        proposal.steps,
    )
    return [
        (base.rewarded(far), None, split.others, f"rewards {far:g}"),
        (base.rewarded(far), None, copies, f"rewards {far:g}, the others unrewarded"),
        (base.rewarded(-far), None, split.others, f"rewards {-far:g}"),
        (first_step.rewarded(far), None, split.others, f"a single step with reward {far:g}"),
        (
            base.steps(longest).rewarded(far),
            None,
            split.others,
            f"the longest ({steps}) with rewards {far:g}",
        ),
        (
            replace(base.rewarded(far), rho=np.full(base.rho.shape, weight)),
            None,
            split.others,
            f"importance weights {weight:g} and rewards {far:g}",
        ),
        (replace(base, rho=np.zeros_like(base.rho)), None, split.others, "importance weights 0"),
        (terminal, None, split.others, "a terminal unrewarded trajectory"),
        (base.rewarded(largest), None, split.others, f"rewards {largest:g} (the largest seen)"),
        (base.rewarded(0.0), None, split.others, "unrewarded"),
    ]


def _variants(split: _Split, seen: list[_Trajectory], params: Mapping[str, Any]) -> list[tuple[Any, Any, str]]:
    """The proposals around one split pair, most informative first."""
    proposal = _proposal(split, seen, params)
    cases = _replace_cases(split, proposal) if split.partner is not None else _added_cases(split, proposal)
    one_step = params.get("normalisation", "mean") != "paper"
    found: list[tuple[Any, Any, str]] = []
    proposed: set[str] = set()
    for x, y, others, text in cases:
        if not one_step and any(t is not None and t.rewards.size < 2 for t in (x, y)):
            continue
        if x is not None and y is not None and x.key() == y.key():
            continue
        sides = [[*others[: split.index], t, *others[split.index :]] if t is not None else list(others) for t in (x, y)]
        if not split.added_to_first:
            sides.reverse()  # X is the smaller table
        if not all(sides):
            continue
        label = f"search: the {'differing' if split.partner is not None else 'added'} trajectory, {text}"
        first, second = _plain(sides[0], split.gamma), _plain(sides[1], split.gamma)
        if repr((first, second)) not in proposed:  # two cases that build one pair: the first label
            proposed.add(repr((first, second)))
            found.append((first, second, label))
    return found


def explore_tables(
    pairs: Sequence[tuple[Any, Any]], params: Mapping[str, Any], relation: Relation
) -> list[tuple[Any, Any, str]]:
    """Neighbouring transition tables around the spec's pairs: the trajectory that differs (or
    is added) pushed to the domain's edges, the others kept or made unrewarded copies of one
    shortest trajectory; same trajectory counts as the spec's pair.

    References:
        Xie et al. 2019, Algorithm 1; eq. (2.2) (per-trajectory normalisation).
    """
    found: list[tuple[Any, Any, str]] = []
    for pair in pairs:
        split = _split(pair[0], pair[1], relation)
        if split is None:
            continue
        seen = [*split.others, split.differing, *([split.partner] if split.partner is not None else [])]
        found.extend(_variants(split, seen, params))
    return found
