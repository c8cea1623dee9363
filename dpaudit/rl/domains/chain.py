"""The chain domain of Balle et al. 2016 (Sec. 6) and Xie et al. 2019 (Sec. 7).

N states 0, ..., N-1 and one action. From a state s < N-1 the agent stays with
probability p and moves to s+1 with probability 1-p; N-1 is absorbing. Start: uniform
over all N states ("the agent begins at a uniformly random state on the chain", Xie
et al.; Balle et al. leave the start law unspecified).

Reward convention (used by the FiniteMDP, by sampled returns and by the exact values):
the reward 1 is received on the step that *enters* the absorbing state, r(s, a, s') = 1
iff s < N-1 and s' = N-1, and every other reward, including every step taken in the
absorbing state, is 0. A sampled trajectory stops after its first triple at N-1, which
is (N-1, 0, 0). Hence V(N-1) = 0 and, for d = N-1-s >= 1 steps to go,

    V(s) = γ^{d-1} ((1-p) / (1-γp))^d,

since each advance takes a Geometric(1-p) number K >= 1 of steps with E[γ^K] = γ(1-p)/(1-γp)
and the reward arrives one step before the absorbing state is first occupied.

References:
    Balle et al. 2016, Sec. 6 (N=40, p=0.5, γ=0.99; tabular and aggregated features);
    Xie et al. 2019, Sec. 7 "Synthetic chain domain" (same chain, uniform start).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_rational
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rl.trajectory import Trajectory

__all__ = ["Chain"]


@dataclass(frozen=True)
class Chain:
    """The N-state chain with staying probability p and discount γ (exact rational parameters).

    Attributes:
        n_states: N >= 2.
        p: staying probability in [0, 1) (a Fraction; floats convert exactly, strings like "1/2" parse).
        gamma: discount in [0, 1) (a Fraction, converted as ``p``).

    References:
        Balle et al. 2016, Sec. 6; Xie et al. 2019, Sec. 7.
    """

    n_states: int = 40
    p: Any = Fraction(1, 2)
    gamma: Any = Fraction(99, 100)

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_states", check_integer("n_states", self.n_states, low=2))
        object.__setattr__(self, "p", check_rational("p", self.p, low=0.0, high=1.0, high_open=True))
        object.__setattr__(self, "gamma", check_rational("gamma", self.gamma, low=0.0, high=1.0, high_open=True))

    @property
    def goal(self) -> int:
        """The absorbing state N-1."""
        return self.n_states - 1

    def mdp(self) -> FiniteMDP:
        """The chain as a discounted FiniteMDP with rewards r[s, a, s'] (float64)."""
        n, p = self.n_states, float(self.p)
        transitions = np.zeros((n, 1, n))
        states = np.arange(n - 1)
        transitions[states, 0, states] = p
        transitions[states, 0, states + 1] = 1.0 - p
        transitions[n - 1, 0, n - 1] = 1.0
        rewards = np.zeros((n, 1, n))
        rewards[n - 2, 0, n - 1] = 1.0
        return FiniteMDP(transitions, rewards, float(self.gamma))

    def policy(self) -> MarkovPolicy:
        """The only policy: take action 0."""
        return MarkovPolicy(np.ones((self.n_states, 1)))

    def exact_values(self) -> tuple[Fraction, ...]:
        """V(s) = γ^{d-1} ((1-p)/(1-γp))^d for d = N-1-s >= 1 and V(N-1) = 0, as exact Fractions."""
        advance = (1 - self.p) / (1 - self.gamma * self.p)
        values = []
        for s in range(self.n_states):
            d = self.goal - s
            values.append(Fraction(0) if d == 0 else self.gamma ** (d - 1) * advance**d)
        return tuple(values)

    def enumerate_trajectories(self, start_state: int, max_steps: int) -> Iterator[tuple[Trajectory, Fraction]]:
        """Yield every trajectory from ``start_state`` with at most ``max_steps`` triples and its exact probability.

        Trajectories that reach the goal within the cap end with the triple (N-1, 0, 0);
        the others are cut after ``max_steps`` triples and flagged ``truncated`` (their
        probability is that of the prefix). Rewards are ints, so first-visit returns
        computed with a Fraction γ are exact. The probabilities sum to exactly 1.

        Raises:
            InvalidArgument: for a start state outside 0..N-1 or max_steps < 1.
        """
        start = check_integer("start_state", start_state, low=0, high=self.goal)
        cap = check_integer("max_steps", max_steps, low=1)
        yield from self._extend((start,), (), Fraction(1), cap)

    def _extend(
        self, states: tuple[int, ...], rewards: tuple[int, ...], probability: Fraction, cap: int
    ) -> Iterator[tuple[Trajectory, Fraction]]:
        state = states[-1]
        if state == self.goal:
            yield self._trajectory(states, (*rewards, 0), self.goal, False), probability
            return
        if len(states) == cap:
            for following, weight in ((state, self.p), (state + 1, 1 - self.p)):
                if weight:
                    reward = int(following == self.goal)
                    yield self._trajectory(states, (*rewards, reward), following, True), probability * weight
            return
        if self.p:
            yield from self._extend((*states, state), (*rewards, 0), probability * self.p, cap)
        yield from self._extend(
            (*states, state + 1), (*rewards, int(state + 1 == self.goal)), probability * (1 - self.p), cap
        )

    @staticmethod
    def _trajectory(states: tuple[int, ...], rewards: tuple[int, ...], following: int, truncated: bool) -> Trajectory:
        return Trajectory(states, (0,) * len(states), rewards, following, truncated)
