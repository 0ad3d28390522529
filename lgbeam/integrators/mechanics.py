"""What every method for constrained mechanical systems shares (seed 004 eqs. (1)–(5)).

M v' = −g(t, q, v) − B(q)ᵀλ, Φ(q) = 0, q' = q · v^: initial-data checks and the consistent λ₀ from
the index-1 condition, mass-orthogonal projection onto the constraint manifold, the per-step residuals
(‖Φ‖, ‖B v‖, energy), the group-aware cubic Hermite interpolant and the starting step size.

Rheonomic constraints (``lgbeam.systems.RheonomicConstraints``): the consistency check at t0, λ₀, the
projections and the residuals use Φ(t, q) and the hidden constraint B(q) v + Φ_t(t, q); scleronomic
systems take exactly the time-independent path.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators._linear import SaddlePointSolver, as_matrix, mass_inverse
from lgbeam.systems import (
    ConstrainedMechanicalSystem,
    HasCompiledChoice,
    HasEnergy,
    HasMassBlocks,
    HasNewtonResidual,
    HasStepResiduals,
    HasVariableMass,
    LieGroup,
    MechanicalState,
    RheonomicConstraints,
    is_rheonomic,
    supports,
)


def check_finite(name: str, x: FloatArray) -> None:
    """ValueError naming the first non-finite entry of an initial-data array."""
    if not np.all(np.isfinite(x)):
        bad = np.flatnonzero(~np.isfinite(np.ravel(x)))
        raise ValueError(
            f"{name} contains non-finite values (first at flat index {bad[0]}); fix the initial data"
        )


def stage_solver(system: ConstrainedMechanicalSystem, q: FloatArray) -> SaddlePointSolver:
    """The saddle-point solver of a constant, block-diagonal mass matrix M(q0)."""
    if isinstance(system, HasVariableMass) and system.mass_is_constant is False:
        raise ValueError(
            f"{type(system).__name__} has a configuration-dependent mass matrix; this method needs "
            "a constant one (mass_is_constant = True)"
        )
    block = system.mass_block if isinstance(system, HasMassBlocks) else 6
    compiled = system.compiled if isinstance(system, HasCompiledChoice) else None
    return SaddlePointSolver(mass_inverse(system.mass(q), block), compiled=compiled)


def multipliers(y: MechanicalState) -> FloatArray:
    """λ of a state past a method's ``init`` (which fills in the consistent λ₀ where ``y0.lam`` is None)."""
    assert y.lam is not None, "a mechanical state past init carries its multipliers"
    return y.lam


def phi(system: ConstrainedMechanicalSystem, t: float, q: FloatArray) -> FloatArray:
    """Φ(t, q) for rheonomic systems, else Φ(q)."""
    return system.constraints_t(t, q) if is_rheonomic(system) else system.constraints(q)


def jac(system: ConstrainedMechanicalSystem, t: float, q: FloatArray) -> Any:
    """B(t, q) for rheonomic systems, else B(q)."""
    return as_matrix(
        system.constraint_jacobian_t(t, q) if is_rheonomic(system) else system.constraint_jacobian(q)
    )


# (g, Bᵀλ, Φ, B v + Φ_t); Bᵀλ is the scalar 0.0 for a system without constraints
NewtonResidual = Callable[[float, FloatArray, FloatArray, FloatArray],
                          tuple[FloatArray, FloatArray | float, FloatArray, FloatArray]]


def newton_residual_fn(system: ConstrainedMechanicalSystem, lin: SaddlePointSolver,
                       rheonomic: bool) -> NewtonResidual:
    """``(t, q, v, λ) -> (g, Bᵀλ, Φ, B v + Φ_t)`` at a Newton iterate: the system's own fused pass
    (``HasNewtonResidual``) or the protocol methods (forces, B, Φ)."""
    if supports(system, HasNewtonResidual):
        return system.newton_residual
    m = system.n_constraints
    empty = np.zeros(0)

    rate = system.constraint_rate if rheonomic and supports(system, RheonomicConstraints) else None

    def generic(t: float, q: FloatArray, v: FloatArray,
                lam: FloatArray) -> tuple[FloatArray, FloatArray | float, FloatArray, FloatArray]:
        g = np.asarray(system.forces(t, q, v), dtype=float)
        if not m:
            return g, 0.0, empty, empty
        B = jac(system, t, q)
        bv = lin.matvec(B, v) + (rate(t, q) if rate is not None else 0.0)
        return g, lin.rmatvec(B, lam), phi(system, t, q), bv

    return generic


