"""A fast subset of the self-mutation suite in CI (the whole: python -m tests.self_mutation.run)."""

import pytest

from tests.self_mutation.defects import DEFECTS
from tests.self_mutation.run import ROOT, run_defect

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
