"""Running the mutant library: audit each mutant and its reference, and tabulate what caught it.

A mutant is *caught* when, on one of its specs, some obligation is ``violated`` under
some relation while the same obligation under the same relation is not ``violated``
for the reference mechanism on the same spec, seed and budget. Obligations the
reference itself violates (paper findings) therefore never count.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpaudit._records import record_json
from dpaudit.audit.execution import run_claim
from dpaudit.audit.mutants.library import Mutant
from dpaudit.audit.results import ClaimResult
from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.errors import SpecError
from dpaudit.kernel.claims import Claim
from dpaudit.kernel.verdicts import Verdict

__all__ = ["Detection", "MutantRun", "mutant_spec_dir", "run_mutants", "write_mutant_tables"]


def mutant_spec_dir() -> Path:
    """The folder of the audit configurations made to catch mutants (``specs/mutants/``)."""
    return builtin_spec_dir() / "mutants"


def _violations(result: ClaimResult) -> dict[tuple[str, str], str]:
    """(relation, obligation id) -> checker, for every violated obligation."""
    return {
        (relation.relation.name, item.obligation.id): item.obligation.checker
        for relation in result.relations
        for item in relation.obligations
        if item.evidence.verdict is Verdict.VIOLATED
    }


def _verdicts(result: ClaimResult) -> dict[str, dict[str, str]]:
    return {
        relation.relation.name: {item.obligation.id: item.evidence.verdict.value for item in relation.obligations}
        for relation in result.relations
    }


@dataclass(frozen=True)
class Detection:
    """The outcome of auditing one mutant.

    Attributes:
        mutant: the mutant.
        caught_by: every ``claim-id / relation / obligation (checker)`` the mutant violates
            and the reference does not; the first is the one reported.
        seconds: wall time of the mutant's audits (the reference's are not included).
        verdicts: per claim id, relation and obligation, the mutant's verdicts.
        errors: obligations that ended in ``error`` on the mutant.
    """

    mutant: Mutant
    caught_by: tuple[str, ...]
    seconds: float
    verdicts: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()

    @property
    def caught(self) -> bool:
        """Whether some obligation caught the mutant."""
        return bool(self.caught_by)

    def to_json(self) -> dict[str, Any]:
        """The JSON form of one table row: its fields, whether the mutant was caught and why it is a bug."""
        return record_json(self, mutant=self.mutant.to_json(), caught=self.caught, why=self.mutant.why)


@dataclass(frozen=True)
class MutantRun:
    """A detection table: every mutant audited with its specs at one seed and budget.

    Attributes:
        detections: one row per mutant, in library order.
        seed, quick: the audit's root seed and budget.
        reference_violations: per spec claim id, the obligations the reference violates
            (they cannot catch a mutant).
        reference_seconds: wall time of the reference audits.
        elapsed_seconds: wall time of the whole run.
    """

    detections: tuple[Detection, ...]
    seed: int
    quick: bool
    reference_violations: dict[str, list[str]]
    reference_seconds: float
    elapsed_seconds: float

    @property
    def caught(self) -> int:
        """How many mutants were caught."""
        return sum(detection.caught for detection in self.detections)

    @property
    def all_caught(self) -> bool:
        """Whether every mutant was caught."""
        return self.caught == len(self.detections)

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """(mutant, family, caught, by obligation, seconds) per mutant, as text."""
        return [
            (
                detection.mutant.name,
                detection.mutant.family,
                "yes" if detection.caught else "NO",
                detection.caught_by[0] if detection.caught else "-",
                f"{detection.seconds:.1f}",
            )
            for detection in self.detections
        ]

    def summary(self) -> str:
        """One line: caught count, budget, seed and times."""
        budget = "quick" if self.quick else "full"
        return (
            f"{self.caught} of {len(self.detections)} mutants caught ({budget} budgets, seed {self.seed}); "
            f"{self.elapsed_seconds:.1f} s in all, {self.reference_seconds:.1f} s auditing the references"
        )

    def to_text(self) -> str:
        """The detection table as aligned text, with the summary line."""
        headers = ("mutant", "family", "caught", "by obligation", "seconds")
        rows = self.rows()
        widths = [max(len(headers[i]), *(len(row[i]) for row in rows)) if rows else len(headers[i]) for i in range(5)]
        lines = ["  ".join(header.ljust(width) for header, width in zip(headers, widths, strict=False))]
        lines.append("  ".join("-" * width for width in widths))
        lines += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) for row in rows]
        return "\n".join([*lines, "", self.summary()])

    def to_markdown(self) -> str:
        """The detection table in Markdown, with each mutant's bug and the property it breaks."""
        lines = [
            "# Mutant detection",
            "",
            self.summary(),
            "",
            "| mutant | family | caught | by obligation | seconds |",
            "|---|---|---|---|---|",
        ]
        lines += [f"| {' | '.join(_escape(cell) for cell in row)} |" for row in self.rows()]
        lines += ["", "| mutant | bug | breaks |", "|---|---|---|"]
        lines += [
            f"| {_escape(d.mutant.name)} | {_escape(d.mutant.bug)} | {_escape(d.mutant.breaks)} |"
            for d in self.detections
        ]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON document of the run: its fields, how many mutants were caught, of how many."""
        detections = [detection.to_json() for detection in self.detections]
        return record_json(self, detections=detections, caught=self.caught, mutants=len(self.detections))


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _load(name: str, cache: dict[str, Claim]) -> Claim:
    if name not in cache:
        path = mutant_spec_dir() / name
        if not path.is_file():
            raise SpecError(f"mutant spec {name!r} is missing from {mutant_spec_dir()}", path=str(path))
        cache[name] = load_spec(path)
    return cache[name]


def run_mutants(
    mutants: Sequence[Mutant], *, seed: int, quick: bool = False, executor: Executor | None = None
) -> MutantRun:
    """Audit every mutant with its specs, and each spec once with its reference mechanism.

    Args:
        mutants: the mutants to audit (e.g. :func:`dpaudit.audit.mutants.library.list_mutants`).
        seed: the root seed; the reference and the mutants use the same one.
        quick: use the specs' ``--quick`` budgets.
        executor: where Monte Carlo sampling runs (``None``: in process).

    Returns:
        The detection table.

    Raises:
        SpecError: when a mutant's spec file is missing or invalid.
    """
    start = time.perf_counter()
    claims: dict[str, Claim] = {}
    references: dict[str, ClaimResult] = {}
    reference_seconds = 0.0
    detections = []
    for mutant in mutants:
        caught_by: list[str] = []
        errors: list[str] = []
        verdicts: dict[str, dict[str, dict[str, str]]] = {}
        seconds = 0.0
        for name in mutant.specs:
            claim = _load(name, claims)
            if name not in references:
                began = time.perf_counter()
                references[name] = run_claim(claim, seed=seed, quick=quick, executor=executor)
                reference_seconds += time.perf_counter() - began
            began = time.perf_counter()
            result = run_claim(claim, seed=seed, quick=quick, executor=executor, mechanism_factory=mutant.factory)
            seconds += time.perf_counter() - began
            expected = _violations(references[name])
            for (relation, obligation), checker in _violations(result).items():
                if (relation, obligation) not in expected:
                    caught_by.append(f"{claim.id} / {relation} / {obligation} ({checker})")
            verdicts[claim.id] = _verdicts(result)
            errors += [
                f"{claim.id} / {relation} / {obligation}"
                for relation, table in verdicts[claim.id].items()
                for obligation, verdict in table.items()
                if verdict == Verdict.ERROR.value
            ]
        detections.append(Detection(mutant, tuple(caught_by), seconds, verdicts, tuple(errors)))
    reference_violations = {
        references[name].claim.id: [
            f"{relation} / {obligation}" for relation, obligation in _violations(references[name])
        ]
        for name in references
    }
    return MutantRun(
        detections=tuple(detections),
        seed=seed,
        quick=quick,
        reference_violations=reference_violations,
        reference_seconds=reference_seconds,
        elapsed_seconds=time.perf_counter() - start,
    )


def write_mutant_tables(run: MutantRun, out: str | Path) -> tuple[Path, Path]:
    """Write ``mutants.json`` and ``mutants.md`` to the folder ``out`` (created if needed).

    Returns:
        The two paths (JSON, Markdown).
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    json_path = folder / "mutants.json"
    markdown_path = folder / "mutants.md"
    json_path.write_text(json.dumps(run.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    markdown_path.write_text(run.to_markdown(), encoding="utf-8")
    return json_path, markdown_path
