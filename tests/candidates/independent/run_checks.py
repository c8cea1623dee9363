"""Run ``dpaudit check --quick`` on every candidate of manifest.toml and tabulate what it said.

Usage, from this folder (so the candidate modules import)::

    ../../.venv/bin/python run_checks.py [--out /tmp/corpus-check] [--only NAME ...] [--seed N]

For each candidate it records the exit code of ``dpaudit check`` (0: every obligation passed,
1: a violation (or an error), 2: bad input, 3: internal error), the claim verdict, the verdict and
certified ε lower bound of the empirical privacy obligation, and the conformance result. It prints
a Markdown table and writes ``results.json`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
DPAUDIT = HERE.parents[1] / ".venv" / "bin" / "dpaudit"


def _summarise(report: dict) -> dict:
    claim_verdicts = []
    privacy, conformance, bound = [], [], None
    for claim in report.get("claims", []):
        claim_verdicts.append(claim.get("verdict"))
        for relation in claim.get("relations", []):
            for item in relation.get("obligations", []):
                evidence = item.get("evidence", {})
                checker = item.get("obligation", {}).get("checker")
                if checker == "candidate_matches_reference":
                    conformance.append(evidence.get("details", {}).get("conformance") or evidence.get("verdict"))
                else:
                    privacy.append(evidence.get("verdict"))
                    for measurement in evidence.get("measurements", []):
                        if str(measurement.get("quantity", "")).startswith("epsilon at delta"):
                            value = measurement.get("measured")
                            if isinstance(value, (int, float)):
                                bound = value if bound is None else max(bound, value)
                            elif isinstance(value, str):
                                bound = float(value)
    return {
        "claim_verdict": "/".join(str(v) for v in claim_verdicts),
        "privacy_verdict": "/".join(str(v) for v in privacy),
        "conformance": "/".join(str(v) for v in conformance) or "-",
        "epsilon_lower_bound": bound,
    }


def run(entry: dict, out: Path, seed: int | None) -> dict:
    target = out / entry["name"]
    command = [
        str(DPAUDIT),
        "check",
        entry["spec"],
        "--candidate",
        f"{entry['module']}:{entry['callable']}",
        "--quick",
        "--out",
        str(target),
    ]
    if seed is not None:
        command += ["--seed", str(seed)]
    start = time.monotonic()
    done = subprocess.run(command, cwd=HERE, capture_output=True, text=True, check=False)
    row = {"name": entry["name"], "kind": entry["kind"], "truth": entry["truth"], "exit_code": done.returncode}
    row["seconds"] = round(time.monotonic() - start, 1)
    report_path = target / "audit.json"
    if report_path.exists() and done.returncode in (0, 1, 4):
        row.update(_summarise(json.loads(report_path.read_text())))
    else:
        row.update(claim_verdict="-", privacy_verdict="-", conformance="-", epsilon_lower_bound=None)
        row["stderr"] = done.stderr[-2000:]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/corpus-check")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--seed", type=int)
    args = parser.parse_args()
    manifest = tomllib.loads((HERE / "manifest.toml").read_text())["candidate"]
    if args.only:
        manifest = [entry for entry in manifest if entry["name"] in args.only]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for entry in manifest:
        row = run(entry, out, args.seed)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    (out / "results.json").write_text(json.dumps(rows, indent=1))
    header = ["candidate", "truth", "exit", "claim verdict", "privacy obligation", "certified eps lower bound"]
    print("| " + " | ".join([*header, "conformance", "s"]) + " |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        bound = row["epsilon_lower_bound"]
        shown = "-" if bound is None else f"{bound:.3f}"
        print(
            f"| {row['name']} | {row['truth']} | {row['exit_code']} | {row['claim_verdict']} | "
            f"{row['privacy_verdict']} | {shown} | {row['conformance']} | {row['seconds']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
