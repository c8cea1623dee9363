"""GTD2 as a stochastic saddle-point method (Xie et al. 2019, Sec. 2) and its exact target.

Data are per-transition arrays of a dataset of trajectories, stored trajectory-major in
a :class:`TransitionTable`: for every transition t of trajectory i the features φ_t and
φ_{t+1}, the reward R_t and the importance ratio ρ_t = π(A_t|S_t)/π_b(A_t|S_t).

Normalisation of the per-trajectory estimates. Eq. (2.2) of Xie et al. sums over
t = 0..τ_i (τ_i + 1 transitions, since a trajectory "of length τ" is
{(S_t, A_t, R_t, S_{t+1})}_{t=0}^{τ}) and divides by τ_i. Two versions are encoded:

* ``"paper"``: divide by τ_i = (number of transitions) − 1, exactly as eq. (2.2) is
  written; it is undefined for one-transition trajectories (InvalidArgument);
* ``"mean"``: divide by the number of transitions (the per-trajectory average).

References:
    Xie, Thomas, Miklau 2019, "Privacy Preserving Off-Policy Evaluation", eq. (2.1)–(2.3),
    (4.1), (6.2)–(6.4); Liu et al. 2015 (saddle-point GTD2); Sutton et al. 2009 (MSPBE).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_choice, check_finite_array, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.rl.continuous import Episode
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rl.trajectory import Trajectory

__all__ = [
    "NORMALISATIONS",
    "DatasetMoments",
    "SaddlePoint",
    "TransitionTable",
    "dataset_moments",
    "expected_gtd2",
    "mspbe",
    "saddle_point",
    "trajectory_normalisers",
]

NORMALISATIONS = ("paper", "mean")


@dataclass(frozen=True, eq=False)
class TransitionTable:
    """Transitions of m trajectories, trajectory-major.

    Attributes:
        phi: (T, n) features φ(S_t) of every transition.
        phi_next: (T, n) features φ(S_{t+1}) (zero where the next state is terminal).
        rewards: (T,) rewards R_t.
        rho: (T,) importance ratios ρ_t (1 on-policy).
        offsets: (m + 1,) trajectory i owns rows offsets[i]:offsets[i+1].
        gamma: the discount γ.
    """

    phi: np.ndarray
    phi_next: np.ndarray
    rewards: np.ndarray
    rho: np.ndarray
    offsets: np.ndarray
    gamma: float

    def __post_init__(self) -> None:
        phi = check_finite_array("phi", self.phi, ndim=2)
        rows, n = phi.shape
        object.__setattr__(self, "phi", phi)
        object.__setattr__(self, "phi_next", check_finite_array("phi_next", self.phi_next, shape=(rows, n)))
        object.__setattr__(self, "rewards", check_finite_array("rewards", self.rewards, shape=(rows,)))
        object.__setattr__(self, "rho", check_finite_array("rho", self.rho, shape=(rows,), nonnegative=True))
        offsets = np.asarray(self.offsets, dtype=np.int64)
        if (
            offsets.ndim != 1
            or offsets.size < 2
            or offsets[0] != 0
            or offsets[-1] != rows
            or (np.diff(offsets) < 1).any()
        ):
            raise InvalidArgument(
                f"offsets: expected 0 = o_0 < o_1 < ... < o_m = {rows} (every trajectory non-empty), "
                f"got {offsets[:8]}..."
            )
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "gamma", check_real("gamma", self.gamma, low=0.0, high=1.0))

    @property
    def n_trajectories(self) -> int:
        """The number m of trajectories."""
        return int(self.offsets.size - 1)

    @property
    def n_features(self) -> int:
        """The feature dimension n."""
        return int(self.phi.shape[1])

    @property
    def lengths(self) -> np.ndarray:
        """Transitions per trajectory."""
        return np.diff(self.offsets)

    @classmethod
    def from_trajectories(
        cls,
        trajectories: Sequence[Trajectory],
        features: np.ndarray,
        gamma: float,
        *,
        target: MarkovPolicy | None = None,
        behaviour: MarkovPolicy | None = None,
        terminal_states: Sequence[int] = (),
    ) -> TransitionTable:
        """Build the table of a finite-MDP dataset with a feature matrix Φ (n_states × n).

        The successor of the last triple is the trajectory's ``next_state`` (a terminal
        state in ``terminal_states`` or an unknown successor gives φ_{t+1} = 0). With
        ``target`` and ``behaviour`` policies, ρ_t = π(A_t|S_t)/π_b(A_t|S_t); a pair with
        π_b(a|s) = 0 < π(a|s) anywhere is rejected (the ratio is undefined).

        Raises:
            InvalidArgument: for empty data, states outside Φ's rows, or incompatible policies.
        """
        items = tuple(trajectories)
        if not items:
            raise InvalidArgument("dataset: expected at least one trajectory (m >= 1)")
        phi_matrix = check_finite_array("features", features, ndim=2)
        ratios = _ratios(target, behaviour, phi_matrix.shape[0])
        terminal = set(int(s) for s in terminal_states)
        states: list[int] = []
        successors: list[int] = []
        actions: list[int] = []
        rewards: list[float] = []
        offsets = [0]
        for x in items:
            states.extend(x.states)
            actions.extend(x.actions)
            rewards.extend(float(r) for r in x.rewards)
            following = -1 if x.next_state is None or x.next_state in terminal else x.next_state
            successors.extend([*list(x.states[1:]), following])
            offsets.append(offsets[-1] + len(x))
        state_array = np.asarray(states, dtype=np.int64)
        successor_array = np.asarray(successors, dtype=np.int64)
        if state_array.max() >= phi_matrix.shape[0] or successor_array.max() >= phi_matrix.shape[0]:
            raise InvalidArgument(f"trajectories: a state is outside the {phi_matrix.shape[0]} rows of the features")
        padded = np.vstack([phi_matrix, np.zeros((1, phi_matrix.shape[1]))])
        rho = np.ones(state_array.size) if ratios is None else ratios[state_array, np.asarray(actions, dtype=np.int64)]
        return cls(
            phi=phi_matrix[state_array],
            phi_next=padded[successor_array],
            rewards=np.asarray(rewards),
            rho=rho,
            offsets=np.asarray(offsets),
            gamma=gamma,
        )

    @classmethod
    def from_episodes(
        cls,
        episodes: Sequence[Episode],
        basis: Callable[[np.ndarray], np.ndarray],
        gamma: float,
        *,
        target: Callable[[np.ndarray], Any] | None = None,
        behaviour: Callable[[np.ndarray], Any] | None = None,
    ) -> TransitionTable:
        """Build the table of a continuous-state dataset with a feature map (e.g. a FourierBasis).

        φ_t = basis(o_t) and φ_{t+1} = basis(o_{t+1}), except that φ_{t+1} = 0 at the last
        step of an episode that terminated (a step-capped episode keeps basis(o_L)). With
        ``target`` and ``behaviour``, callables mapping one observation to the vector of
        action probabilities, ρ_t = π(A_t|o_t)/π_b(A_t|o_t).

        Args:
            episodes: the dataset, each with at least one step.
            basis: maps observations of shape (k, d) to features of shape (k, n).
            gamma: the discount γ in [0, 1].
            target, behaviour: both or neither (on-policy data, ρ_t = 1).

        Raises:
            InvalidArgument: for an empty dataset, an empty episode, a feature map of the
                wrong shape, only one of the two policies, a probability vector that is not
                one or too short for an action, the behaviour policy giving probability 0 to
                an action taken, or π_b(a|o) = 0 while π(a|o) > 0 at a visited observation.

        References:
            Xie et al. 2019, Sec. 2 (ρ_t = π(a|s)/π_b(a|s)), eq. (2.2), Sec. 7 (Mountain Car, HIV).
        """
        items = tuple(episodes)
        if not items:
            raise InvalidArgument("dataset: expected at least one episode (m >= 1)")
        if (target is None) != (behaviour is None):
            raise InvalidArgument("target and behaviour: give both policies for off-policy data, or neither")
        phi_parts: list[np.ndarray] = []
        next_parts: list[np.ndarray] = []
        rewards: list[Any] = []
        rho: list[np.ndarray] = []
        offsets = [0]
        for i, episode in enumerate(items):
            if not isinstance(episode, Episode):
                raise InvalidArgument(f"episodes[{i}]: expected an Episode, got {type(episode).__name__}")
            steps = len(episode)
            if steps < 1:
                raise InvalidArgument(f"episodes[{i}] has no step: every episode needs at least one transition")
            features = check_finite_array(f"basis(episodes[{i}].observations)", basis(episode.observations), ndim=2)
            if features.shape[0] != steps + 1 or (phi_parts and features.shape[1] != phi_parts[0].shape[1]):
                raise InvalidArgument(
                    f"basis: mapped the {steps + 1} observations of episodes[{i}] to shape {features.shape}; "
                    "expected one feature row per observation, of the same length for every episode"
                )
            following = features[1:].copy()
            if episode.terminated:
                following[-1] = 0.0
            phi_parts.append(features[:-1])
            next_parts.append(following)
            rewards.append(episode.rewards)
            if target is not None and behaviour is not None:
                rho.append(_episode_ratios(i, episode, target, behaviour))
            offsets.append(offsets[-1] + steps)
        phi = np.vstack(phi_parts)
        return cls(
            phi=phi,
            phi_next=np.vstack(next_parts),
            rewards=np.concatenate(rewards),
            rho=np.ones(phi.shape[0]) if target is None else np.concatenate(rho),
            offsets=np.asarray(offsets),
            gamma=gamma,
        )


def _episode_ratios(
    index: int, episode: Episode, target: Callable[..., Any], behaviour: Callable[..., Any]
) -> np.ndarray:
    observations = episode.observations[:-1]
    where = f"episodes[{index}]"
    pi = _probability_rows(f"target probabilities along {where}", [target(o) for o in observations])
    pi_b = _probability_rows(f"behaviour probabilities along {where}", [behaviour(o) for o in observations])
    if pi.shape != pi_b.shape or int(episode.actions.max()) >= pi.shape[1]:
        raise InvalidArgument(
            f"policies along {where}: {pi.shape[1]} target and {pi_b.shape[1]} behaviour probabilities per step "
            f"for actions up to {int(episode.actions.max())}; expected equal lengths covering every action"
        )
    gap = _first_uncovered(pi, pi_b)
    if gap is not None:
        t, a = gap
        raise InvalidArgument(
            f"behaviour policy: pi_b(a={a}|o) = 0 while pi(a={a}|o) = {pi[t, a]!r} > 0 at {where} step {t}: "
            + _NO_COVERAGE
        )
    steps = np.arange(len(episode))
    taken_b = pi_b[steps, episode.actions]
    if (taken_b == 0).any():
        t = int(np.argmax(taken_b == 0))
        a = int(episode.actions[t])
        raise InvalidArgument(f"behaviour policy: pi_b(a={a}|o) = 0 at {where} step {t}, yet the data took action {a}")
    return pi[steps, episode.actions] / taken_b


_NO_COVERAGE = "the importance ratio is undefined (off-policy evaluation needs coverage)"


def _first_uncovered(pi: np.ndarray, pi_b: np.ndarray) -> tuple[int, int] | None:
    """The first (row, action) at which the target policy ``pi`` may act and the behaviour policy ``pi_b``
    never does (no importance ratio exists there), or None when ``pi_b`` covers ``pi``."""
    uncovered = np.argwhere((pi_b == 0) & (pi > 0))
    if not uncovered.size:
        return None
    row, action = (int(i) for i in uncovered[0])
    return row, action


def _probability_rows(name: str, rows: list[Any]) -> np.ndarray:
    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"{name}: expected one probability vector of the same length per step") from exc
    matrix = check_finite_array(name, matrix, ndim=2, nonnegative=True)
    totals = matrix.sum(axis=1)
    if (np.abs(totals - 1.0) > 1e-9).any():
        t = int(np.argmax(np.abs(totals - 1.0) > 1e-9))
        raise InvalidArgument(f"{name}: the vector at step {t} sums to {totals[t]!r}, expected 1 within 1e-09")
    return matrix


def _ratios(target: MarkovPolicy | None, behaviour: MarkovPolicy | None, n_states: int) -> np.ndarray | None:
    if target is None and behaviour is None:
        return None
    if target is None or behaviour is None:
        raise InvalidArgument("target and behaviour: give both policies for off-policy data, or neither")
    if not (target.is_stationary and behaviour.is_stationary):
        raise InvalidArgument("target and behaviour: expected stationary policies")
    pi, pi_b = target.probabilities, behaviour.probabilities
    if pi.shape != pi_b.shape or pi.shape[0] != n_states:
        raise InvalidArgument(f"policies: shapes {pi.shape} and {pi_b.shape} must both be ({n_states}, n_actions)")
    gap = _first_uncovered(pi, pi_b)
    if gap is not None:
        s, a = gap
        raise InvalidArgument(
            f"behaviour policy: pi_b(a={a}|s={s}) = 0 while pi(a={a}|s={s}) = {pi[s, a]!r} > 0: " + _NO_COVERAGE
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pi_b > 0, pi / np.where(pi_b > 0, pi_b, 1.0), 0.0)


def trajectory_normalisers(table: TransitionTable, normalisation: str) -> np.ndarray:
    """The divisor of each trajectory's estimates: its length (``mean``) or its length − 1 (``paper``, eq. (2.2))."""
    check_choice("normalisation", normalisation, NORMALISATIONS)
    lengths = table.lengths.astype(np.float64)
    if normalisation == "mean":
        return lengths
    if (lengths < 2).any():
        i = int(np.argmax(lengths < 2))
        raise InvalidArgument(
            f"trajectory {i} has one transition (tau_i = 0): eq. (2.2) divides by tau_i; "
            "use normalisation='mean' for such data"
        )
    return lengths - 1.0


