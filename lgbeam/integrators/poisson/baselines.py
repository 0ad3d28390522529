"""Classical (non-exponential) baselines for y' = F(y) = S(Ay + ∇U(y)) (seed 003 §2.4–2.5).

- Implicit midpoint, fixed point: y_m = y₀ + (h/2) F(y_m), y₁ = 2y_m − y₀ (seed 003 (1.37)); the
  iteration matrix (h/2)∇F contains hSA, so it converges only for h ≲ 2/ρ(SA) (Tables 2.3/2.4).
- Implicit midpoint, quasi-Newton: the same equation, Jacobian I − (h/2)∇F(y_m⁰) factorised once per
  step at an explicit Lawson-RK4 predictor (seed 003 §2.5.1 "the Jacobian of the initial point is
  used repeatedly ... LU factorization need only be computed once per timestep").
- Discrete-gradient method (2.25)/(2.26): y₁ = y₀ + h S(A(y₀ + y₁)/2 + ∇̄U(y₀, y₁)).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._typing import Array
from lgbeam.integrators.base import Step
from lgbeam.integrators.poisson.base import PoissonMethod, full_field, solved
from lgbeam.integrators.poisson.exponential import lawson4_step
from lgbeam.integrators.poisson.solver import FixedPoint
from lgbeam.systems import (
    DiscreteGradientPoissonSystem,
    HasDiscreteGradient,
    HasJacobian,
    JacobianPoissonSystem,
    SemilinearPoissonSystem,
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ImplicitMidpoint(PoissonMethod[SemilinearPoissonSystem]):
    """Classical implicit midpoint rule solved by fixed-point iteration on the midpoint; order 2."""

    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "midpoint"
    order: int = 2

    def step(self, system: SemilinearPoissonSystem, t: float, h: float, y: Array,
             cache: None) -> Step[Array, None]:
        res = self.solver.solve(lambda ym: y + 0.5 * h * full_field(system, ym), y)
        return solved(2.0 * res.x - y, res)


@dataclass(frozen=True)
class ImplicitMidpointNewton(PoissonMethod[JacobianPoissonSystem]):
    """Implicit midpoint with quasi-Newton: one LU (dense or sparse) per step, Lawson-RK4 predictor."""

    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "midpoint-newton"
    order: int = 2
    requires: ClassVar[tuple[type, ...]] = (HasJacobian,)

    def step(
        self, system: JacobianPoissonSystem, t: float, h: float, y: Array, cache: None
    ) -> Step[Array, None]:
        ym0: Array
        with np.errstate(over="raise", invalid="raise"):
            try:
                ym0 = 0.5 * (y + lawson4_step(system, h, y))
            except FloatingPointError:
                ym0 = y
        if not np.all(np.isfinite(ym0)):
            ym0 = y
        Jf = system.jacobian(ym0)
        solve: Callable[[Array], Array]
        if sp.issparse(Jf):
            M = sp.identity(Jf.shape[0], format="csc") - 0.5 * h * sp.csc_matrix(Jf)
            solve = spla.splu(M).solve
        else:
            lu = sla.lu_factor(np.eye(Jf.shape[0]) - 0.5 * h * np.asarray(Jf))
            solve = lambda r: sla.lu_solve(lu, r)

        def newton_map(ym: Array) -> Array:
            return ym - solve(ym - y - 0.5 * h * full_field(system, ym))

        res = self.solver.solve(newton_map, ym0)
        return solved(2.0 * res.x - y, res)


@dataclass(frozen=True)
class DiscreteGradientMethod(PoissonMethod[DiscreteGradientPoissonSystem]):
    """Classical discrete-gradient method (seed 003 (2.12), (2.25)/(2.26)); conserves H exactly."""

    solver: FixedPoint = field(default_factory=FixedPoint)
    name: str = "discrete-gradient"
    order: int = 2
    requires: ClassVar[tuple[type, ...]] = (HasDiscreteGradient,)

    def step(self, system: DiscreteGradientPoissonSystem, t: float, h: float, y: Array,
             cache: None) -> Step[Array, None]:
        Ay = system.apply_A(y)

        def G(y1: Array) -> Array:
            dg = system.discrete_gradient(y, y1)
            return y + h * system.apply_S(0.5 * (Ay + system.apply_A(y1)) + dg)

        res = self.solver.solve(G, y)
        return solved(res.x, res)
