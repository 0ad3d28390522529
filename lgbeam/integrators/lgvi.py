"""Seed 003 ch. 3: the quaternion Lie group variational integrator and its comparators for a rigid body in a
field, ``RigidBodyInField``, state y = [x, q, p, Π] (13,) with q a unit quaternion (scalar first), Π = JΩ.

Symbols: w = 2Π (the thesis's momentum), F(q), G(q) of seed 003 §3.3 (``groups.cayley.quat_F``/``quat_G``),
τ = vee(DᵀR − RᵀD) the body torque, so F(q)∂V/∂q = 2 vee(RᵀD − DᵀR) = −2τ ((3.24), corrected).

lgvi (3.23), r = q₁* q₀:
    x₁ = x₀ + h/m (p₀ − h/2 ∂V/∂x₀)
    G(r) J Im(r) = b,  b = (h/4)(−w₀ + h/2 F(q₀)∂V/∂q₀) = −(h/2)(Π₀ + h/2 τ₀)
        (3.26) r_v ← J⁻¹(r_v × J r_v + b)/r_s  (default)   or   (3.25) G(r^k) J r_v^{k+1} = b;  r_s = √(1 − |r_v|²)
    q₁ = q₀ r*,  p₁ = m(x₁ − x₀)/h − h/2 ∂V/∂x₁,  Π₁ = −(2/h)(r_s J r_v + r_v × J r_v) + h/2 τ₁
rattle-so3 (3.28): RATTLE on rotation matrices with the constant "mass" J_d = ½ tr(J) I − J, F = Q₀ᵀQ₁ from
    2(f_s J f_v + f_v × J f_v) = vee(h(Q₀ᵀP̃ − P̃ᵀQ₀)) by the same quaternion fixed point, Λ₁ in closed form.
shake-quat: the discrete Lagrangian (3.16) on R⁴ × R⁴ with one multiplier for |q|² = 1 (the Wendlandt–Marsden
    construction; seed 003 Table 3.1 names it without formulas, [RECON]): Newton on (q₁, λ) ∈ R⁵.
lg-stormer-verlet: Störmer–Verlet in x and the variational Lie–Verlet (Cayley) in R (Bou-Rabee & Marsden
    2009; seed 001 (4.11)); Newton on the 3-vector Ω½. Its configuration is R, carried as q = R(q)'s quaternion.

All four are symmetric and of order 2; lgvi, rattle-so3 and shake-quat define the same discrete flow
(notes B.7: (3.29) equals (3.16) under Q = π(q)), so they agree to the solver tolerance.

References
----------
Shen (2019), seed 003, eqs. (3.16), (3.23)–(3.29), Table 3.1; notes/003-ch3plus.md B.4–B.7, F.1–F.4;
Wendlandt & Marsden (1997); Hairer, Lubich & Wanner (2006) §VII.5 (RATTLE); Bou-Rabee & Marsden (2009).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import cross, matrix_to_quat, quat_conj, quat_mul, quat_to_matrix, vee3
from lgbeam.groups.cayley import Retraction, quat_F
from lgbeam.integrators.base import Status, Step
from lgbeam.integrators.rigid import Newton, SolverFailure, hat
from lgbeam.systems import RigidBodyInField

logger = logging.getLogger(__name__)

QUAT_TOL = 1e-10  # | |q| − 1 | accepted in an initial state (documented bad-input tolerance)


def torque(R: FloatArray, D: FloatArray) -> FloatArray:
    """τ = vee(DᵀR − RᵀD): τ·η = −d/dε V(R exp(εη))|₀."""
    return vee3(D.T @ R - R.T @ D)


@dataclass(frozen=True)
class FieldCache:
    """m, J (3,), and (∂V/∂x, τ) at the current state (first same as last)."""

    m: float
    J: FloatArray
    dVx: FloatArray
    tau: FloatArray


def solve_quaternion(J: FloatArray, c: FloatArray, sign: float, scheme: str, tol: float,
                     max_iter: int) -> tuple[FloatArray, int]:
    """Unit quaternion r with ``r_s J r_v + sign · r_v × J r_v = c`` by fixed point (seed 003 (3.25)/(3.26)).

    sign = −1 is (3.23)'s G(r) J Im(r) = c; sign = +1 is RATTLE's F-equation of (3.28) halved. Started from
    r = 1 (notes B.6 [RECON]), the positive root r_s = √(1 − |r_v|²); stops when |Δr_v|∞ ≤ tol.
    """
    rv = np.zeros(3)
    rs = 1.0
    for k in range(1, max_iter + 1):
        if scheme == "3.26":
            new = (c - sign * cross(rv, J * rv)) / (rs * J)
        else:  # (3.25): (r_s I + sign r_v^) J r_v^{k+1} = c, a 3×3 solve
            new = np.asarray(np.linalg.solve((rs * np.eye(3) + sign * hat(rv)) * J, c), dtype=np.float64)
        n2 = float(new @ new)
        if not n2 < 1.0:
            raise SolverFailure(
                f"quaternion fixed point ({scheme}): |r_v| ≥ 1, step too large", k, math.sqrt(n2)
            )
        delta = float(np.abs(new - rv).max())
        rv, rs = new, math.sqrt(1.0 - n2)
        if delta <= tol:
            return np.array([rs, *rv]), k
    raise SolverFailure(f"quaternion fixed point ({scheme})", max_iter, delta)


@dataclass(frozen=True)
class _FieldMethod:
    tol: float = 1e-14
    max_iter: int = 100
    system_type: ClassVar[type] = RigidBodyInField
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    name: ClassVar[str] = ""  # each method's registered name
    order: ClassVar[int] = 2
    error_order: ClassVar[int | None] = None  # no embedded estimate: constant steps

    def __post_init__(self) -> None:
        Newton(self.tol, self.max_iter)

    def init(self, system: RigidBodyInField, t0: float, y0: FloatArray) -> tuple[FloatArray, FieldCache]:
        y = np.array(y0, dtype=float)
        if y.shape != (13,) or not np.all(np.isfinite(y)):
            raise ValueError(f"{self.name}: the state is y = [x, q, p, Π] (13,) finite, got shape {y.shape}")
        dev = abs(float(np.linalg.norm(y[3:7])) - 1.0)
        if dev > QUAT_TOL:
            raise ValueError(
                f"{self.name}: q must be a unit quaternion (| |q| − 1 | = {dev:.2e} > {QUAT_TOL:g}); "
                "normalise it (or build it from R with groups.base.matrix_to_quat)"
            )
        J = np.asarray(system.inertia, dtype=float)
        if J.shape != (3,) or not np.all(J > 0):
            raise ValueError(f"{self.name}: inertia must be 3 positive principal moments, got {J}")
        if not 2 * J.max() < J.sum():
            raise ValueError(f"{self.name}: principal moments {J} violate the strict triangle inequality "
                             "(J_d = ½ tr(J) I − J must be positive definite)")
        if not system.mass > 0:
            raise ValueError(f"{self.name}: mass must be > 0, got {system.mass}")
        return y, self._cache(system, float(system.mass), J, y[0:3], quat_to_matrix(y[3:7]))

    @staticmethod
    def _cache(system: RigidBodyInField, m: float, J: FloatArray, x: FloatArray, R: FloatArray) -> FieldCache:
        dVx, D = system.potential_gradients(x, R)
        return FieldCache(m, J, np.asarray(dVx, dtype=float), torque(R, np.asarray(D, dtype=float)))

    def step(self, system: RigidBodyInField, t: float, h: float, y: FloatArray,
             cache: FieldCache) -> Step[Any, Any]:
        try:
            y1, c1, k = self._advance(system, h, y, cache)
        except SolverFailure as exc:
            return Step(
                y, cache, status=Status.SOLVER_FAILED, detail=f"{self.name}: {exc}", iterations=exc.iterations
            )
        return Step(y1, c1, iterations=k, evaluations=1)

    def _translate(self, h: float, y: FloatArray, c: FieldCache) -> FloatArray:
        return y[0:3] + h / c.m * (y[7:10] - 0.5 * h * c.dVx)

    def _finish(self, system: RigidBodyInField, h: float, y: FloatArray, c: FieldCache, x1: FloatArray,
                q1: FloatArray, R1: FloatArray, Pi_part: FloatArray) -> tuple[FloatArray, FieldCache]:
        """p₁ = m(x₁ − x₀)/h − h/2 ∂V/∂x₁ and Π₁ = Pi_part + h/2 τ₁."""
        c1 = self._cache(system, c.m, c.J, x1, R1)
        p1 = c.m * (x1 - y[0:3]) / h - 0.5 * h * c1.dVx
        return np.concatenate([x1, q1, p1, Pi_part + 0.5 * h * c1.tau]), c1

    def _advance(self, system: RigidBodyInField, h: float, y: FloatArray,
                 c: FieldCache) -> tuple[FloatArray, FieldCache, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def diagnostics(self, system: RigidBodyInField, t: float, y: FloatArray,
                    cache: FieldCache) -> dict[str, float]:
        x, q, p, Pi = y[0:3], y[3:7], y[7:10], y[10:13]
        V = system.potential(x, quat_to_matrix(q))
        return {"energy": float(p @ p / (2 * cache.m) + 0.5 * Pi @ (Pi / cache.J) + V),
                "unit_norm": abs(float(np.linalg.norm(q)) - 1.0)}


@dataclass(frozen=True)
class QuaternionLGVI(_FieldMethod):
    """The quaternion LGVI of seed 003 (3.23), fixed point (3.26) (``update="3.25"`` for the alternative)."""

    update: str = "3.26"
    name: ClassVar[str] = "lgvi"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.update not in ("3.26", "3.25"):
            raise ValueError(f"LGVI update must be '3.26' (default, faster) or '3.25', got {self.update!r}")

    def _advance(self, system, h, y, c):  # type: ignore[no-untyped-def]
        x1 = self._translate(h, y, c)
        b = -0.5 * h * (y[10:13] + 0.5 * h * c.tau)
        r, k = solve_quaternion(c.J, b, -1.0, self.update, self.tol, self.max_iter)
        q1 = quat_mul(y[3:7], quat_conj(r))
        rs, rv = r[0], r[1:]
        y1, c1 = self._finish(system, h, y, c, x1, q1, quat_to_matrix(q1),
                              -(2.0 / h) * (rs * c.J * rv + cross(rv, c.J * rv)))
        return y1, c1, k


@dataclass(frozen=True)
class RattleSO3(_FieldMethod):
    """RATTLE on rotation matrices (seed 003 (3.28)), Q₁ = Q₀F by quaternion fixed point, Λ₁ closed form."""

    name: ClassVar[str] = "rattle-so3"

    def _advance(self, system, h, y, c):  # type: ignore[no-untyped-def]
        J = c.J
        d = 0.5 * J.sum() - J  # J_d (diagonal)
        Q0 = quat_to_matrix(y[3:7])
        x0 = y[0:3]
        dVx0, D0 = system.potential_gradients(x0, Q0)
        P0 = Q0 @ hat(y[10:13] / J) * d  # P = Q Ω^ J_d on the constraint manifold
        Pt = P0 - 0.5 * h * D0
        rhs = vee3(h * (Q0.T @ Pt - Pt.T @ Q0))
        f, k = solve_quaternion(J, 0.5 * rhs, 1.0, "3.26", self.tol, self.max_iter)
        Q1 = Q0 @ quat_to_matrix(f)
        Ph = (Q1 - Q0) * d / h
        x1 = x0 + h / c.m * (y[7:10] - 0.5 * h * dVx0)
        dVx1, D1 = system.potential_gradients(x1, Q1)
        M = Q1.T @ (Ph - 0.5 * h * D1)
        S = M / d[None, :] + M.T / d[:, None]  # M J_d⁻¹ + J_d⁻¹ Mᵀ
        Lam = S / (0.5 * h * (1.0 / d[:, None] + 1.0 / d[None, :]))
        P1 = Ph - 0.5 * h * D1 - 0.5 * h * Q1 @ Lam
        q1 = matrix_to_quat(Q1)
        q1 = q1 if q1 @ y[3:7] >= 0 else -q1
        p1 = y[7:10] - 0.5 * h * dVx0 - 0.5 * h * dVx1
        y1 = np.concatenate([x1, q1, p1, vee3(Q1.T @ P1 - P1.T @ Q1)])
        return y1, FieldCache(c.m, J, np.asarray(dVx1, float), torque(Q1, D1)), k


@dataclass(frozen=True)
class ShakeQuaternion(_FieldMethod):
    """SHAKE/RATTLE in R⁴ with the constraint |q|² = 1 (discrete Lagrangian (3.16), one multiplier)
    [RECON]."""

    tol: float = 1e-13
    name: ClassVar[str] = "shake-quat"

    def _advance(self, system, h, y, c):  # type: ignore[no-untyped-def]
        J, q0 = c.J, y[3:7]
        F0 = quat_F(q0)
        x1 = self._translate(h, y, c)
        const = -F0.T @ (2.0 * y[10:13] + h * c.tau)  # −F(q₀)ᵀ(w₀ + h τ₀)

        def g(z: FloatArray) -> FloatArray:
            q1, lam = z[:4], z[4]
            s = F0 @ q1  # Im(q₀* q₁)
            return np.append((4.0 / h) * (quat_F(q1).T @ (J * s)) + const + 2.0 * lam * q0, q1 @ q1 - 1.0)

        def jac(z: FloatArray) -> FloatArray:
            q1 = z[:4]
            s = F0 @ q1
            Jm = np.zeros((5, 5))
            pure = np.concatenate([[0.0], J * s])
            Jm[:4, :4] = (4.0 / h) * (quat_mul(np.eye(4), pure).T + quat_F(q1).T @ (J[:, None] * F0))
            Jm[:4, 4] = 2.0 * q0
            Jm[4, :4] = 2.0 * q1
            return Jm

        guess = quat_mul(q0, np.concatenate([[1.0], 0.5 * h * y[10:13] / J]))
        z, k = Newton(self.tol, self.max_iter).solve(g, np.append(guess / np.linalg.norm(guess), 0.0), jac,
                                                     "SHAKE (|q|² = 1)")
        q1 = z[:4]
        Pi_part = 0.5 * (4.0 / h) * quat_F(q1) @ (F0.T @ (J * (F0 @ q1)))
        y1, c1 = self._finish(system, h, y, c, x1, q1, quat_to_matrix(q1), Pi_part)
        return y1, c1, k


@dataclass(frozen=True)
class LieStormerVerlet(_FieldMethod):
    """Lie group Störmer–Verlet: Verlet in x, variational Lie–Verlet with cay in R (seed 001 (4.11))."""

    tol: float = 1e-13
    name: ClassVar[str] = "lg-stormer-verlet"

    def _advance(self, system, h, y, c):  # type: ignore[no-untyped-def]
        J = c.J
        cayley = Retraction("cay")
        p = y[10:13] + 0.5 * h * c.tau

        def f(w: FloatArray) -> FloatArray:  # (dcay⁻¹_{hw})ᵀ J w − p
            Jw = J * w
            return Jw + 0.5 * h * cross(w, Jw) + 0.25 * h * h * (w @ Jw) * w - p

        def jac(w: FloatArray) -> FloatArray:
            Jw = J * w
            return np.diag(J) + 0.5 * h * (hat(w) * J - hat(Jw)) + 0.25 * h * h * (2.0 * np.outer(w, Jw)
                                                                               + (w @ Jw) * np.eye(3))

        w, k = Newton(self.tol, self.max_iter).solve(f, y[10:13] / J, jac, "LG Störmer–Verlet (4.11a)")
        R1 = quat_to_matrix(y[3:7]) @ cayley.map(h * w)
        q1 = matrix_to_quat(R1)
        q1 = q1 if q1 @ y[3:7] >= 0 else -q1
        Jw = J * w
        Pi_part = Jw - 0.5 * h * cross(w, Jw) + 0.25 * h * h * (w @ Jw) * w  # (dcay⁻¹_{−hw})ᵀ J w
        y1, c1 = self._finish(system, h, y, c, self._translate(h, y, c), q1, R1, Pi_part)
        return y1, c1, k


LGVI_METHODS: dict[str, Any] = {
    cls.name: cls for cls in (QuaternionLGVI, RattleSO3, ShakeQuaternion, LieStormerVerlet)
}
LGVI_SUMMARIES: dict[str, str] = {
    "lgvi": "quaternion Lie group variational integrator, fixed point (3.26) (seed 003 (3.23))",
    "rattle-so3": "RATTLE on rotation matrices, quaternion fixed point, closed-form Λ₁ (seed 003 (3.28))",
    "shake-quat": "SHAKE/RATTLE in R⁴ with |q|² = 1, Newton on (q₁, λ) (seed 003 Table 3.1)",
    "lg-stormer-verlet": "Lie group Störmer–Verlet: Verlet in x, Lie–Verlet (cay) in R (seed 003 Table 3.1)",
}
LGVI_OPTIONS: dict[str, tuple[str, ...]] = {
    "lgvi": ("tol", "max_iter", "update"),
    "rattle-so3": ("tol", "max_iter"),
    "shake-quat": ("tol", "max_iter"),
    "lg-stormer-verlet": ("tol", "max_iter"),
}

__all__ = [
    "LGVI_METHODS",
    "LGVI_OPTIONS",
    "LGVI_SUMMARIES",
    "LieStormerVerlet",
    "QuaternionLGVI",
    "RattleSO3",
    "ShakeQuaternion",
    "solve_quaternion",
    "torque",
]
