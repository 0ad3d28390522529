"""Runge–Kutta–Munthe-Kaas (RKMK) Lie group methods for unconstrained ODEs y' = y · ξ(t, y)^.

Stages in the local coordinates of the exponential map (seed 004 eqs. (6)–(13) without constraints):

    Θ_i = h Σ_{j<i} a_ij k_j,   Y_i = y_n ∘ exp(Θ_i),   k_i = T(Θ_i)⁻¹ ξ(t_n + c_i h, Y_i),
    y_{n+1} = y_n ∘ exp(h Σ_i b_i k_i),

with the classical tableaux of ``tableaux.py`` (RK4, DOPRI5) or the b-rows of the half-explicit
ones. The stage machinery (retraction, T⁻¹ application) is shared with the half-explicit methods.

References
----------
Munthe-Kaas (1998); Iserles et al. (2000) §5; seed 004 §2.1, eq. (11); seed 000 (RKMK methods).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators.half_explicit import retract, tangent_inv_apply
from lgbeam.integrators.tableaux import CLASSICAL_TABLEAUX, HALF_EXPLICIT_TABLEAUX, HalfExplicitTableau


@dataclass(frozen=True)
class RKMK:
    """An explicit RKMK method given by the first s stages of a tableau (weights b = row s+1)."""

    tableau: HalfExplicitTableau

    @property
    def order(self) -> int:
        return self.tableau.order

    def step(self, ode: Any, t: float, h: float, y: FloatArray) -> tuple[FloatArray, FloatArray | None]:
        """One step; returns (y_{n+1}, embedded error h Σ (b_i − b̂_i) k_i or None)."""
        tab, G = self.tableau, ode.group
        s, A, c = tab.s, tab.A, tab.c
        k = []
        for i in range(s):
            theta = h * sum(A[i, j] * k[j] for j in range(i)) if i else None
            Y = y if theta is None else retract(G, y, theta)
            xi = np.asarray(ode.generator(t + c[i] * h, Y), dtype=float)
            k.append(xi if theta is None else tangent_inv_apply(G, theta, xi))
        K = np.array(k)
        b = A[s, :s]
        err = None if tab.b_hat is None else h * ((b - tab.b_hat[:s]) @ K)
        return retract(G, y, h * (b @ K)), err


RKMK_METHODS = {"rkmk4": CLASSICAL_TABLEAUX["rk4"], "rkmk5": CLASSICAL_TABLEAUX["dopri5"],
                **{f"rkmk-{name}": tab for name, tab in HALF_EXPLICIT_TABLEAUX.items()}}


def integrate_ode(ode: Any, y0: FloatArray, t_span: tuple[float, float], method: str = "rkmk4", *, h: float):
    """Fixed-step RKMK integration of y' = y · ξ(t, y)^; returns (t, y) at every step."""
    if method not in RKMK_METHODS:
        raise ValueError(f"unknown RKMK method {method!r}; known methods: {', '.join(RKMK_METHODS)}")
    t0, t1 = map(float, t_span)
    if not h > 0 or not t1 > t0:
        raise ValueError(f"need h > 0 and t_end > t0, got h = {h}, t_span = {t_span}")
    integ = RKMK(RKMK_METHODS[method])
    n = max(1, int(np.ceil((t1 - t0) / h - 1e-9)))
    ts, ys, y = [t0], [np.array(y0, dtype=float)], np.array(y0, dtype=float)
    for k in range(n):
        t = t0 + k * h
        y, _ = integ.step(ode, t, min(h, t1 - t), y)
        ts.append(min(t0 + (k + 1) * h, t1))
        ys.append(y)
    return np.array(ts), np.array(ys)
