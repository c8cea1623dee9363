"""JSON reading with a bound on nesting: a hostile file (``[[[[...]]]]``) is a ``ValueError``
naming the limit, never a ``RecursionError`` from the parser or from code that walks the result."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "loads_bounded"]

#: The deepest nesting of arrays and objects accepted. dpaudit's own documents nest about a
#: dozen levels; a dataset of trajectories in a pair file about six.
MAX_JSON_DEPTH = 64


def _depth(value: Any) -> int:
    """The nesting depth of a parsed JSON value (iterative: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            if level > MAX_JSON_DEPTH:
                break
            stack.extend((child, level + 1) for child in item if isinstance(child, dict | list))
    return deepest


def loads_bounded(text: str | bytes) -> Any:
    """``json.loads`` that refuses documents nested deeper than :data:`MAX_JSON_DEPTH`.

    Raises:
        ValueError: for malformed JSON (``json.JSONDecodeError``) or too deep a nesting.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(
            f"JSON nested deeper than the parser can follow (dpaudit reads at most {MAX_JSON_DEPTH} levels)"
        ) from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value
