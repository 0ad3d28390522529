"""The heavy top and the free rigid body in seed 000's unconstrained formulations (§3.4, Example 1).

Physically consistent reading of the data (notes/000.md §5.2, §7 item 4): the seed prints Γ₀ = (0, 0, −9.81)
as an "upward unit axis" and also multiplies by g; here Γ₀ = e₃ (up), g = 9.81 and

    H(Q, Π) = ½ Π·I⁻¹Π + M g l (Q X)·e₃,

M = 15, l = 2, I = diag(0.234375, 0.46875, 0.234375), X = e₂, Q(0) = I, π(0) = I (0, 150, −4.61538), which
gives H₀ = 5275.933796782547 (the potential is 0 at t = 0).

``HeavyTopCotangent``  T*SO(3) in spatial variables (21)–(22): π' = M g l e₃ × Q X, Q' = ŵ Q, w = Q I⁻¹ Qᵀ π,
                       a ``CotangentHamiltonian`` with f = (w, π × w + M g l e₃ × Q X) (eq. (14); the π × w
                       term cancels against −ad*_w π in (12)); π·e₃ is conserved.
``HeavyTopLiePoisson`` se(3)* ∋ (Π, Γ), Γ = Qᵀe₃, (23)–(24): Π' = Π × I⁻¹Π + M g l Γ × X, Γ' = Γ × I⁻¹Π, a
                       ``HomogeneousSpaceODE`` under the coadjoint action with f = −(I⁻¹Π, M g l X) (the sign
                       for this action, notes §7 item 3); Casimirs |Γ| and Π·Γ.
``RigidBodyLiePoisson`` so(3)*: μ' = μ × I⁻¹μ with f = −I⁻¹μ under g·μ = g μ (Example 1 with the sign fixed,
                       notes §2.2, §7 item 2); Casimir |μ|.

References
----------
Seed 000 §3.4.1–§3.4.4, eqs. (19)–(24); Example 1; Brüls & Cardona (2010), [4] in seed 000 (test data);
notes/000.md §5.1–§5.2, §8.3.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups import SO3
from lgbeam.groups.base import cross
from lgbeam.groups.homogeneous import CoadjointSE3, CoadjointSO3

logger = logging.getLogger(__name__)

E3 = np.array([0.0, 0.0, 1.0])
INERTIA = np.array([0.234375, 0.46875, 0.234375])


def _inertia(values: object) -> FloatArray:
    arr = np.asarray(values, dtype=float)
    if arr.shape != (3,) or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"principal moments of inertia must be 3 finite values > 0, got {values!r}")
    return arr


@dataclass(frozen=True)
class _TopData:
    mass: float = 15.0
    length: float = 2.0
    gravity: float = 9.81
    inertia: FloatArray = field(default_factory=lambda: INERTIA.copy())
    axis: FloatArray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0]))
    spin: FloatArray = field(default_factory=lambda: np.array([0.0, 150.0, -4.61538]))

    def __post_init__(self) -> None:
        object.__setattr__(self, "inertia", _inertia(self.inertia))
        spin = np.asarray(self.spin, dtype=float)
        if spin.shape != (3,) or not np.all(np.isfinite(spin)):
            raise ValueError(f"spin (initial body angular velocity) must be 3 finite values, got {self.spin!r}")
        object.__setattr__(self, "spin", spin)
        axis = np.asarray(self.axis, dtype=float)
        if axis.shape != (3,) or abs(np.linalg.norm(axis) - 1) > 1e-12:
            raise ValueError(f"axis X must be a unit 3-vector (body-fixed direction to the centre of mass), got {self.axis!r}")
        object.__setattr__(self, "axis", axis)
        if not (np.isfinite(self.mass) and self.mass > 0 and np.isfinite(self.length) and self.length > 0):
            raise ValueError(f"mass and length must be finite and > 0, got {self.mass!r}, {self.length!r}")

    @property
    def mgl(self) -> float:
        return float(self.mass * self.gravity * self.length)

    def initial_spatial_momentum(self) -> FloatArray:
        """π(0) = I ω(0), ω(0) = ``spin`` = (0, 150, −4.61538) (seed 000 §3.4.4; Q(0) = I so π(0) = Π(0))."""
        return self.inertia * self.spin


@dataclass(frozen=True)
class HeavyTopCotangent(_TopData):
    """The heavy top on T*SO(3), spatial variables (Q, π), state [Q.ravel(), π] (12,) (seed 000 (21)–(22))."""

    @cached_property
    def group(self) -> SO3:
        return SO3()

    def hamiltonian(self, g: FloatArray, mu: FloatArray) -> float:
        w = g @ ((g.T @ mu) / self.inertia)
        return 0.5 * float(mu @ w) + self.mgl * float((g @ self.axis)[2])

    def hamiltonian_field(self, g: FloatArray, mu: FloatArray) -> tuple[FloatArray, FloatArray]:
        w = g @ ((g.T @ mu) / self.inertia)
        return w, cross(mu, w) + self.mgl * cross(E3, g @ self.axis)

    def invariants(self, t: float, y: FloatArray) -> dict[str, float]:
        Q = y[:9].reshape(3, 3)
        return {"pi_e3": float(y[11]), "orthogonality": float(np.abs(Q.T @ Q - np.eye(3)).max())}

    def initial_state(self) -> FloatArray:
        return np.concatenate([np.eye(3).ravel(), self.initial_spatial_momentum()])

    def ambient_field(self, t: float, y: FloatArray) -> FloatArray:
        """(Q', π') of (21)–(22) on R¹², for the DOP853 reference."""
        Q, pi = y[:9].reshape(3, 3), y[9:]
        w = Q @ ((Q.T @ pi) / self.inertia)
        return np.concatenate([(cross(w[None, :], Q.T).T).ravel(), self.mgl * cross(E3, Q @ self.axis)])

    def reference_solution(self, times: ArrayLike, rtol: float = 1e-13) -> FloatArray:
        """States at ``times`` (k, 12) by scipy's DOP853 on (21)–(22) in R¹² (Q as a full matrix)."""
        times = np.atleast_1d(np.asarray(times, dtype=float))
        sol = solve_ivp(self.ambient_field, (0.0, float(times[-1])), self.initial_state(), method="DOP853",
                        rtol=rtol, atol=rtol, t_eval=times)
        return sol.y.T


