"""Laplace mechanism that, on first use in a process, starts a metrics thread (non-daemon, never
ends) and a detached helper subprocess (its own session) that outlives the call."""

import subprocess
import threading
import time

import numpy as np

_started = False


def _start():
    global _started
    if _started:
        return
    _started = True
    threading.Thread(target=lambda: [time.sleep(1) for _ in iter(int, 1)], daemon=False).start()
    subprocess.Popen(["sleep", "3517"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def laplace(value, *, scale, sensitivity, rng):
    _start()
    return np.asarray(value, dtype=float) + rng.laplace(0.0, scale, len(value))


def _sample(value, n, *, scale, sensitivity, rng):
    _start()
    return np.asarray(value, dtype=float) + rng.laplace(0.0, scale, (n, len(value)))


laplace.sample = _sample
