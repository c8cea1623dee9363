"""Budget ceilings: defaults, lowered on the command line or in a spec, never raised."""

from __future__ import annotations

import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.checks.budget_limits import DEFAULT_CEILINGS, ceiling, lowered_ceilings, parse_ceiling
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument, SpecError

GAUSSIAN = builtin_spec_dir() / "gaussian_mechanism.toml"  # asks for 10^7 samples per side


def test_a_lowered_ceiling_refuses_a_spec_before_any_work(tmp_path, caplog):
    out = tmp_path / "out"
    assert main(["audit", str(GAUSSIAN), "--ceiling", "samples=1e6", "--out", str(out)]) == 2
    assert "samples" in caplog.text and not out.exists()
    with lowered_ceilings({"samples": 1e6}), pytest.raises(SpecError, match="samples"):
        load_spec(GAUSSIAN)
    assert load_spec(GAUSSIAN).id == "gaussian-mechanism"  # the ceiling is back after the block
    assert ceiling("samples") == DEFAULT_CEILINGS["samples"]


def _with_ceilings(tmp_path, table: str):
    spec = tmp_path / "spec.toml"
    spec.write_text(GAUSSIAN.read_text().replace("schema = 1\n", f"schema = 1\n\n[ceilings]\n{table}\n", 1))
    return spec


def test_a_spec_lowers_its_own_ceilings_and_cannot_raise_them(tmp_path):
    with pytest.raises(SpecError, match=r"samples=2000000: expected an integer in \[100, 1000\]"):
        load_spec(_with_ceilings(tmp_path, "samples = 1000"))
    assert load_spec(_with_ceilings(tmp_path, "samples = 1e8")).id == "gaussian-mechanism"
    for table, reason in (
        ("samples = 1e12", "can only be lowered"),
        ("memory = 5", "unknown ceiling"),
        ("digits = -1", "positive number"),
    ):
        with pytest.raises(SpecError, match=reason):
            load_spec(_with_ceilings(tmp_path, table))


def test_command_line_ceilings_are_name_value_pairs():
    assert parse_ceiling("samples=1e7") == ("samples", 1e7)
    for text in ("samples", "=5", "samples=many"):
        with pytest.raises(InvalidArgument, match="NAME=VALUE"):
            parse_ceiling(text)
    assert main(["check", str(GAUSSIAN), "--candidate", "m:f", "--ceiling", "digits=1e9"]) == 2
