"""The contract cases: for every registered checker, one obligation taken from a shipped spec that
the reference passes, and one planted defect the checker is known to catch.

A case names a spec file, one of its obligations and (optionally) one relation; each side (the
reference, the defect) edits that obligation's params or the claim's guarantee, replaces the
mechanism by a mutant (``factory``), or audits a candidate (``candidate``, ``module:callable``).
The edited TOML goes through :func:`dpaudit.audit.spec.parse_spec`, as a spec file does, and the
claim runs through :func:`dpaudit.audit.execution.run_claim` with ``quick=True``, as
``dpaudit audit --quick`` runs it. A new checker adds its case here (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from dpaudit.audit.candidates.kinds import CandidateMechanism, candidate_kind_for
from dpaudit.audit.candidates.refs import CandidateLimits, parse_candidate
from dpaudit.audit.execution import run_claim
from dpaudit.audit.mutants.library import get_mutant
from dpaudit.audit.spec import builtin_spec_dir, parse_spec
from dpaudit.kernel.claims import Claim
from dpaudit.kernel.evidence import Evidence
from dpaudit.kernel.verdicts import Verdict
from tests.checks.test_balle_checker_wrappers import ShrunkSigmaLSW

SPECS = builtin_spec_dir()
TESTS = Path(__file__).resolve().parents[1]
SAMPLE_CANDIDATES = TESTS / "audit" / "candidates_fixture"
CONTRACT_CANDIDATES = Path(__file__).resolve().parent / "contract_fixture"
CORPUS = TESTS / "candidates"
EXAMPLE_CANDIDATES = SPECS / "examples"
PLUGIN = TESTS / "plugins" / "example_plugin"


def says_violated(evidence: Evidence) -> bool:
    """The verdict is ``violated``."""
    return evidence.verdict is Verdict.VIOLATED


def says_differs(evidence: Evidence) -> bool:
    """A conformance check found the candidate's output law differs from the reference's."""
    return evidence.details.get("conformance") == "differs"


@dataclass(frozen=True)
class Side:
    """One side of a case: how the base obligation is edited and what is audited.

    Attributes:
        params: set in the obligation's params (and removed from its ``quick`` table).
        guarantee: set in the claim's guarantee.
        factory: a mutant (or a broken variant) replacing the reference mechanism.
        candidate: ``(folder, "module:callable")`` of a candidate audited in its worker.
        patch: a context manager factory planting a bug in a library the checker calls.
    """

    params: Mapping[str, Any] = field(default_factory=dict)
    guarantee: Mapping[str, Any] = field(default_factory=dict)
    factory: Callable[..., Any] | None = None
    candidate: tuple[Path, str] | None = None
    patch: Callable[[], AbstractContextManager[Any]] | None = None


@dataclass(frozen=True)
class ContractCase:
    """The contract case of one checker.

    Attributes:
        checker: the registered name.
        spec: the spec file (a path, or relative to ``specs/``).
        obligation: the id of the obligation of that spec the case runs.
        defect: the planted defect, and why the checker must see it.
        reference: the edit (if any) under which the reference passes.
        broken: the edit that plants the defect.
        relation: the one relation the case runs under (``None``: the first of the spec).
        checker_override: for a checker no spec names, the params with which the base obligation
            is given to it instead of its own checker.
        flags: whether evidence flags the defect: ``violated``, except for a checker whose
            promise is not a privacy verdict (conformance: ``details.conformance == "differs"``).
        gaps: contract tests the checker fails today (test name -> the finding); they run as strict
            expected failures, so the fix turns them into a failure that asks to remove the gap.
    """

    checker: str
    spec: str | Path
    obligation: str
    defect: str
    broken: Side
    reference: Side = Side()
    relation: str | None = None
    checker_override: Mapping[str, Any] | None = None
    flags: Callable[[Evidence], bool] = says_violated
    gaps: Mapping[str, str] = field(default_factory=dict)

    @property
    def spec_path(self) -> Path:
        return self.spec if isinstance(self.spec, Path) else SPECS / self.spec

    def spec_data(
        self, side: Side, *, time_limit: float | None = None, memory_mib: float | None = None
    ) -> dict[str, Any]:
        """The spec's TOML mapping cut down to this case's obligation and relation, with ``side``'s
        edits, and the obligation's ``time_limit`` and the spec's ``[ceilings] memory_mib`` when given."""
        data = tomllib.loads(self.spec_path.read_text(encoding="utf-8"))
        (obligation,) = [item for item in data["obligations"] if item["id"] == self.obligation]
        obligation = copy.deepcopy(obligation)
        if self.checker_override is not None:
            obligation.pop("quick", None)
            obligation.update(checker=self.checker, params=dict(self.checker_override))
        obligation["params"] = {**obligation.get("params", {}), **side.params}
        if "quick" in obligation:
            obligation["quick"] = {k: v for k, v in obligation["quick"].items() if k not in side.params}
        if time_limit is not None:
            obligation["time_limit"] = time_limit
        if memory_mib is not None:
            data["ceilings"] = {**data.get("ceilings", {}), "memory_mib": memory_mib}
        data["obligations"] = [obligation]
        claim = data["claim"]
        claim["relations"] = [self.relation or claim["relations"][0]]
        claim.pop("known_findings", None)  # the raw verdict is asserted, not a pinned finding
        if "guarantee" in claim or side.guarantee:  # an accountant's claim has no guarantee table
            claim["guarantee"] = {**claim.get("guarantee", {}), **side.guarantee}
        return data

    def claim(self, side: Side, **limits: float | None) -> Claim:
        """The claim of ``side`` (with the limits of :meth:`spec_data`), parsed as a spec file is."""
        return parse_spec(self.spec_data(side, **limits), str(self.spec_path))

    def run(self, side: Side, *, seed: int, **limits: float | None) -> Evidence:
        """The evidence of the case's obligation on ``side`` (quick budgets; limits as in :meth:`spec_data`)."""
        claim = self.claim(side, **limits)
        with side.patch() if side.patch else nullcontext(), _candidate(claim, side) as candidate:
            result = run_claim(claim, seed=seed, quick=True, candidate=candidate, mechanism_factory=side.factory)
        (relation,) = result.relations
        (item,) = relation.obligations
        return item.evidence


