"""Sampling trajectories of a Markov policy on a :class:`FiniteMDP` with an explicit rng.

Both samplers draw with the same inverse-CDF rule (index = number of CDF entries <= u,
u ~ U[0, 1)), so they sample the same law; :func:`sample_trajectories` is vectorised over
trajectories and :func:`sample_trajectory` is the plain per-step loop.

Stopping rule: a trajectory records the triple at every state it visits and stops right
after recording a triple at a zero-reward absorbing state (all later rewards are 0, so
no return changes), or after ``max_steps`` triples. So a chain trajectory ends with the
triple (goal, a, 0) and its first-visit returns equal the infinite-horizon returns.
On a finite-horizon MDP the terminal values R_T are not the reward of any triple.

References:
    Balle et al. 2016, Sec. 6 (trajectories drawn from an initial state distribution
    until the absorbing state is reached).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

import numpy as np

from dpaudit._validation import check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rl.trajectory import Trajectory, TrajectoryBatch
from dpaudit.rng import normalize_rng

__all__ = ["DEFAULT_MAX_STEPS", "sample_trajectories", "sample_trajectory"]

DEFAULT_MAX_STEPS = 10_000
"""Step cap of infinite-horizon sampling when none is given; capped trajectories are flagged ``truncated``."""


def _cdf(probabilities: np.ndarray) -> np.ndarray:
    cumulative = np.cumsum(probabilities, axis=-1)
    return cumulative / cumulative[..., -1:]


def _draw(cdf_rows: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    return np.minimum((uniforms[:, None] >= cdf_rows).sum(axis=1), cdf_rows.shape[1] - 1)


def _compressed_cdf(probabilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (support, cdf) over each row's positive entries, padded to the widest support.

    Drawing ``support[j]`` with j = #{cdf <= u} maps every u to the same outcome as the
    dense rule (zero-probability entries repeat the previous CDF value and are skipped),
    but compares against K = max support size entries instead of all of them.
    """
    positive = probabilities > 0
    width = max(int(positive.sum(axis=-1).max()), 1)
    order = np.argsort(~positive, axis=-1, kind="stable")[..., :width]
    support = np.sort(order, axis=-1)
    kept = np.take_along_axis(probabilities, support, axis=-1)
    cdf = np.cumsum(kept, axis=-1)
    cdf = cdf / cdf[..., -1:]
    return support, cdf


def _step_cap(mdp: FiniteMDP, max_steps: int | None) -> int:
    if max_steps is None:
        return DEFAULT_MAX_STEPS if mdp.horizon is None else mdp.horizon
    cap = check_integer("max_steps", max_steps, low=1)
    if mdp.horizon is not None and cap > mdp.horizon:
        raise InvalidArgument(f"max_steps={cap}: exceeds the MDP's horizon={mdp.horizon}")
    return cap


def _check(mdp: FiniteMDP, policy: MarkovPolicy) -> None:
    if not isinstance(mdp, FiniteMDP):
        raise InvalidArgument(f"mdp={mdp!r}: expected a FiniteMDP")
    if not isinstance(policy, MarkovPolicy):
        raise InvalidArgument(f"policy={policy!r}: expected a MarkovPolicy")
    policy.check_compatible(mdp)
    if not policy.is_stationary and mdp.horizon is None:
        raise InvalidArgument("policy: time-dependent policies need a finite-horizon MDP")


def _start_states(mdp: FiniteMDP, count: int, start_states: Any, generator: np.random.Generator) -> np.ndarray:
    if start_states is None:
        return _draw(np.broadcast_to(_cdf(mdp.initial), (count, mdp.n_states)), generator.random(count))
    starts = np.asarray(start_states)
    if starts.shape != (count,) or not np.issubdtype(starts.dtype, np.integer):
        raise InvalidArgument(f"start_states: expected {count} integer states, got {starts!r}")
    bad = (starts < 0) | (starts >= mdp.n_states)
    if bad.any():
        position = int(np.argmax(bad))
        raise InvalidArgument(f"start_states[{position}]={int(starts[position])}: expected 0..{mdp.n_states - 1}")
    return starts.astype(np.int64)


def _flat_transitions(mdp: FiniteMDP) -> tuple[np.ndarray, np.ndarray, int]:
    """The transition law as one row per (state, action): its support (flattened), cdf and width."""
    transition_support, transition_cdf = _compressed_cdf(mdp.transitions)
    width = transition_cdf.shape[-1]
    return transition_support.reshape(-1), transition_cdf.reshape(mdp.n_states * mdp.n_actions, width), width