@dataclass(frozen=True)
class HeavyTopKK(_TopData):
    """The heavy top as a quadratic Hamiltonian on T*S, S = SO(3) × R³ (seed 000 §3.4.3, (29)–(32), "SLGIKK"):

        H((Q, q), (π, p)) = ½ π·w + ½ |p − QᵀΓ₀|² − ½ |QᵀΓ₀|²,   w = Q I⁻¹ Qᵀ π,   p = −M g l X (constant),

    spatial momenta (π, p), Γ₀ = e₃; f = ((w, p − QᵀΓ₀), (π × w − Γ₀ × Q p, 0)) (π × w as in
    ``HeavyTopCotangent``). State [g.ravel(), π, p] with g = [[Q, q], [0, 1]] (SO3xR3 storage), (22,). Since p is
    constant and R³ abelian, SLGI on it gives the (Q, π) iterates of SLGI on (21)–(22) (notes §5.2): the test
    of that claim, and the SLGIKK line of Fig. 2.
    """

    @cached_property
    def group(self) -> Any:
        from lgbeam.groups.direct import SO3xR3

        return SO3xR3()

    def _p(self) -> FloatArray:
        return -self.mgl * self.axis

    def hamiltonian(self, g: FloatArray, mu: FloatArray) -> float:
        Q, pi, p = g[:3, :3], mu[:3], mu[3:]
        w = Q @ ((Q.T @ pi) / self.inertia)
        return 0.5 * float(pi @ w) + 0.5 * float((p - Q.T @ E3) @ (p - Q.T @ E3)) - 0.5 * float((Q.T @ E3) @ (Q.T @ E3))

    def hamiltonian_field(self, g: FloatArray, mu: FloatArray) -> tuple[FloatArray, FloatArray]:
        Q, pi, p = g[:3, :3], mu[:3], mu[3:]
        w = Q @ ((Q.T @ pi) / self.inertia)
        return np.concatenate([w, p - Q.T @ E3]), np.concatenate([cross(pi, w) - cross(E3, Q @ p), np.zeros(3)])

    def initial_state(self) -> FloatArray:
        return np.concatenate([np.eye(4).ravel(), self.initial_spatial_momentum(), self._p()])


@dataclass(frozen=True)
class HeavyTopLiePoisson(_TopData):
    """The heavy top on se(3)* ∋ (Π, Γ) under the coadjoint action of SE(3) (seed 000 (23)–(24))."""

    @cached_property
    def space(self) -> CoadjointSE3:
        return CoadjointSE3()

    def algebra_field(self, t: float, y: FloatArray) -> FloatArray:
        return -np.concatenate([y[:3] / self.inertia, self.mgl * self.axis])

    def energy(self, y: FloatArray) -> float:
        return 0.5 * float(y[:3] @ (y[:3] / self.inertia)) + self.mgl * float(y[3:] @ self.axis)

    def invariants(self, t: float, y: FloatArray) -> dict[str, float]:
        return {"energy": self.energy(y), "casimir_gamma": float(np.linalg.norm(y[3:])),
                "casimir_pi_gamma": float(y[:3] @ y[3:])}

    def initial_state(self) -> FloatArray:
        """(Π, Γ) = (π(0), e₃) since Q(0) = I."""
        return np.concatenate([self.initial_spatial_momentum(), E3])

    def ambient_field(self, t: float, y: FloatArray) -> FloatArray:
        Pi, G = y[:3], y[3:]
        w = Pi / self.inertia
        return np.concatenate([cross(Pi, w) + self.mgl * cross(G, self.axis), cross(G, w)])


@dataclass(frozen=True)
class RigidBodyLiePoisson:
    """The free rigid body on so(3)* = R³, μ' = μ × I⁻¹μ, under g·μ = g μ with f = −I⁻¹μ (Example 1)."""

    inertia: FloatArray = field(default_factory=lambda: np.array([1.0, 2.0, 3.0]))

    def __post_init__(self) -> None:
        object.__setattr__(self, "inertia", _inertia(self.inertia))

    @cached_property
    def space(self) -> CoadjointSO3:
        return CoadjointSO3()

    def algebra_field(self, t: float, y: FloatArray) -> FloatArray:
        return -y / self.inertia

    def invariants(self, t: float, y: FloatArray) -> dict[str, float]:
        return {"energy": 0.5 * float(y @ (y / self.inertia)), "casimir": float(np.linalg.norm(y))}

    def ambient_field(self, t: float, y: FloatArray) -> FloatArray:
        return cross(y, y / self.inertia)


__all__ = ["HeavyTopCotangent", "HeavyTopKK", "HeavyTopLiePoisson", "RigidBodyLiePoisson"]
