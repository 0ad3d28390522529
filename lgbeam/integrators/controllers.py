"""Step-size controllers for the one driver: ``ConstantStep`` and ``AdaptiveStep``.

``ConstantStep(h)`` steps on the grid t₀ + n h; the last step is shortened to land on t_end (the
driver reports the steps it took). ``AdaptiveStep`` is the embedded-pair controller of seed 004
eqs. (21)–(22) (seed 000 eq. (33) is the same rule). Error indicator on the method's linear-space
error variables (for the half-explicit methods y = (θ, v), with θ_{n−1} = 0):

    err = sqrt( (1/m) Σ_i ((y_i − ŷ_i) / (Atol_i + max(|y_{n−1,i}|, |y_{n,i}|) Rtol_i))² )

and the step-size rule

    h_new = h · min(facmax, max(facmin, fac · (1/err)^(1/(μ+1)))),   μ = min(p, p̂).

After a rejected step the growth factor is capped at 1 (Hairer, Nørsett & Wanner I, §II.4).

``beta > 0`` makes it the PI ("stabilised") controller of Gustafsson (1991) in the form of Hairer & Wanner II,
§IV.2 ("stabilized step size control") and of their code DOPRI5 (parameter ``beta``, default there 0.04):

    h_new = h · min(facmax, max(facmin, fac · err_n^(−α) · err_{n−1}^β)),   α = 1/(μ+1) − 0.75 β,

with err_{n−1} the norm of the last *accepted* step (floored at 1e-4, and 1e-4 before the first one; the driver
keeps it in its loop state, so checkpoints carry it). α > β is needed (β < 0.114 for DOPRI 5(4)): otherwise a
constant small err gives a factor fac·err^(β−α) < 1 and h shrinks without end. After a rejection the step is
shrunk by the plain rule with exponent α and no history, and the next accepted step may not grow. The
integral term damps the oscillation of h at the boundary of the stability region, where an explicit method's
error estimate is dominated by a mode that grows when h overshoots: fewer rejected steps at the same mean step
(docs/half-explicit.md, "Stability-bound stepping"). ``beta = 0`` is the plain (I) rule above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray

PI_BETA = 0.04  # the PI controller's default β (DOPRI5's; Hairer & Wanner II §IV.2 recommend 0.04–0.08)
PI_BETA_MAX = 0.2  # DOPRI5 refuses β > 0.2
PI_ERR_FLOOR = 1e-4  # err_{n−1} is floored here (DOPRI5's facold), and starts here


def _scaled_rms(error: FloatArray, magnitude: FloatArray, rtol: Any, atol: Any) -> float:
    scale = atol + magnitude * rtol
    return float(np.sqrt(np.mean((np.abs(error) / scale) ** 2)))


def _check_tolerances(rtol: Any, atol: Any) -> None:
    """ValueError (one line) unless every rtol and atol is finite and > 0."""
    for name, tol in (("rtol", rtol), ("atol", atol)):
        value = np.asarray(tol, dtype=float)
        if not np.all(np.isfinite(value)) or np.any(value < 0):
            raise ValueError(f"{name} must be finite and non-negative, got {tol!r}")
    if np.any(np.asarray(rtol) <= 0):
        raise ValueError(f"rtol must be > 0, got {rtol!r}; e.g. rtol = 1e-6")
    if np.any(np.asarray(atol) <= 0):  # 0/0 in the scaled error of a component that is zero
        raise ValueError(
            f"atol must be > 0, got {atol!r}: a step's local coordinates (and any state component that is zero) "
            "have no size for a purely relative tolerance to scale by; e.g. atol = 1e-3 * rtol"
        )


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
        if self.rtol is not None:
            _check_tolerances(self.rtol, self.atol)

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
    beta: float = 0.0
    adaptive = True

    def __post_init__(self) -> None:
        _check_tolerances(self.rtol, self.atol)
        if not 0 < self.fac <= 1 or not 0 < self.facmin <= 1 <= self.facmax:
            raise ValueError(
                f"need 0 < fac ≤ 1 and 0 < facmin ≤ 1 ≤ facmax, got fac={self.fac}, facmin={self.facmin}, "
                f"facmax={self.facmax}"
            )
        if not 0 < self.h_min < self.h_max:
            raise ValueError(f"need 0 < h_min < h_max, got h_min={self.h_min}, h_max={self.h_max}")
        if self.h0 is not None and not (math.isfinite(self.h0) and self.h0 > 0):
            raise ValueError(f"initial step h0 must be > 0, got {self.h0!r}")
        if not (isinstance(self.beta, (int, float, np.floating)) and 0 <= self.beta <= PI_BETA_MAX):
            raise ValueError(f"PI controller beta must lie in [0, {PI_BETA_MAX}], got beta = {self.beta!r}; 0 is the "
                             f"plain controller, {PI_BETA} the PI default (DOPRI5's)")

    def error_norm(self, error: FloatArray, magnitude: FloatArray) -> float:
        """Scaled RMS norm of eq. (21); ``magnitude`` = max(|y_{n−1}|, |y_n|) elementwise."""
        return _scaled_rms(error, magnitude, self.rtol, self.atol)

    @property
    def kind(self) -> str:
        """The rule's name: ``pi`` when ``beta`` > 0, else ``i``."""
        return "pi" if self.beta > 0 else "i"

    def next_step(self, h: float, err: float, error_order: int, after_reject: bool,
                  err_prev: float | None = None) -> float:
        """Step-size rule (22) (``beta`` = 0) or the PI rule (``beta`` > 0) after a trial step of size ``h``.

        ``after_reject``: the step follows a rejection (growth capped at 1). ``err_prev``: the error norm of the
        last accepted step (None or NaN: none yet); used by the PI rule on accepted steps (``err`` ≤ 1) only.
        """
        if not np.isfinite(err):
            return h * self.facmin
        alpha = 1.0 / (error_order + 1) - 0.75 * self.beta
        if self.beta > 0 and not alpha > self.beta:
            # α ≤ β: at a constant small err the factor fac·err^(β−α) stays below 1 and h shrinks without end
            raise ValueError(f"PI controller beta = {self.beta} is too large for error order {error_order}: need "
                             f"beta < 1/(1.75 (order + 1)) = {1 / (1.75 * (error_order + 1)):.3g}")
        factor = self.fac * (1.0 / max(err, 1e-10)) ** alpha
        if self.beta > 0 and err <= 1.0:
            prev = PI_ERR_FLOOR if err_prev is None or not math.isfinite(err_prev) else max(err_prev, PI_ERR_FLOOR)
            factor *= prev ** self.beta
        factor = min(1.0 if after_reject else self.facmax, max(self.facmin, factor))
        return float(min(self.h_max, h * factor))


Controller = ConstantStep | AdaptiveStep

__all__ = ["PI_BETA", "AdaptiveStep", "ConstantStep", "Controller"]
