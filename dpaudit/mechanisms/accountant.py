"""A privacy accountant as a candidate kind: a user's function from parameters to ε at δ.

The accountant audited here is the one GPOPE and DP-SGD need: N compositions of one
subsampled Gaussian step (each record used with probability q = 1/m, clipped, noise
multiplier σ). A candidate ``accountant(point, *, sampling, rng)`` receives one point
``{records, noise_multiplier, steps, delta}`` and returns its ε at δ, or one point
``{records, noise_multiplier, steps, order}`` and returns its RDP ε at that order α (an RDP
accountant's curve, read order by order). The reference returns the upper end of dpaudit's
certified enclosure of the true value at that point (the PLD interval of ε(δ); the exact RDP),
so a candidate can be compared with it (checker ``accountant_certified``).

References:
    Xie et al. 2019, Algorithm 1 and Theorem 1; Koskela, Jälkö & Honkela 2020 and
    Gopi, Lee & Wutschitz 2021 (PLD accounting by FFT); Mironov et al. 2019 (sampled Gaussian);
    Mironov 2017, Proposition 1 (RDP composition).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import check_choice, check_integer, check_real
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gpope_step import POISSON, SAMPLING_SCHEMES, GpopeStep
from dpaudit.mechanisms.interface import CandidateSignature, InputDomain, Mechanism, Neighbourhood, OutputSpec
from dpaudit.privacy.accounting.pld import compose_pairs
from dpaudit.privacy.accounting.rdp import compose_rdp, poisson_gaussian_rdp
from dpaudit.privacy.accounting.values import AccountedValue
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation

__all__ = ["MAX_ORDER", "MECHANISM", "SubsampledGaussianAccountant", "accounting_point", "is_rdp_point"]

_POINT_KEYS = ("records", "noise_multiplier", "steps", "delta")
_RDP_POINT_KEYS = ("records", "noise_multiplier", "steps", "order")

#: The largest RDP order a point may name (the exact series stays fast up to it).
MAX_ORDER = 256.0


def accounting_point(data: Any) -> dict[str, Any]:
    """A checked point ``{records, noise_multiplier, steps, delta}``, or ``{records, noise_multiplier,
    steps, order}`` for the RDP at order α = ``order`` (1 < α <= :data:`MAX_ORDER`).

    Raises:
        InvalidArgument: naming the key that is missing or out of range.
    """
    if not isinstance(data, Mapping) or set(data) not in (set(_POINT_KEYS), set(_RDP_POINT_KEYS)):
        raise InvalidArgument(
            f"input={data!r}: expected a table with keys {list(_POINT_KEYS)} (or 'order' instead of 'delta')"
        )
    point = {
        "records": check_integer("records", data["records"], low=2, high=10**9),
        "noise_multiplier": check_real("noise_multiplier", data["noise_multiplier"], low=0.3, high=1e4),
        "steps": check_integer("steps", data["steps"], low=1, high=10**6),
    }
    if "order" in data:
        point["order"] = check_real("order", data["order"], low=1.0, high=MAX_ORDER, low_open=True)
    else:
        point["delta"] = check_real("delta", data["delta"], low=0.0, high=1.0, low_open=True, high_open=True)
    return point


def is_rdp_point(point: Mapping[str, Any]) -> bool:
    """Whether a checked point asks for the RDP at an order (else for ε at δ)."""
    return "order" in point


@dataclass(frozen=True)
class SubsampledGaussianAccountant:
    """dpaudit's accountant for N subsampled Gaussian steps (clip norm 1; ε is scale-free in it).

    Attributes:
        sampling: ``poisson`` or ``uniform_one`` (see :mod:`dpaudit.mechanisms.gpope_step`).
        relation: the neighbouring relation the ε is for. In a spec it may be left out: the claim's
            ``relations`` decide it (a value here that differs from them is refused).
        interval: the PLD grid step.
    """

    sampling: str = "poisson"
    relation: str = REPLACE_ONE
    interval: float = 1e-4

    def __post_init__(self) -> None:
        check_choice("sampling", self.sampling, SAMPLING_SCHEMES)
        check_choice("relation", self.relation, (REPLACE_ONE, ADD_REMOVE_ONE))
        check_real("interval", self.interval, low=1e-6, high=0.1)

    def certified_epsilon(self, data: Any) -> AccountedValue:
        """An enclosure [lower, upper] of the true ε(δ) at the point (PLD, both directions of rounding)."""
        return self.epsilon_enclosures(data)[0]

    def certified_rdp(self, data: Any) -> AccountedValue:
        """An enclosure of the RDP ε(α) of the N steps at the point's order α, under add/remove-one with
        Poisson sampling: N times the exact RDP of one step, with its error bound.

        One step's pair ((1-q) N(0, σ²) + q N(1, σ²), N(0, σ²)) is the exact worst case of the step
        (MTZ 2019, Theorem 5); N independent repetitions of it attain N times its divergence, which
        composition (Mironov 2017, Prop. 1) also bounds from above, so the value is exact.

        Raises:
            InvalidArgument: for another sampling scheme or relation (no exact value is implemented).
        """
        point = accounting_point(data)
        if not is_rdp_point(point):
            raise InvalidArgument(f"input={data!r}: an RDP point names 'order' instead of 'delta'")
        if self.sampling != POISSON or self.relation != ADD_REMOVE_ONE:
            raise InvalidArgument(
                f"sampling={self.sampling!r}, relation={self.relation!r}: RDP points are certified for Poisson "
                "sampling under add_remove_one only (the exact RDP, MTZ 2019 Theorem 5)"
            )
        rate = 1.0 / point["records"]
        return compose_rdp(poisson_gaussian_rdp(point["order"], rate, point["noise_multiplier"]), point["steps"])

    def epsilon_enclosures(self, data: Any) -> tuple[AccountedValue, AccountedValue]:
        """The certified enclosure of ε(δ) at the point, and the same with the FFT round-off estimated
        instead of bounded (narrower after many steps; evidence for ``consistent`` only); for an RDP
        point the exact RDP's enclosure, twice (its error is bounded, not estimated)."""
        point = accounting_point(data)
        if is_rdp_point(point):
            rdp = self.certified_rdp(point)
            return rdp, rdp
        step = GpopeStep(
            records=point["records"],
            clip_norm=1.0,
            noise_multiplier=point["noise_multiplier"],
            steps=point["steps"],
            sampling=self.sampling,
        )
        pairs = step.step_pairs(Relation(self.relation)).pairs
        composed = compose_pairs(pairs, point["steps"], interval=self.interval)
        return composed.epsilon(point["delta"]), composed.epsilon_estimate(point["delta"])

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """The upper end of the certified ε, or RDP ε (deterministic; ``size`` copies stacked)."""
        value = float(self.epsilon_enclosures(data)[0].upper)
        return np.full(() if size is None else (size,), value)


