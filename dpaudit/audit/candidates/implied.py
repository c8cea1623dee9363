"""Checks every candidate audit runs, whether or not its spec names them.

A spec written for the reference points at the leaks its author thought of. Code nobody has
seen leaks elsewhere: noise from a fixed seed, a scale a few percent too small. So a candidate
audit always adds, on the pairs the spec names (or the reference's least private pairs):

* ``empirical_epsilon_lower_bound`` (for a randomised mechanism), dpaudit's own black-box audit:
  the input search, threshold, interval, half-space, classifier, atom and outcome events, and
  escalation, with the largest ``samples`` the spec's black-box obligations state (else
  :data:`BLACK_BOX_SAMPLES`); a spec that names a simpler checker (a threshold Monte Carlo, a
  histogram, its own plugin) gets it too;
* ``randomness_contract`` (for a randomised mechanism, unless the spec declares ``[candidate]
  randomness = "external"``: a cryptographic RNG by design): the outputs vary with the ``rng`` and
  repeat for one seed;
* ``parametric_noise_fit`` for the kind's noise family (:attr:`Mechanism.noise_family`),
  when the claim is of the form the family can refute; for a kind whose release is Gaussian
  given its input with a covariance that depends on it (``gaussian_release``: the
  smooth-sensitivity Gaussian, DP-LSW, DP-LSL), ``gaussian_release_fit`` instead. GPOPE end to end
  gets no parametric fit;
* ``noise_multiplier_fit`` for the kinds it models (a subsampled GPOPE step, a mixture; the
  smooth-sensitivity Gaussian): the one noise multiplier fitted, the kind's own exact worst case at
  the fit.

An obligation the spec already has for the same checker is kept as written and not added
again. The added obligations say so in their statement, and the report lists them with the
others.
"""

from __future__ import annotations

from typing import Any

from dpaudit.audit.plugins import get_checker
from dpaudit.checks.empirical.noise_multiplier_fit import NOISE_MODELS
from dpaudit.checks.empirical.parametric import DEFAULT_CONFIDENCE
from dpaudit.errors import DpAuditError
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.mechanisms.catalogue import get_mechanism

__all__ = ["IMPLIED_PREFIX", "implied_obligations"]

#: The id prefix of an obligation dpaudit added to a candidate audit.
IMPLIED_PREFIX = "implied-"

#: Samples per side of the implied parametric fit (full run, ``--quick``).
FIT_SAMPLES = 50_000
FIT_SAMPLES_QUICK = 20_000

#: Samples per side of the implied black-box audit when no obligation of the spec states a budget
#: (full run, ``--quick``).
BLACK_BOX_SAMPLES = 1_000_000
BLACK_BOX_SAMPLES_QUICK = 100_000

#: The noise family of a release that is Gaussian given its input, its covariance depending on it:
#: fitted by ``gaussian_release_fit`` (:mod:`dpaudit.checks.empirical.gaussian_release_fit`).
GAUSSIAN_RELEASE = "gaussian_release"

#: Families whose mechanisms are stated as y = X + noise: the implied fit also tries the inputs
#: as centres (a tested assumption; see :mod:`dpaudit.checks.empirical.parametric`).
CENTRED_FAMILIES = ("gaussian", "laplace")


def _spec_pairs(obligations: tuple[Obligation, ...]) -> dict[str, Any]:
    """The ``pairs`` of the first obligation that names some, as a params fragment."""
    for obligation in obligations:
        if "pairs" in obligation.params:
            return {"pairs": obligation.params["pairs"]}
    return {}


def _stated_samples(obligations: tuple[Obligation, ...], *, quick: bool) -> int | None:
    """The largest whole ``samples`` the obligations state (their ``quick`` table's under ``quick``); a
    randomness contract's ``samples`` count seeds, not draws, and are left out."""
    stated = [
        value
        for obligation in obligations
        if obligation.checker != "randomness_contract"
        for value in [(obligation.for_run(quick=True) if quick else obligation).params.get("samples")]
        if isinstance(value, int) and not isinstance(value, bool) and value >= 100
    ]
    return max(stated, default=None)


