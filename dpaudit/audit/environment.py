"""The environment that made an audit's numbers, recorded in audit.json and compared by ``recheck``.

Every package that computes a number a verdict rests on is named with its version (read from the
installed distributions, nothing imported), with the BLAS numpy calls, the platform and
dpaudit's own version and commit (when run from a git checkout).
"""

from __future__ import annotations

import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from dpaudit._version import __version__

__all__ = ["NUMERIC_PACKAGES", "environment_differences", "numeric_environment"]

#: The distributions whose versions move numbers: arithmetic, solvers, peer accountants.
NUMERIC_PACKAGES = ("numpy", "scipy", "mpmath", "gmpy2", "python-flint", "sympy", "cvxpy", "dp-accounting")


def _blas() -> str:
    """The BLAS numpy was built with (name and version), or ``unknown``."""
    try:
        import numpy as np

        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()
    except Exception:  # numpy < 1.25 has no dict mode; any other shape of the config: say unknown
        return "unknown"


def _commit() -> str:
    """dpaudit's git commit when it runs from a checkout, else ``unknown``."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return "unknown"
    try:
        found = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return found.stdout.strip() or "unknown"


def numeric_environment() -> dict[str, str]:
    """Python, the platform, the BLAS, dpaudit (version and commit) and every numeric package's version."""
    found = {
        "python": platform.python_version(),
        "platform": platform.system(),
        "machine": platform.machine(),
        "blas": _blas(),
        "dpaudit": __version__,
        "dpaudit_commit": _commit(),
    }
    for name in NUMERIC_PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "absent"
    return found


def environment_differences(recorded: dict[str, object]) -> list[str]:
    """What differs between a recorded environment and this one, as ``name: recorded -> here``."""
    here = numeric_environment()
    return [
        f"{name}: {recorded[name]} -> {here[name]}"
        for name in sorted(set(recorded) & set(here))
        if name != "dpaudit_commit" and str(recorded[name]) != here[name]
    ]
