"""pytest integration: gate a project's test suite on dpaudit claims, run on your own code.

Three ways in:

* ``dpaudit_check(candidate, "spec.toml", quick=True)`` (a fixture) audits ``candidate`` — your
  function itself, or ``"module:callable"`` — against the spec's claim in an isolated worker
  and fails the test when a claim fails the policy, printing the verdict, the certified numbers
  against the claim, the distinguishing event and the replay; it returns the report.
* ``@pytest.mark.dpaudit("spec.toml", candidate=my_function, quick=True)`` on a test: the
  ``dpaudit_report`` fixture runs the audit (on the candidate when one is named, else on
  dpaudit's reference) and fails the test when a claim fails the policy; the test receives the
  :class:`~dpaudit.audit.results.AuditReport`.
* ``pytest --dpaudit spec.toml [--dpaudit-candidate module:callable] [--dpaudit-quick]
  [--dpaudit-seed N] [--dpaudit-fail-on violated|inconclusive]`` adds one test item per
  (claim, relation) of each spec; an item fails when its verdict fails the policy.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from dpaudit._version import DEFAULT_SEED
from dpaudit.audit.execution import run_claim
from dpaudit.audit.results import AuditReport
from dpaudit.audit.runner import run_audit
from dpaudit.audit.spec import load_spec
from dpaudit.errors import DpAuditError
from dpaudit.kernel.verdicts import FAIL_POLICIES


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--dpaudit`` options."""
    group = parser.getgroup("dpaudit", "differential-privacy audits")
    group.addoption("--dpaudit", action="append", default=[], metavar="SPEC", help="audit this spec as tests")
    group.addoption(
        "--dpaudit-candidate",
        default=None,
        metavar="MODULE:CALLABLE",
        help="audit this implementation against the --dpaudit specs (default: dpaudit's reference)",
    )
    group.addoption("--dpaudit-quick", action="store_true", help="use the specs' quick budgets")
    group.addoption("--dpaudit-seed", type=int, default=DEFAULT_SEED, help="root seed of the audit")
    group.addoption("--dpaudit-fail-on", choices=FAIL_POLICIES, default="violated", help="failure policy")


def pytest_configure(config: pytest.Config) -> None:
    """Declare the ``dpaudit`` marker."""
    config.addinivalue_line(
        "markers",
        "dpaudit(spec, candidate=None, quick=False, seed=20161, fail_on='violated', timeout=, memory=, time_limit=, "
        "out=): audit a spec (on the candidate when given: a callable or 'module:callable', with dpaudit.check's "
        "options) for this test",
    )


class DpAuditFailure(Exception):
    """A claim's verdict fails the policy."""


class ClaimRelationItem(pytest.Item):
    """One (claim, relation) verdict of a spec, run as a test."""

    def __init__(self, *, spec: Path, relation_index: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.spec = spec
        self.relation_index = relation_index

    def runtest(self) -> None:
        config = self.config
        claim = load_spec(self.spec)
        single = replace(claim, relations=(claim.relations[self.relation_index],))
        seed, quick = config.getoption("dpaudit_seed"), config.getoption("dpaudit_quick")
        candidate = config.getoption("dpaudit_candidate")
        if candidate is not None:
            report = _check_claim(candidate, self.spec, single, seed=seed, quick=quick)
        else:
            report = AuditReport(
                claims=(run_claim(single, seed=seed, quick=quick, spec_path=str(self.spec)),), seed=seed, quick=quick
            )
        policy = config.getoption("dpaudit_fail_on")
        if report.failed(policy):
            raise DpAuditFailure(report.failure_text(policy))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, DpAuditFailure):
            return str(excinfo.value)
        if isinstance(excinfo.value, DpAuditError):  # a spec or candidate that cannot be audited: its reason
            return f"dpaudit could not audit {self.spec}: {type(excinfo.value).__name__}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.spec, 0, self.name


