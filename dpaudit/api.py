"""dpaudit as a library: audit your own function from a test, a notebook or a script.

>>> import dpaudit
>>> report = dpaudit.check("mymodule:laplace", "laplace_candidate.toml", quick=True)  # doctest: +SKIP
>>> report.raise_for_failure()                                                       # doctest: +SKIP

``candidate`` is a callable or ``"module:callable"``. A callable is sent to its isolated worker
by value (cloudpickle: its code, and its module's when that is not an installed package), so a
function defined in a notebook cell or a test is audited as written; nothing the worker sends
back is unpickled. docs/api.md has the whole of it.
"""

from __future__ import annotations

import shlex
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dpaudit._version import DEFAULT_SEED
from dpaudit.audit.candidates.audit import audit_candidate, refused_inputs_warning
from dpaudit.audit.candidates.refs import CandidateLimits, candidate_by_value, parse_candidate
from dpaudit.audit.results import AuditReport
from dpaudit.audit.runner import run_audit, spec_display_path
from dpaudit.audit.spec import builtin_specs, load_spec
from dpaudit.report.figures import collect_figures
from dpaudit.report.folder import write_report_folder

__all__ = ["audit_specs", "check"]


def _write(report: AuditReport, out: str | Path | None) -> None:
    if out is not None:
        document = report.to_json()
        write_report_folder(document, out, figures=collect_figures(document))


def check(
    candidate: Callable[..., Any] | str,
    spec: str | Path,
    *,
    quick: bool = False,
    seed: int = DEFAULT_SEED,
    timeout: float = 120.0,
    memory: int = 4096,
    time_limit: float | None = None,
    out: str | Path | None = None,
) -> AuditReport:
    """Audit ``candidate`` against the claim of ``spec``, as ``dpaudit check`` does.

    Args:
        candidate: your function (a callable, sent to the worker by value) or ``"module:callable"``
            (imported in the worker from the working directory).
        spec: the spec file (TOML).
        quick: use the spec's quick budgets.
        seed: the root seed (the same seed gives the same report).
        timeout: the longest one call of the candidate may take, in seconds.
        memory: the worker's address-space limit, in MiB.
        time_limit: stop the audit after this many seconds (``inconclusive (budget)`` for the rest); default one
            hour. A candidate too slow for it stops before any check (``CandidateError``, docs/candidates.md).
        out: a folder to write the report into (audit.json, .md, .html, junit.xml); ``None`` writes none.

    Returns:
        The report: ``report.claims`` with their verdicts and evidence, ``report.failed(policy)``,
        ``report.raise_for_failure(policy)``, ``report.to_json()``.

    Raises:
        SpecError: for a bad spec or pairs that are not neighbours.
        CandidateLoadError: when the candidate cannot be imported, sent, or called as the spec says.
        InvalidArgument: for bad limits.
    """
    path = Path(spec)
    claim = load_spec(path)
    limits = CandidateLimits(timeout_seconds=timeout, memory_mib=memory)
    with tempfile.TemporaryDirectory(prefix="dpaudit-") as folder:
        if isinstance(candidate, str):
            ref = parse_candidate(candidate)
            command = f"dpaudit check {shlex.quote(str(path))} --candidate {candidate}" + (" --quick" if quick else "")
        else:
            ref = candidate_by_value(candidate, folder)
            named = ref.attribute if ref.attribute.isidentifier() else f"<your callable {ref.attribute}>"
            command = f"dpaudit.check({named}, {str(path)!r}, quick={quick}, seed={seed})"
        report = audit_candidate(
            claim,
            spec_display_path(path),
            ref,
            limits=limits,
            seed=seed,
            quick=quick,
            command=command,
            time_limit=time_limit,
        )
    warning = refused_inputs_warning(report)
    if warning is not None:  # a test that passes shows it in pytest's warnings summary
        warnings.warn(warning, UserWarning, stacklevel=2)
    _write(report, out)
    return report


def audit_specs(
    specs: Sequence[str | Path] | None = None,
    *,
    quick: bool = False,
    seed: int = DEFAULT_SEED,
    time_limit: float | None = None,
    out: str | Path | None = None,
) -> AuditReport:
    """Audit the claims of ``specs`` (default: every built-in paper claim) on dpaudit's reference
    implementations, as ``dpaudit audit`` does (in this process).

    Raises:
        SpecError: for a bad spec.
    """
    paths = [Path(spec) for spec in specs] if specs else builtin_specs()
    report = run_audit(
        [(load_spec(path), spec_display_path(path)) for path in paths],
        seed=seed,
        quick=quick,
        command="dpaudit.audit_specs(" + ", ".join(repr(str(path)) for path in paths[:3]) + ")",
        time_limit=time_limit,
    )
    _write(report, out)
    return report
