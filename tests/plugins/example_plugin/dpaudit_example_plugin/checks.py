"""A third-party checker: every release of the mechanism under audit is a bit."""

from __future__ import annotations

import numpy as np

from dpaudit.plugin import CheckContext, Evidence, Measurement, Obligation, Verdict, register_checker


@register_checker(
    "example_outputs_are_bits",
    description="every release is 0 or 1 (example plugin checker)",
    audits_candidates=True,
)
def check_outputs_are_bits(obligation: Obligation, context: CheckContext) -> Evidence:
    samples = int(obligation.params.get("samples", 1000))
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
