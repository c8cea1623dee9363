"""Audit of peer accountant libraries (dp-accounting, autodp) against exact RDP values.

For each grid point (order α, sampling probability q, noise multiplier σ, steps T) the
peer's RDP of the Poisson-subsampled Gaussian is compared with the exact value (MTZ
2019 in mpmath, error reported). A peer value above the exact enclosure is a sound
over-approximation; below it is an unsound under-approximation.

The peers are optional (the ``test`` extra); a missing one raises a clear error.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import mpmath

from dpaudit._records import record_json
from dpaudit._validation import check_choice, check_integer, check_real
from dpaudit.errors import DpAuditError
from dpaudit.privacy.accounting.rdp import compose_rdp, poisson_gaussian_rdp

__all__ = ["PEERS", "PeerComparison", "audit_peer_rdp"]

PEERS = ("dp_accounting", "autodp")
SOUND = "sound over-approximation"
UNSOUND = "unsound under-approximation"
AGREES = "agrees within the exact value's error"


@dataclass(frozen=True)
class PeerComparison:
    """One grid point: exact RDP, the peer's value, relative error and its direction."""

    peer: str
    alpha: float
    q: float
    sigma: float
    steps: int
    exact: mpmath.mpf
    exact_error: mpmath.mpf
    peer_value: float
    relative_error: float
    direction: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form for reports: the exact value and its error as decimal strings."""
        return record_json(self, exact=mpmath.nstr(self.exact, 17), exact_error=mpmath.nstr(self.exact_error, 3))


def _require(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise DpAuditError(
            f"peer library {module!r} is not installed; install the test extra (pip install 'dpaudit[test]') to audit "
            "it"
        ) from exc


def _dp_accounting_rdp(alpha: float, q: float, sigma: float, steps: int) -> float:
    library = _require("dp_accounting")
    rdp = _require("dp_accounting.rdp")
    accountant = rdp.RdpAccountant(orders=[alpha])
    event = library.SelfComposedDpEvent(library.PoissonSampledDpEvent(q, library.GaussianDpEvent(sigma)), steps)
    accountant.compose(event)
    return float(accountant._rdp[0])


def _autodp_rdp(alpha: float, q: float, sigma: float, steps: int) -> float:
    rdp_acct = _require("autodp.rdp_acct")
    rdp_bank = _require("autodp.rdp_bank")
    accountant = rdp_acct.anaRDPacct()
    accountant.compose_poisson_subsampled_mechanisms(
        lambda order: rdp_bank.RDP_gaussian({"sigma": sigma}, order), q, coeff=steps
    )
    accountant.build_zeroth_oracle()
    return float(accountant.evalRDP(alpha))


_PEER_FUNCTIONS = {"dp_accounting": _dp_accounting_rdp, "autodp": _autodp_rdp}


def audit_peer_rdp(
    peer: str,
    orders: Iterable[float],
    sampling_probabilities: Iterable[float],
    noise_multipliers: Iterable[float],
    *,
    steps: int = 1,
    digits: int = 60,
) -> list[PeerComparison]:
    """Compare a peer's RDP of the Poisson-subsampled Gaussian with the exact value on a grid.

    Args:
        peer: ``dp_accounting`` or ``autodp``.
        orders, sampling_probabilities, noise_multipliers: the grid.
        steps: number of composed steps T.
        digits: mpmath precision of the exact values.

    Returns:
        One :class:`PeerComparison` per grid point.

    Raises:
        DpAuditError: if the peer library is not installed.

    References:
        Mironov, Talwar, Zhang 2019 (exact values).
    """
    check_choice("peer", peer, PEERS)
    count = check_integer("steps", steps, low=1)
    function = _PEER_FUNCTIONS[peer]
    results = []
    for alpha in orders:
        for q in sampling_probabilities:
            for sigma in noise_multipliers:
                a = check_real("alpha", alpha, low=1.0, low_open=True)
                exact = compose_rdp(poisson_gaussian_rdp(a, q, sigma, digits=digits), count)
                theirs = function(a, q, sigma, count)
                if math.isnan(theirs):  # no bound at all (it compared as neither above nor below: "agrees")
                    direction, relative = UNSOUND, -math.inf
                else:
                    if theirs > exact.upper:
                        direction = SOUND
                    elif theirs < exact.lower:
                        direction = UNSOUND
                    else:
                        direction = AGREES
                    relative = float((mpmath.mpf(theirs) - exact.value) / exact.value) if exact.value else 0.0
                results.append(
                    PeerComparison(
                        peer, a, float(q), float(sigma), count, exact.value, exact.error, theirs, relative, direction
                    )
                )
    return results
