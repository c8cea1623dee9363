"""Spec loading is total: any bytes, any TOML structure, any values give a Claim or one SpecError.

Hypothesis with derandomised (fixed) example generation; 2,000 examples in all.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import SpecError
from dpaudit.kernel.claims import Claim

BASES = [
    builtin_spec_dir() / "gaussian_mechanism.toml",
    builtin_spec_dir() / "laplace_mechanism.toml",
    builtin_spec_dir() / "examples" / "dirichlet_candidate.toml",
    builtin_spec_dir() / "examples" / "gpope_step_candidate.toml",
]
SETTINGS = settings(
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)


def _toml(value: Any) -> str:
    """A minimal TOML writer (inline forms) for the fuzzed documents."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return "{" + ", ".join(f"{json.dumps(str(key))} = {_toml(item)}" for key, item in value.items()) + "}"


def _document(data: dict[str, Any]) -> str:
    return "\n".join(f"{json.dumps(key)} = {_toml(value)}" for key, value in data.items()) + "\n"


def _assert_total(path: Path) -> None:
    try:
        result = load_spec(path)
    except SpecError as exc:
        message = str(exc)
        assert message.startswith(str(path)), message
        assert "\n" not in message, message
        return
    assert isinstance(result, Claim)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


NASTY = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, -1, 2**63, 2**64, 10**4000, -(2**63) - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 5e-324, 1e308, -1e308, 1 - 2**-53, 1e-300]),
    st.text(max_size=40),
    st.sampled_from(["", " ", "../x", "a/b", "a\\b", "line\nbreak", "tab\there", "\x00", "ok-id", "é", "a" * 200]),
    st.booleans(),
    st.lists(st.integers(min_value=-3, max_value=3), max_size=4),
    st.just(_nested(30)),
    st.just({}),
    st.just([]),
    st.just({"first": [0.0], "second": [1e9]}),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


@settings(SETTINGS, max_examples=1200)
@given(base=st.sampled_from(BASES), data=st.data())
def test_structure_and_values(tmp_path_factory, base, data):
    document = tomllib.loads(base.read_text())
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        path = data.draw(st.sampled_from(_paths(document)[1:]))
        action = data.draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if action == "replace":
            document = _replace(document, path, data.draw(NASTY))
        elif action == "delete" and isinstance(path[-1], str):
            parent = path[:-1]
            holder = document
            for key in parent:
                holder = holder[key]
            document = _replace(document, parent, {k: v for k, v in holder.items() if k != path[-1]})
        elif action == "duplicate" and path[0] == "obligations" and len(path) == 2:
            document = {**document, "obligations": [*document["obligations"], document["obligations"][path[1]]]}
    spec = tmp_path_factory.mktemp("fuzz") / "spec.toml"
    spec.write_text(_document(document), encoding="utf-8")
    _assert_total(spec)


@settings(SETTINGS, max_examples=800)
@given(base=st.sampled_from(BASES), edits=st.lists(st.tuples(st.integers(0, 4000), st.binary(max_size=3)), max_size=6))
def test_bytes(tmp_path_factory, base, edits):
    raw = bytearray(base.read_bytes())
    for position, chunk in edits:
        at = position % (len(raw) + 1)
        raw[at : at + len(chunk) // 2] = chunk
    spec = tmp_path_factory.mktemp("fuzz") / "spec.toml"
    spec.write_bytes(bytes(raw))
    _assert_total(spec)


def test_hostile_files(tmp_path):
    cases = {
        "deep.toml": "x = " + "[" * 5000 + "]" * 5000,
        "latin1.toml": None,
        "huge_int.toml": "schema = " + "9" * 5000,
        "future.toml": "schema = 2",
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes(b'schema = 1\n[claim]\nid = "caf\xe9"\n')
        else:
            path.write_text(text)
        _assert_total(path)
    folder = tmp_path / "a-folder.toml"
    folder.mkdir()
    _assert_total(folder)
