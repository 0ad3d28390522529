"""The compiled step core of a rod: the support rows and the fused Newton residual of the implicit methods.

Two kernels, each one compiled loop over all rows or edges (no Python per node, row or support):

``support_eval(q, nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir)``
    Φ (m,) and the B entries (m, 6) of every support row (support_rows.py, module docstring): per support
    ψ = log(R_i R_refᵀ) from the quaternion product p_i p̄_ref, then per row

        rotation row     Φ = a·ψ     B = [(R_refᵀ T(ψ)⁻ᵀ a)ᵀ, 0]      (T(ψ)⁻ᵀ = T(−ψ)⁻¹ on so(3))
        translation row  Φ = a·e     B = [0, (R_iᵀ a)ᵀ]

    and the reduced rate factor b = T(ψ)⁻ᵀ a (rotation rows; Φ_t = −b·w_ref).

``newton_residual(...)``
    The three vectors a Newton iteration of an implicit method needs at one iterate (t, q, v, λ):

        g   = g(t, q, v)                      (elastic + Kelvin–Voigt + gyroscopic − nodal loads)
        Bᵀλ = B(t, q)ᵀ λ                      (the constraint forces)
        Φ   = Φ(t, q)                         (internal rows edge-major, then the support rows)
        B v                                   (the velocity constraint, without Φ_t)

    from the edge kinematics (xi, JJ) and the support rows' Φ and B entries, without assembling B. The
    internal rows of edge e are rows ``rows`` of JJ_e = [Jm | Jp] (the edge's B entries, ``rod.py``).

Both kernels mirror numpy code that stays beside them: ``SupportRows.kinematics``/``jacobian_data`` and the
rod's ``forces``, ``constraint_jacobian_t``, ``constraints_t`` (``tests/test_step_core.py`` checks that they
agree to round-off, and that gen-alpha's trajectories with and without the core agree).
"""

from __future__ import annotations

import math

import numpy as np

from lgbeam._numba import njit
from lgbeam.groups import compiled_kernels as gk

from . import _compiled
from ._compiled import edge_kinematics  # the edge kinematics of the step core, public here for frames


@njit
def qmul(a0, a1, a2, a3, b0, b1, b2, b3):  # type: ignore[no-untyped-def]
    """The Hamilton product a b of two quaternions (scalar first)."""
    return (a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3, a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1, a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0)


@njit
def product_log(a0, a1, a2, a3, b0, b1, b2, b3):  # type: ignore[no-untyped-def]
    """(r = a b, ψ = log r (3 floats), c = tinv_c(|ψ|)): a relative rotation, its vector and T⁻¹'s coefficient."""
    r = qmul(a0, a1, a2, a3, b0, b1, b2, b3)
    w0, w1, w2 = gk.quat_log1(r[0], r[1], r[2], r[3])
    return r, w0, w1, w2, gk.tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))


@njit
def support_eval(q, nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir):  # type: ignore[no-untyped-def]
    """(Φ (m,), B entries (m, 6), b = T(ψ)⁻ᵀ a (m, 3)) of the support rows (module docstring)."""
    k = nodes.shape[0]
    psi = np.empty((k, 3))
    tc = np.empty(k)
    for s in range(k):
        i = nodes[s]
        _, w0, w1, w2, tc[s] = product_log(q[i, 0], q[i, 1], q[i, 2], q[i, 3],
                                           base_p[s, 0], -base_p[s, 1], -base_p[s, 2], -base_p[s, 3])  # p_i p̄_ref
        psi[s, 0], psi[s, 1], psi[s, 2] = w0, w1, w2
    m = row_entry.shape[0]
    phi = np.empty(m)
    data = np.zeros((m, 6))
    bvec = np.zeros((m, 3))
    for r in range(m):
        s = row_entry[r]
        i = nodes[s]
        d0, d1, d2 = row_dir[r, 0], row_dir[r, 1], row_dir[r, 2]
        if row_rot[r]:
            phi[r] = d0 * psi[s, 0] + d1 * psi[s, 1] + d2 * psi[s, 2]
            c0, c1, c2 = gk.tinv_so3(-psi[s, 0], -psi[s, 1], -psi[s, 2], tc[s], d0, d1, d2)
            bvec[r, 0], bvec[r, 1], bvec[r, 2] = c0, c1, c2
            for j in range(3):
                data[r, j] = base_R[s, 0, j] * c0 + base_R[s, 1, j] * c1 + base_R[s, 2, j] * c2
        else:
            phi[r] = (d0 * (q[i, 4] - base_x[s, 0]) + d1 * (q[i, 5] - base_x[s, 1])
                      + d2 * (q[i, 6] - base_x[s, 2]))
            u0, u1, u2 = gk.rotate(q[i, 0], -q[i, 1], -q[i, 2], -q[i, 3], d0, d1, d2)
            data[r, 3], data[r, 4], data[r, 5] = u0, u1, u2
    return phi, data, bvec


