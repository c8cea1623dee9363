"""The summary's key number: the failing point of a violated grid, a privacy check before a conformance one."""

from __future__ import annotations

from dpaudit.report.summary import summary_table_rows


def _measurement(quantity, measured, claimed, margin, role=None):
    return {"quantity": quantity, "measured": measured, "claimed": claimed, "margin": margin, "role": role}


def _document(*obligations):
    items = [
        {"obligation": {"id": name}, "evidence": {"verdict": verdict, "details": details, "measurements": rows}}
        for name, verdict, details, rows in obligations
    ]
    return {"claims": [{"claim": {"id": "c"}, "relations": [{"relation": "r", "verdict": "x", "obligations": items}]}]}


def test_a_violated_grid_shows_its_failing_point_not_its_first():
    rows = [
        _measurement("epsilon at point 1", 0.045, 0.077, 0.032),
        _measurement("power", 9.0, 1.0, -8.0, role="power"),
        _measurement("epsilon at point 3", 14.846, 12.768, -2.078),
    ]
    (row,) = summary_table_rows(_document(("grid", "violated", {}, rows)))
    assert row.key_number == "14.846 vs 12.768 (epsilon at point 3)"
    (held,) = summary_table_rows(_document(("grid", "verified", {}, rows[:1])))
    assert held.key_number == "0.045 vs 0.077 (epsilon at point 1)"


def test_among_equal_verdicts_the_privacy_check_gives_the_key_number_not_the_conformance_one():
    law = [_measurement("smallest KS p-value", 0.13, 5e-4, 0.1)]
    conformance = ("law", "consistent", {"conformance": "matches"}, law)
    privacy = ("black-box", "consistent", {}, [_measurement("epsilon at delta=0.1", -0.106, 1.0, 1.106)])
    (row,) = summary_table_rows(_document(conformance, privacy))
    assert (row.obligation, row.key_number) == ("black-box", "-0.106 vs 1 (epsilon at delta=0.1)")


def test_among_equal_verdicts_a_check_that_measured_a_number_gives_it():
    """A spec naming only the randomness contract (no number) still shows the implied check's epsilon."""
    contract = ("randomness", "consistent", {}, [])
    implied = ("implied-privacy", "consistent", {}, [_measurement("epsilon at delta=0", 0.98, 1.0, 0.02)])
    (row,) = summary_table_rows(_document(contract, implied))
    assert (row.obligation, row.key_number) == ("implied-privacy", "0.98 vs 1 (epsilon at delta=0)")
