"""Figures of a report: the figure-data convention, default figures, deterministic SVG.

A checker attaches figures to its evidence as plain JSON data in
``evidence.details["figures"]``, a list of figure dicts. Renderers never see Python
objects, only this data, so an old ``audit.json`` re-renders to the same pictures.

The convention (checked by :func:`check_figure`)::

    {
      "kind": "line" | "scatter" | "histogram" | "comparison",
      "title": str,
      "x_label": str, "y_label": str,          # optional, default ""
      "x_scale": "linear" | "log",              # optional, default "linear"; same for y_scale
      "caption": str,                           # optional, shown under the figure
      "series": [                               # line, scatter, histogram
        {"label": str, "x": [...], "y": [...],
         "lower": [...], "upper": [...],        # optional, same length as y: an interval per point
         "role": "data" | "bound"}              # optional; "bound" draws a dashed reference curve
      ],
      "reference_lines": [                      # optional: constant bounds (a comparison:
        {"axis": "x" | "y", "value": number, "label": str}   # axis "x", in measured / claimed)
      ],
      "regions": [                              # optional, not for a comparison: shaded x ranges
        {"axis": "x", "low": number, "high": number, "label": str}   # (an event; ends may be infinite)
      ],
      "rows": [                                 # comparison only: claimed vs measured
        {"label": str, "claimed": number, "measured": number,
         "lower": number, "upper": number,      # optional enclosure of measured
         "verdict": str, "safe": "below" | "above",   # optional; safe side of the claim
         "role": "power"}                       # optional: what the budget could see, not a verdict
      ]
    }

Numbers may be JSON numbers or report number strings (``"9.87e-6"``, ``"1/3"``,
``"inf"``); non-finite points are left out of the drawing. ``line`` draws each series
as a curve with a shaded band between ``lower`` and ``upper`` (e.g. δ(ε) claimed vs
exact with its error enclosure, accountant curves); ``scatter`` draws points with
error bars and ``role: "bound"`` series as lines (e.g. local sensitivity of every
enumerated dataset against the claimed bound); ``histogram`` takes ``x`` as the
``len(y) + 1`` bin edges and ``y`` as the bar heights (e.g. a privacy-loss histogram,
with ``reference_lines`` at ±ε); ``comparison`` plots measured / claimed per row with
its interval against the line 1. At most :data:`MAX_POINTS` points per series; keep
series to a few hundred points so that reports stay small. Comparisons (most figures of a
report) are written straight to SVG by :mod:`dpaudit.report.comparison_svg`; the other kinds
are drawn with matplotlib.

References:
    matplotlib SVG backend, ``svg.hashsalt`` and ``metadata={"Date": None}`` for
    reproducible output.
"""

from __future__ import annotations

import hashlib
import io
import math
import multiprocessing
import os
import re
import signal
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._interrupts import interrupts_deferred
from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.report.comparison_svg import comparison_svg
from dpaudit.report.evidence_figures import comparison_figure, event_figure
from dpaudit.report.figure_checks import _float, _floats, check_figure

__all__ = [
    "PlacedFigure",
    "collect_figures",
    "comparison_figure",
    "drawn_with_matplotlib",
    "figure_jobs",
    "render_svg",
]

#: Where to find a figure drawn ahead of the report (the SVG, or the error drawing it raised), or None.
_Drawn = Callable[[Any], "Future[str] | None"] | None

#: One colour-blind-safe palette for every figure (Okabe & Ito 2008), with a marker per verdict so
#: that no reading depends on colour alone; the legend of every comparison figure lists them all.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
_VERDICT_STYLES = {
    "proven": ("#0072B2", "D"),
    "verified": ("#0072B2", "o"),
    "consistent": ("#009E73", "s"),
    "inconclusive": ("#E69F00", "^"),
    "error": ("#CC79A7", "v"),
    "violated": ("#D55E00", "X"),
}
_OTHER_STYLE = ("#000000", ".")
_RC: dict[str, Any] = {
    "svg.hashsalt": "dpaudit",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "figure.dpi": 72,
}


def _plain(text: str) -> str:
    """Text that matplotlib shows literally (a ``$`` would otherwise start mathtext)."""
    return text.replace("$", r"\$")


def _wrap(text: str, width: int = 80) -> str:
    return _plain("\n".join(textwrap.wrap(text, width)[:3])) if text else ""


