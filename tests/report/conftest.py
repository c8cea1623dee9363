"""Fixtures of the report tests: the synthetic every-verdict document and a headless Chromium."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from dpaudit.report.figures import collect_figures
from dpaudit.report.folder import ReportFiles, write_report_folder
from dpaudit.report.json_report import dumps_report
from tests.report.devtools import CHROMIUM, launch_chromium
from tests.report.synthetic import every_verdict_report


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


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium with a fresh profile, driven over the DevTools pipe (one per test module)."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (CI installs the Debian package 'chromium' in .ci/run)")
    with launch_chromium(CHROMIUM) as pipe:
        yield pipe
