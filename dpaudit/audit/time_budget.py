"""Wall-time budgets: an obligation that runs out of time is ``inconclusive`` (budget), never a hang.

The audit's total limit (``--time-limit``) and an obligation's own ``time_limit`` (spec) give a
deadline; a real-time timer interrupts the checker in the main thread when it passes (once: a
repeated interruption could land in the clean-up of a candidate's worker). Python swallows an
exception raised in a finaliser or weakref callback (it reaches ``sys.unraisablehook`` instead):
when the interruption lands there, the timer fires again shortly after, in the body. An error a library
raises in place of that interruption (Hypothesis turns it into one of its own) counts as the
interruption it stands for. Nothing is claimed from the partial work. Off the main thread (an
embedding application), only the deadline before an obligation starts is enforced.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["Alarm", "TimeBudgetExhausted", "wall_time_limit"]


class TimeBudgetExhausted(BaseException):
    """The running obligation reached its deadline (a BaseException: checkers must not catch it)."""


#: Seconds after an interruption swallowed by a finaliser before the timer fires again.
_REFIRE_SECONDS = 0.01


@dataclass
class Alarm:
    """What :func:`wall_time_limit` did: ``fired`` once it has interrupted the body."""

    fired: bool = False


@contextmanager
def wall_time_limit(seconds: float | None) -> Iterator[Alarm]:
    """Raise :class:`TimeBudgetExhausted` in the body after ``seconds`` (nothing when ``None``); the
    :class:`Alarm` it yields says whether it fired (a library may turn the interruption into an error
    of its own: the caller can tell that error from a failure of the check)."""
    alarm = Alarm()
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield alarm
        return

    def on_alarm(number: int, frame: Any) -> None:
        alarm.fired = True
        raise TimeBudgetExhausted

    previous_hook = sys.unraisablehook

    def on_unraisable(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, TimeBudgetExhausted):  # swallowed in a finaliser: fire again
            signal.setitimer(signal.ITIMER_REAL, _REFIRE_SECONDS)
            return
        previous_hook(unraisable)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    sys.unraisablehook = on_unraisable
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield alarm
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.unraisablehook = previous_hook
        signal.signal(signal.SIGALRM, previous)