def _draw_series(axes: Any, figure: dict[str, Any]) -> None:
    kind = figure["kind"]
    for series in figure["series"]:
        x, y = _floats(series["x"]), _floats(series["y"])
        label = _plain(textwrap.fill(series["label"], 60)) or None
        if kind == "histogram":
            axes.stairs(y, x, fill=True, alpha=0.45, label=label)
            continue
        if series.get("role") == "bound":
            axes.plot(x, y, color="#000000", linestyle="--", linewidth=1.2, label=label)
            continue
        lower = _floats(series["lower"]) if "lower" in series else None
        upper = _floats(series["upper"]) if "upper" in series else None
        if kind == "line":
            (curve,) = axes.plot(x, y, marker="o" if len(y) <= 40 else None, markersize=3, label=label)
            if lower is not None and upper is not None:
                axes.fill_between(x, lower, upper, color=curve.get_color(), alpha=0.2, linewidth=0)
        else:
            if lower is not None and upper is not None:
                errors = [
                    [max(v - lo, 0.0) if math.isfinite(v - lo) else 0.0 for v, lo in zip(y, lower, strict=False)],
                    [max(hi - v, 0.0) if math.isfinite(hi - v) else 0.0 for v, hi in zip(y, upper, strict=False)],
                ]
                axes.errorbar(x, y, yerr=errors, fmt="o", markersize=3, capsize=2, label=label)
            else:
                axes.scatter(x, y, s=10, label=label)
    for scale_key, setter in (("x_scale", axes.set_xscale), ("y_scale", axes.set_yscale)):
        if figure.get(scale_key) == "log":
            setter("log")
            _plain_log_ticks(axes.xaxis if scale_key == "x_scale" else axes.yaxis)


def _shade_regions(axes: Any, regions: list[dict[str, Any]]) -> None:
    """Shade each region across the axes (hatched grey), its infinite ends cut at the axis limits;
    regions of one label share one legend entry."""
    low_limit, high_limit = axes.get_xlim()
    labelled: set[str] = set()
    for region in regions:
        low, high = max(_float(region["low"]), low_limit), min(_float(region["high"]), high_limit)
        label = _plain(textwrap.fill(region.get("label", ""), 60))
        if low <= high:  # a label once in the legend, on the first region inside the axes
            shown = label if label and label not in labelled else None
            axes.axvspan(low, high, facecolor="#000000", alpha=0.12, hatch="///", edgecolor="#808080", label=shown)
            labelled.add(label)
    axes.set_xlim(low_limit, high_limit)


def _plain_log_ticks(axis: Any) -> None:
    """Label a log axis's decades in plain text ("1e-05") and draw no minor ticks:
    matplotlib's default typesets every label in mathtext, most of the cost of a figure."""
    from matplotlib.ticker import FuncFormatter, NullLocator

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_locator(NullLocator())  # no minor ticks: each costs as much as a labelled one


def _assert_inert(svg: str) -> None:
    """Refuse SVG that could run code or load anything when inlined in HTML."""
    root = ET.fromstring(svg)
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1].lower()
        if tag in ("script", "foreignobject", "iframe", "image"):
            raise InvalidArgument(f"figure SVG holds a <{tag}> element; refusing to embed it")
        for name, value in element.attrib.items():
            local = name.rsplit("}", 1)[-1].lower()
            if local.startswith("on") or (local == "href" and not value.startswith("#")):
                raise InvalidArgument(f"figure SVG holds attribute {local}={value!r}; refusing to embed it")


_WIDTH = 7.0
#: Inches per text line of 10- and 9-point text: the margins are sized from the text (tick labels of
#: a comparison measured with the font's metrics) instead of by a layout engine, which costs more
#: than the drawing.
_LINE_INCHES = {10: 0.19, 9: 0.17}


def _lines(text: str, width: int) -> int:
    return min(len(textwrap.wrap(text, width)), 3) if text else 0


def _margins(figure: dict[str, Any], height: float) -> dict[str, float]:
    """Where the axes sit (figure fractions), with room for the title, labels, ticks and legend."""
    top = 0.12 + _LINE_INCHES[10] * max(_lines(figure["title"], 100), 1)
    bottom = 0.42 + _LINE_INCHES[9] * _lines(figure.get("x_label", ""), 80)
    right = 0.25
    return {
        "right": 1 - right / _WIDTH,
        "top": 1 - top / height,
        "bottom": bottom / height,
    }


