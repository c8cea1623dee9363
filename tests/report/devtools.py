"""Headless Chromium driven over the DevTools protocol pipe, with the standard library only."""

from __future__ import annotations

import base64
import json
import os
import select
import subprocess
import time
from pathlib import Path


class DevToolsPipe:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (fds 3 and 4)."""

    def __init__(self, process: subprocess.Popen, to_browser: int, from_browser: int):
        self.process, self._out, self._in = process, to_browser, from_browser
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30.0) -> dict:
        """Send a command and wait for its reply, recording every event seen meanwhile."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise TimeoutError(method)

    def wait_event(self, method: str, timeout: float = 30.0) -> dict:
        """Wait for an event by name (it may already have arrived)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._read(deadline))
        raise TimeoutError(method)

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._in], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError("no message from the browser")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)


def open_page(pipe: DevToolsPipe, url: str) -> str:
    """Open ``url`` in a new tab with console, log and runtime events on; return the session id."""
    target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        pipe.send(f"{domain}.enable", session=session)
    pipe.send("Page.navigate", {"url": url}, session=session)
    pipe.wait_event("Page.loadEventFired")
    return session


def console_errors(pipe: DevToolsPipe) -> list[str]:
    """Console errors, uncaught exceptions and error-level log entries seen so far."""
    problems = []
    for event in pipe.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            problems.append(json.dumps(params.get("args")))
        elif method == "Runtime.exceptionThrown":
            problems.append(json.dumps(params.get("exceptionDetails")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            problems.append(params["entry"].get("text", ""))
    return problems


#: The tallest screenshot taken, in CSS pixels: Chromium refuses a capture taller than its largest
#: texture ("Page is too large"), which a full audit report exceeds.
MAX_SCREENSHOT_HEIGHT = 8000


def screenshot(pipe: DevToolsPipe, session: str, path: Path) -> Path:
    """Save a PNG screenshot of the page's top (the whole page up to MAX_SCREENSHOT_HEIGHT) to ``path``."""
    metrics = pipe.send("Page.getLayoutMetrics", session=session)
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], MAX_SCREENSHOT_HEIGHT), "scale": 1}
    data = pipe.send(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}, session=session
    )
    path.write_bytes(base64.b64decode(data["data"]))
    return path
