"""The HTML report reads in 30 seconds: numbers in the summary table (a few digits, every digit on
hover), power rows styled as the check's reach, a legend of the labels shown, known findings shown
as "known finding (pinned)", and the picture of a violated black-box obligation's event."""

from __future__ import annotations

import copy
import re

from dpaudit.report.figures import collect_figures
from dpaudit.report.html import render_html
from dpaudit.report.labels import KNOWN_PINNED, VERDICT_PROMISES

EPSILON_BOUND = 1.8244158995528847


def _item(verdict: str, measurements: list[dict], counterexample: dict | None = None, **extra) -> dict:
    return {
        "obligation": {"id": f"{verdict}-obligation", "statement": "s", "checker": "empirical_epsilon_lower_bound"},
        "evidence": {"verdict": verdict, "summary": "", "measurements": measurements, "counterexample": counterexample},
        **extra,
    }


def _document(*items: dict, only_known: bool = False) -> dict:
    verdict = "violated" if any(i["evidence"]["verdict"] == "violated" for i in items) else "consistent"
    relation = {
        "relation": "replace_one",
        "verdict": verdict,
        "only_known_findings": only_known,
        "obligations": list(items),
    }
    return {
        "tool": {"name": "dpaudit"},
        "claims": [{"claim": {"id": "c"}, "verdict": verdict, "relations": [relation]}],
    }


BOUND = {
    "quantity": "epsilon at delta=0.0",
    "claimed": 1.0,
    "measured": EPSILON_BOUND,
    "margin": 1.0 - EPSILON_BOUND,
    "interval": [EPSILON_BOUND, "inf"],
    "direction": "lower bound",
}
POWER = {
    "quantity": "largest epsilon any event can certify with this budget",
    "claimed": 1.0,
    "measured": 9.367459098675264,
    "margin": 8.367459098675264,
    "direction": "67500 certification draws per side",
    "role": "power",
}
PICTURE = {
    "axis": "y",
    "in_output_coordinates": True,
    "event": "y < 998.746",
    "region": [["-inf", 998.7455789847852]],
    "edges": [997.0, 998.0, 999.0, 1000.0, 1001.0, 1002.0],
    "counts": {"X": [10, 30, 400, 500, 60], "X'": [1, 4, 100, 495, 400]},
    "in_event": {"X": 40, "X'": 5},
    "draws": {"X": 1000, "X'": 1000},
    "draws_from": "pilot",
}
COUNTEREXAMPLE = {
    "pair": "f(X) = 1000, f(X') = 1001",
    "order": "X vs X'",
    "event": "y[0] < 998.7455789847852",
    "p_count": 2703,
    "q_count": 359,
    "samples": 67500,
    "event_histogram": PICTURE,
}


def test_the_summary_table_shows_the_key_number_rounded_with_every_digit_on_hover():
    page = render_html(_document(_item("violated", [BOUND, POWER], COUNTEREXAMPLE)))
    summary = page[page.index('id="summary"') : page.index("</nav>")]
    key = re.search(r'<span class="key" title="([^"]+)">([^<]+)</span>', summary)
    assert key is not None, summary
    assert key.group(2) == "1.8244 vs 1"
    assert repr(EPSILON_BOUND) in key.group(1) and "epsilon at delta=0.0" in key.group(1)


def test_measurement_numbers_are_short_with_the_full_value_in_their_title():
    page = render_html(_document(_item("violated", [BOUND], COUNTEREXAMPLE)))
    assert f'<span class="n" title="{EPSILON_BOUND!r}">1.8244</span>' in page
    assert f'<span class="n" title="[{EPSILON_BOUND!r}, inf]">[1.8244, inf]</span>' in page
    assert repr(EPSILON_BOUND) not in re.sub(r'title="[^"]*"', "", page.split('id="provenance"')[0])


def test_a_power_row_is_marked_as_power_and_its_margin_is_not_a_verdict_colour():
    page = render_html(_document(_item("violated", [BOUND, POWER], COUNTEREXAMPLE)))
    rows = re.findall(r"<tr( class=\"power\")?><td>([^<]+)", page)
    assert (' class="power"', POWER["quantity"]) in [(cls, text.strip()) for cls, text in rows]
    power_row = page[page.index('<tr class="power">') :].split("</tr>")[0]
    assert ">power</span>" in power_row and "pos" not in power_row and "neg" not in power_row
    assert "v-violated" not in power_row


def test_the_legend_lists_only_the_labels_shown():
    page = render_html(_document(_item("consistent", [BOUND])))
    legend = page[page.index('id="legend"') : page.index("</ul>", page.index('id="legend"'))]
    assert "consistent" in legend
    assert [label for label in VERDICT_PROMISES if f">{label}</span>" in legend] == ["consistent"]
    page = render_html(_document(_item("violated", [BOUND], COUNTEREXAMPLE), _item("error", [])))
    legend = page[page.index('id="legend"') : page.index("</ul>", page.index('id="legend"'))]
    assert [label for label in VERDICT_PROMISES if f">{label}</span>" in legend] == ["error", "violated"]


def test_a_pinned_known_finding_is_not_a_red_violated():
    known = _item("violated", [BOUND], COUNTEREXAMPLE, known_finding="Lemma 4 fails for small n")
    page = render_html(_document(known, _item("consistent", [BOUND]), only_known=True))
    badges = re.findall(r'<span class="badge v-([a-z-]+)">([^<]+)</span>', page)
    assert ("known", KNOWN_PINNED) in badges
    assert not [badge for badge in badges if badge[0] == "violated"], badges
    assert f"1 {KNOWN_PINNED}" in page  # the header counts it as what it is


