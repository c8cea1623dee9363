"""Finding and killing every process a candidate started, including those that tried to leave.

A candidate may fork, call ``setsid`` or double-fork so that its children leave its process
group and are reparented away from its worker. Three nets catch them (Linux, through
``/proc``):

1. the worker's descendants, followed through the parent links in ``/proc/PID/stat``;
2. every process whose environment carries the worker's token (children inherit it);
3. the auditor is a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphaned
   descendant is reparented to the auditor rather than to init: a child of the auditor that
   started after the worker and is not one of the auditor's own helpers is the candidate's.

And should the auditor itself die (SIGKILL, out of memory), the worker watches its parent
(:func:`watch_the_auditor`): once the auditor is gone, it kills the candidate's processes and
itself, even in the middle of a call that never returns.

Each round kills what it finds with SIGKILL (process groups first) and repeats until a
round finds nothing, so a process forked during the kill is caught by the next round.
Elsewhere only the worker's process group is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time
from pathlib import Path

__all__ = [
    "TOKEN_VARIABLE",
    "become_subreaper",
    "candidate_processes",
    "kill_process_tree",
    "start_time",
    "watch_the_auditor",
]

#: The environment variable that marks the worker and everything it starts.
TOKEN_VARIABLE = "DPAUDIT_CANDIDATE_TOKEN"

_PR_SET_CHILD_SUBREAPER = 36
_PROC = Path("/proc")
_ROUNDS = 50
_WATCH_SECONDS = 1.0
_subreaper: list[bool] = []


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); whether it now is."""
    if _subreaper:
        return _subreaper[0]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        ok = False
    _subreaper.append(ok)
    return ok


def _stat(pid: int, *, zombies: bool = False) -> tuple[int, int] | None:
    """(parent pid, start time in clock ticks) of ``pid``, or None when it is gone (or a zombie,
    unless ``zombies``)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    if fields[0] in ("Z", "X") and not zombies:
        return None
    return int(fields[1]), int(fields[19])


def _carries(pid: int, token: str) -> bool:
    marker = f"{TOKEN_VARIABLE}={token}".encode()
    try:
        return marker in (_PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return False


def _pids() -> list[int]:
    try:
        return [int(entry.name) for entry in _PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def candidate_processes(
    root: int, token: str, *, since: int | None = None, protect: frozenset[int] = frozenset()
) -> set[int]:
    """The live processes that belong to the candidate whose worker is ``root``.

    Args:
        root: the worker's pid.
        token: the value of the worker's token variable.
        since: the worker's start time (clock ticks): orphans reparented to this process
            count when they started at or after it.
        protect: pids never to count (other live candidate workers of this auditor).
    """
    me = os.getpid()
    helpers = _helpers() | set(protect)
    table = _table(me)
    found = {pid for pid in table if pid == root or _carries(pid, token)}
    if since is not None:
        found |= {
            pid for pid, (parent, start) in table.items() if parent == me and start >= since and pid not in helpers
        }
    return _with_descendants(found, table) - helpers - {me}


def _helpers() -> set[int]:
    """The auditor's own child processes (a process pool's workers): never the candidate's."""
    import multiprocessing  # here, not above: the worker imports this module as it starts, and never asks

    return {child.pid for child in multiprocessing.active_children() if child.pid is not None}


def _table(me: int) -> dict[int, tuple[int, int]]:
    """(parent pid, start time) of every live process but ``me``."""
    return {pid: stat for pid in _pids() if pid != me and (stat := _stat(pid)) is not None}


def _with_descendants(found: set[int], table: dict[int, tuple[int, int]]) -> set[int]:
    """``found`` and every process descending from one of them, through the parent links of ``table``."""
    found = set(found)
    grew = True
    while grew:
        children = {pid for pid, (parent, _) in table.items() if parent in found and pid not in found}
        grew = bool(children)
        found |= children
    return found


def start_time(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot (``/proc/PID/stat``), or None."""
    stat = _stat(pid, zombies=True)
    return stat[1] if stat is not None else None


def kill_process_tree(root: int, token: str, since: int | None, protect: frozenset[int] = frozenset()) -> None:
    """SIGKILL the worker ``root``, its process group and every process of the candidate; reap them.

    Args:
        root: the worker's pid.
        token: the worker's token (see :data:`TOKEN_VARIABLE`).
        since: the worker's start time (:func:`start_time`, taken when it started): orphans
            reparented to this process that started later are the candidate's.
        protect: pids never to kill (other live candidate workers of this auditor).
    """
    with contextlib.suppress(OSError):
        os.killpg(root, signal.SIGKILL)
    killed: set[int] = set()
    for _ in range(_ROUNDS):
        found = candidate_processes(root, token, since=since, protect=protect) if _PROC.is_dir() else set()
        if not found:
            break
        for pid in found:
            _kill(pid)
        killed |= found
        _reap(found)
        time.sleep(0.01)
    if since is not None and _PROC.is_dir():
        _reap_orphans(since, killed, protect | {root})


def _reap_orphans(since: int, killed: set[int], protect: frozenset[int]) -> None:
    """Reap the candidate's processes that were reparented to this subreaper and have died: those
    killed above, and those that exited on their own (the middle process of a double fork) —
    zombies that are children of this process and started after the worker. Unreaped, each
    would hold a process-table entry for the auditor's lifetime."""
    me = os.getpid()
    helpers = _helpers() | set(protect)
    deadline = time.monotonic() + 1.0
    while True:
        waiting = False
        for pid in _pids():
            stat = _stat(pid, zombies=True)
            if stat is None or stat[0] != me or stat[1] < since or pid in helpers:
                continue
            if _is_zombie(pid):
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)
            elif pid in killed:
                waiting = True  # SIGKILL sent, not dead yet
        if not waiting or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _is_zombie(pid: int) -> bool:
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return False
    return text[text.rfind(")") + 2 :].split()[0] in ("Z", "X")


def _kill(pid: int) -> None:
    """SIGKILL ``pid`` and, unless it is the auditor's own, its process group."""
    with contextlib.suppress(OSError):
        group = os.getpgid(pid)
        if group != os.getpgid(0):
            os.killpg(group, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _reap(pids: set[int]) -> None:
    """Collect the exit status of those ``pids`` that are this process's children (reparented orphans)."""
    me = os.getpid()
    for pid in pids:
        stat = _stat(pid, zombies=True)
        if stat is not None and stat[0] == me:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)


def watch_the_auditor(token: str) -> None:
    """In the worker: start a daemon thread that, once the worker's parent (the auditor) has gone, SIGKILLs
    every process of the candidate (those carrying ``token`` and the worker's descendants) and then the
    worker's own process group, the worker with it. Without it, a worker whose auditor was SIGKILLed in the
    middle of a call that never returns would run on, orphaned, for ever."""
    auditor = os.getppid()

    def watch() -> None:
        while os.getppid() == auditor:
            time.sleep(_WATCH_SECONDS)
        me = os.getpid()
        for _ in range(_ROUNDS):
            table = _table(me)
            found = _with_descendants({pid for pid in table if _carries(pid, token)} | {me}, table) - {me}
            if not found:
                break
            for pid in found:
                _kill(pid)
            time.sleep(0.01)
        if os.getpgid(0) == me:  # its own group, as the auditor starts it
            os.killpg(me, signal.SIGKILL)
        os._exit(1)

    threading.Thread(target=watch, name="dpaudit-watch-the-auditor", daemon=True).start()
