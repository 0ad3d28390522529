"""``SaveAt``: which states a run keeps and hands to observers.

Exactly one of ``times`` (output times), ``every`` (an output interval in time: t0 + k·every, and t_end)
or ``steps`` (every k-th accepted step, and the last one) may be given; none means every accepted step.
States between steps come from the method's dense output; a method without one (``dense_output``
False) takes steps that land on the output times (adaptive) or needs output times on its step grid
(constant steps). Observers ``fn(t, y)`` run at the save points only; one that returns
``Status.STOPPED`` ends the run with that status.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray

Observer = Callable[[float, Any], Any]


@dataclass(frozen=True)
class SaveAt:
    """What to save: ``times`` | ``every`` | ``steps`` (at most one), ``observers``, and whether to keep
    the states in memory (``store``; False keeps only the initial and final state)."""

    times: Sequence[float] | FloatArray | None = None
    every: float | None = None
    steps: int | None = None
    observers: tuple[Observer, ...] = ()
    store: bool = True

    def __post_init__(self) -> None:
        given = [k for k in ("times", "every", "steps") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(f"SaveAt: give only one of times=, every=, steps= (got {', '.join(given)}); "
                             "they contradict each other (case key output.every is a time interval)")
        if self.every is not None and not (isinstance(self.every, (int, float)) and math.isfinite(self.every)
                                           and self.every > 0):
            raise ValueError(f"output interval must be a finite time > 0, got every = {self.every!r}")
        if self.steps is not None and not (isinstance(self.steps, (int, np.integer)) and self.steps >= 1):
            raise ValueError(f"SaveAt(steps=k) needs an integer k >= 1 (every k-th step), got {self.steps!r}")
        if self.times is not None:
            arr = np.asarray(self.times, dtype=float)
            if arr.ndim != 1 or not np.all(np.isfinite(arr)) or np.any(np.diff(arr) <= 0):
                raise ValueError("SaveAt(times=...) needs finite, strictly increasing output times")
        if isinstance(self.observers, Callable):  # type: ignore[arg-type]
            object.__setattr__(self, "observers", (self.observers,))

    def plan(self, t0: float, t_end: float) -> FloatArray | None:
        """The output times after t0 (None: save by step count)."""
        if self.every is not None:  # t0 + k·every before t_end, then t_end; a grid time within 1e-6·every of t_end
            n = math.ceil((t_end - t0) / self.every * (1.0 - 1e-6))  # is t_end itself (no two outputs there)
            return np.append(t0 + self.every * np.arange(1, n), t_end)
        if self.times is not None:
            arr = np.asarray(self.times, dtype=float)
            if arr[0] < t0 - 1e-12 * max(1.0, abs(t0)) or arr[-1] > t_end + 1e-12 * max(1.0, abs(t_end)):
                raise ValueError(f"output times must lie in [t0, t_end] = [{t0:g}, {t_end:g}], got "
                                 f"[{arr[0]:g}, {arr[-1]:g}]")
            return arr[arr > t0]
        return None
