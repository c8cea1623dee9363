"""A synthetic report with every verdict kind, hostile strings and every figure kind."""

from __future__ import annotations

import numpy as np

from dpaudit.audit.results import AuditReport, ClaimResult, ObligationResult, RelationResult
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict, combine_verdicts
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import add_remove_one, replace_one
from dpaudit.rng import SeedRecord

HOSTILE_SCRIPT = "<script>alert(1)</script>"
HOSTILE_IMG = '"><img src=x onerror=alert(1)>'


def _figures() -> list[dict]:
    grid = np.linspace(0.0, 6.0, 61)
    exact = np.exp(-grid)
    return [
        {
            "kind": "line",
            "title": "delta(epsilon): claimed vs exact " + HOSTILE_SCRIPT,
            "x_label": "epsilon",
            "y_label": "delta",
            "y_scale": "log",
            "series": [
                {
                    "label": "exact",
                    "x": grid.tolist(),
                    "y": exact.tolist(),
                    "lower": (0.9 * exact).tolist(),
                    "upper": (1.1 * exact).tolist(),
                },
                {"label": "claimed " + HOSTILE_IMG, "x": [0.0, 6.0], "y": [1e-2, 1e-2], "role": "bound"},
            ],
            "reference_lines": [{"axis": "x", "value": "4.38", "label": "claimed epsilon"}],
        },
        {
            "kind": "histogram",
            "title": "privacy-loss histogram",
            "x_label": "privacy loss",
            "y_label": "density",
            "series": [{"label": "L(X, X')", "x": list(range(-5, 6)), "y": [1, 2, 4, 7, 9, 9, 7, 4, 2, 1]}],
            "reference_lines": [{"axis": "x", "value": 4.38, "label": "epsilon"}],
        },
        {
            "kind": "scatter",
            "title": "local sensitivity vs bound over enumerated datasets",
            "x_label": "dataset",
            "y_label": "sensitivity",
            "series": [
                {
                    "label": "exact local sensitivity",
                    "x": [1, 2, 3, 4],
                    "y": ["1/3", "1/2", 0.75, "nan"],
                    "lower": [0.3, 0.45, 0.7, None],
                    "upper": [0.36, 0.55, 0.8, None],
                },
                {"label": "claimed bound", "x": [1, 4], "y": [1, 1], "role": "bound"},
            ],
        },
        {"kind": "pie", "title": "a figure that breaks the convention"},
    ]


def _evidence(verdict: Verdict, name: str) -> Evidence:
    measurement = Measurement(
        quantity=f"delta at epsilon=4.38 ({name})",
        claimed=1e-5,
        measured={"violated": 2e-5, "inconclusive": 1e-5}.get(verdict.value, 9.88e-6),
        margin={"violated": -1e-5, "inconclusive": 0.0}.get(verdict.value, 1.2e-7),
        direction="exact, absolute error <= 1e-60",
        interval=(9.8e-6, 9.9e-6) if verdict is not Verdict.VIOLATED else (1.9e-5, 2.1e-5),
    )
    details: dict = {}
    if verdict is Verdict.VERIFIED:
        details["figures"] = _figures()
    if verdict is Verdict.ERROR:
        details["traceback"] = "Traceback (most recent call last):\n  ... " + HOSTILE_SCRIPT
    counterexample = None
    if verdict is Verdict.VIOLATED:
        counterexample = {
            "neighbours": {"X": [[0, 1, HOSTILE_SCRIPT]], "X'": [[0, 2, HOSTILE_IMG]]},
            "event": "first coordinate > 4.88 " + HOSTILE_IMG,
            "delta_of_event": "2.0e-5",
        }
    return Evidence(
        verdict=verdict,
        summary=f"{name} summary {HOSTILE_IMG}",
        domain=f"the {name} domain",
        method="synthetic",
        measurements=(measurement,),
        budget={"samples": 1000, "confidence": 0.95},
        counterexample=counterexample,
        details=details,
        elapsed_seconds=0.25,
    )


def every_verdict_report() -> AuditReport:
    """A report whose obligations take every verdict, with hostile strings and every figure kind."""
    obligations = tuple(
        Obligation(
            id=f"{verdict.value}-obligation {HOSTILE_SCRIPT}",
            statement=f"statement {HOSTILE_IMG}",
            checker="synthetic",
            params={"n": 3},
        )
        for verdict in Verdict
    )
    claim = Claim(
        id=HOSTILE_SCRIPT + HOSTILE_IMG,
        title="a claim with a hostile name " + HOSTILE_IMG,
        mechanism=MechanismSpec("gaussian", {"sigma": 1.0, "sensitivity": 1.0}),
        guarantee=ApproxDP(4.38, 1e-5),
        relations=(replace_one(), add_remove_one()),
        source=Source("Balle & Wang 2018 " + HOSTILE_SCRIPT, "Theorem 8", page="5"),
        obligations=obligations,
    )
    relations = []
    for relation in claim.relations:
        results = tuple(
            ObligationResult(
                obligation,
                _evidence(verdict, verdict.value),
                SeedRecord.of(np.random.SeedSequence(7)),
                verdict is Verdict.ERROR,
            )
            for obligation, verdict in zip(obligations, Verdict, strict=False)
        )
        relations.append(RelationResult(relation, combine_verdicts(r.evidence.verdict for r in results), results))
    claims = [ClaimResult(claim, "specs/hostile.toml", tuple(relations))]
    for verdict in Verdict:
        obligation = Obligation(id="only", statement="one obligation", checker="synthetic")
        single = Claim(
            id=f"claim-{verdict.value}",
            title=f"a {verdict.value} claim",
            mechanism=MechanismSpec("gaussian", {}),
            guarantee=ApproxDP(1.0, 1e-6),
            relations=(replace_one(),),
            source=Source("paper", "Lemma 1"),
            obligations=(obligation,),
        )
        result = ObligationResult(
            obligation, _evidence(verdict, verdict.value), SeedRecord.of(np.random.SeedSequence(1))
        )
        claims.append(ClaimResult(single, None, (RelationResult(replace_one(), verdict, (result,)),)))
    return AuditReport(
        claims=tuple(claims),
        seed=7,
        quick=True,
        command="dpaudit audit " + HOSTILE_SCRIPT,
        started_at=1.7e9,
        elapsed_seconds=1.5,
        environment={"python": "3.11", "numpy": np.__version__},
    )
