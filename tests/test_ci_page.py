"""docs/ci.md's workflow is one a user can paste: valid YAML with the GitHub Actions keys it uses
in their places, an install line pip accepts (dpaudit is not on a package index), a timeout and
permissions, steps that refer only to earlier step ids, and dpaudit commands that parse."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dpaudit.cli import _build_parser

yaml = pytest.importorskip("yaml")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "ci.md"
STEP_KEYS = {"name", "id", "if", "uses", "with", "run", "env", "continue-on-error", "timeout-minutes", "shell"}
JOB_KEYS = {"runs-on", "timeout-minutes", "steps", "permissions", "env", "needs", "if", "strategy"}


def _workflow() -> dict:
    (block,) = re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return yaml.safe_load(block)


def test_the_workflow_has_the_keys_github_reads_where_it_reads_them():
    workflow = _workflow()
    assert set(workflow) <= {"name", "on", True, "permissions", "env", "jobs"}  # YAML 1.1 reads `on` as True
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    for job in workflow["jobs"].values():
        assert set(job) <= JOB_KEYS
        assert isinstance(job["timeout-minutes"], int) and job["runs-on"]
        ids: set[str] = set()
        for step in job["steps"]:
            assert set(step) <= STEP_KEYS, step
            assert ("uses" in step) != ("run" in step), step
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step["uses"]
            for referenced in re.findall(r"steps\.([\w-]+)\.", str(step.get("if", ""))):
                assert referenced in ids, f"step {step.get('name')} refers to a later or unknown step {referenced}"
            if "id" in step:
                assert step["id"] not in ids
                ids.add(step["id"])


def test_the_install_line_installs_dpaudit_from_what_the_user_sets_not_a_package_index():
    workflow = _workflow()
    (install,) = [step["run"] for step in workflow["jobs"]["dpaudit"]["steps"] if "pip install" in step.get("run", "")]
    words = shlex.split(install)
    assert words[:2] == ["pip", "install"] and "dpaudit" not in words
    assert "$DPAUDIT" in words and "DPAUDIT" in workflow["env"]


def test_every_dpaudit_command_in_the_workflow_parses():
    parser = _build_parser()
    commands = []
    for step in _workflow()["jobs"]["dpaudit"]["steps"]:
        for line in str(step.get("run", "")).replace("\\\n", " ").splitlines():
            words = shlex.split(line.split("||")[0])
            if words and words[0] == "dpaudit":
                commands.append(words[1:])
    assert {words[0] for words in commands} == {"check", "report", "recheck"}
    for words in commands:
        parser.parse_args(words)


def test_the_gate_is_the_last_step_and_reads_the_audits_outcome():
    steps = _workflow()["jobs"]["dpaudit"]["steps"]
    audit = next(step for step in steps if step.get("id") == "audit")
    assert audit["continue-on-error"] is True
    assert steps[-1]["if"] == "steps.audit.outcome == 'failure'" and steps[-1]["run"].startswith("exit 1")
