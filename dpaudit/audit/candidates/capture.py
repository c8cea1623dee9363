"""The worker's own folder and the file that captures what the candidate prints.

The auditor makes a private folder for each worker (the one place its candidate may write, see
:mod:`dpaudit.audit.candidates.sandbox`, and its ``TMPDIR``) and in it the capture file, which it
keeps open: what the candidate printed is read through that descriptor, never by path, so a
candidate that puts a FIFO or a symbolic link where the file was can neither hang the auditor
nor have it read another file. The folder goes with the worker.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

__all__ = ["CaptureFile"]

#: Bytes shown from the start and from the end of a long capture.
SHOWN_BYTES = 2048


class CaptureFile:
    """A worker's folder (:attr:`folder`) and capture file (:attr:`path`), read through a kept descriptor."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="dpaudit-candidate-")
        self.path = os.path.join(self.folder, "output")
        self._descriptor: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)

    def close(self) -> str:
        """What the candidate printed (its first and last :data:`SHOWN_BYTES` when long); the folder removed."""
        text = ""
        if self._descriptor is not None:
            descriptor, self._descriptor = self._descriptor, None
            with contextlib.suppress(OSError):
                text = _shown(descriptor)
            os.close(descriptor)
        shutil.rmtree(self.folder, ignore_errors=True)  # links in it are removed, never followed
        return text


def _shown(descriptor: int) -> str:
    size = os.fstat(descriptor).st_size
    if size <= 2 * SHOWN_BYTES:
        return os.pread(descriptor, size, 0).decode("utf-8", "replace")
    head = os.pread(descriptor, SHOWN_BYTES, 0).decode("utf-8", "replace")
    tail = os.pread(descriptor, SHOWN_BYTES, size - SHOWN_BYTES).decode("utf-8", "replace")
    return f"{head}\n[... {size - 2 * SHOWN_BYTES} bytes not shown ...]\n{tail}"
