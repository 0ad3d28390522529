"""Two quadrotors carrying a point-mass payload on cables (seed 000 §5.4 / paper §6; Lee, Sreenath & Kumar).

State P = [y, v, R₁, Ω₁, R₂, Ω₂, q₁, w₁, q₂, w₂] ∈ TR³ × (TSO(3))² × (TS²)², stored flat (42,) with R_i
row-major; acting group R⁶ × (SO(3) × R³)² × SE(3)², algebra R³⁰ (seed 000 §6.1, notes/000.md §5.4):

    ψ_g(P) = [y + a₁, v + a₂, B₁R₁, Ω₁ + b₁, B₂R₂, Ω₂ + b₂, C₁q₁, C₁w₁ + c₁ × C₁q₁, C₂q₂, C₂w₂ + c₂ × C₂q₂],
    f(t, P) = [v, v', R₁Ω₁, Ω₁', R₂Ω₂, Ω₂', w₁, q₁ × w₁', w₂, q₂ × w₂']      (ψ_*(f)|_P = P', ŔΩ R = R Ω̂).

Dynamics A(z) z' = h(z) (37), solved in closed form (38): with M_q = m_y I + Σ m_i q_i q_iᵀ,
    v' = M_q⁻¹ (−Σ m_i L_i |w_i|² q_i + M_q g e₃ + Σ u_i^∥),   Ω_i' = J_i⁻¹(−Ω_i × J_iΩ_i + M_i),
    w_i' = −(g/L_i) q_i × e₃ − q_i × u_i^⊥/(m_i L_i) + q_i × v'/L_i.
e₃ points **down**, along gravity (the text says "opposite to gravity"; every formula and the companion code
use it along gravity: notes §5.4, §7 item 12). Moments M_i = (1, 1, 1) as in the code (the attitude
controller is not simulated); u^∥, u^⊥ from the payload and cable controller of [50] with the code's gains
(ky = 12, kyd = 5, kq = 16, kw = 5), desired load path y_d(t) = (t − 2.5, 0, (t − 2.5)² − 7) and cable
directions q_id = Q_f r_id (``controls``). The data are the companion code's (the paper gives none).

References
----------
Seed 000 §6 (§5.4 in notes/000.md), eqs. (36)–(38); Lee, Sreenath & Kumar (2013), [50] in seed 000;
companion code THREAD-3-2/RKMK_Commutator_free_integrators (via notes/000.md §5.4, §8.5).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike
from scipy.integrate import solve_ivp

from lgbeam._typing import FloatArray
from lgbeam.groups import SO3
from lgbeam.groups.base import cross
from lgbeam.groups.homogeneous import LeftMultiplication, ProductSpace, TangentSpheres, Translation

logger = logging.getLogger(__name__)

E3 = np.array([0.0, 0.0, 1.0])
_SD = np.array([0.0, -1.0, 0.0])
_S30, _C30 = np.sin(np.pi / 6), np.cos(np.pi / 6)


def _n(x: FloatArray, x1: FloatArray, x2: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """x/|x| and its first two time derivatives from x, x', x''."""
    r = np.linalg.norm(x)
    n = x / r
    r1 = n @ x1
    n1 = (x1 - n * r1) / r
    r2 = n1 @ x1 + n @ x2
    return n, n1, (x2 - 2 * n1 * r1 - n * r2) / r


