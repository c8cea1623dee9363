"""Private behaviour-policy table from first visits, two-sided geometric noise (round 10, candidate 02) -- PRIVATE.

What it implements: for every state s, the number of trajectories whose *first* visit to s took action
a (an S x A integer table: each trajectory adds at most one count per state row, the action it took the
first time it was in s).  Integer noise from the two-sided geometric (discrete Laplace) law
P(k) proportional to alpha^|k| with alpha = exp(-eps / (2 S)), drawn as the difference of two geometric
variables (``rng.geometric``); the release stays an integer table.  The calling convention is the user's
own: ``first_visit_action_histogram(trajectories, generator, *, budget, num_states, num_actions)``.

Correct?  Yes.  Replacing one trajectory changes at most one count down and one count up in each state's
row: L1 distance <= 2 S (attained when both trajectories visit every state and take different first
actions everywhere); adding or removing one changes at most one count per row (<= S).  The discrete
Laplace mechanism with alpha = exp(-eps/(2S)) has privacy loss ||c - c'||_1 * eps / (2S) <= eps, and the
bound is attained, so the true epsilon is exactly eps = 1 under replace-one (0.5 under add/remove)
(truth/truth_c02_policy_counts_geometric.py).
"""

from __future__ import annotations

import math

import numpy as np


def _first_visit_counts(trajectories, num_states: int, num_actions: int) -> np.ndarray:
    table = np.zeros((num_states, num_actions), dtype=np.int64)
    for trajectory in trajectories:
        seen = set()
        for step in trajectory:
            s, a = int(step[0]), int(step[1])
            if s in seen:
                continue
            seen.add(s)
            if not (0 <= s < num_states and 0 <= a < num_actions):
                raise ValueError(f"state/action ({s}, {a}) outside the {num_states} x {num_actions} table")
            table[s, a] += 1
    return table


def _two_sided_geometric(shape, alpha: float, generator: np.random.Generator) -> np.ndarray:
    # rng.geometric(p) counts trials until the first success (>= 1); the difference of two i.i.d. copies
    # has P(k) = (1 - alpha) / (1 + alpha) * alpha^|k| with alpha = 1 - p.
    p = 1.0 - alpha
    return generator.geometric(p, size=shape) - generator.geometric(p, size=shape)


def first_visit_action_histogram(trajectories, generator, *, budget, num_states, num_actions):
    alpha = math.exp(-budget / (2.0 * num_states))
    counts = _first_visit_counts(trajectories, num_states, num_actions)
    return counts + _two_sided_geometric(counts.shape, alpha, generator)
