"""The input search of DP-LSW and DP-LSL: datasets at the edge of what their noise is calibrated to.

A black-box audit of a candidate DP-LSW/DP-LSL explores, besides the given pairs, Lemma 1's
extremal datasets (one trajectory alone in a state, its return at the calibrated bound), the
coverage pairs of :mod:`dpaudit.mechanisms.inputs`, and one trajectory going round every state
many times (a count of visits where Algorithm 1 counts trajectories); and, screened on a small
pilot, the coverage pairs at hundreds of trajectories.

References:
    Balle, Gomrokchi & Precup 2016, Sec. 3.1 (R_max/(1−γ) and F_max), Lemma 1, Sec. 4.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dpaudit._validation import check_real
from dpaudit.errors import DpAuditError
from dpaudit.mechanisms.inputs import (
    COVERAGE_SIZES,
    LONG_EPISODE_STEPS,
    SEARCH_SIZES,
    coverage_pairs,
    episode_at_return,
    explore_records,
)
from dpaudit.mechanisms.policy_evaluation import bounds
from dpaudit.privacy.relations import REPLACE_ONE, Relation
from dpaudit.rl.first_visit import discounted_returns

__all__ = [
    "LOOPING_SIZES",
    "RARE_STATE_SIZES",
    "SCREENED_SIZES",
    "calibrated_return_bound",
    "explore_datasets",
    "looping_pairs",
    "rare_state_pairs",
    "screened_coverage_pairs",
]


#: Dataset sizes of the input search's Lemma 1 datasets (those of the coverage and padded pairs), largest first.
RARE_STATE_SIZES = tuple(sorted(set(COVERAGE_SIZES) | set(SEARCH_SIZES), reverse=True))


def calibrated_return_bound(params: Mapping[str, Any]) -> tuple[float, float, float] | None:
    """(R_max, γ, the return bound the noise is calibrated to), or None when the parameters do not say."""
    try:
        r_max = check_real("r_max", params.get("r_max"), low=0.0, low_open=True)
        gamma = check_real("gamma", params.get("gamma"), low=0.0, high=1.0, high_open=True)
        return r_max, gamma, bounds.return_bound(r_max, gamma, params.get("f_max"))
    except (DpAuditError, ValueError, TypeError):
        return None


def rare_state_pairs(params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """Lemma 1's extremal datasets: the last state s visited by one trajectory only, with its return at
    the bound the noise is calibrated to (a long episode of rewards <= R_max, and a one-step one when
    that differs), beside m − 1 unrewarded trajectories through every other state; against the same
    with that trajectory unrewarded or replaced by one that avoids s (``replace_one``), or removed
    (``add_remove_one``), at :data:`RARE_STATE_SIZES` trajectories.

    Such a pair moves F_X(s), hence θ_X, by the whole return bound while σ_X stays put (the same
    signature) and is as small as a count of 1 allows (every other count is m − 1): a noise scale
    without R_max/(1 − γ)'s 1/(1 − γ), or one computed from m where |X_s| belongs, shows here.

    Sizes stop at 100: covering datasets of hundreds of trajectories, where DP-LSW's smoothing stops
    adding noise (ψ_X = φ_X(0)), cost too much per call to sample at the full budget; they are
    screened (:func:`screened_coverage_pairs`, docs/statistics.md, "Input search")."""
    n_states = params.get("n_states")
    known = calibrated_return_bound(params)
    if known is None or not isinstance(n_states, int) or isinstance(n_states, bool) or n_states < 2:
        return []
    r_max, gamma, bound = known
    rare = n_states - 1
    avoiding = [[state, 0, 0.0] for state in range(rare)]
    visits = [episode_at_return([rare], bound, r_max, gamma)]
    if len(visits[0]) > 1:
        visits.append([[rare, 0, min(r_max, bound)]])
    found: list[tuple[Any, Any, str]] = []
    for size in RARE_STATE_SIZES:
        common = [avoiding] * (size - 1)
        for visit in visits:
            value = float(discounted_returns([step[2] for step in visit], gamma)[0])
            steps = f"{len(visit)} steps" if len(visit) > 1 else "one step"
            text = (
                f"search: {size} trajectories, state {rare} visited by one only (return {value:.4g}, {steps})"
                if size > 1
                else f"search: 1 trajectory, in state {rare} only (return {value:.4g}, {steps})"
            )
            if relation.kind == REPLACE_ONE:
                unrewarded = [[*step[:2], 0.0] for step in visit]
                found.append(([*common, visit], [*common, unrewarded], f"{text} vs that one unrewarded"))
                if visit is visits[0]:
                    found.append(([*common, visit], [*common, avoiding], f"{text} vs one that avoids state {rare}"))
            elif size > 1:
                found.append(([*common, visit], common, f"{text}, that one removed"))
    return found


#: Dataset sizes of the looping pairs.
LOOPING_SIZES = (2, 10)


def looping_pairs(params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """One trajectory that goes round every state many times (up to the long episodes'
    :data:`~dpaudit.mechanisms.inputs.LONG_EPISODE_STEPS` steps, at least twice round),
    unrewarded or with its returns at the bound the noise is calibrated to, beside unrewarded
    trajectories through every state once; against it going round once, unrewarded (``replace_one``),
    or removed (``add_remove_one``), at :data:`LOOPING_SIZES` trajectories.

    Algorithm 1 counts a trajectory once per state it visits and uses its first-visit return, so one
    trajectory moves |X_s| by at most one and F_X(s) by at most the return bound over |X_s|. An
    implementation that counts every visit (or averages every visit's return) lets this one
    trajectory outweigh all the others: its noise shrinks with the visit counts, or its estimate
    follows the one trajectory."""
    n_states = params.get("n_states")
    if not isinstance(n_states, int) or isinstance(n_states, bool) or n_states < 1:
        return []
    once = [[state, 0, 0.0] for state in range(n_states)]
    rounds = max(2, LONG_EPISODE_STEPS // n_states)
    loops = [(once * rounds, "unrewarded")]
    known = calibrated_return_bound(params)
    if known is not None:
        r_max, gamma, bound = known
        rewarded = episode_at_return(list(range(n_states)) * rounds, bound, r_max, gamma)
        loops.append((rewarded[: len(once) * rounds], "returns at the bound"))
    found: list[tuple[Any, Any, str]] = []
    for size in LOOPING_SIZES:
        common = [once] * (size - 1)
        for loop, text in loops:
            label = f"search: {size} trajectories, one going round every state {rounds} times ({text})"
            if relation.kind == REPLACE_ONE:
                found.append(([*common, loop], [*common, once], f"{label} vs once, unrewarded"))
            else:
                found.append(([*common, loop], common, f"{label}, that one removed"))
    return found


#: Dataset sizes of the screened coverage pairs.
SCREENED_SIZES = (300, 1000)


def screened_coverage_pairs(params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """The coverage pairs (returns at the bound the noise is calibrated to) at :data:`SCREENED_SIZES`
    trajectories: the regime the input search's sizes (up to 100) do not reach, where every count is
    so large that DP-LSW's smoothing stops adding noise (ψ_X = φ_X(0), about 1/m²) and σ_X follows
    √ψ_X, about 1/m. A noise scale that follows ψ_X where √ψ_X belongs is larger than the reference's
    below about a hundred trajectories and falls below the shift of one trajectory only past a few
    hundred. A call on such a dataset costs hundreds of ordinary ones, so these pairs are screened
    (:attr:`~dpaudit.mechanisms.interface.Neighbourhood.screen`)."""
    known = calibrated_return_bound(params)
    bound = None if known is None else known[2]
    return coverage_pairs(params, relation, return_bound=bound, sizes=SCREENED_SIZES)


def explore_datasets(pairs: Sequence[Any], params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """Datasets with returns at the bound the noise is calibrated to (long episodes when it exceeds
    R_max): Lemma 1's rare state, then the coverage pairs; then the given pairs explored as datasets."""
    known = calibrated_return_bound(params)
    if known is None:
        found = coverage_pairs(params, relation)
    else:
        found = rare_state_pairs(params, relation) + coverage_pairs(params, relation, return_bound=known[2])
    return found + looping_pairs(params, relation) + explore_records(pairs, params, relation)
