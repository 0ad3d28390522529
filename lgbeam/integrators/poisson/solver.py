"""Fixed-point iteration with tolerance, iteration limit, divergence detection and iteration counts.

x_{m+1} = G(x_m), stopped when ‖x_{m+1} − x_m‖_∞ ≤ tol · max(1, ‖x_{m+1}‖_∞) (seed 003 §2.5 leaves the
criterion open; notes/003-ch2.md §4 recommends this one), or when the increment has reached the
round-off floor (≤ 100 ε · scale and no longer decreasing at all). Divergence: a non-finite iterate, a
floating-point overflow, or an increment 10⁴× larger than the first one.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lgbeam._typing import Array

logger = logging.getLogger(__name__)

_EPS = np.finfo(float).eps


@dataclass(frozen=True)
class FixedPointResult:
    """Outcome of one solve: the last iterate, G-evaluations used, convergence flag, last increment."""

    x: Array
    iterations: int
    converged: bool
    residual: float
    reason: str = ""  # "", "max_iter" or "diverged"


@dataclass(frozen=True)
class FixedPoint:
    """Fixed-point solver configuration.

    Parameters
    ----------
    tol : float
        Relative tolerance on the max-norm increment (default 1e-14: needed for the energy-preserving
        method to keep H to 1e-12 over 1000 steps, notes/003-ch2.md §6).
    max_iter : int
        Iteration limit per solve (default 100).
    divergence_factor : float
        Declare divergence when an increment exceeds this multiple of the first increment.
    """

    tol: float = 1e-14
    max_iter: int = 100
    divergence_factor: float = 1e4

    def __post_init__(self) -> None:
        if not (0 < self.tol < 1):
            raise ValueError(f"fixed-point tol must be in (0, 1), got {self.tol!r}")
        if not (isinstance(self.max_iter, int) and self.max_iter >= 1):
            raise ValueError(f"fixed-point max_iter must be a positive integer, got {self.max_iter!r}")
        if not self.divergence_factor > 1:
            raise ValueError(f"divergence_factor must exceed 1, got {self.divergence_factor!r}")

    def solve(self, G: Callable[[Array], Array], x0: Array) -> FixedPointResult:
        """Iterate ``x ← G(x)`` from ``x0``; never raises on divergence (see ``FixedPointResult``)."""
        x = x0
        first = previous = np.inf
        r = np.inf
        tol = self.tol
        floor = 100 * _EPS
        # The exact scale max(1, ‖x_new‖∞) is needed only where a stopping test can pass. An upper bound
        # (‖x_new‖∞ ≤ ‖x‖∞ + r, with a factor 2 of slack for rounding) rules the tests out cheaply
        # elsewhere: the same decisions as computing the scale every time, with fewer reductions.
        loose = 2.0 * max(tol, floor)
        bound = np.inf  # an upper bound of ‖x‖∞
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            for m in range(1, self.max_iter + 1):
                try:
                    x_new = G(x)
                    r = float(np.abs(x_new - x).max())
                    if not math.isfinite(r):
                        return FixedPointResult(x, m, False, np.inf, "diverged")
                    bound += r
                    testable = r <= loose * max(1.0, bound)  # else r > tol·scale and r > floor·scale
                    if testable:
                        bound = float(np.abs(x_new).max())
                except FloatingPointError:
                    return FixedPointResult(x, m, False, np.inf, "diverged")
                if not math.isfinite(bound):
                    return FixedPointResult(x, m, False, np.inf, "diverged")
                x = x_new
                if testable:
                    scale = max(1.0, bound)
                    if r <= tol * scale or (r <= floor * scale and r >= previous):
                        return FixedPointResult(x, m, True, r / scale)
                if m == 1:
                    first = max(r, 1e-300)
                elif r > self.divergence_factor * first:
                    return FixedPointResult(x, m, False, r / max(1.0, float(np.abs(x).max())), "diverged")
                previous = r
        return FixedPointResult(x, self.max_iter, False, r / max(1.0, float(np.abs(x).max())), "max_iter")
