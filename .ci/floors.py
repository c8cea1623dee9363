"""Print pip constraints pinning every runtime dependency of pyproject.toml to its declared floor
(``name>=X`` becomes ``name==X``), for CI's second environment: the floors must hold."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

FLOOR = re.compile(r"^\s*([A-Za-z0-9_.\-\[\]]+?)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*(?:,.*)?$")


def floors(pyproject: Path) -> list[str]:
    """``name==floor`` for each runtime dependency that declares a ``>=`` floor."""
    dependencies = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = []
    for requirement in dependencies:
        match = FLOOR.match(requirement)
        if match is None:
            raise SystemExit(f"{requirement!r}: every runtime dependency needs a '>=' floor")
        name = match.group(1).split("[", 1)[0]
        pins.append(f"{name}=={match.group(2)}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    sys.stdout.write("".join(f"{pin}\n" for pin in floors(root / "pyproject.toml")))
