"""RKMK methods on homogeneous spaces, y_{n+1} = exp(σ)·y_n, the Casas–Owren scheme and ambient RK baselines.

For y' = ψ_*(f(t, y))|_y (``HomogeneousSpaceODE``), write y(t_n + τ) = exp(σ(τ))·y_n; then (seed 000 (6))

    σ' = dexp⁻¹_σ( f(exp(σ)·y_n) ),  σ(0) = 0,

and one step of an explicit tableau (a, b, c) applied to (6) is (seed 000 §2.2; notes/000.md §3.2)

    k_1 = f(t_n, y_n),  k_i = dexp⁻¹_{s_i}( f(t_n + c_i h, exp(s_i)·y_n) ),  s_i = h Σ_{j<i} a_ij k_j,
    σ_1 = h Σ_i b_i k_i,  y_{n+1} = exp(σ_1)·y_n.

dexp⁻¹ is the space's exact map or the Bernoulli series (8) truncated after ad^degree (``dexp_degree``;
degree p − 2 keeps order p). With embedded weights b̃ (DOPRI 5(4) over its 7 stages) the estimate is
σ_1 − σ̃_1 in the algebra (seed 000 §4), evaluated lazily (``Step.estimate``) so a constant-step run pays
6 evaluations, an adaptive one 7 (no FSAL on manifolds: k_7 ≠ next k_1, notes §3.2).

Casas–Owren RKMK4 (seed 000 §2.3, notes §3.3) needs two brackets and no dexp⁻¹:

    F_1 = h f(y_n), F_2 = h f(exp(F_1/2)·y_n), F_3 = h f(exp(F_2/2 − [F_1, F_2]/8)·y_n),
    F_4 = h f(exp(F_3)·y_n), y_{n+1} = exp( (F_1 + 2F_2 + 2F_3 + F_4)/6 − [F_1, F_4]/12 )·y_n.

``AmbientRK`` is the classical method in the embedding space, y' = ψ_*(f(y))|_y as a vector field on
R^size: the baseline whose drift off M is seed 000's Figs 6–7.

References
----------
Munthe-Kaas (1998, 1999); Casas & Owren (2003), [5] in seed 000; seed 000 §2.2–§2.3, §4, eq. (6), (8);
Dormand & Prince (1980); Kutta (1901); notes/000.md §3.2–§3.3.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.homogeneous import dexp_inv_series
from lgbeam.integrators.base import Step, TableauOrders
from lgbeam.integrators.tableaux import HalfExplicitTableau
from lgbeam.systems import HasInvariants, HomogeneousSpace, HomogeneousSpaceODE, supports

logger = logging.getLogger(__name__)


class _OnSpace:
    """Shared ``init`` and ``diagnostics`` of the methods on ``HomogeneousSpaceODE``."""

    system_type: ClassVar[type] = HomogeneousSpaceODE
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False

    def init(self, ode: HomogeneousSpaceODE, t0: float, y0: FloatArray) -> tuple[FloatArray, None]:
        """y0 validated on the space (ValueError off the manifold beyond ``MANIFOLD_TOL``)."""
        return np.array(ode.space.validate(y0), dtype=float), None

    def initial_step(self, ode: HomogeneousSpaceODE, t0: float, y0: FloatArray, cache: Any, rtol: Any,
                     atol: Any, h_max: float) -> float:
        """A first trial step for ``AdaptiveStep`` without ``h0``: h₀ = 0.1 tol^{1/(p+1)} / ‖f(t₀, y₀)‖_∞
        (the controller corrects it after one trial; the seed's code uses T/100 instead)."""
        tol = float(np.min(np.asarray(rtol, dtype=float)))
        order = int(getattr(self, "order", 1))
        size = float(np.abs(np.asarray(ode.algebra_field(t0, y0), dtype=float)).max(initial=0.0))
        return float(min(h_max, 0.1 * tol ** (1.0 / (order + 1)) / max(size, 1e-10)))

    def diagnostics(self, ode: HomogeneousSpaceODE, t: float, y: FloatArray, cache: Any) -> dict[str, float]:
        """The space's residuals (e.g. max | |q_i| − 1 |, max |q_i·w_i|) and the system's invariants."""
        out = dict(ode.space.deviation(y))
        if supports(ode, HasInvariants):
            out.update(ode.invariants(t, y))
        return out


def _check_degree(name: str, degree: int | None) -> None:
    if degree is not None and not (isinstance(degree, (int, np.integer)) and 0 <= degree <= 10):
        raise ValueError(
            f"{name}: dexp_degree must be None (exact dexp⁻¹) or an integer 0..10 (highest power of "
            f"ad kept in the Bernoulli series), got {degree!r}"
        )


@dataclass(frozen=True)
class HomogeneousRKMK(TableauOrders, _OnSpace):
    """RKMK with an explicit tableau on a homogeneous space (seed 000 §2.2, eq. (6)).

    ``tableau``: a classical tableau (``HalfExplicitTableau`` with row s+1 = b, optional b̃ over s̄ stages);
    ``dexp_degree``: None for the space's exact dexp⁻¹, else the highest power of ad kept in (8).
    """

    tableau: HalfExplicitTableau
    name: str = ""
    dexp_degree: int | None = None

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"hs-rkmk-{self.tableau.name}")
        _check_degree(self.name, self.dexp_degree)

    def _dexp_inv(self, space: HomogeneousSpace, sigma: FloatArray, v: FloatArray) -> FloatArray:
        if self.dexp_degree is None:
            return space.dexp_inv(sigma, v)
        return dexp_inv_series(space.bracket, sigma, v, self.dexp_degree)

    def _stage(self, ode: HomogeneousSpaceODE, t: float, h: float, y: FloatArray, K: FloatArray,
               i: int) -> FloatArray:
        tab, space = self.tableau, ode.space
        s_i = h * (tab.A[i, :i] @ K[:i])
        f = np.asarray(ode.algebra_field(t + tab.c[i] * h, space.exp_act(s_i, y)), dtype=float)
        return self._dexp_inv(space, s_i, f)

    def step(self, ode: HomogeneousSpaceODE, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        """One step t → t + h; with b̃ a lazy estimate σ_1 − σ̃_1 (the extra stages only when asked)."""
        tab, space = self.tableau, ode.space
        s = tab.s
        K = np.zeros((tab.stages, space.dim))
        K[0] = ode.algebra_field(t, y)
        for i in range(1, s):
            K[i] = self._stage(ode, t, h, y, K, i)
        sigma = h * (tab.b[:s] @ K[:s])
        y1 = space.exp_act(sigma, y)
        b_hat = tab.b_hat
        if b_hat is None:
            return Step(y1, None, evaluations=s)

        def estimate() -> tuple[FloatArray, FloatArray]:
            for i in range(s, tab.stages):
                K[i] = self._stage(ode, t, h, y, K, i)
            return sigma - h * (b_hat @ K), np.abs(sigma)

        return Step(y1, None, estimate=estimate, evaluations=s)


@dataclass(frozen=True)
class CasasOwren4(_OnSpace):
    """RKMK4 with two commutators and no dexp⁻¹ (Casas & Owren 2003; seed 000 §2.3)."""

    name: str = "hs-rkmk4-2c"
    order: int = 4
    error_order: None = None

    def step(self, ode: HomogeneousSpaceODE, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        sp, f = ode.space, ode.algebra_field
        F1 = h * np.asarray(f(t, y), dtype=float)
        F2 = h * np.asarray(f(t + h / 2, sp.exp_act(0.5 * F1, y)), dtype=float)
        F3 = h * np.asarray(f(t + h / 2, sp.exp_act(0.5 * F2 - 0.125 * sp.bracket(F1, F2), y)), dtype=float)
        F4 = h * np.asarray(f(t + h, sp.exp_act(F3, y)), dtype=float)
        sigma = (F1 + 2 * F2 + 2 * F3 + F4) / 6.0 - sp.bracket(F1, F4) / 12.0
        return Step(sp.exp_act(sigma, y), None, evaluations=4)


@dataclass(frozen=True)
class AmbientRK(TableauOrders, _OnSpace):
    """Classical explicit RK on the embedding space R^size of M, F(t, y) = ψ_*(f(t, y))|_y (baseline)."""

    tableau: HalfExplicitTableau
    name: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", f"ambient-{self.tableau.name}")

    def step(self, ode: HomogeneousSpaceODE, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        tab, sp = self.tableau, ode.space
        K = np.zeros((tab.stages, sp.size))
        for i in range(tab.stages):
            Y = y + h * (tab.A[i, :i] @ K[:i])
            K[i] = sp.generator(ode.algebra_field(t + tab.c[i] * h, Y), Y)
            if i == tab.s - 1 and tab.b_hat is None:
                break
        y1 = y + h * (tab.b[: tab.s] @ K[: tab.s])
        if tab.b_hat is None:
            return Step(y1, None, evaluations=tab.s)
        err = h * ((tab.A[tab.s] - tab.b_hat) @ K)
        return Step(y1, None, error=err, magnitude=np.maximum(np.abs(y), np.abs(y1)), evaluations=tab.stages)


def classical(name: str, rows: list[list[float]], order: int, references: str) -> HalfExplicitTableau:
    """A classical explicit tableau (rows of A, then b) as a ``HalfExplicitTableau`` (order checked)."""
    s = len(rows) - 1
    A = np.zeros((s + 1, s))
    for i, row in enumerate(rows):
        A[i, : len(row)] = row
    d = np.zeros(s)
    d[-1] = 1.0
    return HalfExplicitTableau(name=name, A=A, c=A.sum(axis=1), s=s, d=d, order=order, references=references)


LIE_EULER = classical("lie-euler", [[0.0], [1.0]], 1, "seed 000 §2.2, Lie–Euler")
HEUN = classical("heun", [[0.0], [1.0], [0.5, 0.5]], 2, "Heun; seed 000 Fig. 5 'Lie–Euler–Heun'")
KUTTA3 = classical("kutta3", [[0.0], [0.5], [-1.0, 2.0], [1 / 6, 2 / 3, 1 / 6]], 3,
                   "Kutta (1901) third order; seed 000 RKMK3 (companion code, notes/000.md §3.2)")

__all__ = ["HEUN", "KUTTA3", "LIE_EULER", "AmbientRK", "CasasOwren4", "HomogeneousRKMK", "classical"]