def _left_margin(axes: Any, figure: dict[str, Any]) -> float:
    """The left margin (figure fraction) that holds the widest y tick label and the y label,
    measured with the font's advances once the ticks are known (they depend on the height only)."""
    from dpaudit.report.comparison_svg import text_width

    low, high = sorted(axes.get_ylim())
    ticks = [tick for tick in axes.get_yticks() if low <= tick <= high]
    labels = axes.yaxis.get_major_formatter().format_ticks(ticks) if ticks else []
    widest = max((text_width(label, 9) for label in labels), default=0.0)
    inches = (widest + 12) / 72 + _LINE_INCHES[9] * _lines(figure.get("y_label", ""), 50) + 0.12
    return max(inches, 0.62) / _WIDTH


def render_svg(figure: dict[str, Any]) -> str:
    """Draw a figure dict as an SVG document; the same data gives the same bytes.

    Args:
        figure: a dict following the convention (see the module docstring).

    Returns:
        The SVG text, starting at ``<svg`` (no XML prolog), with text as ``<text>``
        elements (XML-escaped), no scripts and no external references.

    Raises:
        InvalidType, InvalidArgument: if ``figure`` does not follow the convention.
    """
    check_figure(figure)
    if figure["kind"] == "comparison":
        svg = comparison_svg(figure, _VERDICT_STYLES, _OTHER_STYLE)
        _assert_inert(svg)
        return svg
    # matplotlib loads modules as it draws (its backends at savefig), and a Ctrl-C inside a C extension's
    # import can be lost (dpaudit.cli): in the main thread a Ctrl-C waits for the drawing, a fraction of a second
    with interrupts_deferred():
        svg = _matplotlib_svg(figure)
    _assert_inert(svg)
    return svg


def _matplotlib_svg(figure: dict[str, Any]) -> str:
    """The figure drawn by matplotlib: the SVG text, from ``<svg`` on."""
    import matplotlib
    from cycler import cycler
    from matplotlib.figure import Figure

    settings = {**_RC, "axes.prop_cycle": cycler(color=PALETTE)}
    # matplotlib's stubs type rc keys as a Literal union; settings holds valid keys only.
    with matplotlib.rc_context(settings), np.errstate(all="ignore"):  # type: ignore[arg-type]
        height = 3.4
        canvas = Figure(figsize=(_WIDTH, height))
        canvas.subplots_adjust(**_margins(figure, height))
        axes = canvas.add_subplot()
        _draw_series(axes, figure)
        for line in figure.get("reference_lines", []):
            draw = axes.axhline if line["axis"] == "y" else axes.axvline
            label = _plain(line.get("label", "")) or None
            draw(_float(line["value"]), color="#D55E00", linestyle=":", linewidth=1.2, label=label)
        _shade_regions(axes, figure.get("regions", []))
        canvas.subplots_adjust(left=_left_margin(axes, figure))
        canvas.suptitle(_wrap(figure["title"], 100), fontsize=10, y=1 - 0.08 / height, va="top")
        axes.set_xlabel(_wrap(figure.get("x_label", "")))
        axes.set_ylabel(_wrap(figure.get("y_label", ""), 50))
        axes.grid(True, linewidth=0.4, alpha=0.5)
        if axes.get_legend_handles_labels()[1]:
            axes.legend(fontsize=8, loc="best")
        buffer = io.StringIO()
        canvas.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


@dataclass(frozen=True)
class PlacedFigure:
    """A figure at its place in the report, drawn (``svg``) or with the reason it was not.

    Attributes:
        claim: index into ``claims``.
        relation: index into the claim's ``relations``.
        obligation: index into the relation's ``obligations``; ``None`` for the
            relation's default comparison figure.
        title: the figure title (user-controlled text: escape it).
        file_name: a safe file name, unique per place, e.g. ``gaussian-replace-one-1a2b3c4d.svg``.
        svg: the SVG text, or ``None`` when the data did not follow the convention.
        problem: why the figure could not be drawn.
        caption: the figure caption, if any.
    """

    claim: int
    relation: int
    obligation: int | None
    title: str
    file_name: str
    svg: str | None
    problem: str | None = None
    caption: str = ""


def _slug(text: str, limit: int = 28) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].strip("-") or "x"


def _file_name(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:10]
    return "-".join(_slug(part, 20) for part in parts[:3]) + f"-{digest}.svg"


_Job = tuple[Any, tuple[int, int, int | None], tuple[str, ...]]


