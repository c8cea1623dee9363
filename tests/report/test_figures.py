"""The figure-data convention, default figures, and deterministic, inert SVG."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
from concurrent.futures import Future

import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.report.figure_checks import MAX_POINTS, check_figure
from dpaudit.report.figures import comparison_figure, render_svg
from tests.report.synthetic import HOSTILE_IMG, HOSTILE_SCRIPT

LINE = {
    "kind": "line",
    "title": "delta(epsilon) " + HOSTILE_SCRIPT + " $x$",
    "x_label": "epsilon",
    "y_label": "delta",
    "series": [
        {
            "label": "exact " + HOSTILE_IMG,
            "x": [0, 1, 2],
            "y": [0.5, "1/4", "0.125"],
            "lower": [0.4, 0.2, None],
            "upper": [0.6, 0.3, None],
        }
    ],
    "reference_lines": [{"axis": "y", "value": 0.1, "label": "claimed"}],
}
NASTY = [0.0, -0.0, 5e-324, 1 - 2**-53, "nan", "inf", "-inf", 1e308]

VALID = [
    LINE,
    {"kind": "scatter", "title": "t", "series": [{"label": "s", "x": NASTY, "y": NASTY}]},
    {
        "kind": "scatter",
        "title": "t",
        "x_scale": "log",
        "y_scale": "log",
        "series": [
            {"label": "s", "x": [1, 10], "y": [1, 100]},
            {"label": "b", "x": [1, 10], "y": [2, 2], "role": "bound"},
        ],
    },
    {"kind": "histogram", "title": "t", "series": [{"label": "h", "x": [0, 1, 2.5], "y": [3, 0]}]},
    {"kind": "comparison", "title": "t", "rows": [{"label": "r", "claimed": 1, "measured": 0.5, "safe": "below"}]},
    {"kind": "line", "title": "", "series": [{"label": "", "x": [0.0], "y": [-0.0]}]},
]

INVALID = [
    ("not a dict", [LINE], InvalidType),
    ("unknown kind", {"kind": "pie", "title": "t"}, InvalidArgument),
    ("no title", {"kind": "line", "series": [{"label": "", "x": [1], "y": [1]}]}, InvalidArgument),
    ("title not text", {"kind": "line", "title": 3, "series": [{"label": "", "x": [1], "y": [1]}]}, InvalidType),
    ("no series", {"kind": "line", "title": "t", "series": []}, InvalidType),
    (
        "lengths differ",
        {"kind": "line", "title": "t", "series": [{"label": "", "x": [1, 2], "y": [1]}]},
        InvalidArgument,
    ),
    ("empty y", {"kind": "line", "title": "t", "series": [{"label": "", "x": [], "y": []}]}, InvalidArgument),
    ("text in y", {"kind": "line", "title": "t", "series": [{"label": "", "x": [1], "y": ["one"]}]}, InvalidType),
    ("bool in y", {"kind": "line", "title": "t", "series": [{"label": "", "x": [1], "y": [True]}]}, InvalidType),
    (
        "histogram edges",
        {"kind": "histogram", "title": "t", "series": [{"label": "", "x": [0, 1], "y": [1, 2]}]},
        InvalidArgument,
    ),
    (
        "edges not increasing",
        {"kind": "histogram", "title": "t", "series": [{"label": "", "x": [0, 0, 1], "y": [1, 2]}]},
        InvalidArgument,
    ),
    (
        "nan edge",
        {"kind": "histogram", "title": "t", "series": [{"label": "", "x": [0, "nan"], "y": [1]}]},
        InvalidArgument,
    ),
    (
        "bad role",
        {"kind": "line", "title": "t", "series": [{"label": "", "x": [1], "y": [1], "role": "x"}]},
        InvalidArgument,
    ),
    ("bad scale", {**LINE, "x_scale": "symlog"}, InvalidArgument),
    ("unknown key", {**LINE, "colour": "red"}, InvalidArgument),
    (
        "lower length",
        {"kind": "line", "title": "t", "series": [{"label": "", "x": [1], "y": [1], "lower": []}]},
        InvalidArgument,
    ),
    (
        "too many points",
        {
            "kind": "line",
            "title": "t",
            "series": [{"label": "", "x": [0] * (MAX_POINTS + 1), "y": [0] * (MAX_POINTS + 1)}],
        },
        InvalidArgument,
    ),
    ("reference line", {**LINE, "reference_lines": [{"axis": "z", "value": 1}]}, InvalidArgument),
    ("comparison rows", {"kind": "comparison", "title": "t", "rows": []}, InvalidType),
    ("comparison measured", {"kind": "comparison", "title": "t", "rows": [{"label": "", "claimed": 1}]}, InvalidType),
    (
        "comparison side",
        {"kind": "comparison", "title": "t", "rows": [{"label": "", "claimed": 1, "measured": 1, "safe": "left"}]},
        InvalidArgument,
    ),
]


@pytest.mark.parametrize("figure", VALID)
def test_valid_figures_pass_and_render(figure):
    check_figure(figure)
    svg = render_svg(copy.deepcopy(figure))
    assert svg.startswith("<svg") and ET.fromstring(svg) is not None


@pytest.mark.parametrize(("name", "figure", "error"), INVALID, ids=[row[0] for row in INVALID])
def test_invalid_figures_are_refused_with_the_field_named(name, figure, error):
    with pytest.raises(error, match="figure"):
        check_figure(figure)


def test_same_data_gives_the_same_bytes():
    first = render_svg(json.loads(json.dumps(LINE)))
    second = render_svg(json.loads(json.dumps(LINE)))
    assert first == second
    assert "Date" not in first and "<dc:date>" not in first


def test_user_text_is_escaped_and_the_svg_is_inert():
    svg = render_svg(LINE)
    root = ET.fromstring(svg)
    texts = "".join(element.text or "" for element in root.iter())
    assert HOSTILE_SCRIPT in texts and HOSTILE_IMG in texts and "$x$" in texts
    tags = {element.tag.rsplit("}", 1)[-1] for element in root.iter()}
    assert not tags & {"script", "foreignObject", "image", "img", "iframe"}
    assert "<script" not in svg and "<img" not in svg
    attributes = [name for element in root.iter() for name in element.attrib]
    assert not [name for name in attributes if name.rsplit("}", 1)[-1].startswith("on")]


@pytest.mark.parametrize(
    ("claimed", "measured", "margin", "side"),
    [
        (1e-5, 9.9e-6, 1e-7, "below"),
        (4.38, 2.8, 1.58, "below"),
        (0.5, 0.7, 0.2, "above"),
        (0.5, 0.4, -0.1, "above"),
        (1.0, 1.0, 0.0, "below"),
        (1.0, 0.5, None, "below"),
    ],
)
def test_comparison_reads_the_safe_side_from_the_margin(claimed, measured, margin, side):
    relation = {
        "obligations": [
            {
                "obligation": {"id": "o"},
                "evidence": {
                    "verdict": "verified",
                    "measurements": [
                        {
                            "quantity": "q",
                            "claimed": claimed,
                            "measured": measured,
                            "margin": margin,
                            "direction": "exact",
                        }
                    ],
                },
            }
        ]
    }
    figure = comparison_figure("t", relation)
    assert figure["rows"][0]["safe"] == side
    check_figure(figure)


def test_comparison_skips_what_is_not_a_pair_of_numbers():
    measurements = [
        {"quantity": "list", "claimed": [1, 2], "measured": [1, 2]},
        {"quantity": "zero claim", "claimed": 0, "measured": 0.1},
        {"quantity": "nan", "claimed": 1.0, "measured": "nan"},
        {"quantity": "text", "claimed": "a", "measured": 1},
    ]
    relation = {"obligations": [{"obligation": {"id": "o"}, "evidence": {"measurements": measurements}}]}
    assert comparison_figure("t", relation) is None
    measurements.append({"quantity": "ok", "claimed": "1/2", "measured": "0.25", "interval": ["0.2", "0.3"]})
    rows = comparison_figure("t", relation)["rows"]
    assert [(row["label"], row["lower"], row["upper"]) for row in rows] == [("o: ok", 0.2, 0.3)]


def test_collect_figures_places_every_figure_and_reports_broken_ones(every_verdict_document, every_verdict_figures):
    placed = every_verdict_figures
    broken = [figure for figure in placed if figure.svg is None]
    assert broken and all("kind" in figure.problem for figure in broken)
    names = [figure.file_name for figure in placed]
    assert len(names) == len(set(names))
    assert all(name.endswith(".svg") and set(name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-.") for name in names)
    defaults = [figure for figure in placed if figure.obligation is None]
    relations = sum(len(result["relations"]) for result in every_verdict_document["claims"])
    assert len(defaults) == relations


def test_figures_drawn_on_several_cores_are_the_bytes_drawn_in_process(every_verdict_document, monkeypatch):
    import dpaudit.report.figures as figures

    document = {"claims": every_verdict_document["claims"] * 3}  # enough figures for the pool
    parallel = figures.collect_figures(document)
    drawn_by_matplotlib = [f for f in parallel if f.obligation is not None and f.svg is not None]
    assert len(drawn_by_matplotlib) >= figures._PARALLEL_FROM  # the pool drew them
    monkeypatch.setattr(figures, "_PARALLEL_FROM", 10**9)
    serial = figures.collect_figures(document)
    assert [(f.file_name, f.svg, f.problem) for f in parallel] == [(f.file_name, f.svg, f.problem) for f in serial]


def test_log_axes_are_labelled_in_plain_text():
    figure = {
        "kind": "line",
        "title": "t",
        "x_scale": "log",
        "y_scale": "log",
        "series": [{"label": "s", "x": [1e-6, 1e-3, 1.0], "y": [1e-5, 1e-2, 1.0]}],
    }
    svg = render_svg(figure)
    assert "1e-05" in svg or "1e-06" in svg


def test_figures_drawn_while_the_audit_runs_are_the_bytes_drawn_after_it(every_verdict_document, every_verdict_figures):
    from dpaudit.report.background_figures import FigureDrawer
    from dpaudit.report.figures import collect_figures

    with FigureDrawer() as drawer:
        for claim in every_verdict_document["claims"]:
            drawer.add(claim)
    early = collect_figures(every_verdict_document, drawer.drawn)
    assert [(f.file_name, f.svg, f.problem) for f in early] == [
        (f.file_name, f.svg, f.problem) for f in every_verdict_figures
    ]  # a broken figure's problem too
    held = [
        figure
        for claim in every_verdict_document["claims"]
        for relation in claim["relations"]
        for item in relation["obligations"]
        for figure in (item["evidence"].get("details") or {}).get("figures", [])
    ]
    assert held and all(drawer.drawn(figure) is not None for figure in held)
    assert all(drawer.drawn(copy.deepcopy(figure)) is None for figure in held)  # equal data is drawn afresh
    drawer.add({"relations": [{"obligations": [{"evidence": {"details": {"figures": [LINE]}}}]}]})
    assert drawer.drawn(LINE) is None  # nothing is started once the drawer is closed


def test_a_figure_drawn_early_is_used_only_for_that_figure():
    import dpaudit.report.figures as figures

    document = {"claims": [{"relations": [{"obligations": [{"evidence": {"details": {"figures": [LINE]}}}]}]}]}
    stale: Future[str] = Future()
    stale.set_result("<svg>stale</svg>")
    other = copy.deepcopy(LINE)
    (placed,) = [
        f for f in figures.collect_figures(document, lambda f: stale if f is other else None) if f.obligation == 0
    ]
    assert placed.svg == render_svg(LINE)
    (placed,) = [
        f for f in figures.collect_figures(document, lambda f: stale if f is LINE else None) if f.obligation == 0
    ]
    assert placed.svg == "<svg>stale</svg>"
