"""Benchmarks: one module per target with ``run(out_dir, quick)`` printing a table and writing CSV."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeats: int, *, warm_up: bool = False) -> float:
    """The smallest wall time in seconds of ``repeats`` calls of ``fn`` (after one untimed call with ``warm_up``):
    the least disturbed run on a shared machine."""
    if warm_up:
        fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
