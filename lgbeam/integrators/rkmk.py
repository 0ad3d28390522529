"""Runge–Kutta–Munthe-Kaas (RKMK) Lie group methods for unconstrained ODEs y' = y · ξ(t, y)^.

Stages in the local coordinates of the exponential map (seed 004 eqs. (6)–(13) without constraints;
seed 000 §2, the RKMK methods):

    Θ_i = h Σ_{j<i} a_ij k_j,   Y_i = y_n ∘ exp(Θ_i),   k_i = T(Θ_i)⁻¹ ξ(t_n + c_i h, Y_i),
    y_{n+1} = y_n ∘ exp(h Σ_i b_i k_i),

with the classical tableaux of ``tableaux.py`` (RK4, DOPRI5) or the b-rows of the half-explicit
ones. Tableaux with embedded weights b̂ give the error estimate h Σ (b_i − b̂_i) k_i in the Lie algebra
at y_n, summed over all s̄ stages: DOPRI5's b̂ weights the extra stage k_{s+1} = T(Θ)⁻¹ ξ(t_n + h, y_{n+1})
(b_{s+1} = 0), without which the estimate is only O(h). So DOPRI5 runs adaptively under ``AdaptiveStep``
(relative tolerance scaled by |Θ|).

References
----------
Munthe-Kaas (1998); Iserles et al. (2000) §5; seed 004 §2.1, eq. (11); seed 000 (RKMK methods).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators.base import Step, TableauOrders
from lgbeam.integrators.tableaux import CLASSICAL_TABLEAUX, HALF_EXPLICIT_TABLEAUX, HalfExplicitTableau
from lgbeam.systems import LieGroupODE


@dataclass(frozen=True)
class RKMK(TableauOrders):
    """An explicit RKMK method given by the first s stages of a tableau (weights b = row s+1)."""

    tableau: HalfExplicitTableau
    name: str = ""
    system_type: ClassVar[type] = LieGroupODE
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"rkmk-{self.tableau.name}")

    def init(self, ode: LieGroupODE, t0: float, y0: FloatArray) -> tuple[FloatArray, None]:
        y = np.array(y0, dtype=float)
        ode.group.validate(y)
        return y, None

    def step(self, ode: LieGroupODE, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        """One step t → t + h; with embedded weights b̂ (s̄ of them) also the error estimate
        Θ − h Σ_{i≤s̄} b̂_i k_i, Θ = h Σ_{i≤s} b_i k_i. For DOPRI5 s̄ = s + 1: the extra stage k_{s+1}
        (row s of A is b, c = 1) is ξ at y_{n+1} in the coordinates of Θ (first same as last)."""
        tab, G = self.tableau, ode.group
        s, A, c = tab.s, tab.A, tab.c
        n_stages = s if tab.b_hat is None else tab.b_hat.size
        K = np.empty((n_stages, G.dim))
        for i in range(n_stages):
            if i == 0:
                K[0] = ode.generator(t, y)
            else:
                theta = h * (A[i, :i] @ K[:i])
                K[i] = G.tangent_inv_apply(
                    theta, np.asarray(ode.generator(t + c[i] * h, G.retract(y, theta)), float)
                )
        b = A[s, :s]
        theta = h * (b @ K[:s])
        err = None if tab.b_hat is None else theta - h * (tab.b_hat @ K)
        return Step(G.retract(y, theta), None, error=err, magnitude=np.abs(theta), evaluations=n_stages)

    def diagnostics(self, ode: LieGroupODE, t: float, y: FloatArray, cache: None) -> dict[str, float]:
        return {}


RKMK_TABLEAUX: dict[str, HalfExplicitTableau] = {
    "rkmk4": CLASSICAL_TABLEAUX["rk4"], "rkmk5": CLASSICAL_TABLEAUX["dopri5"],
    **{f"rkmk-{name}": tab for name, tab in HALF_EXPLICIT_TABLEAUX.items()},
}

__all__ = ["RKMK", "RKMK_TABLEAUX"]
