"""`dpaudit list` from the stored index: current (regenerate with python -m dpaudit.audit.listing), never stale."""

import json

from dpaudit.audit import listing as listing_module


def test_the_stored_index_is_current():
    stored = json.loads(listing_module.INDEX_PATH.read_text(encoding="utf-8"))
    assert stored["fingerprint"] == listing_module._fingerprint(), "run: python -m dpaudit.audit.listing"
    assert stored["listing"] == listing_module.current_listing()
    assert listing_module.listing() == stored["listing"]


def test_a_stale_or_missing_index_gives_the_live_listing(tmp_path, monkeypatch):
    stale = tmp_path / "listing.json"
    stale.write_text(json.dumps({"fingerprint": "0" * 64, "listing": {"specs": [["forged.toml", "x", "y"]]}}))
    monkeypatch.setattr(listing_module, "INDEX_PATH", stale)
    assert listing_module.listing() == listing_module.current_listing()
    monkeypatch.setattr(listing_module, "INDEX_PATH", tmp_path / "missing.json")
    assert listing_module.listing() == listing_module.current_listing()
