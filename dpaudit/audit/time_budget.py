"""Wall-time budgets: an obligation that runs out of time is ``inconclusive`` (budget), never a hang.

The audit's total limit (``--time-limit``) and an obligation's own ``time_limit`` (spec) give a
deadline; a real-time timer interrupts the checker in the main thread when it passes. Nothing
is claimed from the partial work. Off the main thread (an embedding application), only the
deadline before an obligation starts is enforced.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["TimeBudgetExhausted", "wall_time_limit"]


class TimeBudgetExhausted(BaseException):
    """The running obligation reached its deadline (a BaseException: checkers must not catch it)."""


@contextmanager
def wall_time_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`TimeBudgetExhausted` in the body after ``seconds`` (nothing when ``None``)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(number: int, frame: Any) -> None:
        raise TimeBudgetExhausted

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