def _actions(
    policy: MarkovPolicy,
    compressed: tuple[np.ndarray, np.ndarray],
    current: np.ndarray,
    t: int,
    generator: np.random.Generator,
    n_actions: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The actions drawn at step ``t`` in the ``current`` states, and the (state, action) row indices
    (no draw when there is one action)."""
    if n_actions == 1:
        return np.zeros(current.size, dtype=np.int64), current
    policy_support, policy_cdf = compressed
    support = policy_support if policy.is_stationary else policy_support[t]
    rows = policy_cdf if policy.is_stationary else policy_cdf[t]
    picks = _draw(rows[current], generator.random(current.size))
    actions = support[current, picks]
    return actions, current * n_actions + actions


def sample_trajectories(
    mdp: FiniteMDP,
    policy: MarkovPolicy,
    n_trajectories: int,
    *,
    rng: Any,
    max_steps: int | None = None,
    start_states: Any = None,
    stop_at_absorbing: bool = True,
) -> TrajectoryBatch:
    """Sample ``n_trajectories`` independent trajectories, vectorised over trajectories.

    Args:
        mdp: the MDP (its ``initial`` law gives the start states unless ``start_states``).
        policy: a stationary policy, or a time-dependent one on a finite-horizon MDP.
        n_trajectories: m >= 1.
        rng: seed or Generator (see :func:`dpaudit.rng.normalize_rng`).
        max_steps: cap on the number of triples; default the MDP's horizon, or
            :data:`DEFAULT_MAX_STEPS` for an infinite horizon.
        start_states: optional integer array (m,) of start states.
        stop_at_absorbing: stop after the first triple at a zero-reward absorbing state.

    Returns:
        A :class:`TrajectoryBatch`; ``truncated`` marks trajectories cut by the cap
        before an absorbing state (never set when the cap is the MDP's horizon).

    Raises:
        InvalidArgument: for mismatched policy/MDP, bad counts, caps or start states.
    """
    _check(mdp, policy)
    count = check_integer("n_trajectories", n_trajectories, low=1)
    cap = _step_cap(mdp, max_steps)
    generator = normalize_rng(rng)
    absorbing = mdp.absorbing_states() if stop_at_absorbing else np.zeros(mdp.n_states, dtype=bool)
    n_actions = mdp.n_actions
    transition_support, transition_cdf, width = _flat_transitions(mdp)
    policy_support, policy_cdf = _compressed_cdf(policy.probabilities)
    three_d_rewards = mdp.rewards.ndim == 3
    flat_rewards = (mdp.rewards if three_d_rewards else mdp.expected_rewards).reshape(-1)
    active = np.arange(count, dtype=np.int64)
    current = _start_states(mdp, count, start_states, generator)
    lengths = np.zeros(count, dtype=np.int64)
    next_states = np.full(count, -1, dtype=np.int64)
    truncated = np.zeros(count, dtype=bool)
    parts: tuple[list[np.ndarray], ...] = ([], [], [], [])
    offsets = [0]
    for t in range(cap):
        actions, pair = _actions(policy, (policy_support, policy_cdf), current, t, generator, n_actions)
        picks = _draw(transition_cdf[pair], generator.random(active.size))
        following = transition_support[pair * width + picks]
        rewards = flat_rewards[pair * mdp.n_states + following] if three_d_rewards else flat_rewards[pair]
        for part, values in zip(parts, (active, current, actions, rewards), strict=False):
            part.append(values)
        offsets.append(offsets[-1] + active.size)
        stop = absorbing[current]
        if t + 1 == cap:
            truncated[active[~stop]] = mdp.horizon is None or cap < mdp.horizon
            stop = np.ones(active.size, dtype=bool)
        if stop.any():
            lengths[active[stop]] = t + 1
            next_states[active[stop]] = following[stop]
            active, current = active[~stop], following[~stop]
        else:
            current = following
        if active.size == 0:
            break
    return TrajectoryBatch(
        n_states=mdp.n_states,
        trajectory_index=np.concatenate(parts[0]),
        states=np.concatenate(parts[1]),
        actions=np.concatenate(parts[2]),
        rewards=np.concatenate(parts[3]).astype(np.float64),
        step_offsets=np.asarray(offsets, dtype=np.int64),
        lengths=lengths,
        next_states=next_states,
        truncated=truncated,
    )


def sample_trajectory(
    mdp: FiniteMDP,
    policy: MarkovPolicy,
    *,
    rng: Any,
    max_steps: int | None = None,
    start_state: int | None = None,
    stop_at_absorbing: bool = True,
) -> Trajectory:
    """Sample one trajectory with a plain per-step Python loop (same law as :func:`sample_trajectories`).

    Args and stopping rule as in :func:`sample_trajectories` (``start_state`` a single int).
    """
    _check(mdp, policy)
    cap = _step_cap(mdp, max_steps)
    generator = normalize_rng(rng)
    absorbing = (mdp.absorbing_states() if stop_at_absorbing else np.zeros(mdp.n_states, dtype=bool)).tolist()
    transition_cdf = _cdf(mdp.transitions).tolist()
    policy_cdf = _cdf(policy.probabilities).tolist()
    rewards_table = mdp.rewards.tolist()
    three_d_rewards = mdp.rewards.ndim == 3
    last_action = mdp.n_actions - 1
    last_state = mdp.n_states - 1
    if start_state is None:
        initial_cdf = _cdf(mdp.initial).tolist()
        state = min(bisect_right(initial_cdf, generator.random()), last_state)
    else:
        state = check_integer("start_state", start_state, low=0, high=last_state)
    states, actions, rewards = [], [], []
    truncated = False
    following = state
    for t in range(cap):
        row = policy_cdf[state] if policy.is_stationary else policy_cdf[t][state]
        action = 0 if last_action == 0 else min(bisect_right(row, generator.random()), last_action)
        following = min(bisect_right(transition_cdf[state][action], generator.random()), last_state)
        reward = rewards_table[state][action][following] if three_d_rewards else rewards_table[state][action]
        states.append(state)
        actions.append(action)
        rewards.append(reward)
        if absorbing[state]:
            break
        if t + 1 == cap:
            truncated = mdp.horizon is None or cap < mdp.horizon
        state = following
    return Trajectory._trusted(tuple(states), tuple(actions), tuple(rewards), following, truncated)
