"""``dpaudit calibrate``: exact noise calibration where the papers' constants are loose."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from dpaudit.cli.common import EXIT_OK, Command


def add_arguments(calibrate: argparse.ArgumentParser) -> None:
    """Add the arguments of ``dpaudit calibrate`` to its parser."""
    calibrate.add_argument("target", choices=("smooth-gaussian",), help="what to calibrate")
    calibrate.add_argument("--epsilon", type=float, required=True, help="the target epsilon > 0")
    calibrate.add_argument("--delta", type=float, required=True, help="the target delta in (0, 1)")
    calibrate.add_argument("--dim", type=int, required=True, help="the dimension d of the released vector")
    calibrate.add_argument("--beta", type=float, default=None, help="beta of condition (b) (default the paper's)")
    calibrate.add_argument("--pareto-points", type=int, default=6, help="points of the (alpha, beta) front")


def run(arguments: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``dpaudit calibrate``:`` and return its exit code."""

    from dpaudit.privacy.calibration import calibrate_smooth_gaussian

    result = calibrate_smooth_gaussian(
        arguments.epsilon, arguments.delta, arguments.dim, beta=arguments.beta, pareto_points=arguments.pareto_points
    )
    print(json.dumps(result.to_json(), indent=2, sort_keys=True, default=str))
    return EXIT_OK


COMMAND = Command("calibrate", add_arguments, run, help="exact noise calibration where the papers' constants are loose")
