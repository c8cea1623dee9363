"""Wall-time budgets: an obligation that runs out of time is ``inconclusive`` (budget), never a hang.

The audit's total limit (``--time-limit``) and an obligation's own ``time_limit`` (spec) give a
deadline; a real-time timer interrupts the checker in the main thread when it passes, and again
every quarter of a second until it has ended (an interruption a library swallows is not the last);
an error a library raises once the deadline has passed counts as the interruption it stands for.
Nothing is claimed from the partial work. Off the main thread (an embedding application), only the
deadline before an obligation starts is enforced.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["REPEAT_SECONDS", "TimeBudgetExhausted", "wall_time_limit"]

#: After the deadline, the interruption is raised again this often until the obligation has ended.
REPEAT_SECONDS = 0.25


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
    # fired again every REPEAT_SECONDS until the body ends: a library that swallows one interruption
    # (a callback run by the garbage collector reports it as unraisable) does not keep the check past it
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3), REPEAT_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
