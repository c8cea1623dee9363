"""Opacus's privacy accountants (RDP, PRV, GDP) as candidates of the ``accountant`` kind, with the
library's own parameters, without torch (docs/adapters.md).

Each function receives one accounting point ``{records, noise_multiplier, steps, delta}`` (N steps of
the Poisson-subsampled Gaussian mechanism, q = 1/records), builds Opacus's accountant of its name,
calls ``step(noise_multiplier=..., sample_rate=q)`` N times, as DP-SGD training does, and returns
``get_epsilon(delta, ...)`` with the keywords it is given (Opacus's own: ``alphas`` for RDP,
``eps_error`` and ``delta_error`` for PRV, ``poisson`` for GDP). ``rdp`` also answers a point
``{records, noise_multiplier, steps, order}``: the RDP the accountant sums over its history at that
order (``privacy_analysis.compute_rdp``, the function ``RDPAccountant.get_privacy_spent`` calls).

**Without torch.** ``import opacus`` imports torch, but the accountants are numpy and scipy: the
classes ``RDPAccountant``, ``PRVAccountant`` and ``GaussianAccountant`` and their ``analysis``
modules, as the installed Opacus ships them, are loaded from its ``accountants`` folder as a private
package (``_dpaudit_opacus_accountants``), so their relative imports resolve among themselves. Their
one import of torch code, ``from opacus.optimizers import DPOptimizer`` in ``accountant.py``, is only
the type of the optimizer a training hook attaches to: while the folder loads, that name is a
placeholder class that refuses to be built (the hook is never used here), and the placeholder is
removed afterwards. Every line that computes ε is Opacus's own. ``pip install --no-deps opacus``
(beside numpy and scipy) is all it needs; ``pip install 'dpaudit[opacus]'`` installs Opacus with torch.

An accountant is deterministic: ``rng`` is accepted and not used.

References:
    Mironov, Talwar & Zhang 2019 (RDP); Gopi, Lee & Wutschitz 2021 (PRV); Dong, Roth & Su 2019,
    Bu, Dong, Long & Su 2020 (GDP: a central-limit approximation, which Opacus calls experimental).
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from dpaudit.adapters._subsampled_gaussian import rdp_order, sampling_probability, target_delta
from dpaudit.errors import CandidateLoadError

__all__ = ["gdp", "prv", "rdp"]

_PACKAGE = "_dpaudit_opacus_accountants"
_OPTIMIZERS = "opacus.optimizers"


class _TorchOptimizerPlaceholder:
    """Stands for ``opacus.optimizers.DPOptimizer`` (a torch optimizer) while the accountants load."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise CandidateLoadError("Opacus's DPOptimizer needs torch; dpaudit loads only Opacus's accountants")


@contextmanager
def _optimizer_type_placeholder() -> Iterator[None]:
    """``opacus.optimizers`` as a module holding only the placeholder type, unless it is already imported."""
    if _OPTIMIZERS in sys.modules:
        yield
        return
    placeholder = types.ModuleType(_OPTIMIZERS)
    placeholder.DPOptimizer = _TorchOptimizerPlaceholder  # type: ignore[attr-defined]
    sys.modules[_OPTIMIZERS] = placeholder
    try:
        yield
    finally:
        if sys.modules.get(_OPTIMIZERS) is placeholder:
            del sys.modules[_OPTIMIZERS]


def _missing(reason: str) -> CandidateLoadError:
    return CandidateLoadError(
        f"this adapter needs Opacus's accountants, which could not be loaded ({reason}); install them with: "
        "pip install --no-deps 'opacus>=1.5' (no torch needed), or pip install 'dpaudit[opacus]' (with torch)"
    )


def _accountants() -> Any:
    """Opacus's ``accountants`` package, loaded from the installed Opacus without importing torch."""
    loaded = sys.modules.get(_PACKAGE)
    if loaded is not None:
        return loaded
    try:
        found = importlib.util.find_spec("opacus")  # finds the folder; does not run opacus/__init__.py
    except (ImportError, ValueError):  # a stand-in 'opacus' module without a spec is already imported
        found = None
    if found is None or not found.submodule_search_locations:
        raise _missing("opacus is not installed")
    folder = Path(next(iter(found.submodule_search_locations))) / "accountants"
    spec = importlib.util.spec_from_file_location(
        _PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None or not (folder / "__init__.py").is_file():
        raise _missing(f"no accountants package in {folder.parent}")
    package = importlib.util.module_from_spec(spec)
    with _optimizer_type_placeholder():
        sys.modules[_PACKAGE] = package
        try:
            spec.loader.exec_module(package)
        except Exception as exc:
            for name in [name for name in sys.modules if name == _PACKAGE or name.startswith(_PACKAGE + ".")]:
                del sys.modules[name]
            raise _missing(f"{type(exc).__name__}: {exc}") from exc
    return package


def _stepped(accountant: Any, point: Mapping[str, Any]) -> Any:
    """``accountant`` after N calls of ``step``, one per training step of the point."""
    for _ in range(int(point["steps"])):
        accountant.step(noise_multiplier=float(point["noise_multiplier"]), sample_rate=sampling_probability(point))
    return accountant


def rdp(point: Mapping[str, Any], *, rng: np.random.Generator, alphas: Sequence[float] | None = None) -> float:
    """ε at δ from ``RDPAccountant().get_epsilon(delta, alphas)`` (Opacus's default orders without
    ``alphas``); for an RDP point, the RDP of the accountant's history at the point's order."""
    accountants = _accountants()
    accountant = _stepped(accountants.RDPAccountant(), point)
    order = rdp_order(point)
    if order is None:
        delta = target_delta(point, "RDPAccountant")
        return float(accountant.get_epsilon(delta, None if alphas is None else list(alphas)))
    analysis = accountants.rdp.privacy_analysis
    return float(
        sum(
            analysis.compute_rdp(q=rate, noise_multiplier=sigma, steps=steps, orders=[order])[0]
            for sigma, rate, steps in accountant.history
        )
    )


def prv(
    point: Mapping[str, Any],
    *,
    rng: np.random.Generator,
    eps_error: float = 0.01,
    delta_error: float | None = None,
) -> float:
    """ε at δ from ``PRVAccountant().get_epsilon(delta, eps_error=..., delta_error=...)`` (its upper bound)."""
    accountant = _stepped(_accountants().PRVAccountant(), point)
    delta = target_delta(point, "PRVAccountant")
    return float(accountant.get_epsilon(delta, eps_error=eps_error, delta_error=delta_error))


def gdp(point: Mapping[str, Any], *, rng: np.random.Generator, poisson: bool = True) -> float:
    """ε at δ from ``GaussianAccountant().get_epsilon(delta, poisson)`` (Gaussian DP, a CLT approximation)."""
    accountant = _stepped(_accountants().GaussianAccountant(), point)
    return float(accountant.get_epsilon(target_delta(point, "GaussianAccountant"), poisson=poisson))
