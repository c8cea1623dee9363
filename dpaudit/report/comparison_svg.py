"""The comparison figure (measured / claimed per row) drawn straight to SVG.

Most figures of a report are comparisons, and matplotlib spends about 50 ms on each (tick
objects, text layout, the SVG backend); this module writes the same picture (the rows' points
and enclosures against the dashed line at 1, on a linear or logarithmic axis, any reference
lines, the legend of the verdicts shown, the axis labels) in about a millisecond, with the same palette,
markers and DejaVu Sans text. Every text is XML-escaped; the output has no ids, scripts or
external references, and the same figure gives the same bytes.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from html import escape
from typing import Any

from dpaudit.report.figure_checks import _float as number

__all__ = ["LABEL_WIDTH", "comparison_label", "comparison_svg"]

#: Row labels wrap at this many characters.
LABEL_WIDTH = 56
_WIDTH = 504.0  # points (7 inches)
_TICK_FONT = 8.0
_LABEL_FONT = 9.0
_TITLE_FONT = 10.0
_LEGEND_WIDTH = 86.0
_FAR = 1e300  # the axis ends are kept within [1/_FAR, _FAR] (log) or [-_FAR, _FAR]
#: Advance widths of DejaVu Sans in thousandths of an em (ASCII; other characters count as 0.84 em).
# fmt: off
_ADVANCE = dict(
    zip(
        " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
        (
            318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636,
            636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775,
            752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390,
            337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
            635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
        ),
        strict=True,
    )
)
# fmt: on


def text_width(text: str, size: float) -> float:
    """The width of ``text`` in points at ``size`` points (DejaVu Sans advances, no kerning)."""
    return sum(_ADVANCE.get(character, 838) for character in text) * size / 1000


def comparison_label(row: dict[str, Any], width: int = LABEL_WIDTH) -> str:
    """A row's label with its safe side (a power row: ``(power)``, it has none), wrapped at ``width``
    characters."""
    if row.get("role") == "power":
        return textwrap.fill(f"{row['label']} (power)", width)
    side = "≤" if row.get("safe", "below") == "below" else "≥"
    return textwrap.fill(f"{row['label']} (safe {side} 1)", width)


def _fitted(text: str, size: float, room: float, characters: int, lines: int | None = None) -> list[str]:
    """``text`` wrapped at ``characters`` or fewer, so that every line is at most ``room`` points wide."""
    while True:
        wrapped = textwrap.wrap(text, characters)[:lines] if text else []
        if characters <= 8 or all(text_width(line, size) <= room for line in wrapped):
            return wrapped
        characters -= 4


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


def _text(x: float, y: float, text: str, size: float, anchor: str = "start", extra: str = "") -> str:
    return (
        f"<text style=\"font-size: {_number(size)}px; font-family: 'DejaVu Sans'; text-anchor: {anchor}\""
        f' transform="translate({_number(x)} {_number(y)}){extra}">{escape(text)}</text>'
    )


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: float, extra: str = "") -> str:
    ends = f'x1="{_number(x1)}" y1="{_number(y1)}" x2="{_number(x2)}" y2="{_number(y2)}"'
    return f'<line {ends} stroke="{stroke}" stroke-width="{_number(width)}"{extra}/>'


def _marker(shape: str, x: float, y: float, size: float, fill: str, edge: str) -> str:
    """A marker of ``size`` points across, centred at (x, y), in matplotlib's shapes."""
    r = size / 2
    style = f'fill="{fill}" stroke="{edge}" stroke-width="{"1" if edge != fill else "0.5"}"'
    if shape == "o":
        return f'<circle cx="{_number(x)}" cy="{_number(y)}" r="{_number(r)}" {style}/>'
    if shape == ".":
        return f'<circle cx="{_number(x)}" cy="{_number(y)}" r="{_number(r / 2.5)}" {style}/>'
    if shape == "s":
        points = [(-r, -r), (r, -r), (r, r), (-r, r)]
    elif shape == "D":
        points = [(0, -r), (r, 0), (0, r), (-r, 0)]
    elif shape == "^":
        points = [(0, -r), (r, r), (-r, r)]
    elif shape == "v":
        points = [(-r, -r), (r, -r), (0, r)]
    else:  # "X": a filled cross
        a, b = r, r / 3
        points = [(-a, -a + b), (-a + b, -a), (0, -b), (a - b, -a), (a, -a + b), (b, 0)]
        points += [(a, a - b), (a - b, a), (0, b), (-a + b, a), (-a, a - b), (-b, 0)]
    path = " ".join(f"{_number(x + dx)},{_number(y + dy)}" for dx, dy in points)
    return f'<polygon points="{path}" {style}/>'


