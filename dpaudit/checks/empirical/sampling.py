"""The sampling engine: run a mechanism many times on one dataset, in seeded chunks.

A *sampler* is a picklable callable ``sample(data, n, rng) -> array (n, ...)``. The
``n`` draws of one side are cut into chunks of a fixed size; chunk j draws from its
own child SeedSequence (root spawn key + (pair, phase, side, j)), and inside a chunk
the draws come in batches of a fixed size that stays in cache. The chunk layout is
fixed by ``n`` and the chunk size alone, so the numbers drawn — and every bound
computed from them — are the same on any executor with any number of workers.
Chunks return small summaries (histograms, event counts) rather than raw outputs,
except in the pilot phase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from typing import Any, Required, TypedDict, Unpack

import numpy as np

from dpaudit._validation import check_finite_array, check_integer
from dpaudit.checks.claim_inputs import approx_dp_of, input_converter
from dpaudit.checks.empirical.events import Event, Projection, ThresholdGrid
from dpaudit.checks.empirical.executors import run_tasks
from dpaudit.checks.empirical.samplers import as_rows, sampler_stream
from dpaudit.errors import CheckerError, InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param
from dpaudit.kernel.checkers import CheckContext
from dpaudit.kernel.claims import Claim
from dpaudit.mechanisms.catalogue import build_mechanism
from dpaudit.mechanisms.views import AuditPairsView

__all__ = [
    "NeighbourPair",
    "PairsConfig",
    "SamplingOptions",
    "chunk_sizes",
    "count_events",
    "draw_outputs",
    "histogram_scores",
    "neighbour_pairs",
    "no_pairs",
    "phase_seed",
    "reference_or_given_pairs",
    "user_made_pairs",
    "with_unique_labels",
]

PILOT, SELECTION, CERTIFICATION = 0, 1, 2
#: The seed phase of the first escalation round (round r uses ESCALATION + r).
ESCALATION = 3
#: The seed phase of the confirmation of a refuting event (past every escalation round's).
CONFIRMATION = 16


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring datasets (X, X') to sample the mechanism on, with a label for reports.

    ``pilot_cap`` bounds the pilot draws per side of this pair (pairs of the input search
    are screened on a smaller pilot than the ones a spec names). ``draws_cap`` bounds its draws
    per side in each later phase (selection, certification, each escalation round) and marks it
    as screened: it is sampled past its pilot only when that pilot alone exceeds the claim (a pair
    of datasets so large that one call costs hundreds of ordinary ones).
    """

    first: Any
    second: Any
    label: str = "(X, X')"
    pilot_cap: int | None = None
    draws_cap: int | None = None

    def draws(self, planned: int) -> int:
        """The draws per side of this pair in a phase that plans ``planned``."""
        return planned if self.draws_cap is None else min(planned, self.draws_cap)


def with_unique_labels(pairs: Sequence[NeighbourPair]) -> list[NeighbourPair]:
    """The pairs with labels made unique (a repeated label gets `` [k]``, its k-th occurrence): a
    counterexample, its replay and its shrinking name the pair by its label, so two pairs must never
    share one (two given pairs whose searched moves coincide would otherwise collide)."""
    seen: dict[str, int] = {}
    taken = {pair.label for pair in pairs}
    unique = []
    for pair in pairs:
        count = seen.get(pair.label, 0)
        seen[pair.label] = count + 1
        if count == 0:
            unique.append(pair)
            continue
        label = f"{pair.label} [{count + 1}]"
        while label in taken:
            count += 1
            label = f"{pair.label} [{count + 1}]"
        taken.add(label)
        unique.append(replace(pair, label=label))
    return unique


def chunk_sizes(total: int, chunk_size: int) -> tuple[int, ...]:
    """Sizes of the chunks of ``total`` draws: full chunks, then the remainder."""
    n = check_integer("total", total, low=0)
    size = check_integer("chunk_size", chunk_size, low=1)
    full, rest = divmod(n, size)
    return (size,) * full + ((rest,) if rest else ())


