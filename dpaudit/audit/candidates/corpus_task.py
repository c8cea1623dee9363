"""One corpus check in a fresh Python process (``python -m dpaudit.audit.candidates.corpus_task``).

``dpaudit corpus`` with ``--jobs N`` or ``--executor`` hands each (candidate, seed) to an
executor: a local process pool, or a Dask cluster whose workers may be on other machines. A
Dask worker runs its tasks in threads of a daemonic process, where an audit's wall-time
limit (a real-time timer of the main thread) cannot fire and a process pool cannot start.
The task therefore starts ``python -m dpaudit.audit.candidates.corpus_task`` with the
request on stdin: the check runs in the main thread of a process of its own, exactly as
``dpaudit check`` would run it, and its candidate in its own isolated, limited worker below
that. The row comes back as JSON on stdout (read with a bounded depth); the process is
dpaudit's own code, not the candidate's.

On a cluster, every worker machine needs the same dpaudit and the manifest's folder at the
same absolute path (a shared file system or the same checkout): the request names files,
it does not carry them.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import redirect_stdout
from pathlib import Path

from dpaudit._bounded_json import loads_bounded
from dpaudit.audit.candidates.corpus import CorpusEntry, check_one
from dpaudit.audit.candidates.refs import CandidateLimits
from dpaudit.checks.empirical.executors import leave_with
from dpaudit.errors import AuditInterrupted, DpAuditError

__all__: list[str] = []


def _serve() -> None:
    leave_with(os.getppid())  # a task stopped at once (its pool worker terminated) does not run on
    request = loads_bounded(sys.stdin.buffer.read())
    fields = request["entry"]
    entry = CorpusEntry(**(fields | {"spec": Path(fields["spec"]), "folder": Path(fields["folder"])}))
    answer_to = sys.stdout
    try:
        with redirect_stdout(sys.stderr):  # anything the check prints stays out of the answer
            row = check_one(entry, request["seed"], request["quick"], CandidateLimits(**request["limits"]))
    except DpAuditError as exc:  # a wrong manifest: the run stops with the same message as in process
        answer_to.write(json.dumps({"error": str(exc)}))
        return
    except AuditInterrupted as exc:
        sys.exit(128 + exc.signal_number)
    answer = {
        "verdict": row.verdict,
        "epsilon_lower_bound": row.epsilon_lower_bound,
        "claimed_epsilon": row.claimed_epsilon,
        "reason": row.reason,
        "elapsed_seconds": row.elapsed_seconds,
        "detail": row.detail,
    }
    answer_to.write(json.dumps(answer))


if __name__ == "__main__":
    _serve()