def _black_box(kept: tuple[Obligation, ...], pairs: dict[str, Any]) -> Obligation:
    """dpaudit's own black-box audit, with the spec's budget (see the module docstring)."""
    full = _stated_samples(kept, quick=False) or BLACK_BOX_SAMPLES
    quick = min(_stated_samples(kept, quick=True) or BLACK_BOX_SAMPLES_QUICK, full)
    return Obligation(
        id=f"{IMPLIED_PREFIX}black-box-epsilon",
        statement="added for every candidate audit: dpaudit's own black-box audit (input search; threshold, "
        "interval, half-space, classifier, atom and outcome events; escalation) certifies no epsilon above the claim",
        checker="empirical_epsilon_lower_bound",
        params={"samples": full, **pairs},
        quick_params={"samples": quick},
    )


def _fit(name: str, checker: str, statement: str, params: dict[str, Any]) -> Obligation:
    """An implied parametric fit: ``params`` with the fit's draws (full, quick) and confidence."""
    return Obligation(
        id=f"{IMPLIED_PREFIX}parametric-{name}-fit",
        statement=f"added for every candidate audit: {statement}",
        checker=checker,
        params={"samples": FIT_SAMPLES, "confidence": DEFAULT_CONFIDENCE, **params},
        quick_params={"samples": FIT_SAMPLES_QUICK},
    )


def _candidates(claim: Claim, kept: tuple[Obligation, ...], pairs: dict[str, Any]) -> list[Obligation]:
    mechanism = get_mechanism(claim.mechanism.name)
    if not mechanism.randomised:
        return []
    added = [_black_box(kept, pairs)]
    if claim.candidate_call.randomness == "rng":
        added.append(
            Obligation(
                id=f"{IMPLIED_PREFIX}randomness-contract",
                statement="added for every candidate audit: the outputs vary with the rng and repeat for one seed; "
                "an output that never varies is an atom (public noise)",
                checker="randomness_contract",
                params=dict(pairs),
            )
        )
    family = mechanism.noise_family
    if family == GAUSSIAN_RELEASE:
        statement = (
            "under a tested Gaussian release law (each input its own mean and covariance), the rigorous bound over the "
            "fit's confidence box on a held-out direction meets the claim"
        )
        added.append(_fit("gaussian-release", "gaussian_release_fit", statement, pairs))
    elif family is not None:
        statement = (
            f"under a tested {family} noise law, the exact profile at the least private corner of the fitted "
            "parameters' confidence region meets the claim"
        )
        centred = {"centres_at_inputs": True} if family in CENTRED_FAMILIES else {}
        added.append(_fit(family, "parametric_noise_fit", statement, {"family": family, **centred, **pairs}))
    if claim.mechanism.name in NOISE_MODELS:
        statement = (
            "under the kind's tested law with one fitted noise multiplier, the kind's exact worst case at the "
            "interval's most private end meets the claim"
        )
        added.append(_fit("noise-multiplier", "noise_multiplier_fit", statement, pairs))
    return added


def implied_obligations(claim: Claim, kept: tuple[Obligation, ...]) -> tuple[Obligation, ...]:
    """The obligations to add to a candidate audit of ``claim`` whose black-box obligations are ``kept``."""
    present = {obligation.checker for obligation in kept}
    taken = {obligation.id for obligation in claim.obligations}
    added = []
    for obligation in _candidates(claim, kept, _spec_pairs(kept)):
        if obligation.checker in present or obligation.id in taken:
            continue
        validate = get_checker(obligation.checker).validate
        try:
            if validate is not None:
                validate(obligation.params, claim)
        except DpAuditError:
            continue  # the claim is not of a form this check can refute (e.g. a pure claim and a Gaussian fit)
        added.append(obligation)
    return tuple(added)
