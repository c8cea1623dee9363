"""Recompute every round-10 true epsilon and write truth/results.json.

    cd tests/candidates/round10 && python truth/run_all.py

numpy/scipy only, no Monte Carlo: exact closed forms, 1-D quadratures of exact densities, exact enumerations
(see each truth_cNN_*.py).  Takes well under a minute.
"""

import importlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

MODULES = [
    "truth_c01_mean_return_analytic",
    "truth_c02_policy_counts_geometric",
    "truth_c03_offpolicy_is_value",
    "truth_c04_visit_frequencies_addremove",
    "truth_c05_gpope_step_addremove_calibration",
    "truth_c06_gpope_step_noise_norm",
    "truth_c07_dp_lsw_smooth_bound_sign",
    "truth_c08_dp_lsl_aggregated",
    "truth_c09_smooth_gaussian_analytic_alpha",
    "truth_c10_private_synthesis_stickbreaking",
    "truth_c11_sparse_vector_fresh_threshold",
    "truth_c12_permute_and_flip",
]


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value


def main():
    results = {}
    for name in MODULES:
        start = time.perf_counter()
        result = _plain(importlib.import_module(name).compute())
        result["seconds"] = round(time.perf_counter() - start, 2)
        claim = result["claim"]["epsilon"]
        result["ratio_to_claim"] = result["true_epsilon"] / claim if claim else None
        results[result["name"]] = result
        print(
            f"{result['name']:45s} {result['truth']:8s} true eps {result['true_epsilon']:.6g} "
            f"vs claim {claim:g} (delta {result['claim']['delta']:g})  [{result['seconds']} s]"
        )
    (HERE / "results.json").write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return results


if __name__ == "__main__":
    main()
