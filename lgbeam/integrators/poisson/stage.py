"""Stage solves Q = base + c f(Q), f = S∇U, of the exponential midpoint rule and its compositions (issue 18
item 1).

Modes (``STAGE_SOLVERS``; the registered methods default to ``"fixed-point"``, whose iterates and counts are
those of Tables 2.3/2.4):

- ``"fixed-point"``: Q ← base + c f(Q) (``FixedPoint``); contracts only while c‖∇f‖ < 1, which on KdV is
  c k_max max|u| < 1, so it caps the step (≈ 0.01 on the KdV n = 401 problem).
- ``"newton"``: Newton–Krylov (``NewtonKrylov``): Newton on R(Q) = Q − base − c f(Q) with the exact
  Jacobian–vector product (I − c S∇²U(Q)) v (capability ``HasStageLinearisation.field_jvp``), each Newton
  system solved by GMRES preconditioned by the frozen linear part (I − c S∇²U(ȳ))⁻¹, inverted exactly in
  Fourier space (``frozen_stage_solve``; on NLS the linearisation is pointwise and inverted exactly).
- ``"exact"``: the system's closed-form stage (``HasExactStage``: NLS, node by node, no iteration).
- ``"auto"``: the exact stage when the system has one; otherwise the contraction factor is estimated before
  the solve, ρ̂ = |c| · ``field_lipschitz(x0)``; ρ̂ < ``AUTO_CONTRACTION`` runs the fixed point (falling back
  to Newton–Krylov if it fails anyway), larger ρ̂ goes to Newton–Krylov directly. Without
  ``HasStageLinearisation`` "auto" is the fixed point.

Every mode returns a ``FixedPointResult`` whose ``iterations`` counts the work in nonlinear evaluations
(f evaluations, Jacobian–vector products, pointwise exact solves), so the per-step counts of the driver stay
comparable across modes.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse.linalg as spla

from lgbeam._typing import Array
from lgbeam.integrators.poisson.base import nonlinear_field, stage_map
from lgbeam.integrators.poisson.solver import FixedPoint, FixedPointResult
from lgbeam.systems import (
    HasExactStage,
    HasStageLinearisation,
    LinearisedPoissonSystem,
    SemilinearPoissonSystem,
    supports,
)

logger = logging.getLogger(__name__)

STAGE_SOLVERS = ("fixed-point", "newton", "exact", "auto")
AUTO_CONTRACTION = 0.5
""""auto" runs the fixed point only where the estimated contraction factor is below this (error reduction
≥ 2× per iteration); above it Newton–Krylov is cheaper or the only solve that converges."""
_EPS = np.finfo(float).eps


def check_stage_mode(mode: str) -> None:
    if mode not in STAGE_SOLVERS:
        raise ValueError(f"unknown stage solver {mode!r}; choose one of {', '.join(STAGE_SOLVERS)}")


def check_stage_system(mode: str, system: SemilinearPoissonSystem, method: str) -> None:
    """Refuse (before the first step) a mode the system cannot serve, naming the capability it lacks."""
    if mode == "exact" and not supports(system, HasExactStage):
        raise ValueError(
            f"method {method!r} with stage='exact' needs a system with solve_stage(base, c) "
            f"(HasExactStage); {type(system).__name__} has none: use stage='auto' or 'fixed-point'"
        )
    if mode == "newton" and not supports(system, HasStageLinearisation):
        raise ValueError(f"method {method!r} with stage='newton' needs field_jvp, field_lipschitz and "
                         f"frozen_stage_solve (HasStageLinearisation); {type(system).__name__} lacks them")


def _real(a: Array) -> Array:
    """A real view of ``a`` (complex arrays as interleaved real and imaginary parts)."""
    return a.view(float) if np.iscomplexobj(a) else a


@dataclass(frozen=True)
class NewtonKrylov:
    """Newton–Krylov solve of Q = base + c f(Q), preconditioned by the frozen linear part (module docstring).

    Stops when the Newton increment satisfies ‖δ‖∞ ≤ tol · max(1, ‖Q‖∞) (the fixed point's rule) or the
    residual has reached round-off; fails after ``max_newton`` Newton iterations, ``max_krylov`` GMRES
    products in one of them, or a growing residual. Complex states are solved as real ones (the
    linearisation of |ψ|²ψ is only real-linear).
    """

    tol: float = 1e-14
    max_newton: int = 30
    max_krylov: int = 400
    restart: int = 40

    def solve(self, system: LinearisedPoissonSystem, base: Array, c: float, x0: Array,
              increment: bool = False) -> FixedPointResult:
        """Newton on the increment D = Q − base, R(D) = D − c f(base + D), from x0 (Q, or D if ``increment``);
        the result is Q, or D if ``increment`` (then its round-off is relative to D, not to Q)."""
        D = np.array(x0 - base if not increment else x0, copy=True)
        Q = base + D
        shape, cplx = Q.shape, np.iscomplexobj(Q)
        n = _real(Q).size
        work = 0
        first = math.inf
        inc = math.inf
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            try:
                for it in range(1, self.max_newton + 1):
                    R = D - c * nonlinear_field(system, Q)
                    work += 1
                    rnorm = float(np.abs(R).max())
                    scale = max(1.0, float(np.abs(Q).max()))
                    if not math.isfinite(rnorm) or rnorm > 1e4 * first:
                        return FixedPointResult(D if increment else Q, work, False, math.inf, "diverged")
                    if it == 1:
                        first = max(rnorm, 1e-300)
                    if rnorm <= 4 * _EPS * scale:  # the residual is round-off: Q solves the stage
                        return FixedPointResult(D if increment else Q, work, True, rnorm / scale)
                    count = [0]

                    def jvp(v: Array, Qc: Array = Q, count: list[int] = count) -> Array:
                        count[0] += 1
                        w = v.view(complex).reshape(shape) if cplx else v.reshape(shape)
                        return _real(w - c * system.field_jvp(Qc, w)).ravel()

                    def prec(v: Array, Qc: Array = Q) -> Array:
                        w = v.view(complex).reshape(shape) if cplx else v.reshape(shape)
                        return _real(np.ascontiguousarray(system.frozen_stage_solve(c, Qc, w))).ravel()

                    A = spla.LinearOperator((n, n), matvec=jvp, dtype=float)
                    M = spla.LinearOperator((n, n), matvec=prec, dtype=float)
                    rhs = -_real(np.ascontiguousarray(R)).ravel()
                    eta = min(1e-1, max(rnorm / scale, 1e-12))
                    d, info = spla.gmres(A, rhs, rtol=eta, atol=0.1 * self.tol * scale, restart=self.restart,
                                         maxiter=max(1, self.max_krylov // self.restart), M=M)
                    work += count[0]
                    delta = d.view(complex).reshape(shape) if cplx else d.reshape(shape)
                    D = D + delta
                    Q = base + D
                    inc = float(np.abs(delta).max())
                    if not math.isfinite(inc):
                        return FixedPointResult(D if increment else Q, work, False, math.inf, "diverged")
                    if info > 0 and inc > 1e3 * rnorm:
                        return FixedPointResult(D if increment else Q, work, False, rnorm / scale, "krylov")
                    if inc <= self.tol * max(1.0, float(np.abs(Q).max())):
                        return FixedPointResult(D if increment else Q, work, True, inc / scale)
            except FloatingPointError:
                return FixedPointResult(D if increment else Q, work, False, math.inf, "diverged")
        scale = max(1.0, float(np.abs(Q).max()))
        return FixedPointResult(D if increment else Q, work, False, inc / scale, "max_iter")


def solve_stage(mode: str, fp: FixedPoint, system: SemilinearPoissonSystem, base: Array, c: float,
                x0: Array) -> FixedPointResult:
    """Solve the stage Q = base + c f(Q) from ``x0`` in ``mode`` (module docstring).

    ``check_stage_system`` has refused "exact" and "newton" for a system without their capability."""
    if mode == "fixed-point":
        return fp.solve(stage_map(system, base, c), x0)
    if mode == "exact" or (mode == "auto" and supports(system, HasExactStage)):
        assert supports(system, HasExactStage), "stage='exact' without HasExactStage (check_stage_system)"
        return FixedPointResult(system.solve_stage(base, c), 1, True, 0.0)
    if not supports(system, HasStageLinearisation):
        assert mode != "newton", "stage='newton' without HasStageLinearisation (check_stage_system)"
        return fp.solve(stage_map(system, base, c), x0)
    nk = NewtonKrylov(tol=fp.tol, max_newton=min(fp.max_iter, 30))
    if mode == "newton":
        return nk.solve(system, base, c, x0)
    if abs(c) * system.field_lipschitz(x0) < AUTO_CONTRACTION:
        res = fp.solve(stage_map(system, base, c), x0)
        if res.converged:
            return res
        retry = nk.solve(system, base, c, x0)
        return FixedPointResult(retry.x, res.iterations + retry.iterations, retry.converged, retry.residual,
                                retry.reason)
    return nk.solve(system, base, c, x0)


__all__ = ["AUTO_CONTRACTION", "STAGE_SOLVERS", "NewtonKrylov", "check_stage_mode", "check_stage_system",
           "solve_stage"]
