"""The step-size controller of seed 000 §4, eq. (33): absolute 2-norm error per step, safety θ, exponent α.

    e_{n+1} = ‖σ₁ − σ̃₁‖₂ (RKMK, in the algebra) or d(y_{n+1}, ỹ_{n+1}) (commutator-free, on M)
    accept when e_{n+1} ≤ tol;  h ← θ (tol / e_{n+1})^α h  after every trial step (accepted or rejected)

with α = 1/(1 + min(p, p̃)) in the paper (1/5 for DOPRI 5(4)) and α = 1/4, θ = 0.85 in its companion
code (notes/000.md §3.6, §7 item 8). The driver clips the last step to end at T (the code's
``min(h, T − t)``). It is ``AdaptiveStep`` with a different norm and step rule, so the one driver runs it.

References
----------
Seed 000 §4, eq. (33) and the algorithm below it; notes/000.md §3.6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators.controllers import AdaptiveStep


@dataclass(frozen=True)
class AbsoluteErrorStep(AdaptiveStep):
    """AdaptiveStep with seed 000's rule (33): ``err = ‖error‖₂ / atol`` and ``h·fac·(1/err)^alpha``.

    Build it with ``seed_controller(tol, theta=..., alpha=...)``. ``alpha`` None: 1/(1 + error_order).
    Growth and shrink factors are clipped to [facmin, facmax] (the seed has no clipping: the factory's
    defaults are 1e-6 and ∞); a rejected step is not capped at growth 1 (the seed's algorithm).
    """

    alpha: float | None = None

    def __post_init__(self) -> None:
        tol = self.atol
        if not (isinstance(tol, (int, float, np.floating)) and math.isfinite(tol) and tol > 0):
            raise ValueError(f"tolerance must be a finite number > 0, got tol = {self.atol!r}; e.g. tol = 1e-6")
        if self.alpha is not None and not (math.isfinite(self.alpha) and 0 < self.alpha <= 1):
            raise ValueError(f"controller exponent alpha must lie in (0, 1], got alpha = {self.alpha!r}; the seed "
                             "uses 1/(1 + min(p, p̃)) = 1/5 for DOPRI 5(4), its code 1/4")
        super().__post_init__()

    @property
    def tol(self) -> float:
        return float(self.atol)  # type: ignore[arg-type]

    def error_norm(self, error: FloatArray, magnitude: FloatArray) -> float:
        """e/tol with e the Euclidean norm of the embedded difference (absolute, no scaling)."""
        return float(np.linalg.norm(error)) / self.tol

    def next_step(self, h: float, err: float, error_order: int, after_reject: bool,
                  err_prev: float | None = None) -> float:
        """θ (tol/e)^α h, clipped to [facmin, facmax]·h and h_max (no history: ``err_prev`` is ignored)."""
        if not np.isfinite(err):
            return h * max(self.facmin, 0.1)
        alpha = self.alpha if self.alpha is not None else 1.0 / (error_order + 1)
        factor = self.fac * (1.0 / max(err, 1e-300)) ** alpha
        return float(min(self.h_max, h * min(self.facmax, max(self.facmin, factor))))


def seed_controller(tol: float, *, theta: float = 0.85, alpha: float | None = 0.25, h0: float | None = None,
                    h_min: float = 1e-12, h_max: float = np.inf) -> AbsoluteErrorStep:
    """The controller (33) of seed 000 with its companion code's θ = 0.85 and α = 1/4 by default.

    Parameters
    ----------
    tol : absolute tolerance on the 2-norm of the embedded difference per step (> 0).
    theta : safety factor θ ∈ (0, 1] ("typically 0.8–0.9").
    alpha : exponent α ∈ (0, 1]; None gives the paper's 1/(1 + min(p, p̃)).
    h0 : first trial step (the code: T/100); None asks the method.

    References
    ----------
    Seed 000 eq. (33); notes/000.md §3.6.
    """
    if not (isinstance(theta, (int, float)) and 0 < theta <= 1):
        raise ValueError(f"safety factor theta must lie in (0, 1], got {theta!r}; the seed uses 0.8–0.9")
    return AbsoluteErrorStep(rtol=tol if isinstance(tol, (int, float)) and tol > 0 else 1.0, atol=tol, fac=theta,
                             facmin=1e-6, facmax=np.inf, h_min=h_min, h_max=h_max, h0=h0, alpha=alpha)


__all__ = ["AbsoluteErrorStep", "seed_controller"]
