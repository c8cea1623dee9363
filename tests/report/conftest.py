"""Fixtures of the report tests: the synthetic every-verdict document and a headless Chromium."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from dpaudit.report.figures import collect_figures
from dpaudit.report.folder import ReportFiles, write_report_folder
from dpaudit.report.json_report import dumps_report
from tests.report.devtools import DevToolsPipe
from tests.report.synthetic import every_verdict_report

CHROMIUM = (
    os.environ.get("DPAUDIT_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
)


@pytest.fixture(scope="session")
def _every_verdict_drawn() -> tuple[dict, list]:
    document = json.loads(dumps_report(every_verdict_report().to_json()))
    return document, collect_figures(document)


@pytest.fixture
def every_verdict_document(_every_verdict_drawn) -> dict:
    """The JSON document of the synthetic every-verdict report (a fresh copy per test)."""
    return copy.deepcopy(_every_verdict_drawn[0])


@pytest.fixture
def every_verdict_figures(_every_verdict_drawn) -> list:
    """The drawn figures of ``every_verdict_document`` (drawn once per session)."""
    return list(_every_verdict_drawn[1])


@pytest.fixture(scope="session")
def every_verdict_folder(_every_verdict_drawn, tmp_path_factory) -> ReportFiles:
    """The report folder of the synthetic every-verdict report (written once per session)."""
    document, figures = _every_verdict_drawn
    return write_report_folder(document, tmp_path_factory.mktemp("every-verdict"), figures=figures)


@pytest.fixture
def chromium():
    """A headless Chromium with a fresh profile, driven over the DevTools pipe."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (CI installs the Debian package 'chromium' in .ci/run)")
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
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    process = subprocess.Popen(
        [CHROMIUM, *flags],
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
