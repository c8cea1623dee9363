"""A third-party checker: every release of the mechanism under audit is a bit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpaudit.plugin import (
    CheckContext,
    CheckerConfig,
    Evidence,
    Measurement,
    Obligation,
    Verdict,
    param,
    parse_config,
    register_checker,
)


@dataclass(frozen=True)
class BitsConfig(CheckerConfig):
    """The params of the alphabet check: how many releases it looks at."""

    samples: int = param("releases looked at", 1000, low=1, high=10**7)


@register_checker(
    "example_outputs_are_bits",
    description="every release is 0 or 1 (example plugin checker)",
    config=BitsConfig,
    audits_candidates=True,
)
def check_outputs_are_bits(obligation: Obligation, context: CheckContext) -> Evidence:
    samples = parse_config(BitsConfig, obligation.params).samples
    outputs = np.asarray(context.mechanism().release(np.zeros(1), rng=context.rng, size=samples))
    bad = int(np.count_nonzero((outputs != 0.0) & (outputs != 1.0)))
    return Evidence(
        verdict=Verdict.VIOLATED if bad else Verdict.CONSISTENT,
        summary=f"{bad} of {samples} releases are not a bit",
        domain="input bit 0",
        method="exhaustive look at the sampled releases",
        measurements=(Measurement("releases that are not a bit", 0, bad, margin=-bad, direction="exact count"),),
        budget={"samples": samples},
    )
