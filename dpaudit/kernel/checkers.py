"""The checker protocol and registry: checkers are registered by name and looked up from specs.

The kernel never imports a checker: the checks layer registers its checkers when imported,
and the runner (:mod:`dpaudit.audit.plugins`) imports the built-in ones and those that
plugins declare, before it looks one up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

from dpaudit.errors import CheckerError, InvalidArgument, UnknownName
from dpaudit.kernel.checker_config import CheckerConfig, config_parameters, config_quick_caps, parse_config
from dpaudit.mechanisms.views import as_view, view_names

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from dpaudit.kernel.claims import Claim, Obligation
    from dpaudit.kernel.evidence import Evidence
    from dpaudit.privacy.relations import Relation

__all__ = ["CheckContext", "CheckerEntry", "register_checker", "registered_checker", "registered_checkers"]

View = TypeVar("View")


@dataclass(frozen=True)
class CheckContext:
    """What a checker receives besides its obligation.

    Attributes:
        claim: the claim the obligation belongs to.
        relation: the neighbouring relation this run audits the claim under.
        rng: the generator for this obligation (spawned from the audit's seed).
        seed: the SeedSequence behind ``rng``, for checkers that spawn parallel work.
        quick: use the reduced budgets a spec states for ``--quick`` runs.
        executor: where to run parallel work (``None``: run in process).
        candidate: a loaded candidate implementation, when auditing one.
        mechanism_factory: builds the mechanism under audit from the claim's public
            parameters instead of the registered reference (used to audit mutants).
        decided: evidence the checker has already decided before an optional refinement (e.g.
            shrinking a counterexample); when the time budget interrupts the refinement, the
            runner reports this instead of ``inconclusive`` (budget).
    """

    claim: Claim
    relation: Relation
    rng: np.random.Generator
    seed: np.random.SeedSequence
    quick: bool = False
    executor: Executor | None = None
    candidate: Any = None
    mechanism_factory: Callable[..., Any] | None = None
    decided: list[Any] = field(default_factory=list)

    def mechanism(self) -> Any:
        """The mechanism under audit: the candidate when one is loaded, else the mutant or
        override when one is set, else the registered reference.

        Raises:
            InvalidArgument: if the claim's parameters do not fit the mechanism.
        """
        from dpaudit.mechanisms.catalogue import build_mechanism

        if self.candidate is not None:
            return self.candidate
        if self.mechanism_factory is not None:
            return self.mechanism_factory(**self.claim.mechanism.params)
        return build_mechanism(self.claim.mechanism.name, self.claim.mechanism.params)

    def view(self, view: Callable[..., View]) -> View:
        """The mechanism under audit (as :meth:`mechanism` builds it), typed as the white-box view ``view``.

        ``view`` is a Protocol of :mod:`dpaudit.mechanisms.views` (or a plugin's): the claim's mechanism
        must declare it and the mechanism under audit (a mutant, a candidate) must implement it. (A
        Protocol is typed here as the callable it is: mypy refuses a Protocol where ``type[View]`` is
        expected.)

        Raises:
            InvalidArgument: naming the view, when the mechanism does not offer it.
        """
        from dpaudit.mechanisms.catalogue import get_mechanism

        protocol = as_view(cast(type, view), where=f"claim {self.claim.id!r}")
        get_mechanism(self.claim.mechanism.name).require_view(protocol)
        mechanism = self.mechanism()
        if not isinstance(mechanism, protocol):
            raise InvalidArgument(
                f"the mechanism under audit ({type(mechanism).__name__}) does not implement the white-box views "
                f"{view_names([protocol])} that mechanism={self.claim.mechanism.name!r} declares"
            )
        return cast(View, mechanism)

    def sampled_mechanism(self) -> Any:
        """The mechanism under audit as black-box checks sample it: ``release(data, *, rng, size)``
        on the inputs a spec gives. A reference whose own ``release`` takes the input apart is
        seen through its mechanism's release adapter; candidates and mutants are as they are.
        """
        from dpaudit.mechanisms.catalogue import AdaptedReference, get_mechanism

        mechanism = self.mechanism()
        if self.candidate is not None or self.mechanism_factory is not None:
            return mechanism
        adapter = get_mechanism(self.claim.mechanism.name).release_adapter
        return mechanism if adapter is None else AdaptedReference(mechanism, adapter)


CheckerFunction = Callable[["Obligation", CheckContext], "Evidence"]
ParamsValidator = Callable[[dict[str, Any], "Claim"], None]


@dataclass(frozen=True)
class CheckerEntry:
    """A registered checker: its function, a one-line description, an optional validator
    that the spec loader calls on the obligation's params (raising SpecError/InvalidArgument),
    whether it audits a candidate from its outputs alone (black box), and the
    :class:`~dpaudit.kernel.checker_config.CheckerConfig` its params are declared by (``None``
    for a checker registered with a hand-written ``validate`` and ``parameters`` only)."""

    name: str
    function: CheckerFunction
    description: str
    validate: ParamsValidator | None = None
    audits_candidates: bool = False
    requires_views: frozenset[type] = frozenset()
    batch_by_relation: bool = False
    quick_caps: Mapping[str, int] = field(default_factory=dict)
    parameters: Mapping[str, str] = field(default_factory=dict)
    config: type[CheckerConfig] | None = None

    def quick_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` under ``--quick`` when the obligation has no ``quick`` table of its own: each
        budget in :attr:`quick_caps` capped (set when absent); ``samples = "auto"`` is left alone."""
        capped = dict(params)
        for key, cap in self.quick_caps.items():
            value = capped.get(key)
            if value is None or (isinstance(value, int) and not isinstance(value, bool) and value > cap):
                capped[key] = cap
        return capped


_REGISTRY: dict[str, CheckerEntry] = {}


def register_checker(
    name: str,
    *,
    description: str,
    config: type[CheckerConfig] | None = None,
    validate: ParamsValidator | None = None,
    audits_candidates: bool = False,
    requires_views: tuple[type | str, ...] = (),
    batch_by_relation: bool = False,
    quick_caps: Mapping[str, int] | None = None,
    parameters: Mapping[str, str] | None = None,
) -> Callable[[CheckerFunction], CheckerFunction]:
    """Register the decorated function as checker ``name``.

    ``config``: the frozen dataclass (a :class:`~dpaudit.kernel.checker_config.CheckerConfig`)
    that declares the checker's params; the spec loader's check (unknown keys, types, bounds,
    defaults, then the config's ``check_claim``), the ``parameters`` table and the ``quick_caps``
    follow from its fields, and the checker reads its params with
    :func:`~dpaudit.kernel.checker_config.parse_config`.
    ``validate``: a validator ``(params, claim)`` the spec loader calls on the obligation's params;
    with a ``config``, it runs after the config's checks.
    ``audits_candidates``: the checker needs only ``context.mechanism().release`` (black
    box), so ``dpaudit check`` may run it on a candidate implementation.
    ``requires_views``: the white-box views (Protocols of :mod:`dpaudit.mechanisms.views`, or a
    plugin's) the checker calls on the reference, through ``context.view(...)``; a spec naming it for
    a mechanism without them is refused. A view's string name (``"privacy_profile"``) is deprecated.
    ``batch_by_relation``: the checker's obligations of one claim under one relation share
    one computation (e.g. an exhaustive sweep that decides every statement at once), so a
    scheduler runs them together, in the spec's order; otherwise each obligation is a task of
    its own (with all its relations).
    ``quick_caps``: the budgets ``--quick`` caps when an obligation has no ``quick`` table
    (e.g. ``{"samples": 100_000}``), documented in docs/checkers.md (default: those the
    ``config``'s fields declare).
    ``parameters``: each param the checker reads, with its type, default and meaning, for the
    generated reference docs/checkers.md (default: derived from the ``config``).

    Raises:
        CheckerError: if the name is already taken, or a field of ``config`` is not a ``param``.
        InvalidArgument: for a view that is not a runtime-checkable Protocol.
    """
    views = frozenset(as_view(view, where=f"checker {name!r}", stacklevel=3) for view in requires_views)

    def decorate(function: CheckerFunction) -> CheckerFunction:
        if name in _REGISTRY:
            raise CheckerError(f"checker {name!r} is registered twice")
        derived = config_parameters(config) if config is not None else {}
        caps = config_quick_caps(config) if config is not None else {}
        _REGISTRY[name] = CheckerEntry(
            name,
            function,
            description,
            validate if config is None else _config_validator(config, validate),
            audits_candidates,
            views,
            batch_by_relation,
            dict(caps if quick_caps is None else quick_caps),
            dict(derived if parameters is None else parameters),
            config,
        )
        return function

    return decorate


def _config_validator(config: type[CheckerConfig], extra: ParamsValidator | None) -> ParamsValidator:
    """The spec loader's check of a checker declared by ``config``: parse the params, check them
    against the claim, then run the checker's own ``extra`` validator if it has one."""

    def validate(params: dict[str, Any], claim: Claim) -> None:
        parse_config(config, params).check_claim(claim)
        if extra is not None:
            extra(params, claim)

    return validate


def registered_checker(name: str) -> CheckerEntry:
    """The checker ``name`` among those registered so far in this process.

    Only the runner calls this: everything else looks a checker up with
    :func:`dpaudit.audit.plugins.get_checker`, which imports the built-in and plugin checkers first.

    Raises:
        UnknownName: naming the known checkers when ``name`` is unknown.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownName("checker", name, _REGISTRY) from None


def registered_checkers() -> list[CheckerEntry]:
    """The checkers registered so far in this process, sorted by name (see :func:`registered_checker`)."""
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]
