"""The canonical JSON report: the source of truth every other renderer reads.

Canonical form: UTF-8, keys sorted, two-space indent, a final newline. Numbers that
need more than float64 (mpmath values, fractions) are strings. Timing fields
(``TIMING_FIELDS``) are the only parts that differ between two runs with the same
spec, seed and version.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from dpaudit._bounded_json import loads_bounded
from dpaudit.errors import SpecError
from dpaudit.kernel.evidence import json_number
from dpaudit.report.integrity import DIGEST_FIELD, content_digest, verify_report

log = logging.getLogger("dpaudit")

__all__ = [
    "TIMING_FIELDS",
    "dumps_report",
    "load_report",
    "strip_timing",
    "with_digest",
    "write_atomically",
    "write_report",
]

TIMING_FIELDS = frozenset({"elapsed_seconds", "started_at"})


def _default(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, Fraction, mpmath.mpf)):
        return json_number(value)
    if isinstance(value, np.ndarray):
        return [_default(item) if not isinstance(item, (int, float)) else item for item in value.tolist()]
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    if hasattr(value, "to_json"):
        return value.to_json()
    return str(value)


def _sanitize(value: Any) -> Any:
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, dict):
        return {str(key): _sanitize(inner) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [_sanitize(inner) for inner in value]
    return value


def dumps_report(document: dict[str, Any]) -> str:
    """Serialise a report document canonically (non-finite floats become strings)."""
    return (
        json.dumps(_sanitize(document), sort_keys=True, indent=2, ensure_ascii=False, default=_default, allow_nan=False)
        + "\n"
    )


def with_digest(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its content digest (see :mod:`dpaudit.report.integrity`)."""
    content = {key: value for key, value in document.items() if key != DIGEST_FIELD}
    return {**content, DIGEST_FIELD: content_digest(dumps_report(strip_timing(content)))}


def write_report(document: dict[str, Any], path: str | Path) -> Path:
    """Write the canonical JSON of ``document``, with its digest, to ``path`` (atomically:
    a temporary file in the same folder, then a rename) and return the path."""
    target = Path(path)
    write_atomically(target, dumps_report(with_digest(document)))
    return target


def _umask() -> int:
    """The process's umask, read without setting it (``os.umask`` would change it for every thread a moment):
    from /proc on Linux, else the usual 022."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomically(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` through a temporary file and a rename: a reader never sees
    half a file, and an interrupted write leaves the old file whole."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # the mode an ordinary write gives (mkstemp makes it 0600)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def load_report(path: str | Path) -> dict[str, Any]:
    """Read a report written by :func:`write_report`.

    Raises:
        SpecError: if the file is missing, is not JSON, or is not a dpaudit report.
    """
    location = str(path)
    try:
        document = loads_bounded(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError("no such file; expected an audit.json written by dpaudit", path=location) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise SpecError(f"not a readable JSON file: {exc}", path=location) from None
    if not isinstance(document, dict) or not isinstance(document.get("tool"), dict):
        raise SpecError("not a dpaudit report (no tool table)", path=location, key="tool")
    if document["tool"].get("name") != "dpaudit":
        raise SpecError("not a dpaudit report (no tool.name = 'dpaudit')", path=location, key="tool")
    recomputed = None
    if DIGEST_FIELD in document:
        recomputed = with_digest(document)[DIGEST_FIELD]
    else:  # dpaudit has written one since its first reports: older, or edited with the digest taken out
        log.warning(
            "%s: no digest, so its content is not checked against one (a report from before digests, or edited); "
            "dpaudit recheck refuses it",
            location,
        )
    verify_report(document, location, recomputed_digest=recomputed)
    return document


def strip_timing(document: Any) -> Any:
    """A copy of ``document`` without the timing fields, for reproducibility comparisons."""
    if isinstance(document, dict):
        return {key: strip_timing(value) for key, value in document.items() if key not in TIMING_FIELDS}
    if isinstance(document, list):
        return [strip_timing(value) for value in document]
    return document
