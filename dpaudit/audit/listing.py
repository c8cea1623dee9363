"""What ``dpaudit list`` prints, from a stored index when it is current.

Listing the built-in specs, mechanisms, checkers and mutants imports every checker (their
modules register them), which costs most of a second. The index ``listing.json`` beside this
module holds the same lines with a fingerprint of what they are read from: the built-in spec
files and the sources of the checks, mechanisms and mutants. ``dpaudit list`` uses it when the
fingerprint matches and no plugin is installed, and builds the listing live otherwise, so it
is never stale. Regenerate it with ``python -m dpaudit.audit.listing`` (a test keeps it current).
"""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

__all__ = ["INDEX_PATH", "current_listing", "listing", "write_index"]

INDEX_PATH = Path(__file__).with_name("listing.json")
_PACKAGE = Path(__file__).resolve().parents[1]
_SOURCES = ("checks", "mechanisms", "audit/mutants")
_PLUGIN_GROUPS = ("dpaudit.checkers", "dpaudit.mechanisms")


def _fingerprint() -> str:
    """A digest of the built-in spec files and of the sources the listing is read from."""
    files = sorted((_PACKAGE.parent / "specs").glob("*.toml"))
    files += sorted(path for folder in _SOURCES for path in (_PACKAGE / folder).rglob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def current_listing() -> dict[str, list[list[str]]]:
    """The listing built from the registries (imports every checker, mechanism and mutant)."""
    from dpaudit.audit.mutants.library import list_mutants
    from dpaudit.audit.plugins import list_checkers
    from dpaudit.audit.spec import builtin_specs, load_spec
    from dpaudit.mechanisms.catalogue import list_mechanisms

    specs = []
    for path in builtin_specs():
        claim = load_spec(path)
        specs.append([path.name, claim.id, claim.title])
    return {
        "specs": specs,
        "mechanisms": [[mechanism.name, mechanism.description] for mechanism in list_mechanisms()],
        "checkers": [[entry.name, entry.description] for entry in list_checkers()],
        "mutants": [[mutant.name, mutant.family, mutant.bug] for mutant in list_mutants()],
    }


def _stored() -> dict[str, Any] | None:
    """The stored listing when it is current and no plugin could add to it, else None."""
    if any(entry_points(group=group) for group in _PLUGIN_GROUPS):
        return None
    try:
        index = json.loads(INDEX_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(index, dict) or index.get("fingerprint") != _fingerprint():
        return None
    listing = index.get("listing")
    return listing if isinstance(listing, dict) else None


def listing() -> dict[str, list[list[str]]]:
    """What ``dpaudit list`` prints: the stored index when current, else built live."""
    stored = _stored()
    return stored if stored is not None else current_listing()


def write_index() -> None:
    """Store the current listing with its fingerprint in ``listing.json``."""
    document = {"fingerprint": _fingerprint(), "listing": current_listing()}
    INDEX_PATH.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_index()
