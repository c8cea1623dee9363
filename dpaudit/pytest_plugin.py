"""pytest integration: gate a project's test suite on dpaudit claims.

Two ways in:

* ``pytest --dpaudit specs/my_claim.toml [--dpaudit-quick] [--dpaudit-seed N]
  [--dpaudit-fail-on violated|inconclusive]`` adds one test item per
  (claim, relation); an item fails when its verdict fails the policy.
* ``@pytest.mark.dpaudit("specs/my_claim.toml", quick=True)`` on a test: the
  ``dpaudit_report`` fixture runs the spec and fails the test when a claim fails the
  policy; the test receives the :class:`~dpaudit.audit.runner.AuditReport`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dpaudit.audit.runner import AuditReport, run_audit, run_claim
from dpaudit.audit.spec import load_spec
from dpaudit.kernel.verdicts import FAIL_POLICIES

DEFAULT_SEED = 20161


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``--dpaudit`` options."""
    group = parser.getgroup("dpaudit", "differential-privacy audits")
    group.addoption("--dpaudit", action="append", default=[], metavar="SPEC", help="audit this spec as tests")
    group.addoption("--dpaudit-quick", action="store_true", help="use the specs' quick budgets")
    group.addoption("--dpaudit-seed", type=int, default=DEFAULT_SEED, help="root seed of the audit")
    group.addoption("--dpaudit-fail-on", choices=FAIL_POLICIES, default="violated", help="failure policy")


def pytest_configure(config: pytest.Config) -> None:
    """Declare the ``dpaudit`` marker."""
    config.addinivalue_line("markers", "dpaudit(spec, quick=False, seed=20161): run a dpaudit spec for this test")


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
        single = claim.__class__(**{**claim.__dict__, "relations": (claim.relations[self.relation_index],)})
        result = run_claim(
            single,
            seed=config.getoption("dpaudit_seed"),
            quick=config.getoption("dpaudit_quick"),
            spec_path=str(self.spec),
        )
        (relation,) = result.relations
        if relation.fails(config.getoption("dpaudit_fail_on")):
            lines = [f"{claim.id} under {relation.relation.name}: {relation.verdict.value}"]
            for item in relation.obligations:
                lines.append(f"  {item.obligation.id}: {item.evidence.verdict.value}: {item.evidence.summary}")
            raise DpAuditFailure("\n".join(lines))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, DpAuditFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.spec, 0, self.name


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


@pytest.fixture
def dpaudit_report(request: pytest.FixtureRequest) -> AuditReport:
    """Run the spec named by the test's ``dpaudit`` marker and return the report.

    The test then fails (in its call phase) if a claim fails the marker's ``fail_on`` policy.
    """
    marker = request.node.get_closest_marker("dpaudit")
    if marker is None or not marker.args:
        pytest.fail("dpaudit_report needs @pytest.mark.dpaudit('path/to/spec.toml')")
    spec = Path(marker.args[0])
    report = run_audit(
        [(load_spec(spec), str(spec))],
        seed=marker.kwargs.get("seed", DEFAULT_SEED),
        quick=marker.kwargs.get("quick", False),
    )
    request.node.stash[_REPORT_KEY] = (report, marker.kwargs.get("fail_on", "violated"))
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Fail a marked test whose audit fails its policy."""
    stored = item.stash.get(_REPORT_KEY, None)
    if stored is None:
        return
    report, policy = stored
    if report.failed(policy):
        failing = [
            f"{c.claim.id} under {r.relation.name}: {r.verdict.value}"
            for c in report.claims
            for r in c.relations
            if r.fails(policy)
        ]
        pytest.fail("dpaudit claims failed: " + ", ".join(failing), pytrace=False)
