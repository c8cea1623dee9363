"""A peer library's accountant audited like any accountant: its ε at each point against dpaudit's
certified enclosure of the true ε of N Poisson-subsampled Gaussian steps (add/remove-one).

``peer_accountant`` asks dp_accounting's PLD accountant (``accountant = "pld"``) or its RDP
accountant (``"rdp"``, which also compares its RDP at fractional orders with the exact value,
MTZ 2019: a value below it by more than float64 round-off is ``violated``, an unsound
under-approximation) for ε(δ) and decides each point as ``accountant_certified`` does: below the
certified lower end is an understatement (``violated``), at or above the upper end a valid bound
(``verified``), in between undecided.
dp_accounting is an optional dependency, the ``peers`` extra (``pip install 'dpaudit[peers]'``):
without it the obligation is ``inconclusive`` and its summary names that extra.

References:
    Mironov 2017 and Mironov, Talwar & Zhang 2019 (RDP of the subsampled Gaussian); Doroshenko et
    al. 2022 (dp_accounting's PLD); Koskela, Jälkö & Honkela 2020.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass, replace
from typing import Any

from dpaudit.adapters._library import import_library
from dpaudit.checks.accountants.certified_epsilon import RDP_ROUNDOFF, compare_with_certified
from dpaudit.errors import CandidateLoadError, InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import NOT_INSTALLED, Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant, accounting_point
from dpaudit.privacy.accounting.peer_audit import UNSOUND, PeerComparison, audit_peer_rdp
from dpaudit.privacy.relations import ADD_REMOVE_ONE

__all__ = ["PeerConfig", "check_peer_accountant", "with_fractional_orders"]

ACCOUNTANTS = ("pld", "rdp")


@dataclass(frozen=True, kw_only=True)
class PeerConfig(CheckerConfig):
    """The params of the peer check: the library and its accountant, the points and the RDP orders compared."""

    peer: str = param("the peer library", choices=("dp_accounting",))
    accountant: str = param("the peer's accountant", choices=ACCOUNTANTS)
    points: Any = param("tables {records, noise_multiplier, steps, delta}: the peer's epsilon at delta")
    peer_interval: float = param("the peer PLD accountant's discretisation interval", 1e-4, low=1e-6, high=0.1)
    fractional_orders: tuple[int | float, ...] | None = param(
        "RDP orders compared with the peer's RDP at the first point (rdp)", None, low=1.0, low_open=True
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.points, list) or not self.points:
            raise InvalidArgument("points: expected a list of {records, noise_multiplier, steps, delta}")
        for point in self.points:
            if "order" in accounting_point(point):
                raise InvalidArgument("points: the peer accountants are asked for epsilon at delta; give 'delta'")

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim of another kind than 'accountant' or not under Poisson sampling and add/remove-one."""
        if claim.mechanism.name != "accountant":
            raise InvalidArgument(f"mechanism={claim.mechanism.name!r}: this checker audits the 'accountant' kind")
        params = claim.mechanism.params
        if params.get("sampling") != "poisson" or params.get("relation") != ADD_REMOVE_ONE:
            raise InvalidArgument("the peer accountants model Poisson sampling under add/remove-one: set those params")


def _import(module: str) -> Any:
    """A module of dp_accounting, at a version of the extra that installs it (and with interrupts held back)."""
    return import_library(module, extra="dp-accounting", library="dp-accounting")


def _version() -> str:
    """The installed dp_accounting's version (the package has no ``__version__``)."""
    try:
        return importlib.metadata.version("dp-accounting")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def _peer_epsilon(library: Any, accountant: str, interval: float, point: dict[str, Any]) -> float:
    event = library.SelfComposedDpEvent(
        library.PoissonSampledDpEvent(1.0 / point["records"], library.GaussianDpEvent(point["noise_multiplier"])),
        point["steps"],
    )
    if accountant == "pld":
        engine = _import("dp_accounting.pld").PLDAccountant(value_discretization_interval=interval)
    else:
        engine = _import("dp_accounting.rdp").RdpAccountant()
    engine.compose(event)
    return float(engine.get_epsilon(point["delta"]))


