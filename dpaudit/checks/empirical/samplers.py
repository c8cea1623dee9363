"""How a mechanism becomes a sampler: ``sample(data, n, rng)`` returning n releases as rows of reals.

A mechanism with ``release(data, *, rng, size=None)`` is wrapped in :class:`ReleaseSampler`; a
sampler whose releases differ in length between inputs, in :class:`LengthTagged`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.errors import CheckerError, InvalidType

__all__ = ["LengthTagged", "ReleaseSampler", "as_rows", "as_sampler", "sampler_stream"]


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


@dataclass(frozen=True)
class LengthTagged:
    """A sampler whose releases hold different numbers of values on different inputs, its releases
    written as rows of one width: the number of values, then the values, zeros after them.

    The map is one to one, so an event on these rows is an event on the releases (post-processing)
    and a bound certified on them bounds the mechanism's ε. A release whose length tells its input
    apart (a histogram of the values that occur) is separated by the first coordinate.

    Attributes:
        sampler: the sampler of the releases.
        width: the most values one release holds (a longer one is refused: the rows would differ in width).
    """

    sampler: Any
    width: int

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """Return n encoded releases on ``data`` as rows."""
        return self.encoded(as_rows(self.sampler(data, n, rng), n))

    def stream(self, data: Any, sizes: Sequence[int], rng: np.random.Generator) -> Iterator[np.ndarray]:
        """The encoded batches of the wrapped sampler's stream."""
        batches = sampler_stream(self.sampler, data, sizes, rng)
        try:
            for n, rows in zip(sizes, batches, strict=True):
                yield self.encoded(as_rows(rows, n))
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    def encoded(self, rows: np.ndarray) -> np.ndarray:
        """``rows`` (n releases of one length) as ``(length, values..., 0...)`` rows of ``width + 1``."""
        count = rows.shape[1]
        if count > self.width:
            raise CheckerError(
                f"the releases held up to {self.width} values in the pilot and {count} later: a release's length "
                "that varies from draw to draw on one input cannot be audited"
            )
        encoded = np.zeros((rows.shape[0], self.width + 1))
        encoded[:, 0] = count
        encoded[:, 1 : count + 1] = rows
        return encoded


def sampler_stream(sampler: Any, data: Any, sizes: Sequence[int], rng: np.random.Generator) -> Iterator[np.ndarray]:
    """The batches of ``sampler(data, n, rng)`` for each ``n`` of ``sizes``, through dpaudit's own
    samplers' ``stream`` (a candidate's worker draws the next batch while this one is counted)."""
    if isinstance(sampler, ReleaseSampler | LengthTagged):
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
