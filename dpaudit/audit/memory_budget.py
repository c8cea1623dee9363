"""Memory budgets: an audit that would exhaust the machine stops with ``inconclusive (budget)``.

The ceiling ``memory_mib`` bounds the auditor's data segment (``RLIMIT_DATA``: heap and private
writable mappings, where numpy's arrays live). The command line's ceiling (the machine's
physical memory unless lowered) is set once when a command starts, so every worker process the
audit starts inherits it; a spec's ``[ceilings] memory_mib`` lowers it further while that spec's
obligations run in the process that runs them. An allocation past the limit raises MemoryError,
which the runner reports as ``inconclusive`` (budget: memory); nothing is claimed from the partial
work. A candidate's own processes have their separate ``--memory`` limit.
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["lift_memory_limit", "limit_memory", "memory_limit"]

_MIB = 2**20


def limit_memory(mib: float) -> None:
    """Lower this process's data-segment limit to ``mib`` (never raise it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = int(mib * _MIB)
    for limit in (soft, hard):
        if limit != resource.RLIM_INFINITY:
            wanted = min(wanted, limit)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))


@contextmanager
def memory_limit(mib: float | None) -> Iterator[None]:
    """Lower the data-segment limit to ``mib`` inside the body and restore it after (nothing for ``None``)."""
    if mib is None:
        yield
        return
    previous = resource.getrlimit(resource.RLIMIT_DATA)
    limit_memory(mib)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, previous)


def lift_memory_limit() -> None:
    """Raise the soft limit back to the hard one (to report an exhausted budget)."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
