"""Section force and moment resultants of a rod, with the constraint forces included (Kirchhoff rods carry
their shear, inextensible rods their axial force, in the multipliers).

Symbols (kernels.py, rod.py): per edge e = (a, b) = (i−1, i), ξ = log(q_a⁻¹ q_b), JJ = [Jm | Jp] =
[−T(−ξ)⁻¹ | T(ξ)⁻¹], and the total stress conjugate to ξ

    σ_e = C(ξ/Δs − w₀) + C_d ξ̇/Δs + s_λ,    s_λ[k] = λ_{e,k} on the internally constrained components k

(the constraint rows Φ_e = ξ_k − Δs w₀_k have B = JJ[k], so Bᵀλ adds JJᵀ s_λ to the edge's JJᵀσ). The edge
pushes node a with −Jmᵀσ and node b with −Jpᵀσ (M v' = −g − Bᵀλ). The section resultant (n, m) is the wrench
the part of the rod beyond a cut (larger s) exerts on the part before it (Antman's convention); at the two ends
of edge e, in the body frame of the node and about it (components (moment, force)):

    W_a = T(−ξ)⁻ᵀ σ  (at node a),   W_b = T(ξ)⁻ᵀ σ  (at node b)

Because V and the internal constraints are invariant under rigid motions, every edge's forces balance, and
summing the nodal equilibria of the nodes i … N gives, in a static state, spatial R_i W_b(e) = the resultant of
everything acting on nodes i … N (loads, supports, joints; moment about x_i): the exact discrete free-body cut.
Nodal values: W_b of the edge before the node and W_a of the edge after it differ by the node's load; the
nodal output is their mean (exact at unloaded nodes), the end nodes take their one edge. Edge values (cell
data) are the mean of the two end wrenches moved to the edge midpoint, in the spatial frame and in the
material frame of the midpoint, R_mid = rotation of q_a exp(ξ/2).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from lgbeam._typing import FloatArray


class Resultants(NamedTuple):
    """Section resultants of one rod, (moment, force) = (m, n) as 3-vectors:

    ``edge_spatial`` / ``edge_material`` (N, 6): at the edge midpoints (spatial; material frame of the midpoint);
    ``node_spatial`` / ``node_material`` (N+1, 6): at the nodes (spatial, moment about the node; body frame);
    ``ends`` (N, 2, 6): spatial W_a (about node a) and W_b (about node b) of each edge."""

    edge_spatial: FloatArray
    edge_material: FloatArray
    node_spatial: FloatArray
    node_material: FloatArray
    ends: FloatArray


def edge_stress(rod: Any, q: FloatArray, lam: FloatArray | None, v: FloatArray | None = None) -> FloatArray:
    """σ_e (N, 6): elastic + Kelvin–Voigt stress plus the multipliers of the internal constraint rows."""
    q = rod._q(q)
    xi, JJ = rod._edges(q)
    C_ds, Cw0, Cd_ds, _, _ = rod._kv
    sigma = C_ds * xi - Cw0
    if v is not None and Cd_ds is not None:
        V = np.asarray(v, dtype=float).reshape(rod.n_nodes, 6)
        sigma = sigma + Cd_ds * (JJ @ np.concatenate([V[:-1], V[1:]], axis=1)[:, :, None])[:, :, 0]
    nr = len(rod.internal_rows)
    if lam is not None and nr:
        lam_e = np.asarray(lam, dtype=float)[: rod.n_internal].reshape(-1, nr)
        sigma = sigma.copy()
        sigma[:, rod._rows_index] += lam_e
    return sigma


def _spatial(R: FloatArray, W: FloatArray) -> FloatArray:
    return np.concatenate([np.einsum("nij,nj->ni", R, W[:, :3]), np.einsum("nij,nj->ni", R, W[:, 3:])], axis=1)


def _material(R: FloatArray, W: FloatArray) -> FloatArray:
    return np.concatenate([np.einsum("nji,nj->ni", R, W[:, :3]), np.einsum("nji,nj->ni", R, W[:, 3:])], axis=1)


def section_resultants(rod: Any, q: FloatArray, lam: FloatArray | None, v: FloatArray | None = None) -> Resultants:
    """Section resultants of ``rod`` at (q, λ, v) (module docstring); λ None: elastic stress only."""
    q = rod._q(q)
    _, JJ = rod._edges(q)
    sigma = edge_stress(rod, q, lam, v)
    Wa_body = -np.einsum("nji,nj->ni", JJ[:, :, :6], sigma)   # T(−ξ)⁻ᵀσ = −Jmᵀσ
    Wb_body = np.einsum("nji,nj->ni", JJ[:, :, 6:], sigma)    # T(ξ)⁻ᵀσ = Jpᵀσ
    return from_end_wrenches(rod.G, q, Wa_body, Wb_body)


def from_end_wrenches(G: Any, q: FloatArray, Wa_body: FloatArray, Wb_body: FloatArray) -> Resultants:
    """``Resultants`` of a chain of N edges (nodes q (N+1, 7)) from the section wrenches at the two ends of every
    edge, in the body frames of its nodes and about them (W_a at node a, W_b at node b; module docstring): any
    element that gives its end wrenches (the rod's, or a corotational beam's, ``frames.corotational``)."""
    R, x = G.rotation(q), G.translation(q)
    Wa, Wb = _spatial(R[:-1], Wa_body), _spatial(R[1:], Wb_body)
    xa, xb = x[:-1], x[1:]
    mid_q = G.compose(q[:-1], G.exp(0.5 * G.log(G.compose(G.inverse(q[:-1]), q[1:]))))
    xm, Rm = G.translation(mid_q), G.rotation(mid_q)
    F = 0.5 * (Wa[:, 3:] + Wb[:, 3:])
    M = 0.5 * (Wa[:, :3] + np.cross(xa - xm, Wa[:, 3:]) + Wb[:, :3] + np.cross(xb - xm, Wb[:, 3:]))
    edge = np.concatenate([M, F], axis=1)
    node = np.zeros((q.shape[0], 6))
    node[0], node[-1] = Wa[0], Wb[-1]
    node[1:-1] = 0.5 * (Wb[:-1] + Wa[1:])
    return Resultants(edge, _material(Rm, edge), node, _material(R, node), np.stack([Wa, Wb], axis=1))
