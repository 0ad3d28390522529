"""Mechanical systems on products of spheres (S²)ⁿ (seed 001 ch. 6–7): a generic ``ProductOfSpheres``
from a constant mass matrix and a potential, the three test problems of seed 001 §7.2, and an independent
reference solution.

    L = ½ Σ_ij M_ij q_i'·q_j' − V(q),  q_i' = ω_i × q_i,  q_i·ω_i = 0                   (6.2)–(6.5a)
    M_ii ω_i' − Σ_{j≠i} M_ij q_i^ q_j^ ω_j' = Σ_{j≠i} M_ij |ω_j|² q_i × q_j − q_i × ∂V/∂q_i     (6.5b), (7.7)

(6.5b) is printed with ω_j where ω_j' is meant (notes/001.md §5.2: derived from Σ_j M_ij q_j'' = −∂V/∂q_i
+ λ_i q_i); the 3n × 3n matrix M̄(q) is solved directly (seed 001 App. A.2 inverts it blockwise). A
diagonal M decouples the spheres: α_i = −(1/M_ii) q_i × ∂V/∂q_i (pendulum (7.5), dipoles (7.8)).

Models (seed 001 §7.2; notes/001.md §6): the spherical pendulum (m = 2, l = 2, g = 9.81, V = m g l k·q — the
extraction prints M g k·q and ω' = (g/l) k·q; ω₀ = [1, 1, 2], the consistent reading of the printed q₀'),
the double spherical pendulum (m₁ = 2, m₂ = 1, l₁ = l₂ = 1, V = −(M₁₁/l₁) g k·q₁ − (M₂₂/l₂) g k·q₂) and an
array of magnetic dipoles on an nx × ny grid in the x–y plane (node (i, j) → index ny·i + j, spacing 1.2 l,
V = Σ_{i<j} μ₀ v_i v_j/(4π|r|³)(q_i·q_j − 3(q_i·r̂)(q_j·r̂)); plane and numbering are not in the thesis).

References
----------
Ortolan (2011), seed 001, eqs. (6.2)–(6.5), (7.5)–(7.8), App. A; Lee, Leok & McClamroch (2009).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups.base import cross, hat3
from lgbeam.systems import MechanicalState

logger = logging.getLogger(__name__)

K_AXIS = np.array([0.0, 0.0, 1.0])
UNIT_TOL = 1e-10  # |q_i| − 1 and q_i·ω_i accepted in an initial state (documented bad-input tolerance)


def _spd(M: FloatArray) -> FloatArray:
    M = np.atleast_2d(np.asarray(M, dtype=float))
    if M.ndim != 2 or M.shape[0] != M.shape[1] or not np.all(np.isfinite(M)):
        raise ValueError(f"mass_matrix must be a finite square (n, n) matrix, got shape {M.shape}")
    if not np.allclose(M, M.T, rtol=1e-12, atol=0.0):
        raise ValueError("mass_matrix must be symmetric (M_ij = M_ji)")
    if np.linalg.eigvalsh(M).min() <= 0:
        raise ValueError(f"mass_matrix must be positive definite, got eigenvalues {np.linalg.eigvalsh(M)}")
    return M


@dataclass(frozen=True)
class Spheres:
    """A ``ProductOfSpheres``: constant SPD mass matrix (n, n), potential V(q) and its gradient (n, 3)."""

    mass_matrix: FloatArray
    potential_fn: Callable[[FloatArray], float]
    gradient_fn: Callable[[FloatArray], FloatArray]
    name: str = "spheres"

    def __post_init__(self) -> None:
        object.__setattr__(self, "mass_matrix", _spd(self.mass_matrix))

    @property
    def n_spheres(self) -> int:
        return int(self.mass_matrix.shape[0])

    @cached_property
    def _offdiag(self) -> FloatArray:
        return self.mass_matrix - np.diag(np.diag(self.mass_matrix))

    @cached_property
    def _diag(self) -> FloatArray:
        return np.diag(self.mass_matrix).copy()

    @cached_property
    def velocity_dependent(self) -> bool:
        """True when M couples the spheres (α then contains |ω_j|²)."""
        return bool(np.any(self._offdiag != 0.0))

    def potential(self, q: FloatArray) -> float:
        return float(self.potential_fn(q))

    def potential_gradient(self, q: FloatArray) -> FloatArray:
        return np.asarray(self.gradient_fn(q), dtype=float)

    def angular_acceleration(self, q: FloatArray, omega: FloatArray) -> FloatArray:
        """α(q, ω) of (6.5b) (n, 3); one 3n × 3n solve when M couples the spheres."""
        if not self.velocity_dependent:
            return -cross(q, self.potential_gradient(q)) / self._diag[:, None]
        Mbar, c = self.coupled_parts(q)
        alpha: FloatArray = np.asarray(np.linalg.solve(Mbar, (c + self.velocity_terms(q, omega)).ravel()), dtype=float)
        return alpha.reshape(q.shape)

    def coupled_parts(self, q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(M̄(q) (3n, 3n), c(q) = −q × ∂V/∂q (n, 3)) with M̄ α = c + ``velocity_terms(q, ω)`` ((6.5b)); both fixed
        while only ω changes (the implicit ω-solve of spheres-ELN factors M̄ once per step)."""
        n = self.n_spheres
        Qh = hat3(q)
        blocks = -self._offdiag[:, :, None, None] * np.einsum("iab,jbc->ijac", Qh, Qh)
        blocks[np.arange(n), np.arange(n)] = self._diag[:, None, None] * np.eye(3)
        return blocks.transpose(0, 2, 1, 3).reshape(3 * n, 3 * n), -cross(q, self.potential_gradient(q))

    def velocity_terms(self, q: FloatArray, omega: FloatArray) -> FloatArray:
        """Σ_{j≠i} M_ij |ω_j|² q_i × q_j (n, 3), the ω-dependent right-hand side of (6.5b)."""
        w2 = np.einsum("ij,ij->i", omega, omega)
        return cross(q, self._offdiag @ (w2[:, None] * q))

    def velocities(self, q: FloatArray, omega: FloatArray) -> FloatArray:
        """q_i' = ω_i × q_i."""
        return cross(omega, q)

    def energy(self, q: FloatArray, omega: FloatArray) -> float:
        """½ Σ M_ij q_i'·q_j' + V(q)."""
        qd = self.velocities(q, omega)
        return float(0.5 * np.einsum("ij,ia,ja->", self.mass_matrix, qd, qd) + self.potential(q))

    def momentum_about(self, q: FloatArray, omega: FloatArray, axis: FloatArray = K_AXIS) -> float:
        """(Σ_i q_i × p_i)·k with p = M q' (seed 001 (7.6)); conserved when V is invariant about k."""
        p = self.mass_matrix @ self.velocities(q, omega)
        return float(np.cross(q, p).sum(axis=0) @ axis)

    def state(self, q: FloatArray, omega: FloatArray) -> MechanicalState:
        """A checked initial state: (n, 3) arrays, |q_i| = 1 and q_i·ω_i = 0 within ``UNIT_TOL``."""
        q, omega = np.array(q, dtype=float), np.array(omega, dtype=float)
        n = self.n_spheres
        if q.shape != (n, 3) or omega.shape != (n, 3):
            raise ValueError(f"{self.name}: q and ω must have shape ({n}, 3), got {q.shape} and {omega.shape}")
        dev = np.abs(np.linalg.norm(q, axis=1) - 1.0).max()
        if dev > UNIT_TOL:
            raise ValueError(f"{self.name}: every q_i must be a unit vector (| |q_i| − 1 | = {dev:.2e} > {UNIT_TOL:g}); "
                             "normalise q")
        gauge = np.abs(np.einsum("ij,ij->i", q, omega)).max()
        if gauge > UNIT_TOL * max(1.0, np.abs(omega).max()):
            raise ValueError(f"{self.name}: ω_i must be orthogonal to q_i (|q·ω| = {gauge:.2e}); take ω = q × q' "
                             "(seed 001 App. A.1)")
        return MechanicalState(q, omega)


