"""Run every round-9 truth script and write truth/results.json (a few minutes on one core).

cd tests/candidates/round9/truth && python run_all.py
"""

import importlib.util
import json
import math
import pathlib

import _paths  # noqa: F401

MODULES = [
    "c01_dp_lsw_unique_visits",
    "c02_dp_lsw_empirical_weights",
    "c03_dp_lsl_observed_bound",
    "c04_smooth_gaussian_fixed_point",
    "c05_gpope_step_poisson_mask",
    "c06_gpope_step_minibatch",
    "c07_gpope_saddle_operators",
    "c08_gpope_average_after_noise",
    "c09_private_synthesis_stick_breaking",
    "c10_rl_first_visit_values",
    "c11_rl_occupancy_counts",
    "c12_dp_lsl_ridge_closed_form",
]


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    try:
        value = float(value)
    except (TypeError, ValueError):
        return value
    return "inf" if math.isinf(value) else value


def main():
    here = pathlib.Path(__file__).resolve().parent
    results = []
    for name in MODULES:
        spec = importlib.util.spec_from_file_location(f"truth_{name}", here / f"truth_{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        row = _plain(module.result())
        print(json.dumps(row))
        results.append(row)
    (here / "results.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