def _ticks(low: float, high: float, log: bool, room: float) -> list[float]:
    """Tick positions covering [low, high] whose labels fit side by side in ``room`` points:
    decades (every k-th) on a log axis, 1-2-2.5-5 steps on a linear one."""
    if log:
        first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
        fits = max(2, int(room / (text_width(f"{10.0**first:g}", _LABEL_FONT) + 12)))
        step = max(1, math.ceil((last - first + 1) / fits))
        inside = [10.0**k for k in range(first, last + 1, step) if low <= 10.0**k <= high]
        return inside or [low, high]
    widest = max(text_width(f"{value:g}", _LABEL_FONT) for value in (low, high, (high - low) / 7))
    fits = max(2, int(room / (widest + 12)))
    raw = (high - low) / fits or 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [k * step for k in range(math.ceil(low / step), math.floor(high / step) + 1)]


#: How a row of role ``power`` (what the budget could have detected) is drawn: a hollow diamond,
#: never a verdict's marker, and its name in the legend.
POWER_STYLE = ("#000000", "D")
POWER_LABEL = "power"


def _legend(rows: list[dict[str, Any]], styles: dict[str, tuple[str, str]]) -> list[tuple[str, tuple[str, str]]]:
    """The legend's entries: the verdicts the rows show (in the styles' order), then power if shown."""
    shown = {str(row.get("verdict", "")) for row in rows if row.get("role") != "power"}
    entries = [(verdict, style) for verdict, style in styles.items() if verdict in shown]
    if any(row.get("role") == "power" for row in rows):
        entries.append((POWER_LABEL, POWER_STYLE))
    return entries


@dataclass(frozen=True)
class _Axes:
    """The plotting box in points (``left``/``right``, ``top``/``bottom``), its x range [``low``, ``high``]
    on a logarithmic or linear scale, and the number of rows stacked in it."""

    left: float
    right: float
    top: float
    bottom: float
    low: float
    high: float
    log: bool
    rows: int

    def x_of(self, value: float) -> float:
        """The x in points of ``value``, held just inside the box when it falls outside the range."""
        low, high = self.low, self.high
        if self.log:
            share = (math.log10(max(value, low)) - math.log10(low)) / (math.log10(high) - math.log10(low))
        else:
            share = (value - low) / (high - low)
        return self.left + min(max(share, -0.02), 1.02) * (self.right - self.left)

    def y_of(self, position: int) -> float:
        """The y in points of row ``position`` (the first row at the top, as the labels read)."""
        return self.top + (position + 0.5) * (self.bottom - self.top) / self.rows

    def shows(self, value: float) -> bool:
        """Whether ``value`` can be placed on the axis: finite, and positive on a log axis."""
        return math.isfinite(value) and (value > 0 or not self.log)


def _ratios(rows: list[dict[str, Any]]) -> tuple[list[float], list[tuple[float, float] | None]]:
    """Every row's measured / claimed (NaN when nothing is claimed) and the ends of its enclosure
    over the claimed value (``None`` when the row has none or an end is not finite)."""
    ratios: list[float] = []
    ends: list[tuple[float, float] | None] = []
    for row in rows:
        claimed = number(row["claimed"])  # JSON numbers or report number strings ("1/3", "inf")
        ratios.append(number(row["measured"]) / claimed if claimed else math.nan)
        if "lower" in row and "upper" in row and claimed:
            first, second = sorted((number(row["lower"]) / claimed, number(row["upper"]) / claimed))
            ends.append((first, second) if math.isfinite(first) and math.isfinite(second) else None)
        else:
            ends.append(None)
    return ratios, ends


