"""The stable surface for plugins: everything a third-party mechanism or checker needs.

A plugin package declares its mechanisms in the ``dpaudit.mechanisms`` entry-point group (each a
:class:`Mechanism`) and a module of checkers in ``dpaudit.checkers`` (a module that calls
:func:`register_checker` when imported), and imports only from this module::

    from dpaudit.plugin import CheckContext, CheckerConfig, Evidence, Obligation, Verdict, param, parse_config

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
  :class:`OutputSpec`, :class:`CandidateSignature`; the white-box views a reference may offer are the
  method names in :data:`KNOWN_VIEWS` (:data:`GAUSSIAN_VIEW` is one of them);
- a checker: a function ``(obligation, context) -> Evidence`` registered with
  :func:`register_checker`; it reads :class:`Obligation` (its ``params``), :class:`CheckContext`
  (the :class:`Claim`, the :class:`Relation`, the seeded ``rng``, ``context.mechanism()``) and
  returns :class:`Evidence` with a :class:`Verdict` and its :class:`Measurement` rows;
- a checker's params: one frozen dataclass subclassing :class:`CheckerConfig`, each field a
  :func:`param` (type, default, bounds or choices, meaning; a :class:`ParamRule`); registered with
  ``register_checker(config=...)``, it gives the spec loader's check (an unknown key refused naming
  the accepted ones, types, bounds, defaults, then the config's ``check_claim(claim)``), the docs
  table and the ``--quick`` caps; the checker reads ``parse_config(TheConfig, obligation.params)``.
  :func:`param_of` reuses another field's rule. A plugin may instead pass ``validate=`` (a function
  ``(params, claim)`` raising :class:`InvalidArgument`) and ``parameters=`` (name -> meaning): both
  keep working, with or without a config (docs/ARCHITECTURE.md, "Adding a checker");
- errors: a validator raises :class:`InvalidArgument` for bad params; an unknown checker or
  mechanism name raises :class:`UnknownName` (an InvalidArgument); a plugin that fails to import
  is a :class:`PluginError`; all are a :class:`DpAuditError`.
"""

from __future__ import annotations

from dpaudit.errors import DpAuditError, InvalidArgument, PluginError, UnknownName
from dpaudit.kernel.checker_config import CheckerConfig, ParamRule, param, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, CheckerEntry, register_checker
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict
from dpaudit.mechanisms.inputs import PROBABILITY_VECTOR, REAL_VECTOR, TRAJECTORIES
from dpaudit.mechanisms.interface import (
    GAUSSIAN_VIEW,
    KNOWN_VIEWS,
    CandidateSignature,
    InputDomain,
    Mechanism,
    Neighbourhood,
    OutputSpec,
)
from dpaudit.privacy.relations import Relation

__all__ = [
    "GAUSSIAN_VIEW",
    "KNOWN_VIEWS",
    "PROBABILITY_VECTOR",
    "REAL_VECTOR",
    "TRAJECTORIES",
    "CandidateSignature",
    "CheckContext",
    "CheckerConfig",
    "CheckerEntry",
    "Claim",
    "DpAuditError",
    "Evidence",
    "InputDomain",
    "InvalidArgument",
    "Measurement",
    "Mechanism",
    "MechanismSpec",
    "Neighbourhood",
    "Obligation",
    "OutputSpec",
    "ParamRule",
    "PluginError",
    "Relation",
    "Source",
    "UnknownName",
    "Verdict",
    "param",
    "param_of",
    "parse_config",
    "register_checker",
]
