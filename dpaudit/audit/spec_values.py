"""What a spec file may hold before it is interpreted: size, nesting, integer, string and
control-character ceilings, slug ids, and neighbouring pairs read from .json/.npz files."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dpaudit._bounded_json import loads_bounded
from dpaudit.errors import InvalidArgument, SpecError


class SpecReader(Protocol):
    """What these checks need from the spec reader: an error naming the file and the key."""

    def fail(self, key: str, message: str) -> SpecError: ...


__all__ = [
    "MAX_INTEGER",
    "MAX_NESTING",
    "MAX_SPEC_BYTES",
    "MAX_STRING",
    "MAX_VALUES",
    "load_pairs_file",
    "syntax_hint",
]


#: Ceilings on the shape of a spec file, so that a hostile file fails fast with a message.
MAX_SPEC_BYTES = 4 * 1024 * 1024


MAX_NESTING = 24


MAX_VALUES = 200_000


MAX_INTEGER = 2**63 - 1


MAX_STRING = 20_000


_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _check_values(reader: SpecReader, data: Any) -> None:
    """Every value of the document: finite floats, integers in 64 bits, strings without control
    characters, bounded nesting and size (iterative: a deep document cannot exhaust the stack)."""
    stack: list[tuple[Any, str, int]] = [(data, "spec", 0)]
    seen = 0
    while stack:
        value, key, depth = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            raise reader.fail(key, f"the spec holds more than {MAX_VALUES} values")
        if depth > MAX_NESTING:
            raise reader.fail(key, f"nested deeper than {MAX_NESTING} levels")
        if isinstance(value, bool):
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise reader.fail(key, f"{value!r} is not allowed; expected a finite number")
        if isinstance(value, int) and abs(value) > MAX_INTEGER:
            raise reader.fail(key, f"an integer of {len(str(abs(value)))} digits; expected at most 2^63 - 1")
        if isinstance(value, str):
            if len(value) > MAX_STRING:
                raise reader.fail(key, f"a string of {len(value)} characters; expected at most {MAX_STRING}")
            if _CONTROL.search(value):
                raise reader.fail(key, "a string with control characters; expected printable text")
        if isinstance(value, dict):
            for inner_key, inner in value.items():
                if _CONTROL.search(inner_key):
                    raise reader.fail(key, "a key with control characters")
                stack.append((inner, f"{key}.{inner_key}" if key != "spec" else inner_key, depth + 1))
        elif isinstance(value, list):
            stack.extend((inner, f"{key}[{index}]", depth + 1) for index, inner in enumerate(value))


def _check_id(reader: SpecReader, value: str, key: str) -> str:
    if not _ID.match(value):
        raise reader.fail(
            key, f"{value!r} is not an id; expected letters, digits, '.', '_' or '-' (at most 128, no '/' or '..')"
        )
    if ".." in value:
        raise reader.fail(key, f"{value!r}: an id may not contain '..'")
    return value


def load_pairs_file(path: Path) -> list[dict[str, Any]]:
    """Neighbouring pairs from a file: JSON ``[{"first": ..., "second": ..., "label": ...}, ...]``, or
    ``.npz`` with arrays ``first`` and ``second`` of shape (pairs, ...) (no pickled objects).

    Raises:
        InvalidArgument: naming the file and what is wrong with it.
    """
    try:
        if path.suffix == ".json":
            pairs = loads_bounded(path.read_text(encoding="utf-8"))
        elif path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as archive:
                if not {"first", "second"} <= set(archive.files):
                    raise InvalidArgument(f"{path}: expected arrays 'first' and 'second', found {archive.files}")
                first, second = archive["first"], archive["second"]
                if first.shape[:1] != second.shape[:1]:
                    raise InvalidArgument(f"{path}: 'first' and 'second' hold different numbers of pairs")
                pairs = [{"first": a.tolist(), "second": b.tolist()} for a, b in zip(first, second, strict=True)]
        else:
            raise InvalidArgument(f"{path}: expected a .json or .npz file")
    except (OSError, ValueError) as exc:
        raise InvalidArgument(f"{path}: cannot read pairs ({exc})") from None
    if not isinstance(pairs, list) or not pairs:
        raise InvalidArgument(f"{path}: expected a non-empty list of pairs")
    return pairs


def syntax_hint(text: str, error: Exception) -> str:
    """A hint for two frequent slips behind a TOML ``error``: a spec written as JSON, and an inline table
    left open at the end of a line, which TOML forbids (``params = { samples = 1000,`` then a new line)."""
    if text.lstrip().startswith("{"):
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            pass
        else:
            return "; this is JSON: a spec is TOML (docs/spec.md shows the same tables and keys in TOML)"
    found = re.search(r"at line (\d+)", str(error))
    line = int(getattr(error, "lineno", None) or (found.group(1) if found else 0))
    before = "".join(re.sub(r'"(?:[^"\\]|\\.)*"|#.*', "", row) for row in text.splitlines()[:line])
    if before.count("{") <= before.count("}"):
        return ""
    return (
        "; an inline table { ... } must close on the line it opens on (its arrays may span lines): "
        "write it on one line or as a [table] section"
    )


def _printable(text: str) -> str:
    return _CONTROL.sub("?", text)[:300]