@contextmanager
def _candidate(claim: Claim, side: Side) -> Iterator[Any]:
    """The side's candidate in its started worker (``None`` when the side audits no candidate)."""
    if side.candidate is None:
        yield None
        return
    folder, reference = side.candidate
    kind = candidate_kind_for(claim.mechanism.name)
    ref = parse_candidate(reference, path=str(folder))
    with CandidateMechanism(ref, CandidateLimits(), kind, claim.mechanism.params, claim.candidate_call) as mechanism:
        mechanism.start()
        yield mechanism


def halved_peer_epsilon() -> AbstractContextManager[Any]:
    """dp_accounting's RDP accountant answering half its epsilon (a planted understatement)."""
    from dp_accounting.rdp import RdpAccountant

    real = RdpAccountant.get_epsilon

    def halved(self: Any, target_delta: float) -> float:
        return 0.5 * real(self, target_delta)

    return mock.patch.object(RdpAccountant, "get_epsilon", halved)


def _uniform_added_response(params: dict[str, Any]) -> Any:
    """The example plugin's randomized response adding its uniform draw to the bit (not a bit)."""
    from dpaudit_example_plugin.mechanism import RandomizedResponse

    class UniformAddedResponse(RandomizedResponse):
        def release(self, data: Any, *, rng: Any, size: int | None = None) -> Any:
            bits = super().release(data, rng=rng, size=size)
            return bits + rng.random(bits.shape)

    return UniformAddedResponse(**params)


def _gaussian_candidate_case(checker: str, obligation: str, defect: str, broken: str, **more: Any) -> ContractCase:
    """A case of specs/examples/gaussian_candidate.toml: the correct candidate Gaussian mechanism
    against ``broken``, a buggy one of tests/audit/candidates_fixture/sample_candidates.py."""
    return ContractCase(
        checker,
        "examples/gaussian_candidate.toml",
        obligation,
        defect,
        reference=Side(candidate=(SAMPLE_CANDIDATES, "sample_candidates:good_gaussian")),
        broken=Side(candidate=(SAMPLE_CANDIDATES, f"sample_candidates:{broken}")),
        **more,
    )


def _mutant(name: str) -> Callable[..., Any]:
    return get_mutant(name).factory


#: The contract test a checker with an incomplete unknown-key error fails (see ContractCase.gaps).
UNKNOWN_KEY_TEST = "test_an_unknown_params_key_is_refused_naming_the_accepted_keys"

#: The first point of the accountant example spec: its certified true epsilon at 1e-5 is 0.89512.
_ACCOUNTANT_POINT = {"points": [{"records": 100, "noise_multiplier": 1.0, "steps": 100, "delta": 1e-5}]}

#: The tail-bound grid where moments x0.25 still pass but x0.1 must not (tests/checks/test_accountants.py).
_TAIL_POINT = {"noise_multipliers": [0.8], "steps": [1000], "epsilons": [1.0, 2.0], "interval": 1e-3}

