"""peer_accountant: dp_accounting's epsilon against dpaudit's certified enclosure."""

from __future__ import annotations

import builtins
import sys

import numpy as np
import pytest

from dpaudit.audit.plugins import get_checker
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.verdicts import Verdict
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import add_remove_one

MECHANISM = MechanismSpec("accountant", {"sampling": "poisson", "relation": "add_remove_one", "interval": 1e-4})
POINT = {"records": 300, "noise_multiplier": 1.3, "steps": 1000, "delta": 1e-5}


def _run(params, mechanism=MECHANISM):
    checker = get_checker("peer_accountant")
    obligation = Obligation("o", "statement", "peer_accountant", params)
    claim = Claim("c", "t", mechanism, ApproxDP(1.0, 1e-5), (add_remove_one(),), Source("p", "l"), (obligation,))
    checker.validate(params, claim)
    context = CheckContext(claim, add_remove_one(), np.random.default_rng(0), np.random.SeedSequence(0))
    return checker.function(obligation, context)


def test_the_rdp_accountant_is_a_certified_upper_bound_and_sound_at_fractional_orders():
    pytest.importorskip("dp_accounting")
    from importlib.metadata import version

    from packaging.version import Version

    evidence = _run({"peer": "dp_accounting", "accountant": "rdp", "points": [POINT], "fractional_orders": [2.5]})
    (fractional,) = evidence.details["fractional_order_rdp"]
    if Version(version("dp-accounting")) < Version("0.5"):
        # Before 0.5 the fractional-order series ends within 1e-9 of the exact RDP, here below it (8e-11 relative
        # at order 2.5, 4e-10 with numpy 1.26): an over-approximation only up to float64 round-off, as the
        # accountant kind's own RDP points are judged: consistent (numerical), never verified.
        assert abs(fractional["relative_error"]) < 1e-9
        below = fractional["relative_error"] < 0
        assert fractional["direction"] == ("unsound under-approximation" if below else "sound over-approximation")
        assert evidence.verdict is (Verdict.CONSISTENT if below else Verdict.VERIFIED)
    else:
        assert fractional["direction"] == "sound over-approximation"
        assert evidence.verdict is Verdict.VERIFIED


def test_a_fractional_order_rdp_below_the_exact_value_past_round_off_is_violated_and_one_above_is_not():
    import mpmath

    from dpaudit.checks.accountants.peers import with_fractional_orders
    from dpaudit.kernel.evidence import Evidence
    from dpaudit.privacy.accounting.peer_audit import SOUND, UNSOUND, PeerComparison

    def comparison(relative, direction):
        exact = mpmath.mpf("0.5")
        return PeerComparison("dp_accounting", 2.5, 0.01, 1.3, 10, exact, mpmath.mpf(1e-50), 0.5, relative, direction)

    points = Evidence(Verdict.VERIFIED, "every point's epsilon bounds the certified one", "grid", "pld")
    above = with_fractional_orders(points, [comparison(3e-3, SOUND)])
    assert above.verdict is Verdict.VERIFIED and "2.5: sound over-approximation" in above.summary
    below = with_fractional_orders(points, [comparison(3e-3, SOUND), comparison(-3e-9, UNSOUND)])
    assert below.verdict is Verdict.VIOLATED and below.certificate is None
    assert below.summary.startswith("the peer's RDP at fractional order 2.5 is below the exact value (-3e-09")
    assert below.measurements[-1].measured == -3e-9
    # dp_accounting 0.4.x: below by float64 round-off, as the accountant kind's RDP points are allowed (1e-9)
    roundoff = with_fractional_orders(points, [comparison(-4.2e-10, UNSOUND)])
    assert roundoff.verdict is Verdict.CONSISTENT and roundoff.certificate is None
    assert "within the float64 round-off" in roundoff.summary and "4.2e-10" in roundoff.summary
    undecided = Evidence(Verdict.INCONCLUSIVE, "a point's enclosure straddles the claim", "grid", "pld")
    assert with_fractional_orders(undecided, [comparison(-4.2e-10, UNSOUND)]).verdict is Verdict.INCONCLUSIVE


def test_an_understating_peer_is_violated(monkeypatch):
    pytest.importorskip("dp_accounting")
    import dpaudit.checks.accountants.peers as peers

    monkeypatch.setattr(peers, "_peer_epsilon", lambda library, accountant, interval, point: 0.05)
    evidence = _run({"peer": "dp_accounting", "accountant": "pld", "points": [POINT]})
    assert evidence.verdict is Verdict.VIOLATED and evidence.counterexample["stated_epsilon"] == 0.05


def test_without_the_library_it_is_inconclusive(monkeypatch):
    real_import = builtins.__import__

    def no_peer(name, *args, **kwargs):
        if name.startswith("dp_accounting"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_peer)
    monkeypatch.setattr("importlib.import_module", lambda name: no_peer(name))
    for name in [name for name in sys.modules if name.split(".")[0] == "dp_accounting"]:
        monkeypatch.delitem(
            sys.modules, name
        )  # imported by an earlier test of this process: gone as if never installed
    evidence = _run({"peer": "dp_accounting", "accountant": "pld", "points": [POINT]})
    assert evidence.verdict is Verdict.INCONCLUSIVE and "not installed" in evidence.summary
    assert "pip install 'dpaudit[peers]'" in evidence.summary


@pytest.mark.parametrize(
    ("params", "mechanism"),
    [
        ({"peer": "autodp", "accountant": "pld", "points": [POINT]}, MECHANISM),
        ({"peer": "dp_accounting", "accountant": "pld", "points": []}, MECHANISM),
        ({"peer": "dp_accounting", "accountant": "pld", "points": [POINT], "bogus": 1}, MECHANISM),
        (
            {"peer": "dp_accounting", "accountant": "pld", "points": [POINT]},
            MechanismSpec("accountant", {"sampling": "uniform_one", "relation": "add_remove_one"}),
        ),
    ],
)
def test_bad_params_are_refused(params, mechanism):
    with pytest.raises(InvalidArgument):
        _run(params, mechanism)


def test_a_peer_rdp_that_is_not_a_number_is_no_bound(monkeypatch):
    """A NaN compared as neither above nor below the exact enclosure, so it was classed as agreeing."""
    import math

    from dpaudit.checks.accountants.peers import with_fractional_orders
    from dpaudit.kernel.evidence import Evidence
    from dpaudit.privacy.accounting import peer_audit

    monkeypatch.setitem(peer_audit._PEER_FUNCTIONS, "dp_accounting", lambda alpha, q, sigma, steps: math.nan)
    (comparison,) = peer_audit.audit_peer_rdp("dp_accounting", [2.5], [0.01], [1.3], steps=10)
    assert comparison.direction == peer_audit.UNSOUND
    points = Evidence(Verdict.VERIFIED, "every point's epsilon bounds the certified one", "grid", "pld")
    assert with_fractional_orders(points, [comparison]).verdict is Verdict.VIOLATED


def test_a_dp_accounting_older_than_its_extra_is_not_compared(monkeypatch):
    """The peer check imports dp_accounting as the adapters do: a version below the extra's floor is named."""
    pytest.importorskip("dp_accounting")
    import importlib.metadata

    from dpaudit.adapters import _library

    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.4.0" if name == "dp-accounting" else real(name))
    _library._check_version.cache_clear()
    try:
        evidence = _run({"peer": "dp_accounting", "accountant": "pld", "points": [POINT]})
    finally:
        _library._check_version.cache_clear()
    assert evidence.verdict is Verdict.INCONCLUSIVE and "dp-accounting 0.4.0 is installed" in evidence.summary
