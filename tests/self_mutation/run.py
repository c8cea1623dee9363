"""Plant every defect of ``defects.py`` in a copy of dpaudit and run the tests that must catch it.

    python -m tests.self_mutation.run [--only NAME ...] [--out reports/self_mutation.md]

Writes the kill table (defect, area, targets, killed or survived, seconds) as Markdown and
JSON; exits 1 when any defect survives. The package copy is imported (the run starts in
its folder, first on sys.path), so the repository itself is never modified.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.self_mutation.defects import DEFECTS, Defect

ROOT = Path(__file__).resolve().parents[2]


def plant(defect: Defect, copy: Path) -> None:
    """Apply ``defect`` to the package copy under ``copy`` (refuses a change that is not unique)."""
    target = copy / defect.path
    text = target.read_text(encoding="utf-8")
    if text.count(defect.old) != 1:
        raise SystemExit(f"{defect.name}: the text to replace occurs {text.count(defect.old)} times in {defect.path}")
    target.write_text(text.replace(defect.old, defect.new), encoding="utf-8")


#: What the package reads beside itself (the built-in specs, the generated docs), linked into each copy:
#: a copy without them fails every test that loads a spec, whatever the defect.
_BESIDE_THE_PACKAGE = ("specs", "docs")


def _pytest(targets: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """``pytest -x`` on ``targets``, importing the dpaudit found in ``cwd``."""
    environment = {**os.environ, "PYTHONPATH": str(cwd), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider", "--rootdir", str(ROOT)]
    command += ["-c", str(ROOT / "pyproject.toml"), *targets]
    # run from cwd: the working directory comes first on sys.path, so `import dpaudit` is the one there
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout)


def failed_tests(output: str, cwd: Path) -> list[str]:
    """The node ids (with absolute paths) of the tests a pytest run in ``cwd`` reports as failed or in error in
    its short summary (captured output above it may hold lines starting with ``ERROR`` too)."""
    ids = []
    _, _, summary = output.partition("short test summary info")
    for line in summary.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            node = line.split(" ", 1)[1].split(" - ", 1)[0]
            path, separator, rest = node.partition("::")
            ids.append(str((cwd / path).resolve()) + separator + rest)
    return ids


def run_defect(defect: Defect, *, timeout: float = 900.0) -> dict[str, object]:
    """Plant ``defect`` in a fresh copy and run its targets. Killed when they fail, name the tests that failed,
    and those pass on the repository's own code: a test that fails without the defect too kills nothing, and
    neither does a run that names none."""
    with tempfile.TemporaryDirectory(prefix="dpaudit-mutant-") as folder:
        copy = Path(folder)
        shutil.copytree(ROOT / "dpaudit", copy / "dpaudit", ignore=shutil.ignore_patterns("__pycache__"))
        for name in _BESIDE_THE_PACKAGE:
            (copy / name).symlink_to(ROOT / name, target_is_directory=True)
        plant(defect, copy)
        targets = [str(ROOT / target) for target in defect.targets]
        started = time.perf_counter()
        try:
            result = _pytest(targets, copy, timeout)
            killed = result.returncode != 0
            tail = (result.stdout + result.stderr).strip().splitlines()[-1:] or [""]
            failed = failed_tests(result.stdout, copy) if killed else []
            if killed and not failed:  # pytest stopped without naming a test (an internal or usage error)
                killed, tail = False, [f"not a kill: pytest exited {result.returncode} naming no failed test"]
            elif failed and _pytest(failed, ROOT, timeout).returncode != 0:
                killed, tail = False, [f"not a kill: {failed[0]} fails without the defect too"]
        except subprocess.TimeoutExpired:
            killed, tail = True, ["timed out (counts as killed: the suite did not pass)"]
    return {
        "name": defect.name,
        "area": defect.area,
        "path": defect.path,
        "targets": list(defect.targets),
        "killed": killed,
        "seconds": round(time.perf_counter() - started, 1),
        "last_line": tail[0][:200],
    }


def write_table(rows: list[dict[str, object]], out: Path) -> None:
    killed = sum(bool(row["killed"]) for row in rows)
    lines = [
        "# Self-mutation: planted defects in dpaudit and the tests that catch them",
        "",
        "Command: `python -m tests.self_mutation.run` (each defect planted in a copy of the package; "
        "the listed tests must fail).",
        "",
        f"**{killed} of {len(rows)} killed.**",
        "",
        "| defect | area | file | targets | result | s |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        result = "killed" if row["killed"] else "**survived**"
        targets = ", ".join(str(t) for t in row["targets"])  # type: ignore[attr-defined]
        lines.append(f"| {row['name']} | {row['area']} | `{row['path']}` | {targets} | {result} | {row['seconds']} |")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps({"killed": killed, "total": len(rows), "rows": rows}, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="plant only these defects")
    parser.add_argument("--out", default=str(ROOT / "reports" / "self_mutation.md"), help="the Markdown kill table")
    arguments = parser.parse_args(argv)
    chosen = [d for d in DEFECTS if arguments.only is None or d.name in arguments.only]
    rows = []
    for defect in chosen:
        rows.append(run_defect(defect))
        print(f"{'killed  ' if rows[-1]['killed'] else 'SURVIVED'} {defect.name} ({rows[-1]['seconds']} s)", flush=True)
    write_table(rows, Path(arguments.out))
    return 0 if all(row["killed"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