@dataclass(frozen=True)
class TwoQuadrotorsPayload:
    """The seed's two-quadrotor slung-load system as a time-dependent ``HomogeneousSpaceODE``."""

    payload_mass: float = 0.4
    masses: FloatArray = field(default_factory=lambda: np.array([0.755, 0.755]))
    lengths: FloatArray = field(default_factory=lambda: np.array([0.6, 0.8]))
    inertia: FloatArray = field(default_factory=lambda: np.array([0.0820, 0.0845, 0.1377]))
    moments: FloatArray = field(default_factory=lambda: np.ones(3))
    gravity: float = 9.81
    gains: tuple[float, float, float, float] = (12.0, 5.0, 16.0, 5.0)

    def __post_init__(self) -> None:
        for name, shape in (("masses", (2,)), ("lengths", (2,)), ("inertia", (3,)), ("moments", (3,))):
            arr = np.asarray(getattr(self, name), dtype=float)
            if arr.shape != shape or not np.all(np.isfinite(arr)) or (name != "moments" and np.any(arr <= 0)):
                raise ValueError(f"TwoQuadrotorsPayload: {name} must be {shape[0]} finite values"
                                 f"{'' if name == 'moments' else ' > 0'}, got {getattr(self, name)!r}")
            object.__setattr__(self, name, arr)
        if not self.payload_mass > 0:
            raise ValueError(f"TwoQuadrotorsPayload: payload_mass must be > 0, got {self.payload_mass!r}")

    @cached_property
    def space(self) -> ProductSpace:
        so3 = LeftMultiplication(SO3())
        return ProductSpace((Translation(6), so3, Translation(3), so3, Translation(3), TangentSpheres(2)))

    @staticmethod
    def split(P: FloatArray) -> dict[str, FloatArray]:
        """Named views: y, v (3,), R (2, 3, 3), Omega (2, 3), q, w (2, 3)."""
        P = np.asarray(P, dtype=float)
        R = np.stack([P[6:15].reshape(3, 3), P[18:27].reshape(3, 3)])
        Om = np.stack([P[15:18], P[27:30]])
        qw = P[30:42].reshape(2, 2, 3)
        return {"y": P[:3], "v": P[3:6], "R": R, "Omega": Om, "q": qw[:, 0], "w": qw[:, 1]}

    @staticmethod
    def desired(t: float) -> tuple[FloatArray, FloatArray, FloatArray]:
        """y_d, y_d', y_d'' of the parabola y_d(t) = (t − 2.5, 0, (t − 2.5)² − 7); higher derivatives vanish."""
        s = t - 2.5
        return np.array([s, 0.0, s * s - 7.0]), np.array([1.0, 0.0, 2 * s]), np.array([0.0, 0.0, 2.0])

    def controls(self, t: float, P: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(u^∥ (2, 3), u^⊥ (2, 3), q_d (2, 3)): the payload/cable controller of [50] as in the companion code."""
        S = self.split(P)
        y, v, q, w = S["y"], S["v"], S["q"], S["w"]
        my, m, L, g = self.payload_mass, self.masses, self.lengths, self.gravity
        ky, kyd, kq, kw = self.gains
        yd, yd1, yd2 = self.desired(t)
        rd = np.array([[_S30, 0.0, _C30], [-_S30, 0.0, _C30]])
        c = 1.0 / (rd[:, 2] * np.linalg.norm(rd.sum(axis=0)))
        Fd = my * (-ky * (y - yd) - kyd * (v - yd1) + yd2 - g * E3)
        mu = (c * (q @ Fd))[:, None] * q
        w2 = np.einsum("ij,ij->i", w, w)
        u_par = (m * L * w2)[:, None] * q + mu + (m / my)[:, None] * q * (q @ mu.sum(axis=0))[:, None]
        q1 = cross(w, q)
        y2 = mu.sum(axis=0) / my + g * E3
        Fd1 = my * (-ky * (v - yd1) - kyd * (y2 - yd2))
        mu1 = c[:, None] * (((q @ Fd1) + (q1 @ Fd))[:, None] * q + (q @ Fd)[:, None] * q1)
        y3 = mu1.sum(axis=0) / my
        Fd2 = my * (-ky * (y2 - yd2) - kyd * y3)
        cols = [_n(-cross(Fd, cross(Fd, _SD)), -(cross(Fd1, cross(Fd, _SD)) + cross(Fd, cross(Fd1, _SD))),
                   -(cross(Fd2, cross(Fd, _SD)) + 2 * cross(Fd1, cross(Fd1, _SD)) + cross(Fd, cross(Fd2, _SD)))),
                _n(-cross(Fd, _SD), -cross(Fd1, _SD), -cross(Fd2, _SD)), _n(-Fd, -Fd1, -Fd2)]
        Qf, Qf1, Qf2 = (np.stack([col[k] for col in cols], axis=1) for k in range(3))
        qd, qd1, qd2 = rd @ Qf.T, rd @ Qf1.T, rd @ Qf2.T
        wd, wd1 = cross(qd, qd1), cross(qd, qd2)

        def hat2(x: FloatArray) -> FloatArray:  # q̂² x = q (q·x) − x for unit q
            return q * np.einsum("ij,ij->i", q, x)[:, None] - x

        e_q = cross(qd, q)
        e_w = w + hat2(wd)
        inner = -kq * e_q - kw * e_w - np.einsum("ij,ij->i", q, wd)[:, None] * q1 - hat2(wd1)
        u_perp = (m * L)[:, None] * cross(q, inner) - (m / my)[:, None] * hat2(mu[::-1])
        return u_par, u_perp, qd

    def accelerations(self, t: float, P: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(v' (3,), Ω' (2, 3), w' (2, 3)) from (38)."""
        S = self.split(P)
        q, w, Om = S["q"], S["w"], S["Omega"]
        m, L, g, J = self.masses, self.lengths, self.gravity, self.inertia
        u_par, u_perp, _ = self.controls(t, P)
        Mq = self.payload_mass * np.eye(3) + np.einsum("i,ij,ik->jk", m, q, q)
        h2 = -((m * L * np.einsum("ij,ij->i", w, w))[:, None] * q).sum(axis=0) + Mq @ (g * E3) + u_par.sum(axis=0)
        vdot = np.linalg.solve(Mq, h2)
        Omdot = (-cross(Om, J * Om) + self.moments) / J
        wdot = (-(g / L)[:, None] * cross(q, E3) - cross(q, u_perp) / (m * L)[:, None]
                + cross(q, vdot[None, :]) / L[:, None])
        return vdot, Omdot, wdot

    def algebra_field(self, t: float, P: FloatArray) -> FloatArray:
        """f(t, P) ∈ R³⁰ of seed 000 §6.1 (notes §5.4)."""
        S = self.split(P)
        vdot, Omdot, wdot = self.accelerations(t, P)
        RO = np.einsum("kij,kj->ki", S["R"], S["Omega"])
        qw = cross(S["q"], wdot)
        return np.concatenate([S["v"], vdot, RO[0], Omdot[0], RO[1], Omdot[1], S["w"][0], qw[0], S["w"][1], qw[1]])

    def vector_field(self, t: float, P: FloatArray) -> FloatArray:
        """P' on the ambient R⁴² (R_i as full matrices): the DOP853 reference and the ambient baselines."""
        return self.space.generator(self.algebra_field(t, P), np.asarray(P, dtype=float))

    def initial_state(self) -> FloatArray:
        """y = (−2, 0, 0), v = 0, R_i = I, Ω_i = 0, q₁ = (sin 80°, 0, cos 80°), q₂ = (−sin 80°, 0, cos 80°), w_i = 0."""
        s, c = np.sin(np.radians(80.0)), np.cos(np.radians(80.0))
        I = np.eye(3).ravel()
        return self.space.validate(np.concatenate([[-2.0, 0, 0, 0, 0, 0], I, np.zeros(3), I, np.zeros(3),
                                                   [s, 0, c, 0, 0, 0, -s, 0, c, 0, 0, 0]]))

    def invariants(self, t: float, P: FloatArray) -> dict[str, float]:
        """Tracking error |y − y_d| and the cable-direction errors |q_i − q_id|."""
        S = self.split(P)
        _, _, qd = self.controls(t, P)
        err = np.linalg.norm(S["q"] - qd, axis=1)
        return {"tracking": float(np.linalg.norm(S["y"] - self.desired(t)[0])), "link_error_1": float(err[0]),
                "link_error_2": float(err[1])}

    def reference_solution(self, times: ArrayLike, rtol: float = 1e-12) -> FloatArray:
        """States at ``times`` (k, 42) by scipy's DOP853 on the ambient system (rtol = atol)."""
        times = np.atleast_1d(np.asarray(times, dtype=float))
        sol = solve_ivp(self.vector_field, (0.0, float(times[-1])), self.initial_state(), method="DOP853", rtol=rtol,
                        atol=rtol, t_eval=times)
        return sol.y.T


__all__ = ["TwoQuadrotorsPayload"]
