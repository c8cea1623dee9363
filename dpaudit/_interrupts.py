"""SIGINT and SIGTERM held back over a block that must not be cut in the middle.

Two such blocks: a pool's ``submit``, which starts workers (an interrupt must never leave a worker
half started that the auditor does not know of: it would fail later, printing a traceback of its
own), and the loading of modules. A KeyboardInterrupt raised inside an extension module's import
can come out as an ImportError (numpy importing ``datetime``: a traceback), and a library that falls
back on ImportError then swallows it (the interrupt is lost and the audit runs on).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["interrupts_deferred"]

#: The signals that stop an audit.
_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back until the block ends, then handled as they would have been
    (the first that arrived). Outside the main thread (signals belong to it) the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[signal.Signals] = []
    with _blocked():  # both handlers swapped at once: a signal between two swaps waits in the kernel
        previous = {
            number: signal.signal(number, lambda got, frame: held.append(signal.Signals(got))) for number in _INTERRUPTS
        }
    try:
        yield
    finally:
        with _blocked():
            for number, handler in previous.items():
                signal.signal(number, handler)
        if held:
            handler = previous[held[0]]
            if callable(handler):
                handler(held[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(held[0])


@contextmanager
def _blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked for the block (delivered when it ends), the mask restored as it was."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
