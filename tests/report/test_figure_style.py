"""Figures draw every point with its full label, in one colour-blind-safe palette, with a legend of
the verdicts each comparison figure shows (and power rows drawn as what they are) and violations
drawn larger."""

from __future__ import annotations

import html
import itertools
import re

from dpaudit.report.comparison_svg import text_width
from dpaudit.report.figures import PALETTE, render_svg

VERDICTS = ("proven", "verified", "consistent", "inconclusive", "error", "violated")


def _comparison(rows):
    return {"kind": "comparison", "title": "t", "x_label": "measured / claimed", "y_label": "", "rows": rows}


def _row(index, verdict="verified"):
    label = f"obligation-{index}: a long quantity name that goes on for a while at delta={index}e-5 and beyond"
    return {"label": label, "claimed": 1.0, "measured": 0.5 + index / 200, "verdict": verdict, "safe": "below"}


def test_every_row_is_drawn_with_its_whole_label():
    rows = [_row(i) for i in range(60)]  # more than the 40 rows drawn before
    svg = render_svg(_comparison(rows))
    text = re.sub(r"<[^>]+>", " ", svg)
    for index in (0, 39, 59):
        assert f"obligation-{index}:" in text and f"delta={index}e-5" in text
    assert "not drawn" not in text


def test_one_palette_and_a_legend_of_the_verdicts_shown():
    svg = render_svg(_comparison([_row(0, "violated"), _row(1, "consistent")]))
    text = re.sub(r"<[^>]+>", " ", svg)
    legend = [verdict for verdict in VERDICTS if re.search(rf">{verdict}<", svg)]
    assert legend == ["consistent", "violated"], legend  # the verdicts the rows show, nothing else
    assert "power" not in text
    colours = {colour.upper() for colour in re.findall(r"#[0-9A-Fa-f]{6}", svg)}
    drawn = {colour for colour in colours if len({colour[1:3], colour[3:5], colour[5:7]}) > 1}  # greys aside
    assert drawn <= {colour.upper() for colour in PALETTE}, drawn
    assert "#CF222E" not in colours and "#1A7F37" not in colours  # no red/green pair


def test_series_figures_cycle_through_the_palette():
    figure = {
        "kind": "line",
        "title": "t",
        "x_label": "x",
        "y_label": "y",
        "series": [{"label": f"series {i}", "x": [0, 1], "y": [i, i + 1]} for i in range(3)],
    }
    svg = render_svg(figure).upper()
    assert all(colour.upper() in svg for colour in PALETTE[:3])


def test_wide_labels_and_long_titles_stay_inside_the_canvas():
    """The margins are sized from the text (no layout engine): every text lies inside the figure."""
    rows = [{**_row(i), "label": "W" * 40 + f" {i} " + "M" * 30} for i in range(3)]
    figure = {**_comparison(rows), "title": "a title " * 30, "x_label": "an x label " * 20}
    svg = render_svg(figure)
    width = float(re.search(r'<svg[^>]* width="([0-9.]+)pt"', svg).group(1))
    texts = re.findall(
        r'<text style="font-size: ([0-9.]+)px[^"]*text-anchor: (\w+)" transform="translate\(([-0-9.e]+) [^>]*>([^<]*)<',
        svg,
    )
    assert len(texts) > 10
    for size, anchor, x, text in texts:
        extent = text_width(html.unescape(text), float(size))
        start = float(x) - {"start": 0.0, "middle": extent / 2, "end": extent}[anchor]
        assert start >= 0 and start + extent <= width, (text, start, extent)


def test_a_comparison_takes_report_numbers_and_leaves_out_what_a_log_axis_cannot_show():
    rows = [
        {"label": "third", "claimed": "1/3", "measured": "1/6", "lower": "1/12", "upper": "inf", "verdict": "verified"},
        {"label": "zero", "claimed": 2, "measured": 0, "verdict": "consistent"},
        {"label": "negative", "claimed": 1, "measured": -3, "lower": -4, "upper": 5, "verdict": "violated"},
        {"label": "unbounded claim", "claimed": "inf", "measured": 1, "verdict": "inconclusive"},
    ]
    for scale in ("log", "linear"):
        svg = render_svg({**_comparison(rows), "x_scale": scale})
        text = re.sub(r"<[^>]+>", " ", svg)
        assert all(row["label"] in text for row in rows) and "nan" not in svg and "inf" not in svg.lower()


