"""Every JSON dpaudit reads from a file or a candidate is bounded in depth: a hostile document is
exit 2 naming the limit, never a RecursionError."""

from __future__ import annotations

import json

import pytest

from dpaudit._bounded_json import MAX_JSON_DEPTH, loads_bounded
from dpaudit.cli import main


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_documents_up_to_the_limit_load_and_deeper_ones_are_a_value_error():
    assert loads_bounded(_nested(MAX_JSON_DEPTH)) == json.loads(_nested(MAX_JSON_DEPTH))
    assert loads_bounded('{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}
    for depth in (MAX_JSON_DEPTH + 1, 500, 100_000):
        with pytest.raises(ValueError, match="nested deeper"):
            loads_bounded(_nested(depth))
    with pytest.raises(ValueError):
        loads_bounded("[1,")


@pytest.mark.parametrize("command", ["report", "recheck"])
def test_a_deeply_nested_report_file_is_exit_2(command, tmp_path, caplog):
    path = tmp_path / "audit.json"
    path.write_text(_nested(100_000), encoding="utf-8")
    assert main([command, str(path)]) == 2
    assert "nested deeper" in caplog.text
