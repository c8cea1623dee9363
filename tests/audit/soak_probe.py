"""What a run may leave behind: child processes, open file descriptors, temporary files."""

from __future__ import annotations

import glob
import os
import tempfile
from dataclasses import dataclass

__all__ = ["Footprint", "footprint"]


def _children(pid: int, *, zombies: bool = True) -> list[int]:
    """Processes whose parent is ``pid``, zombies included unless ``zombies`` is false (an unreaped
    child of a subreaper is a leak too)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and (zombies or fields[0] not in ("Z", "X")):
            found.append(int(entry))
    return found


@dataclass(frozen=True)
class Footprint:
    """The auditor process's footprint at one moment."""

    children: tuple[int, ...]
    live_children: tuple[int, ...]
    descriptors: int
    temporary_files: tuple[str, ...]


def footprint() -> Footprint:
    """Children of this process, its open descriptors and dpaudit's temporary files."""
    return Footprint(
        children=tuple(sorted(_children(os.getpid()))),
        live_children=tuple(sorted(_children(os.getpid(), zombies=False))),
        descriptors=len(os.listdir("/proc/self/fd")),
        temporary_files=tuple(sorted(glob.glob(os.path.join(tempfile.gettempdir(), "dpaudit-candidate-*")))),
    )