def phase_seed(root: np.random.SeedSequence, *path: int) -> np.random.SeedSequence:
    """The child SeedSequence at ``path`` below ``root`` (independent of spawn counters)."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *path), pool_size=root.pool_size)


@dataclass(frozen=True)
class _Chunk:
    sampler: Any
    data: Any
    count: int
    seed: np.random.SeedSequence
    batch_size: int
    projections: tuple[Projection, ...] = ()
    grids: tuple[ThresholdGrid, ...] = ()
    events: tuple[Event, ...] = ()


def _batches(chunk: _Chunk):
    rng = np.random.default_rng(chunk.seed)
    full, rest = divmod(chunk.count, chunk.batch_size)
    sizes = [chunk.batch_size] * full + ([rest] if rest else [])
    batches = sampler_stream(chunk.sampler, chunk.data, sizes, rng)
    try:
        for size, rows in zip(sizes, batches, strict=True):
            yield as_rows(rows, size)
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()


def _raw_chunk(chunk: _Chunk) -> np.ndarray:
    return _stacked(list(_batches(chunk)))


def _stacked(parts: Sequence[np.ndarray]) -> np.ndarray:
    """The rows of ``parts`` as one array; parts of different widths are a CheckerError."""
    widths = sorted({part.shape[1] for part in parts})
    if len(widths) > 1:
        raise CheckerError(
            f"the releases on one input held different numbers of values ({', '.join(map(str, widths))}): "
            "a release's length that varies from draw to draw cannot be audited"
        )
    return np.concatenate(parts)


def _histogram_chunk(chunk: _Chunk) -> list[np.ndarray]:
    totals = [np.zeros(grid.size + 1, dtype=np.int64) for grid in chunk.grids]
    for rows in _batches(chunk):
        for total, projection, grid in zip(totals, chunk.projections, chunk.grids, strict=False):
            total += grid.histogram(projection.scores(rows))
    return totals


def _count_chunk(chunk: _Chunk) -> np.ndarray:
    counts = np.zeros(len(chunk.events), dtype=np.int64)
    projections = list(dict.fromkeys(event.projection for event in chunk.events))
    for rows in _batches(chunk):
        scores = {projection: projection.scores(rows) for projection in projections}
        for i, event in enumerate(chunk.events):
            counts[i] += int(np.count_nonzero(event.indicator(scores[event.projection])))
    return counts


def _chunks(
    sampler: Any, data: Any, count: int, seed: np.random.SeedSequence, chunk_size: int, batch_size: int, **extra: Any
) -> list[_Chunk]:
    return [
        _Chunk(sampler, data, size, phase_seed(seed, j), batch_size, **extra)
        for j, size in enumerate(chunk_sizes(count, chunk_size))
    ]


#: The inputs of one side of a pair and the seed of its draws.
Side = tuple[Any, np.random.SeedSequence]


class SamplingOptions(TypedDict, total=False):
    """How the draws of :func:`draw_outputs`, :func:`histogram_scores` and :func:`count_events` are cut
    and run: ``chunk_size`` draws per task (each with its own seed), ``batch_size`` draws per call of
    the sampler, the executor (``None``: in process) and whether to show progress."""

    chunk_size: Required[int]
    batch_size: Required[int]
    executor: Executor | None
    progress: bool | None


def _run_sides(
    function: Callable[[_Chunk], Any],
    sampler: Any,
    sides: Sequence[Side],
    count: int,
    options: SamplingOptions,
    *,
    label: str,
    **extra: Any,
) -> list[list[Any]]:
    """``function`` on every chunk of every side, in one round of tasks (the sides' chunks share the
    workers instead of waiting for each other); the chunk results, per side."""
    chunk_size, batch_size = options["chunk_size"], options["batch_size"]
    per_side = [_chunks(sampler, data, count, seed, chunk_size, batch_size, **extra) for data, seed in sides]
    flat = run_tasks(
        function,
        [chunk for chunks in per_side for chunk in chunks],
        executor=options.get("executor"),
        progress=options.get("progress"),
        label=label,
    )
    results, start = [], 0
    for chunks in per_side:
        results.append(flat[start : start + len(chunks)])
        start += len(chunks)
    return results


def draw_outputs(
    sampler: Any, sides: Sequence[Side], count: int, **options: Unpack[SamplingOptions]
) -> list[np.ndarray]:
    """Draw ``count`` outputs on each side's data and return them as rows (shape (count, d)), per side."""
    parts = _run_sides(_raw_chunk, sampler, sides, count, options, label="pilot")
    return [_stacked(side) for side in parts]


def histogram_scores(
    sampler: Any,
    sides: Sequence[Side],
    count: int,
    projections: Sequence[Projection],
    grids: Sequence[ThresholdGrid],
    **options: Unpack[SamplingOptions],
) -> list[list[np.ndarray]]:
    """Draw ``count`` outputs on each side's data; per side, per projection, the histogram on its grid."""
    extra = {"projections": tuple(projections), "grids": tuple(grids)}
    parts = _run_sides(_histogram_chunk, sampler, sides, count, options, label="selection", **extra)
    return [[np.sum([part[i] for part in side], axis=0) for i in range(len(projections))] for side in parts]


