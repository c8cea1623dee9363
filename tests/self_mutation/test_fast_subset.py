"""A fast subset of the self-mutation suite in CI (the whole: python -m tests.self_mutation.run)."""

import pytest

from tests.self_mutation.defects import DEFECTS, Defect
from tests.self_mutation.run import ROOT, failed_tests, run_defect

FAST = ("gaussian-delta-sign", "union-bound-dropped", "combine-verdicts-strongest", "certificate-rounds-inward")


def test_every_defect_applies_to_exactly_one_place():
    names = [defect.name for defect in DEFECTS]
    assert len(names) == len(set(names)) and len(names) >= 40
    for defect in DEFECTS:
        text = (ROOT / defect.path).read_text(encoding="utf-8")
        assert text.count(defect.old) == 1, defect.name
        assert all((ROOT / target).exists() for target in defect.targets), defect.name


@pytest.mark.slow  # a planted defect's tests run again in a copy: the main CI job runs it, not the floors one
@pytest.mark.parametrize("name", FAST)
def test_a_planted_defect_turns_its_tests_red(name):
    (defect,) = [d for d in DEFECTS if d.name == name]
    assert run_defect(defect)["killed"]


def _no_change(target):
    """A planted change that changes nothing, with one target."""
    unchanged = 'return Path(__file__).resolve().parents[2] / "specs"'
    return Defect("nothing", "control", "dpaudit/audit/spec.py", unchanged, unchanged, (target,))


@pytest.mark.slow  # the targets run in a copy of the package: the main CI job runs it, not the floors one
def test_a_change_that_changes_nothing_survives_tests_that_read_the_specs():
    """The copy can read the built-in specs and docs beside the package: without them, every test loading a
    spec failed in the copy, and a defect no test caught counted as killed."""
    result = run_defect(_no_change("tests/checks/test_balle_checker_wrappers.py"))
    assert not result["killed"], result["last_line"]


@pytest.mark.slow  # the targets run in a copy of the package: the main CI job runs it, not the floors one
def test_a_run_that_stops_without_naming_a_failed_test_is_no_kill():
    """pytest's usage and internal errors exit non-zero with no short summary: nothing to confirm, no kill."""
    result = run_defect(_no_change("tests/no_such_file.py"))
    assert not result["killed"] and "naming no failed test" in result["last_line"], result["last_line"]


def test_a_kill_names_the_failed_tests_to_rerun_without_the_defect(tmp_path):
    output = (
        "------------------------------ Captured log call -------------------------------\n"
        "ERROR    dpaudit:__init__.py:108 /tmp/out/audit.json: key 'digest': the content does not match\n"
        "=========================== short test summary info ============================\n"
        "FAILED ../tests/checks/test_x.py::test_one[0.5-True] - AssertionError: assert 1 == 2\n"
        "ERROR ../tests/checks/test_y.py\n"
        "1 failed, 1 error in 0.54s\n"
    )
    copy = tmp_path / "copy"
    assert failed_tests(output, copy) == [
        str(tmp_path / "tests/checks/test_x.py") + "::test_one[0.5-True]",
        str(tmp_path / "tests/checks/test_y.py"),
    ]
