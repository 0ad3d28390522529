"""Step-size control for embedded half-explicit Lie group methods (seed 004 §3).

Error indicator (seed 004 eq. (21)) on the linear-space variable y = (θ, v):

    err = sqrt( (1/m) Σ_i ((y_i − ŷ_i) / (Atol_i + max(|y_{n−1,i}|, |y_{n,i}|) Rtol_i))² )

with θ_{n−1} = 0 (the local parametrisation starts at the identity), and the step-size rule (22)

    h_new = h · min(facmax, max(facmin, fac · (1/err)^(1/(μ+1)))),   μ = min(p, p̂).

After a rejected step the growth factor is capped at 1 (Hairer, Nørsett & Wanner I, §II.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lgbeam._typing import FloatArray


@dataclass(frozen=True)
class StepSizeController:
    """Error-controlled step sizes; ``rtol``/``atol`` scalars or vectors over y = (θ, v)."""

    rtol: float | FloatArray
    atol: float | FloatArray
    fac: float = 0.8
    facmin: float = 0.2
    facmax: float = 5.0
    h_min: float = 1e-12
    h_max: float = np.inf

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

    def error_norm(self, error: FloatArray, y_old: FloatArray, y_new: FloatArray) -> float:
        """Scaled RMS norm of eq. (21)."""
        scale = self.atol + np.maximum(np.abs(y_old), np.abs(y_new)) * self.rtol
        return float(np.sqrt(np.mean((error / scale) ** 2)))

    def next_step(self, h: float, err: float, error_order: int, after_reject: bool) -> float:
        """Step-size rule (22); ``after_reject`` caps the growth at 1."""
        if not np.isfinite(err):
            return h * self.facmin
        factor = self.fac * (1.0 / max(err, 1e-10)) ** (1.0 / (error_order + 1))
        factor = min(1.0 if after_reject else self.facmax, max(self.facmin, factor))
        return float(min(self.h_max, h * factor))
