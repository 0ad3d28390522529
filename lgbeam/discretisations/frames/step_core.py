"""The joints' rows of Φ and B in one compiled pass (the numpy reference: ``JointRows.phi``/``jacobian_data``), and
the fused Newton residual of a whole structure (``structure_residual``; the reference: ``Structure``'s protocol
methods) and of a structure of corotational elements (``corot_residual``; the reference:
``CorotationalStructure``'s protocol methods).

Per joint k (joints.py, module docstring): pQ = p̄_a p_b c̄₀ (the quaternion of Q = R_aᵀ R_b C₀ᵀ), ψ = log pQ, then
per row with b = T(ψ)⁻ᵀ n = T(−ψ)⁻¹ n

    translation row  Φ = d·(x_b − x_a)     B = [0, −(R_aᵀ d)ᵀ | 0, (R_bᵀ d)ᵀ]
    rotation row     Φ = n·ψ               B = [−(Q b)ᵀ, 0 | (C₀ᵀ b)ᵀ, 0]

``tests/test_step_core.py`` checks it against the numpy reference.
"""

from __future__ import annotations

import numpy as np

from lgbeam._numba import njit
from lgbeam.discretisations.rods.step_core import (
    edge_kinematics,
    newton_residual,
    node_rows,
    product_log,
    qmul,
    support_eval,
)
from lgbeam.groups import compiled_kernels as gk

from ._corot_compiled import element_pass


@njit
def joint_eval(q, ia, ib, c0, row_entry, row_rot, row_dir):  # type: ignore[no-untyped-def]
    """(Φ (m,), B entries (m, 12) in ``JointRows.pattern`` order) of every joint row."""
    k = ia.shape[0]
    pq = np.empty((k, 4))
    psi = np.empty((k, 3))
    tc = np.empty(k)
    for j in range(k):
        a, b = ia[j], ib[j]
        r0, r1, r2, r3 = qmul(q[b, 0], q[b, 1], q[b, 2], q[b, 3], c0[j, 0], -c0[j, 1], -c0[j, 2], -c0[j, 3])
        p, w0, w1, w2, tc[j] = product_log(q[a, 0], -q[a, 1], -q[a, 2], -q[a, 3], r0, r1, r2, r3)  # p̄_a p_b c̄₀
        pq[j, 0], pq[j, 1], pq[j, 2], pq[j, 3] = p[0], p[1], p[2], p[3]
        psi[j, 0], psi[j, 1], psi[j, 2] = w0, w1, w2
    m = row_entry.shape[0]
    phi = np.empty(m)
    data = np.zeros((m, 12))
    for r in range(m):
        j = row_entry[r]
        a, b = ia[j], ib[j]
        d0, d1, d2 = row_dir[r, 0], row_dir[r, 1], row_dir[r, 2]
        if row_rot[r]:
            phi[r] = d0 * psi[j, 0] + d1 * psi[j, 1] + d2 * psi[j, 2]
            n0, n1, n2 = gk.tinv_so3(-psi[j, 0], -psi[j, 1], -psi[j, 2], tc[j], d0, d1, d2)
            u0, u1, u2 = gk.rotate(pq[j, 0], pq[j, 1], pq[j, 2], pq[j, 3], n0, n1, n2)
            data[r, 0], data[r, 1], data[r, 2] = -u0, -u1, -u2
            w0, w1, w2 = gk.rotate(c0[j, 0], -c0[j, 1], -c0[j, 2], -c0[j, 3], n0, n1, n2)
            data[r, 6], data[r, 7], data[r, 8] = w0, w1, w2
        else:
            phi[r] = d0 * (q[b, 4] - q[a, 4]) + d1 * (q[b, 5] - q[a, 5]) + d2 * (q[b, 6] - q[a, 6])
            u0, u1, u2 = gk.rotate(q[a, 0], -q[a, 1], -q[a, 2], -q[a, 3], d0, d1, d2)
            data[r, 3], data[r, 4], data[r, 5] = -u0, -u1, -u2
            w0, w1, w2 = gk.rotate(q[b, 0], -q[b, 1], -q[b, 2], -q[b, 3], d0, d1, d2)
            data[r, 9], data[r, 10], data[r, 11] = w0, w1, w2
    return phi, data


@njit
def structure_residual(q, V, lam, ia, C_ds, Cw0, Cd_ds, damped, J, mass,  # type: ignore[no-untyped-def]
                       in_edge, in_comp, in_row, in_ref,
                       s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir, s_row,
                       j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row,
                       load_idx, load_vec, load_spatial, load_scale):
    """(g (n, 6), Bᵀλ (n, 6), Φ (m,), B v (m,)) of a structure at one iterate, in one pass (the rods'
    ``step_core.newton_residual`` over every edge of every rod: edge e joins the global nodes ia[e] and ia[e] + 1;
    internal rows (edge, strain component, row, reference); support rows (merged, global nodes); joint rows).
    Springs are not included (the caller adds them)."""
    xi, JJ = edge_kinematics(q)  # every consecutive pair of nodes; the edges are the pairs ia
    if s_row.shape[0]:
        s_phi, s_data, _ = support_eval(q, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir)
        s_node = s_nodes[s_entry]
    else:
        s_phi, s_data, s_node = np.zeros(0), np.zeros((0, 6)), s_row
    g, f, phi, bv = newton_residual(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_phi, s_data, s_node,
                                    s_row, C_ds, Cw0, Cd_ds, damped, J, mass, q, load_idx, load_vec, load_spatial,
                                    load_scale)
    if j_row.shape[0]:
        j_phi, j_data = joint_eval(q, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir)
        for r in range(j_row.shape[0]):
            a = j_ia[j_entry[r]]
            bb = j_ib[j_entry[r]]
            row = j_row[r]
            lr = lam[row]
            b = 0.0
            for j in range(6):
                b += j_data[r, j] * V[a, j] + j_data[r, 6 + j] * V[bb, j]
                f[a, j] += j_data[r, j] * lr
                f[bb, j] += j_data[r, 6 + j] * lr
            phi[row] = j_phi[r]
            bv[row] = b
    return g, f, phi, bv