def drawn_with_matplotlib(figure: Any) -> bool:
    """Whether the figure is drawn with matplotlib (tens of milliseconds) rather than written
    straight to SVG (a comparison, a millisecond)."""
    return not (isinstance(figure, dict) and figure.get("kind") == "comparison")


def _place(figure: Any, where: tuple[int, int, int | None], names: tuple[str, ...], drawn: _Drawn) -> PlacedFigure:
    title = figure["title"] if isinstance(figure, dict) and isinstance(figure.get("title"), str) else "figure"
    caption = figure.get("caption", "") if isinstance(figure, dict) and isinstance(figure.get("caption"), str) else ""
    early = drawn(figure) if drawn is not None else None
    try:
        svg, problem = (render_svg(figure) if early is None else early.result()), None
    except (InvalidArgument, InvalidType, ArithmeticError, ValueError, ET.ParseError) as exc:  # never fatal
        svg, problem = (
            None,
            str(exc) if isinstance(exc, InvalidArgument | InvalidType) else f"{type(exc).__name__}: {exc}",
        )
    return PlacedFigure(*where, title=title, file_name=_file_name(*names), svg=svg, problem=problem, caption=caption)


def figure_jobs(document: dict[str, Any]) -> list[_Job]:
    """Every figure of a report document with its place and file-name parts: per (claim, relation)
    the default comparison figure, then per obligation the figure of its distinguishing event (a
    violated black-box check) and its ``details["figures"]``."""
    jobs: list[_Job] = []
    for c, result in enumerate(document.get("claims", [])):
        claim_id = str(result.get("claim", {}).get("id", f"claim-{c}"))
        for r, relation in enumerate(result.get("relations", [])):
            relation_name = str(relation.get("relation", f"relation-{r}"))
            default = comparison_figure(f"{claim_id} under {relation_name}: claimed vs measured", relation)
            if default is not None:
                jobs.append((default, (c, r, None), (claim_id, relation_name, "comparison")))
            for o, item in enumerate(relation.get("obligations", [])):
                details = item.get("evidence", {}).get("details") or {}
                figures = details.get("figures", []) if isinstance(details, dict) else []
                if not isinstance(figures, list):
                    figures = [figures]
                obligation_id = str(item.get("obligation", {}).get("id", f"obligation-{o}"))
                event = event_figure(f"{claim_id} under {relation_name}, {obligation_id}: what told X from X′", item)
                if event is not None:
                    jobs.append((event, (c, r, o), (claim_id, relation_name, obligation_id, "event")))
                for f, figure in enumerate(figures):
                    jobs.append((figure, (c, r, o), (claim_id, relation_name, obligation_id, str(f))))
    return jobs


def collect_figures(document: dict[str, Any], drawn: _Drawn = None) -> list[PlacedFigure]:
    """Draw every figure of a report document (see :func:`figure_jobs` for the order).

    A figure whose data breaks the convention is returned with ``svg=None`` and the
    reason in ``problem``; it never stops the report. ``drawn`` finds a figure already drawn
    (or being drawn), e.g. by :class:`~dpaudit.report.background_figures.FigureDrawer` while
    the audit ran.
    """
    return _draw_all(figure_jobs(document), drawn)


#: Fewer matplotlib figures than this are drawn in this process (a pool costs more than it saves).
_PARALLEL_FROM = 8


def _draw_all(jobs: list[_Job], drawn: _Drawn) -> list[PlacedFigure]:
    """Draw the figures: comparisons here (a millisecond each), the others with matplotlib, on every
    core when there are enough of them (forked workers that already hold matplotlib); the SVG of a
    figure does not depend on where it is drawn."""
    slow = [
        index
        for index, job in enumerate(jobs)
        if drawn_with_matplotlib(job[0]) and (drawn is None or drawn(job[0]) is None)
    ]
    workers = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 4)
    if len(slow) < _PARALLEL_FROM or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [_place(*job, drawn) for job in jobs]
    import matplotlib.figure  # noqa: F401  (imported once here, inherited by the forked workers)

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_quiet_worker) as pool:
        placed = dict(
            zip(
                slow,
                pool.map(_place_job, [jobs[i] for i in slow], chunksize=max(1, len(slow) // (4 * workers))),
                strict=True,
            )
        )
    return [placed[index] if index in placed else _place(*job, drawn) for index, job in enumerate(jobs)]


def _quiet_worker() -> None:
    """A drawing worker leaves Ctrl-C to the auditor (which stops the pool) and dies quietly on SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _place_job(job: _Job) -> PlacedFigure:
    return _place(*job, None)