@njit
def internal_rows(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, f, phi, bv):  # type: ignore[no-untyped-def]
    """The internal rows (edge e = in_edge[r], strain component in_comp[r], row in_row[r], reference in_ref[r]; the
    edge joins nodes ia[e] and ia[e] + 1): Φ = ξ_k − ref, B v = JJ_k [v_a; v_{a+1}], Bᵀλ scattered into f."""
    for r in range(in_row.shape[0]):
        a = ia[in_edge[r]]
        k = in_comp[r]
        row = in_row[r]
        phi[row] = xi[a, k] - in_ref[r]
        lr = lam[row]
        b = 0.0
        for j in range(6):
            jm = JJ[a, k, j]
            jp = JJ[a, k, 6 + j]
            b += jm * V[a, j] + jp * V[a + 1, j]
            f[a, j] += jm * lr
            f[a + 1, j] += jp * lr
        bv[row] = b


@njit
def node_rows(s_phi, s_data, s_node, s_row, V, lam, f, phi, bv):  # type: ignore[no-untyped-def]
    """Rows acting on one node each (supports): Φ given, B v = data · v_node, Bᵀλ scattered into f."""
    for r in range(s_row.shape[0]):
        i = s_node[r]
        row = s_row[r]
        lr = lam[row]
        b = 0.0
        for j in range(6):
            b += s_data[r, j] * V[i, j]
            f[i, j] += s_data[r, j] * lr
        phi[row] = s_phi[r]
        bv[row] = b


@njit
def newton_residual(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_phi, s_data, s_node, s_row,  # type: ignore[no-untyped-def]
                    C_ds, Cw0, Cd_ds, damped, J, mass, q, load_idx, load_vec, load_spatial, load_scale):
    """(g (N+1, 6), Bᵀλ (N+1, 6), Φ (m,), B v (m,)) at one iterate (module docstring): the edges at ia, the internal
    rows (``internal_rows``) and the support rows (``node_rows``, node s_node[r], row s_row[r])."""
    g = _compiled._edge_forces(xi, JJ, V, ia, C_ds, Cw0, Cd_ds, damped, J, mass)
    if load_idx.shape[0]:
        _compiled._add_nodal_loads(g, q, load_idx, load_vec, load_spatial, load_scale)
    f = np.zeros_like(g)
    phi = np.zeros(lam.shape[0])
    bv = np.zeros(lam.shape[0])
    internal_rows(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, f, phi, bv)
    node_rows(s_phi, s_data, s_node, s_row, V, lam, f, phi, bv)
    return g, f, phi, bv


@njit
def rod_residual(q, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_nodes, base_p, base_R, base_x, row_entry,  # type: ignore[no-untyped-def]
                 row_rot, row_dir, s_node, s_row, C_ds, Cw0, Cd_ds, damped, J, mass, load_idx, load_vec,
                 load_spatial, load_scale):
    """``newton_residual`` from the configuration itself: edge kinematics and support rows in the same call."""
    xi, JJ = _compiled.edge_kinematics(q)
    if row_entry.shape[0]:
        s_phi, s_data, _ = support_eval(q, s_nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir)
    else:
        s_phi, s_data = np.zeros(0), np.zeros((0, 6))
    return newton_residual(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_phi, s_data, s_node, s_row,
                           C_ds, Cw0, Cd_ds, damped, J, mass, q, load_idx, load_vec, load_spatial, load_scale)


@njit
def jacobian_data(JJ, rows, s_data, perm):  # type: ignore[no-untyped-def]
    """B's entries in CSR order: the internal rows' [Jm | Jp] rows of every edge (edge-major), then the support
    rows' entries, gathered by ``perm`` (``assembly.CSRPattern``)."""
    ne, nr = JJ.shape[0], rows.shape[0]
    ni = ne * nr * 12
    flat = np.empty(ni + s_data.shape[0] * 6)
    p = 0
    for e in range(ne):
        for r in range(nr):
            k = rows[r]
            for j in range(12):
                flat[p] = JJ[e, k, j]
                p += 1
    for r in range(s_data.shape[0]):
        for j in range(6):
            flat[p] = s_data[r, j]
            p += 1
    out = np.empty(perm.shape[0])
    for i in range(perm.shape[0]):
        out[i] = flat[perm[i]]
    return out


# --------------------------------------------------------------------------- derivatives of T(ξ)⁻ᵀ s (tangents)
@njit
def _hat_into(M, v0, v1, v2, f):  # type: ignore[no-untyped-def]
    """M += f · hat(v)."""
    M[0, 1] -= f * v2
    M[0, 2] += f * v1
    M[1, 0] += f * v2
    M[1, 2] -= f * v0
    M[2, 0] -= f * v1
    M[2, 1] += f * v0


