"""The free rigid body with a first integral for the discrete-gradient methods (seed 002 §§3, 5.1).

``RigidBodySphere``: body angular momentum p on the unit sphere (Example 1, Fig. 1),
    H(p) = ½ Σ p_i²/I_i,  p' = p × I⁻¹p = S(p) ∇H(p),  S(p) = p̃  (a ``SphereFirstIntegral``).

``RigidBodyQuaternion``: attitude q ∈ S³ (scalar first) with the constant spatial angular momentum m₀
(§5.1, Fig. 2), right-trivialised in lgbeam's S³ algebra coordinates Ω (``exp(Ω) = (cos ω/2, sin(ω/2) Ω/ω)``,
seed 002's ``v = Ω/2``; a ``LieGroupFirstIntegral``):
    R = E(q) (Euler–Rodrigues),  M = Rᵀm₀ (body momentum),  w_s = R I⁻¹ Rᵀ m₀ (spatial angular velocity),
    q' = (0, w_s/2) · q,  ξ(q) = w_s,  H(q) = ½ m₀ᵀ R I⁻¹ Rᵀ m₀,
    γ(q) = R_q^* dH = w_s × m₀   (seed 002: ``[0, 2 (w_s × m₀)]`` in v-coordinates, notes/002.md §4.2),
    S(q) = (ξ γᵀ − γ ξᵀ)/|γ|²   (eq. (2), the gradient bivector; singular at steady rotations, γ = 0).

References
----------
Celledoni & Owren (seed 002), Example 1, §5.1 (data of Figs. 1, 2); notes/002.md §§2.8, 4.1, 4.2.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups.base import hat3, quat_mul, quat_to_matrix
from lgbeam.groups.s3 import S3

logger = logging.getLogger(__name__)

FIG2_INERTIA = (1.0, 5.0, 60.0)
FIG2_V0 = (1.0, 0.5, -1.0)  # m₀ = I v₀ = (1, 2.5, −60), H₀ = 31.125


def gradient_bivector(xi: FloatArray, gamma: FloatArray, name: str = "bivector") -> FloatArray:
    """``S = (ξ γᵀ − γ ξᵀ)/|γ|²`` (seed 002 eq. (2)): skew, ``S γ = ξ`` when ``γ·ξ = 0``.

    ValueError where ``|γ| = 0`` (a critical point of H: no bivector of this form exists there).
    """
    g2 = np.einsum("...i,...i->...", gamma, gamma)
    if np.any(~(g2 > 0.0)):
        raise ValueError(f"{name}: the differential of H vanishes (|gamma| = 0, a relative equilibrium); the "
                         "gradient bivector (xi gamma^T - gamma xi^T)/|gamma|^2 is undefined there.")
    outer = xi[..., :, None] * gamma[..., None, :]
    return (outer - np.swapaxes(outer, -1, -2)) / g2[..., None, None]


@dataclass(frozen=True)
class RigidBodySphere:
    """Body angular momentum of a free rigid body on the unit sphere; see the module docstring."""

    inertia: tuple[float, float, float] = (1.0, 2.0, 3.0)

    def __post_init__(self) -> None:
        if len(self.inertia) != 3 or not all(i > 0 for i in self.inertia):
            raise ValueError(f"RigidBodySphere: inertia must be three positive moments, got {self.inertia!r}")

    @property
    def ambient_dim(self) -> int:
        return 3

    @property
    def _Iinv(self) -> FloatArray:
        return 1.0 / np.asarray(self.inertia, dtype=float)

    def first_integral(self, p: FloatArray) -> FloatArray:
        p = np.asarray(p, dtype=float)
        return 0.5 * np.einsum("...i,i,...i->...", p, self._Iinv, p)

    def gradient(self, p: FloatArray) -> FloatArray:
        return np.asarray(p, dtype=float) * self._Iinv

    def bivector(self, p: FloatArray) -> FloatArray:
        return hat3(np.asarray(p, dtype=float))

    def reference(self, p0: ArrayLike, times: ArrayLike) -> FloatArray:
        """p at ``times`` by scipy's DOP853 on ``p' = p × I⁻¹p`` in R³ (rtol 1e-13)."""
        sol = solve_ivp(lambda t, p: np.cross(p, p * self._Iinv), (0.0, float(np.max(times))), np.asarray(p0, float),
                        method="DOP853", rtol=1e-13, atol=1e-14, t_eval=np.asarray(times, float))
        return sol.y.T


@dataclass(frozen=True)
class RigidBodyQuaternion:
    """Attitude of a free rigid body in unit quaternions, right-trivialised; see the module docstring."""

    inertia: tuple[float, float, float] = FIG2_INERTIA
    m0: tuple[float, float, float] = (1.0, 2.5, -60.0)  # I v₀ with v₀ = FIG2_V0
    group: S3 = field(default_factory=S3)

    def __post_init__(self) -> None:
        if len(self.inertia) != 3 or not all(i > 0 for i in self.inertia):
            raise ValueError(f"RigidBodyQuaternion: inertia must be three positive moments, got {self.inertia!r}")
        if len(self.m0) != 3:
            raise ValueError(f"RigidBodyQuaternion: m0 must be a 3-vector, got {self.m0!r}")

    @property
    def _Iinv(self) -> FloatArray:
        return 1.0 / np.asarray(self.inertia, dtype=float)

    def initial_state(self) -> FloatArray:
        """q₀ = (1, 0, 0, 0) (seed 002 Fig. 2)."""
        return np.array([1.0, 0.0, 0.0, 0.0])

    def body_momentum(self, q: FloatArray) -> FloatArray:
        """``M = E(q)ᵀ m₀``, ``(..., 3)``."""
        R = quat_to_matrix(np.asarray(q, dtype=float))
        return np.einsum("...ji,j->...i", R, np.asarray(self.m0, dtype=float))

    def _spatial_velocity(self, q: FloatArray) -> FloatArray:
        R = quat_to_matrix(np.asarray(q, dtype=float))
        return np.einsum("...ij,...j->...i", R, self.body_momentum(q) * self._Iinv)

    def first_integral(self, q: FloatArray) -> FloatArray:
        M = self.body_momentum(q)
        return 0.5 * np.einsum("...i,i,...i->...", M, self._Iinv, M)

    def field(self, q: FloatArray) -> FloatArray:
        """The right-trivialised field ξ(q) = w_s (``q' = (0, ξ/2) · q``)."""
        return self._spatial_velocity(q)

    def trivialised_differential(self, q: FloatArray) -> FloatArray:
        return np.cross(self._spatial_velocity(q), np.asarray(self.m0, dtype=float))

    def bivector(self, q: FloatArray) -> FloatArray:
        ws = self._spatial_velocity(q)
        return gradient_bivector(ws, np.cross(ws, np.asarray(self.m0, dtype=float)), "RigidBodyQuaternion")

    def reference(self, times: ArrayLike, q0: ArrayLike | None = None) -> FloatArray:
        """q at ``times`` by scipy's DOP853 on ``q' = ½ (0, w_s) · q`` in R⁴ (rtol 1e-13, atol 1e-14)."""
        q0 = self.initial_state() if q0 is None else np.asarray(q0, dtype=float)

        def rhs(t: float, q: FloatArray) -> FloatArray:
            return quat_mul(np.concatenate([[0.0], 0.5 * self._spatial_velocity(q)]), q)

        sol = solve_ivp(rhs, (0.0, float(np.max(times))), q0, method="DOP853", rtol=1e-13, atol=1e-14,
                        t_eval=np.asarray(times, float))
        return sol.y.T


__all__ = ["FIG2_INERTIA", "FIG2_V0", "RigidBodyQuaternion", "RigidBodySphere", "gradient_bivector"]
