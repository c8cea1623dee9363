"""Checks every candidate audit runs, whether or not its spec names them.

A spec written for the reference points at the leaks its author thought of. Code nobody has
seen leaks elsewhere: noise from a fixed seed, a scale a few percent too small. So a candidate
audit always adds, on the pairs the spec names (or the reference's least private pairs):

* ``empirical_epsilon_lower_bound`` (for a randomised mechanism), dpaudit's own black-box audit:
  the input search, threshold, interval, half-space, classifier, atom and outcome events, and
  escalation, with the largest ``samples`` the spec's black-box obligations state (else
  :data:`BLACK_BOX_SAMPLES`), never fewer than :data:`BLACK_BOX_FLOOR`; a spec that names a simpler
  checker (a threshold Monte Carlo, a histogram, its own plugin) gets it too;
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

An obligation of the spec stands in for one of these only when it checks at least as much
(:func:`_stands_in`): the same checker and the same family, no param that narrows it (event families,
pairs, escalations, the input search, a capped certification) and at least the floor of draws.
Otherwise both run: a spec naming ``empirical_epsilon_lower_bound`` with ``events = ["threshold"]``
and ``search = "off"``, or 100 draws, still gets dpaudit's own. These checks need neighbouring pairs: for
a kind that proposes none, a spec giving none (and no ``[candidate]`` datasets) is refused. The added
obligations say so in their statement, and the report lists them with the others.
"""

from __future__ import annotations

from typing import Any

from dpaudit.audit.plugins import get_checker
from dpaudit.checks.empirical.noise_multiplier_fit import NOISE_MODELS
from dpaudit.checks.empirical.parametric import DEFAULT_CONFIDENCE
from dpaudit.checks.empirical.sampling import no_pairs
from dpaudit.errors import DpAuditError, InvalidArgument
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.views import AuditPairsView

__all__ = ["BLACK_BOX_FLOOR", "IMPLIED_PREFIX", "NARROWING", "implied_obligations"]

#: The id prefix of an obligation dpaudit added to a candidate audit.
IMPLIED_PREFIX = "implied-"

#: Samples per side of the implied parametric fit (full run, ``--quick``).
FIT_SAMPLES = 50_000
FIT_SAMPLES_QUICK = 20_000

#: Samples per side of the implied black-box audit when no obligation of the spec states a budget
#: (full run, ``--quick``).
BLACK_BOX_SAMPLES = 1_000_000
BLACK_BOX_SAMPLES_QUICK = 100_000

#: The fewest draws per side of the implied black-box audit, whatever the spec's obligations state (a release
#: that leaks with probability 10^-3 then shows about 100 times per side), ``--quick`` included.
BLACK_BOX_FLOOR = 100_000

#: The fewest draws per side of a spec's own fit that stands in for the implied one.
FIT_FLOOR = 20_000

#: The params that narrow a check: a spec's obligation setting one does not stand in for dpaudit's own.
NARROWING = {
    "empirical_epsilon_lower_bound": frozenset(
        {"events", "max_pairs", "escalations", "search", "certification_ceiling"}
    )
}

#: Params of an implied obligation that are its budget or its inputs, not what it checks.
_BUDGET = frozenset({"samples", "confidence", "pairs"})

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
    full = max(_stated_samples(kept, quick=False) or BLACK_BOX_SAMPLES, BLACK_BOX_FLOOR)
    quick = min(max(_stated_samples(kept, quick=True) or BLACK_BOX_SAMPLES_QUICK, BLACK_BOX_FLOOR), full)
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
    if claim.candidate_call.randomness != "external":
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


def _stands_in(own: Obligation, added: Obligation) -> bool:
    """Whether the spec's obligation ``own`` checks at least what ``added`` would (see the module docstring)."""
    if own.checker != added.checker:
        return False
    if any(own.params.get(key) != value for key, value in added.params.items() if key not in _BUDGET):
        return False  # another family, or the inputs not taken as centres
    if NARROWING.get(own.checker, frozenset()) & (set(own.params) | set(own.quick_params)):
        return False
    floor = {"empirical_epsilon_lower_bound": BLACK_BOX_FLOOR, "randomness_contract": 0}.get(own.checker, FIT_FLOOR)
    samples = own.params.get("samples")
    return not isinstance(samples, int) or isinstance(samples, bool) or samples >= floor  # absent, "auto": enough


def _check_pairs_given(claim: Claim, kept: tuple[Obligation, ...]) -> None:
    """Refuse a claim whose kind proposes no pairs when neither the spec's obligations nor its
    ``[candidate]`` table give any: dpaudit's own checks would have nothing to run on."""
    if _spec_pairs(kept) or claim.candidate_inputs.datasets is not None:
        return
    if not isinstance(build_mechanism(claim.mechanism.name, claim.mechanism.params), AuditPairsView):
        raise InvalidArgument(
            f"dpaudit's own black-box checks, added to every candidate audit, need pairs: {no_pairs(claim)}"
        )


def implied_obligations(claim: Claim, kept: tuple[Obligation, ...]) -> tuple[Obligation, ...]:
    """The obligations to add to a candidate audit of ``claim`` whose black-box obligations are ``kept``.

    Raises:
        InvalidArgument: when the checks need pairs that neither the kind nor the spec gives.
    """
    taken = {obligation.id for obligation in claim.obligations}
    candidates = _candidates(claim, kept, _spec_pairs(kept))
    if candidates:
        _check_pairs_given(claim, kept)
    added = []
    for obligation in candidates:
        if obligation.id in taken or any(_stands_in(own, obligation) for own in kept):
            continue
        validate = get_checker(obligation.checker).validate
        try:
            if validate is not None:
                validate(obligation.params, claim)
        except DpAuditError:
            continue  # the claim is not of a form this check can refute (e.g. an approximate claim and a Laplace fit)
        added.append(obligation)
    return tuple(added)