def _x_range(
    figure: dict[str, Any], ratios: list[float], ends: list[tuple[float, float] | None], marked: list[float]
) -> tuple[float, float, bool]:
    """The x range holding 1, the ratios, the enclosures and the ``marked`` reference values with a
    margin, and whether it is logarithmic (asked for, or positive ratios spanning more than 50x)."""
    finite = [r for r in ratios if math.isfinite(r)]
    log = figure.get("x_scale") == "log" or bool(
        finite and min(finite) > 0 and max([*finite, 1.0]) / min([*finite, 1.0]) > 50
    )
    drawn = [value for value in (*finite, *marked, *(e for pair in ends if pair for e in pair)) if value > 0 or not log]
    drawn = [min(max(value, -_FAR), _FAR) for value in drawn]  # the axis stays finite: far points sit at its end
    low, high = min([1.0, *drawn]), max([1.0, *drawn])
    if log:
        low, high = max(low, 1 / _FAR), min(high, _FAR)
        margin = 10 ** (0.05 * max(math.log10(high / low), 1))
        low, high = max(low / margin, 1 / _FAR), min(high * margin, _FAR)
    else:
        pad = 0.05 * (high - low) or 0.5
        low, high = low - pad, high + pad
    return low, high, log


_GREY = "#B0B0B0"
_ORANGE = "#D55E00"


def _grid(axes: _Axes, labels: list[list[str]]) -> list[str]:
    """The x ticks with their grid lines and labels, then each row's grid line, tick and wrapped label."""
    parts = []
    for tick in _ticks(axes.low, axes.high, axes.log, axes.right - axes.left):
        x = axes.x_of(tick)
        parts.append(_line(x, axes.top, x, axes.bottom, _GREY, 0.4))
        parts.append(_line(x, axes.bottom, x, axes.bottom + 3.5, "#000000", 0.8))
        parts.append(_text(x, axes.bottom + 13, f"{tick:g}", _LABEL_FONT, "middle"))
    for position, lines in enumerate(labels):
        y = axes.y_of(position)
        parts.append(_line(axes.left, y, axes.right, y, _GREY, 0.4))
        parts.append(_line(axes.left - 3.5, y, axes.left, y, "#000000", 0.8))
        first_line = y + 3 - 4.9 * (len(lines) - 1)
        parts.extend(
            _text(axes.left - 7, first_line + 9.8 * k, line, _TICK_FONT, "end") for k, line in enumerate(lines)
        )
    return parts


def _points(
    axes: _Axes,
    rows: list[dict[str, Any]],
    ratios: list[float],
    ends: list[tuple[float, float] | None],
    references: list[tuple[float, list[str]]],
    styles: dict[str, tuple[str, str]],
    other: tuple[str, str],
) -> list[str]:
    """The dashed line at 1, the reference lines, and each row's enclosure and marker (larger and
    black-edged for a violation, hollow for power), ending with the frame of the axes."""
    one = axes.x_of(1.0)
    parts = [_line(one, axes.top, one, axes.bottom, "#000000", 1, ' stroke-dasharray="3.7,1.6"')]
    for value, _ in references:
        if axes.shows(value):
            x = axes.x_of(value)
            parts.append(_line(x, axes.top, x, axes.bottom, _ORANGE, 1.2, ' stroke-dasharray="1.2,2"'))
    for position, (row, ratio, pair) in enumerate(zip(rows, ratios, ends, strict=True)):
        power = row.get("role") == "power"
        colour, shape = POWER_STYLE if power else styles.get(str(row.get("verdict", "")), other)
        y = axes.y_of(position)
        if pair is not None:
            parts.append(_line(axes.x_of(pair[0]), y, axes.x_of(pair[1]), y, colour, 3, ' stroke-opacity="0.6"'))
        if axes.shows(ratio):
            violated = row.get("verdict") == "violated" and not power
            fill = "#FFFFFF" if power else colour
            edge = "#000000" if violated else colour
            parts.append(_marker(shape, axes.x_of(ratio), y, 9 if violated else 6, fill, edge))
    parts.append(
        f'<rect x="{_number(axes.left)}" y="{_number(axes.top)}" width="{_number(axes.right - axes.left)}" '
        f'height="{_number(axes.bottom - axes.top)}" fill="none" stroke="#000000" stroke-width="0.8"/>'
    )
    return parts


