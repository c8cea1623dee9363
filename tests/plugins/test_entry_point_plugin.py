"""A third-party plugin (tests/plugins/example_plugin) found through the entry-point groups
``dpaudit.mechanisms`` and ``dpaudit.checkers`` and audited end to end with ``dpaudit check``.

The plugin is made visible the way an installed distribution is: a ``*.dist-info`` folder
with its ``entry_points.txt`` on the path that importlib.metadata searches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpaudit

PLUGIN = Path(__file__).parent / "example_plugin"
ENTRY_POINTS = """[dpaudit.checkers]
example_checks = dpaudit_example_plugin.checks

[dpaudit.mechanisms]
randomized_response = dpaudit_example_plugin.mechanism:MECHANISM
"""


def install_example_plugin(site: Path) -> str:
    """Make the example plugin an installed distribution in the folder ``site`` (a dist-info with its
    entry points); returns the PYTHONPATH that finds it."""
    info = site / "dpaudit_example_plugin-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dpaudit-example-plugin\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return os.pathsep.join([str(site), str(PLUGIN)])


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return install_example_plugin(tmp_path_factory.mktemp("site"))


def _dpaudit(plugin_path: str, *arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # the dpaudit under test (a worktree's, not only the installed one) stays importable in the subprocess
    source_root = str(Path(dpaudit.__file__).resolve().parents[1])
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([plugin_path, source_root])}
    return subprocess.run(
        [sys.executable, "-m", "dpaudit.cli", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=300,
    )


def test_plugin_mechanism_and_checker_are_listed(plugin_path, tmp_path):
    listed = _dpaudit(plugin_path, "list", "mechanisms", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "randomized_response" in listed.stdout
    checkers = _dpaudit(plugin_path, "list", "checkers", cwd=tmp_path)
    assert "example_outputs_are_bits" in checkers.stdout


def test_plugin_reference_is_audited(plugin_path, tmp_path):
    run = _dpaudit(plugin_path, "audit", str(PLUGIN / "spec.toml"), "--quick", "--out", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads((tmp_path / "audit.json").read_text())
    verdicts = {
        o["obligation"]["id"]: o["evidence"]["verdict"] for o in report["claims"][0]["relations"][0]["obligations"]
    }
    assert verdicts == {"exact-profile": "verified", "outputs-are-bits": "consistent", "monte-carlo": "consistent"}


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
@pytest.mark.parametrize(
    ("candidate", "exit_code", "verdict"), [("randomized_response", 0, "consistent"), ("leaky_response", 1, "violated")]
)
def test_plugin_candidate_is_checked(plugin_path, tmp_path, candidate, exit_code, verdict):
    run = _dpaudit(
        plugin_path,
        "check",
        str(PLUGIN / "spec.toml"),
        "--candidate",
        f"candidate:{candidate}",
        "--quick",
        "--out",
        str(tmp_path / "out"),
        cwd=PLUGIN,
    )
    assert run.returncode == exit_code, run.stdout + run.stderr
    report = json.loads((tmp_path / "out" / "audit.json").read_text())
    verdicts = {
        o["obligation"]["id"]: o["evidence"]["verdict"] for o in report["claims"][0]["relations"][0]["obligations"]
    }
    assert verdicts["outputs-are-bits"] == "consistent"
    assert verdicts["monte-carlo"] == verdict
