"""The randomness contract of an implementation: its noise comes from the ``rng`` it is given.

Two things are checked on every neighbouring pair:

* **reproducible**: two releases with generators seeded alike must be equal, or the audit of
  this implementation cannot be replayed (the result is ``inconclusive``, saying so);
* **random**: releases with ``samples`` different seeds must not all be the same value. If
  they are (noise from a fixed seed, or no noise), the output on X is an atom: the event
  {y = that value} has, on fresh draws, probability p on X and q on X', and
  ln((p_lower − δ) / q_upper) (Clopper–Pearson, both sides at the stated confidence) is a
  certified ε lower bound — ``violated`` when it exceeds the claim.

References:
    Dwork & Roth 2014, Def. 2.4 (an event E with P[M(X) in E] > e^ε P[M(X') in E] + δ
    refutes (ε, δ)-DP); Clopper & Pearson 1934.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit._validation import check_integer, check_real
from dpaudit.checks.claim_inputs import approx_dp_of, input_converter
from dpaudit.checks.empirical.sampling import neighbour_pairs, reference_or_given_pairs
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict

__all__ = ["check_randomness_contract"]

_KEYS = {"samples", "confidence", "pairs"}


def _validate(params: dict[str, Any], claim: Claim) -> None:
    approx_dp_of(claim)
    unknown = set(params) - _KEYS
    if unknown:
        raise InvalidArgument(f"unknown params {sorted(unknown)}: expected some of {sorted(_KEYS)}")
    check_integer("samples", params.get("samples", 500), low=20, high=100_000)
    check_real("confidence", params.get("confidence", 0.95), low=0.5, high=1.0, high_open=True)
    if "pairs" in params:
        neighbour_pairs(params["pairs"], input_converter(claim))


def _release(mechanism: Any, data: Any, seed: int) -> np.ndarray:
    return np.asarray(mechanism.release(data, rng=np.random.default_rng(seed)), dtype=np.float64).ravel()


@register_checker(
    "randomness_contract",
    description="the outputs are reproducible for one seed and vary with the seed; an output that never varies "
    "is an atom, certified against the neighbour (public noise)",
    validate=_validate,
    audits_candidates=True,
)
def check_randomness_contract(obligation: Obligation, context: CheckContext) -> Evidence:
    """Check that the mechanism's noise comes from its ``rng`` (see the module docstring)."""
    guarantee = approx_dp_of(context.claim)
    samples = int(obligation.params.get("samples", 500))
    confidence = float(obligation.params.get("confidence", 0.95))
    pairs = reference_or_given_pairs(obligation.params, context)
    mechanism = context.sampled_mechanism()
    seeds = [int(s) for s in context.rng.integers(0, 2**62, size=samples)]
    alpha = (1.0 - confidence) / (2 * len(pairs))
    domain = f"{len(pairs)} pair(s), {samples} seeds per side"
    budget = {"samples": samples, "pairs": len(pairs)}
    for pair in pairs:
        again = _release(mechanism, pair.first, seeds[0]), _release(mechanism, pair.first, seeds[0])
        if again[0].shape != again[1].shape or not np.array_equal(again[0], again[1]):
            return Evidence(
                Verdict.INCONCLUSIVE,
                f"not reproducible: two releases on {pair.label} with generators seeded alike differ, so the "
                "implementation draws randomness that is not the rng it is given; its audit cannot be replayed",
                domain,
                "same seed twice",
                budget=budget,
                details={"pair": pair.label},
            )
    worst: tuple[float, str, dict[str, Any]] | None = None
    for pair in pairs:
        first = np.stack([_release(mechanism, pair.first, seed) for seed in seeds])
        if not (first == first[0]).all():
            continue
        second = np.stack([_release(mechanism, pair.second, seed + 1) for seed in seeds])
        hits_second = int(np.count_nonzero((second == first[0]).all(axis=1)))
        p_lower = clopper_pearson_lower(samples, samples, alpha)
        q_upper = clopper_pearson_upper(hits_second, samples, alpha)
        epsilon = epsilon_lower_bound(p_lower, q_upper, guarantee.delta)
        record = {
            "pair": pair.label,
            "value_on_X": [float(v) for v in first[0][:8]],
            "repeats_on_X": samples,
            "repeats_on_X_prime": hits_second,
            "p_lower": p_lower,
            "q_upper": q_upper,
        }
        if worst is None or epsilon > worst[0]:
            worst = (epsilon, pair.label, record)
    if worst is None:
        return Evidence(
            Verdict.CONSISTENT,
            f"the outputs are reproducible for one seed and vary with the seed on all {len(pairs)} pair(s)",
            domain,
            "same seed twice; distinct seeds",
            budget=budget,
        )
    epsilon, label, record = worst
    violated = epsilon > guarantee.epsilon
    measurement = Measurement(
        quantity=f"epsilon at delta={guarantee.delta!r}",
        claimed=guarantee.epsilon,
        measured=epsilon,
        margin=guarantee.epsilon - epsilon,
        direction=f"lower bound at confidence {confidence} (Clopper-Pearson)",
        interval=(epsilon, float("inf")),
    )
    summary = (
        f"public noise: {samples} releases on {label} with {samples} different seeds are all the same value; "
        f"the event 'y equals it' certifies epsilon >= {epsilon:.4g} against the claimed {guarantee.epsilon:g}"
    )
    return Evidence(
        Verdict.VIOLATED if violated else Verdict.INCONCLUSIVE,
        summary,
        domain,
        "distinct seeds; the repeated value as an event, Clopper-Pearson on both sides",
        measurements=(measurement,),
        budget=budget,
        counterexample=record if violated else None,
        details={"randomness": record},
    )
