"""Step-size controllers for the one driver: ``ConstantStep`` and ``AdaptiveStep``.

``ConstantStep(h)`` steps on the grid t₀ + n h; the last step is shortened to land on t_end (the
driver reports the steps it took). ``AdaptiveStep`` is the embedded-pair controller of seed 004
eqs. (21)–(22) (seed 000 eq. (33) is the same rule). Error indicator on the method's linear-space
error variables (for the half-explicit methods y = (θ, v), with θ_{n−1} = 0):

    err = sqrt( (1/m) Σ_i ((y_i − ŷ_i) / (Atol_i + max(|y_{n−1,i}|, |y_{n,i}|) Rtol_i))² )

and the step-size rule

    h_new = h · min(facmax, max(facmin, fac · (1/err)^(1/(μ+1)))),   μ = min(p, p̂).

After a rejected step the growth factor is capped at 1 (Hairer, Nørsett & Wanner I, §II.4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray


def _scaled_rms(error: FloatArray, magnitude: FloatArray, rtol: Any, atol: Any) -> float:
    scale = atol + magnitude * rtol
    return float(np.sqrt(np.mean((np.abs(error) / scale) ** 2)))


@dataclass(frozen=True)
class ConstantStep:
    """Fixed steps of size ``h`` (the last one shortened to end at t_end).

    ``rtol``/``atol`` (optional) only measure: every step is accepted, and the driver records the scaled
    norm (21) of the method's embedded estimate as ``err`` and its Euclidean norm as ``err_raw``
    (seed 004 Fig. 10).
    """

    h: float
    rtol: float | FloatArray | None = None
    atol: float | FloatArray | None = None
    adaptive = False

    def __post_init__(self) -> None:
        if not (isinstance(self.h, (int, float, np.floating)) and math.isfinite(self.h) and self.h > 0):
            raise ValueError(f"step size h must be a finite number > 0, got h = {self.h!r}; e.g. integrator.h = 1e-3")
        if (self.rtol is None) != (self.atol is None):
            raise ValueError("ConstantStep: give both rtol and atol (to measure the embedded error) or neither")

    @property
    def measures(self) -> bool:
        return self.rtol is not None

    def error_norm(self, error: FloatArray, magnitude: FloatArray) -> float:
        """Scaled RMS norm of eq. (21) (measurement only)."""
        return _scaled_rms(error, magnitude, self.rtol, self.atol)

    def plan(self, t0: float, t_end: float) -> tuple[int, float]:
        """Number of steps and the size of the last one over [t0, t_end]."""
        n = max(1, math.ceil((t_end - t0) / self.h - 1e-9))
        return n, (t_end - t0) - (n - 1) * self.h


@dataclass(frozen=True)
class AdaptiveStep:
    """Error-controlled step sizes (seed 004 (21)–(22)); ``rtol``/``atol`` scalars or vectors over the
    method's error variables. ``h0`` None: the method's own starting step (``HasInitialStep``)."""

    rtol: float | FloatArray
    atol: float | FloatArray
    fac: float = 0.8
    facmin: float = 0.2
    facmax: float = 5.0
    h_min: float = 1e-12
    h_max: float = np.inf
    h0: float | None = None
    adaptive = True

    def __post_init__(self) -> None:
        for name in ("rtol", "atol"):
            value = np.asarray(getattr(self, name), dtype=float)
            if not np.all(np.isfinite(value)) or np.any(value < 0):
                raise ValueError(f"{name} must be finite and non-negative, got {getattr(self, name)!r}")
        if np.any(np.asarray(self.rtol) <= 0) and np.any(np.asarray(self.atol) <= 0):
            raise ValueError("rtol and atol cannot both be zero: set rtol > 0 (e.g. 1e-6)")
        if np.any(np.asarray(self.rtol) <= 0):
            raise ValueError(f"rtol must be > 0, got {self.rtol!r}; e.g. rtol = 1e-6")
        if not 0 < self.fac <= 1 or not 0 < self.facmin <= 1 <= self.facmax:
            raise ValueError(
                f"need 0 < fac ≤ 1 and 0 < facmin ≤ 1 ≤ facmax, got fac={self.fac}, facmin={self.facmin}, "
                f"facmax={self.facmax}"
            )
        if not 0 < self.h_min < self.h_max:
            raise ValueError(f"need 0 < h_min < h_max, got h_min={self.h_min}, h_max={self.h_max}")
        if self.h0 is not None and not (math.isfinite(self.h0) and self.h0 > 0):
            raise ValueError(f"initial step h0 must be > 0, got {self.h0!r}")

    def error_norm(self, error: FloatArray, magnitude: FloatArray) -> float:
        """Scaled RMS norm of eq. (21); ``magnitude`` = max(|y_{n−1}|, |y_n|) elementwise."""
        return _scaled_rms(error, magnitude, self.rtol, self.atol)

    def next_step(self, h: float, err: float, error_order: int, after_reject: bool) -> float:
        """Step-size rule (22); ``after_reject`` caps the growth at 1."""
        if not np.isfinite(err):
            return h * self.facmin
        factor = self.fac * (1.0 / max(err, 1e-10)) ** (1.0 / (error_order + 1))
        factor = min(1.0 if after_reject else self.facmax, max(self.facmin, factor))
        return float(min(self.h_max, h * factor))


Controller = ConstantStep | AdaptiveStep

__all__ = ["AdaptiveStep", "ConstantStep", "Controller"]
