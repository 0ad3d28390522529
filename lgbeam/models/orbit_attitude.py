"""The orbit–attitude problem of seed 003 §3.6: a rigid body of three balls in a central 1/r field.

Body: three uniform balls (mass 1, radius 0.1) at ρ = (1, 0, 0), (−½, √3/2, 0), (−½, −√3/2, 0) (an
equilateral triangle of circumradius 1 in the body x–y plane, centroid at the origin; the layout was only in
the lost Fig. 3.1, notes/003-ch3plus.md B.9 [RECON]). J_d = Σ m ρρᵀ + (1/5) m r² I = diag(1.506, 1.506, 0.006),
J = tr(J_d) I − J_d = diag(1.512, 1.512, 3.012) (seed 003 (3.5)), m = 3.

    V(x, R) = −Σ_i m_i / |x + R ρ_i|,  ∂V/∂x = Σ m_i y_i/|y_i|³,  D = ∂V/∂R = Σ m_i (y_i/|y_i|³) ρ_iᵀ
    H = |p|²/(2m) + ½ Πᵀ J⁻¹ Π + V,  total angular momentum x × p + R Π

Initial data (seed 003 §3.6): x₀ = (8, 0, 0), q₀ = (1, 0, 0, 0), p₀ = (0, 1, 0), w₀ = 2Π₀ = (1, 2, 3);
E₀ = 0.577514848598 (notes B.10 [INDEP]). State y = [x, q, p, Π] (13,), as ``RigidBodyInField``.

References
----------
Shen (2019), seed 003, §3.2 (3.3)–(3.5), §3.6; notes/003-ch3plus.md B.1, B.9, B.10.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups.base import hat3, matrix_to_quat, quat_to_matrix, vee3

logger = logging.getLogger(__name__)

THREE_BALLS = np.array([[1.0, 0.0, 0.0], [-0.5, np.sqrt(3.0) / 2, 0.0], [-0.5, -np.sqrt(3.0) / 2, 0.0]])


def body_torque(R: FloatArray, D: FloatArray) -> FloatArray:
    """τ = vee(DᵀR − RᵀD), with τ·η = −d/dε V(R exp(εη)) (seed 003 B.6: F dV/dq = 2 vee(RᵀD − DᵀR) = −2τ)."""
    return vee3(D.T @ R - R.T @ D)


@dataclass(frozen=True)
class BallsInCentralField:
    """A ``RigidBodyInField``: point-like balls at body positions ρ_i in the field −Σ m_i/|x + Rρ_i|."""

    rho: FloatArray = field(default_factory=lambda: THREE_BALLS.copy())
    ball_mass: float = 1.0
    ball_radius: float = 0.1

    def __post_init__(self) -> None:
        rho = np.asarray(self.rho, dtype=float)
        if rho.ndim != 2 or rho.shape[1] != 3 or len(rho) < 2:
            raise ValueError(f"ball positions rho must be an (n >= 2, 3) array, got shape {rho.shape}")
        if not (self.ball_mass > 0 and self.ball_radius >= 0):
            raise ValueError("ball_mass must be > 0 and ball_radius >= 0")
        if np.abs(rho.mean(axis=0)).max() > 1e-12:
            raise ValueError("the body frame's origin must be the centre of mass: the ball positions must average to 0")
        object.__setattr__(self, "rho", rho)

    @property
    def mass(self) -> float:
        return float(self.ball_mass * len(self.rho))

    @property
    def nonstandard_inertia(self) -> FloatArray:
        """J_d = Σ m ρρᵀ + (1/5) m r² I per ball."""
        return self.ball_mass * (self.rho.T @ self.rho + len(self.rho) * 0.2 * self.ball_radius**2 * np.eye(3))

    @property
    def inertia(self) -> FloatArray:
        """Principal moments J = diag(tr(J_d) I − J_d) (3,) (J_d diagonal for this layout)."""
        Jd = self.nonstandard_inertia
        return np.diag(np.trace(Jd) * np.eye(3) - Jd).copy()

    def potential(self, x: FloatArray, R: FloatArray) -> float:
        y = x + self.rho @ R.T
        return float(-self.ball_mass * np.sum(1.0 / np.linalg.norm(y, axis=1)))

    def potential_gradients(self, x: FloatArray, R: FloatArray) -> tuple[FloatArray, FloatArray]:
        y = x + self.rho @ R.T
        g = self.ball_mass * y / np.linalg.norm(y, axis=1, keepdims=True) ** 3
        return g.sum(axis=0), g.T @ self.rho

    def energy(self, y: FloatArray) -> float:
        x, q, p, Pi = unpack(y)
        return float(p @ p / (2 * self.mass) + 0.5 * Pi @ (Pi / self.inertia) + self.potential(x, quat_to_matrix(q)))

    def angular_momentum(self, y: FloatArray) -> FloatArray:
        """x × p + R Π (total, spatial; conserved)."""
        x, q, p, Pi = unpack(y)
        return np.cross(x, p) + quat_to_matrix(q) @ Pi

    def initial_state(self) -> FloatArray:
        """x₀ = (8, 0, 0), q₀ = 1, p₀ = (0, 1, 0), Π₀ = w₀/2 = (0.5, 1, 1.5) (seed 003 §3.6)."""
        return pack(np.array([8.0, 0, 0]), np.array([1.0, 0, 0, 0]), np.array([0, 1.0, 0]), np.array([0.5, 1.0, 1.5]))


def pack(x: FloatArray, q: FloatArray, p: FloatArray, Pi: FloatArray) -> FloatArray:
    return np.concatenate([x, q, p, Pi])


def unpack(y: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    return y[..., 0:3], y[..., 3:7], y[..., 7:10], y[..., 10:13]


def reference_solution(model: BallsInCentralField, y0: FloatArray, times: FloatArray,
                       rtol: float = 1e-13, atol: float = 1e-14) -> FloatArray:
    """States (k, 13) at ``times`` from scipy's DOP853 on m x'' = −∂V/∂x, R' = RΩ^, Π' = Π × Ω + τ in R³×R⁹×R³×R³
    (seed 003 (3.15) in its corrected form, notes B.3 / H.2); q recovered from R by Shepperd's method."""
    m, J = model.mass, model.inertia
    x0, q0, p0, Pi0 = unpack(y0)

    def rhs(t: float, z: FloatArray) -> FloatArray:
        x, R, p, Pi = z[:3], z[3:12].reshape(3, 3), z[12:15], z[15:]
        dVx, D = model.potential_gradients(x, R)
        om = Pi / J
        return np.concatenate([p / m, (R @ hat3(om)).ravel(), -dVx, np.cross(Pi, om) + body_torque(R, D)])

    times = np.atleast_1d(np.asarray(times, dtype=float))
    z0 = np.concatenate([x0, quat_to_matrix(q0).ravel(), p0, Pi0])
    sol = solve_ivp(rhs, (0.0, float(times[-1])), z0, method="DOP853", t_eval=times, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"reference solution failed: {sol.message}")
    z = sol.y.T
    q = matrix_to_quat(z[:, 3:12].reshape(-1, 3, 3))
    return np.concatenate([z[:, :3], q, z[:, 12:15], z[:, 15:]], axis=1)


__all__ = ["THREE_BALLS", "BallsInCentralField", "body_torque", "pack", "reference_solution", "unpack"]