@dataclass(frozen=True)
class DatasetMoments:
    """The dataset averages of the per-trajectory estimates: Ā = (1/m) Σ Â_i, b̄, C̄ (eq. 2.2)."""

    A: np.ndarray
    b: np.ndarray
    C: np.ndarray


def dataset_moments(table: TransitionTable, *, normalisation: str = "mean") -> DatasetMoments:
    """Average the per-trajectory estimates Â_i, b̂_i, Ĉ_i of eq. (2.2) over the dataset.

    Returns:
        The empirical A, b, C (the expectations of eq. (2.1) under the empirical law of
        trajectories, which is what GTD2 sampling uniformly from the dataset targets).
    """
    weights = 1.0 / (trajectory_normalisers(table, normalisation) * table.n_trajectories)
    per_row = np.repeat(weights, table.lengths)
    scaled = (table.rho * per_row)[:, None] * table.phi
    delta_phi = table.phi - table.gamma * table.phi_next
    return DatasetMoments(
        A=scaled.T @ delta_phi,
        b=scaled.T @ table.rewards,
        C=(per_row[:, None] * table.phi).T @ table.phi,
    )


@dataclass(frozen=True)
class SaddlePoint:
    """The solution of eq. (6.4): θ* = (AᵀC⁻¹A)⁻¹AᵀC⁻¹b and w* = C⁻¹(b − Aθ*).

    Attributes:
        theta, w: the saddle point.
        w_as_printed: C⁻¹(b − Aᵀθ*), the formula for w* as printed in eq. (6.2); it
            differs from the solution of (6.4) whenever Aθ* ≠ Aᵀθ* (a typo in the paper,
            kept for the record).
    """

    theta: np.ndarray
    w: np.ndarray
    w_as_printed: np.ndarray


