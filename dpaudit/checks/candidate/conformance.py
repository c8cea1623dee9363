"""Black-box checks that compare a candidate's outputs with the reference mechanism's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit.checks.budget_limits import Ceiling
from dpaudit.checks.claim_inputs import input_converter
from dpaudit.errors import CheckerError, DpAuditError, InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.views import AuditPairsView

stats = lazy_module("scipy.stats")

__all__ = ["ConformanceConfig", "check_candidate_matches_reference"]


@dataclass(frozen=True)
class ConformanceConfig(CheckerConfig):
    """The params of the conformance check: draws per side, the tests' confidence and the inputs compared on."""

    samples: int = param(
        "draws per side of the candidate and of the reference", 2000, low=20, high=Ceiling("samples"), quick_cap=2000
    )
    confidence: float = param("of the Kolmogorov-Smirnov tests together", 0.99, low=0.5, high=1.0, high_open=True)
    inputs: tuple[Any, ...] | None = param(
        "inputs to compare the output laws on", None, default_text="both sides of the reference's least private pairs"
    )

    def check_claim(self, claim: Claim) -> None:
        """Refuse a kind without a reference (nothing to compare with), and inputs its mechanism cannot read."""
        if not get_mechanism(claim.mechanism.name).has_reference:
            raise InvalidArgument(
                f"the {claim.mechanism.name} kind has no reference implementation to compare your output law with: "
                "leave this obligation out (dpaudit's own checks audit the candidate's privacy)"
            )
        if self.inputs is None and not isinstance(
            build_mechanism(claim.mechanism.name, claim.mechanism.params), AuditPairsView
        ):
            raise InvalidArgument(
                f"inputs: missing; mechanism {claim.mechanism.name!r} proposes no datasets (no AuditPairsView): "
                "give inputs = [...]"
            )
        convert = input_converter(claim)
        for index, item in enumerate(self.inputs or ()):
            try:
                convert(item)
            except DpAuditError as exc:
                raise InvalidArgument(f"inputs[{index}]: {exc}") from None


def _inputs(given: tuple[Any, ...] | None, reference: Any, context: CheckContext) -> list[Any]:
    """The datasets to compare on: the ``inputs`` param, else both sides of the reference's audit pairs."""
    if given is not None:
        return [input_converter(context.claim)(item) for item in given]
    if not isinstance(reference, AuditPairsView):
        raise CheckerError(
            f"mechanism {context.claim.mechanism.name!r} proposes no datasets (no AuditPairsView); give params.inputs"
        )
    return [data for pair in reference.audit_pairs(context.relation) for data in tuple(pair)[:2]]


@register_checker(
    "candidate_matches_reference",
    description="conformance, not privacy: two-sample Kolmogorov-Smirnov tests of the candidate's output law "
    "against the reference's (a difference is reported, never a privacy violation)",
    config=ConformanceConfig,
    audits_candidates=True,
)
def check_candidate_matches_reference(obligation: Obligation, context: CheckContext) -> Evidence:
    """Compare each output coordinate of the mechanism under audit with the reference.

    For every input and coordinate a two-sample KS test; the p-values are compared with
    (1 − confidence)/(number of tests) (Bonferroni). Conformance is not privacy: a candidate
    whose law differs (more noise, post-processing, another valid noise law) is not thereby
    less private. A difference is therefore ``inconclusive`` with ``details.conformance =
    "differs"`` (``dpaudit check --fail-on-conformance`` gates on it), never ``violated``;
    an equal law is ``consistent``. Without a candidate the reference is compared with itself.

    References:
        Kolmogorov–Smirnov two-sample test (scipy.stats.ks_2samp, exact or asymptotic).
    """
    config = parse_config(ConformanceConfig, obligation.params)
    samples, confidence = config.samples, config.confidence
    audited = context.sampled_mechanism()
    kind = get_mechanism(context.claim.mechanism.name)
    reference = build_mechanism(context.claim.mechanism.name, context.claim.mechanism.params)
    inputs = _inputs(config.inputs, reference, context)
    tests = []
    for index, data in enumerate(inputs):
        observed = np.asarray(audited.release(data, rng=context.rng, size=samples), dtype=np.float64)
        expected = np.asarray(kind.release(reference, data, rng=context.rng, size=samples), dtype=np.float64)
        if observed.shape != expected.shape:
            raise CheckerError(
                f"input {index}: the audited outputs have shape {observed.shape[1:]}, the reference's "
                f"{expected.shape[1:]}"
            )
        for coordinate in range(observed.reshape(samples, -1).shape[1]):
            result = stats.ks_2samp(
                observed.reshape(samples, -1)[:, coordinate], expected.reshape(samples, -1)[:, coordinate]
            )
            tests.append(
                {
                    "input": index,
                    "coordinate": coordinate,
                    "statistic": float(result.statistic),
                    "p_value": float(result.pvalue),
                }
            )
    threshold = (1.0 - confidence) / len(tests)
    worst = min(tests, key=lambda item: item["p_value"])
    differs = worst["p_value"] < threshold
    verdict = Verdict.INCONCLUSIVE if differs else Verdict.CONSISTENT
    outcome = "differs from the reference (conformance, not a privacy verdict)" if differs else "matches the reference"
    return Evidence(
        verdict=verdict,
        summary=(
            f"output law {outcome}: smallest KS p-value {worst['p_value']:.3g} (input {worst['input']}, "
            f"coordinate {worst['coordinate']}) vs Bonferroni threshold {threshold:.3g} over {len(tests)} tests"
        ),
        domain=f"{len(inputs)} input dataset(s), every output coordinate",
        method=f"two-sample Kolmogorov-Smirnov, {samples} draws per side, Bonferroni at {confidence:.0%}",
        measurements=(
            Measurement(
                quantity="smallest KS p-value",
                claimed=threshold,
                measured=worst["p_value"],
                margin=worst["p_value"] - threshold,
                direction=f"test statistic; the law differs at {confidence:.0%} confidence when below the threshold",
            ),
        ),
        budget={"samples_per_side": samples, "confidence": confidence, "tests": len(tests)},
        details={"tests": tests, "conformance": "differs" if differs else "matches", "worst_test": worst},
    )
