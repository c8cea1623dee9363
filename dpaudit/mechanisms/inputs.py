"""Input domains and neighbourhoods shared by the mechanisms (see :mod:`dpaudit.mechanisms.interface`).

References:
    Dwork & Roth 2014, Def. 2.4 (neighbouring datasets) and Sec. 3.3-3.5 (l1/l2 sensitivity);
    Balle et al. 2016, Sec. 2 (datasets of trajectories); the simplex's b-adjacency is in
    :mod:`dpaudit.mechanisms.simplex_inputs`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.interface import ExplorePairs, InputDomain, Neighbourhood, ScreenPairs
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rl.first_visit import discounted_returns
from dpaudit.rl.trajectory import Trajectory

__all__ = [
    "COVERAGE_SIZES",
    "GRADIENT_RECORDS",
    "LONG_EPISODE_STEPS",
    "LONG_EPISODE_TAIL",
    "PROBABILITY_VECTOR",
    "REAL_VECTOR",
    "SEARCH_MAGNITUDES",
    "SEARCH_RECORD_SCALES",
    "SEARCH_ROTATIONS",
    "SEARCH_SIZES",
    "TRAJECTORIES",
    "coverage_pairs",
    "episode_at_return",
    "explore_records",
    "multiset_steps",
    "norm_ball",
    "one_record",
    "one_trajectory",
]


def _plain_vector(data: Any) -> list[float]:
    return [float(v) for v in np.asarray(data, dtype=np.float64).ravel()]


def _non_empty(array: np.ndarray) -> np.ndarray:
    if array.size == 0:
        raise InvalidArgument(f"input: expected a non-empty input, got one of shape {array.shape}")
    return array


def _vector(data: Any) -> np.ndarray:
    return _non_empty(check_finite_array("input", data, ndim=1))


def _plain_records(data: Any) -> list[list[float]]:
    return [[float(v) for v in row] for row in np.asarray(data, dtype=np.float64)]


def _records(data: Any) -> np.ndarray:
    return _non_empty(check_finite_array("input", data, ndim=2))


def _plain_trajectories(data: Any) -> list[list[list[float]]]:
    return [[[int(s), int(a), float(r)] for s, a, r in zip(x.states, x.actions, x.rewards, strict=True)] for x in data]


def _trajectories(data: Any) -> tuple[Trajectory, ...]:
    if isinstance(data, (str, bytes)) or not hasattr(data, "__iter__"):
        raise InvalidArgument(
            f"input={data!r}: expected a list of trajectories, each a list of [state, action, reward]"
        )
    dataset = []
    for index, trajectory in enumerate(data):
        if isinstance(trajectory, Trajectory):
            dataset.append(trajectory)
            continue
        try:
            steps = [(int(s), int(a), float(r)) for s, a, r in trajectory]
        except (TypeError, ValueError) as exc:
            raise InvalidArgument(
                f"input[{index}]={trajectory!r}: expected a list of [state, action, reward] triples"
            ) from exc
        if not steps:
            raise InvalidArgument(f"input[{index}]: a trajectory has at least one step")
        states, actions, rewards = zip(*steps, strict=True)
        dataset.append(Trajectory(states, actions, rewards))
    return tuple(dataset)


REAL_VECTOR = InputDomain("real_vector", "f(X): a vector of finite reals (the query value)", _plain_vector, _vector)
PROBABILITY_VECTOR = InputDomain(
    "probability_vector", "a point p of the open probability simplex", _plain_vector, _vector
)
GRADIENT_RECORDS = InputDomain(
    "gradient_records", "an (m, d) array: one per-record gradient per row", _plain_records, _records
)
TRAJECTORIES = InputDomain(
    "trajectories",
    "a dataset of trajectories, each a list of [state, action, reward] triples",
    _plain_trajectories,
    _trajectories,
)


#: Query values the input search starts from: zero, half-integers (where rounding jumps),
#: small and large magnitudes of both signs (where a branch may skip the noise), and magnitudes
#: where float32's spacing reaches 1 (2^23 + 0.5) and 8 (10^8): an implementation that stores the
#: value or its noise in single precision releases a coarse lattice there.
SEARCH_MAGNITUDES = (0.0, 0.5, 1.0, 2.5, -3.0, 10.0, 1e3, 1e4, 1e6, 2.0**23 + 0.5, 1e8)


def _ball_steps(length: int, radius: float, order: int) -> list[tuple[str, np.ndarray]]:
    """Moves of norm ``radius``: along the first axis (both signs) and spread over every coordinate."""
    axis = np.zeros(length)
    axis[0] = radius
    spread = np.full(length, radius / length ** (1.0 / order))
    return [("+radius e_1", axis), ("-radius e_1", -axis), ("radius spread over all coordinates", spread)]


def _explore_ball(order: int, parameter: str) -> Any:
    def explore(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
        radius = float(params[parameter])
        bases = [np.asarray(_plain_vector(x)) for pair in pairs for x in pair]
        found: list[tuple[Any, Any, str]] = []
        for length in sorted({base.size for base in bases}):
            starts = [(f"f(X) = {m:g} everywhere", np.full(length, m)) for m in SEARCH_MAGNITUDES]
            starts += [
                (f"f(X) = given input x {m:g}", base * m) for base in bases if base.size == length for m in (10, 1e3)
            ]
            for name, start in starts:
                for step_name, step in _ball_steps(length, radius, order):
                    found.append((_plain_vector(start), _plain_vector(start + step), f"search: {name}, {step_name}"))
        return found

    return explore


def norm_ball(order: int, parameter: str = "sensitivity") -> Neighbourhood:
    """Inputs are f(X), f(X') with ``||f(X) - f(X')||_order <= params[parameter]`` (any relation)."""

    def distance(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
        a, b = _vector(first), _vector(second)
        if a.shape != b.shape:
            return float("inf")
        return float(np.linalg.norm(a - b, ord=order))

    def radius(params: Mapping[str, Any], relation: Relation) -> float:
        return float(params[parameter])

    return Neighbourhood(
        f"||f(X) - f(X')||_{order} <= {parameter}", distance, radius, explore=_explore_ball(order, parameter)
    )


def multiset_steps(first: list[Any], second: list[Any], relation: Relation) -> float:
    """How many records one step of ``relation`` changes between the two datasets (inf if more than one)."""
    left, right = Counter(first), Counter(second)
    only_left = sum((left - right).values())
    only_right = sum((right - left).values())
    if relation.kind == REPLACE_ONE:
        return float(only_left) if len(first) == len(second) and only_left <= 1 else float("inf")
    if relation.kind == ADD_REMOVE_ONE:
        return 1.0 if sorted((only_left, only_right)) == [0, 1] else float("inf")
    return float("inf")


def _covering(n_states: int, return_bound: float, gamma: float | None) -> list[list[float]]:
    """A trajectory through states 0, ..., n_states - 1 (action 0) whose return from every state
    is ``return_bound``: reward B (1 - gamma) at each step and B at the last (Sec. 3.1's F_max
    reached everywhere); without a discount, B at the last step only."""
    step = 0.0 if gamma is None else return_bound * (1.0 - gamma)
    return [[state, 0, return_bound if state == n_states - 1 else step] for state in range(n_states)]


def _positive(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def coverage_pairs(
    params: Mapping[str, Any],
    relation: Relation,
    *,
    return_bound: float | None = None,
    sizes: Sequence[int] | None = None,
) -> list[tuple[Any, Any, str]]:
    """Datasets at the edges of what a trajectory can be, from the public parameters alone:
    trajectories that visit every state (largest coverage) with every return at the bound
    or zero, against one that differs in its rewards or visits a single state (smallest
    coverage), at ``sizes`` trajectories (default :data:`COVERAGE_SIZES`; the rest unrewarded covering ones).

    The bound is ``return_bound`` when given (the bound a mechanism's noise is calibrated to,
    e.g. R_max/(1 − γ): a long episode of rewards <= ``r_max`` reaches it, see
    :func:`episode_at_return`), else the min of ``r_max`` and ``f_max`` (one step reaches it)."""
    n_states = params.get("n_states")
    if not isinstance(n_states, int) or isinstance(n_states, bool) or n_states < 1:
        return []
    bounds = [bound for bound in (_positive(params.get("r_max", 1.0)), _positive(params.get("f_max"))) if bound]
    if not bounds:
        return []
    gamma = params.get("gamma")
    discount = float(gamma) if isinstance(gamma, int | float) and 0 <= gamma < 1 else None
    r_max = _positive(params.get("r_max", 1.0))
    if return_bound is not None and r_max is not None and discount is not None:
        rewarded = episode_at_return(list(range(n_states)), return_bound, r_max, discount)
    else:
        rewarded = _covering(n_states, min(bounds), discount)
    silent, single_state = _covering(n_states, 0.0, None), [[0, 0, 0.0]]
    differing = (
        (rewarded, silent, "returns at the bound vs unrewarded"),
        (rewarded, single_state, "returns at the bound vs one step in state 0"),
        (silent, single_state, "unrewarded vs one step in state 0"),
    )
    found: list[tuple[Any, Any, str]] = []
    for size in COVERAGE_SIZES if sizes is None else sizes:
        common = [silent] * (size - 1)
        if relation.kind == REPLACE_ONE:
            for record, other, text in differing:
                found.append(([*common, record], [*common, other], f"search: {size} covering trajectories, {text}"))
        elif size > 1:
            found.append(
                ([*common, rewarded], common, f"search: {size} covering trajectories, the rewarded one removed")
            )
    return found


#: A long episode's discounted tail: it lasts until γ^T < LONG_EPISODE_TAIL, so its first-visit
#: returns reach R_max/(1 − γ) to within that factor ...
LONG_EPISODE_TAIL = 1e-3

#: ... but at most this many steps after its last new state (γ close to 1 would need thousands).
LONG_EPISODE_STEPS = 200


def _tail_steps(gamma: float) -> int:
    """The T of :data:`LONG_EPISODE_TAIL`: the fewest steps with γ^T < 1e-3, at most :data:`LONG_EPISODE_STEPS`."""
    if gamma <= 0.0:
        return 1
    steps = max(1, math.ceil(math.log(LONG_EPISODE_TAIL) / math.log(gamma)))
    while gamma**steps >= LONG_EPISODE_TAIL and steps < LONG_EPISODE_STEPS:
        steps += 1
    return min(steps, LONG_EPISODE_STEPS)


def episode_at_return(states: Sequence[int], target: float, r_max: float, gamma: float) -> list[list[float]]:
    """A trajectory through ``states`` (action 0) whose first-visit return from each of them is as
    close to ``target`` as rewards in [0, ``r_max``] allow, and never above it.

    Every step pays c = min(R_max, target (1 − γ)) and the last min(R_max, target), so the return
    from a state n steps before the end is c (1 − γ^n)/(1 − γ) + γ^n min(R_max, target) <= target.
    When target <= R_max this is exactly ``target`` and the trajectory is ``states`` alone; otherwise
    it stays in the last state until γ^T < 1e-3 (at most :data:`LONG_EPISODE_STEPS` more steps), so
    R_max/(1 − γ) is reached to within 0.1% for γ <= 0.966 (86.6% at γ = 0.99). The returns are
    recomputed as the reference computes them (G_t = r_t + γ G_{t+1} in float64) and c is lowered by
    units in the last place until none exceeds ``target`` (a public F_max must bound every return).

    Raises:
        InvalidArgument: for no states, a target or R_max <= 0, or γ outside [0, 1).

    References:
        Balle et al. 2016, Sec. 2 (0 <= r <= R_max, returns <= R_max/(1 − γ)) and Sec. 3.1 (F_max).
    """
    if not states or not target > 0 or not r_max > 0 or not 0.0 <= gamma < 1.0:
        raise InvalidArgument(
            f"states={list(states)!r}, target={target!r}, r_max={r_max!r}, gamma={gamma!r}: expected at least "
            "one state, target > 0, r_max > 0 and gamma in [0, 1)"
        )
    last = min(r_max, target)
    step = min(r_max, target * (1.0 - gamma))
    visits = [int(state) for state in states]
    if target > r_max:
        visits += [visits[-1]] * _tail_steps(gamma)
    while True:
        rewards = [step] * (len(visits) - 1) + [last]
        if float(np.max(discounted_returns(rewards, gamma))) <= target:
            return [[state, 0, reward] for state, reward in zip(visits, rewards, strict=True)]
        step = float(np.nextafter(step, 0.0))


def _explore_trajectories(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """The coverage pairs of the public parameters, then the given pairs explored as datasets."""
    return coverage_pairs(params, relation) + explore_records(pairs, params, relation)


def one_trajectory(explore: ExplorePairs = _explore_trajectories, screen: ScreenPairs | None = None) -> Neighbourhood:
    """Datasets of trajectories that differ in one trajectory (replaced, or added/removed); ``explore``
    proposes more pairs around the given ones (default: the coverage pairs of the public parameters,
    then the given pairs explored as datasets), ``screen`` the screened ones
    (:attr:`Neighbourhood.screen`)."""

    def key(trajectory: Trajectory) -> tuple[Any, ...]:
        return (tuple(trajectory.states), tuple(trajectory.actions), tuple(float(r) for r in trajectory.rewards))

    def distance(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
        return multiset_steps([key(x) for x in _trajectories(first)], [key(x) for x in _trajectories(second)], relation)

    return Neighbourhood(
        "the datasets differ in one trajectory", distance, lambda params, relation: 1.0, explore=explore, screen=screen
    )


#: Dataset sizes the input search pads a given pair to (a branch may skip the noise for large m).
SEARCH_SIZES = (10, 50, 100)

#: Dataset sizes of the coverage pairs (every state visited): a noise scale that shrinks too
#: fast with m, or a sensitivity bound that is not smoothed, shows only on such datasets.
COVERAGE_SIZES = (1, 2, 10, 100)

#: The most rotations of a dataset pair the input search tries.
SEARCH_ROTATIONS = 8

#: Factors the input search scales a differing gradient record by (beyond a clipping norm).
SEARCH_RECORD_SCALES = (10.0, 1e3)


def _is_trajectory(record: Any) -> bool:
    return isinstance(record, list) and bool(record) and all(isinstance(step, list) for step in record)


def _degenerate_records(record: Any) -> list[tuple[Any, str]]:
    """Boundary variants of one record: for a trajectory its first step alone and its rewards set to
    zero; for a row of numbers, or a record that is a float (a measurement), the zero row and the row scaled far
    beyond any clipping norm. An integer record is a count, a bit or a category's code: no scale of it is one."""
    if isinstance(record, float):
        if record == 0:
            return []
        return [(0.0, "zero")] + [
            (factor * float(record), f"the record times {factor:g}") for factor in SEARCH_RECORD_SCALES
        ]
    if _is_trajectory(record):
        variants = [(record[:1], "its first step alone"), ([[*step[:-1], 0.0] for step in record], "zero rewards")]
        return [(variant, text) for variant, text in variants if variant != record]
    if isinstance(record, list) and record and all(isinstance(v, int | float) for v in record):
        scaled = [
            ([factor * float(v) for v in record], f"the record times {factor:g}") for factor in SEARCH_RECORD_SCALES
        ]
        zero = [0.0] * len(record)
        return ([(zero, "the zero row")] if zero != record else []) + (scaled if any(record) else [])
    return []