@njit
def _joint_rows(q, V, lam, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row, f, phi, bv):  # type: ignore[no-untyped-def]
    """The joint rows into f (Bᵀλ), Φ and B v (as ``structure_residual``)."""
    if not j_row.shape[0]:
        return
    j_phi, j_data = joint_eval(q, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir)
    for r in range(j_row.shape[0]):
        a = j_ia[j_entry[r]]
        bb = j_ib[j_entry[r]]
        row = j_row[r]
        lr = lam[row]
        b = 0.0
        for j in range(6):
            b += j_data[r, j] * V[a, j] + j_data[r, 6 + j] * V[bb, j]
            f[a, j] += j_data[r, j] * lr
            f[bb, j] += j_data[r, 6 + j] * lr
        phi[row] = j_phi[r]
        bv[row] = b


@njit
def add_nodal_loads(g, q, idx, vec, is_spatial, scale):  # type: ignore[no-untyped-def]
    """g[idx_k] += s_k (moment, force)_k, turned into the body frame by R(p_idx_k)ᵀ first when ``is_spatial[k]`` (in
    place; the rods' compiled nodal loads, over global nodes)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        s = scale[k]
        for b in range(0, 6, 3):
            a0, a1, a2 = s * vec[k, b], s * vec[k, b + 1], s * vec[k, b + 2]
            if is_spatial[k]:
                a0, a1, a2 = gk.rotate(q[i, 0], -q[i, 1], -q[i, 2], -q[i, 3], a0, a1, a2)
            g[i, b] += a0
            g[i, b + 1] += a1
            g[i, b + 2] += a2


@njit
def _gyroscopic(V, m_ptr, m_idx, m_val, g):  # type: ignore[no-untyped-def]
    """g_i += (W×π + U×p, W×p) with (π_i, p_i) = (M v)_i, M in CSR over the flat 6n velocities
    (``CorotationalStructure.gyroscopic``)."""
    n = V.shape[0]
    v = V.ravel()
    P = np.empty(6)
    for i in range(n):
        for k in range(6):
            row = 6 * i + k
            acc = 0.0
            for z in range(m_ptr[row], m_ptr[row + 1]):
                acc += m_val[z] * v[m_idx[z]]
            P[k] = acc
        w0, w1, w2, u0, u1, u2 = V[i, 0], V[i, 1], V[i, 2], V[i, 3], V[i, 4], V[i, 5]
        a0, a1, a2 = gk.cross(w0, w1, w2, P[0], P[1], P[2])
        b0, b1, b2 = gk.cross(u0, u1, u2, P[3], P[4], P[5])
        c0, c1, c2 = gk.cross(w0, w1, w2, P[3], P[4], P[5])
        g[i, 0] += a0 + b0
        g[i, 1] += a1 + b1
        g[i, 2] += a2 + b2
        g[i, 3] += c0
        g[i, 4] += c1
        g[i, 5] += c2


@njit
def corot_residual(q, V, lam, e_a, e_b, e_ca, e_cb, e_l0, e_K, m_ptr, m_idx, m_val,  # type: ignore[no-untyped-def]
                   s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir, s_row,
                   j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row,
                   load_idx, load_vec, load_spatial, load_scale, g_el, g_e, s_e, B_e):
    """(g (n, 6), Bᵀλ (n, 6), Φ (m,), B v (m,), strain energy) of a corotational structure at one iterate in one
    pass: the elements' closed form (``_corot_compiled.element_pass``; their nodal forces also into g_el, and
    g_e, s_e, B_e filled), the Euler–Poincaré terms of the mass M (CSR), the nodal loads (−scale·f), the support
    rows (merged, global nodes) and the joint rows. Springs are not included (the caller adds them)."""
    energy = element_pass(q, e_a, e_b, e_ca, e_cb, e_l0, e_K, False, g_el, g_e, s_e, B_e, np.empty((0, 12, 12)))
    g = g_el.copy()
    _gyroscopic(V, m_ptr, m_idx, m_val, g)
    if load_idx.shape[0]:
        add_nodal_loads(g, q, load_idx, load_vec, load_spatial, load_scale)
    f = np.zeros_like(g)
    phi = np.zeros(lam.shape[0])
    bv = np.zeros(lam.shape[0])
    if s_row.shape[0]:
        s_phi, s_data, _ = support_eval(q, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir)
        node_rows(s_phi, s_data, s_nodes[s_entry], s_row, V, lam, f, phi, bv)
    _joint_rows(q, V, lam, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row, f, phi, bv)
    return g, f, phi, bv, energy


__all__ = ["add_nodal_loads", "corot_residual", "joint_eval", "structure_residual"]
