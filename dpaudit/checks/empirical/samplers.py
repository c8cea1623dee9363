"""How a mechanism becomes a sampler: ``sample(data, n, rng)`` returning n releases as rows of reals.

A mechanism with ``release(data, *, rng, size=None)`` is wrapped in :class:`ReleaseSampler`; after
the black box's pilot, a sampler is held to the lengths its releases had there by :class:`PilotLengths`.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.errors import CheckerError, InvalidType

__all__ = [
    "PilotLengths",
    "ReleaseSampler",
    "as_rows",
    "as_sampler",
    "input_digest",
    "pilot_lengths",
    "sampler_stream",
]


@dataclass(frozen=True)
class ReleaseSampler:
    """Turns a mechanism's ``release(data, *, rng, size=None)`` into a sampler.

    Attributes:
        mechanism: an object with ``release``; must be picklable for process executors.
        batched: ``release`` accepts ``size=n`` and returns n rows at once; otherwise
            it is called n times.
    """

    mechanism: Any
    batched: bool = True

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """Return n independent releases on ``data`` as rows."""
        if self.batched:
            return np.asarray(self.mechanism.release(data, rng=rng, size=n))
        return np.stack([np.asarray(self.mechanism.release(data, rng=rng)) for _ in range(n)])

    def stream(self, data: Any, sizes: Sequence[int], rng: np.random.Generator) -> Iterator[np.ndarray]:
        """The batches of ``self(data, n, rng)`` for each ``n`` of ``sizes`` in turn; through the
        mechanism's ``release_stream`` when it has one (a candidate's worker draws the next batch while
        this one is counted), with the same outputs."""
        release_stream = getattr(self.mechanism, "release_stream", None)
        if self.batched and callable(release_stream):
            yield from (np.asarray(rows) for rows in release_stream(data, sizes, rng=rng))
            return
        for n in sizes:
            yield self(data, n, rng)


def input_digest(data: Any) -> str:
    """A digest of an input that is the same in every process: of its pickle (the pairs' datasets are
    dpaudit's own objects, never a candidate's)."""
    return hashlib.blake2b(pickle.dumps(data, protocol=4), digest_size=16).hexdigest()


@dataclass(frozen=True)
class PilotLengths:
    """The sampler of the phases after the pilot: each input's releases must keep the number of values
    they held in the pilot (a length that varies from draw to draw cannot be audited: a CheckerError),
    and where the two sides of a pair differed there (``tagged``), every release is read as a row of
    one width: its number of values, then its values, zeros after them.

    That map is one to one on the flattened values, so an event on these rows is an event on the
    releases (post-processing) and a bound certified on them bounds the mechanism's ε. A release whose
    length tells its input apart (a histogram of the values that occur) is separated by the first
    coordinate.

    Attributes:
        sampler: the sampler of the releases.
        width: the most values one release held in the pilot.
        lengths: ``(input_digest(input), number of values)`` for every input of the pilot, when the
            pilot's releases did not all hold ``width`` values; else empty.
        tagged: read releases as (length, values, zeros).
    """

    sampler: Any
    width: int
    lengths: tuple[tuple[str, int], ...] = ()
    tagged: bool = False

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """Return n releases on ``data`` as rows (encoded when ``tagged``)."""
        return self.checked(data, as_rows(self.sampler(data, n, rng), n))

    def stream(self, data: Any, sizes: Sequence[int], rng: np.random.Generator) -> Iterator[np.ndarray]:
        """The checked (and encoded) batches of the wrapped sampler's stream."""
        batches = sampler_stream(self.sampler, data, sizes, rng)
        try:
            for n, rows in zip(sizes, batches, strict=True):
                yield self.checked(data, as_rows(rows, n))
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    def checked(self, data: Any, rows: np.ndarray) -> np.ndarray:
        """``rows`` of releases on ``data``, refused unless they hold as many values as in the pilot."""
        expected = dict(self.lengths).get(input_digest(data)) if self.lengths else self.width
        if rows.shape[1] != expected:
            raise CheckerError(
                f"the releases on one input held {expected} values in the pilot and {rows.shape[1]} later: "
                "a release's length that varies from draw to draw cannot be audited"
            )
        return self.encoded(rows) if self.tagged else rows

    def encoded(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (n releases of at most ``width`` values) as ``(length, values..., 0...)`` rows."""
        count = rows.shape[1]
        encoded = np.zeros((rows.shape[0], self.width + 1))
        encoded[:, 0] = count
        encoded[:, 1 : count + 1] = rows
        return encoded

    def encoded_input(self, data: Any) -> Any:
        """``data`` encoded as a release would be when it is a vector of reals (an output equal to the
        input is an atom of the black box), else ``data`` as it is."""
        try:
            value = np.asarray(data, dtype=np.float64).reshape(1, -1)
        except (TypeError, ValueError):
            return data
        return self.encoded(value)[0] if self.tagged and value.shape[1] <= self.width else data


def pilot_lengths(sampler: Any, pilots: Sequence[tuple[Any, np.ndarray]], tagged: bool) -> PilotLengths:
    """The :class:`PilotLengths` of the pilot's ``(input, releases as rows)``; ``tagged`` when some pair's
    two sides differed in length.

    Raises:
        CheckerError: one input whose releases held different numbers of values in the pilot.
    """
    widths = {rows.shape[1] for _, rows in pilots}
    if len(widths) == 1:
        return PilotLengths(sampler, widths.pop())
    lengths: dict[str, int] = {}
    for data, rows in pilots:
        known = lengths.setdefault(input_digest(data), rows.shape[1])
        if known != rows.shape[1]:
            raise CheckerError(
                f"the releases on one input held {known} and {rows.shape[1]} values in the pilot: a release's "
                "length that varies from draw to draw cannot be audited"
            )
    return PilotLengths(sampler, max(widths), tuple(sorted(lengths.items())), tagged)


def sampler_stream(sampler: Any, data: Any, sizes: Sequence[int], rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The batches of ``sampler(data, n, rng)`` for each ``n`` of ``sizes``, through dpaudit's own
    samplers' ``stream`` (a candidate's worker draws the next batch while this one is counted)."""
    if isinstance(sampler, ReleaseSampler | PilotLengths):
        return sampler.stream(data, sizes, rng)
    return (sampler(data, size, rng) for size in sizes)


def as_sampler(source: Any) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Return a sampler for a mechanism (anything with ``release``) or an existing sampler.

    A mechanism whose ``release`` takes a ``size`` keyword is sampled in batches.

    Raises:
        InvalidType: for an object that is neither.
    """
    release = getattr(source, "release", None)
    if callable(release):
        try:
            batched = "size" in inspect.signature(release).parameters
        except (TypeError, ValueError):
            batched = False
        return ReleaseSampler(source, batched=batched)
    if callable(source):
        return source
    raise InvalidType(
        f"mechanism={source!r}: expected an object with release(data, *, rng, size=None) "
        "or a callable sample(data, n, rng)"
    )


def as_rows(outputs: Any, n: int) -> np.ndarray:
    try:
        rows = np.asarray(outputs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CheckerError(f"the sampler returned outputs that are not real arrays: {exc}") from exc
    if rows.ndim == 0 or rows.shape[0] != n:
        raise CheckerError(f"the sampler was asked for {n} outputs and returned an array of shape {rows.shape}")
    rows = rows.reshape(n, -1)
    # a nan or an infinity makes the sum non-finite; a finite sum that overflowed is checked entry by entry
    if not np.isfinite(rows.sum()) and not np.isfinite(rows).all():
        raise CheckerError("the sampler returned non-finite outputs (nan or inf)")
    return rows
