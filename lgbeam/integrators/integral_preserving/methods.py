"""Symmetric integral-preserving Lie group methods of order 2 and their baselines (seed 002 §§2–3, 5).

For x' = (S(x) γ(x))^ · x (``lgbeam.systems.LieGroupFirstIntegral``), right trivialisation:

- ``LieDiscreteGradient`` (EP2, eq. (13)): x₁ = exp(h S̄ d̄H) x₀ with the Gonzalez (15) or AVF (14)
  differential and S̄ = S(exp(η/2) x₀); fixed point on η = log(x₁x₀⁻¹) ← h S̄(η) d̄H(η) from h ξ(x₀)
  (notes/002.md §2.10: everything is a function of η, no log in the loop). H(x₁) = H(x₀) exactly (AVF: to
  its quadrature error), symmetric, order 2.
- ``LieMidpoint``: the same without the Gonzalez correction, x₁ = exp(h ξ(exp(η/2) x₀)) x₀ (the seed's
  "symmetric Lie group method", α = 0 in (30)); symmetric, order 2, not energy preserving.
- ``LieHeun``: explicit baseline k₁ = ξ(x₀), k₂ = ξ(exp(hk₁) x₀), x₁ = exp(h(k₁ + k₂)/2) x₀ (the
  seed's "explicit Lie group method based on Heun's RK formula", read as in notes/002.md §4.2).

On S^{n−1} (``lgbeam.systems.SphereFirstIntegral``):

- ``SphereRetractionMethod`` (eq. (16)): x₁ = φ_c(φ_c⁻¹(x₀) + h S̄ d̄H), c = c(x₀, x₁) from (21), with the
  Gonzalez (19) or AVF (18) differential; fixed point on x₁. For the free rigid body the Gonzalez
  method coincides with the implicit midpoint rule (notes/002.md §2.8).

A solve that does not converge, or a step beyond the injectivity radius of exp (|η| ≥ 2π on S³), returns
``Status.SOLVER_FAILED`` with the iteration count; nothing is raised.

References
----------
Celledoni & Owren (seed 002), eqs. (13)–(21), §5; notes/002.md §§2, 6, 8.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import numpy as np

from lgbeam._typing import Array, FloatArray
from lgbeam.groups import sphere_retraction as sr
from lgbeam.integrators.base import Status, Step
from lgbeam.integrators.integral_preserving.differentials import (
    SphereAVF,
    SphereGonzalez,
    TrivialisedAVF,
    TrivialisedGonzalez,
    midpoint_bivector,
    sphere_bivector,
)
from lgbeam.integrators.poisson.base import solved
from lgbeam.integrators.poisson.solver import FixedPoint, FixedPointResult
from lgbeam.systems import LieGroupFirstIntegral, SphereFirstIntegral

logger = logging.getLogger(__name__)

DEFAULT_SOLVER = FixedPoint(tol=1e-14, max_iter=500)
"""Plain fixed point to 1e-14 (energy is kept only as well as the solve converges, notes/002.md §2.10);
500 iterations: the stiff quaternion data of Fig. 2 need ~150 at h = 1/16."""


def fixed_point(solver: FixedPoint, update: Callable[[FloatArray], FloatArray],
                x0: FloatArray) -> tuple[FloatArray, FixedPointResult]:
    """(last iterate, result) of ``solver.solve(update, x0)`` for a float64 map.

    ``FixedPoint.solve`` and ``poisson.base.solved`` are typed on the Poisson methods' generic ``Array``;
    every iterate here stays float64 (x0 is, and so is each ``update``), so the casts only restate that.
    TODO(#36): make both generic in the array type."""
    res = solver.solve(cast(Callable[[Array], Array], update), x0)
    return np.asarray(res.x, dtype=np.float64), res  # no copy: the iterate is float64


def solved_float(y: FloatArray, res: FixedPointResult) -> Step[FloatArray, None]:
    """``poisson.base.solved(y, res)`` (a Step holding ``y`` and the cache None) for a float64 state."""
    return cast(Step[FloatArray, None], solved(y, res))


def field_of(system: LieGroupFirstIntegral, x: FloatArray) -> FloatArray:
    """The right-trivialised field ξ(x) = S(x) γ(x), batched."""
    return np.einsum("...ij,...j->...i", system.bivector(x), system.trivialised_differential(x))


class _LieGroupMethod:
    system_type: ClassVar[type] = LieGroupFirstIntegral
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    error_order: ClassVar[int | None] = None

    def init(self, system: LieGroupFirstIntegral, t0: float, y0: FloatArray) -> tuple[FloatArray, None]:
        y = np.array(y0, dtype=float)
        system.group.validate(y)
        return y, None

    def diagnostics(self, system: LieGroupFirstIntegral, t: float, y: FloatArray,
                    cache: Any) -> dict[str, float]:
        return {"energy": float(system.first_integral(y))}


def _failed(y: FloatArray, exc: Exception, iterations: int = 0) -> Step[FloatArray, None]:
    return Step(y, None, status=Status.SOLVER_FAILED, detail=str(exc), iterations=iterations)


@dataclass(frozen=True)
class LieDiscreteGradient(_LieGroupMethod):
    """EP2: the symmetric Lie group discrete-gradient method (13), Gonzalez or AVF differential."""

    differential: TrivialisedGonzalez | TrivialisedAVF = field(default_factory=TrivialisedGonzalez)
    solver: FixedPoint = DEFAULT_SOLVER
    name: str = "ep2-gonzalez"
    order: int = 2

    def step(self, system: LieGroupFirstIntegral, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        G, diff = system.group, self.differential

        def update(eta: FloatArray) -> FloatArray:
            return h * (midpoint_bivector(system, y, eta) @ diff.from_step(system, y, eta))

        try:
            x, res = fixed_point(self.solver, update, h * field_of(system, y))
        except ValueError as exc:
            return _failed(y, exc)
        return solved_float(G.compose(G.exp(x), y), res)


@dataclass(frozen=True)
class LieMidpoint(_LieGroupMethod):
    """Symmetric Lie group midpoint x₁ = exp(h ξ(exp(η/2) x₀)) x₀ (no energy correction)."""

    solver: FixedPoint = DEFAULT_SOLVER
    name: str = "lie-midpoint"
    order: int = 2

    def step(self, system: LieGroupFirstIntegral, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        G = system.group

        def update(eta: FloatArray) -> FloatArray:
            return h * field_of(system, G.compose(G.exp(0.5 * eta), y))

        x, res = fixed_point(self.solver, update, h * field_of(system, y))
        return solved_float(G.compose(G.exp(x), y), res)


@dataclass(frozen=True)
class LieHeun(_LieGroupMethod):
    """Explicit Lie group Heun method (order 2), the seed's baseline."""

    name: str = "lie-heun"
    order: int = 2

    def step(self, system: LieGroupFirstIntegral, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        G = system.group
        k1 = field_of(system, y)
        k2 = field_of(system, G.compose(G.exp(h * k1), y))
        return Step(G.compose(G.exp(0.5 * h * (k1 + k2)), y), None, evaluations=2)


@dataclass(frozen=True)
class SphereRetractionMethod:
    """Retraction discrete-gradient method (16) on S^{n−1}, Gonzalez (19) or AVF (18) differential."""

    differential: SphereGonzalez | SphereAVF = field(default_factory=SphereGonzalez)
    solver: FixedPoint = DEFAULT_SOLVER
    name: str = "sphere-gonzalez"
    order: int = 2
    system_type: ClassVar[type] = SphereFirstIntegral
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    error_order: ClassVar[int | None] = None

    def init(self, system: SphereFirstIntegral, t0: float, y0: FloatArray) -> tuple[FloatArray, None]:
        p = np.array(y0, dtype=float)
        if p.shape != (system.ambient_dim,) or abs(float(np.linalg.norm(p)) - 1.0) > 1e-12:
            raise ValueError(
                f"{self.name}: the initial point must be a unit vector of R^{system.ambient_dim}, got "
                f"shape {p.shape} and norm {np.linalg.norm(p):.16g}; normalise it yourself"
            )
        return p, None

    def step(self, system: SphereFirstIntegral, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        diff = self.differential

        def update(q: FloatArray) -> FloatArray:
            d, c = diff(system, y, q)
            W = sr.inverse_retract(c, y) + h * (sphere_bivector(system, y, q, c) @ d)
            return sr.retract(c, W)

        P = sr.tangent_projector(y)
        try:
            x0 = sr.retract(y, h * (P @ system.bivector(y) @ system.gradient(y)))
            x, res = fixed_point(self.solver, update, x0)
        except ValueError as exc:
            return _failed(y, exc)
        return solved_float(x, res)

    def diagnostics(self, system: SphereFirstIntegral, t: float, y: FloatArray,
                    cache: Any) -> dict[str, float]:
        return {"energy": float(system.first_integral(y)), "norm_error": float(abs(np.linalg.norm(y) - 1.0))}


__all__ = ["DEFAULT_SOLVER", "LieDiscreteGradient", "LieHeun", "LieMidpoint", "SphereRetractionMethod",
           "field_of", "fixed_point", "solved_float"]
