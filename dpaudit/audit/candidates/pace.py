"""How long a candidate audit would take, known before it samples for hours.

A few calls of the candidate on the spec's first input give its pace (seconds per output; a
vectorised ``sample`` entry point is timed on a batch). The obligations as they run state how
many outputs they draw at least: ``samples`` per side of both inputs of a pair. Their product is a
lower bound on the audit's time; when it already exceeds the time limit, the audit stops before
any check with a message that says how to make it fit. Without ``--time-limit`` a candidate
audit has :data:`DEFAULT_TIME_LIMIT` seconds; obligations still running when it is spent are
``inconclusive`` (budget).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from dpaudit.audit.plugins import obligation_for_run
from dpaudit.errors import CandidateError
from dpaudit.kernel.claims import Claim

__all__ = ["DEFAULT_TIME_LIMIT", "check_pace", "planned_outputs"]

#: The wall-time budget of a candidate audit when none is given (seconds).
DEFAULT_TIME_LIMIT = 3600.0

#: Calls timed for the pace, after one untimed call (a vectorised entry point: outputs of one batch); the
#: count doubles while a timed request takes under PROBE_SECONDS, up to PROBE_MAX outputs, so that the round
#: trip of one request to the worker is spread over many outputs as in the audit's own batches.
PROBE_CALLS = 8
PROBE_BATCH = 256
PROBE_SECONDS = 0.1
PROBE_MAX = 1 << 16

#: Checkers whose ``samples`` count something other than the candidate's outputs per side.
_NOT_OUTPUTS = frozenset({"randomness_contract"})


def planned_outputs(claim: Claim, quick: bool) -> int:
    """A lower bound on the outputs the audit draws: ``samples`` on both sides, per obligation."""
    total = 0
    for obligation in claim.obligations:
        if obligation.checker in _NOT_OUTPUTS:
            continue
        samples = obligation_for_run(obligation, quick).params.get("samples")
        if isinstance(samples, int) and not isinstance(samples, bool):
            total += 2 * samples
    return total


def check_pace(claim: Claim, mechanism: Any, data: Any, *, quick: bool, time_limit: float, ref: str) -> float | None:
    """Time the candidate on ``data`` and return its seconds per output (``None`` when the timed
    calls fail: the checks then report the failure as theirs).

    Raises:
        CandidateError: when the outputs the audit must draw take longer than ``time_limit`` at
            that pace (exit 2 before any check), naming the pace, the projection and the remedies.
    """
    count = PROBE_BATCH if mechanism.vectorised else PROBE_CALLS
    rng = np.random.default_rng(0)
    try:
        mechanism.release(data, rng=rng, size=1)  # untimed: a first call pays for imports and caches
        while True:
            started = time.perf_counter()
            mechanism.release(data, rng=rng, size=count)
            elapsed = time.perf_counter() - started
            if elapsed >= PROBE_SECONDS or count >= PROBE_MAX:
                break
            count *= 2
    except CandidateError:
        return None
    pace = elapsed / count
    outputs = planned_outputs(claim, quick)
    projected = pace * outputs
    if projected > time_limit:
        smaller = "smaller samples" if quick else "--quick or smaller samples"
        raise CandidateError(
            f"{ref} takes {pace:.3g} s per output (timed on {count}); this audit draws at least {outputs} outputs, "
            f"about {_duration(projected)}, past the time limit of {_duration(time_limit)}. Give the candidate a "
            f"vectorised entry point (a 'sample' attribute, docs/candidates.md), use {smaller}, or raise --time-limit"
        )
    return pace


def _duration(seconds: float) -> str:
    if seconds >= 7200:
        return f"{seconds / 3600:.3g} h"
    if seconds >= 120:
        return f"{seconds / 60:.3g} min"
    return f"{seconds:.3g} s"
