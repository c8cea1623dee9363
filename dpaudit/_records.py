"""The JSON form of a frozen record (a dataclass whose fields are plain values), shared by the
records of every layer that write themselves field by field."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["record_json"]


def record_json(record: DataclassInstance, **written: Any) -> dict[str, Any]:
    """Every field of ``record`` by name, in declaration order, a tuple as a list; a field named in
    ``written`` holds the value given there instead (its JSON form: a rounded decimal string, a
    nested record's ``to_json()``), and a name of ``written`` that is no field is added."""
    data = {item.name: getattr(record, item.name) for item in fields(record)}
    return {name: list(value) if isinstance(value, tuple) else value for name, value in data.items()} | written