@register_checker(
    "peer_accountant",
    description="a peer library's epsilon (dp_accounting PLD or RDP) against dpaudit's certified PLD interval",
    config=PeerConfig,
)
def check_peer_accountant(obligation: Obligation, context: CheckContext) -> Evidence:
    """Audit the peer's accountant at the spec's points (see the module docstring)."""
    config = parse_config(PeerConfig, obligation.params)
    accountant = config.accountant
    try:
        library = _import("dp_accounting")
    except CandidateLoadError as exc:
        missing = isinstance(exc.__cause__, ImportError)
        return Evidence(
            Verdict.INCONCLUSIVE,
            ("peer library 'dp_accounting' is not installed (pip install 'dpaudit[peers]')" if missing else str(exc))
            + "; nothing was compared",
            "dp_accounting",
            "none",
            details={NOT_INSTALLED: "dp_accounting"},
        )
    interval = config.peer_interval
    points = [accounting_point(point) for point in config.points]
    evidence = compare_with_certified(
        lambda point: _peer_epsilon(library, accountant, interval, point),
        SubsampledGaussianAccountant(**context.claim.mechanism.params),
        points,
        method_note=f"; peer: dp_accounting {_version()} {accountant.upper()} accountant"
        + (f", grid {interval:g}" if accountant == "pld" else ""),
    )
    orders = list(config.fractional_orders or ())
    if accountant != "rdp" or not orders:
        return evidence
    first = points[0]
    comparisons = audit_peer_rdp(
        "dp_accounting", orders, [1.0 / first["records"]], [first["noise_multiplier"]], steps=first["steps"]
    )
    return with_fractional_orders(evidence, comparisons)


def with_fractional_orders(evidence: Evidence, comparisons: list[PeerComparison]) -> Evidence:
    """``evidence`` of the ε points with the peer's RDP at fractional orders against the exact value (MTZ
    2019, mpmath): the statement is that it over-approximates, so a value below the exact enclosure by more
    than the float64 round-off of an RDP series (:data:`RDP_ROUNDOFF` of the value, as the ``accountant``
    kind's own RDP points are judged) is an unsound under-approximation, ``violated``, its size measured;
    one below it by less holds only numerically: ``consistent`` at best, never ``verified``."""
    rows = [comparison.to_json() for comparison in comparisons]
    summary = (
        evidence.summary
        + "; RDP at fractional orders "
        + ", ".join(f"{row['alpha']:g}: {row['direction']} ({row['relative_error']:+.3g} relative)" for row in rows)
    )
    details = {**evidence.details, "fractional_order_rdp": rows}
    below = [comparison for comparison in comparisons if comparison.direction == UNSOUND]
    beyond = [comparison for comparison in below if comparison.relative_error < -RDP_ROUNDOFF]
    if not beyond:
        if below and evidence.verdict is Verdict.VERIFIED:
            worst = min(below, key=lambda comparison: comparison.relative_error)
            summary = (
                f"the peer's RDP at fractional order {worst.alpha:g} is below the exact value by "
                f"{-worst.relative_error:.3g} of it, within the float64 round-off of an RDP series "
                f"({RDP_ROUNDOFF:g}): it holds only numerically (consistent, numerical); {summary}"
            )
            return replace(evidence, verdict=Verdict.CONSISTENT, summary=summary, details=details, certificate=None)
        return replace(evidence, summary=summary, details=details)
    worst = min(beyond, key=lambda comparison: comparison.relative_error)
    measurement = Measurement(
        quantity=f"peer RDP at order {worst.alpha:g} relative to the exact value",
        claimed=0.0,
        measured=worst.relative_error,
        margin=worst.relative_error,
        direction="point estimate (the peer's float against the exact mpmath value)",
    )
    return replace(
        evidence,
        verdict=Verdict.VIOLATED,
        summary=f"the peer's RDP at fractional order {worst.alpha:g} is below the exact value "
        f"({worst.relative_error:+.3g} relative, past the float64 round-off {RDP_ROUNDOFF:g}): an unsound "
        f"under-approximation; {summary}",
        details=details,
        measurements=(*evidence.measurements, measurement),
        certificate=None,
    )