def saddle_point(moments: DatasetMoments) -> SaddlePoint:
    """Solve for θ* (eq. 6.2) and w* (first-order condition 6.4).

    Raises:
        InvalidArgument: if C or AᵀC⁻¹A is singular (features not identifiable from the data).
    """
    try:
        c_inv_a = np.linalg.solve(moments.C, moments.A)
        c_inv_b = np.linalg.solve(moments.C, moments.b)
        theta = np.linalg.solve(moments.A.T @ c_inv_a, moments.A.T @ c_inv_b)
    except np.linalg.LinAlgError as exc:
        raise InvalidArgument(f"the saddle point is undefined: C or A^T C^-1 A is singular ({exc})") from exc
    return SaddlePoint(
        theta=theta,
        w=np.linalg.solve(moments.C, moments.b - moments.A @ theta),
        w_as_printed=np.linalg.solve(moments.C, moments.b - moments.A.T @ theta),
    )


def mspbe(theta: np.ndarray, moments: DatasetMoments) -> float:
    """Mean squared projected Bellman error ‖Aθ − b‖²_{C⁻¹} = (Aθ − b)ᵀ C⁻¹ (Aθ − b).

    References:
        Sutton et al. 2009; Liu et al. 2015, Sec. 2; Xie et al. 2019, Sec. 7.
    """
    residual = moments.A @ np.asarray(theta, dtype=np.float64) - moments.b
    return float(residual @ np.linalg.solve(moments.C, residual))


def expected_gtd2(moments: DatasetMoments, step_size: float, iterations: int) -> np.ndarray:
    """GTD2 with expected updates: eq. (2.3) with Â_i, b̂_i, Ĉ_i replaced by A, b, C.

    The deterministic iteration ξ ← ξ − β(Qξ − [0; b]) with Q of eq. (6.3), from ξ = 0.
    It isolates the convergence of the saddle-point dynamics from sampling noise.

    Returns:
        θ after ``iterations`` steps.
    """
    beta = check_real("step_size", step_size, low=0.0, low_open=True)
    n = moments.A.shape[0]
    q = np.block([[np.zeros((n, n)), -moments.A.T], [moments.A, moments.C]])
    target = np.concatenate([np.zeros(n), moments.b])
    xi = np.zeros(2 * n)
    for _ in range(iterations):
        xi = xi - beta * (q @ xi - target)
    return xi[:n]
