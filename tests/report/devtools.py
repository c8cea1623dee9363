"""Headless Chromium driven over the DevTools protocol pipe, with the standard library only."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

#: The browser the tests drive: $DPAUDIT_CHROMIUM, else chromium on the PATH.
CHROMIUM = (
    os.environ.get("DPAUDIT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
)


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

    def wait_event(self, method: str, timeout: float = 30.0, *, session: str | None = None, since: int = 0) -> dict:
        """Wait for an event by name (it may already have arrived), of ``session`` when given, among
        the events from index ``since`` on."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events[since:]:
                if event.get("method") == method and session in (None, event.get("sessionId")):
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


def open_page(pipe: DevToolsPipe, url: str, *, width: int | None = None) -> str:
    """Open ``url`` in a new tab (``width`` CSS pixels wide when given) with console, log and runtime
    events on; return the session id."""
    target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        pipe.send(f"{domain}.enable", session=session)
    if width is not None:
        metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False}
        pipe.send("Emulation.setDeviceMetricsOverride", metrics, session=session)
    seen = len(pipe.events)
    pipe.send("Page.navigate", {"url": url}, session=session)
    pipe.wait_event("Page.loadEventFired", session=session, since=seen)
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


def screenshot(pipe: DevToolsPipe, session: str, path: Path, *, height: int | None = None) -> Path:
    """Save a PNG screenshot of the page's top (the whole page up to ``height``, at most
    MAX_SCREENSHOT_HEIGHT) to ``path``."""
    metrics = pipe.send("Page.getLayoutMetrics", session=session)
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    tallest = min(height or MAX_SCREENSHOT_HEIGHT, MAX_SCREENSHOT_HEIGHT)
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], tallest), "scale": 1}
    data = pipe.send(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}, session=session
    )
    path.write_bytes(base64.b64decode(data["data"]))
    return path


@contextlib.contextmanager
def launch_chromium(executable: str = CHROMIUM) -> Iterator[DevToolsPipe]:
    """A headless Chromium with a fresh profile, driven over the DevTools pipe, closed on exit."""
    profile = tempfile.mkdtemp(prefix="dpaudit-chromium-")
    to_browser_read, to_browser_write = os.pipe()
    from_browser_read, from_browser_write = os.pipe()

    def wire_fds():  # the browser reads commands on fd 3 and writes replies on fd 4
        reader, writer = os.dup(to_browser_read), os.dup(from_browser_write)
        os.dup2(reader, 3)
        os.dup2(writer, 4)

    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--remote-debugging-pipe",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    process = subprocess.Popen(
        [executable, *flags],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(3, 4),
        preexec_fn=wire_fds,
    )
    os.close(to_browser_read)
    os.close(from_browser_write)
    pipe = DevToolsPipe(process, to_browser_write, from_browser_read)
    try:
        yield pipe
    finally:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            pipe.send("Browser.close", timeout=5)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(to_browser_write)
        os.close(from_browser_read)
        shutil.rmtree(profile, ignore_errors=True)