def spherical_pendulum(m: float = 2.0, length: float = 2.0, g: float = 9.81) -> tuple[Spheres, MechanicalState]:
    """Seed 001 §7.2.1: V = m g l k·q, M = m l²; q₀ = [1, 1, −1]/√3, ω₀ = [1, 1, 2] (E₀ = 1.344775437)."""
    c = m * g * length
    model = Spheres(np.array([[m * length**2]]), lambda q: c * float(q[0] @ K_AXIS),
                    lambda q: c * np.broadcast_to(K_AXIS, q.shape).copy(), "spherical-pendulum")
    return model, model.state(np.array([[1.0, 1.0, -1.0]]) / np.sqrt(3.0), np.array([[1.0, 1.0, 2.0]]))


def double_spherical_pendulum(m1: float = 2.0, m2: float = 1.0, l1: float = 1.0, l2: float = 1.0,
                              g: float = 9.81) -> tuple[Spheres, MechanicalState]:
    """Seed 001 §7.2.2 (7.7): M = [[(m₁+m₂)l₁², m₂l₁l₂], [m₂l₁l₂, m₂l₂²]], gravity along +k as printed."""
    M = np.array([[(m1 + m2) * l1**2, m2 * l1 * l2], [m2 * l1 * l2, m2 * l2**2]])
    c = np.array([M[0, 0] / l1, M[1, 1] / l2]) * g
    model = Spheres(M, lambda q: -float(c @ (q @ K_AXIS)), lambda q: -c[:, None] * K_AXIS, "double-spherical-pendulum")
    q0 = np.array([[0.866019052628739, 0.0, 0.500011000363013], [0.0, 0.0, -1.0]])
    qd0 = np.array([[0.0, 0.865980947790423, 0.0], [-1.0, 0.0, 0.0]])
    q0 = q0 / np.linalg.norm(q0, axis=1, keepdims=True)
    return model, model.state(q0, np.cross(q0, qd0))


