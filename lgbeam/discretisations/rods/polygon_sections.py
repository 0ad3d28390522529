"""Area moments of a polygon whose corners may be rounded by circular arcs, in closed form.

A section outline is given by its vertices (counter-clockwise, in the section's y–z plane) and a fillet radius per
vertex (0: a sharp corner). A fillet at a vertex P between the edges of directions u₁ (into P) and u₂ (out of P),
turning by β (|β| < π), touches the edges at T₁ = P − d u₁, T₂ = P + d u₂ with d = r tan(|β|/2); its centre C lies
at distance r from both edges on the inner side of the turn. The rounded region is the polygon with P replaced by
the chord T₁T₂, plus (a convex corner, β > 0) or minus (a re-entrant corner, β < 0) the circular segment between
the chord and the arc: the sector of C from T₁ to T₂ (angle |β|) less the triangle C T₁ T₂. Every piece has exact
moments: a polygon by the shoelace sums, a sector of radius r, angles θ₁ … θ₂ about C = (c_y, c_z) by
∫∫ y dA = c_y A + r³/3 (sin θ₂ − sin θ₁), ∫∫ z dA = c_z A − r³/3 (cos θ₂ − cos θ₁), and the second moments of
``_sector`` (the same polar integrals). So the result is exact for the idealised outline (no arc sampling).

``moments(yz, radii)`` returns (A, S_y, S_z, I_yy, I_zz, I_yz) = ∫∫ (1, y, z, y², z², y z) dA about the origin;
``centroidal(...)`` the area, the centroid and the second moments about it. Checked in tests/test_frame_members.py:
an I-section with root fillets (turned by an angle) equals the closed form of ``sections.i_section`` to 1e-12, a
rounded regular polygon Steiner's formula, and sectionproperties' tapered channel (arcs of 400 points) to 1e-5.
"""

from __future__ import annotations

import numpy as np

from lgbeam._typing import FloatArray


def _polygon(y: FloatArray, z: FloatArray) -> FloatArray:
    """Shoelace moments (A, ∫y, ∫z, ∫y², ∫z², ∫yz) of closed polygons, vertices along the last axis (signed:
    positive counter-clockwise)."""
    y1, z1 = np.roll(y, -1, axis=-1), np.roll(z, -1, axis=-1)
    c = y * z1 - y1 * z
    return np.stack([c.sum(-1) / 2.0, ((y + y1) * c).sum(-1) / 6.0, ((z + z1) * c).sum(-1) / 6.0,
                     ((y * y + y * y1 + y1 * y1) * c).sum(-1) / 12.0, ((z * z + z * z1 + z1 * z1) * c).sum(-1) / 12.0,
                     ((y * z1 + 2.0 * y * z + 2.0 * y1 * z1 + y1 * z) * c).sum(-1) / 24.0], axis=-1)


def _sector(cy: FloatArray, cz: FloatArray, r: FloatArray, t1: FloatArray, t2: FloatArray) -> FloatArray:
    """Moments of circular sectors (centre, radius, polar angles t1 < t2), stacked along the last axis."""
    A = r * r * (t2 - t1) / 2.0
    sy = r**3 / 3.0 * (np.sin(t2) - np.sin(t1))  # ∫∫ (y − c_y) dA
    sz = -(r**3) / 3.0 * (np.cos(t2) - np.cos(t1))
    s2 = (np.sin(2.0 * t2) - np.sin(2.0 * t1)) / 4.0
    iyy = r**4 / 4.0 * ((t2 - t1) / 2.0 + s2)  # ∫∫ (y − c_y)² dA
    izz = r**4 / 4.0 * ((t2 - t1) / 2.0 - s2)
    iyz = r**4 / 8.0 * (np.sin(t2) ** 2 - np.sin(t1) ** 2)
    return np.stack([A, cy * A + sy, cz * A + sz, iyy + 2.0 * cy * sy + cy * cy * A, izz + 2.0 * cz * sz + cz * cz * A,
                     iyz + cy * sz + cz * sy + cy * cz * A], axis=-1)


def moments(yz: FloatArray, radii: FloatArray) -> FloatArray:
    """(A, ∫y, ∫z, ∫y², ∫z², ∫yz) of the counter-clockwise polygon ``yz`` (n, 2) with its corners rounded by
    ``radii`` (n,) (module docstring); ValueError if the outline is not counter-clockwise or a fillet does not fit
    its edges."""
    P = np.asarray(yz, dtype=float)
    r = np.asarray(radii, dtype=float)
    e = np.roll(P, -1, axis=0) - P  # edge i from vertex i to i + 1
    le = np.linalg.norm(e, axis=1)
    if np.any(le <= 0.0) or np.any(r < 0.0) or r.shape != le.shape:
        raise ValueError("polygon: vertices must be distinct and radii non-negative, one per vertex")
    u2 = e / le[:, None]
    u1 = np.roll(u2, 1, axis=0)
    beta = np.arctan2(u1[:, 0] * u2[:, 1] - u1[:, 1] * u2[:, 0], (u1 * u2).sum(1))
    d = r * np.tan(np.abs(beta) / 2.0)
    if _polygon(P[:, 0], P[:, 1])[0] <= 0.0 or np.any(d + np.roll(d, -1) > le * (1.0 + 1e-12)):
        raise ValueError("polygon: the outline must be counter-clockwise and each fillet must fit its two edges")
    T1, T2 = P - d[:, None] * u1, P + d[:, None] * u2
    chord = np.stack([T1, T2], axis=1).reshape(-1, 2)  # each vertex replaced by its two tangent points
    out = _polygon(chord[:, 0], chord[:, 1])
    k = r > 0.0
    if not np.any(k):
        return out
    s = np.sign(beta[k])
    n1 = np.stack([-u1[k, 1], u1[k, 0]], axis=1)  # left normal of the incoming edge
    C = T1[k] + (s * r[k])[:, None] * n1  # the inner side of the turn
    a1 = np.arctan2(T1[k, 1] - C[:, 1], T1[k, 0] - C[:, 0])
    a2 = np.arctan2(T2[k, 1] - C[:, 1], T2[k, 0] - C[:, 0])
    start = np.where(s > 0.0, a1, a2)  # sweep counter-clockwise about C through |β|
    sec = _sector(C[:, 0], C[:, 1], r[k], start, start + np.abs(beta[k]))
    tri = _polygon(np.stack([C[:, 0], T1[k, 0], T2[k, 0]], 1), np.stack([C[:, 1], T1[k, 1], T2[k, 1]], 1))
    tri *= np.sign(tri[:, :1])  # the triangle C T₁ T₂ either way round
    return out + (s[:, None] * (sec - tri)).sum(0)


def centroidal(yz: FloatArray, radii: FloatArray) -> tuple[float, float, float, float, float, float]:
    """Area, centroid (y_c, z_c) and second moments I_yy = ∫∫ (z − z_c)² dA (about the y axis), I_zz = ∫∫ (y − y_c)²
    dA, I_yz = ∫∫ (y − y_c)(z − z_c) dA of the rounded polygon."""
    A, Sy, Sz, Yy, Zz, Yz = moments(yz, radii)
    yc, zc = Sy / A, Sz / A
    return float(A), float(yc), float(zc), float(Zz - A * zc * zc), float(Yy - A * yc * yc), float(Yz - A * yc * zc)
