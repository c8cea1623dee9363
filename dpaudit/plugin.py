"""The stable surface for plugins: everything a third-party mechanism or checker needs.

A plugin package declares its mechanisms in the ``dpaudit.mechanisms`` entry-point group (each a
:class:`Mechanism`) and a module of checkers in ``dpaudit.checkers`` (a module that calls
:func:`register_checker` when imported), and imports only from this module::

    from dpaudit.plugin import CheckContext, Evidence, Measurement, Obligation, Verdict, register_checker
    from dpaudit.plugin import CheckerConfig, param, parse_config  # a checker's params
    from dpaudit.plugin import PrivacyProfileView  # a white-box view a checker reads

**Stability policy.** The names in ``__all__`` below, with the fields, arguments and methods they
document, follow semantic versioning from dpaudit 1.0: a minor release may add a name, a keyword
argument with a default or a field with a default, never remove or rename one or change what it
means; a removal is announced by a ``DeprecationWarning`` for at least one minor release first.
Before 1.0 a breaking change to this surface is named in the changelog of the release that makes it.
Everything outside this module (``dpaudit.kernel``, ``dpaudit.mechanisms``, ``dpaudit.checks``, ...)
is internal and may change in any release, even where this module re-exports from it: import the
name from here, not from where it is defined.

What each name is (docs/ARCHITECTURE.md has the glossary and docs/checkers.md the built-in checkers):

- a mechanism: :class:`Mechanism` and its parts :class:`InputDomain` (the shared ones:
  :data:`REAL_VECTOR`, :data:`PROBABILITY_VECTOR`, :data:`TRAJECTORIES`), :class:`Neighbourhood`,
  :class:`OutputSpec`, :class:`CandidateSignature`;
- a white-box view (what a reference offers beyond ``release``): a ``@runtime_checkable``
  ``typing.Protocol`` of one method: :class:`AuditPairsView`, :class:`ConcentrationView`,
  :class:`GaussianShiftView`, :class:`GaussianView`, :class:`LaplaceView`, :class:`PerStepView`,
  :class:`PrivacyProfileView`, :class:`StatisticsView` (or a plugin's own Protocol). A reference
  class declares the views it implements by subclassing them (mypy then checks its methods), its
  :class:`Mechanism` lists them in ``views``;
- a checker: a function ``(obligation, context) -> Evidence`` registered with
  :func:`register_checker` (``requires_views=(PrivacyProfileView,)`` names the views it reads: a spec
  pairing it with a mechanism without them is refused); it reads :class:`Obligation` (its
  ``params``), :class:`CheckContext` (the :class:`Claim`, the :class:`Relation`, the seeded ``rng``,
  ``context.mechanism()``, and ``context.view(PrivacyProfileView)``: the mechanism typed as the
  view, or InvalidArgument naming it) and returns :class:`Evidence` with a :class:`Verdict` and its
  :class:`Measurement` rows;
- a checker's params: one frozen dataclass subclassing :class:`CheckerConfig`, each field a
  :func:`param` (type, default, bounds or choices, meaning; a :class:`ParamRule`); registered with
  ``register_checker(config=...)``, it gives the spec loader's check (an unknown key refused naming
  the accepted ones, types, bounds, defaults, then the config's ``check_claim(claim)``), the docs
  table and the ``--quick`` caps; the checker reads ``parse_config(TheConfig, obligation.params)``.
  :func:`param_of` reuses another field's rule. A plugin may instead pass ``validate=`` (a function
  ``(params, claim)`` raising :class:`InvalidArgument`) and ``parameters=`` (name -> meaning): both
  keep working, with or without a config (docs/ARCHITECTURE.md, "How to add a checker");
- errors: a validator raises :class:`InvalidArgument` for bad params; an unknown checker or
  mechanism name raises :class:`UnknownName` (an InvalidArgument); a plugin that fails to import
  is a :class:`PluginError`; all are a :class:`DpAuditError`.

**Deprecated.** ``KNOWN_VIEWS`` and ``GAUSSIAN_VIEW`` (views named by strings) still import, with a
``DeprecationWarning``, and a string name in ``Mechanism(views=...)`` or ``requires_views`` is still
mapped to its Protocol, with a ``DeprecationWarning``; both go in the next minor release. Use the
view Protocols.
"""

from __future__ import annotations

import warnings
from typing import Any

from dpaudit.errors import DpAuditError, InvalidArgument, PluginError, UnknownName
from dpaudit.kernel.checker_config import CheckerConfig, ParamRule, param, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, CheckerEntry, register_checker
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.inputs import PROBABILITY_VECTOR, REAL_VECTOR, TRAJECTORIES
from dpaudit.mechanisms.interface import CandidateSignature, InputDomain, Mechanism, Neighbourhood, OutputSpec
from dpaudit.mechanisms.views import (
    DEPRECATED_VIEW_NAMES,
    AuditPairsView,
    ConcentrationView,
    GaussianShiftView,
    GaussianView,
    LaplaceView,
    PerStepView,
    PrivacyProfileView,
    StatisticsView,
)
from dpaudit.privacy.relations import Relation

__all__ = [
    "PROBABILITY_VECTOR",
    "REAL_VECTOR",
    "TRAJECTORIES",
    "AuditPairsView",
    "CandidateSignature",
    "CheckContext",
    "CheckerConfig",
    "CheckerEntry",
    "Claim",
    "ConcentrationView",
    "DpAuditError",
    "Evidence",
    "GaussianShiftView",
    "GaussianView",
    "InputDomain",
    "InvalidArgument",
    "LaplaceView",
    "Measurement",
    "Mechanism",
    "MechanismSpec",
    "Neighbourhood",
    "Obligation",
    "OutputSpec",
    "ParamRule",
    "PerStepView",
    "PluginError",
    "PrivacyProfileView",
    "Relation",
    "Source",
    "StatisticsView",
    "UnknownName",
    "Verdict",
    "param",
    "param_of",
    "parse_config",
    "register_checker",
]


#: The deprecated names of views as strings, with what each was (removed in the next minor release).
_DEPRECATED = {
    "GAUSSIAN_VIEW": ("gaussian_view", "GaussianView"),
    "KNOWN_VIEWS": (frozenset(DEPRECATED_VIEW_NAMES), "the view Protocols (AuditPairsView, ...)"),
}


def __getattr__(name: str) -> Any:
    """The deprecated names of :data:`_DEPRECATED`, with a ``DeprecationWarning``."""
    if name not in _DEPRECATED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value, replacement = _DEPRECATED[name]
    warnings.warn(
        f"dpaudit.plugin.{name} is deprecated (views are Protocols now): use {replacement}",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
