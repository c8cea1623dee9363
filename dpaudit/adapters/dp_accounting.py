"""Google's dp_accounting accountants as candidates of the ``accountant`` kind, with the library's
own parameters (docs/adapters.md).

Each function receives one accounting point ``{records, noise_multiplier, steps, delta}`` (N steps of
the Poisson-subsampled Gaussian mechanism, q = 1/records), builds dp_accounting's event for it,
``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(noise_multiplier)), steps)``, composes
it into the accountant of its name, built with the keywords it is given (dp_accounting's own:
``orders``, ``value_discretization_interval``, ``neighboring_relation`` by its ``NeighboringRelation`` member
name), and returns ``get_epsilon(delta)``. dpaudit then compares that ε with its certified
enclosure of the true ε under the claim's relation (checker ``accountant_certified``). ``rdp`` also
answers a point ``{records, noise_multiplier, steps, order}``: the ``rdp`` of an ``RdpAccountant`` built
with ``orders = [order]`` after the same composition (its RDP curve, read at that order).

An accountant is deterministic: ``rng`` is accepted and not used. An event the accountant does not
support raises dp_accounting's own error, and the audit says so (``error``): nothing is approximated here.

Use, e.g. (specs/examples/ecosystem/)::

    dpaudit check specs/examples/ecosystem/dp_accounting_rdp.toml \\
        --candidate dpaudit.adapters.dp_accounting:rdp

References:
    Mironov 2017 and Mironov, Talwar & Zhang 2019 (the RDP accountant); Doroshenko, Ghazi, Kamath,
    Kumar & Manurangsi 2022 (the PLD accountant).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dpaudit._validation import check_choice
from dpaudit.adapters._library import import_library
from dpaudit.adapters._subsampled_gaussian import rdp_order, sampling_probability, target_delta

__all__ = ["pld", "rdp"]


def _library() -> Any:
    return import_library("dp_accounting", extra="dp-accounting", library="dp-accounting")


def _composed(accountant: Any, library: Any, point: Mapping[str, Any]) -> Any:
    """``accountant`` after composing the point's N Poisson-subsampled Gaussian steps."""
    step = library.PoissonSampledDpEvent(
        sampling_probability(point), library.GaussianDpEvent(float(point["noise_multiplier"]))
    )
    accountant.compose(library.SelfComposedDpEvent(step, int(point["steps"])))
    return accountant


def rdp(
    point: Mapping[str, Any],
    *,
    rng: np.random.Generator,
    orders: Sequence[float] | None = None,
    neighboring_relation: str = "ADD_OR_REMOVE_ONE",
) -> float:
    """ε at δ from ``dp_accounting.rdp.RdpAccountant(orders, NeighboringRelation[neighboring_relation])``
    (its default orders when ``orders`` is not given); for an RDP point, its ``rdp`` at the point's order."""
    library = _library()
    relation = _relation(library, neighboring_relation)
    engine = import_library("dp_accounting.rdp", extra="dp-accounting", library="dp-accounting")
    order = rdp_order(point)
    if order is not None:
        return float(_composed(engine.RdpAccountant([order], relation), library, point).rdp[0])
    accountant = engine.RdpAccountant(None if orders is None else list(orders), relation)
    return float(_composed(accountant, library, point).get_epsilon(target_delta(point, "RdpAccountant")))


def pld(
    point: Mapping[str, Any],
    *,
    rng: np.random.Generator,
    value_discretization_interval: float = 1e-4,
    neighboring_relation: str = "ADD_OR_REMOVE_ONE",
) -> float:
    """ε at δ from ``dp_accounting.pld.PLDAccountant(NeighboringRelation[neighboring_relation],
    value_discretization_interval)``."""
    library = _library()
    relation = _relation(library, neighboring_relation)
    engine = import_library("dp_accounting.pld", extra="dp-accounting", library="dp-accounting")
    accountant = _composed(engine.PLDAccountant(relation, value_discretization_interval), library, point)
    return float(accountant.get_epsilon(target_delta(point, "PLDAccountant")))


def _relation(library: Any, name: str) -> Any:
    """``NeighboringRelation[name]``, or an error naming the members (a misspelt name was a raw KeyError)."""
    members = [member.name for member in library.NeighboringRelation]
    check_choice("neighboring_relation", name, tuple(members))
    return library.NeighboringRelation[name]
