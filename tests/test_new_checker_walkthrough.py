"""docs/ARCHITECTURE.md, "How to add a checker", followed literally: the checker file the page shows is
written to a folder, imported, and the page's spec naming it is audited through ``dpaudit.audit_specs``;
the verdicts are those the page states, and a key its config does not declare is refused naming the
accepted ones (issue #39, item 2)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

import dpaudit
from dpaudit.audit.plugins import list_checkers
from dpaudit.audit.spec import load_spec
from dpaudit.errors import SpecError
from dpaudit.kernel.verdicts import Verdict

PAGE = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"
CHECKER = "laplace_threshold_ratio"


def _block(marker: str) -> str:
    """The fenced code block that follows ``<!-- walkthrough: marker -->`` on the page."""
    found = re.search(rf"<!-- walkthrough: {re.escape(marker)} -->\n```\w+\n(.*?)```", PAGE.read_text(), re.DOTALL)
    assert found is not None, f"docs/ARCHITECTURE.md has no walk-through block {marker!r}"
    return found.group(1)


@pytest.fixture(scope="module")
def checker_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page's checker file, written to a folder and imported (once per process: a checker name is
    registered once)."""
    path = tmp_path_factory.mktemp("walkthrough") / "threshold_ratio.py"
    path.write_text(_block("threshold_ratio.py"))
    if CHECKER not in {entry.name for entry in list_checkers()}:
        spec = importlib.util.spec_from_file_location("walkthrough_threshold_ratio", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return path


def _spec(folder: Path, text: str) -> Path:
    path = folder / "laplace_threshold_ratio.toml"
    path.write_text(text)
    return path


def test_the_new_checker_is_one_file_and_its_config(checker_file):
    (entry,) = [entry for entry in list_checkers() if entry.name == CHECKER]
    assert entry.config is not None and entry.config.__name__ == "ThresholdRatioConfig"
    assert list(entry.parameters) == ["thresholds", "digits"]
    assert entry.parameters["digits"].startswith("int in [50, 500], default 50: ")


@pytest.mark.parametrize(
    ("scale", "verdict"), [("scale = 2.0", Verdict.VERIFIED), ("scale = 0.5", Verdict.VIOLATED)], ids=["2", "0.5"]
)
def test_the_spec_of_the_page_gives_the_verdict_the_page_states(checker_file, scale, verdict):
    text = _block("spec")
    assert "scale = 2.0" in text
    report = dpaudit.audit_specs([_spec(checker_file.parent, text.replace("scale = 2.0", scale))], seed=3)
    (claim,) = report.claims
    (relation,) = claim.relations
    (result,) = relation.obligations
    assert result.evidence.verdict is verdict, result.evidence.summary
    assert claim.verdict is verdict


def test_a_key_the_config_does_not_declare_is_refused_naming_the_accepted_ones(checker_file):
    text = _block("spec").replace("params = { thresholds", "params = { colour = 1, thresholds")
    with pytest.raises(SpecError) as refused:
        load_spec(_spec(checker_file.parent, text))
    message = str(refused.value)
    assert "key 'obligations[0].params': unknown params ['colour']: expected some of thresholds, digits" in message