CASES: tuple[ContractCase, ...] = (
    ContractCase(
        "accountant_certified",
        "examples/accountant_candidate.toml",
        "certified-epsilon",
        "an accountant stating epsilon = 0.5 where the certified true epsilon is 0.89512 (an understatement)",
        reference=Side(params=_ACCOUNTANT_POINT, candidate=(EXAMPLE_CANDIDATES, "example_candidates:accountant")),
        broken=Side(
            params=_ACCOUNTANT_POINT, candidate=(CONTRACT_CANDIDATES, "contract_candidates:understated_accountant")
        ),
    ),
    ContractCase(
        "approx_dp_pld",
        "xie2019_theorem1.toml",
        "end-to-end-algorithm1",
        "the target delta scaled by 0.1: Theorem 1's sigma no longer reaches it (a false claim)",
        reference=Side(params={"records": [1000]}),
        broken=Side(params={"records": [1000], "delta_scale": 0.1}),
    ),
    ContractCase(
        "balle_condition_a_search",
        "mutants/balle2016_dp_lsw_weighted.toml",
        "lemma1-condition-a",
        "DP-LSW with the norm of Gamma^1/2 Phi for that of its pseudo-inverse: sigma_X 100 times too small",
        checker_override={"horizon": 3, "m_max": 2, "max_examples": 50},
        broken=Side(factory=_mutant("dp-lsw-norm-of-matrix")),
    ),
    ContractCase(
        "balle_exhaustive_sensitivity",
        "mutants/balle2016_dp_lsw_weighted.toml",
        "lemma1-condition-a",
        "DP-LSW with sigma_X proportional to psi_X, not its square root (the library mutant)",
        broken=Side(factory=_mutant("dp-lsw-variance-for-std")),
    ),
    ContractCase(
        "balle_lemma4_smoothness",
        "balle2016_smooth_bounds.toml",
        "lemma4-psi-lambda",
        "psi^lambda built on Lemma 9's closed form as printed (max reading), which is not phi^lambda",
        broken=Side(params={"reading": "max"}),
    ),
    ContractCase(
        "balle_smooth_sensitivity_slack",
        "balle2016_dp_lsw_sensitivity.toml",
        "smooth-sensitivity-slack",
        "DP-LSW releasing with sigma_X / 1000, below alpha times the smallest smooth bound",
        broken=Side(factory=ShrunkSigmaLSW),
    ),
    ContractCase(
        "balle_symbolic_closed_form",
        "balle2016_smooth_bounds.toml",
        "lemma9-closed-form-eq12",
        "Lemma 9's closed form as printed (max reading), false for some v and k",
        broken=Side(params={"reading": "max"}),
    ),
    _gaussian_candidate_case(
        "candidate_matches_reference",
        "output-law-matches-reference",
        "a candidate Gaussian mechanism adding sigma / 2 noise (conformance: reported as a difference, never "
        "as violated, docs/checkers.md)",
        "halved_gaussian",
        flags=says_differs,
    ),
    ContractCase(
        "dirichlet_composition_profile",
        "gohari2020_algorithm1_one_row.toml",
        "one-row-profile",
        "the claim's delta 1e-6 where the exact delta(13.0042) of the composition is 4.235e-6 (a false claim)",
        broken=Side(guarantee={"delta": 1e-6}),
    ),
    ContractCase(
        "dirichlet_concentration",
        "gohari2020_lemma2_concentration.toml",
        "lemma2-grid",
        "Lemma 2's radius halved (a false concentration claim, decided exactly on the 2-simplex)",
        reference=Side(params={"inputs": [[0.5, 0.5], [0.1, 0.9]], "ks": [1.0, 10.0], "betas": [0.05, 0.5]}),
        broken=Side(params={"inputs": [[0.5, 0.5]], "ks": [10.0], "betas": [0.05], "radius_scale": 0.5}),
    ),
    ContractCase(
        "dirichlet_exact_profile",
        "mutants/gohari2020_dirichlet_tight.toml",
        "exact-profile",
        "the mechanism sampling Dir(k n p) for Dir(k p) (the library mutant)",
        broken=Side(factory=_mutant("dirichlet-k-times-dimension")),
    ),
    ContractCase(
        "empirical_epsilon_lower_bound",
        "mutants/gaussian_sigma4.toml",
        "monte-carlo-two-coordinates",
        "the Gaussian mechanism passing sigma as a covariance: noise std 2 for 4 (the library mutant)",
        broken=Side(factory=_mutant("gaussian-sigma-as-variance")),
    ),
    ContractCase(
        "exact_privacy_profile",
        "laplace_mechanism.toml",
        "exact-profile",
        "Laplace(1) with sensitivity 1 claimed (0.5, 0)-DP: its exact epsilon is 1",
        broken=Side(guarantee={"epsilon": 0.5}),
    ),
    ContractCase(
        "gaussian_exact_profile",
        "mutants/gaussian_sigma4.toml",
        "exact-profile",
        "N(0, 16) with sensitivity 4 claimed (4.0, 1e-5)-DP: its exact epsilon is 4.3772 (a false claim; the "
        "white-box view states sigma, so a mutant of release is the Monte Carlo checkers' to catch)",
        broken=Side(guarantee={"epsilon": 4.0}),
    ),
    ContractCase(
        "gaussian_threshold_monte_carlo",
        "mutants/gaussian_sigma4.toml",
        "monte-carlo-threshold",
        "the Gaussian mechanism passing sigma as a covariance (the library mutant)",
        broken=Side(factory=_mutant("gaussian-sigma-as-variance")),
    ),
    ContractCase(
        "lemma1_exact_profile",
        "mutants/smooth_gaussian_tight.toml",
        "exact-worst-case",
        "the smooth-sensitivity Gaussian with beta computed for d = 1 (the library mutant)",
        broken=Side(factory=_mutant("smooth-gaussian-beta-without-d")),
    ),
    ContractCase(
        "moment_bound_exact",
        "xie2019_lemma1.toml",
        "proof-model-poisson-theorem1-range",
        "Lemma 1's moment bound scaled by 0.2 (a false claim on the range where Lemma 1 holds)",
        relation="add_remove_one",
        broken=Side(params={"scale": 0.2}),
    ),
    ContractCase(
        "moments_tail_bound",
        "xie2019_theorem4_abadi.toml",
        "tail-bound-poisson",
        "the moments scaled by 0.1: the tail bound they give falls below the true delta(2)",
        reference=Side(params=_TAIL_POINT),
        broken=Side(params={**_TAIL_POINT, "moment_scale": 0.1}),
    ),
    _gaussian_candidate_case(
        "parametric_noise_fit",
        "gaussian-fit",
        "a candidate Gaussian mechanism adding sigma / 2 noise",
        "halved_gaussian",
    ),
    ContractCase(
        "gaussian_release_fit",
        CORPUS / "specs" / "smooth_gaussian.toml",
        "empirical-privacy",
        "a smooth-sensitivity Gaussian candidate with a twelfth of Lemma 1's noise: true epsilon 1.64 against 1",
        reference=Side(candidate=(CORPUS, "smooth_gaussian_candidates:lemma1")),
        broken=Side(candidate=(CORPUS, "smooth_gaussian_candidates:a_twelfth_of_the_noise")),
        checker_override={
            "samples": 20_000,
            "search": "off",
            "pairs": [
                {
                    "first": {"theta": [0.0], "smooth_bound": 1.0},
                    "second": {"theta": [1.0], "smooth_bound": 1.0},
                    "label": "theta moves by S(X)",
                }
            ],
        },
    ),
    ContractCase(
        "noise_multiplier_fit",
        CORPUS / "specs" / "gpope_step.toml",
        "empirical-privacy",
        "a Poisson step whose noise is sigma N(0, I), not h sigma (h = 2): the fitted sigma is halved, the "
        "step's certified epsilon at it far above 1.76",
        reference=Side(candidate=(CORPUS, "gpope_step_candidates:poisson_step")),
        broken=Side(candidate=(CORPUS, "gpope_step_candidates:noise_not_scaled_by_h")),
        checker_override={"samples": 20_000},
    ),
    ContractCase(
        "peer_accountant",
        "peer_dp_accounting.toml",
        "rdp-at-fractional-orders",
        "dp_accounting's RDP accountant with a planted slip: its epsilon halved",
        broken=Side(patch=halved_peer_epsilon),
    ),
    ContractCase(
        "privacy_loss_histogram",
        "gaussian_mechanism.toml",
        "privacy-loss-histogram",
        "N(0, 1) with sensitivity 1 claimed (1, 0.01)-DP: its exact delta(1) is 0.1269",
        broken=Side(guarantee={"epsilon": 1.0, "delta": 0.01}),
    ),
    _gaussian_candidate_case(
        "randomness_contract",
        "randomness",
        "a candidate drawing its noise from a generator seeded with a constant (public noise)",
        "fixed_seed_gaussian",
    ),
)

#: Cases of the checkers the example plugin (tests/plugins/example_plugin) registers through its
#: entry point; they run when the plugin is installed (test_checker_contract.py installs it in a
#: child process).
PLUGIN_CASES: tuple[ContractCase, ...] = (
    ContractCase(
        "example_outputs_are_bits",
        PLUGIN / "spec.toml",
        "outputs-are-bits",
        "randomized response adding its uniform draw to the bit instead of comparing with it",
        broken=Side(factory=lambda **params: _uniform_added_response(params)),
    ),
)
