"""Rigid bodies on SO(3) in a static potential (seed 001 ch. 2–4): a ``RigidBodySO3`` from a potential
callback, the long-time test problem of seed 001 §3/§4.2, and an independent reference solution.

    R' = R ω^,  J ω' = Jω × ω + τ(R),  τ = −dU(R)  (seed 001 (2.14), (2.15))
    E = ½ ωᵀJω + U(R),  π = R J ω (spatial angular momentum, conserved when τ = 0)

Test potential (seed 001 (3.2)): U_α(R) = (m_I(R) − 1)² − α / m_{R_m}(R), m(R₁, R₂) = √(2 tr(I − R₁ᵀR₂)),
with torque (3.5) **corrected**: τ = 2(m_I − 1)/m_I [tr(R e_i^)]_i + α/m_{R_m}³ [tr(R_mᵀR e_i^)]_i. The
extraction prints the first coefficient as 2(m_I − 1)/m_I², which is not the derivative of (3.2)
(``tests/test_rigid_body.py::test_misprinted_torque_fails_the_difference_check``; notes/001.md §4.1).

References
----------
Ortolan (2011), seed 001, eqs. (2.14)–(2.15), (3.1)–(3.5), §4.2 (J = diag(2, 2, 4), v₀ = [0, 0.7227, 0],
ω₀ = [0, 0, 0.625], α = 0.3, v_m = [2.5, 0, 2.5]/√2).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups.base import check_orthonormal, hat3
from lgbeam.groups.cayley import torque_from_potential
from lgbeam.groups.so3 import exp_so3
from lgbeam.systems import MechanicalState

logger = logging.getLogger(__name__)

ORTOLAN_INERTIA = (2.0, 2.0, 4.0)
ORTOLAN_V0 = (0.0, 0.7227, 0.0)
ORTOLAN_OMEGA0 = (0.0, 0.0, 0.625)
ORTOLAN_ALPHA = 0.3
ORTOLAN_VM = (2.5 / np.sqrt(2.0), 0.0, 2.5 / np.sqrt(2.0))


def _inertia(inertia: Any) -> FloatArray:
    J = np.asarray(inertia, dtype=float)
    J = np.diag(J) if J.shape == (3,) else J
    if J.shape != (3, 3) or not np.all(np.isfinite(J)):
        raise ValueError(f"inertia must be 3 principal moments or a (3, 3) matrix, got shape {J.shape}")
    if not np.allclose(J, J.T, rtol=1e-12, atol=0.0):
        raise ValueError("inertia must be symmetric (J = Jᵀ); pass the inertia tensor or its principal moments")
    ev = np.linalg.eigvalsh(J)
    if ev.min() <= 0:
        raise ValueError(f"inertia must be positive definite, got eigenvalues {ev}; principal moments are > 0")
    return J


def trace_hat(A: FloatArray) -> FloatArray:
    """``[tr(A e_i^)]_i = [A₂₃ − A₃₂, A₃₁ − A₁₃, A₁₂ − A₂₁]`` (seed 001 (3.4)–(3.5))."""
    return np.array([A[1, 2] - A[2, 1], A[2, 0] - A[0, 2], A[0, 1] - A[1, 0]])


def frobenius_distance(R1: FloatArray, R2: FloatArray) -> float:
    """``m(R₁, R₂) = √(2 tr(I − R₁ᵀR₂)) = ‖R₂ − R₁‖_F`` (seed 001 (3.1)); computed as the norm (no cancellation)."""
    return float(np.linalg.norm(np.asarray(R2) - np.asarray(R1)))


@dataclass(frozen=True)
class RigidBody:
    """A ``RigidBodySO3`` from an inertia and a potential callback U(R) (None: the free body).

    ``torque`` τ(R) = −dU(R) (body frame); None takes it from central differences of ``potential``
    (``groups.cayley.torque_from_potential``; check a hand-written one with ``groups.cayley.check_torque``).
    """

    inertia: FloatArray
    potential_fn: Callable[[FloatArray], float] | None = None
    torque_fn: Callable[[FloatArray], FloatArray] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "inertia", _inertia(self.inertia))
        if self.torque_fn is not None and self.potential_fn is None:
            raise ValueError("RigidBody: a torque needs its potential (for the energy); pass potential_fn too")

    def potential(self, R: FloatArray) -> float:
        return 0.0 if self.potential_fn is None else float(self.potential_fn(R))

    def torque(self, R: FloatArray) -> FloatArray:
        if self.potential_fn is None:
            return np.zeros(3)
        if self.torque_fn is None:
            return torque_from_potential(self.potential_fn, R)
        return np.asarray(self.torque_fn(R), dtype=float)

    def energy(self, R: FloatArray, omega: FloatArray) -> float:
        """E = ½ ωᵀJω + U(R)."""
        omega = np.asarray(omega, dtype=float)
        return float(0.5 * omega @ self.inertia @ omega + self.potential(R))

    def spatial_momentum(self, R: FloatArray, omega: FloatArray) -> FloatArray:
        """π = R J ω, batched over leading axes of R (…, 3, 3) and ω (…, 3)."""
        return np.einsum("...ij,jk,...k->...i", R, self.inertia, omega)

    def state(self, R: FloatArray, omega: FloatArray) -> MechanicalState:
        """A checked initial state (R orthonormal within ``UNIT_NORM_TOL``)."""
        R = np.asarray(R, dtype=float)
        check_orthonormal("RigidBody", R, "attitude R")
        return MechanicalState(R, np.asarray(omega, dtype=float))


@dataclass(frozen=True)
class OrtolanPotential:
    """U_α(R) = (m_I(R) − 1)² − α/m_{R_m}(R) and its corrected torque (seed 001 (3.2), (3.5))."""

    alpha: float = ORTOLAN_ALPHA
    Rm: FloatArray = field(default_factory=lambda: exp_so3(np.array(ORTOLAN_VM)))
    misprinted: bool = False  # True: the extracted 2(m_I − 1)/m_I² (wrong; for the regression test only)

    def __call__(self, R: FloatArray) -> float:
        return (frobenius_distance(R, np.eye(3)) - 1.0) ** 2 - self.alpha / frobenius_distance(R, self.Rm)

    def torque(self, R: FloatArray) -> FloatArray:
        mI, mm = frobenius_distance(R, np.eye(3)), frobenius_distance(R, self.Rm)
        c = 2.0 * (mI - 1.0) / (mI**2 if self.misprinted else mI)
        return c * trace_hat(R) + self.alpha / mm**3 * trace_hat(self.Rm.T @ R)


def ortolan_problem(alpha: float = ORTOLAN_ALPHA) -> tuple[RigidBody, MechanicalState]:
    """The long-time test problem of seed 001 §4.2: body, potential and (R₀, ω₀); E₀ = 0.670245380281."""
    U = OrtolanPotential(alpha)
    body = RigidBody(np.array(ORTOLAN_INERTIA), U, U.torque)
    return body, body.state(exp_so3(np.array(ORTOLAN_V0)), np.array(ORTOLAN_OMEGA0))


def reference_solution(body: RigidBody, y0: MechanicalState, times: FloatArray,
                       rtol: float = 1e-13, atol: float = 1e-14) -> tuple[FloatArray, FloatArray]:
    """(R(t), ω(t)) at ``times`` from scipy's DOP853 on R' = Rω^, Jω' = Jω × ω + τ(R) in R⁹ × R³.

    Independent of every method of ``integrators.rigid`` (seed 001 §4.2 used ode45 at AbsTol 1e-14,
    RelTol 2e-14); R is not re-orthonormalised.
    """
    J = body.inertia
    Ji = np.linalg.inv(J)

    def rhs(t: float, z: FloatArray) -> FloatArray:
        R, om = z[:9].reshape(3, 3), z[9:]
        return np.concatenate([(R @ hat3(om)).ravel(), Ji @ (np.cross(J @ om, om) + body.torque(R))])

    times = np.atleast_1d(np.asarray(times, dtype=float))
    sol = solve_ivp(rhs, (0.0, float(times[-1])), np.concatenate([np.ravel(y0.q), y0.v]), method="DOP853",
                    t_eval=times, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"reference solution failed: {sol.message}")
    return sol.y[:9].T.reshape(-1, 3, 3), sol.y[9:].T


__all__ = ["ORTOLAN_ALPHA", "ORTOLAN_INERTIA", "ORTOLAN_OMEGA0", "ORTOLAN_V0", "ORTOLAN_VM", "OrtolanPotential",
           "RigidBody", "frobenius_distance", "ortolan_problem", "reference_solution", "trace_hat"]
