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

#: What this worker's candidate has returned so far: each category's text by its code, and the whole numbers it
#: returned as numbers in the codes' range [0, 2^48). Two texts with one code, or a text and a number equal to its
#: code, would reach the audit as the same number while the release tells them apart: refused
#: (:func:`_no_collision`). Text and numbers may mix otherwise (a number, or '⊥' when there is none).
_TEXTS: dict[int, str] = {}
_CODED_NUMBERS: set[float] = set()
#: The most whole numbers kept; past it, a text whose code is not among them is refused as well (conservative).
_MAX_CODED_NUMBERS = 1_000_000


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
            if float(code) in _CODED_NUMBERS or len(_CODED_NUMBERS) >= _MAX_CODED_NUMBERS:
                raise BadOutput(_clash(code, value))
            if len(labels) < _MAX_LABELS:
                labels.setdefault(str(code), value[:80])
            codes[index] = code
        elif isinstance(value, bool | int | float) and not isinstance(value, complex):
            codes[index] = float(value)
        else:
            where = " inside its output" if array.ndim else ""
            raise BadOutput(
                f"returned a {type(value).__name__}{where}; expected numbers or text (for a missing answer, return "
                "a string such as '⊥')"
            )
    return codes.reshape(array.shape)


def as_real(output: Any, call: int, labels: dict[str, str] | None = None, *, copy: bool = True) -> np.ndarray:
    """``output`` as a C-ordered float64 array (0-d stays 0-d); a copy unless ``copy`` is False and it
    already is one (a per-call candidate may hand back a buffer it reuses on its next call)."""
    try:
        array = np.asarray(output)
    except ValueError as exc:  # a ragged list
        raise BadOutput(f"call {call} returned a {type(output).__name__} that is no array: {exc}") from None
    if labels is not None and array.dtype.kind in "USO":
        numbers = [float(value) for value in array.ravel().tolist() if isinstance(value, int | float)]
        try:
            array = _as_codes(array, labels)
        except ValueError as exc:
            raise BadOutput(f"call {call} {exc}") from None
        _no_collision(np.array(numbers, dtype=np.float64), call)
    elif labels is not None and array.dtype.kind in _REAL_KINDS:
        _no_collision(np.asarray(array, dtype=np.float64).ravel(), call)
    if array.dtype.kind not in _REAL_KINDS:
        shown = repr(array.ravel()[:1].tolist() if array.size else array)[:120]
        raise BadOutput(f"call {call} returned {array.dtype} values (first: {shown}); expected real numbers")
    if array.size == 0:
        raise BadOutput(f"call {call} returned an empty output (shape {array.shape})")
    if copy:
        return np.array(array, dtype="<f8", order="C")
    return np.asarray(array, dtype="<f8", order="C")


def _no_collision(numbers: np.ndarray, call: int) -> None:
    """Keep the whole numbers in the codes' range among ``numbers`` and refuse one equal to the code of a text
    the candidate returned (see :data:`_CODED_NUMBERS`)."""
    whole = numbers[(numbers == np.floor(numbers)) & (numbers >= 0) & (numbers < 2.0**48)]
    if not whole.size:
        return
    new = set(np.unique(whole).tolist()) - _CODED_NUMBERS
    for number in new:
        if int(number) in _TEXTS:
            raise BadOutput(f"call {call}: {_clash(int(number), _TEXTS[int(number)])}")
    if len(_CODED_NUMBERS) < _MAX_CODED_NUMBERS:
        _CODED_NUMBERS.update(new)


def _clash(code: int, text: str) -> str:
    if len(_CODED_NUMBERS) >= _MAX_CODED_NUMBERS and float(code) not in _CODED_NUMBERS:
        shown = (
            f"more than {_MAX_CODED_NUMBERS} whole numbers beside the text {text[:40]!r}: codes cannot be kept apart"
        )
    else:
        shown = f"the number {code} and the text {text[:40]!r} would reach the audit as the same code"
    return f"{shown}; return text for every value (e.g. str(x)) or numbers only"


def same_shapes(outputs: list[np.ndarray]) -> None:
    """Refuse per-call outputs of different shapes (they cannot be stacked into one batch)."""
    shapes = sorted({output.shape for output in outputs})
    if len(shapes) != 1:
        raise BadOutput(
            f"the calls returned outputs of different shapes: {shapes[:4]}; a release whose length follows its "
            "randomness (a sparse vector that stops at its c-th answer) can be returned as text (e.g. "
            "''.join('T' if answer else 'F' for answer in answers)) or padded to a fixed length"
        )
