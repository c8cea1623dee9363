"""The ``rl_algorithm`` kind: any DP-RL algorithm on a dataset of trajectories, audited from its outputs.

dpaudit holds no reference for the algorithm. The spec names an MDP — a built-in domain (``chain``,
``investment``, ``random``; the continuous ``mountain_car`` and ``hiv``, discretised: a state is the cell of
a uniform grid over the observation box, ``bins`` cells per dimension) or a tabular MDP written inline
(transitions, rewards, discount, start law, horizon, behaviour policy) — and dpaudit builds neighbouring
datasets by rolling the behaviour policy out in it: a dataset of ``trajectories`` rollouts, and the same
dataset with one trajectory replaced (``replace_one``) or added, removed, duplicated (``add_remove_one``) by
an *extreme* trajectory: the largest and the smallest return, the longest and the shortest, the one through
the rarest state-action pairs, and the longest with every reward at the upper or the lower reward bound.
The input search (:mod:`dpaudit.mechanisms.inputs`) adds covering trajectories at the reward bound (one step
per state, and a long episode whose first-visit returns reach R_max/(1 − γ)), a longest-rollout stay in one
state against one in another (visit counts move by T in two states at once), padded and rotated datasets.
The release is whatever the algorithm returns: a value vector, a Q-table, a policy, an action.

References:
    Balle et al. 2016, Sec. 2 (datasets of trajectories; neighbours differ in one trajectory); Xie et al. 2019,
    Sec. 3 (neighbouring datasets of trajectories); Gohari et al. 2020, Examples 1 (investment) and 2 (random MDPs).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_json_data, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.black_box import no_reference
from dpaudit.mechanisms.inputs import TRAJECTORIES, coverage_pairs, explore_records, one_trajectory
from dpaudit.mechanisms.interface import CandidateSignature, Mechanism, OutputSpec
from dpaudit.mechanisms.views import AuditPairsView
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rl.continuous import UniformActionPolicy, sample_episodes
from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.domains.hiv import HIVTreatment
from dpaudit.rl.domains.investment import investment_mdp
from dpaudit.rl.domains.mountain_car import MountainCar
from dpaudit.rl.domains.random_mdp import random_mdp
from dpaudit.rl.mdp import FiniteMDP
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rl.sampling import sample_trajectories
from dpaudit.rl.trajectory import Trajectory

__all__ = ["MDP_DOMAINS", "MECHANISM", "RlDatasets"]

#: Rollouts the extreme trajectories are chosen from.
POOL_SIZE = 256

#: The built-in domains a spec may name, with the parameters each takes.
MDP_DOMAINS = {
    "chain": ("n_states", "p", "gamma"),
    "investment": ("horizon", "gamma"),
    "random": ("n_states", "n_actions", "horizon", "gamma", "mdp_seed"),
    "mountain_car": ("bins",),
    "hiv": ("bins",),
}

#: The continuous domains (rolled out with the uniform policy and discretised), with their
#: environment, default cells per dimension, pool size and longest rollout (an HIV step solves an ODE).
CONTINUOUS_DOMAINS: dict[str, tuple[Callable[[], Any], int, int, int]] = {
    "mountain_car": (MountainCar, 6, POOL_SIZE, 50),
    "hiv": (HIVTreatment, 3, 32, 20),
}

#: Pilot draws per side of a generated pair other than the first (the pilot ranks them all).
GENERATED_PILOT = 2000

#: The most steps of a rollout in an MDP without a horizon.
DEFAULT_MAX_STEPS = 50


def _inline_mdp(table: Mapping[str, Any]) -> tuple[FiniteMDP, MarkovPolicy | None]:
    known = {"transitions", "rewards", "gamma", "initial", "horizon", "terminal_values", "policy"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise InvalidArgument(f"mdp: unknown keys {unknown}; an inline MDP takes {sorted(known)}")
    for key in ("transitions", "rewards"):
        if key not in table:
            raise InvalidArgument(
                f"mdp.{key}: missing; an inline MDP needs transitions P[s][a][s'] and rewards r[s][a]"
            )
    mdp = FiniteMDP(
        transitions=table["transitions"],
        rewards=table["rewards"],
        gamma=table.get("gamma", 1.0 if table.get("horizon") is not None else 0.9),
        initial=table.get("initial"),
        horizon=table.get("horizon"),
        terminal_values=table.get("terminal_values"),
    )
    policy = table.get("policy")
    return mdp, None if policy is None else MarkovPolicy(policy)


def _domain_mdp(name: str, options: Mapping[str, Any]) -> FiniteMDP:
    if name not in MDP_DOMAINS:
        raise InvalidArgument(
            f"mdp={name!r}: expected one of {sorted(MDP_DOMAINS)} or an inline table {{transitions, rewards, ...}}"
        )
    given = {key: options[key] for key in MDP_DOMAINS[name] if key in options}
    if name == "chain":
        chain = Chain(**{"n_states": 5, **given})
        return chain.mdp()
    if name == "investment":
        return investment_mdp(**given)
    seed = given.pop("mdp_seed", 0)
    return random_mdp(**{"n_states": 5, "n_actions": 3, "horizon": 5, **given}, rng=np.random.default_rng(seed))


@functools.lru_cache(maxsize=8)
def _continuous_pool(name: str, bins: int, seed: int, max_steps: int) -> tuple[Trajectory, ...]:
    """Rollouts of the uniform policy in a continuous domain, each observation mapped to its grid cell
    (computed once per setting: an HIV step solves an ODE)."""
    make, _, count, _ = CONTINUOUS_DOMAINS[name]
    environment = make()
    low, high = environment.observation_low, environment.observation_high
    episodes = sample_episodes(
        environment,
        UniformActionPolicy(environment.n_actions),
        count,
        rng=np.random.default_rng(seed),
        max_steps=max_steps,
    )
    weights = bins ** np.arange(low.size)
    pool = []
    for episode in episodes:
        cells = np.clip(((episode.observations[:-1] - low) / (high - low) * bins).astype(np.int64), 0, bins - 1)
        states = tuple(int(v) for v in cells @ weights)
        pool.append(Trajectory(states, tuple(int(a) for a in episode.actions), tuple(episode.rewards.tolist())))
    return tuple(pool)


@dataclass(frozen=True)
class RlDatasets(AuditPairsView):
    """The public parameters of an ``rl_algorithm`` claim: the MDP its datasets come from.

    It is no reference (``release`` refuses to run); its white-box view ``audit_pairs`` proposes
    the neighbouring datasets of the module docstring.

    Attributes:
        mdp: a built-in domain name or an inline tabular MDP (a table).
        trajectories: the dataset size m, or a list of sizes.
        policy: the behaviour policy π(a | s) (S x A); uniform when omitted (or the inline MDP's).
        max_steps: the most steps of a rollout (the horizon, or 50).
        reward_bounds: [low, high], the rewards a trajectory may carry (default: the MDP's range); they
            must contain the rewards the MDP's rollouts carry.
        dataset_seed: the seed of the rollouts.
        domain: options of a built-in domain (``n_states``, ``p``, ``gamma``, ``horizon``, ...).
    """

    mdp: Any = "chain"
    trajectories: Any = 10
    policy: Any = None
    max_steps: int | None = None
    reward_bounds: Any = None
    dataset_seed: int = 0
    domain: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        sizes = self.trajectories if isinstance(self.trajectories, list | tuple) else [self.trajectories]
        if not sizes:
            raise InvalidArgument("trajectories=[]: expected a dataset size m >= 1 or a list of sizes")
        object.__setattr__(
            self, "trajectories", tuple(check_integer("trajectories", m, low=1, high=10_000) for m in sizes)
        )
        check_integer("dataset_seed", self.dataset_seed, low=0)
        if self.max_steps is not None:
            check_integer("max_steps", self.max_steps, low=1, high=100_000)
        if self.reward_bounds is not None:
            low, high = self.bounds()
            if not low <= high:
                raise InvalidArgument(f"reward_bounds={self.reward_bounds!r}: expected [low, high] with low <= high")
        if self.continuous:
            check_integer("bins", self.domain.get("bins", 2), low=2, high=64)
            if self.policy is not None:
                raise InvalidArgument(f"policy: the {self.mdp} domain is rolled out with the uniform policy")
            return
        mdp, policy = self.model()
        policy.check_compatible(mdp)
        self.check_rewards_inside_bounds(mdp.rewards)

    def check_rewards_inside_bounds(self, rewards: Any) -> None:
        """Refuse ``reward_bounds`` that leave out rewards the MDP's rollouts carry: the claim would be
        judged on datasets it does not cover."""
        if self.reward_bounds is None:
            return
        low, high = self.bounds()
        least, most = float(np.min(rewards)), float(np.max(rewards))
        if least < low or most > high:
            raise InvalidArgument(
                f"reward_bounds={self.reward_bounds!r}: the {self.mdp if isinstance(self.mdp, str) else 'inline'} "
                f"MDP's rollouts carry rewards in [{least:g}, {most:g}], outside them; give bounds that contain them"
            )

    @property
    def continuous(self) -> bool:
        """Whether the MDP is a continuous domain, discretised."""
        return isinstance(self.mdp, str) and self.mdp in CONTINUOUS_DOMAINS

    @property
    def n_states(self) -> int:
        """The number of (discretised) states."""
        if self.continuous:
            environment, bins, _, _ = CONTINUOUS_DOMAINS[self.mdp]
            return int(self.domain.get("bins", bins)) ** len(environment().observation_low)
        return self.model()[0].n_states

    @property
    def gamma(self) -> float:
        """The discount of the MDP (1 for a continuous domain unless the spec gives ``gamma``)."""
        return float(self.domain.get("gamma", 1.0)) if self.continuous else float(self.model()[0].gamma)

    def longest_rollout(self) -> int:
        """The most steps of a rollout: ``max_steps``, else the domain's (the MDP's horizon, or 50)."""
        if self.max_steps is not None:
            return int(self.max_steps)
        if self.continuous:
            return CONTINUOUS_DOMAINS[self.mdp][3]
        return self.model()[0].horizon or DEFAULT_MAX_STEPS

    def model(self) -> tuple[FiniteMDP, MarkovPolicy]:
        """The MDP and the behaviour policy."""
        if isinstance(self.mdp, Mapping):
            mdp, policy = _inline_mdp(self.mdp)
        elif isinstance(self.mdp, str):
            mdp, policy = _domain_mdp(self.mdp, self.domain), None
        else:
            raise InvalidArgument(f"mdp={self.mdp!r}: expected a domain name or an inline table")
        if self.policy is not None:
            policy = MarkovPolicy(self.policy)
        return mdp, policy or MarkovPolicy.uniform(mdp.n_states, mdp.n_actions)

    def bounds(self) -> tuple[float, float]:
        """The reward bounds [low, high]: the spec's, or the smallest and largest reward of the MDP."""
        if self.reward_bounds is not None:
            if not isinstance(self.reward_bounds, list | tuple) or len(self.reward_bounds) != 2:
                raise InvalidArgument(f"reward_bounds={self.reward_bounds!r}: expected [low, high]")
            low, high = (check_real("reward_bounds", value) for value in self.reward_bounds)
            return low, high
        if self.continuous:
            rewards = np.concatenate([np.asarray(t.rewards, dtype=float) for t in self.pool()])
        else:
            rewards = self.model()[0].rewards
        return float(np.min(rewards)), float(np.max(rewards))

    def pool(self) -> list[Trajectory]:
        """:data:`POOL_SIZE` rollouts of the behaviour policy (seeded by ``dataset_seed``)."""
        if self.continuous:
            bins = int(self.domain.get("bins", CONTINUOUS_DOMAINS[self.mdp][1]))
            return list(_continuous_pool(self.mdp, bins, self.dataset_seed, self.longest_rollout()))
        mdp, policy = self.model()
        cap = self.longest_rollout()
        batch = sample_trajectories(mdp, policy, POOL_SIZE, rng=np.random.default_rng(self.dataset_seed), max_steps=cap)
        return list(batch.to_dataset())

    def extremes(self, pool: list[Trajectory]) -> dict[str, Trajectory]:
        """The extreme trajectories of the module docstring, by name."""
        returns = [float(sum(t.rewards)) for t in pool]
        lengths = [len(t) for t in pool]
        counts: dict[tuple[int, int], int] = {}
        for trajectory in pool:
            for step in zip(trajectory.states, trajectory.actions, strict=True):
                counts[step] = counts.get(step, 0) + 1
        rarity = [min(counts[step] for step in zip(t.states, t.actions, strict=True)) for t in pool]
        low, high = self.bounds()
        longest = pool[int(np.argmax(lengths))]
        return {
            "the largest return": pool[int(np.argmax(returns))],
            "the smallest return": pool[int(np.argmin(returns))],
            "the longest": longest,
            "the shortest": pool[int(np.argmin(lengths))],
            "the rarest state-action pair": pool[int(np.argmin(rarity))],
            "the longest at the upper reward bound": Trajectory(
                longest.states, longest.actions, (high,) * len(longest)
            ),
            "the longest at the lower reward bound": Trajectory(longest.states, longest.actions, (low,) * len(longest)),
        }

    def audit_pairs(self, relation: Relation) -> list[tuple[Any, Any, str, int | None]]:
        """Neighbouring datasets of every size in ``trajectories`` around the extreme trajectories, each
        with its pilot: the first two pairs the budget's, the others :data:`GENERATED_PILOT` draws per side.

        First, for every size m, the differing trajectory beside m - 1 copies of the shortest one (the
        states it visits are visited by no other trajectory: a statistic normalised by visit counts, or a
        count, moves the most there); then beside m - 1 rollouts."""
        pool = self.pool()
        if self.continuous:  # a finite MDP's rewards were checked when the parameters were read
            self.check_rewards_inside_bounds(np.concatenate([np.asarray(t.rewards, dtype=float) for t in pool]))
        extremes = self.extremes(pool)
        upper, lower = (
            extremes["the longest at the upper reward bound"],
            extremes["the longest at the lower reward bound"],
        )
        pairs: list[tuple[Any, Any, str]] = []
        for m in self.trajectories:
            alone = [extremes["the shortest"]] * (m - 1)
            if relation.kind == REPLACE_ONE:
                pairs.append(
                    (
                        (*alone, upper),
                        (*alone, lower),
                        f"m = {m}: the longest at the upper vs the lower reward "
                        f"bound, beside {m - 1} copies of the shortest",
                    )
                )
            elif relation.kind == ADD_REMOVE_ONE and m > 1:
                pairs.append(
                    (
                        (*alone,),
                        (*alone, upper),
                        f"m = {m}: the longest at the upper reward bound added to {m - 1} copies of the shortest",
                    )
                )
        for m in self.trajectories:
            base = [pool[(index + 1) % len(pool)] for index in range(m)]
            if relation.kind == REPLACE_ONE:
                for name_a, name_b in _OPPOSED:
                    first, second = extremes[name_a], extremes[name_b]
                    pairs.append(((*base[:-1], first), (*base[:-1], second), f"m = {m}: {name_a} vs {name_b}"))
                for name, trajectory in extremes.items():
                    pairs.append(((*base,), (*base[:-1], trajectory), f"m = {m}: a rollout replaced by {name}"))
            elif relation.kind == ADD_REMOVE_ONE:
                pairs.append(((*base,), (*base, base[0]), f"m = {m}: a rollout duplicated"))
                for name, trajectory in extremes.items():
                    pairs.append(((*base,), (*base, trajectory), f"m = {m}: {name} added"))
        unique = _unique_pairs(pairs)
        return [
            (first, second, label, None if index < 2 else GENERATED_PILOT)
            for index, (first, second, label) in enumerate(unique)
        ]

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Refuse: the algorithm is the candidate's."""
        raise no_reference("rl_algorithm")


#: Extreme trajectories set against each other in replace-one pairs (the first pair leads the pilot).
_OPPOSED = (
    ("the longest at the upper reward bound", "the longest at the lower reward bound"),
    ("the largest return", "the smallest return"),
    ("the longest", "the shortest"),
    ("the rarest state-action pair", "the largest return"),
)


def _unique_pairs(pairs: list[tuple[Any, Any, str]]) -> list[tuple[Any, Any, str]]:
    seen: set[tuple[Any, Any]] = set()
    unique = []
    for first, second, label in pairs:
        if first == second or (first, second) in seen:
            continue
        seen.add((first, second))
        unique.append((first, second, label))
    return unique


def _rl_datasets(**params: Any) -> RlDatasets:
    plain = check_json_data(params, "params")
    known = {"mdp", "trajectories", "policy", "max_steps", "reward_bounds", "dataset_seed"}
    options = {key: value for key, value in plain.items() if key not in known}
    name = plain.get("mdp", "chain")
    allowed = set(MDP_DOMAINS.get(name, ())) if isinstance(name, str) else set()  # an inline MDP takes none
    if set(options) - allowed:  # a misspelling, or another domain's options (the report would echo them as used)
        everywhere = {key for keys in MDP_DOMAINS.values() for key in keys}
        unknown = sorted(set(options) - everywhere)
        raise InvalidArgument(
            f"rl_algorithm: unknown parameters {unknown}; it takes {sorted(known)} and a built-in domain's "
            f"options {sorted(everywhere)}"
            if unknown
            else f"rl_algorithm: {sorted(set(options) - allowed)} are not options of mdp={name!r}; the {name} "
            f"domain takes {sorted(allowed)}"
        )
    return RlDatasets(**{key: value for key, value in plain.items() if key in known}, domain=options)


def _explore(pairs: Any, params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """Covering trajectories at the upper reward bound (one step, and a long episode; only when the
    bounds hold [0, high], since their other rewards are 0), long stays in one state
    (:func:`_dwelling_pairs`, at the bounds), then the given pairs padded, rotated and cut, their rewards
    inside the bounds."""
    datasets = _rl_datasets(**params)
    low, high = datasets.bounds()
    gamma, steps = datasets.gamma, datasets.longest_rollout()
    found: list[tuple[Any, Any, str]] = []
    if low <= 0.0 < high:  # covering trajectories carry rewards in [0, high]: inside the bounds only then
        coverage = {"n_states": datasets.n_states, "r_max": high, "gamma": gamma}
        found = coverage_pairs(coverage, relation)
        if 0.0 <= gamma < 1.0:
            long_episodes = coverage_pairs(coverage, relation, return_bound=high / (1.0 - gamma))
            found += [
                (_cut(first, steps), _cut(second, steps), label.replace("search:", "search: long episodes,", 1))
                for first, second, label in long_episodes
            ]
    found += _dwelling_pairs(datasets.n_states, steps, (low, high), relation, sorted({1, *datasets.trajectories}))
    return found + [proposal for proposal in explore_records(pairs, params, relation) if _within(proposal, low, high)]


def _within(proposal: tuple[Any, Any, str], low: float, high: float) -> bool:
    """Whether every reward of both datasets lies in [low, high] (a variant with zero rewards may not)."""
    return all(low <= step[-1] <= high for dataset in proposal[:2] for trajectory in dataset for step in trajectory)


def _cut(dataset: list[Any], steps: int) -> list[Any]:
    """Every trajectory of ``dataset`` cut to its first ``steps`` steps (no longer than a rollout may be)."""
    return [trajectory[:steps] for trajectory in dataset]


def _dwelling_pairs(
    n_states: int, steps: int, bounds: tuple[float, float], relation: Relation, sizes: list[int]
) -> list[tuple[Any, Any, str]]:
    """A trajectory that stays ``steps`` steps in state 0 (action 0, every reward at the upper bound)
    against one that stays as long in the last state (rewards at the upper bound, then at the lower),
    beside ``size - 1`` one-step trajectories rewarded 0 (or the bound nearest 0 when 0 is outside the
    bounds); under add/remove, the stay added.

    A visit count moves by ``steps`` in two states at once here (L2 √2 T, L1 2 T): the worst case of
    state-occupancy statistics, which covering trajectories (one visit per state) do not reach."""
    low, high = bounds
    stay = [[0, 0, high]] * steps
    others = [("in the last state at the upper reward bound", [[n_states - 1, 0, high]] * steps)]
    others.append(("in the last state at the lower reward bound", [[n_states - 1, 0, low]] * steps))
    found: list[tuple[Any, Any, str]] = []
    for size in sizes:
        common = [[[0, 0, min(max(0.0, low), high)]]] * (size - 1)
        text = f"search: {size} trajectories, a {steps}-step stay in state 0 at the upper reward bound"
        if relation.kind == REPLACE_ONE:
            for name, other in others:
                found.append(([*common, stay], [*common, other], f"{text} vs as long {name}"))
        elif size > 1:
            found.append(([*common, stay], common, f"{text} removed"))
    return found


MECHANISM = Mechanism(
    name="rl_algorithm",
    description="any DP-RL algorithm on a dataset of trajectories, with datasets rolled out in a named MDP",
    factory=_rl_datasets,
    input_domain=TRAJECTORIES,
    relations=(REPLACE_ONE, ADD_REMOVE_ONE),
    neighbourhood=one_trajectory(explore=_explore),
    output=OutputSpec("whatever your algorithm returns: a value vector, a Q-table, a policy, an action"),
    views=frozenset({AuditPairsView}),
    candidate=CandidateSignature("dataset", "rl_algorithm(dataset, *, <your [candidate] params>, rng) -> output"),
    source="Balle et al. 2016, Sec. 2",
    has_reference=False,
    categorical_outputs=True,
)