def _plain_point(data: Any) -> dict[str, Any]:
    return dict(accounting_point(data))


def _no_neighbours(first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
    raise InvalidArgument("an accountant takes accounting points, not neighbouring inputs: give `points`")


MECHANISM = Mechanism(
    name="accountant",
    description="a user's accountant: epsilon at delta after N subsampled Gaussian steps (q = 1/m, sigma, N), "
    "each step at its worst pair, clip norm 1 and noise std sigma: poisson replace-one (1-q) N(0) + q N(1) vs "
    "(1-q) N(0) + q N(-1), poisson add/remove (1-q) N(0) + q N(1) vs N(0), uniform_one (1-q) N(0) + q N(2) vs "
    "N(0); interval is the grid step of the privacy-loss distribution",
    factory=SubsampledGaussianAccountant,
    input_domain=InputDomain(
        "accounting_point",
        "a table {records, noise_multiplier, steps, delta} (or order instead of delta: the RDP at that order)",
        _plain_point,
        accounting_point,
    ),
    relations=(REPLACE_ONE, ADD_REMOVE_ONE),
    neighbourhood=Neighbourhood("not applicable (accounting points)", _no_neighbours, lambda params, relation: 0.0),
    output=OutputSpec("epsilon at delta (or the RDP epsilon at the order): one number", lambda params, data: ()),
    candidate=CandidateSignature(
        "point", "accountant(point, *, sampling='poisson', relation='replace_one', interval=1e-4, rng) -> float"
    ),
    source="Xie et al. 2019, Algorithm 1 (the composed steps); PLD accounting",
    randomised=False,
)
