"""What the candidate worker sends back: a candidate's outputs as float64 arrays, categories (strings)
as codes, and the outputs dpaudit cannot audit refused in one line (:class:`BadOutput`)."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

__all__ = ["BadOutput", "as_real", "category_code", "same_shapes"]

#: numpy kinds of real numbers: bool, signed and unsigned integers, floats.
_REAL_KINDS = "biuf"


class BadOutput(ValueError):
    """An output dpaudit cannot audit (not real numbers, empty, shapes that differ): one line, no
    traceback (the candidate raised nothing; the worker's own check refused what it returned)."""


#: The most category names a batch reports (the codes themselves are unlimited).
_MAX_LABELS = 256

#: What this worker's candidate has returned so far: each category's text by its code, and the sorts of value
#: (``text``, ``bool``, ``number``). Two texts with one code, or text and numbers, or booleans and numbers, would
#: reach the audit as the same numbers while the release tells them apart: refused (:func:`_one_sort`).
_TEXTS: dict[int, str] = {}
_SORTS: set[str] = set()


def category_code(text: str) -> int:
    """The code of a categorical output: the first 48 bits of the BLAKE2b digest of its UTF-8 text."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=6).digest(), "big")


def _as_codes(array: np.ndarray, labels: dict[str, str]) -> np.ndarray:
    """Strings to their category codes (other values unchanged), noting up to :data:`_MAX_LABELS` names."""
    flat = array.ravel()
    codes = np.empty(flat.size, dtype="<f8")
    for index, value in enumerate(flat.tolist()):
        if isinstance(value, str):
            code = category_code(value)
            if _TEXTS.setdefault(code, value) != value:
                raise BadOutput(
                    f"returned the categories {_TEXTS[code][:40]!r} and {value[:40]!r}, whose codes coincide: dpaudit "
                    "could not tell them apart (rename one)"
                )
            if len(labels) < _MAX_LABELS:
                labels.setdefault(str(code), value[:80])
            codes[index] = code
        elif isinstance(value, bool | int | float) and not isinstance(value, complex):
            codes[index] = float(value)
        else:
            where = " inside its output" if array.ndim else ""
            raise BadOutput(
                f"returned a {type(value).__name__}{where}; expected numbers or text (for a missing answer, ⊥, "
                "return a string such as '⊥')"
            )
    return codes.reshape(array.shape)


def as_real(output: Any, call: int, labels: dict[str, str] | None = None, *, copy: bool = True) -> np.ndarray:
    """``output`` as a C-ordered float64 array (0-d stays 0-d); a copy unless ``copy`` is False and it
    already is one (a per-call candidate may hand back a buffer it reuses on its next call)."""
    try:
        array = np.asarray(output)
    except ValueError as exc:  # a ragged list
        raise BadOutput(f"call {call} returned a {type(output).__name__} that is no array: {exc}") from None
    sorts = {"bool" if array.dtype.kind == "b" else "number"}
    if labels is not None and array.dtype.kind in "USO":
        try:
            sorts = {"text" if isinstance(value, str) else "number" for value in array.ravel().tolist()}
            array = _as_codes(array, labels)
        except ValueError as exc:
            raise BadOutput(f"call {call} {exc}") from None
    _one_sort(sorts, call)
    if array.dtype.kind not in _REAL_KINDS:
        shown = repr(array.ravel()[:1].tolist() if array.size else array)[:120]
        raise BadOutput(f"call {call} returned {array.dtype} values (first: {shown}); expected real numbers")
    if array.size == 0:
        raise BadOutput(f"call {call} returned an empty output (shape {array.shape})")
    if copy:
        return np.array(array, dtype="<f8", order="C")
    return np.asarray(array, dtype="<f8", order="C")


def _one_sort(sorts: set[str], call: int) -> None:
    """Refuse an output whose sort of value differs from the candidate's earlier ones (see :data:`_SORTS`)."""
    _SORTS.update(sorts)
    if len(_SORTS) > 1:
        earlier = " and ".join(sorted(_SORTS - sorts)) or "of another sort"
        raise BadOutput(
            f"call {call} returned {' and '.join(sorted(sorts))} where its outputs so far were {earlier}: dpaudit "
            "audits text as codes and booleans as 0/1, so outputs that mix them with numbers could differ where the "
            "audit sees the same numbers; return one sort (e.g. str(x) for every value, or numbers only)"
        )


def same_shapes(outputs: list[np.ndarray]) -> None:
    """Refuse per-call outputs of different shapes (they cannot be stacked into one batch)."""
    shapes = sorted({output.shape for output in outputs})
    if len(shapes) != 1:
        raise BadOutput(
            f"the calls returned outputs of different shapes: {shapes[:4]}; a release whose length follows its "
            "randomness (a sparse vector that stops at its c-th answer) can be returned as text (e.g. "
            "''.join('T' if answer else 'F' for answer in answers)) or padded to a fixed length"
        )
