"""Typed access to a spec's TOML tables: every error a :class:`~dpaudit.errors.SpecError` naming
the file, the dotted key and the expected form."""

from __future__ import annotations

from typing import Any

from dpaudit.errors import SpecError

__all__ = ["SpecReader"]


class SpecReader:
    """Typed access to a TOML table that reports errors with file and dotted key."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, message: str) -> SpecError:
        return SpecError(message, path=self.path, key=key)

    def table(self, data: dict[str, Any], key: str, prefix: str, *, required: bool = True) -> dict[str, Any]:
        full = f"{prefix}{key}"
        if key not in data:
            if required:
                raise self.fail(full, "missing; expected a table")
            return {}
        value = data[key]
        if not isinstance(value, dict):
            raise self.fail(full, f"expected a table, got {type(value).__name__} {value!r}")
        return value

    def string(self, data: dict[str, Any], key: str, prefix: str, *, required: bool = True) -> str | None:
        full = f"{prefix}{key}"
        if key not in data:
            if required:
                raise self.fail(full, "missing; expected a non-empty string")
            return None
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(full, f"expected a non-empty string, got {type(value).__name__} {value!r}")
        return value

    def text(self, data: dict[str, Any], key: str, prefix: str) -> str:
        """A required non-empty string."""
        value = self.string(data, key, prefix)
        if value is None:
            raise self.fail(f"{prefix}{key}", "missing; expected a non-empty string")
        return value

    def unique(self, names: list[Any], key: str) -> None:
        """A list that names things names each once.

        Raises:
            SpecError: naming the key and the repeated name.
        """
        seen: dict[Any, int] = {}
        for index, name in enumerate(names):
            if name in seen:
                raise self.fail(f"{key}[{index}]", f"{name!r} is listed twice (also at [{seen[name]}])")
            seen[name] = index

    def no_unknown(self, data: dict[str, Any], allowed: set[str], prefix: str) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise self.fail(f"{prefix}{unknown[0]}", f"unknown key; expected one of {sorted(allowed)}")
