"""Uniform base excitation (``[[loads.ground]]``, docs/dynamics.md): every support moves with the ground's
translation x_g(t), and the structure is solved relative to that moving base, as OpenSees' UniformExcitation
reports it.

In the frame translating with the ground (acceleration a_g(t), no rotation) Newton's law of each lumped mass m_i
gains the inertial force −m_i a_g: with the relative position x_i = x_i,abs − x_g,

    M v̇ + g(t, q, v) + Bᵀλ = f_eff,   f_eff,i = (0, −m_i R_iᵀ a_g(t))   (body frame, (moment, force) per node),

i.e. the effective loads −M ι a_g with ι the rigid-body influence vector of the translations. This is exact
for the geometrically exact rods (a translation of the frame adds no Coriolis or centrifugal term), the rotary
inertia feels nothing, and the supports' reactions λ are the total forces the ground applies (base shears):
M(ẍ_rel + ι a_g) = reactions − internal and damping forces, all of them relative-motion forces.

a_g(t) = Σ_c s_c u_c a_c(t) over the components c ([[loads.ground]] tables): unit direction u_c, scale s_c and
the record a_c, piecewise linear between its samples and zero outside them. The ground's velocity and
displacement (from rest at t = 0) are its exact integrals: on a sample interval τ ∈ [0, Δt] with slope
k = (a_{j+1} − a_j)/Δt,

    v = V_j + a_j τ + k τ²/2,   x = X_j + V_j τ + a_j τ²/2 + k τ³/6.

Peaks of a run (``peak_response``): the largest relative displacement of each named node over the saved frames
and its drift, the largest |u_h(node) − u_h(below)| / (z(node) − z(below)), u_h the horizontal (x, y) relative
displacement, "below" the nearest named or supported node directly under it (same x, y within 1e-6 of the
structure's size; z is vertical); a node with nothing under it has no drift.

Reference: Chopra, Dynamics of Structures (2012) §1.7 (eq. 1.7.4), §9.4 (eq. 9.4.9, the influence vector).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import hat3


@dataclass(frozen=True)
class Component:
    """One ground component: unit ``direction`` (3,), sample times ``t`` (k,) [s], accelerations ``a`` (k,)
    [m/s²] (scale and units applied), ``name`` (the record's file name)."""

    direction: FloatArray
    t: FloatArray
    a: FloatArray
    name: str = ""

    def __post_init__(self) -> None:
        u = np.asarray(self.direction, dtype=float)
        if u.shape != (3,) or not np.all(np.isfinite(u)) or abs(np.linalg.norm(u) - 1.0) > 1e-9:
            raise ValueError(f"loads.ground.direction must be a unit vector [x, y, z], got {self.direction!r}")
        object.__setattr__(self, "direction", u)
        t, a = np.asarray(self.t, dtype=float), np.asarray(self.a, dtype=float)
        if t.ndim != 1 or t.shape != a.shape or t.size < 2 or np.any(np.diff(t) <= 0.0) or t[0] < 0.0:
            raise ValueError("a ground record needs >= 2 samples at strictly increasing times t >= 0")
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "a", a)
        dt = np.diff(t)
        k = np.diff(a) / dt
        V = np.concatenate([[0.0], np.cumsum(a[:-1] * dt + k * dt**2 / 2)])
        X = np.concatenate([[0.0], np.cumsum(V[:-1] * dt + a[:-1] * dt**2 / 2 + k * dt**3 / 6)])
        object.__setattr__(self, "_knots", (dt, k, V, X))

    def history(self, times: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(a, v, x) of this component's scalar record at ``times`` (module docstring), vectorised."""
        t, a = self.t, self.a
        dt, k, V, X = self.__dict__["_knots"]
        s = np.asarray(times, dtype=float)
        j = np.clip(np.searchsorted(t, s, side="right") - 1, 0, t.size - 2)
        tau = np.clip(s - t[j], 0.0, dt[j])
        acc = np.where((s >= t[0]) & (s <= t[-1]), a[j] + k[j] * tau, 0.0)
        vel = V[j] + a[j] * tau + k[j] * tau**2 / 2
        dis = X[j] + V[j] * tau + a[j] * tau**2 / 2 + k[j] * tau**3 / 6
        after = np.maximum(s - t[-1], 0.0)  # the record is over: the ground drifts at its last velocity
        dis = dis + vel * after
        before = s < t[0]
        return acc, np.where(before, 0.0, vel), np.where(before, 0.0, dis)


@dataclass(frozen=True)
class GroundMotion:
    """The sum of the components; ``mass`` (n,) the structure's nodal translational masses."""

    components: tuple[Component, ...]
    mass: FloatArray

    def vectors(self, times: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The ground's acceleration, velocity and displacement (len(times), 3) [m/s², m/s, m], spatial."""
        s = np.atleast_1d(np.asarray(times, dtype=float))
        out = [np.zeros((s.size, 3)) for _ in range(3)]
        for c in self.components:  # a loop over the (at most a few) components, not over samples
            for o, h in zip(out, c.history(s), strict=True):
                o += h[:, None] * c.direction
        return out[0], out[1], out[2]

    def acceleration(self, t: float) -> FloatArray:
        """a_g(t) (3,) [m/s²] (the per-step path: one interpolation per component)."""
        out = np.zeros(3)
        for c in self.components:
            out += np.interp(t, c.t, c.a, left=0.0, right=0.0) * c.direction
        return out

    def force(self, t: float, R: FloatArray) -> FloatArray:
        """The contribution to g, (n·6,): (0, m_i R_iᵀ a_g(t)) per node (g holds −f_eff); ``R`` (n, 3, 3)."""
        out = np.zeros((self.mass.size, 6))
        out[:, 3:] = self.mass[:, None] * np.einsum("nji,j->ni", R, self.acceleration(t))
        return out.ravel()

    def blocks(self, t: float, R: FloatArray) -> FloatArray:
        """∂f_eff/∂w per node (n, 6, 6): the force block hat(R_iᵀ F_i) of the spatial force F_i = −m_i a_g
        (as ``rods.tangents.load_node_blocks``); the stiffness gets −blocks."""
        F = -self.mass[:, None] * self.acceleration(t)
        f = np.einsum("nji,nj->ni", R, F)
        blocks = np.zeros((self.mass.size, 6, 6))
        blocks[:, 3:, :3] = hat3(f)
        return blocks

    def power(self, t: float, R: FloatArray, v: FloatArray) -> float:
        """f_eff · v: the work rate of the effective loads."""
        return float(-np.dot(self.force(t, R), np.asarray(v, dtype=float).ravel()))


def below(frame: Any, nodes: dict[str, int]) -> dict[str, int]:
    """Named node -> the node directly below it (module docstring): named nodes and supported nodes."""
    x0 = frame.G.translation(frame._q(frame.q_ref))
    size = float(np.ptp(x0, axis=0).max()) or 1.0
    cand = np.unique(np.concatenate([np.asarray(list(nodes.values()), dtype=np.int64),
                                     np.asarray(frame.support_nodes(), dtype=np.int64)]))
    out = {}
    for name, i in nodes.items():  # named nodes: a few per storey
        same = (np.linalg.norm(x0[cand, :2] - x0[i, :2], axis=1) <= 1e-6 * size) & (x0[cand, 2] < x0[i, 2] - 1e-6 * size)
        if np.any(same):
            out[name] = int(cand[same][np.argmax(x0[cand[same], 2])])
    return out


def peak_response(frame: Any, nodes: dict[str, int], positions: np.ndarray) -> dict[str, Any]:
    """Peak relative displacement (|u| and per axis) and drift of each named node over the saved frames
    ``positions`` (n_t, n, 3) (module docstring)."""
    x0 = frame.G.translation(frame._q(frame.q_ref))
    u = positions - x0
    under = below(frame, nodes)
    entry: dict[str, Any] = {}
    for name, i in nodes.items():
        e: dict[str, Any] = {"peak_displacement_m": float(np.max(np.linalg.norm(u[:, i], axis=1))),
                             "peak_displacement_xyz_m": np.max(np.abs(u[:, i]), axis=0).tolist()}
        if name in under:
            j = under[name]
            h = float(x0[i, 2] - x0[j, 2])
            e["drift"] = float(np.max(np.linalg.norm(u[:, i, :2] - u[:, j, :2], axis=1)) / h)
        entry[name] = e
    return entry


def envelopes(forces_at: Any, n_frames: int) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """(member forces of the first frame, max, min over the frames): ``forces_at(j)`` the list of
    ``MemberForces`` of saved frame j; the values stacked member after member (rows as member_forces.csv)."""
    first = forces_at(0)
    hi = np.concatenate([mf.values for mf in first])
    lo = hi.copy()
    for j in range(1, n_frames):  # over saved frames (each evaluates all members at once)
        vals = np.concatenate([mf.values for mf in forces_at(j)])
        np.maximum(hi, vals, out=hi)
        np.minimum(lo, vals, out=lo)
    return first, hi, lo
