"""Tests of the peer audit: directions of the peers' errors on a small grid."""

import sys

import pytest

from dpaudit.errors import DpAuditError, InvalidArgument
from dpaudit.privacy.accounting.peer_audit import SOUND, UNSOUND, audit_peer_rdp


def _dp_accounting_sums_fractional_orders_to_round_off() -> bool:
    """dp-accounting before 0.5 stops its fractional-order series at an absolute tolerance and lands within
    float64 round-off of the exact RDP, on either side (8e-11 below it at order 2.5 here); from 0.5 on its
    fractional orders over-approximate by more than 1e-5."""
    from importlib.metadata import version

    from packaging.version import Version

    return Version(version("dp-accounting")) < Version("0.5")


@pytest.mark.parametrize("peer", ["dp_accounting", "autodp"])
def test_peer_fractional_orders_over_approximate(peer):
    pytest.importorskip(peer)
    results = audit_peer_rdp(peer, [1.5, 2.5], [0.01], [2.5], steps=50)
    if peer == "dp_accounting" and _dp_accounting_sums_fractional_orders_to_round_off():
        assert all(abs(r.relative_error) < 1e-9 for r in results)
        assert [r.direction for r in results] == [SOUND if r.relative_error > 0 else UNSOUND for r in results]
        return
    assert all(r.direction == SOUND for r in results)
    assert all(r.relative_error > 1e-5 for r in results)


def test_integer_orders_agree_to_float_precision():
    pytest.importorskip("dp_accounting")
    for result in audit_peer_rdp("dp_accounting", [2, 8], [0.01], [1.1]):
        assert abs(result.relative_error) < 1e-10
        assert result.direction != UNSOUND or abs(result.relative_error) < 1e-10
        assert set(result.to_json()) >= {"exact", "peer_value", "relative_error", "direction"}


def test_missing_peer_fails_clearly(monkeypatch):
    monkeypatch.setitem(sys.modules, "autodp", None)
    monkeypatch.setitem(sys.modules, "autodp.rdp_acct", None)
    with pytest.raises(DpAuditError, match="not installed"):
        audit_peer_rdp("autodp", [2], [0.01], [1.0])


def test_unknown_peer():
    with pytest.raises(InvalidArgument):
        audit_peer_rdp("opacus", [2], [0.01], [1.0])