def test_a_known_finding_that_changed_size_is_violated_again():
    changed = _item("violated", [BOUND], COUNTEREXAMPLE, known_finding="f", finding_changed="out of its pin")
    page = render_html(_document(changed, only_known=True))
    assert KNOWN_PINNED not in page
    assert '<span class="badge v-violated">violated</span>' in page


def test_a_violated_black_box_obligation_shows_its_two_output_distributions():
    document = _document(_item("violated", [BOUND, POWER], COUNTEREXAMPLE))
    figures = collect_figures(document)
    events = [figure for figure in figures if figure.obligation == 0]
    assert len(events) == 1 and events[0].svg is not None, events
    assert "X: 40 of 1000 in E" in events[0].svg and "X': 5 of 1000 in E" in events[0].svg
    assert "E: y &lt; 998.746" in events[0].svg
    assert "X: 2703 of 67500, X': 359 of 67500" in events[0].caption
    page = render_html(document, figures)
    assert "<strong>distinguishing event:</strong> <code>y &lt; 998.746</code>" in page
    assert "chosen as <code>y[0] &lt; 998.7455789847852</code>" in page
    assert "event_histogram" not in page  # drawn, not dumped as JSON


def test_no_event_figure_without_a_violation_or_without_its_histogram():
    consistent = _item("consistent", [BOUND], copy.deepcopy(COUNTEREXAMPLE))
    bare = {key: value for key, value in COUNTEREXAMPLE.items() if key != "event_histogram"}
    broken = {**COUNTEREXAMPLE, "event_histogram": {**PICTURE, "counts": {"X": [1, 2]}}}
    no_draws = {**COUNTEREXAMPLE, "event_histogram": {**PICTURE, "draws": {"X": "nan", "X'": 1000}}}
    items = [consistent, *(_item("violated", [BOUND], c) for c in (bare, broken, no_draws, "text"))]
    for item in items:
        assert [figure for figure in collect_figures(_document(item)) if figure.obligation is not None] == []


def test_explain_reads_the_event_in_the_outputs_coordinates():
    from dpaudit.report.explain_report import explain_report

    text = explain_report(_document(_item("violated", [BOUND], COUNTEREXAMPLE)))
    assert "event: y < 998.746 (chosen as y[0] < 998.7455789847852)" in text
    bare = {key: value for key, value in COUNTEREXAMPLE.items() if key != "event_histogram"}
    assert "event: y[0] < 998.7455789847852\n" in explain_report(_document(_item("violated", [BOUND], bare))) + "\n"


def test_a_counterexample_that_is_not_a_dict_and_witness_floats_render():
    page = render_html(_document(_item("violated", [BOUND], "a bare witness string")))
    assert "a bare witness string" in page
    witness = {**COUNTEREXAMPLE, "p_lower": 0.03800985439905739}
    page = render_html(_document(_item("violated", [BOUND], witness)))
    assert '<code class="n" title="0.03800985439905739">0.03801</code>' in page
    from dpaudit.report.markdown import render_markdown

    text = render_markdown(_document(_item("violated", [BOUND], witness)))
    assert "0.03800985439905739" in text and "a bare witness string" in render_markdown(
        _document(_item("violated", [BOUND], "a bare witness string"))
    )


def test_a_verified_under_assumption_says_so_in_every_summary_table():
    """A verified obligation whose certificate names the reduction it rests on: the CLI's, the Markdown's
    and the HTML's summary tables all say "under assumption" (the CLI and HTML ones said plain verified)."""
    from types import SimpleNamespace

    from dpaudit.cli.common import summary_table
    from dpaudit.report.markdown import render_markdown

    def document(certificate):
        item = _item("verified", [])
        item["evidence"]["certificate"] = certificate
        built = _document(item)
        built["claims"][0]["verdict"] = built["claims"][0]["relations"][0]["verdict"] = "verified"
        return built

    def html_summary(built):
        return re.search(r'<nav class="summary".*?</nav>', render_html(built), re.S).group(0)

    assumed = document({"assumption": "the worst pair lies on the searched grid"})
    assert "under assumption" in html_summary(assumed)
    assert "(under assumption)" in render_markdown(assumed)

    def cli_table(built):
        return summary_table(SimpleNamespace(to_json=lambda: built, verdict_counts=dict, claims=[]))

    assert "verified (under assumption)" in cli_table(assumed)
    plain = document({})
    assert "under assumption" not in html_summary(plain)
    assert "under assumption" not in cli_table(plain)


def test_the_html_summary_reads_a_violated_obligation_by_the_number_the_other_summaries_do():
    """balle2016-smooth-bounds: its first measurement is sympy's step count (3, no claim), its failing one
    1.8284 against 0; the HTML summary showed "3 vs —" where the CLI and Markdown show 1.8284 vs 0."""
    from dpaudit.report.summary import summary_table_rows

    steps = {"quantity": "sympy steps", "claimed": None, "measured": 3, "margin": None}
    excess = {"quantity": "excess of phi_k", "claimed": 0.0, "measured": 1.8284, "margin": -1.8284}
    document = _document(_item("violated", [steps, excess]))
    summary = re.search(r'<nav class="summary".*?</nav>', render_html(document), re.S).group(0)
    assert "1.8284 vs 0" in summary and "3 vs" not in summary
    assert summary_table_rows(document)[0].key_number.startswith("1.8284 vs 0")
