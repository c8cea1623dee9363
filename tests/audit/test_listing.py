"""`dpaudit list` from the stored index: current (regenerate with python -m dpaudit.audit.listing), never stale."""

import json
import subprocess
import sys

from dpaudit.audit import listing as listing_module

_FRESH = "import json; from dpaudit.audit.listing import current_listing; print(json.dumps(current_listing()))"


def test_the_stored_index_is_current():
    """Compared with a fresh process: this one may hold checkers that other tests registered."""
    stored = json.loads(listing_module.INDEX_PATH.read_text(encoding="utf-8"))
    assert stored["fingerprint"] == listing_module._fingerprint(), "run: python -m dpaudit.audit.listing"
    fresh = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True, timeout=300)
    assert stored["listing"] == json.loads(fresh.stdout)
    assert listing_module.listing() == stored["listing"]


def test_a_stale_or_missing_index_gives_the_live_listing(tmp_path, monkeypatch):
    stale = tmp_path / "listing.json"
    stale.write_text(json.dumps({"fingerprint": "0" * 64, "listing": {"specs": [["forged.toml", "x", "y"]]}}))
    monkeypatch.setattr(listing_module, "INDEX_PATH", stale)
    assert listing_module.listing() == listing_module.current_listing()
    monkeypatch.setattr(listing_module, "INDEX_PATH", tmp_path / "missing.json")
    assert listing_module.listing() == listing_module.current_listing()
