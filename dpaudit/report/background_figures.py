"""Figures drawn while the audit runs, so that the report after the last verdict only collects them."""

from __future__ import annotations

import importlib
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any

from dpaudit.report.figures import drawn_with_matplotlib, figure_jobs, render_svg

__all__ = ["FigureDrawer"]


class FigureDrawer:
    """Draws each finished claim's matplotlib figures in one background thread.

    The audit's main thread mostly waits for its workers, so the drawing (and matplotlib's
    import, the larger part) leaves the time after the last verdict. Pass :meth:`drawn` to
    :func:`~dpaudit.report.figures.collect_figures`: it finds a drawing by the identity of the
    figure's data (the same dict the report holds; any other dict is drawn afresh), and the SVG
    of a figure does not depend on the thread that drew it. Nothing else may use matplotlib
    while the drawer is open: leaving its ``with`` block waits for the thread.
    """

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dpaudit-figures")
        self._drawings: dict[int, tuple[Any, Future[str]]] = {}
        self._finished = False
        self._warming = False

    def add(self, claim: dict[str, Any]) -> None:
        """Start drawing the matplotlib figures of one claim result (its JSON form).

        The first claim starts matplotlib's import, the larger part of a first figure's time,
        whether it has such figures or not: the claims with figures may be the last to finish.
        """
        if self._finished:
            return
        if not self._warming:
            self._warming = True
            self._thread.submit(importlib.import_module, "matplotlib.figure")
        for figure, _, _ in figure_jobs({"claims": [claim]}):
            if drawn_with_matplotlib(figure) and id(figure) not in self._drawings:
                self._drawings[id(figure)] = (figure, self._thread.submit(render_svg, figure))

    def drawn(self, figure: Any) -> Future[str] | None:
        """The drawing of exactly this figure object, if one was started (and not dropped)."""
        held = self._drawings.get(id(figure))
        return held[1] if held is not None and held[0] is figure and not held[1].cancelled() else None

    def __enter__(self) -> FigureDrawer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Wait for the drawings started (on an error or an interrupt, only for the one running); no
        more are started."""
        self._finished = True
        self._thread.shutdown(wait=True, cancel_futures=kind is not None)
