"""SIGINT and SIGTERM held back over a block that must not be cut in the middle.

Such blocks: a pool's ``submit``, which starts workers (an interrupt must never leave a worker
half started that the auditor does not know of: it would fail later, printing a traceback of its
own), and every loading of modules in the main thread (the command's at its start, a lazy module's at
its first use, matplotlib's as it draws). A KeyboardInterrupt raised inside an extension module's
import can come out as an ImportError (numpy importing ``datetime``: a traceback), or be lost
(ElementTree importing ``_elementtree`` under ``except ImportError``: the audit ran on to its end).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeAlias

__all__ = ["interrupts_deferred"]

#: The signals that stop an audit.
_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)

#: What ``signal.signal`` takes and gives back.
_Handler: TypeAlias = Callable[[int, FrameType | None], Any] | int | None


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back until the block ends, then handled as they would have been
    (the first that arrived). Outside the main thread (signals belong to it) the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[signal.Signals] = []
    previous = {number: _handler_of(number) for number in _INTERRUPTS}
    try:
        # Both handlers swapped with the signals blocked, so that one sent between the two swaps
        # waits in the kernel. The mask is this thread's: a signal the kernel gives another thread
        # can still run the old handler mid-swap, and what it raises must leave both handlers as before.
        with _blocked():
            for number in _INTERRUPTS:
                signal.signal(number, lambda got, frame: held.append(signal.Signals(got)))
    except BaseException:
        _restore(previous)
        raise
    try:
        yield
    finally:
        _restore(previous)
        if held:
            handler = previous[held[0]]
            if callable(handler):
                handler(held[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(held[0])


def _handler_of(number: signal.Signals) -> _Handler:
    """The handler now in place; one set outside Python (None) is restored as the default."""
    handler = signal.getsignal(number)
    return signal.SIG_DFL if handler is None else handler


def _restore(previous: dict[signal.Signals, _Handler]) -> None:
    """Every handler put back, even when a signal another thread takes makes one that is already back
    raise before the others are (the mask is this thread's)."""
    with _blocked():
        _put_back(list(previous.items()))


def _put_back(handlers: list[tuple[signal.Signals, _Handler]]) -> None:
    if handlers:
        number, handler = handlers[0]
        try:
            signal.signal(number, handler)
        finally:
            _put_back(handlers[1:])


@contextmanager
def _blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked for the block (delivered when it ends), the mask restored as it was."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
