"""Recompute every truth of round 11 and write truth/results.json.

    python truth/run_all.py        (from tests/candidates/round11; about 20 s)

Each truth_cNN_*.py derives the true epsilon of one candidate at the claimed delta by exact closed forms,
quadrature or exact enumeration (no Monte Carlo); its docstring holds the derivation.
"""

import importlib.util
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return v if math.isfinite(v) else ("inf" if v > 0 else ("-inf" if v < 0 else "nan"))
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    return value


def main():
    sys.path.insert(0, str(HERE.parent))
    results = {}
    for path in sorted(HERE.glob("truth_c*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        start = time.perf_counter()
        out = module.compute()
        out["seconds"] = round(time.perf_counter() - start, 2)
        name = path.stem.removeprefix("truth_")
        results[name] = _plain(out)
        print(f"{name:40s} {out['truth']:8s} true eps {out.get('true_epsilon')!s:22s} ({out['seconds']} s)", flush=True)
    (HERE / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
