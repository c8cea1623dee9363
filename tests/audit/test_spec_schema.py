"""docs/spec.schema.json describes what load_spec accepts: every spec in the repository validates,
and each kind of malformed spec is refused by both the schema and the loader."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

from dpaudit.audit.spec import load_spec
from dpaudit.errors import SpecError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "spec.schema.json").read_text())
SPECS = sorted(
    path
    for pattern in (
        "specs/*.toml",
        "specs/examples/*.toml",
        "tests/candidates/specs/*.toml",
        "tests/candidates/round5/specs/*.toml",
    )
    for path in ROOT.glob(pattern)
)
BASE = ROOT / "specs" / "examples" / "gaussian_candidate.toml"


def _errors(document):
    return list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document))


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", SPECS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_spec_in_the_repository_validates(path):
    assert _errors(tomllib.loads(path.read_text())) == []


def _unknown_top(d):
    d["extra"] = 1


def _unknown_claim_key(d):
    d["claim"]["extra"] = 1


def _unknown_obligation_key(d):
    d["obligations"][0]["extra"] = 1


def _unknown_candidate_key(d):
    d["candidate"] = {"positional": ["input"]}


def _no_guarantee(d):
    del d["claim"]["guarantee"]


def _bad_guarantee_kind(d):
    d["claim"]["guarantee"]["kind"] = "pure"


def _approx_dp_without_delta(d):
    del d["claim"]["guarantee"]["delta"]


def _other_kinds_field(d):
    d["claim"]["guarantee"]["beta"] = 0.1


def _no_obligations(d):
    d["obligations"] = []


def _scalar_pin(d):
    finding = {"relation": "replace_one", "obligations": ["randomness"], "finding": "f"}
    d["claim"]["known_findings"] = [{**finding, "pin": {"quantity": "q", "measured": 1}}]


def _wrong_schema_version(d):
    d["schema"] = 2


def _relation_listed_twice(d):
    d["claim"]["relations"] = ["replace_one", "replace_one"]


def _epsilon_past_the_float_range(d):
    d["claim"]["guarantee"]["epsilon"] = 701.0


def _candidate_argument_listed_twice(d):
    d["candidate"] = {"args": ["input", "input"]}


MALFORMED = [
    _unknown_top,
    _unknown_claim_key,
    _unknown_obligation_key,
    _unknown_candidate_key,
    _no_guarantee,
    _bad_guarantee_kind,
    _approx_dp_without_delta,
    _other_kinds_field,
    _no_obligations,
    _scalar_pin,
    _wrong_schema_version,
    _relation_listed_twice,
    _epsilon_past_the_float_range,
    _candidate_argument_listed_twice,
]


def _toml(value, key=""):
    """A small TOML writer for the malformed documents (tables, arrays of tables, scalars, arrays)."""
    lines, tables = [], []
    for name, item in value.items():
        if isinstance(item, dict):
            tables.append((name, item, False))
        elif isinstance(item, list) and item and all(isinstance(v, dict) for v in item):
            tables.append((name, item, True))
        else:
            lines.append(f"{name} = {json.dumps(item) if not isinstance(item, dict) else item}")
    for name, item, many in tables:
        full = f"{key}.{name}" if key else name
        for entry in item if many else [item]:
            lines.append(f"[[{full}]]" if many else f"[{full}]")
            lines.append(_toml(entry, full))
    return "\n".join(lines)


@pytest.mark.parametrize("mutate", MALFORMED, ids=lambda f: f.__name__.strip("_"))
def test_schema_and_loader_both_refuse_a_malformed_spec(mutate, tmp_path):
    document = copy.deepcopy(tomllib.loads(BASE.read_text()))
    mutate(document)
    assert _errors(document), "the schema accepts it"
    path = tmp_path / "spec.toml"
    path.write_text(_toml(document))
    assert tomllib.loads(path.read_text()) == document  # the writer round-trips
    with pytest.raises(SpecError):
        load_spec(path)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("schema = 1", "schema = 1.0", "expected schema = 1"),
        ("inputs = [[0.0], [1.0]]", 'inputs = [["0.0"], [1.0]]', "input[0]='0.0': expected a real number, got str"),
        ("first = [0.0]", "first = [true]", "input[0]=True: expected a real number, got bool"),
        ('label = "f(X) = 0, f(X\') = 1"', "label = 3", "label=3: expected a non-empty string"),
        ('label = "f(X) = 0, f(X\') = 1"', 'label = ["a"]', "expected a non-empty string"),
    ],
)
def test_the_loader_refuses_what_json_schema_cannot_tell_apart(old, new, message, tmp_path):
    """Types are exact: no float for the schema's integer, no string or boolean for a number, no
    number for a label."""
    text = BASE.read_text()
    assert old in text
    path = tmp_path / "spec.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(SpecError, match=re.escape(message)):
        load_spec(path)
