"""Initial (reference) centrelines with director frames: straight, arc, helix, polyline.

Every builder returns nodal frames q_i ∈ S³⋉R³ (N+1, 7) with d₃ = R e₃ the centreline tangent.
Arc and helix are constant-strain rods q(s) = q_0 exp(s w₀) with w₀ = (K, e₃), so their discrete
strains (seed 004 eq. (23)) are exactly w₀ on every edge.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lgbeam._typing import FloatArray

from .mesh import RodMesh

POLYLINE_LENGTH_TOL = 1e-6  # relative mismatch of the polyline's length and the mesh length that is refused


def minimal_rotation(a: FloatArray, b: FloatArray) -> FloatArray:
    """Rotation matrices (…, 3, 3) taking unit vectors a to b about a × b (π about a ⊥ axis if b = −a)."""
    a = np.broadcast_to(a, np.broadcast_shapes(np.shape(a), np.shape(b)))
    b = np.broadcast_to(b, a.shape)
    c = np.einsum("...i,...i->...", a, b)
    k = np.cross(a, b)
    K = np.zeros((*a.shape[:-1], 3, 3))
    K[..., 0, 1], K[..., 0, 2], K[..., 1, 2] = -k[..., 2], k[..., 1], -k[..., 0]
    K = K - np.swapaxes(K, -1, -2)
    anti = c < -1.0 + 1e-12
    denom = np.where(anti, 1.0, 1.0 + c)
    R = np.eye(3) + K + (K @ K) / denom[..., None, None]
    if np.any(anti):
        # b = −a: rotate by π about any axis n ⊥ a: R = 2 n nᵀ − I
        trial = np.where(np.abs(a[..., :1]) < 0.9, np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
        n = np.cross(a, trial)
        n = n / np.linalg.norm(n, axis=-1, keepdims=True)
        R_pi = 2.0 * n[..., :, None] * n[..., None, :] - np.eye(3)
        R = np.where(anti[..., None, None], R_pi, R)
    return R


def _unit(name: str, v: object) -> FloatArray:
    a = np.asarray(v, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be 3 finite numbers, got {v!r}")
    n = float(np.linalg.norm(a))
    if n == 0.0:
        raise ValueError(f"{name} must be a non-zero vector")
    return a / n


def _roll(R: FloatArray, roll: float) -> FloatArray:
    c, s = np.cos(roll), np.sin(roll)
    Rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return R @ Rz


def straight(G: Any, mesh: RodMesh, *, start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), roll: float = 0.0) -> FloatArray:
    """Straight rod from ``start`` along ``direction``; R = minimal rotation e₃ → direction, then ``roll`` about d₃.

    For direction e_x this is the roll-up frame (90° about e₂); for (−6, 8, 0) the flying-spaghetti
    frame (90° about e₃ × d/|d|), seed 004 Table 3.
    """
    t = _unit("centreline direction", direction)
    x0 = np.asarray(start, dtype=float)
    R = _roll(minimal_rotation(np.array([0.0, 0.0, 1.0]), t), roll)
    x = x0 + (mesh.s - mesh.s[0])[:, None] * t
    return G.from_rotation(np.broadcast_to(R, (mesh.n_nodes, 3, 3)), x)


def constant_strain(G: Any, mesh: RodMesh, K: FloatArray, *, start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), roll: float = 0.0) -> FloatArray:
    """q(s) = q_0 exp((s − s_0)(K, e₃)): the rod with constant curvature K (arc, helix)."""
    q0 = straight(G, RodMesh(mesh.s[:2]), start=start, direction=direction, roll=roll)[0]
    w0 = np.concatenate([np.asarray(K, dtype=float), [0.0, 0.0, 1.0]])
    xi = (mesh.s - mesh.s[0])[:, None] * w0
    return G.compose(np.broadcast_to(q0, (mesh.n_nodes, 7)), G.exp(xi))


def arc(G: Any, mesh: RodMesh, *, radius: float, **kw: Any) -> FloatArray:
    """Circular arc of ``radius`` bending about d₂ (in the plane of d₁, d₃)."""
    if not radius > 0.0:
        raise ValueError(f"arc radius must be positive, got {radius!r}")
    return constant_strain(G, mesh, np.array([0.0, 1.0 / radius, 0.0]), **kw)


def helix(G: Any, mesh: RodMesh, *, radius: float, pitch: float, **kw: Any) -> FloatArray:
    """Helix of ``radius`` and ``pitch`` (rise per turn), Frenet-type frame (d₁ normal, d₃ tangent).

    Curvature κ = r/(r² + b²) and torsion τ = b/(r² + b²) with b = pitch/2π: K = (0, κ, τ).
    """
    if not radius > 0.0:
        raise ValueError(f"helix radius must be positive, got {radius!r}")
    b = pitch / (2.0 * np.pi)
    c2 = radius**2 + b**2
    return constant_strain(G, mesh, np.array([0.0, radius / c2, b / c2]), **kw)


def polyline(G: Any, mesh: RodMesh, *, points: FloatArray) -> FloatArray:
    """Nodes placed by arc length on a polyline; d₃ along the local chord, d₁ by parallel transport (minimal
    rotations) from the first node. The polyline's length must equal the mesh length (to 1e-6 relative):
    a mismatch (``model.length`` against the points) is refused rather than scaled (it scales every stiffness)."""
    P = np.asarray(points, dtype=float)
    if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2:
        raise ValueError(f"polyline points must have shape (n >= 2, 3), got {P.shape}")
    seg = np.linalg.norm(np.diff(P, axis=0), axis=1)
    if np.any(seg == 0.0):
        raise ValueError("polyline has repeated consecutive points (zero-length segment); remove them")
    arc_len = np.concatenate([[0.0], np.cumsum(seg)])
    if abs(arc_len[-1] - mesh.length) > POLYLINE_LENGTH_TOL * arc_len[-1]:
        raise ValueError(f"the polyline's points are {arc_len[-1]:.10g} long but the rod length (model.length) is "
                         f"{mesh.length:.10g}; set model.length = {arc_len[-1]:.10g} (or fix the points)")
    u = (mesh.s - mesh.s[0]) / mesh.length * arc_len[-1]
    x = np.stack([np.interp(u, arc_len, P[:, k]) for k in range(3)], axis=1)
    chords = np.diff(x, axis=0)
    chords /= np.linalg.norm(chords, axis=1, keepdims=True)
    t = np.empty_like(x)
    t[0], t[-1] = chords[0], chords[-1]
    mid = chords[:-1] + chords[1:]
    nrm = np.linalg.norm(mid, axis=1, keepdims=True)
    t[1:-1] = np.where(nrm > 1e-12, mid / np.where(nrm > 1e-12, nrm, 1.0), chords[1:])
    rel = minimal_rotation(t[:-1], t[1:])  # parallel transport between consecutive tangents
    R = np.empty((mesh.n_nodes, 3, 3))
    R[0] = minimal_rotation(np.array([0.0, 0.0, 1.0]), t[0])
    for i in range(1, mesh.n_nodes):  # setup only: cumulative product of transports
        R[i] = rel[i - 1] @ R[i - 1]
    return G.from_rotation(R, x)
