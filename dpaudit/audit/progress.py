"""Progress of an audit for the person (or the CI log) watching it.

Three forms, chosen by the CLI (``--progress``):

* ``bar``: a progress bar over obligations with elapsed time and ETA (rich), for a terminal;
* ``lines``: one line per finished claim (verdicts, time) and, while one obligation runs long,
  a "still running" line at least every 10 s, so a CI log is never silent for longer;
* ``json``: the same events as JSON lines (``{"event": "claim_finished", ...}``) for tools.

All go to standard error; ``--quiet`` turns them off.
"""

from __future__ import annotations

import json
import threading
import time
from typing import IO, Any

__all__ = ["HEARTBEAT_SECONDS", "PROGRESS_MODES", "ProgressReporter", "make_reporter"]

PROGRESS_MODES = ("auto", "bar", "lines", "json")

#: The longest silence of a ``lines`` or ``json`` progress stream.
HEARTBEAT_SECONDS = 10.0


class ProgressReporter:
    """Receives the runner's events (obligation started, claim finished) and writes them."""

    def __init__(self, stream: IO[str], *, mode: str = "lines", heartbeat: float = HEARTBEAT_SECONDS):
        self.stream = stream
        self.mode = mode
        self.heartbeat = heartbeat
        self._lock = threading.Lock()
        self._current = ""
        self._current_since = time.monotonic()
        self._last_output = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar: Any = None
        self._task: Any = None

    # --- lifecycle ---------------------------------------------------------------------------------
    def start(self, total_obligations: int) -> None:
        """Begin reporting an audit of ``total_obligations`` (claim, relation, obligation) runs."""
        if self.mode == "bar":
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("dpaudit", total=total_obligations)
            return
        self._emit({"event": "started", "obligations": total_obligations}, f"dpaudit: {total_obligations} obligations")
        self._thread = threading.Thread(target=self._beat, name="dpaudit-progress", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the heartbeat and the bar."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._bar is not None:
            self._bar.stop()

    # --- events ------------------------------------------------------------------------------------
    def obligation_started(self, claim: str, relation: str, obligation: str) -> None:
        with self._lock:
            self._current = f"{claim}/{relation}/{obligation}"
            self._current_since = time.monotonic()
        if self._bar is not None:
            self._bar.update(self._task, description=self._current[-60:])

    def obligation_finished(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def claim_finished(self, done: int, total: int, result: Any, seconds: float) -> None:
        verdicts = {relation.relation.name: relation.verdict.value for relation in result.relations}
        text = ", ".join(f"{name} {verdict}" for name, verdict in verdicts.items())
        if self._bar is not None:
            self._bar.console.print(f"[{done}/{total}] {result.claim.id}: {text} ({seconds:.1f} s)", markup=False)
            return
        self._emit(
            {
                "event": "claim_finished",
                "done": done,
                "total": total,
                "claim": result.claim.id,
                "verdicts": verdicts,
                "seconds": round(seconds, 3),
            },
            f"dpaudit: [{done}/{total}] {result.claim.id}: {text} ({seconds:.1f} s)",
        )

    def audit_finished(self, counts: dict[str, int], seconds: float, *, interrupted: str | None = None) -> None:
        """The last event: the claim-relation verdicts counted, the time, and why it stopped early if it did."""
        if self._bar is not None:
            return  # the console table follows
        text = ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count)
        event: dict[str, Any] = {"event": "finished", "verdicts": counts, "seconds": round(seconds, 3)}
        if interrupted is not None:
            event["interrupted"] = interrupted
        self._emit(event, f"dpaudit: finished in {seconds:.1f} s: {text or 'no claims'}")

    # --- output ------------------------------------------------------------------------------------
    def _emit(self, event: dict[str, Any], text: str) -> None:
        line = json.dumps(event, sort_keys=True) if self.mode == "json" else text
        with self._lock:
            print(line, file=self.stream, flush=True)
            self._last_output = time.monotonic()

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.heartbeat / 4)):
            with self._lock:
                quiet = time.monotonic() - self._last_output
                current, running = self._current, time.monotonic() - self._current_since
            if quiet >= self.heartbeat and current:
                self._emit(
                    {"event": "running", "obligation": current, "seconds": round(running, 1)},
                    f"dpaudit: still running {current} ({running:.0f} s)",
                )


def make_reporter(mode: str, stream: IO[str]) -> ProgressReporter:
    """The reporter for ``--progress MODE`` (``auto``: a bar on a terminal, lines otherwise)."""
    if mode == "auto":
        mode = "bar" if stream.isatty() else "lines"
    return ProgressReporter(stream, mode=mode)
