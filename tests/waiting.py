"""Waiting for events in tests that drive a subprocess (review t3, finding 12).

A test that must act once something has happened (a file appeared, a line was printed, a run started) waits for
that event, not for a guessed number of seconds: on a loaded machine every step takes longer, and a fixed limit
then fails a test whose code is right. ``HANG_GUARD_S`` only ends a test that would otherwise hang for ever.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import TypeVar

HANG_GUARD_S = 600.0  # generous: a limit against hangs, never a measure of progress

T = TypeVar("T")


def wait_for(event: Callable[[], T], what: str, *, proc: subprocess.Popen | None = None,
             guard: float = HANG_GUARD_S, poll: float = 0.02) -> T:
    """Poll ``event()`` until it returns something truthy, and return that.

    Fails the test when ``proc`` (the process expected to cause the event) exits first, saying what it printed,
    or after ``guard`` seconds (a hang)."""
    deadline = time.monotonic() + guard
    while True:
        got = event()
        if got:
            return got
        if proc is not None and proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the process exited ({proc.returncode}) before {what}:\n{out}\n{err}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} after {guard:.0f} s: the process hangs")
        time.sleep(poll)


def finish(proc: subprocess.Popen, guard: float = HANG_GUARD_S) -> tuple[str, str]:
    """``proc.communicate()`` with only a hang guard: (stdout, stderr)."""
    try:
        return proc.communicate(timeout=guard)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"the process did not exit within {guard:.0f} s (a hang):\n{out}\n{err}") from None