def test_a_log_comparison_labels_only_ticks_inside_its_range_and_survives_extreme_values():
    near = render_svg({**_comparison([{**_row(0), "measured": 0.9}, {**_row(1), "measured": 1.1}]), "x_scale": "log"})
    labels = re.findall(r"text-anchor: middle\" transform=\"translate\([^)]*\)\">([^<]*)<", near)
    assert "0.1" not in labels and "10" not in labels  # the axis spans about 0.89-1.12
    for claimed, measured in (("1e-300", 1e-5), (1, 5e-324), (1, 1e308), (1e-308, 1e308)):
        svg = render_svg({**_comparison([{**_row(0), "claimed": claimed, "measured": measured}]), "x_scale": "log"})
        assert "inf" not in svg.lower() and "nan" not in svg.lower()


def _translations(svg, anchor):
    pattern = rf'text-anchor: {anchor}" transform="translate\(([-0-9.e]+) ([-0-9.e]+)\)">'
    return [(float(x), float(y)) for x, y in re.findall(pattern, svg)]


def test_row_labels_that_wrap_narrower_than_usual_still_get_their_own_lines():
    """Wide letters wrap a label into more lines than its length suggests: the figure grows with them."""
    rows = [{**_row(i), "label": " ".join(["WWMMWWMM"] * 12) + f" {i}"} for i in range(8)]
    svg = render_svg(_comparison(rows))
    heights = sorted(y for _, y in _translations(svg, "end"))  # the row labels' lines
    assert len(heights) > 8 * 3
    assert min(b - a for a, b in itertools.pairwise(heights)) >= 9.5


def test_a_comparison_draws_its_reference_lines_and_y_label():
    figure = {
        **_comparison([_row(0), _row(1)]),
        "y_label": "obligations of the relation",
        "reference_lines": [{"axis": "x", "value": 3.0, "label": "the peer's bound"}],
    }
    svg = render_svg(figure)
    words = re.sub(r"<[^>]+>", " ", svg).split()
    assert {"peer&#x27;s", "bound", "obligations", "relation"} <= set(words)  # labels wrap to fit, whole
    rotated = re.findall(r'translate\(([-0-9.e]+) ([-0-9.e]+)\) rotate\(-90\)">([^<]*)<', svg)
    assert rotated and rotated[0][2].startswith("obligations")
    orange = [line for line in re.findall(r"<line [^>]*>", svg) if "#D55E00" in line]
    assert len(orange) == 2  # the line across the axes and its legend key
    height = float(re.search(r'<svg[^>]* height="([0-9.]+)pt"', svg).group(1))
    for _, centre, line in rotated:  # read bottom to top: each line inside the figure's height
        half = text_width(line, 9.0) / 2
        assert float(centre) - half >= 0 and float(centre) + half <= height


def test_a_comparison_refuses_a_reference_line_across_its_rows():
    import pytest

    from dpaudit.errors import InvalidArgument

    figure = {**_comparison([_row(0)]), "reference_lines": [{"axis": "y", "value": 1.0, "label": "?"}]}
    with pytest.raises(InvalidArgument, match="axis 'x'"):
        render_svg(figure)


def test_wide_y_tick_labels_and_the_y_label_of_a_series_figure_stay_inside_the_canvas():
    figure = {
        "kind": "line",
        "title": "t",
        "x_label": "x",
        "y_label": "a y label",
        "series": [{"label": "s", "x": [0, 1, 2], "y": [-0.000251, -0.000123, -0.0002]}],
    }
    svg = render_svg(figure)
    # matplotlib 3.8 (the floor) writes "font: 9px 'DejaVu Sans'", later ones "font-size: 9px; font-family: ..."
    texts = re.findall(r'font(?:-size)?: ([0-9.]+)px[^"]*text-anchor: (\w+)" x="([-0-9.e]+)"[^>]*>([^<]*)<', svg)
    ticks = [(float(x), html.unescape(text), float(size)) for size, anchor, x, text in texts if anchor == "end"]
    assert ticks and all(x - text_width(text, size) >= 0 for x, text, size in ticks), ticks
    (label_x,) = [float(x) for _, _, x, text in texts if text == "a y label"]
    assert label_x >= 5


def test_a_power_row_is_a_hollow_diamond_in_the_legend_as_power_never_a_verdict_mark():
    power = {**_row(1, "violated"), "label": "largest epsilon any event can certify", "role": "power"}
    svg = render_svg(_comparison([_row(0, "violated"), power]))
    assert re.findall(r">(violated|power)<", svg) == ["violated", "power"]
    crosses = re.findall(r'<polygon points="[^"]+" fill="#D55E00"', svg)  # the violated X: one row and its key
    assert len(crosses) == 2, crosses
    diamonds = re.findall(r'<polygon points="[^"]+" fill="#FFFFFF" stroke="#000000"', svg)
    assert len(diamonds) == 2, diamonds  # the power row and its legend key
    assert "certify (power)" in svg and "certify (safe" not in svg  # the check's reach has no safe side
