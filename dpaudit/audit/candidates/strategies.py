"""A user's Hypothesis strategy as a dataset generator, inside the candidate's worker: its examples drawn
under a seed from the audit's, the same on every run (docs/kinds/black_box.md, ``datasets``)."""

from __future__ import annotations

from typing import Any

__all__ = ["is_strategy", "strategy_example"]

_DRAWN: dict[tuple[str, int, int], list[Any]] = {}


def is_strategy(value: Any) -> bool:
    """Whether ``value`` is a Hypothesis strategy (checked without importing Hypothesis otherwise)."""
    if not type(value).__module__.startswith("hypothesis"):
        return False
    from hypothesis.strategies import SearchStrategy

    return isinstance(value, SearchStrategy)


def strategy_example(ref: str, strategy: Any, draw: dict[str, Any]) -> Any:
    """Example ``index`` of ``count`` drawn from a Hypothesis strategy under a fixed seed: the same
    inputs on every run (Hypothesis draws its simplest example first, then varied ones)."""
    key = (ref, int(draw["seed"]), int(draw["count"]))
    if key not in _DRAWN:
        from hypothesis import HealthCheck, Phase, given, seed, settings

        drawn: list[Any] = []

        @seed(key[1])
        @settings(
            max_examples=key[2],
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            deadline=None,
        )
        @given(strategy)
        def collect(value: Any) -> None:
            drawn.append(value)

        collect()
        _DRAWN[key] = drawn
    drawn = _DRAWN[key]
    return drawn[int(draw["index"]) % len(drawn)]
