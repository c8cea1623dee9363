"""The HIV treatment simulator (Adams et al. 2004; Ernst et al. 2006).

State x = (T1, T2, T1*, T2*, V, E): healthy and infected CD4+ T-cells of two types, free
virus and immune effectors. Treatment (ε1, ε2) is a reverse-transcriptase inhibitor
efficacy ε1 and a protease inhibitor efficacy ε2:

    dT1  = λ1 − d1 T1 − (1−ε1) k1 V T1
    dT2  = λ2 − d2 T2 − (1−fε1) k2 V T2
    dT1* = (1−ε1) k1 V T1 − δ T1* − m1 E T1*
    dT2* = (1−fε1) k2 V T2 − δ T2* − m2 E T2*
    dV   = (1−ε2) N_T δ (T1* + T2*) − c V − [(1−ε1) ρ1 k1 T1 + (1−fε1) ρ2 k2 T2] V
    dE   = λE + bE (T1*+T2*)/(T1*+T2*+Kb) E − dE (T1*+T2*)/(T1*+T2*+Kd) E − δE E

Actions 0..3 are (ε1, ε2) = (0, 0), (0.7, 0), (0, 0.3), (0.7, 0.3), held for a 5-day step
integrated with scipy's ``solve_ivp`` (LSODA: the system is stiff). The reward of a step
is −0.1 V − 2e4 ε1² − 2e3 ε2² + 1e3 E evaluated at the state reached at the end of the
step (our reading; Ernst et al. write the reward per step without fixing the instant).
The start (163573, 5, 11945, 46, 63919, 24) is the unhealthy equilibrium (rounded);
observations are log10 of the state.

References:
    Adams, Banks, Kwon & Tran 2004, "Dynamic multidrug therapies for HIV: optimal and
    STI control approaches", Math. Biosci. Eng. 1(2); Ernst, Stan, Gonçalves & Wehenkel
    2006, CDC, Sec. 3 (model, parameters, actions, reward, 5-day steps, start state);
    Xie et al. 2019, Sec. 7 (HIV simulator).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_choice, check_finite_array, check_real
from dpaudit.errors import InvalidArgument, NumericalError

__all__ = ["HIV_ACTIONS", "HIV_START", "HIVParameters", "HIVTreatment"]

HIV_START = (163573.0, 5.0, 11945.0, 46.0, 63919.0, 24.0)
"""The unhealthy equilibrium start state (T1, T2, T1*, T2*, V, E) of Ernst et al. 2006."""

HIV_ACTIONS = ((0.0, 0.0), (0.7, 0.0), (0.0, 0.3), (0.7, 0.3))
"""(ε1, ε2) of actions 0..3."""


@dataclass(frozen=True)
class HIVParameters:
    """Model constants (Adams et al. 2004; Ernst et al. 2006, Table / Sec. 3)."""

    lambda1: float = 1e4
    lambda2: float = 31.98
    d1: float = 0.01
    d2: float = 0.01
    f: float = 0.34
    k1: float = 8e-7
    k2: float = 1e-4
    delta: float = 0.7
    m1: float = 1e-5
    m2: float = 1e-5
    n_t: float = 100.0
    c: float = 13.0
    rho1: float = 1.0
    rho2: float = 1.0
    lambda_e: float = 1.0
    b_e: float = 0.3
    k_b: float = 100.0
    d_e: float = 0.25
    k_d: float = 500.0
    delta_e: float = 0.1

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            object.__setattr__(self, name, check_real(name, getattr(self, name), low=0.0))


def _derivatives(x: np.ndarray, eps1: float, eps2: float, q: HIVParameters) -> np.ndarray:
    t1, t2, t1s, t2s, v, e = x
    infected = t1s + t2s
    rt1 = (1.0 - eps1) * q.k1 * v * t1
    rt2 = (1.0 - q.f * eps1) * q.k2 * v * t2
    return np.array(
        [
            q.lambda1 - q.d1 * t1 - rt1,
            q.lambda2 - q.d2 * t2 - rt2,
            rt1 - q.delta * t1s - q.m1 * e * t1s,
            rt2 - q.delta * t2s - q.m2 * e * t2s,
            (1.0 - eps2) * q.n_t * q.delta * infected
            - q.c * v
            - ((1.0 - eps1) * q.rho1 * q.k1 * t1 + (1.0 - q.f * eps1) * q.rho2 * q.k2 * t2) * v,
            q.lambda_e
            + q.b_e * infected / (infected + q.k_b) * e
            - q.d_e * infected / (infected + q.k_d) * e
            - q.delta_e * e,
        ]
    )


@dataclass(frozen=True)
class HIVTreatment:
    """The HIV treatment environment (see the module docstring).

    Attributes:
        parameters: the model constants.
        step_days: length of one decision step in days (5).
        method: ``"LSODA"``, ``"Radau"`` or ``"BDF"`` (stiff solvers).
        rtol, atol: solver tolerances (atol applies per component, in cells or copies per ml).
        start: the start state (the unhealthy equilibrium by default).
    """

    parameters: HIVParameters = HIVParameters()
    step_days: float = 5.0
    method: str = "LSODA"
    rtol: float = 1e-6
    atol: float = 1e-6
    start: tuple[float, ...] = HIV_START
    n_actions: int = 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "step_days", check_real("step_days", self.step_days, low=0.0, low_open=True))
        check_choice("method", self.method, ("LSODA", "Radau", "BDF"))
        object.__setattr__(self, "rtol", check_real("rtol", self.rtol, low=0.0, low_open=True))
        object.__setattr__(self, "atol", check_real("atol", self.atol, low=0.0, low_open=True))
        start = check_finite_array("start", self.start, shape=(6,))
        if not (start > 0).all():
            index = int(np.argmax(start <= 0))
            raise InvalidArgument(f"start[{index}]={start[index]!r}: expected positive cell and virus counts")
        object.__setattr__(self, "start", tuple(float(v) for v in start))
        if self.n_actions != 4:
            raise InvalidArgument(f"n_actions={self.n_actions!r}: the HIV domain has exactly 4 actions")

    @property
    def observation_low(self) -> np.ndarray:
        """A box of log10 states wide enough for treated and untreated patients (for Fourier features)."""
        return np.array([0.0, 0.0, -2.0, -2.0, -2.0, 0.0])

    @property
    def observation_high(self) -> np.ndarray:
        """Upper corner of the log10 observation box."""
        return np.array([7.0, 4.0, 6.0, 4.0, 7.0, 6.0])

    def derivatives(self, state: Any, action: int = 0) -> np.ndarray:
        """Return dx/dt at ``state`` under the drugs of ``action`` (Ernst et al. 2006, Sec. 3)."""
        eps1, eps2 = self._efficacies(action)
        return _derivatives(check_finite_array("state", state, shape=(6,)), eps1, eps2, self.parameters)

    def reset(self, *, rng: Any = None) -> np.ndarray:
        """Return the start state (deterministic; ``rng`` is accepted for the common interface)."""
        return np.array(self.start)

    def step(self, state: np.ndarray, action: int) -> tuple[np.ndarray, float, bool]:
        """Integrate ``step_days`` days under ``action``; return (next state, reward, False).

        Raises:
            NumericalError: when the solver fails or leaves the positive orthant.
        """
        eps1, eps2 = self._efficacies(action)
        x0 = check_finite_array("state", state, shape=(6,))
        q = self.parameters
        from scipy.integrate import solve_ivp  # imported on first use: scipy.integrate is slow to import

        solution = solve_ivp(
            lambda _t, x: _derivatives(x, eps1, eps2, q),
            (0.0, self.step_days),
            x0,
            method=self.method,
            rtol=self.rtol,
            atol=self.atol,
        )
        if not solution.success:
            raise NumericalError(f"HIV step: solve_ivp ({self.method}) failed: {solution.message}")
        following = solution.y[:, -1]
        if not (np.isfinite(following).all() and (following > 0).all()):
            raise NumericalError(f"HIV step: non-positive or non-finite state {following.tolist()}")
        return following, self.reward(following, action), False

    def reward(self, state: np.ndarray, action: int) -> float:
        """Return −0.1 V − 2e4 ε1² − 2e3 ε2² + 1e3 E (Ernst et al. 2006, Sec. 3)."""
        eps1, eps2 = self._efficacies(action)
        return float(-0.1 * state[4] - 2e4 * eps1**2 - 2e3 * eps2**2 + 1e3 * state[5])

    def observe(self, state: np.ndarray) -> np.ndarray:
        """Return log10 of the state."""
        return np.log10(np.asarray(state, dtype=np.float64))

    @staticmethod
    def _efficacies(action: int) -> tuple[float, float]:
        if isinstance(action, bool) or action not in range(4):
            raise InvalidArgument(f"action={action!r}: expected 0, 1, 2 or 3")
        return HIV_ACTIONS[int(action)]