def _check_claim(candidate: str, spec: Path, claim: Any, *, seed: int, quick: bool) -> AuditReport:
    """The candidate audit of one relation of ``spec``'s claim (the spec file names the rest)."""
    from dpaudit.audit.candidates.audit import audit_candidate, refused_inputs_warning
    from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate

    report = audit_candidate(
        claim,
        str(spec),
        parse_candidate(candidate),
        limits=CandidateLimits(),
        seed=seed,
        quick=quick,
        command=f"dpaudit check {spec} --candidate {candidate} --seed {seed}" + (" --quick" if quick else ""),
    )
    warning = refused_inputs_warning(report)
    if warning is not None:  # a test that passes shows it in pytest's warnings summary
        warnings.warn(warning, UserWarning, stacklevel=2)
    return report


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one item per (claim, relation) of every ``--dpaudit`` spec."""
    for text in config.getoption("dpaudit"):
        spec = Path(text)
        claim = load_spec(spec)
        for index, relation in enumerate(claim.relations):
            items.append(
                ClaimRelationItem.from_parent(
                    session, name=f"dpaudit[{claim.id}-{relation.name}]", spec=spec, relation_index=index
                )
            )


_REPORT_KEY = pytest.StashKey[tuple[AuditReport, str]]()


#: What the marker passes on to :func:`dpaudit.check` for a candidate, besides ``quick`` and ``seed``.
_CHECK_OPTIONS = ("timeout", "memory", "time_limit", "out")
_MARKER_OPTIONS = "candidate, quick, seed, fail_on, and for a candidate timeout, memory, time_limit, out"


@pytest.fixture
def dpaudit_report(request: pytest.FixtureRequest) -> AuditReport:
    """Run the audit named by the test's ``dpaudit`` marker and return the report.

    With ``candidate=`` (a callable or ``"module:callable"``) the candidate is audited
    (``dpaudit check``), else dpaudit's reference (``dpaudit audit``). The test then fails (in its
    call phase) if a claim fails the marker's ``fail_on`` policy.
    """
    marker = request.node.get_closest_marker("dpaudit")
    if marker is None or not marker.args:
        pytest.fail("dpaudit_report needs @pytest.mark.dpaudit('path/to/spec.toml')")
    spec = Path(marker.args[0])
    unknown = sorted(set(marker.kwargs) - {"candidate", "quick", "seed", "fail_on", *_CHECK_OPTIONS})
    if unknown:
        pytest.fail(f"@pytest.mark.dpaudit: unknown option(s) {unknown}; expected {_MARKER_OPTIONS}", pytrace=False)
    seed, quick = marker.kwargs.get("seed", DEFAULT_SEED), marker.kwargs.get("quick", False)
    candidate = marker.kwargs.get("candidate")
    options = {name: marker.kwargs[name] for name in _CHECK_OPTIONS if name in marker.kwargs}
    if candidate is not None:
        from dpaudit.api import check

        report = check(candidate, spec, quick=quick, seed=seed, **options)
    elif options:
        pytest.fail(f"@pytest.mark.dpaudit: {sorted(options)} apply to a candidate's check only", pytrace=False)
    else:
        report = run_audit([(load_spec(spec), str(spec))], seed=seed, quick=quick)
    request.node.stash[_REPORT_KEY] = (report, marker.kwargs.get("fail_on", "violated"))
    return report


@pytest.fixture
def dpaudit_check() -> Callable[..., AuditReport]:
    """A function ``dpaudit_check(candidate, spec, *, fail_on="violated", **options)`` that audits
    ``candidate`` (your function, or ``"module:callable"``) against ``spec`` with the options of
    :func:`dpaudit.check` (``quick``, ``seed``, ``timeout``, ``memory``, ``time_limit``, ``out``) and
    fails the test, saying why, when a claim fails ``fail_on``; it returns the report."""

    def run(candidate: Any, spec: str | Path, *, fail_on: str = "violated", **options: Any) -> AuditReport:
        from dpaudit.api import check

        report = check(candidate, spec, **options)
        if report.failed(fail_on):
            pytest.fail("dpaudit: the claim fails\n" + report.failure_text(fail_on), pytrace=False)
        return report

    return run


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Fail a marked test whose audit fails its policy."""
    stored = item.stash.get(_REPORT_KEY, None)
    if stored is None:
        return
    report, policy = stored
    if report.failed(policy):
        pytest.fail("dpaudit claims failed:\n" + report.failure_text(policy), pytrace=False)
