"""Releases of a mechanism with one seed each, and its batch entry point held against them (the randomness
contract, :mod:`dpaudit.checks.empirical.randomness`): the Monte Carlo checks draw batches, so a batch must
follow the law of single calls."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from dpaudit.errors import CheckerError

__all__ = ["batch_disagreement", "releases_per_seed", "same_size_releases", "value_key"]


def releases_per_seed(mechanism: Any, data: Any, seeds: list[int]) -> np.ndarray | None:
    """``mechanism.release(data, rng=np.random.default_rng(seed))`` for each seed, one flattened row each
    (a candidate's ``release_each`` makes them in one round trip to its worker); None when the releases
    differ in size (a candidate's that do are an error of its worker)."""
    each = getattr(mechanism, "release_each", None)
    if callable(each):
        return np.asarray(each(data, list(seeds)), dtype=np.float64).reshape(len(seeds), -1)
    rows = [np.asarray(mechanism.release(data, rng=np.random.default_rng(s)), dtype=np.float64).ravel() for s in seeds]
    return np.stack(rows) if len({row.shape for row in rows}) == 1 else None


def same_size_releases(mechanism: Any, data: Any, seeds: list[int]) -> np.ndarray:
    """:func:`releases_per_seed`, refusing releases of different sizes.

    Raises:
        CheckerError: when two releases differ in size.
    """
    rows = releases_per_seed(mechanism, data, seeds)
    if rows is None:
        raise CheckerError("the mechanism's releases differ in size from one seed to another")
    return rows


def value_key(row: np.ndarray) -> bytes:
    return (row + 0.0).tobytes()  # -0.0 and 0.0 alike


def _rounded_key(row: np.ndarray) -> bytes:
    """:func:`value_key` at float32 precision: a value computed in float32 by one entry point and in float64 by the
    other is one value."""
    return (row.astype(np.float32) + np.float32(0.0)).tobytes()


#: The p-value below which a batch of releases and as many single releases are taken to follow different laws
#: (two-sample Kolmogorov-Smirnov on two projections): a correct batch entry point fails it once in 10^6 runs.
BATCH_DISAGREEMENT_P = 1e-6


def batch_disagreement(mechanism: Any, data: Any, seeds: list[int], seed: int) -> str | None:
    """Why one batch of ``len(seeds)`` releases on ``data`` does not look like as many single releases (one per
    seed), or None. A candidate's vectorised ``sample`` entry point is what the Monte Carlo checks draw from,
    so a batch whose rows repeat (one noise draw copied to every row) or follow another law than the callable
    would make their counts meaningless: far fewer distinct rows than the single releases have, or a
    two-sample Kolmogorov-Smirnov p-value below :data:`BATCH_DISAGREEMENT_P` on the first coordinate or on the
    L1 distance from the median of both sets together (a noise scale of its own; a centre taken from one side
    alone would sit closer to that side and reject a correct batch of many coordinates)."""
    if "size" not in inspect.signature(mechanism.release).parameters:
        return None  # a plugin's reference without batches: the Monte Carlo checks call it one release at a time
    singles = same_size_releases(mechanism, data, seeds)
    batch = np.asarray(mechanism.release(data, rng=np.random.default_rng(seed), size=len(seeds)), dtype=np.float64)
    batch = batch.reshape(len(seeds), -1)
    if batch.shape != singles.shape:
        return f"a batch's rows hold {batch.shape[1]} numbers, a single release {singles.shape[1]}"
    distinct_singles, distinct_batch = (len(np.unique(rows, axis=0)) for rows in (singles, batch))
    if distinct_singles >= 20 and 4 * distinct_batch < distinct_singles:
        return (
            f"a batch of {len(seeds)} releases has {distinct_batch} distinct rows where {len(seeds)} single releases "
            f"have {distinct_singles}: its rows are not independent draws"
        )
    exclusive = _values_the_batch_never_gives(mechanism, data, seed + 1)
    if exclusive is not None:
        return exclusive
    from scipy.stats import ks_2samp

    centre = np.median(np.concatenate([singles, batch]), axis=0)  # of both sides alike: they stay exchangeable
    projections = (
        ("first coordinate", lambda rows: rows[:, 0]),
        ("distance from the median", lambda rows: np.abs(rows - centre).sum(axis=1)),
    )
    for name, project in projections:
        p_value = float(ks_2samp(project(singles), project(batch), method="asymp").pvalue)
        if p_value < BATCH_DISAGREEMENT_P:
            return f"the {name} of a batch and of single releases differ (Kolmogorov-Smirnov p = {p_value:.2g})"
    return None


#: Single releases and batch releases of the exclusive-value test: a value the callable releases with
#: probability 0.5% and its batch never does is seen about 10 times, p ~ 1e-17; at 0.1%, twice (not caught).
EXCLUSIVE_SINGLES = 2_000
EXCLUSIVE_BATCH = 100_000
#: The most numbers the batch holds (its releases times their length): a long release gets fewer releases.
EXCLUSIVE_NUMBERS = 5_000_000


def _values_the_batch_never_gives(mechanism: Any, data: Any, seed: int) -> str | None:
    """Why :data:`EXCLUSIVE_SINGLES` single releases hold a value, k >= 2 times, that :data:`EXCLUSIVE_BATCH`
    batch releases never hold (a callable that sometimes releases its input, or a debugging branch, that its
    vectorised ``sample`` lacks), or None. Under one law, given that the value occurs t = k times in both sets
    together, all k fall among the n singles with probability (n / (n + B))^k; Bonferroni over the distinct
    values of the singles."""
    if getattr(mechanism, "vectorised", True) is False:
        return None  # a candidate without `sample`: its batches are calls of the callable itself
    seeds = [int(s) for s in np.random.default_rng(seed).integers(0, 2**62, size=EXCLUSIVE_SINGLES)]
    singles = same_size_releases(mechanism, data, seeds)
    seen: dict[bytes, int] = {}
    for row in singles:
        seen[_rounded_key(row)] = seen.get(_rounded_key(row), 0) + 1
    count = min(EXCLUSIVE_BATCH, max(EXCLUSIVE_SINGLES, EXCLUSIVE_NUMBERS // max(singles.shape[1], 1)))
    share = len(singles) / (len(singles) + count)
    suspects = {value for value, hits in seen.items() if hits >= 2 and len(seen) * share**hits < BATCH_DISAGREEMENT_P}
    if not suspects:
        return None  # nothing repeats often enough to test (continuous outputs): no batch drawn
    batch = np.asarray(mechanism.release(data, rng=np.random.default_rng(seed), size=count), dtype=np.float64)
    in_batch = {_rounded_key(row) for row in batch.reshape(count, -1)}
    for value in sorted(suspects):
        hits = seen[value]
        if value not in in_batch:
            shown = np.frombuffer(value, dtype=np.float32)[:4].tolist()
            return (
                f"{hits} of {len(singles)} single releases are {shown}, which none of {count} batch releases is "
                f"(p = {share**hits:.2g} under one law, {len(seen)} values tested)"
            )
    return None
