"""docs/verdicts.md lists every verdict, policy and exit code the code has."""

import re
from pathlib import Path

from dpaudit.cli import EXIT_CODES_HELP
from dpaudit.kernel.verdicts import FAIL_POLICIES, Verdict

PAGE = (Path(__file__).parents[1] / "docs" / "verdicts.md").read_text(encoding="utf-8")


def _first_column(heading: str) -> list[str]:
    section = PAGE.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("|---")]
    return [row.split("|")[1].split(" (")[0].strip().strip("`") for row in rows[1:]]


def test_every_verdict_is_described_in_strength_order():
    listed = _first_column("## Verdicts of an obligation")
    assert listed == [verdict.value for verdict in sorted(Verdict, key=lambda v: -v.strength)]


def test_every_policy_and_exit_code_is_listed():
    assert _first_column("## The policy") == list(FAIL_POLICIES)
    codes = {code for cell in _first_column("## Exit codes") for code in re.findall(r"\d+", cell)}
    assert codes == set(re.findall(r"\b(\d+)\b", EXIT_CODES_HELP.split(":", 1)[1]))
