"""Tasks for the Dask fault tests (importable by the workers, which start with the tests' ``sys.path``)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from waiting import HANG_GUARD_S


def task(item: tuple[str, ...]) -> int:
    """``("kill-once", marker)``: SIGKILL this worker process the first time (the marker says it happened);
    ``("meet", mine, other)``: create ``mine``, then wait until ``other`` exists (a task running at the same
    time on another worker created it). Returns this process's pid."""
    what, *paths = item
    if what == "kill-once":
        marker = Path(paths[0])
        if not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return os.getpid()
    if what == "meet":
        Path(paths[0]).touch()
        deadline = time.monotonic() + HANG_GUARD_S
        while not Path(paths[1]).exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{paths[1]} never appeared: no second worker ran at the same time")
            time.sleep(0.02)
        return os.getpid()
    raise ValueError(f"unknown task {what!r}")