@njit
def _parts(W, U, a, b, sign, c, d, d1, out):  # type: ignore[no-untyped-def]
    """``groups.tangent_derivatives._parts`` for one ξ = (W, U) into out (6, 6) (zeroed here)."""
    out[:, :] = 0.0
    n2 = W[0] * W[0] + W[1] * W[1] + W[2] * W[2]
    wu = W[0] * U[0] + W[1] * U[1] + W[2] * U[2]
    wa = W[0] * a[0] + W[1] * a[1] + W[2] * a[2]
    wb = W[0] * b[0] + W[1] * b[1] + W[2] * b[2]
    sa = np.empty(3)
    sb = np.empty(3)
    for i in range(3):
        sa[i] = W[i] * wa - n2 * a[i]
        sb[i] = W[i] * wb - n2 * b[i]
    # U × (W × a) + W × (U × a)
    wxa = np.array([W[1] * a[2] - W[2] * a[1], W[2] * a[0] - W[0] * a[2], W[0] * a[1] - W[1] * a[0]])
    uxa = np.array([U[1] * a[2] - U[2] * a[1], U[2] * a[0] - U[0] * a[2], U[0] * a[1] - U[1] * a[0]])
    t = np.array([U[1] * wxa[2] - U[2] * wxa[1] + W[1] * uxa[2] - W[2] * uxa[1],
                  U[2] * wxa[0] - U[0] * wxa[2] + W[2] * uxa[0] - W[0] * uxa[2],
                  U[0] * wxa[1] - U[1] * wxa[0] + W[0] * uxa[1] - W[1] * uxa[0]])
    for i in range(3):
        for j in range(3):
            dij = 1.0 if i == j else 0.0
            s2a = wa * dij + W[i] * a[j] - 2.0 * a[i] * W[j]  # S₂(W, a)
            s2b = wb * dij + W[i] * b[j] - 2.0 * b[i] * W[j]
            # dA(a), dA(b) without the hat terms
            out[i, j] += d * sa[i] * W[j] + c * s2a
            out[3 + i, j] += d * sb[i] * W[j] + c * s2b
            # dDa_W without the hat products
            out[3 + i, j] += d * t[i] * W[j] + d1 * wu * sa[i] * W[j] + d * sa[i] * U[j] + d * wu * s2a
            # dDa_U without the hat terms
            out[3 + i, 3 + j] += d * sa[i] * W[j]
            # hat products: −c (Ũ ã) in dDa_W and −c (W̃ ã) in dDa_U
            hu = 0.0
            hw = 0.0
            for k in range(3):
                hu += _hat_entry(i, k, U) * _hat_entry(k, j, a)
                hw += _hat_entry(i, k, W) * _hat_entry(k, j, a)
            out[3 + i, j] -= c * hu
            out[3 + i, 3 + j] -= c * hw
    blk = out[:3, :3]
    _hat_into(blk, a[0], a[1], a[2], -sign * 0.5)
    blk = out[3:, :3]
    _hat_into(blk, b[0], b[1], b[2], -sign * 0.5)
    _hat_into(blk, uxa[0], uxa[1], uxa[2], -c)
    blk = out[3:, 3:]
    _hat_into(blk, a[0], a[1], a[2], -sign * 0.5)
    _hat_into(blk, wxa[0], wxa[1], wxa[2], -c)


@njit
def _hat_entry(i, j, v):  # type: ignore[no-untyped-def]
    if i == j:
        return 0.0
    if i == 0:
        return -v[2] if j == 1 else v[1]
    if i == 1:
        return v[2] if j == 0 else -v[0]
    return -v[1] if j == 0 else v[0]


@njit
def pair_H(xi, s, JJ, c, d, d1):  # type: ignore[no-untyped-def]
    """``tangents._pair_H``: [H(−ξ, s); H(ξ, s)] JJ (N, 12, 12) with H(ξ, s) = ∂(T(ξ)⁻ᵀ s)/∂ξ, one loop over the
    edges; c, d, d1 (N,) the coefficients ``tinv_c``, ``tinv_d``, ``tinv_d1`` at |Ω_e| (even: the same for ±ξ)."""
    ne = xi.shape[0]
    out = np.zeros((ne, 12, 12))
    P = np.empty((6, 6))
    H = np.empty((12, 6))
    W = np.empty(3)
    U = np.empty(3)
    for e in range(ne):
        for half in range(2):
            sg = -1.0 if half == 0 else 1.0
            for i in range(3):
                W[i] = sg * xi[e, i]
                U[i] = sg * xi[e, 3 + i]
            _parts(W, U, s[e, 3:], s[e, :3], -1.0, c[e], d[e], d1[e], P)
            for i in range(3):  # T⁻ᵀ: the row blocks of P swap
                for j in range(6):
                    H[6 * half + i, j] = P[3 + i, j]
                    H[6 * half + 3 + i, j] = P[i, j]
        for i in range(12):
            for j in range(12):
                acc = 0.0
                for k in range(6):
                    acc += H[i, k] * JJ[e, k, j]
                out[e, i, j] = acc
    return out


__all__ = ["edge_kinematics", "jacobian_data", "newton_residual", "pair_H", "rod_residual", "support_eval"]