def _explore_differing_record(first: list[Any], second: list[Any]) -> list[tuple[Any, Any, str]]:
    """For two datasets of one size that differ in one position: the two differing records alone
    (datasets of one record), and either of them replaced by a boundary variant."""
    positions = [index for index, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
    if len(positions) != 1:
        return []
    (index,) = positions
    found: list[tuple[Any, Any, str]] = []
    if len(first) > 1:
        found.append(([first[index]], [second[index]], "search: the differing records alone"))
    for side, record in (("X'", second[index]), ("X", first[index])):
        for variant, text in _degenerate_records(record):
            changed = [*(second if side == "X'" else first)]
            changed[index] = variant
            pair = (first, changed) if side == "X'" else (changed, second)
            found.append((*pair, f"search: the differing record on {side} replaced by {text}"))
            if len(first) > 1:
                alone = ([pair[0][index]], [pair[1][index]])
                found.append((*alone, f"search: the differing records alone, the one on {side} replaced by {text}"))
    return found


def _explore_added_record(first: list[Any], second: list[Any]) -> list[tuple[Any, Any, str]]:
    """For two datasets one of which is the other with a record added (last, or first): that record
    replaced by a boundary variant (:func:`_degenerate_records`), so that an add/remove claim meets the
    huge record an implementation that forgets to clip leaks."""
    longer, shorter = (first, second) if len(first) > len(second) else (second, first)
    if longer[:-1] == shorter:
        index = len(longer) - 1
    elif longer[1:] == shorter:
        index = 0
    else:
        return []
    found: list[tuple[Any, Any, str]] = []
    for variant, text in _degenerate_records(longer[index]):
        changed = [*longer]
        changed[index] = variant
        pair = (changed, shorter) if len(first) > len(second) else (shorter, changed)
        found.append((*pair, f"search: the added record replaced by {text}"))
    return found


def explore_records(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """More neighbouring datasets from a given pair: the differing (or added) record at the boundary of the
    domain (alone; a one-step or zero-reward trajectory; a zero or huge gradient row or number), the same
    extra records added to both sides (copies of its own records, to 10, 50 and 100 records),
    and both sides rotated so that the record that differs sits at another position (a dataset
    is a multiset; an implementation that reads records by position, e.g. with a fixed seed,
    may leak only at some positions)."""
    found: list[tuple[Any, Any, str]] = []
    for first, second in pairs:
        if not isinstance(first, list) or not first or not isinstance(second, list):
            continue
        if len(first) == len(second):
            found.extend(_explore_differing_record(first, second))
        elif abs(len(first) - len(second)) == 1:
            found.extend(_explore_added_record(first, second))
        for size in SEARCH_SIZES:
            extra = [first[index % len(first)] for index in range(max(size - len(first), 0))]
            if extra:
                found.append((first + extra, second + extra, f"search: padded to {len(first) + len(extra)} records"))
        if len(first) == len(second):
            for shift in range(1, min(len(first), SEARCH_ROTATIONS + 1)):
                rotated = (first[shift:] + first[:shift], second[shift:] + second[:shift])
                found.append((*rotated, f"search: records rotated by {shift}"))
    return found


def one_record(explore: ExplorePairs = explore_records) -> Neighbourhood:
    """Datasets of records (rows) that differ in one record (replaced, or added/removed); ``explore``
    proposes more pairs around the given ones (default: :func:`explore_records`)."""

    def distance(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
        rows_first = [tuple(row) for row in _records(first).tolist()]
        rows_second = [tuple(row) for row in _records(second).tolist()]
        return multiset_steps(rows_first, rows_second, relation)

    return Neighbourhood(
        "the datasets differ in one record (row)", distance, lambda params, relation: 1.0, explore=explore
    )