def _legend_parts(
    axes: _Axes, legend: list[tuple[str, tuple[str, str]]], references: list[tuple[float, list[str]]]
) -> list[str]:
    """The legend right of the axes: a marker and name per entry, then each reference line's label."""
    parts = []
    right = axes.right
    for k, (name, (colour, shape)) in enumerate(legend):
        y = axes.top + 8 + 12 * k
        parts.append(_marker(shape, right + 12, y, 6, "#FFFFFF" if name == POWER_LABEL else colour, colour))
        parts.append(_text(right + 21, y + 3, name, _TICK_FONT))
    y = axes.top + 8 + 12 * len(legend)
    for _, lines in references:  # each reference line's label under the verdicts
        parts.append(_line(right + 6, y, right + 18, y, _ORANGE, 1.2, ' stroke-dasharray="1.2,2"'))
        parts.extend(_text(right + 21, y + 3 + 12 * k, line, _TICK_FONT) for k, line in enumerate(lines))
        y += 12 * max(len(lines), 1)
    return parts


def _titles(axes: _Axes, title: list[str], x_label: list[str], y_label: list[str]) -> list[str]:
    """The y label (read bottom to top, left of the row labels), the title, and the x label centred
    under the axes (moved in if it would leave the figure)."""
    parts = []
    for k, line in enumerate(y_label):
        parts.append(_text(12 + 12 * k, (axes.top + axes.bottom) / 2, line, _LABEL_FONT, "middle", " rotate(-90)"))
    parts.extend(_text(_WIDTH / 2, 15 + 13.7 * k, line, _TITLE_FONT, "middle") for k, line in enumerate(title))
    for k, line in enumerate(x_label):
        half = text_width(line, _LABEL_FONT) / 2
        centre = min(max((axes.left + axes.right) / 2, half + 5), _WIDTH - half - 5)
        parts.append(_text(centre, axes.bottom + 27 + 12.2 * k, line, _LABEL_FONT, "middle"))
    return parts


def comparison_svg(figure: dict[str, Any], styles: dict[str, tuple[str, str]], other: tuple[str, str]) -> str:
    """Draw a ``comparison`` figure (already checked); ``styles`` maps a verdict to (colour, marker).

    The height follows the text: every row gets the lines its label wraps into, the title and the
    axis label theirs, and the legend (the verdicts the rows show, power when a row states what the
    budget could detect, then any reference lines) fits beside the axes.
    """
    rows = figure["rows"]
    title = _fitted(figure["title"], _TITLE_FONT, _WIDTH - 10, 100, 3)
    labels = [_fitted(comparison_label(row, 10**6), _TICK_FONT, 0.5 * _WIDTH, LABEL_WIDTH) for row in rows]
    references = [
        (number(line["value"]), _fitted(line.get("label", ""), _TICK_FONT, _LEGEND_WIDTH - 26, 24, 3))
        for line in figure.get("reference_lines", [])
    ]
    x_label = _fitted(figure.get("x_label", ""), _LABEL_FONT, _WIDTH - 10, 80, 3)
    legend = _legend(rows, styles)
    legend_lines = len(legend) + sum(max(len(lines), 1) for _, lines in references)
    label_lines = sum(max(len(lines), 1) for lines in labels)
    top = 9 + 13.7 * max(len(title), 1)
    plot = max(50 + 11.52 * label_lines + 8.64 * len(rows), 16 + 12 * legend_lines)
    bottom = top + plot
    height = bottom + 30 + 12.2 * len(x_label)
    y_label = _fitted(figure.get("y_label", ""), _LABEL_FONT, plot, 60, 2)
    widest = max((text_width(line, _TICK_FONT) for lines in labels for line in lines), default=0.0)
    left, right = 18 + 12 * len(y_label) + widest, _WIDTH - _LEGEND_WIDTH
    ratios, ends = _ratios(rows)
    marked = [value for value, _ in references if math.isfinite(value)]
    axes = _Axes(left, right, top, bottom, *_x_range(figure, ratios, ends, marked), len(rows))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_number(_WIDTH)}pt" height="{_number(height)}pt"'
        f' viewBox="0 0 {_number(_WIDTH)} {_number(height)}" version="1.1">',
        f'<rect x="0" y="0" width="{_number(_WIDTH)}" height="{_number(height)}" fill="#FFFFFF"/>',
    ]
    parts += _grid(axes, labels)
    parts += _points(axes, rows, ratios, ends, references, styles, other)
    parts += _legend_parts(axes, legend, references)
    parts += _titles(axes, title, x_label, y_label)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
