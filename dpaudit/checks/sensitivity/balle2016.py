"""Exhaustive exact checks of the sensitivity statements of Balle et al. 2016 and Lemma 1's conditions.

Each statement is "measured(X, X') <= bound(X, X')" for every ordered neighbouring pair
of datasets of sizes 1..m_max over a bounded chain universe; it is decided by
:func:`dpaudit.checks.sensitivity.pair_sweep.sweep_pairs` (float64 pre-screen, exact re-check of
every pair near or over the bound). θ is re-derived here in rational arithmetic from
the paper's formulas (eq. (8), eq. (11)); the implementation under audit only supplies
σ_X (conditions (a) and (b) of Lemma 1).

Statements (paper = Balle, Gomrokchi, Precup, ICML 2016):

* ``signature``: ‖⟨X⟩ − ⟨X'⟩‖∞ <= 1 (Sec. 4.1, after eq. (15));
* ``lemma2``: ‖F_X − F_X'‖_{2,Γ} <= R/(1−γ) √(Σ_{s ∈ S_x ∪ S_x'} w_s/(|X°_s|+1)²) (Lemma 2);
* ``corollary3``: ‖F_X − F_X'‖_{2,Γ} <= R/(1−γ) √(Σ_s w_s / max{|X_s|,1}²) (Corollary 3);
* ``lsw_parameters``: ‖θ^w_X − θ^w_X'‖₂ <= ‖(Γ^{1/2}Φ)†‖ R/(1−γ) √φ^w_X (eq. (13) + Corollary 3, eq. (14));
* ``corollary8``: ‖θ^λ_X − θ^λ_X'‖₂ <= 2R‖Φ‖/((1−γ)(λ − ‖Φ‖²‖ρ‖∞)) √φ^λ_X (Corollary 8);
* ``condition_a``: σ_X >= α ‖θ_X − θ_X'‖₂ (Lemma 1 (a));
* ``condition_b``: |ln σ_X² − ln σ_X'²| <= β (Lemma 1 (b)).

Squared sides are compared, so every LSW statement is decided in rationals when the
normal matrix Φᵀ Γ Φ is diagonal (tabular and aggregated features); irrational
constants (spectral norms, α, β, logarithms) are evaluated in mpmath at 60 digits and
the decision is taken only when the margin exceeds a stated error bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpaudit._validation import check_choice
from dpaudit.checks.sensitivity.chain_domain import (
    ChainDomainConfig,
    dataset_text,
    require_policy_evaluation,
    sigma_evaluation,
)
from dpaudit.checks.sensitivity.exact_setting import DIGITS, _Setting
from dpaudit.checks.sensitivity.lemma1_conditions import (
    ConditionA,
    ConditionB,
    SigmaEvaluation,
    lemma1_constants_exact,
    sigma_relative_error,
)
from dpaudit.checks.sensitivity.pair_sweep import (
    SweepResult,
    sweep_statements,
)
from dpaudit.checks.sensitivity.statements import (
    LSL_STATEMENTS,
    LSW_STATEMENTS,
    LslCorollary8,
    LswCorollary3,
    LswLemma2,
    LswParameters,
    SignatureDistance,
    mechanism_problem,
)
from dpaudit.kernel.checker_config import param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement, json_number
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.policy_evaluation.exact_estimators import LSWProblem
from dpaudit.mechanisms.policy_evaluation.trajectory_universe import DatasetIndex, TrajectoryUniverse, chain_universe
from dpaudit.privacy.relations import REPLACE_ONE

__all__ = [
    "check_exhaustive_sensitivity",
    "exhaustive_audit",
    "mechanism_statements",
    "statement_evidence",
]


def _smallest_relative_margin(result: SweepResult) -> Measurement:
    """The smallest relative margin over every pair, with its machine-independent enclosure (what the
    re-run certificate holds: :func:`dpaudit.checks.sensitivity.pair_sweep.sweep_statements`)."""
    return Measurement(
        quantity="smallest relative margin (bound − measured)/bound over every pair",
        claimed=0,
        measured=result.min_relative_margin,
        margin=result.min_relative_margin,
        direction="float64 screen; the enclosure bounds its error (1e-11 relative) and the implementation's "
        "float inputs on any IEEE-754 machine, and takes every pair within the guard band exactly",
        margin_interval=result.relative_margin_enclosure,
    )


def statement_evidence(
    result: SweepResult, universe: TrajectoryUniverse, statement_text: str, *, parameters: str
) -> Evidence:
    """Turn a sweep into Evidence: verdict, counts, tightest margin and the counterexample."""
    domain = (
        f"{universe.description}; every dataset of 1..{result.m_max} trajectories "
        f"(multisets of profiles: {result.datasets} datasets), every ordered {result.relation} pair "
        f"with both datasets in the domain ({result.pairs} pairs); {parameters}"
    )
    method = (
        "float64 vectorised pre-screen with a 1e-9 relative guard band; every flagged or near-bound pair "
        "re-decided in exact rationals (mpmath at 60 digits, 1e-45 relative error, for irrational constants)"
    )
    budget = {
        "datasets": result.datasets,
        "pairs": result.pairs,
        "flagged": result.flagged,
        "exact_checks": result.exact_checks,
        "undecided": result.undecided,
    }
    measurements = []
    if result.tightest is not None:
        tight = result.tightest
        measurements.append(
            Measurement(
                quantity="tightest pair: bound − measured (squared sides)",
                claimed=tight.bound,
                measured=tight.measured,
                margin=tight.margin,
                direction="exact rational" if isinstance(tight.margin, Fraction) else f"mpmath {DIGITS} digits",
            )
        )
    if result.relative_margin_enclosure is not None:
        measurements.append(_smallest_relative_margin(result))
    counterexample = None
    if result.counterexample is not None:
        left, right, comparison = result.counterexample
        verdict = Verdict.VIOLATED
        counterexample = {
            "X": dataset_text(universe, left),
            "X_prime": dataset_text(universe, right),
            "measured": json_number(comparison.measured),
            "bound": json_number(comparison.bound),
            "margin": json_number(comparison.margin),
        }
        excess = comparison.measured - comparison.bound
        summary = (
            f"{statement_text} fails: |X| = {len(left)}, |X'| = {len(right)}, measured "
            f"{float(comparison.measured):.9g} "
            f"exceeds the bound {float(comparison.bound):.9g} by {float(excess):.3g} "
            f"(relative {float(excess / comparison.bound):.3g}; decided exactly)"
        )
    elif result.undecided:
        verdict = Verdict.INCONCLUSIVE
        summary = f"{statement_text}: {result.undecided} pairs could not be decided at {DIGITS} digits"
    else:
        verdict = Verdict.VERIFIED
        summary = (
            f"{statement_text} holds on all {result.pairs} ordered pairs over {result.datasets} datasets; "
            f"smallest relative margin {result.min_relative_margin:.3g}"
        )
    details = {
        "tightest_pair": None
        if result.tightest_pair is None
        else {"X": list(result.tightest_pair[0]), "X_prime": list(result.tightest_pair[1])}
    }
    return Evidence(verdict, summary, domain, method, tuple(measurements), budget, counterexample, details)


@dataclass(frozen=True, kw_only=True)
class ExhaustiveConfig(ChainDomainConfig):
    """The params of the exhaustive sweep: the statement decided, and the chain domain."""

    statement: str = param(
        f"the statement decided: for dp_lsw one of {', '.join(LSW_STATEMENTS)}; for dp_lsl one of "
        f"{', '.join(LSL_STATEMENTS)}"
    )

    def check_claim(self, claim: Claim) -> None:
        """Refuse a mechanism without a chain domain, a domain above the ceiling, a statement not of the mechanism."""
        require_policy_evaluation(claim)
        self.check_domain_size(claim, passes=1)
        allowed = LSW_STATEMENTS if claim.mechanism.name == "dp_lsw" else LSL_STATEMENTS
        check_choice("statement", self.statement, allowed)


_SWEEP_CACHE: dict[tuple[Any, ...], tuple[dict[str, SweepResult], SigmaEvaluation]] = {}


def mechanism_statements(
    mechanism: Any, universe: TrajectoryUniverse, m_max: int, relation: str, sigmas: SigmaEvaluation | None
) -> dict[str, Any]:
    """Every statement that applies to a DP-LSW/DP-LSL mechanism under ``relation``, by name.

    Conditions (a) and (b) are included when ``sigmas`` is given; Lemma 2 only under replace_one.
    """
    setting = _Setting(universe, mechanism_problem(mechanism))
    statements: dict[str, Any] = {"signature": SignatureDistance(setting)}
    if isinstance(setting.problem, LSWProblem):
        statements["corollary3"] = LswCorollary3(setting)
        statements["lsw_parameters"] = LswParameters(setting)
        if relation == REPLACE_ONE:
            statements["lemma2"] = LswLemma2(setting)
    else:
        statements["corollary8"] = LslCorollary8(setting)
    if sigmas is not None:
        alpha, beta = lemma1_constants_exact(
            mechanism.constant_set, epsilon=mechanism.epsilon, delta=mechanism.delta, d=mechanism.estimator.d
        )
        index = DatasetIndex(len(universe), m_max)
        sigma_error = sigma_relative_error(setting)
        statements["condition_a"] = ConditionA(setting, sigmas.table, index, alpha, sigma_error)
        statements["condition_b"] = ConditionB(sigmas.table, index, beta, sigma_error)
    return statements


def exhaustive_audit(
    mechanism: Any,
    universe: TrajectoryUniverse,
    relation: str,
    m_max: int,
    *,
    rng: np.random.Generator,
    names: tuple[str, ...] | None = None,
) -> tuple[dict[str, SweepResult], SigmaEvaluation]:
    """Sweep every statement (or those in ``names``) of a DP-LSW/DP-LSL mechanism or mutant.

    Returns:
        The sweep result per statement and the evaluation of the implementation's σ_X.
    """
    sigmas = sigma_evaluation(mechanism, universe, m_max, rng)
    statements = mechanism_statements(mechanism, universe, m_max, relation, sigmas)
    if names is not None:
        statements = {name: statements[name] for name in names}
    return sweep_statements(statements, universe, relation, m_max), sigmas


@register_checker(
    "balle_exhaustive_sensitivity",
    description="Balle et al. 2016 sensitivity statements and Lemma 1 (a)/(b), exhaustive over a bounded chain "
    "universe, exact",
    config=ExhaustiveConfig,
    batch_by_relation=True,
)
def check_exhaustive_sensitivity(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide one statement of :data:`LSW_STATEMENTS` / :data:`LSL_STATEMENTS` on every neighbouring pair.

    Params: ``statement``; ``p`` (chain staying probability, default "1/2"), ``horizon``
    (trajectory cap, default 6), ``m_max`` (largest dataset, default 4). The chain has the
    mechanism's n_states and γ; rewards are 0/1. All statements of the mechanism are swept
    together and the results are kept for the other obligations of the same audit.

    References:
        Balle et al. 2016, Lemma 1, Lemma 2, Corollary 3, eq. (13)–(14), Corollary 8, Sec. 4.1.
    """
    config = parse_config(ExhaustiveConfig, obligation.params)
    p, horizon, m_max = config.p, config.horizon, config.m_max
    mechanism = context.mechanism()
    universe = chain_universe(mechanism.n_states, p, Fraction(mechanism.gamma), horizon)
    name = config.statement
    relation = context.relation.kind
    if name == "lemma2" and relation != REPLACE_ONE:
        return Evidence(
            Verdict.INCONCLUSIVE,
            f"Lemma 2 is stated for replace-one pairs X = (X°, x), X' = (X°, x') only; not applicable to {relation}",
            f"{universe.description}; no pairs (statement not defined under {relation})",
            "not run",
            budget={"datasets": 0, "pairs": 0},
        )
    # the claim and the root seed are part of the key: the sigma spot checks draw from the first
    # obligation's stream, so another claim's sweep is never reused
    key = (
        context.claim.id,
        repr(context.seed.entropy),
        repr(mechanism),
        context.mechanism_factory is not None,
        str(p),
        horizon,
        m_max,
        relation,
    )
    if key not in _SWEEP_CACHE:
        sigmas = sigma_evaluation(mechanism, universe, m_max, np.random.default_rng(context.seed))
        statements = mechanism_statements(mechanism, universe, m_max, relation, sigmas)
        _SWEEP_CACHE.clear()
        _SWEEP_CACHE[key] = (sweep_statements(statements, universe, relation, m_max), sigmas)
    results, sigmas = _SWEEP_CACHE[key]
    parameters = f"mechanism {context.claim.mechanism.name} {context.claim.mechanism.params}"
    evidence = statement_evidence(results[name], universe, obligation.statement, parameters=parameters)
    if name in ("condition_a", "condition_b") and sigmas is not None:
        budget = dict(
            evidence.budget,
            sigma_classes=sigmas.signatures,
            sigma_spot_checks=sigmas.spot_checks,
            sigma_spot_mismatches=sigmas.mismatches,
        )
        verdict = evidence.verdict
        summary = evidence.summary
        if sigmas.mismatches and verdict is Verdict.VERIFIED:
            verdict = Verdict.INCONCLUSIVE
            summary += f"; but sigma_X is not a function of (<X>, m): {sigmas.mismatches} spot checks differ"
        evidence = Evidence(
            verdict,
            summary,
            evidence.domain,
            evidence.method + "; sigma_X from the implementation "
            "once per (<X>, m) class, spot-checked on random datasets",
            evidence.measurements,
            budget,
            evidence.counterexample,
            evidence.details,
        )
    return evidence