def hidden(system: ConstrainedMechanicalSystem, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
    """The hidden constraint B(q) v (B(t, q) v + Φ_t(t, q) for rheonomic systems)."""
    bv: FloatArray = jac(system, t, q) @ v
    return bv + system.constraint_rate(t, q) if is_rheonomic(system) else bv


def curvature_term(system: ConstrainedMechanicalSystem, q: FloatArray, v: FloatArray,
                   t: float = 0.0) -> FloatArray:
    """(d/dt B(q(t))) v at t along q' = q v^ (plus d/dt Φ_t(t, q(t)) for rheonomic constraints), by a
    central difference in t (used once, for λ₀)."""
    eps = 1e-5 / max(1.0, float(np.linalg.norm(v)))
    mechanical, G = system, system.group
    qp, qm = G.retract(q, eps * v), G.retract(q, -eps * v)
    if is_rheonomic(system):  # Φ_t enters through hidden(); mypy sees only RheonomicConstraints here
        return (hidden(mechanical, t + eps, qp, v) - hidden(mechanical, t - eps, qm, v)) / (2 * eps)
    Bp = as_matrix(system.constraint_jacobian(qp))
    Bm = as_matrix(system.constraint_jacobian(qm))
    return (Bp @ v - Bm @ v) / (2 * eps)


def consistent_multiplier(system: ConstrainedMechanicalSystem, lin: SaddlePointSolver, t: float,
                          q: FloatArray, v: FloatArray) -> FloatArray:
    """λ from the index-1 condition B v' + d/dt(B) v (+ d/dt Φ_t) = 0 with M v' = −g − Bᵀλ."""
    if system.n_constraints == 0:
        return np.zeros(0)
    B = jac(system, t, q)
    _, lam = lin.solve(-system.forces(t, q, v), B, B, 1.0, -curvature_term(system, q, v, t))
    return lam


def project(system: ConstrainedMechanicalSystem, lin: SaddlePointSolver, q: FloatArray, v: FloatArray,
            tol: float = 1e-13, iters: int = 8, t: float = 0.0) -> tuple[FloatArray, FloatArray]:
    """Project q onto Φ(t, ·) = 0 (Newton in the mass metric, q ← q ∘ exp(δ)) and v onto
    {B(q) v + Φ_t(t, q) = 0} (ker B(q) for scleronomic constraints), mass-orthogonally."""
    G = system.group
    for _ in range(iters):
        res = phi(system, t, q)
        if np.linalg.norm(res) <= tol:
            break
        q = G.retract(q, lin.correction(jac(system, t, q), res))
    B = jac(system, t, q)
    v = lin.project_velocity(B, v)
    if is_rheonomic(system):  # affine: v − M⁻¹Bᵀ S⁻¹ (B v + Φ_t) = P v + correction(Φ_t)
        v = v + lin.correction(B, system.constraint_rate(t, q))
    return q, v


def consistent_initial_state(system: ConstrainedMechanicalSystem, lin: SaddlePointSolver, t0: float,
                             y0: MechanicalState, *, project_initial: bool,
                             consistency_tol: float) -> MechanicalState:
    """Check (or project) q0, v0 against the constraints and fill in the consistent λ₀ when missing."""
    q, v = np.array(y0.q, dtype=float), np.array(y0.v, dtype=float)
    check_finite("initial configuration q0", q)
    check_finite("initial velocity v0", v)
    system.group.validate(q)
    if system.n_constraints:
        res, bv = np.linalg.norm(phi(system, t0, q)), np.linalg.norm(hidden(system, t0, q, v))
        if project_initial:
            q, v = project(system, lin, q, v, t=t0)
        elif res > consistency_tol or bv > consistency_tol:
            what = "B(q0) v0 + Φ_t(t0, q0)" if is_rheonomic(system) else "B(q0) v0"
            raise ValueError(
                f"inconsistent initial data: |Φ(t0, q0)| = {res:.3e}, |{what}| = {bv:.3e} (tolerance "
                f"{consistency_tol:g}); correct q0/v0 so that the constraints hold, or opt in to projecting "
                "them (project_initial=True, case key initial.project = true)"
            )
    if y0.lam is None:
        lam = consistent_multiplier(system, lin, t0, q, v)
    else:
        lam = np.array(y0.lam, dtype=float)
        check_finite("initial multipliers lam0", lam)
    return MechanicalState(q, v, lam)


def norm(x: FloatArray) -> float:
    """Euclidean norm without BLAS: for long vectors a threaded ddot can stall for milliseconds on a loaded
    machine, and this runs after every step."""
    x = np.asarray(x, dtype=float)
    return math.sqrt(float(np.einsum("i,i->", x, x))) if x.ndim == 1 else float(np.linalg.norm(x))


@runtime_checkable
class HasStepInvariants(Protocol):
    """Optional capability: (‖Φ‖, energy) after a step in one pass, or None to fall back (the driver's always-on
    blow-up check, ``residuals(..., velocity=False)``; ``CosseratRod`` with supports, where ``HasStepResiduals``
    declines)."""

    def step_invariants(self, t: float, q: FloatArray, v: FloatArray) -> tuple[float, float] | None: ...


def residuals(system: ConstrainedMechanicalSystem, t: float, q: FloatArray, v: FloatArray,
              lin: SaddlePointSolver | None = None, rheonomic: bool | None = None,
              velocity: bool = True) -> dict[str, float]:
    """{phi: ‖Φ‖, bv: ‖B v (+ Φ_t)‖, energy} after a step; ``lin`` lets B v use the stage solver's cached
    pattern. A system may compute all three at once (``HasStepResiduals``, e.g. the rod's compiled pass).
    ``velocity=False`` skips B v where it costs a Jacobian (the driver's always-on blow-up check needs Φ and E)."""
    rheo = is_rheonomic(system) if rheonomic is None else rheonomic
    if (
        not rheo
        and supports(system, HasStepResiduals)
        and (fused := system.step_residuals(t, q, v)) is not None
    ):
        return {"phi": fused[0], "bv": fused[1], "energy": fused[2]}
    if not velocity and not rheo and supports(system, HasStepInvariants) and (
            pair := system.step_invariants(t, q, v)) is not None:
        return {"phi": pair[0], "energy": pair[1]}
    driven = system if rheo and supports(system, RheonomicConstraints) else None
    res = bv = 0.0
    if system.n_constraints:
        res = norm(driven.constraints_t(t, q) if driven is not None else system.constraints(q))
        if not velocity:
            return {
                "phi": res,
                "energy": float(system.energy(t, q, v)) if supports(system, HasEnergy) else math.nan,
            }
        B = jac(system, t, q)
        hid = lin.matvec(B, v) if lin is not None else B @ v
        if driven is not None:
            hid = hid + driven.constraint_rate(t, q)
        bv = norm(hid)
    energy = float(system.energy(t, q, v)) if supports(system, HasEnergy) else float("nan")
    return {"phi": res, "bv": bv, "energy": energy}


def hermite(G: LieGroup, q0: FloatArray, v0: FloatArray, lam0: FloatArray, theta: FloatArray, q1: FloatArray,
            v1: FloatArray, lam1: FloatArray, vdot0: FloatArray | None, vdot1: FloatArray | None, h: float,
            sigma: float) -> MechanicalState:
    """Group-aware cubic Hermite interpolant of one step at t_n + σh.

    q(t_n + σh) = q_n ∘ exp(Θ(σ)) with Θ the cubic Hermite interpolant of Θ(0) = 0, Θ'(0) = h v_n,
    Θ(1) = Θ_{n+1}, Θ'(1) = h T⁻¹(Θ_{n+1}) v_{n+1} (local error O(h⁴)); v by cubic Hermite with the stage
    derivatives V̇ at both ends when both are known (FSAL methods), else linearly; λ linearly.
    """
    if sigma == 1.0:
        return MechanicalState(q1, v1, lam1)
    s2, s3 = sigma * sigma, sigma**3
    h00, h10, h01, h11 = 2 * s3 - 3 * s2 + 1, s3 - 2 * s2 + sigma, -2 * s3 + 3 * s2, s3 - s2
    dtheta_end = G.tangent_inv_apply(theta, v1)
    q = G.retract(q0, h10 * h * v0 + h01 * theta + h11 * h * dtheta_end)
    if vdot0 is not None and vdot1 is not None:
        v = h00 * v0 + h10 * h * vdot0 + h01 * v1 + h11 * h * vdot1
    else:
        v = (1 - sigma) * v0 + sigma * v1
    return MechanicalState(q, v, (1 - sigma) * lam0 + sigma * lam1)


def initial_step(system: ConstrainedMechanicalSystem, lin: SaddlePointSolver, t0: float, y0: MechanicalState,
                 order: int, rtol: FloatArray | float, atol: FloatArray | float, h_max: float) -> float:
    """Starting step size (Hairer, Nørsett & Wanner I, §II.4) on y = (θ, v)."""
    q, v, lam = y0.q, y0.v, y0.lam
    B = jac(system, t0, q) if system.n_constraints else None
    a = lin.explicit(-system.forces(t0, q, v) - (B.T @ lam if B is not None else 0.0))
    y = np.concatenate([np.zeros_like(v), v])
    f0 = np.concatenate([v, a])
    scale = atol + np.abs(y) * rtol
    d0, d1 = np.sqrt(np.mean((y / scale) ** 2)), np.sqrt(np.mean((f0 / scale) ** 2))
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    q1, v1 = system.group.retract(q, h0 * v), v + h0 * a
    B1 = jac(system, t0 + h0, q1) if system.n_constraints else None
    a1 = lin.explicit(-system.forces(t0 + h0, q1, v1) - (B1.T @ lam if B1 is not None else 0.0))
    d2 = np.sqrt(np.mean((np.concatenate([v1 - v, a1 - a]) / scale) ** 2)) / h0
    h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    return float(min(100 * h0, h1, h_max))


__all__ = ["HasStepInvariants", "check_finite", "consistent_initial_state", "consistent_multiplier", "curvature_term", "hermite",
           "hidden", "initial_step", "jac", "multipliers", "newton_residual_fn", "phi", "project",
           "residuals", "stage_solver"]
