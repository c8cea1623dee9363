"""Typed privacy statements. No bare ``(eps, delta)`` tuple crosses a module boundary.

Every guarantee validates its parameters at construction and has a JSON form
(``to_json``) used by reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpaudit._validation import check_choice, check_real
from dpaudit.errors import InvalidArgument

__all__ = [
    "MAX_EPSILON",
    "AccountedEpsilon",
    "ApproxDP",
    "Concentration",
    "Guarantee",
    "MomentsBound",
    "RenyiDP",
    "SensitivityBound",
    "SmoothUpperBound",
    "ZeroConcentratedDP",
]


#: The largest ε a claim may state: e^ε stays a finite float64 (e^709.8 is the largest), and no
#: audit can tell a larger ε from ∞.
MAX_EPSILON = 700.0


class Guarantee:
    """Base class of typed privacy statements."""

    kind: str = "guarantee"

    def to_json(self) -> dict[str, Any]:
        """The statement as a JSON-ready dict with a ``kind`` field."""
        data: dict[str, Any] = {"kind": self.kind}
        for name, value in self.__dict__.items():
            data[name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True)
class ApproxDP(Guarantee):
    """(ε, δ)-differential privacy: P[M(X) ∈ E] <= e^ε P[M(X') ∈ E] + δ for all events E and neighbours."""

    epsilon: float
    delta: float
    kind: str = field(default="approx_dp", init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, low=0.0, high=MAX_EPSILON))
        object.__setattr__(self, "delta", check_real("delta", self.delta, low=0.0, high=1.0, high_open=True))


def _pairs(name_x: str, xs: Any, name_y: str, ys: Any, *, x_low: float, x_low_open: bool) -> tuple[tuple, tuple]:
    xs = tuple(xs)
    ys = tuple(ys)
    if len(xs) == 0 or len(xs) != len(ys):
        raise InvalidArgument(f"{name_x} and {name_y}: expected two non-empty sequences of equal length")
    checked_x = tuple(check_real(f"{name_x}[{i}]", x, low=x_low, low_open=x_low_open) for i, x in enumerate(xs))
    checked_y = tuple(check_real(f"{name_y}[{i}]", y, low=0.0, allow_inf=True) for i, y in enumerate(ys))
    return checked_x, checked_y


def _check_delta_grid(guarantee: RenyiDP | ZeroConcentratedDP) -> None:
    """``deltas`` as a tuple of distinct δ in (0, 1), ``delta`` among them, each implying an ε a claim may
    state (empty: the claim is audited at ``delta`` alone)."""
    if not guarantee.deltas:
        object.__setattr__(guarantee, "deltas", ())
        return
    grid = tuple(
        check_real(f"deltas[{i}]", value, low=0.0, high=1.0, low_open=True, high_open=True)
        for i, value in enumerate(guarantee.deltas)
    )
    repeated = sorted({value for value in grid if grid.count(value) > 1})
    if repeated:
        raise InvalidArgument(f"deltas={list(grid)!r}: each delta once, repeated: {repeated}")
    if guarantee.delta not in grid:
        raise InvalidArgument(f"delta={guarantee.delta!r}: expected one of deltas {list(grid)!r}")
    object.__setattr__(guarantee, "deltas", grid)
    for value in grid:
        guarantee.at_delta(value)  # refuses a delta whose epsilon is past the range a claim may state


def _without_empty_grid(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON form without ``deltas`` when the claim has no grid (as reports wrote it before grids)."""
    return {key: value for key, value in data.items() if key != "deltas" or value}


@dataclass(frozen=True)
class RenyiDP(Guarantee):
    """Rényi DP: D_α(M(X) || M(X')) <= ε(α) for each listed order α > 1 (Mironov 2017, Def. 4).

    With ``delta``, a black-box audit refutes it through the (ε(δ), δ) it implies at that δ
    (:meth:`implied_approx_dp`): a certified lower bound on ε(δ) above it refutes the RDP curve. Such a
    check never verifies the curve (one (ε, δ) point does not imply it). ``deltas`` (``delta`` among them)
    is a grid of δ at which the claim is audited, each point its own run of every obligation.
    """

    orders: tuple[float, ...]
    epsilons: tuple[float, ...]
    delta: float | None = None
    deltas: tuple[float, ...] = ()
    kind: str = field(default="renyi_dp", init=False, repr=False)

    def __post_init__(self) -> None:
        orders, epsilons = _pairs("orders", self.orders, "epsilons", self.epsilons, x_low=1.0, x_low_open=True)
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "epsilons", epsilons)
        if self.delta is not None:
            object.__setattr__(
                self, "delta", check_real("delta", self.delta, low=0.0, high=1.0, low_open=True, high_open=True)
            )
            self.implied_approx_dp()  # refuses a curve whose epsilon at delta is past the range a claim may state
        _check_delta_grid(self)

    def at_delta(self, delta: float) -> RenyiDP:
        """The same curve, audited at ``delta`` alone."""
        return RenyiDP(self.orders, self.epsilons, delta)

    def to_json(self) -> dict[str, Any]:
        return _without_empty_grid(super().to_json())

    def implied_approx_dp(self) -> ApproxDP:
        """The (ε(δ), δ) guarantee the curve implies at ``delta``: the best over the listed orders of
        ε(α) + ln((α − 1)/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath & Steinke 2020, Prop. 12), in
        mpmath, rounded up.

        Raises:
            InvalidArgument: without ``delta``, or when ε(δ) is past the range a claim may state.
        """
        from dpaudit.privacy.accounting.conversions import rdp_curve_to_epsilon

        if self.delta is None:
            raise InvalidArgument("renyi_dp: a black-box audit needs delta, the delta at which the curve is converted")
        epsilon = rdp_curve_to_epsilon(self.orders, self.epsilons, self.delta)
        if epsilon > MAX_EPSILON:
            raise InvalidArgument(
                f"epsilons: at delta={self.delta!r} the curve implies epsilon {epsilon:.6g}, past the "
                f"{MAX_EPSILON:g} a claim may state"
            )
        return ApproxDP(epsilon, self.delta)


@dataclass(frozen=True)
class AccountedEpsilon(Guarantee):
    """A privacy accountant's statement: at every accounting point it is asked about, the ε it reports at
    that point's δ is at least the true ε(δ) of the composition it accounts for, under the claim's relation.

    The numbers are the accountant's own answers, one per point, so the statement has no parameters:
    a spec of the ``accountant`` kind states it by leaving out ``[claim.guarantee]``.
    """

    kind: str = field(default="accountant", init=False, repr=False)


@dataclass(frozen=True)
class MomentsBound(Guarantee):
    """A bound on the log moment generating function of the privacy loss: α(λ) <= bound(λ).

    References:
        Abadi et al. 2016, Sec. 3.2 (moments accountant); Xie et al. 2019, Lemma 1.
    """

    lambdas: tuple[float, ...]
    alphas: tuple[float, ...]
    kind: str = field(default="moments_bound", init=False, repr=False)

    def __post_init__(self) -> None:
        lambdas, alphas = _pairs("lambdas", self.lambdas, "alphas", self.alphas, x_low=0.0, x_low_open=True)
        object.__setattr__(self, "lambdas", lambdas)
        object.__setattr__(self, "alphas", alphas)


@dataclass(frozen=True)
class SensitivityBound(Guarantee):
    """A data-dependent bound on local sensitivity: LS(X) <= bound(X) for every dataset X.

    Attributes:
        bound_name: the name of the function of the dataset that gives the bound
            (e.g. ``lsw_corollary3``), resolved by the checker.
        norm: the norm of the output difference (``l2``, ``l1`` or ``linf``).
    """

    bound_name: str
    norm: str = "l2"
    kind: str = field(default="sensitivity_bound", init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.bound_name, str) or not self.bound_name:
            raise InvalidArgument(f"bound_name={self.bound_name!r}: expected a non-empty name")
        check_choice("norm", self.norm, ("l2", "l1", "linf"))


@dataclass(frozen=True)
class ZeroConcentratedDP(Guarantee):
    """ρ-zCDP (Bun & Steinke 2016, Def. 1.1): D_α(M(X) || M(X')) <= ρα for every α > 1, audited at
    the (ε, δ) point it implies at ``delta`` (:meth:`implied_approx_dp`).

    A mechanism that is ρ-zCDP is (ε(δ), δ)-DP with ε(δ) the conversion of Canonne, Kamath &
    Steinke 2020, Prop. 12 (an upper bound on the true ε(δ) of any ρ-zCDP mechanism): a certified
    lower bound on ε(δ) above it refutes the zCDP claim. ``deltas`` (``delta`` among them) is a grid of
    δ at which the claim is audited, each point its own run of every obligation.
    """

    rho: float
    delta: float
    deltas: tuple[float, ...] = ()
    kind: str = field(default="zcdp", init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", check_real("rho", self.rho, low=0.0, high=MAX_EPSILON, low_open=True))
        object.__setattr__(
            self, "delta", check_real("delta", self.delta, low=0.0, high=1.0, low_open=True, high_open=True)
        )
        self.implied_approx_dp()  # refuses a rho whose epsilon at delta is past the range a claim may state
        _check_delta_grid(self)

    def at_delta(self, delta: float) -> ZeroConcentratedDP:
        """The same ρ, audited at ``delta`` alone."""
        return ZeroConcentratedDP(self.rho, delta)

    def to_json(self) -> dict[str, Any]:
        return _without_empty_grid(super().to_json())

    def implied_approx_dp(self) -> ApproxDP:
        """The (ε(δ), δ) guarantee ρ-zCDP implies: ε(δ) = min over α > 1 of
        ρα + ln((α − 1)/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath & Steinke 2020, Prop. 12),
        evaluated in mpmath on a grid of α (any α gives a valid bound; the grid's best is kept,
        rounded up)."""
        from dpaudit.privacy.accounting.conversions import zcdp_to_epsilon

        epsilon = zcdp_to_epsilon(self.rho, self.delta)
        if epsilon > MAX_EPSILON:
            raise InvalidArgument(
                f"rho={self.rho!r}: at delta={self.delta!r} it implies epsilon {epsilon:.6g}, past the {MAX_EPSILON:g} "
                "a claim may state"
            )
        return ApproxDP(epsilon, self.delta)


@dataclass(frozen=True)
class SmoothUpperBound(Guarantee):
    """A β-smooth upper bound on local sensitivity (Nissim–Raskhodnikova–Smith 2007, Def. 2.1).

    S(X) >= LS(X) and S(X) <= e^β S(X') for all neighbours X, X'.
    """

    beta: float
    kind: str = field(default="smooth_upper_bound", init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", check_real("beta", self.beta, low=0.0, low_open=True))


@dataclass(frozen=True)
class Concentration(Guarantee):
    """A tail bound: P(‖M(x) − x‖ >= radius) <= failure_probability.

    References:
        Gohari et al. 2020, Lemma 2 (Dirichlet mechanism, ℓ∞ norm).
    """

    radius: float
    failure_probability: float
    norm: str = "linf"
    kind: str = field(default="concentration", init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", check_real("radius", self.radius, low=0.0))
        object.__setattr__(
            self,
            "failure_probability",
            check_real("failure_probability", self.failure_probability, low=0.0, high=1.0),
        )
        check_choice("norm", self.norm, ("l2", "l1", "linf"))
