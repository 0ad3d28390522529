"""The N-fold spherical pendulum on (TS²)ᴺ under SE(3)ᴺ (seed 000 §5; Lee, Leok & McClamroch).

N point masses m_i on massless links of lengths L_i, the first joint fixed at the origin, gravity along
−e₃; q_i (|q_i| = 1) points from joint i−1 to mass i, q_i' = w_i × q_i with q_i·w_i = 0. With
μ_i = Σ_{j≥i} m_j and M_ij = μ_{max(i,j)} L_i L_j (seed 000 §5.3, notes/000.md §5.3):

    T = ½ Σ_ij M_ij q_i'·q_j',   U = Σ_i μ_i g L_i e₃·q_i,
    R(q) w' = [ Σ_{j≠i} M_ij |w_j|² q̂_i q_j − μ_i g L_i q̂_i e₃ ]_i,   R_ii = μ_i L_i² I, R_ij = M_ij q̂_iᵀ q̂_j,
    f(q, w) = [w_1, q_1 × h_1, …, w_N, q_N × h_N] ∈ se(3)ᴺ,   h = w' (the map to the algebra),

so that ψ_*(f)|_(q,w) = (w_i × q_i, h_i) on TS² (``TangentSpheres``).

O(N) evaluation (``angular_acceleration``). The paper solves the dense 3N × 3N system R(q) h = g. Here
the same motion comes from the Cartesian form Σ_l M_kl q_l'' = −μ_k g L_k e₃ + λ_k q_k with one
multiplier per constraint |q_k|² = 1. The scalar matrix M = D_L Pᵀ diag(m) P D_L (P lower-triangular ones,
D_L = diag(L)) has the tridiagonal inverse

    (M⁻¹)_kk = (1/m_k + 1/m_{k−1}) / L_k²  (1/m_0 := 0),   (M⁻¹)_{k,k+1} = −1 / (m_k L_k L_{k+1}),

and q_k·q_k'' = −|q_k'|² gives the symmetric tridiagonal, positive definite system (Schur product of
M⁻¹ and the Gram matrix of the q_k) for the multipliers

    Σ_l (M⁻¹)_kl (q_k·q_l) λ_l = −|q_k'|² − q_k·(M⁻¹F)_k,

solved by LAPACK ``dptsv``; then q'' = M⁻¹(F + λ q) and h_k = q_k × q_k''. Every other operation is one
vectorised numpy call over the links. ``dense_angular_acceleration`` is the paper's R(q) h = g (tests).

References
----------
Seed 000 §5.1–§5.3, eq. (35); Lee, Leok & McClamroch (2018), [28] in seed 000; notes/000.md §5.3, §8.2.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.linalg import lapack

from lgbeam._typing import FloatArray
from lgbeam.groups.base import cross, hat3
from lgbeam.groups.homogeneous import TangentSpheres

logger = logging.getLogger(__name__)

E3 = np.array([0.0, 0.0, 1.0])


def _positive(name: str, values: object, n: int | None = None) -> FloatArray:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or arr.size == 0 or (n is not None and arr.size != n):
        raise ValueError(f"SphericalPendulumChain: {name} must be a 1-D array of {n or 'N ≥ 1'} values, got shape "
                         f"{arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"SphericalPendulumChain: every entry of {name} must be finite and > 0, got {arr.tolist()}")
    return arr


@dataclass(frozen=True)
class SphericalPendulumChain:
    """The N-fold 3-D pendulum as a ``HomogeneousSpaceODE`` on (TS²)ᴺ (state [q₁, w₁, …, q_N, w_N]).

    Parameters
    ----------
    masses : (N,) point masses m_i > 0.
    lengths : (N,) link lengths L_i > 0 (the beam-like scaling of seed 000 Fig. 10: L_i = L/N).
    gravity : g (9.81).
    """

    masses: FloatArray
    lengths: FloatArray
    gravity: float = 9.81

    def __post_init__(self) -> None:
        m = _positive("masses", self.masses)
        object.__setattr__(self, "masses", m)
        object.__setattr__(self, "lengths", _positive("lengths", self.lengths, m.size))
        if not (np.isfinite(self.gravity) and self.gravity >= 0):
            raise ValueError(f"SphericalPendulumChain: gravity must be finite and ≥ 0, got {self.gravity!r}")

    @classmethod
    def uniform(cls, n: int, *, mass: float = 1.0, length: float = 1.0, gravity: float = 9.81) -> SphericalPendulumChain:
        """N equal links (seed 000 Fig. 8: m_i = L_i = 1; Fig. 10: L_i = 5/N)."""
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"SphericalPendulumChain.uniform: n must be a positive integer, got {n!r}")
        return cls(np.full(n, float(mass)), np.full(n, float(length)), gravity)

    @property
    def n(self) -> int:
        return int(self.masses.size)

    @cached_property
    def space(self) -> TangentSpheres:
        return TangentSpheres(self.n)

    @cached_property
    def _tail_mass(self) -> FloatArray:
        """μ_i = Σ_{j≥i} m_j."""
        return np.cumsum(self.masses[::-1])[::-1]

    @cached_property
    def _minv_bands(self) -> tuple[FloatArray, FloatArray]:
        """Diagonal (N,) and off-diagonal (N−1,) of the tridiagonal M⁻¹."""
        m, L = self.masses, self.lengths
        inv_m = 1.0 / m
        diag = (inv_m + np.concatenate([[0.0], inv_m[:-1]])) / L**2
        off = -inv_m[:-1] / (L[:-1] * L[1:])
        return diag, off

    def _apply_minv(self, X: FloatArray) -> FloatArray:
        d, e = self._minv_bands
        out = d[:, None] * X
        out[:-1] += e[:, None] * X[1:]
        out[1:] += e[:, None] * X[:-1]
        return out

    @staticmethod
    def split(y: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(q, w), each (N, 3), views of the flat state."""
        P = np.asarray(y, dtype=float).reshape(-1, 2, 3)
        return P[:, 0], P[:, 1]

    def angular_acceleration(self, q: FloatArray, w: FloatArray) -> FloatArray:
        """h = w' (N, 3) in O(N): tridiagonal multiplier solve (see the module docstring)."""
        qd = cross(w, q)
        force = -(self._tail_mass * self.gravity * self.lengths)[:, None] * E3
        mf = self._apply_minv(force)
        d, e = self._minv_bands
        rhs = -np.einsum("ij,ij->i", qd, qd) - np.einsum("ij,ij->i", q, mf)
        if self.n == 1:
            lam = rhs / (d * np.einsum("ij,ij->i", q, q))
        else:
            _, _, lam, info = lapack.dptsv(d * np.einsum("ij,ij->i", q, q), e * np.einsum("ij,ij->i", q[:-1], q[1:]),
                                           rhs)
            if info != 0:  # not positive definite: q far off the manifold
                raise ValueError(f"SphericalPendulumChain: multiplier system not positive definite (LAPACK info "
                                 f"{info}); is every |q_i| = 1?")
        qdd = mf + self._apply_minv(lam[:, None] * q)
        return cross(q, qdd)

    def algebra_field(self, t: float, y: FloatArray) -> FloatArray:
        """f(q, w) = [w_i, q_i × h_i]_i ∈ se(3)ᴺ, flat (6N,)."""
        q, w = self.split(y)
        h = self.angular_acceleration(q, w)
        return np.stack([w, cross(q, h)], axis=1).ravel()

    def vector_field(self, t: float, y: FloatArray) -> FloatArray:
        """ψ_*(f(y))|_y on the embedding space R^{6N} (the ambient ODE of the DOP853/RK4 baselines)."""
        return self.space.generator(self.algebra_field(t, y), np.asarray(y, dtype=float))

    def energy(self, y: FloatArray) -> float:
        """E = ½ Σ m_i |x_i'|² + Σ μ_i g L_i e₃·q_i, x_i' = Σ_{k≤i} L_k q_k'."""
        q, w = self.split(y)
        xd = np.cumsum(self.lengths[:, None] * cross(w, q), axis=0)
        kinetic = 0.5 * float(self.masses @ np.einsum("ij,ij->i", xd, xd))
        return kinetic + float(self.gravity * (self._tail_mass * self.lengths) @ q[:, 2])

    def invariants(self, t: float, y: FloatArray) -> dict[str, float]:
        return {"energy": self.energy(y)}

    def positions(self, y: FloatArray) -> FloatArray:
        """Mass positions x_i = Σ_{k≤i} L_k q_k, (N, 3)."""
        return np.cumsum(self.lengths[:, None] * self.split(y)[0], axis=0)

    def dense_angular_acceleration(self, q: FloatArray, w: FloatArray) -> FloatArray:
        """h from the paper's dense system R(q) h = g (seed 000 §5.3), O(N³): the test reference."""
        n, L, mu = self.n, self.lengths, self._tail_mass
        Mij = mu[np.maximum.outer(np.arange(n), np.arange(n))] * np.outer(L, L)
        Q = hat3(q)
        R = np.einsum("ij,iab,jbc->iajc", Mij, -Q, Q)
        R[np.arange(n), :, np.arange(n), :] = (mu * L**2)[:, None, None] * np.eye(3)
        off = Mij * (1 - np.eye(n)) * np.einsum("ij,ij->i", w, w)[None, :]
        rhs = np.einsum("ij,iab,jb->ia", off, Q, q) - (mu * self.gravity * L)[:, None] * cross(q, E3)
        return np.linalg.solve(R.reshape(3 * n, 3 * n), rhs.ravel()).reshape(n, 3)

    def state(self, q: FloatArray, w: FloatArray) -> FloatArray:
        """Flat state from (N, 3) arrays, validated (|q_i| = 1, q_i·w_i = 0 within ``MANIFOLD_TOL``)."""
        q, w = np.asarray(q, dtype=float), np.asarray(w, dtype=float)
        if q.shape != (self.n, 3) or w.shape != (self.n, 3):
            raise ValueError(f"SphericalPendulumChain: q and w must have shape ({self.n}, 3), got {q.shape}, {w.shape}")
        return self.space.validate(np.stack([q, w], axis=1).ravel())

    def paper_state(self) -> FloatArray:
        """q_i = (√2/2, 0, √2/2), w_i = (0, 1, 0) for every link (seed 000 Fig. 8)."""
        s = np.sqrt(0.5)
        return self.state(np.tile([s, 0.0, s], (self.n, 1)), np.tile([0.0, 1.0, 0.0], (self.n, 1)))

    def rest_state(self) -> FloatArray:
        """Horizontal chain at rest, q_i = (1, 0, 0), w_i = 0 (the companion code's Fig. 10 start)."""
        return self.state(np.tile([1.0, 0.0, 0.0], (self.n, 1)), np.zeros((self.n, 3)))

    def random_state(self, rng: np.random.Generator) -> FloatArray:
        """q_i uniform on S², w_i = q_i × r_i with r_i standard normal (the code's Fig. 5 start)."""
        q = rng.standard_normal((self.n, 3))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        return self.state(q, cross(q, rng.standard_normal((self.n, 3))))


__all__ = ["SphericalPendulumChain"]
