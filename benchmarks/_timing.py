"""Timing shared by the benchmark scripts: a floor and a subject measured side by side."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

ROUND_SECONDS = 0.02  # every timed round repeats its loop to last about this long


def _repeats(fn: Callable[[], Any]) -> int:
    """How many calls of ``fn`` fill about ``ROUND_SECONDS``."""
    fn()  # warm up
    start = time.process_time()
    fn()
    once = max(time.process_time() - start, 1e-6)
    return max(1, round(ROUND_SECONDS / once))


def paired_rates(
    floor_fn: Callable[[], Any], subject_fn: Callable[[], Any], items: int, seconds: float
) -> tuple[float, float]:
    """Best items/s of ``floor_fn`` and of ``subject_fn``, each handling ``items`` pairs.

    The two alternate round by round, so both see the same machine load, and every round
    lasts about ``ROUND_SECONDS``, so neither gains from a shorter timing window (a 0.2 ms
    floor loop can fall between two interruptions of a busy machine; a 6 ms loop cannot).
    Times are CPU time of this process, best of the rounds.
    """
    fns = (floor_fn, subject_fn)
    reps = [_repeats(fn) for fn in fns]
    best = [0.0, 0.0]
    deadline = time.perf_counter() + seconds
    while True:
        for k, fn in enumerate(fns):
            start = time.process_time()
            for _ in range(reps[k]):
                fn()
            best[k] = max(best[k], items * reps[k] / (time.process_time() - start))
        if time.perf_counter() > deadline:
            return best[0], best[1]
