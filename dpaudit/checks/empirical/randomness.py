"""The randomness contract of an implementation: its noise comes from the ``rng`` it is given.

Two things are checked on every neighbouring pair:

* **reproducible**: two releases with generators seeded alike must be equal, or the audit of
  this implementation cannot be replayed. A candidate that is not reproducible is run again in
  fresh worker processes (its module imported anew) with distinct seeds: when every fresh run
  releases the same sequence of outputs on X, the sequence varies from call to call (there is
  noise) and differs from the sequence on X', the noise is a fixed function of the call
  sequence — a module-level generator with a constant seed — and so public: subtracting it
  recovers the input's statistic, ε = ∞, ``violated`` (the two sequences are the replay).
  Otherwise the result is ``inconclusive``, saying the audit cannot be replayed;
* **from the rng**: a candidate that draws from ``numpy.random``'s or ``random``'s global state
  (seeded by the worker from each call's seed, so the audit still replays) is ``inconclusive``,
  saying it ignores the rng;
* **random**: releases with ``samples`` different seeds must not all be the same value. If
  they are (noise from a fixed seed, or no noise), the output on X is an atom: the event
  {y = that value} has, on fresh draws, probability p on X and q on X', and
  ln((p_lower − δ) / q_upper) (Clopper–Pearson, both sides at the stated confidence) is a
  certified ε lower bound. Releases that repeat in runs (noise seeded from the clock in whole
  seconds, a run ending inside the releases) give the event {y is a value repeated among the
  even-numbered releases}, counted on the odd-numbered ones. A pair is ``violated`` only when
  such a round refutes the claim twice: on these releases and again, its event chosen anew, on
  fresh ones (seeds neither input used), the bound being the smaller of the two. Each round is a
  test at the stated confidence (n equal releases of a value of probability p come with
  probability p^n, which is below α whenever the Clopper–Pearson bound from n of n exceeds p; over
  the values a run can settle on, at most α^((n − 1)/n), 1.008 α at n = 500), so a correct
  mechanism is violated with probability at most about (1 − confidence)², as by the model-free
  check's confirmation: an atom of a clamped release or a randomized response meets a tight
  claim's bound by chance in one round now and then. An event that refutes nothing is no finding:
  a discrete output repeats by chance, and an output that is one value on X and released on X' too
  may be the likely outcome of a private mechanism (the winner of an exponential mechanism, a clamp
  far from the input): ``consistent``. One value on X that X' never releases is no noise or public
  noise; when the seeds are too few to refute the claim with it (ε of about 4.9 at 500), the result
  is ``inconclusive``, never ``consistent``.

References:
    Dwork & Roth 2014, Def. 2.4 (an event E with P[M(X) in E] > e^ε P[M(X') in E] + δ
    refutes (ε, δ)-DP); Clopper & Pearson 1934.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.checks.claim_inputs import approx_dp_of
from dpaudit.checks.empirical.release_batches import (
    batch_disagreement,
    releases_per_seed,
    same_size_releases,
    value_key,
)
from dpaudit.checks.empirical.sampling import NeighbourPair, PairsConfig, reference_or_given_pairs
from dpaudit.checks.empirical.statistics import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound
from dpaudit.kernel.checker_config import param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence, Measurement, epsilon_measurement
from dpaudit.kernel.verdicts import Verdict

__all__ = ["check_randomness_contract"]


@dataclass(frozen=True)
class RandomnessConfig(PairsConfig):
    """The params of the randomness contract: seeds per side and the confidence of the atom bound."""

    samples: int = param("seeds per side", 500, low=20, high=100_000, quick_cap=500)
    confidence: float = param("the confidence of the atom bound", 0.95, low=0.5, high=1.0, high_open=True)


#: Fresh runs per input, calls per run, and the least share of distinct outputs in a run, for the
#: public-noise replay: continuous draws never repeat across runs with distinct seeds.
FRESH_RUNS = 3
FRESH_CALLS = 64
DISTINCT_SHARE = 0.5


def _public_sequence(mechanism: Any, pair: NeighbourPair, seeds: list[int], claimed: float) -> Evidence | None:
    """``violated`` (ε = ∞) when fresh runs show the noise is a fixed function of the call sequence
    (see the module docstring), else ``None``. Only a candidate (``fresh_batch``) can be run afresh."""
    fresh = getattr(mechanism, "fresh_batch", None)
    if not callable(fresh):
        return None
    runs = {}
    for side, data, offset in (("X", pair.first, 1), ("X'", pair.second, 1 + FRESH_RUNS)):
        batches = [
            np.asarray(fresh(data, FRESH_CALLS, seeds[offset + k]), dtype=np.float64).reshape(FRESH_CALLS, -1)
            for k in range(FRESH_RUNS)
        ]
        if not all(batch.shape == batches[0].shape and np.array_equal(batch, batches[0]) for batch in batches):
            return None  # the runs differ: the noise is random, only not replayable
        distinct = len({row.tobytes() for row in batches[0] + 0.0})
        if distinct < DISTINCT_SHARE * FRESH_CALLS:
            return None  # too few distinct outputs to tell a fixed sequence from chance (discrete outputs)
        runs[side] = batches[0]
    first, second = runs["X"], runs["X'"]
    differing = [
        i for i in range(FRESH_CALLS) if first.shape != second.shape or not np.array_equal(first[i], second[i])
    ]
    if not differing:
        return None
    call = differing[0]
    record = {
        "pair": pair.label,
        "fresh_runs": FRESH_RUNS,
        "calls_per_run": FRESH_CALLS,
        "call": call,
        "output_on_X": [float(v) for v in first[call][:8]],
        "output_on_X_prime": [float(v) for v in second[call][:8]],
        "replay": f"run the candidate in a new process on X and on X' with any seeds: call {call} releases "
        "these outputs every time; the noise is a fixed sequence, so the release reveals the input's statistic",
    }
    return Evidence(
        Verdict.VIOLATED,
        f"public noise: in {FRESH_RUNS} fresh processes with distinct seeds the candidate released the same "
        f"{FRESH_CALLS} varying outputs on {pair.label}, and others on X': the noise does not come from the rng "
        f"(a fixed seed), so epsilon is infinite against the claimed {claimed:g}",
        f"{pair.label}: {FRESH_RUNS} fresh processes per input, {FRESH_CALLS} calls each",
        "same seed twice; fresh processes with distinct seeds",
        measurements=(
            Measurement(
                quantity="epsilon",
                claimed=claimed,
                measured=float("inf"),
                margin=-float("inf"),
                direction="public noise: the releases are a fixed function of the call sequence (exact replay)",
            ),
        ),
        budget={"fresh_runs": FRESH_RUNS, "calls_per_run": FRESH_CALLS},
        counterexample=record,
        details={"randomness": record},
    )


def _unreproducible(
    mechanism: Any, pairs: list[Any], seeds: list[int], epsilon: float, domain: str, budget: dict[str, Any]
) -> Evidence | None:
    """The evidence when two releases with generators seeded alike differ on some pair (a public
    sequence when one is found, else ``inconclusive``: the audit cannot be replayed); None otherwise."""
    for pair in pairs:
        again = releases_per_seed(mechanism, pair.first, [seeds[0], seeds[0]])
        if again is None or not np.array_equal(again[0], again[1]):
            public = _public_sequence(mechanism, pair, seeds, epsilon)
            if public is not None:
                return public
            return Evidence(
                Verdict.INCONCLUSIVE,
                f"not reproducible: two releases on {pair.label} with generators seeded alike differ, so the "
                "implementation draws randomness that is not the rng it is given; its audit cannot be replayed",
                domain,
                "same seed twice",
                budget=budget,
                details={"pair": pair.label},
            )
    return None


def _most_public_pair(
    mechanism: Any, pairs: list[Any], seeds: list[int], alpha: float, delta: float, epsilon: float
) -> tuple[tuple[float, str, dict[str, Any]] | None, dict[str, float | None]]:
    """(ε lower bound, finding, record) of the pair whose releases on X repeat across distinct seeds with
    the largest certified ε, or None; and the pairs whose releases on X were all one value without
    refuting the claim, each with None when X' released that value too, else with the bound its releases
    reach (X' never released it: no noise or public noise, which the seeds' number cannot refute a claim
    this large with). A pair is a finding when :func:`_repeat_round` refutes the claim on its releases
    and again on fresh ones (seeds used by neither input in the first round): the bound is the smaller of
    the two (see the module docstring). Values repeated by chance on a discrete output, or an output that
    is one value on both inputs, refute nothing."""
    worst: tuple[float, str, dict[str, Any]] | None = None
    one_value: dict[str, float | None] = {}
    for pair in pairs:
        first = _repeat_round(mechanism, pair, seeds, 0, alpha, delta)
        if first is None:
            continue
        if first["epsilon_lower_bound"] <= epsilon:
            if not first["held_out"]:
                one_value[pair.label] = None if first["repeats_on_X_prime"] else first["epsilon_lower_bound"]
            continue
        again = _repeat_round(mechanism, pair, seeds, 2, alpha, delta)
        bound = min(first["epsilon_lower_bound"], -math.inf if again is None else again["epsilon_lower_bound"])
        if bound <= epsilon:
            continue  # one unlucky round (a tight claim on an output with an atom), withdrawn
        samples, counted = len(seeds), first["releases_counted_on_X"]
        finding = (
            f"public noise: {samples} releases on {pair.label} with {samples} different seeds are all the same "
            "value; the event 'y equals it'"
            if not first["held_out"]
            else f"repeated outputs: releases on {pair.label} with distinct seeds repeat {first['repeated_values']} "
            f"value(s) (noise that does not follow the seed, or a discrete output with too little noise): "
            f"{first['repeats_on_X']} of {counted} held-out releases on X and {first['repeats_on_X_prime']} of "
            f"{samples} on X' are one of them; the event 'y is one of them'"
        )
        record = {"pair": pair.label, **first, "confirmation": again}
        if worst is None or bound > worst[0]:
            worst = (bound, finding, record)
    return worst, one_value


def _repeat_round(
    mechanism: Any, pair: Any, seeds: list[int], offset: int, alpha: float, delta: float
) -> dict[str, Any] | None:
    """One round on releases with ``seeds`` shifted by ``offset`` on X (``offset + 1`` on X'): the event
    'y is one of the values that repeat' on X (:func:`_repeated_values`), counted on X's held-out releases and
    on X', Clopper–Pearson at ``alpha`` per side; None when no value repeats."""
    samples = len(seeds)
    releases = same_size_releases(mechanism, pair.first, [seed + offset for seed in seeds])
    values, counted, held_out = _repeated_values(releases)
    if not values:
        return None
    on_second = same_size_releases(mechanism, pair.second, [seed + offset + 1 for seed in seeds])
    hits_first, hits_second = (sum(value_key(row) in values for row in rows) for rows in (counted, on_second))
    p_lower = clopper_pearson_lower(hits_first, len(counted), alpha)
    q_upper = clopper_pearson_upper(hits_second, samples, alpha)
    shown = next((row for row in counted if value_key(row) in values), counted[0])
    return {
        "held_out": held_out,
        "value_on_X": [float(v) for v in shown[:8]],
        "repeated_values": len(values),
        "repeats_on_X": hits_first,
        "releases_counted_on_X": len(counted),
        "repeats_on_X_prime": hits_second,
        "p_lower": p_lower,
        "q_upper": q_upper,
        "epsilon_lower_bound": epsilon_lower_bound(p_lower, q_upper, delta),
    }


def _repeated_values(first: np.ndarray) -> tuple[set[bytes], np.ndarray, bool]:
    """The values of the event, the releases it is counted on, and whether they are held out. Releases
    that are all one value give that value, counted on all of them (continuous noise never repeats).
    Otherwise the values repeated among the even-numbered releases give the event and the odd-numbered
    ones, never used to choose it, are counted: noise seeded from the clock or a counter repeats in
    runs that the seeds do not break, and a run may end inside the releases."""
    if (first == first[0]).all():
        return {value_key(first[0])}, first, False
    held, counted = first[0::2], first[1::2]
    seen: dict[bytes, int] = {}
    for row in held:
        seen[value_key(row)] = seen.get(value_key(row), 0) + 1
    return {value for value, count in seen.items() if count >= 2}, counted, True


def _nothing_refuted(
    one_value: dict[str, float | None],
    guarantee: Any,
    samples: int,
    confidence: float,
    pairs: int,
    domain: str,
    budget: dict[str, Any],
) -> Evidence:
    """The evidence when no repeated value refutes the claim: ``inconclusive`` when a pair's releases on X were
    one value that X' never released (no noise or public noise, with too few seeds to refute the claim), else
    ``consistent`` (naming the pairs whose one value X' released too)."""
    separated = {label: bound for label, bound in one_value.items() if bound is not None}
    if separated:
        label, bound = max(separated.items(), key=lambda item: item[1])
        return Evidence(
            Verdict.INCONCLUSIVE,
            f"no noise, or public noise: on {label} the releases on X were one value for all {samples} seeds and "
            f"none of {samples} on X' was; that certifies epsilon >= {bound:.4g} only (the most {samples} seeds can), "
            f"not the claimed {guarantee.epsilon:g}: raise the contract's samples to refute or clear it",
            domain,
            "same seed twice; distinct seeds; the repeated value as an event, Clopper-Pearson on both sides",
            measurements=(
                epsilon_measurement(
                    guarantee, bound, f"lower bound at confidence {confidence} (Clopper-Pearson)", lower_bound=True
                ),
            ),
            budget=budget,
            details={"one_value": one_value},
        )
    varying = f"the outputs are reproducible for one seed and vary with the seed on all {pairs} pair(s)"
    if one_value:
        varying = (
            f"the outputs are reproducible for one seed; on {', '.join(one_value)} the releases on X were one "
            f"value for all {samples} seeds, and X' released it too: the event 'y equals it' refutes nothing (a "
            "likely outcome, or one the pair does not move)"
        )
    return Evidence(
        Verdict.CONSISTENT,
        varying,
        domain,
        "same seed twice; distinct seeds",
        budget=budget,
        details={"one_value": one_value} if one_value else {},
    )


@register_checker(
    "randomness_contract",
    description="the outputs are reproducible for one seed and vary with the seed; an output that never varies "
    "is an atom, certified against the neighbour (public noise)",
    config=RandomnessConfig,
    audits_candidates=True,
)
def check_randomness_contract(obligation: Obligation, context: CheckContext) -> Evidence:
    """Check that the mechanism's noise comes from its ``rng`` (see the module docstring)."""
    guarantee = approx_dp_of(context.claim)
    config = parse_config(RandomnessConfig, obligation.params)
    samples, confidence = config.samples, config.confidence
    pairs = reference_or_given_pairs(config.pairs, context)
    mechanism = context.sampled_mechanism()
    seeds = [int(s) for s in context.rng.integers(0, 2**62, size=samples)]
    alpha = (1.0 - confidence) / (2 * len(pairs))
    domain = f"{len(pairs)} pair(s), {samples} seeds per side"
    budget = {"samples": samples, "pairs": len(pairs)}
    unreproducible = _unreproducible(mechanism, pairs, seeds, guarantee.epsilon, domain, budget)
    if unreproducible is not None:
        return unreproducible
    worst, one_value = _most_public_pair(mechanism, pairs, seeds, alpha, guarantee.delta, guarantee.epsilon)
    disagreement = None if worst is not None else batch_disagreement(mechanism, pairs[0].first, seeds, seeds[-1] + 1)
    if disagreement is not None:
        return Evidence(
            Verdict.ERROR,
            f"the batch entry point disagrees with single calls on {pairs[0].label}: {disagreement}; the Monte Carlo "
            "checks draw batches, so their counts would not be independent draws of the mechanism (the callable and "
            "its `sample` must release the same law: fix the one that is wrong, or remove `sample` to audit the "
            "callable itself)",
            domain,
            "a batch of releases against as many single releases",
            budget=budget,
            details={"batch_disagreement": disagreement},
        )
    if worst is None and getattr(mechanism, "used_global_random", False):
        return Evidence(
            Verdict.INCONCLUSIVE,
            "ignores the rng it is given: the candidate draws from the global state of numpy.random or random "
            "(dpaudit seeds it from each call's seed, so this audit replays; the implementation's own runs are "
            "seeded however its program seeds them)",
            domain,
            "same seed twice; distinct seeds; the worker watches the global random state",
            budget=budget,
            details={"global_random": True},
        )
    if worst is None:
        return _nothing_refuted(one_value, guarantee, samples, confidence, len(pairs), domain, budget)
    epsilon, finding, record = worst
    measurement = epsilon_measurement(
        guarantee, epsilon, f"lower bound at confidence {confidence} (Clopper-Pearson)", lower_bound=True
    )
    summary = (
        f"{finding} certifies epsilon >= {epsilon:.4g} against the claimed {guarantee.epsilon:g} (the smaller of "
        "two rounds, the second on fresh releases)"
    )
    return Evidence(
        Verdict.VIOLATED,
        summary,
        domain,
        "distinct seeds; the repeated value as an event, Clopper-Pearson on both sides, confirmed on fresh releases",
        measurements=(measurement,),
        budget=budget,
        counterexample=record,
        details={"randomness": record},
    )
