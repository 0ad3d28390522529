"""The heavy top (seed 004 §2.4) as a constrained mechanical system in four Lie groups.

q = (R, x): orientation and centre-of-mass position; v = (Ω, U) with Ω the body angular velocity and
U the translational velocity — body-frame (x' = R U) in the semidirect products SE(3), S³⋉R³ and
spatial (x' = U) in the direct products SO(3)×R³, S³×R³. M = diag(J, m I); the constraint
Φ(q) = Rᵀx − X fixes the body point at −X from the centre of mass to the origin. With
M v' = −g − Bᵀλ:

    direct:      g = (Ω × JΩ, −mγ),              B = [ (Rᵀx)~ , Rᵀ ]
    semidirect:  g = (Ω × JΩ, m Ω × U − m Rᵀγ),  B = [ (Rᵀx)~ , I  ]

(B from d/dε Φ(q ∘ exp(εw)), seed 004 eq. (2)). Energy H = ½ΩᵀJΩ + ½m|U|² − m γ·x.

References
----------
Seed 004 §2.4 (data: m = 15, X = (0, 1, 0), J = diag(0.234375, 0.46875, 0.234375), γ = (0, 0, −9.81),
R(0) = I, Ω(0) = (0, 150, −4.61538)); Brüls, Cardona & Arnold (2012) for the model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups import S3R3, SE3, S3xR3, SO3xR3
from lgbeam.groups.base import hat3

GROUPS = {"SO3xR3": SO3xR3, "SE3": SE3, "S3xR3": S3xR3, "S3R3": S3R3}
SEMIDIRECT = {"SE3", "S3R3"}
QUATERNION = {"S3xR3", "S3R3"}  # groups with compiled kernels (their ``compiled`` option)


@dataclass(frozen=True)
class HeavyTop:
    """Heavy top about a fixed point (seed 004 §2.4) in the group named ``group_name``.

    ``compiled`` is passed to the quaternion groups (S3R3, S3xR3: their compiled kernels, None for
    ``lgbeam._numba.ENABLED``); the matrix groups have no compiled kernels and ignore it."""

    group_name: str = "S3R3"
    mass_value: float = 15.0
    inertia: tuple[float, float, float] = (0.234375, 0.46875, 0.234375)
    X: tuple[float, float, float] = (0.0, 1.0, 0.0)
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    group: Any = field(init=False)
    semidirect: bool = field(init=False)  # SE3/S3R3: body-frame U (x' = R U)
    _J: FloatArray = field(init=False, repr=False, compare=False)
    _gamma: FloatArray = field(init=False, repr=False, compare=False)
    _X: FloatArray = field(init=False, repr=False, compare=False)
    mass_is_constant: bool = True
    mass_block: int = 6
    compiled: bool | None = None

    def __post_init__(self) -> None:
        if self.group_name not in GROUPS:
            raise ValueError(f"unknown heavy-top group {self.group_name!r}; choose one of {', '.join(GROUPS)}")
        if not self.mass_value > 0 or min(self.inertia) <= 0:
            raise ValueError(f"mass and inertia must be positive, got m = {self.mass_value}, J = {self.inertia}")
        G = GROUPS[self.group_name]
        object.__setattr__(self, "group", G(compiled=self.compiled) if self.group_name in QUATERNION else G())
        object.__setattr__(self, "semidirect", self.group_name in SEMIDIRECT)
        object.__setattr__(self, "_J", np.asarray(self.inertia, dtype=float))
        object.__setattr__(self, "_gamma", np.asarray(self.gravity, dtype=float))
        object.__setattr__(self, "_X", np.asarray(self.X, dtype=float))

    @property
    def n_constraints(self) -> int:
        return 3

    def mass(self, q: FloatArray) -> sp.csr_array:
        return sp.csr_array(sp.diags_array(np.r_[self.inertia, [self.mass_value] * 3]))

    def forces(self, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
        # 3-vectors in Python floats: a numpy call per cross product costs more than its arithmetic
        o0, o1, o2, u0, u1, u2 = np.asarray(v, dtype=float).tolist()
        J0, J1, J2 = self.inertia
        m = self.mass_value
        g = [(J2 - J1) * o1 * o2, (J0 - J2) * o2 * o0, (J1 - J0) * o0 * o1]  # Ω × JΩ
        if self.semidirect:
            r0, r1, r2 = (self._gamma @ self.group.rotation(q)).tolist()  # Rᵀγ
            g += [m * (o1 * u2 - o2 * u1 - r0), m * (o2 * u0 - o0 * u2 - r1), m * (o0 * u1 - o1 * u0 - r2)]
        else:
            g += [-m * gk for gk in self.gravity]
        return np.array(g)

    def constraints(self, q: FloatArray) -> FloatArray:
        R, x = self.group.rotation(q), self.group.translation(q)
        return x @ R - self._X  # Rᵀx − X

    def constraint_jacobian(self, q: FloatArray) -> FloatArray:
        """B = [(Rᵀx)~, I] (semidirect) or [(Rᵀx)~, Rᵀ] (direct), (3, 6)."""
        R, x = self.group.rotation(q), self.group.translation(q)
        y0, y1, y2 = (x @ R).tolist()
        if self.semidirect:
            return np.array([[0.0, -y2, y1, 1.0, 0.0, 0.0], [y2, 0.0, -y0, 0.0, 1.0, 0.0], [-y1, y0, 0.0, 0.0, 0.0, 1.0]])
        B = np.empty((3, 6))
        B[:, :3] = [[0.0, -y2, y1], [y2, 0.0, -y0], [-y1, y0, 0.0]]
        B[:, 3:] = R.T
        return B

    def step_residuals(self, t: float, q: FloatArray, v: FloatArray) -> tuple[float, float, float]:
        """(‖Φ‖, ‖B v‖, energy) from one rotation and translation (``HasStepResiduals``; equal to ``constraints``,
        ``constraint_jacobian`` and ``energy``): y = Rᵀx, Φ = y − X, B v = y × Ω + (U or RᵀU)."""
        R, x = self.group.rotation(q), self.group.translation(q)
        y0, y1, y2 = (x @ R).tolist()
        o0, o1, o2, u0, u1, u2 = np.asarray(v, dtype=float).tolist()
        if not self.semidirect:
            u0, u1, u2 = (np.array([u0, u1, u2]) @ R).tolist()
        X0, X1, X2 = self._X.tolist()
        phi = math.sqrt((y0 - X0) ** 2 + (y1 - X1) ** 2 + (y2 - X2) ** 2)
        b0, b1, b2 = y1 * o2 - y2 * o1 + u0, y2 * o0 - y0 * o2 + u1, y0 * o1 - y1 * o0 + u2
        return phi, math.sqrt(b0 * b0 + b1 * b1 + b2 * b2), self.energy(t, q, v)

    @property
    def length_scale(self) -> float:
        """|X|, the distance from the fixed point to the centre of mass (``HasEnergyBudget``)."""
        return float(np.linalg.norm(self._X)) or 1.0

    def kinetic_energy(self, v: FloatArray) -> float:
        Om, U = v[:3], v[3:]
        return float(0.5 * Om @ (np.asarray(self.inertia) * Om) + 0.5 * self.mass_value * U @ U)

    def external_power(self, t: float, q: FloatArray, v: FloatArray) -> float | None:
        """0: gravity, the only load, is in the potential (``HasEnergyBudget``)."""
        return 0.0

    def energy(self, t: float, q: FloatArray, v: FloatArray) -> float:
        Om, U = v[:3], v[3:]
        x = self.group.translation(q)
        return float(0.5 * Om @ (np.asarray(self.inertia) * Om) + 0.5 * self.mass_value * U @ U
                     - self.mass_value * np.dot(self.gravity, x))

    def initial_state(self, omega0: ArrayLike = (0.0, 150.0, -4.61538),
                      R0: ArrayLike | None = None) -> tuple[FloatArray, FloatArray]:
        """Consistent (q0, v0): x0 = R0 X and U0 = Ω0 × X (body) or R0(Ω0 × X) (spatial)."""
        R0 = np.eye(3) if R0 is None else np.asarray(R0, dtype=float)
        X, Om = np.asarray(self.X), np.asarray(omega0, dtype=float)
        U_body = np.cross(Om, X)
        U = U_body if self.semidirect else R0 @ U_body
        return self.group.from_rotation(R0, R0 @ X), np.concatenate([Om, U])

    def pivot_inertia(self) -> FloatArray:
        """Inertia about the fixed point: J + m(|X|² I − X Xᵀ) (parallel-axis theorem)."""
        X = np.asarray(self.X)
        return np.diag(self.inertia) + self.mass_value * (X @ X * np.eye(3) - np.outer(X, X))


def reference_solution(top: HeavyTop, t_eval: ArrayLike, omega0: ArrayLike = (0.0, 150.0, -4.61538),
                       rtol: float = 1e-13) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Independent reference in minimal coordinates: Euler's equations about the fixed point,
    J₀Ω' = J₀Ω × Ω + m X × Rᵀγ, R' = RΩ̃, integrated by scipy's DOP853.

    Returns (R(t), x(t) = R X, λ(t)) where λ = m Rᵀγ − m(Ω' × X + Ω × (Ω × X)) is the body-frame
    constraint force; it is the multiplier of the system in all four groups (both forms of B)."""
    J0, J0inv = top.pivot_inertia(), np.linalg.inv(top.pivot_inertia())
    X, m, gam = np.asarray(top.X), top.mass_value, np.asarray(top.gravity)

    def omega_dot(R, Om):
        return J0inv @ (np.cross(J0 @ Om, Om) + m * np.cross(X, R.T @ gam))

    def rhs(t, y):
        R, Om = y[:9].reshape(3, 3), y[9:]
        return np.concatenate([(R @ hat3(Om)).ravel(), omega_dot(R, Om)])

    times = np.atleast_1d(np.asarray(t_eval, dtype=float))
    y0 = np.concatenate([np.eye(3).ravel(), np.asarray(omega0, dtype=float)])
    sol = solve_ivp(rhs, (0.0, float(np.max(times))), y0, method="DOP853", t_eval=times, rtol=rtol,
                    atol=1e-14)
    R = sol.y[:9].T.reshape(-1, 3, 3)
    lam = []
    for Rk, Om in zip(R, sol.y[9:].T):
        acc = np.cross(omega_dot(Rk, Om), X) + np.cross(Om, np.cross(Om, X))
        lam.append(m * (Rk.T @ gam) - m * acc)
    return R, R @ X, np.array(lam)