def count_events(
    sampler: Any, sides: Sequence[Side], count: int, events: Sequence[Event], **options: Unpack[SamplingOptions]
) -> list[np.ndarray]:
    """Draw ``count`` outputs on each side's data; per side, how many fall in each event (int64)."""
    parts = _run_sides(_count_chunk, sampler, sides, count, options, label="certification", events=tuple(events))
    return [np.sum(side, axis=0) for side in parts]


@dataclass(frozen=True)
class PairsConfig(CheckerConfig):
    """The ``pairs`` param of a black-box check of an (epsilon, delta) claim, read through the claim's
    input domain."""

    pairs: Any = param(
        'list of {first, second, label} tables (or pairs_file = "pairs.json" / ".npz"): the neighbouring inputs '
        "(left out: the least private pairs the mechanism proposes; for a kind that proposes none, a spec without "
        "them or [candidate] datasets is refused at load)",
        None,
    )

    def check_claim(self, claim: Claim) -> None:
        """Refuse a claim without an (epsilon, delta) guarantee, and pairs that are not tables of two
        inputs of the claim's mechanism."""
        super().check_claim(claim)
        approx_dp_of(claim)
        if self.pairs is not None:
            neighbour_pairs(self.pairs, input_converter(claim))
        elif claim.candidate_inputs.datasets is None and not isinstance(
            build_mechanism(claim.mechanism.name, claim.mechanism.params), AuditPairsView
        ):
            raise InvalidArgument(f"pairs: missing; {no_pairs(claim)}")


def no_pairs(claim: Claim) -> str:
    """What to do when the claim's mechanism proposes no pairs and the spec gives none."""
    return (
        f"mechanism {claim.mechanism.name!r} proposes no neighbouring pairs (no AuditPairsView); give them in the "
        "obligation's params as pairs = [{first = [...], second = [...]}], or name a dataset generator and a "
        "neighbour function in the spec's [candidate] table"
    )


def neighbour_pairs(pairs: Any, convert: Callable[[Any], Any] | None = None) -> list[NeighbourPair]:
    """Neighbouring pairs from a spec's ``pairs = [{first = ..., second = ..., label = "..."}]``.

    Args:
        pairs: the spec's list of tables.
        convert: turns one plain input into the mechanism's input (its input domain's
            ``from_plain``); ``None`` reads a numeric array.

    Raises:
        InvalidArgument: naming the malformed entry.
    """
    if not isinstance(pairs, list) or not pairs:
        raise InvalidArgument("pairs: expected a non-empty list of {first = [...], second = [...]} tables")
    result = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, dict) or not {"first", "second"} <= set(pair) <= {"first", "second", "label"}:
            raise InvalidArgument(f"pairs[{i}]={pair!r}: expected a table with first, second (and optional label)")
        label = pair.get("label", f"pairs[{i}]")
        if not isinstance(label, str) or not label.strip():
            raise InvalidArgument(f"pairs[{i}].label={label!r}: expected a non-empty string")
        if convert is None:
            first = check_finite_array(f"pairs[{i}].first", pair["first"])
            second = check_finite_array(f"pairs[{i}].second", pair["second"])
        else:
            first, second = convert(pair["first"]), convert(pair["second"])
        result.append(NeighbourPair(first, second, label))
    return result


def user_made_pairs(context: CheckContext) -> list[NeighbourPair]:
    """The pairs the user's own input functions made for a candidate under the context's relation
    (``[candidate] datasets`` / ``neighbours``; see :mod:`dpaudit.audit.candidates.user_inputs`)."""
    proposer = getattr(context.candidate, "user_pairs", None)
    return [NeighbourPair(*pair) for pair in proposer(context.relation)] if callable(proposer) else []


def reference_or_given_pairs(pairs: Any, context: CheckContext) -> list[NeighbourPair]:
    """The pairs an obligation audits: its ``pairs`` param (``None``: none given; read through the
    claim's input domain) and those the user's functions made, else the least private pairs the
    reference proposes (:class:`~dpaudit.mechanisms.views.AuditPairsView`).

    Raises:
        CheckerError: when none exists.
    """
    given = neighbour_pairs(pairs, input_converter(context.claim)) if pairs is not None else []
    made = user_made_pairs(context)
    if given or made:
        return with_unique_labels(given + made)
    reference = build_mechanism(context.claim.mechanism.name, context.claim.mechanism.params)
    if not isinstance(reference, AuditPairsView):
        raise CheckerError(no_pairs(context.claim))
    proposed = reference.audit_pairs(context.relation)
    return with_unique_labels([pair if isinstance(pair, NeighbourPair) else NeighbourPair(*pair) for pair in proposed])
