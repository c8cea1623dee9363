"""GPOPE, Gradient Perturbed Off-Policy Evaluation (Xie et al. 2019, Algorithm 1).

Each of N iterations draws one trajectory uniformly from the m in the dataset, forms
the primal–dual gradient B_i of eq. (4.1), clips it to ℓ2 norm h (step 5), adds
h·ζ with ζ ~ N(0, σ² I_{2n}) (step 6) and takes a step (step 7).

The reference takes what a user's GPOPE naturally has: the noise multiplier σ, or the target
(ε, δ) from which σ is computed by the paper's own calibration (Theorem 1, eq. (5.1), with the
constant c2 its proof fixes, eqs. (B.26), (B.32), (B.33)); and the number of trajectories m
(``records``), on which both that calibration and the privacy of each step (q = 1/m) depend.

References:
    Xie, Thomas, Miklau 2019, Algorithm 1, eq. (4.1), Theorems 1–3, eq. (5.1), Appendix B.2.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from dpaudit._validation import check_choice, check_integer, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gpope_search import explore_tables
from dpaudit.mechanisms.gtd2 import (
    NORMALISATIONS,
    TransitionTable,
)
from dpaudit.mechanisms.gtd2_gradients import primal_dual_gradients, primal_dual_operators
from dpaudit.mechanisms.interface import (
    CandidateSignature,
    InputDomain,
    Mechanism,
    Neighbourhood,
    OutputSpec,
)
from dpaudit.mechanisms.views import PerStepView
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rng import normalize_rng

__all__ = ["GPOPE", "MECHANISM", "GpopeRun", "StepSizes", "paper_noise_multiplier"]

STEP_SCHEDULES = ("constant", "theorem2", "theorem3")
PAPER_CALIBRATIONS = ("paper_b32", "paper_b26")


@dataclass(frozen=True)
class StepSizes:
    """Step-size sequences of Xie et al. 2019.

    Attributes:
        schedule: ``constant`` (β_i = eta), ``theorem2`` (β_i = η/N^k, Theorem 2, with
            k in (0, 1)), ``theorem3`` (β_i = η/(λ_min(Q)·i), Theorem 3, η > 1).
        eta: η > 0.
        k: the exponent of ``theorem2``.
        lambda_min: λ_min(Q) > 0 for ``theorem3`` (public; e.g. estimated on public data).
    """

    schedule: str = "constant"
    eta: float = 0.1
    k: float = 0.5
    lambda_min: float = 1.0

    def __post_init__(self) -> None:
        check_choice("schedule", self.schedule, STEP_SCHEDULES)
        object.__setattr__(self, "eta", check_real("eta", self.eta, low=0.0, low_open=True))
        object.__setattr__(self, "k", check_real("k", self.k, low=0.0, high=1.0, low_open=True, high_open=True))
        object.__setattr__(self, "lambda_min", check_real("lambda_min", self.lambda_min, low=0.0, low_open=True))
        if self.schedule == "theorem3" and self.eta <= 1.0:
            raise InvalidArgument(f"eta={self.eta!r}: Theorem 3 needs eta > 1")

    def sequence(self, iterations: int) -> np.ndarray:
        """β_1, ..., β_N."""
        if self.schedule == "constant":
            return np.full(iterations, self.eta)
        if self.schedule == "theorem2":
            return np.full(iterations, self.eta / iterations**self.k)
        return self.eta / (self.lambda_min * np.arange(1, iterations + 1))


def paper_noise_multiplier(
    epsilon: float, delta: float, m: int, iterations: int, *, version: str = "paper_b32"
) -> float:
    """The noise multiplier σ the paper's proof of Theorem 1 gives for a target (ε, δ).

    The proof bounds the log moment and applies the tail bound δ = min_λ exp(α(λ) − λε):

    * ``paper_b32``: eq. (B.32) as printed, α(λ) <= Nλ²/(m²σ²), giving
      δ <= exp(−m²σ²ε²/(4N)), i.e. σ = 2√(N ln(1/δ))/(mε);
    * ``paper_b26``: the bound stated just before it, α(λ) <= 4Nλ²/(m²σ²) (from (B.26)),
      giving δ <= exp(−m²σ²ε²/(16N)), i.e. σ = 4√(N ln(1/δ))/(mε).

    Both also need σ >= √(1/ln 2) (the regime of (B.26)); the larger value is returned.
    Theorem 1 leaves c1, c2 unspecified; these are the constants its proof implies.

    References:
        Xie et al. 2019, Theorem 1, eq. (5.1); Appendix B.2, eqs. (B.26), (B.31)-(B.33).
    """
    eps = check_real("epsilon", epsilon, low=0.0, low_open=True)
    dlt = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    m = check_integer("m", m, low=1)
    n = check_integer("iterations", iterations, low=1)
    check_choice("version", version, PAPER_CALIBRATIONS)
    c2 = 2.0 if version == "paper_b32" else 4.0
    return max(c2 * math.sqrt(n * math.log(1.0 / dlt)) / (m * eps), math.sqrt(1.0 / math.log(2.0)))


@dataclass(frozen=True)
class GpopeRun:
    """One run of GPOPE: final iterate and, optionally, the iterates every ``record_every`` steps."""

    theta: np.ndarray
    w: np.ndarray
    recorded_steps: np.ndarray
    recorded_theta: np.ndarray
    clipped_fraction: float


@dataclass(frozen=True)
class GPOPE(PerStepView):
    """Algorithm 1 of Xie et al. 2019 with public parameters.

    Attributes:
        clip_norm: h > 0 (step 5).
        noise_multiplier: σ >= 0 (step 6; the noise added is h·N(0, σ² I)); 0 gives GTD2.
            ``None``: calibrated from ``epsilon`` and ``delta`` when they are given, else 1.
        iterations: N >= 1.
        step_sizes: the β_i sequence.
        normalisation: the per-trajectory normalisation of eq. (2.2) (see mechanisms.gtd2).
        clip: apply step 5 (False only for the non-private GTD2 baseline).
        records: m, the number of trajectories of the dataset (``None``: any). Given, an input
            has m trajectories (the larger input of an add/remove-one pair; its smaller one m − 1).
        epsilon: the target ε of the paper's calibration (with ``delta`` and ``records``).
        delta: the target δ of the paper's calibration.
        calibration: which constant of the proof of Theorem 1 the calibration uses:
            ``paper_b32`` (c2 = 2, eq. (B.32) as printed) or ``paper_b26`` (c2 = 4, from (B.26));
            see :func:`paper_noise_multiplier`.

    Raises:
        InvalidArgument: for a parameter out of range, ``noise_multiplier`` given together with
            ``epsilon``/``delta``, only one of ``epsilon`` and ``delta``, or (ε, δ) without ``records``.

    References:
        Xie et al. 2019, Algorithm 1; Theorem 1, eq. (5.1); Appendix B.2, eqs. (B.32), (B.33).
    """

    clip_norm: float = 1.0
    noise_multiplier: float | None = None
    iterations: int = 1000
    step_sizes: StepSizes = StepSizes()
    normalisation: str = "mean"
    clip: bool = True
    records: int | None = None
    epsilon: float | None = None
    delta: float | None = None
    calibration: str = "paper_b32"

    def __post_init__(self) -> None:
        object.__setattr__(self, "clip_norm", check_real("clip_norm", self.clip_norm, low=0.0, low_open=True))
        object.__setattr__(self, "iterations", check_integer("iterations", self.iterations, low=1))
        if self.records is not None:
            object.__setattr__(self, "records", check_integer("records", self.records, low=1))
        check_choice("calibration", self.calibration, PAPER_CALIBRATIONS)
        object.__setattr__(self, "noise_multiplier", self._resolved_noise_multiplier())
        if isinstance(self.step_sizes, dict):
            object.__setattr__(self, "step_sizes", StepSizes(**self.step_sizes))
        if not isinstance(self.step_sizes, StepSizes):
            raise InvalidArgument(f"step_sizes={self.step_sizes!r}: expected a StepSizes or a table of its fields")
        check_choice("normalisation", self.normalisation, NORMALISATIONS)

    def _resolved_noise_multiplier(self) -> float:
        """σ as given, or by the paper's calibration (eq. (5.1)/(B.33)) from (ε, δ, m, N), or 1."""
        targets = {"epsilon": self.epsilon, "delta": self.delta}
        if all(value is None for value in targets.values()):
            if self.noise_multiplier is None:
                return 1.0
            return check_real("noise_multiplier", self.noise_multiplier, low=0.0)
        missing = [name for name, value in targets.items() if value is None]
        if missing:
            raise InvalidArgument(
                f"epsilon={self.epsilon!r}, delta={self.delta!r}: the calibration of Theorem 1 needs both; "
                f"give {missing[0]} too, or give noise_multiplier instead"
            )
        if self.noise_multiplier is not None:
            raise InvalidArgument(
                f"noise_multiplier={self.noise_multiplier!r} with epsilon={self.epsilon!r}, delta={self.delta!r}: "
                "give either noise_multiplier or (epsilon, delta), from which it is calibrated (eq. (5.1))"
            )
        if self.records is None:
            raise InvalidArgument(
                f"epsilon={self.epsilon!r}, delta={self.delta!r} without records: the calibration of eq. (5.1) "
                "depends on the number of trajectories m; give records = m"
            )
        epsilon = check_real("epsilon", self.epsilon, low=0.0, low_open=True)
        delta = check_real("delta", self.delta, low=0.0, high=1.0, low_open=True, high_open=True)
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        return paper_noise_multiplier(epsilon, delta, self.records, self.iterations, version=self.calibration)

    @property
    def sigma(self) -> float:
        """The noise multiplier σ in use (after calibration)."""
        return cast(float, self.noise_multiplier)

    def check_records(self, data: TransitionTable) -> None:
        """Refuse a dataset whose number of trajectories is not ``records`` (or ``records`` − 1).

        Raises:
            InvalidArgument: naming both counts.
        """
        if self.records is not None and data.n_trajectories not in (self.records, self.records - 1):
            raise InvalidArgument(
                f"input: {data.n_trajectories} trajectories, records={self.records}: the claim is about datasets "
                f"of m = {self.records} trajectories (m - 1 for the smaller input of an add/remove-one pair)"
            )

    def clip_gradients(self, gradients: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step 5: B̄ = B / max(1, ‖B‖₂/h), row-wise; also returns which rows were clipped."""
        norms = np.linalg.norm(gradients, axis=-1)
        scale = np.maximum(1.0, norms / self.clip_norm)
        return gradients / scale[..., None], scale > 1.0

    def run(
        self,
        data: TransitionTable,
        *,
        rng: Any,
        theta0: np.ndarray | None = None,
        w0: np.ndarray | None = None,
        record_every: int | None = None,
    ) -> GpopeRun:
        """Run Algorithm 1 on ``data``.

        Raises:
            InvalidArgument: for an empty dataset or initial points of the wrong size.
        """
        if not isinstance(data, TransitionTable):
            raise InvalidArgument(f"data: expected a TransitionTable, got {type(data).__name__}")
        self.check_records(data)
        generator = normalize_rng(rng)
        n = data.n_features
        theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=np.float64)
        w = np.zeros(n) if w0 is None else np.array(w0, dtype=np.float64)
        if theta.shape != (n,) or w.shape != (n,):
            raise InvalidArgument(f"theta0/w0: expected shape ({n},), got {theta.shape} and {w.shape}")
        steps = self.step_sizes.sequence(self.iterations)
        picks = generator.integers(0, data.n_trajectories, size=self.iterations)
        noise = generator.standard_normal((self.iterations, 2 * n)) if self.sigma > 0 else None
        every = record_every or self.iterations
        recorded_steps, recorded = [], []
        clipped = 0
        for i in range(self.iterations):
            gradient = primal_dual_gradients(data, picks[i : i + 1], theta, w, normalisation=self.normalisation)[0]
            if self.clip:
                gradient, was_clipped = self.clip_gradients(gradient)
                clipped += int(was_clipped)
            if noise is not None:
                gradient = gradient + self.clip_norm * self.sigma * noise[i]
            theta = theta - steps[i] * gradient[:n]
            w = w - steps[i] * gradient[n:]
            if (i + 1) % every == 0:
                recorded_steps.append(i + 1)
                recorded.append(theta.copy())
        return GpopeRun(
            theta=theta,
            w=w,
            recorded_steps=np.asarray(recorded_steps, dtype=np.int64),
            recorded_theta=np.asarray(recorded).reshape(len(recorded), n),
            clipped_fraction=clipped / self.iterations,
        )

    def release(self, data: TransitionTable, *, rng: Any, size: int | None = None) -> np.ndarray:
        """θ_{N+1} of Algorithm 1; with ``size``, that many independent runs (rows)."""
        generator = normalize_rng(rng)
        if size is None:
            return self.run(data, rng=generator).theta
        return self._side_by_side_thetas(data, check_integer("size", size, low=1), generator)

    def _side_by_side_thetas(self, data: TransitionTable, size: int, generator: np.random.Generator) -> np.ndarray:
        """θ_{N+1} of ``size`` independent runs of Algorithm 1 from (0, 0), iterated together.

        Each run's law is :meth:`run`'s; the draws are taken per iteration for all runs at once,
        and B_i(θ, w) is applied as the affine map of :func:`primal_dual_operators`.
        """
        self.check_records(data)
        linear, constant = primal_dual_operators(data, normalisation=self.normalisation)
        n = data.n_features
        steps = self.step_sizes.sequence(self.iterations)
        state = np.zeros((size, 2 * n))
        for step in steps:
            picks = generator.integers(0, data.n_trajectories, size=size)
            gradient = _affine_gradients(linear, constant, picks, state)
            if self.clip:
                gradient = self.clip_gradients(gradient)[0]
            if self.sigma > 0:
                gradient = gradient + self.clip_norm * self.sigma * generator.standard_normal((size, 2 * n))
            state = state - step * gradient
        return state[:, :n]

    def per_step_view(self, m: int | None = None) -> dict[str, Any]:
        """White-box view of one iteration, for the accountant checks.

        Each step samples one of the ``m`` trajectories (default: ``records``) uniformly
        (probability 1/m), clips
        its gradient to norm h, and adds Gaussian noise of standard deviation h·σ per
        coordinate. Under ``replace_one`` two clipped gradients differ by at most 2h in ℓ2;
        under ``add_remove_one`` the added record's gradient differs from any other by at
        most 2h as well, but it is drawn only with probability 1/(m+1).
        """
        if m is None and self.records is None:
            raise InvalidArgument("m=None: give the number of trajectories m, or build GPOPE with records = m")
        m = check_integer("m", self.records if m is None else m, low=1)
        return {
            "sampling": "one record uniformly per step, with replacement across steps",
            "sampling_probability": 1.0 / m,
            "records": m,
            "clip_norm": self.clip_norm,
            "noise_std": self.clip_norm * self.sigma,
            "noise_multiplier": self.sigma,
            "steps": self.iterations,
            "clipped": self.clip,
        }


def _affine_gradients(linear: np.ndarray, constant: np.ndarray, picks: np.ndarray, state: np.ndarray) -> np.ndarray:
    """linear[picks[k]] @ state[k] + constant[picks[k]] for every run k, gathered in blocks of at most
    2^22 matrix entries (a batch of 16384 runs with 50 features would otherwise gather 1.3 GB at once)."""
    width = linear.shape[1]
    block = max(1, (1 << 22) // (width * width))
    gradients = np.empty_like(state)
    for start in range(0, len(picks), block):
        rows = slice(start, start + block)
        gradients[rows] = np.einsum("kij,kj->ki", linear[picks[rows]], state[rows]) + constant[picks[rows]]
    return gradients


_TABLE_ARRAYS = ("phi", "phi_next", "rewards", "rho", "offsets")


def _plain_table(data: TransitionTable) -> dict[str, Any]:
    plain: dict[str, Any] = {name: np.asarray(getattr(data, name)).tolist() for name in _TABLE_ARRAYS}
    plain["gamma"] = float(data.gamma)
    return plain


def _table(data: Any) -> TransitionTable:
    if isinstance(data, TransitionTable):
        return data
    if not isinstance(data, dict) or set(data) != {*_TABLE_ARRAYS, "gamma"}:
        raise InvalidArgument(
            f"input: expected a table with keys {sorted({*_TABLE_ARRAYS, 'gamma'})} (a GTD2 transition table)"
        )
    return TransitionTable(**data)


def _release_on_table(reference: GPOPE, data: Any, rng: np.random.Generator, size: int | None) -> np.ndarray:
    """The release adapter: GPOPE's ``release`` on a plain table."""
    return reference.release(_table(data), rng=rng, size=size)


def _trajectory_rows(table: TransitionTable) -> list[tuple[float, ...]]:
    """Each trajectory's transitions flattened into one hashable row."""
    rows = []
    for start, stop in zip(table.offsets[:-1], table.offsets[1:], strict=True):
        parts = (table.phi[start:stop], table.phi_next[start:stop], table.rewards[start:stop], table.rho[start:stop])
        rows.append(tuple(float(v) for part in parts for v in np.ravel(part)))
    return rows


def _check_records(a: TransitionTable, b: TransitionTable, relation: Relation, params: Any) -> None:
    """With ``records = m`` in the parameters: both tables have m trajectories (replace-one), or the
    larger one has (add/remove-one), since the claim's q = 1/m and its calibration hold for m only.

    Raises:
        InvalidArgument: naming the counts and ``records``.
    """
    if not isinstance(params, Mapping) or params.get("records") is None:
        return
    records = check_integer("records", params["records"], low=1)
    counts = (a.n_trajectories, b.n_trajectories)
    if relation.kind == REPLACE_ONE:
        expected, wanted = (records, records), f"{records} trajectories each"
    else:
        expected, wanted = (records - 1, records), f"{records} and {records - 1} trajectories"
    if tuple(sorted(counts)) != expected:
        raise InvalidArgument(
            f"the tables have {counts[0]} and {counts[1]} trajectories, records={records!r}: under {relation.name} "
            f"the claim is about tables of {wanted}"
        )


def _one_trajectory_apart(first: Any, second: Any, relation: Relation, params: Any) -> float:
    a, b = _table(first), _table(second)
    _check_records(a, b, relation, params)
    if a.gamma != b.gamma:
        return float("inf")
    left, right = Counter(_trajectory_rows(a)), Counter(_trajectory_rows(b))
    only_left, only_right = sum((left - right).values()), sum((right - left).values())
    if relation.kind == REPLACE_ONE:
        return float(only_left) if a.n_trajectories == b.n_trajectories and only_left <= 1 else float("inf")
    return 1.0 if sorted((only_left, only_right)) == [0, 1] else float("inf")


MECHANISM = Mechanism(
    name="gpope",
    description="GPOPE (Xie et al. 2019, Alg. 1): clipped, noised primal-dual GTD2",
    factory=GPOPE,
    input_domain=InputDomain(
        "transition_table",
        "a GTD2 transition table {phi, phi_next, rewards, rho, offsets, gamma} (trajectory-major)",
        _plain_table,
        _table,
    ),
    relations=(REPLACE_ONE, ADD_REMOVE_ONE),
    neighbourhood=Neighbourhood(
        "the tables differ in one trajectory", _one_trajectory_apart, lambda p, r: 1.0, explore=explore_tables
    ),
    output=OutputSpec(
        "theta_{N+1}: a vector of the feature dimension", lambda params, data: (_table(data).n_features,)
    ),
    views=frozenset({PerStepView}),
    candidate=CandidateSignature(
        "table",
        "gpope(table, *, clip_norm=1.0, noise_multiplier=None, iterations=1000, step_sizes=..., "
        "normalisation='mean', clip=True, records=None, epsilon=None, delta=None, calibration='paper_b32', rng) "
        "-> ndarray",
    ),
    source="Xie et al. 2019, Algorithm 1",
    release_adapter=_release_on_table,
)
