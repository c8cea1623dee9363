"""Loading checkers: the built-in list and those plugins declare through entry points.

The kernel's registry (:mod:`dpaudit.kernel.checkers`) never imports a checker. This module,
in the runner layer above the checks, imports the built-in checker modules (each registers
its checkers when imported) and every module a plugin names in the ``dpaudit.checkers``
entry-point group::

    [project.entry-points."dpaudit.checkers"]
    my_checks = "my_package.checks"      # a module that calls register_checker on import

Everything that looks a checker up goes through :func:`get_checker` / :func:`list_checkers`.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from importlib.metadata import entry_points
from typing import Any

import numpy as np

import dpaudit.checks.accountants.certified_epsilon
import dpaudit.checks.accountants.end_to_end
import dpaudit.checks.accountants.moment_bounds
import dpaudit.checks.accountants.peers
import dpaudit.checks.accountants.tail_bound
import dpaudit.checks.candidate.conformance
import dpaudit.checks.empirical.epsilon_lower_bound
import dpaudit.checks.empirical.gaussian_release_fit
import dpaudit.checks.empirical.noise_multiplier_fit
import dpaudit.checks.empirical.parametric
import dpaudit.checks.empirical.privacy_loss_check
import dpaudit.checks.empirical.randomness
import dpaudit.checks.profiles.dirichlet
import dpaudit.checks.profiles.dirichlet_concentration
import dpaudit.checks.profiles.exact_profile
import dpaudit.checks.profiles.gaussian_mechanism
import dpaudit.checks.profiles.smooth_gaussian
import dpaudit.checks.sensitivity.balle2016
import dpaudit.checks.sensitivity.search
import dpaudit.checks.sensitivity.smooth_slack
import dpaudit.checks.symbolic.smoothness  # noqa: F401  (the imports above register the built-in checkers)
from dpaudit.errors import CheckerError, PluginError, UnknownName
from dpaudit.kernel import checkers as registry
from dpaudit.kernel.checkers import CheckContext, CheckerEntry
from dpaudit.kernel.claims import Claim, Obligation
from dpaudit.mechanisms.interface import Mechanism
from dpaudit.privacy.relations import Relation

__all__ = [
    "ENTRY_POINT_GROUP",
    "applicable_checkers",
    "found_by_a_fresh_process",
    "get_checker",
    "list_checkers",
    "load_plugin_checkers",
    "obligation_context",
    "obligation_for_run",
]

ENTRY_POINT_GROUP = "dpaudit.checkers"

_loaded: list[bool] = []
#: The checkers that importing the plugins' entry points registered.
_from_plugins: set[str] = set()


def load_plugin_checkers() -> None:
    """Import every module of the ``dpaudit.checkers`` entry points (once).

    Raises:
        PluginError: naming the entry point that fails to import.
    """
    if _loaded:
        return
    _loaded.append(True)
    before = {entry.name for entry in registry.registered_checkers()}
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name):
        try:
            importlib.import_module(point.value.split(":")[0])
        except CheckerError:
            raise
        except Exception as exc:  # a broken plugin is named, not a crash
            raise PluginError(
                f"entry point {point.name!r} ({point.value}) of {ENTRY_POINT_GROUP} failed to import: {exc}"
            ) from exc
    _from_plugins.update({entry.name for entry in registry.registered_checkers()} - before)


def found_by_a_fresh_process(name: str) -> bool:
    """Whether a worker process that imports this module finds checker ``name`` as this process
    does: built in, registered by a plugin's entry point, or unknown here too (its obligation is the
    same ``error`` wherever it runs); not one that a script or a test registered in this process.
    """
    try:
        entry = get_checker(name)
    except UnknownName:
        return True
    return entry.function.__module__.startswith("dpaudit.checks.") or name in _from_plugins


def get_checker(name: str) -> CheckerEntry:
    """The checker ``name``, built in or from a plugin.

    Raises:
        UnknownName: naming the known checkers (and the closest) when ``name`` is unknown.
    """
    load_plugin_checkers()
    return registry.registered_checker(name)


def list_checkers() -> list[CheckerEntry]:
    """Every checker, built in or from a plugin, sorted by name."""
    load_plugin_checkers()
    return registry.registered_checkers()


def applicable_checkers(mechanism: Mechanism) -> list[CheckerEntry]:
    """The checkers whose required white-box views ``mechanism``'s reference offers."""
    return [entry for entry in list_checkers() if entry.requires_views <= mechanism.views]


def obligation_for_run(obligation: Obligation, quick: bool) -> Obligation:
    """The obligation as it runs: its ``quick`` table applied under ``--quick``, or, when it has
    none, its checker's documented quick caps (``CheckerEntry.quick_caps``; docs/checkers.md)."""
    run = obligation.for_run(quick=quick)
    if quick and not obligation.quick_params:
        try:
            checker = get_checker(obligation.checker)
        except UnknownName:
            return run  # an unknown checker is reported as the obligation's error when it runs
        run = replace(run, params=checker.quick_params(run.params))
    return run


def obligation_context(
    claim: Claim, obligation: Obligation, relation: Relation, sequence: np.random.SeedSequence, quick: bool, **run: Any
) -> CheckContext:
    """The context ``obligation`` of ``claim`` runs in under ``relation`` (when the audit runs it, and
    when a recheck runs it again): the claim as the obligation sees it, a generator of the obligation's
    seed ``sequence`` and the sequence itself; ``run``: the executor, candidate or mechanism factory."""
    return CheckContext(
        claim=claim.for_obligation(obligation),
        relation=relation,
        rng=np.random.default_rng(sequence),
        seed=sequence,
        quick=quick,
        **run,
    )