@dataclass(frozen=True)
class DipolePotential:
    """V = Σ_{i<j} c_ij (q_i·q_j − 3(q_i·r̂_ij)(q_j·r̂_ij)), c_ij = μ₀ v_i v_j/(4π|r_ij|³) (seed 001 (7.8))."""

    positions: FloatArray
    moments: FloatArray

    @cached_property
    def _pairs(self) -> tuple[FloatArray, FloatArray]:
        r = self.positions[None, :, :] - self.positions[:, None, :]  # r_ij = x_j − x_i
        d = np.linalg.norm(r, axis=-1)
        np.fill_diagonal(d, 1.0)
        c = 1e-7 * self.moments[:, None] * self.moments[None, :] / d**3  # μ₀/(4π) = 1e-7
        np.fill_diagonal(c, 0.0)
        return c, r / d[..., None]

    def __call__(self, q: FloatArray) -> float:
        c, rh = self._pairs
        qir = np.einsum("ija,ia->ij", rh, q)  # q_i·r̂_ij
        qjr = np.einsum("ija,ja->ij", rh, q)  # q_j·r̂_ij
        return float(0.5 * np.sum(c * (q @ q.T - 3.0 * qir * qjr)))

    def gradient(self, q: FloatArray) -> FloatArray:
        """∂V/∂q_i = Σ_j c_ij (q_j − 3(q_j·r̂_ij) r̂_ij)."""
        c, rh = self._pairs
        qjr = np.einsum("ija,ja->ij", rh, q)
        return c @ q - 3.0 * np.einsum("ij,ij,ija->ia", c, qjr, rh)


def dipole_array(nx: int = 4, ny: int = 4, m: float = 0.05, length: float = 0.02, moment: float = 0.1,
                 spacing: float | None = None) -> tuple[Spheres, MechanicalState]:
    """Seed 001 §7.2.3: needles (M_i = m l²/12) on an nx × ny grid; all q_i = e₁ at rest except
    q_last = [0.3535…, 0.3536…, −0.8660…] and ω_1 = [0, 0.5, 0] (E₀ = −1.24596636448e-3 on the 4 × 4 grid)."""
    if not (isinstance(nx, int) and isinstance(ny, int) and nx >= 1 and ny >= 1 and nx * ny >= 2):
        raise ValueError(f"dipole grid needs integers nx, ny >= 1 with at least two dipoles, got {nx} x {ny}")
    d = 1.2 * length if spacing is None else spacing
    if not d > 0:
        raise ValueError(f"dipole spacing must be > 0, got {d}")
    ii, jj = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    pos = np.stack([ii.ravel() * d, jj.ravel() * d, np.zeros(nx * ny)], axis=1)
    n = nx * ny
    V = DipolePotential(pos, np.full(n, moment))
    model = Spheres(np.eye(n) * m * length**2 / 12.0, V, V.gradient, f"dipoles-{nx}x{ny}")
    q0 = np.tile([1.0, 0.0, 0.0], (n, 1))
    q0[-1] = [0.353508623948073, 0.353608626387662, -0.866021126843087]
    q0[-1] /= np.linalg.norm(q0[-1])
    w0 = np.zeros((n, 3))
    w0[0] = [0.0, 0.5, 0.0]
    return model, model.state(q0, w0)


def reference_solution(model: Spheres, y0: MechanicalState, times: FloatArray,
                       rtol: float = 1e-13, atol: float = 1e-14) -> tuple[FloatArray, FloatArray]:
    """(q(t), ω(t)) at ``times`` from scipy's DOP853 on (6.5) in R³ⁿ × R³ⁿ (no Lie group, no projection)."""
    n = model.n_spheres

    def rhs(t: float, z: FloatArray) -> FloatArray:
        q, om = z[:3 * n].reshape(n, 3), z[3 * n:].reshape(n, 3)
        return np.concatenate([np.cross(om, q).ravel(), model.angular_acceleration(q, om).ravel()])

    times = np.atleast_1d(np.asarray(times, dtype=float))
    sol = solve_ivp(rhs, (0.0, float(times[-1])), np.concatenate([y0.q.ravel(), y0.v.ravel()]), method="DOP853",
                    t_eval=times, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"reference solution failed: {sol.message}")
    return sol.y[:3 * n].T.reshape(-1, n, 3), sol.y[3 * n:].T.reshape(-1, n, 3)


__all__ = ["DipolePotential", "Spheres", "dipole_array", "double_spherical_pendulum", "reference_solution",
           "spherical_pendulum"]
