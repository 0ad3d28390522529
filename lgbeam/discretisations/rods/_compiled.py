"""Compiled (numba) twins of the rod kernels (``kernels.py``, ``loads.py``), the rod's fused diagnostics, the
step core of the implicit methods and the banded LDLᵀ of the stability test.

Each kernel is a loop over edges or nodes doing the arithmetic of its numpy reference, on the per-element
S³⋉R³ kernels of ``lgbeam.groups.compiled_kernels``; ``KERNELS`` has the signatures of
``kernels.NUMPY_KERNELS`` (``CosseratRod(compiled=...)`` picks one of the two), ``TWINS`` pairs each
kernel with its reference for ``tests/test_jit.py``.

The step core (each one compiled loop over all rows or edges, no Python per node, row or support):

``support_eval(q, nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir)``
    Φ (m,) and the B entries (m, 6) of every support row (support_rows.py, module docstring): per support
    ψ = log(R_i R_refᵀ) from the quaternion product p_i p̄_ref, then per row

        rotation row     Φ = a·ψ     B = [(R_refᵀ T(ψ)⁻ᵀ a)ᵀ, 0]      (T(ψ)⁻ᵀ = T(−ψ)⁻¹ on so(3))
        translation row  Φ = a·e     B = [0, (R_iᵀ a)ᵀ]

    and the reduced rate factor b = T(ψ)⁻ᵀ a (rotation rows; Φ_t = −b·w_ref).

``newton_residual(...)`` / ``rod_residual(...)``
    The vectors a Newton iteration of an implicit method needs at one iterate (t, q, v, λ):
    g = g(t, q, v) (elastic + Kelvin–Voigt + gyroscopic − nodal loads), Bᵀλ, Φ (internal rows edge-major, then
    the support rows) and B v (without Φ_t), from the edge kinematics (xi, JJ) and the support rows' Φ and B
    entries, without assembling B. The internal rows of edge e are rows ``rows`` of JJ_e = [Jm | Jp].

``ga_rod_evaluate(q, λ, θ̃, ...)``
    One generalized-α residual evaluation in one call: the iterate of ``lgbeam._newton_kernels.ga_iterate``, the
    retraction q_n ∘ exp(θ), ``rod_residual`` and the scaled right-hand side ``ga_rhs`` (``CosseratRod.ga_evaluator``);
    ``ga_rod_iterate`` a whole Newton iteration: the banded correction (``lgbeam._newton_kernels.ga_solve_update``) and
    the evaluation at the corrected iterate.

``s3r3_tangent_blocks`` (T(θ) per node, the blocks of the gen-alpha iteration matrix), ``jacobian_data``, ``pair_H`` (∂(JJᵀ s)/∂q blocks of the tangent), ``band_ldl_pivots`` (stability.py).

Numpy references (``*_numpy`` below, ``kernels``, ``loads``) sit beside them; ``qmul``, ``product_log``,
``internal_rows``, ``node_rows``, ``_hat_into``, ``_parts``, ``_hat_entry``, ``_edge_forces`` are helpers called
only from other kernels and are checked through their callers' twins.
"""

from __future__ import annotations

import math

import numpy as np

from lgbeam._newton_kernels import (
    band_factors_sample,
    ga_iterate,
    ga_iterate_numpy,
    ga_rhs,
    ga_rhs_numpy,
    ga_solve_update,
    ga_solve_update_numpy,
)
from lgbeam._numba import Twin, njit
from lgbeam._typing import FloatArray
from lgbeam.groups import compiled_kernels as gk
from lgbeam.groups.base import quat_conj, quat_mul, quat_to_matrix
from lgbeam.groups.s3r3 import retract_s3r3
from lgbeam.groups.se3 import tangent_se3
from lgbeam.groups.so3 import quat_log, tangent_inv_so3
from lgbeam.groups.tangent_derivatives import coefficients, tangent_inv_transpose_derivative

from . import kernels, loads


@njit
def edge_kinematics(q):  # type: ignore[no-untyped-def]
    """xi_e = log(q_{e}⁻¹ q_{e+1}) (N, 6) and JJ_e = [Jm | Jp] (N, 6, 12), as ``kernels.edge_kinematics``."""
    ne = q.shape[0] - 1
    xi = np.empty((ne, 6))
    JJ = np.empty((ne, 6, 12))
    for e in range(ne):
        a0, a1, a2, a3 = q[e, 0], -q[e, 1], -q[e, 2], -q[e, 3]  # conj(p_a)
        b0, b1, b2, b3 = q[e + 1, 0], q[e + 1, 1], q[e + 1, 2], q[e + 1, 3]
        r0 = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
        r1 = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
        r2 = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
        r3 = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0
        x0, x1, x2 = gk.rotate(a0, a1, a2, a3, q[e + 1, 4] - q[e, 4], q[e + 1, 5] - q[e, 5], q[e + 1, 6] - q[e, 6])
        w0, w1, w2 = gk.quat_log1(r0, r1, r2, r3)
        c = gk.tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
        u0, u1, u2 = gk.tinv_so3(-w0, -w1, -w2, c, x0, x1, x2)
        xi[e, 0], xi[e, 1], xi[e, 2], xi[e, 3], xi[e, 4], xi[e, 5] = w0, w1, w2, u0, u1, u2
        gk.tinv_pair1(xi[e], JJ[e])
    return xi, JJ


@njit
def _edge_forces(xi, JJ, V, ia, C_ds, Cw0, Cd_ds, damped, J, m):  # type: ignore[no-untyped-def]
    """Elastic + Kelvin–Voigt + gyroscopic nodal forces (n_nodes, 6) of the edges e joining nodes ia[e] and
    ia[e] + 1 (ξ, JJ indexed by ia[e]; C per edge e): a rod (ia = 0 … N−1) or every rod of a structure.

    sigma_e = C_ds xi_a − Cw0 (+ Cd_ds · JJ_a [v_a; v_{a+1}]); g_a += Jmᵀσ, g_{a+1} += Jpᵀσ;
    g_i += (Ω × JΩ, m Ω × U)."""
    nn = V.shape[0]
    g = np.zeros((nn, 6))
    sig = np.empty(6)
    for e in range(ia.shape[0]):
        a = ia[e]
        for i in range(6):
            s = C_ds[e, i] * xi[a, i] - Cw0[e, i]
            if damped:
                rate = 0.0
                for j in range(6):
                    rate += JJ[a, i, j] * V[a, j] + JJ[a, i, 6 + j] * V[a + 1, j]
                s += Cd_ds[e, i] * rate
            sig[i] = s
        for j in range(6):
            fa = 0.0
            fb = 0.0
            for i in range(6):
                fa += sig[i] * JJ[a, i, j]
                fb += sig[i] * JJ[a, i, 6 + j]
            g[a, j] += fa
            g[a + 1, j] += fb
    for n in range(nn):
        o0, o1, o2, u0, u1, u2 = V[n, 0], V[n, 1], V[n, 2], V[n, 3], V[n, 4], V[n, 5]
        j0, j1, j2 = J[n, 0] * o0, J[n, 1] * o1, J[n, 2] * o2
        c0, c1, c2 = gk.cross(o0, o1, o2, j0, j1, j2)
        d0, d1, d2 = gk.cross(o0, o1, o2, u0, u1, u2)
        g[n, 0] += c0
        g[n, 1] += c1
        g[n, 2] += c2
        g[n, 3] += m[n] * d0
        g[n, 4] += m[n] * d1
        g[n, 5] += m[n] * d2
    return g


@njit
def _internal_forces(xi, JJ, V, C_ds, Cw0, Cd_ds, damped, J, m):  # type: ignore[no-untyped-def]
    """Elastic + Kelvin–Voigt + gyroscopic nodal forces (N+1, 6) of a rod, as ``kernels.internal_forces``
    (``_edge_forces`` with ia = 0 … N−1)."""
    return _edge_forces(xi, JJ, V, np.arange(xi.shape[0]), C_ds, Cw0, Cd_ds, damped, J, m)


@njit
def _elastic_energy(xi, ds, w0, C):  # type: ignore[no-untyped-def]
    """Σ_e Δs_e ½ Σ_k C_k (xi_ek/Δs_e − w0_ek)², as ``kernels.elastic_energy`` (C the diagonal stiffness)."""
    V = 0.0
    for e in range(xi.shape[0]):
        s = 0.0
        for k in range(6):
            dw = xi[e, k] / ds[e] - w0[e, k]
            s += C[k] * dw * dw
        V += 0.5 * ds[e] * s
    return V


@njit
def step_residuals(xi, JJ, q, V, rows, phi_ref, ds, w0, C, mass_diag, node_mass, gvec):  # type: ignore[no-untyped-def]
    """(‖Φ‖, ‖B v‖, T + V) of a rod whose constraints are the internal rows ``rows`` of every edge:
    Φ_e = xi_e[rows] − phi_ref_e, (B v)_e = JJ_e[rows] [v_e; v_{e+1}], T = ½ Σ M_ii v_i², V elastic
    (``elastic_energy``) − Σ m_i γ·x_i."""
    phi2 = 0.0
    bv2 = 0.0
    for e in range(xi.shape[0]):
        for r in range(rows.shape[0]):
            k = rows[r]
            d = xi[e, k] - phi_ref[e, r]
            phi2 += d * d
            b = 0.0
            for j in range(6):
                b += JJ[e, k, j] * V[e, j] + JJ[e, k, 6 + j] * V[e + 1, j]
            bv2 += b * b
    T = 0.0
    for i in range(V.shape[0]):
        for j in range(6):
            T += 0.5 * mass_diag[6 * i + j] * V[i, j] * V[i, j]
    G = 0.0
    for i in range(q.shape[0]):
        G += node_mass[i] * (gvec[0] * q[i, 4] + gvec[1] * q[i, 5] + gvec[2] * q[i, 6])
    return math.sqrt(phi2), math.sqrt(bv2), T + _elastic_energy(xi, ds, w0, C) - G


@njit
def _rotate_pairs(p, a):  # type: ignore[no-untyped-def]
    """(R(p_i) a_i[:3], R(p_i) a_i[3:]) for (n, 4) unit quaternions and (n, 6) vector pairs."""
    out = np.empty((p.shape[0], 6))
    for i in range(p.shape[0]):
        for k in range(0, 6, 3):
            r0, r1, r2 = gk.rotate(p[i, 0], p[i, 1], p[i, 2], p[i, 3], a[i, k], a[i, k + 1], a[i, k + 2])
            out[i, k], out[i, k + 1], out[i, k + 2] = r0, r1, r2
    return out


@njit
def nodal_loads_into(body, p, idx, vec, is_spatial, scale):  # type: ignore[no-untyped-def]
    """body[idx_k] += s_k vec_k, rotated by R(p_idx_k)ᵀ first when ``is_spatial[k]`` (in place)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        s = scale[k]
        for b in range(0, 6, 3):
            a0, a1, a2 = s * vec[k, b], s * vec[k, b + 1], s * vec[k, b + 2]
            if is_spatial[k]:
                a0, a1, a2 = gk.rotate(p[i, 0], -p[i, 1], -p[i, 2], -p[i, 3], a0, a1, a2)
            body[i, b] += a0
            body[i, b + 1] += a1
            body[i, b + 2] += a2


# --------------------------------------------------------------------------- the step core of the implicit methods
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
    g = _edge_forces(xi, JJ, V, ia, C_ds, Cw0, Cd_ds, damped, J, mass)
    if load_idx.shape[0]:
        nodal_loads_into(g, q, load_idx, load_vec, load_spatial, load_scale)
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
    xi, JJ = edge_kinematics(q)
    if row_entry.shape[0]:
        s_phi, s_data, _ = support_eval(q, s_nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir)
    else:
        s_phi, s_data = np.zeros(0), np.zeros((0, 6))
    return newton_residual(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_phi, s_data, s_node, s_row,
                           C_ds, Cw0, Cd_ds, damped, J, mass, q, load_idx, load_vec, load_spatial, load_scale)



@njit
def ga_rod_evaluate(q, lam, th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd, mdiag, s, gp, m, idx2,  # type: ignore[no-untyped-def]
                    ia, in_edge, in_comp, in_row, in_ref, s_nodes, base_p, base_R, base_x, row_entry, row_rot,
                    row_dir, s_node, s_row, C_ds, Cw0, Cd_ds, damped, J, mass, load_idx, load_vec, load_spatial,
                    load_scale):
    """One generalized-α residual evaluation of a rod in one call (``CosseratRod.ga_evaluator``): the iterate
    (θ, v_{n+1}, v̇_{n+1}) = ``ga_iterate``, q_{n+1} = q_n ∘ exp(θ) (``s3r3_retract``), (g, Bᵀλ, Φ, B v) =
    ``rod_residual`` at (q_{n+1}, v_{n+1}, λ) and the scaled right-hand side ``ga_rhs`` (diagonal M); returns
    (θ, v_{n+1}, v̇_{n+1}, q_{n+1}, rhs, max|g|, max|M v̇|, max|θ|). Reference: ``ga_rod_evaluate_numpy``."""
    theta, v1, vd1 = ga_iterate(th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd)
    nn = q.shape[0]
    q1 = gk.s3r3_retract(q, theta.reshape((nn, 6)))
    g, f, phi, bv = rod_residual(q1, v1.reshape((nn, 6)), lam, ia, in_edge, in_comp, in_row, in_ref, s_nodes, base_p,
                                 base_R, base_x, row_entry, row_rot, row_dir, s_node, s_row, C_ds, Cw0, Cd_ds, damped,
                                 J, mass, load_idx, load_vec, load_spatial, load_scale)
    rhs, g_max, mvd_max = ga_rhs(mdiag, vd1, g.ravel(), f.ravel(), phi, bv, s, gp, m, idx2)
    return theta, v1, vd1, q1, rhs, g_max, mvd_max, np.abs(theta).max()



@njit
def ga_rod_iterate(lub, kl, ku, piv, perm, rhs, th, lam1, nu, Bnu, bn_ptr, bn_idx, bn_val, q, base, bh2, v_base,  # type: ignore[no-untyped-def]
                   c_v, vd_base, c_vd, mdiag, s, gp, m, idx2, ia, in_edge, in_comp, in_row, in_ref, s_nodes, base_p,
                   base_R, base_x, row_entry, row_rot, row_dir, s_node, s_row, C_ds, Cw0, Cd_ds, damped, J, mass,
                   load_idx, load_vec, load_spatial, load_scale):
    """One whole generalized-α Newton iteration of a rod in one call: the correction (``ga_solve_update``, band LU)
    and the evaluation at the corrected iterate (``ga_rod_evaluate``); returns ga_solve_update's 9 results then
    ga_rod_evaluate's 8. Reference: ``ga_rod_iterate_numpy``."""
    finite, th2, lam2, nu2, Bnu2, d_th, d_lam, lam_max, d_bnu = ga_solve_update(
        lub, kl, ku, piv, perm, rhs, th, lam1, nu, Bnu, bn_ptr, bn_idx, bn_val, s, m, idx2)
    theta, v1, vd1, q1, rhs2, g_max, mvd_max, th_max = ga_rod_evaluate(
        q, lam2, th2, Bnu2, base, bh2, v_base, c_v, vd_base, c_vd, mdiag, s, gp, m, idx2, ia, in_edge, in_comp,
        in_row, in_ref, s_nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir, s_node, s_row, C_ds, Cw0, Cd_ds,
        damped, J, mass, load_idx, load_vec, load_spatial, load_scale)
    return (finite, th2, lam2, nu2, Bnu2, d_th, d_lam, lam_max, d_bnu, theta, v1, vd1, q1, rhs2, g_max, mvd_max,
            th_max)

@njit
def s3r3_tangent_blocks(theta):  # type: ignore[no-untyped-def]
    """T(Ω, U) (K, 6, 6) of the rows θ_k = (Ω, U) (K, 6) (seed 004 eqs. (19)–(20), ``groups.se3.tangent_se3``):
    [[T(Ω), 0], [C₁(Ω, U), T(Ω)]], T(Ω) = I + a Ω̃ + b Ω̃², C₁ = a Ũ + b (ŨΩ̃ + Ω̃Ũ) + (Ω·U)(c Ω̃ − d Ω̃²) with
    a = (cos ω − 1)/ω², b = (ω − sin ω)/ω³, c = (2 − 2cos ω − ω sin ω)/ω⁴, d = (ω(2 + cos ω) − 3 sin ω)/ω⁵."""
    K = theta.shape[0]
    out = np.zeros((K, 6, 6))
    W = np.empty(3)
    U = np.empty(3)
    for k in range(K):
        for i in range(3):
            W[i] = theta[k, i]
            U[i] = theta[k, 3 + i]
        n2 = W[0] * W[0] + W[1] * W[1] + W[2] * W[2]
        n = math.sqrt(n2)
        sh = gk.sinc_half(n)
        a = -0.5 * sh * sh
        b = gk.x_sin_x3(n)
        c = gk.two_2cos_xsin_x4(n)
        d = gk.x2cos_3sin_x5(n)
        wu = W[0] * U[0] + W[1] * U[1] + W[2] * U[2]
        for i in range(3):
            for j in range(3):
                dij = 1.0 if i == j else 0.0
                w2 = W[i] * W[j] - n2 * dij  # Ω̃²
                uw = W[i] * U[j] + U[i] * W[j] - 2.0 * wu * dij  # ŨΩ̃ + Ω̃Ũ
                t = dij + a * _hat_entry(i, j, W) + b * w2
                out[k, i, j] = t
                out[k, 3 + i, 3 + j] = t
                out[k, 3 + i, j] = a * _hat_entry(i, j, U) + b * uw + wu * (c * _hat_entry(i, j, W) - d * w2)
    return out


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


# --------------------------------------------------------------------------- banded LDLᵀ (stability.py)
@njit
def band_ldl_pivots(ab):  # type: ignore[no-untyped-def]
    """Pivots d of A = L D Lᵀ without pivoting for a symmetric band matrix in LAPACK lower storage
    (A[j+k, j] = ab[k, j]); O(n·bw²). A zero pivot propagates as inf/nan (the caller falls back).
    Reference: ``band_ldl_pivots_numpy``."""
    bw1, n = ab.shape
    bw = bw1 - 1
    L = np.zeros((bw1, n))  # L[i−j, j]
    d = np.zeros(n)
    for j in range(n):
        s = ab[0, j]
        for k in range(max(0, j - bw), j):
            s -= L[j - k, k] * L[j - k, k] * d[k]
        d[j] = s
        for i in range(j + 1, min(n, j + bw + 1)):
            t = ab[i - j, j]
            for k in range(max(0, i - bw), j):
                t -= L[i - k, k] * L[j - k, k] * d[k]
            L[i - j, j] = t / s if s != 0.0 else np.inf
    return d


# --------------------------------------------------------------------------- the signatures of kernels.py
def internal_forces(
    xi: FloatArray, JJ: FloatArray, V: FloatArray, C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray | None,
    J: FloatArray, m: FloatArray,
) -> FloatArray:
    """``kernels.internal_forces`` in one compiled loop."""
    damped = Cd_ds is not None
    return _internal_forces(xi, JJ, np.ascontiguousarray(V), C_ds, Cw0, Cd_ds if damped else C_ds, damped, J, m)


def elastic_energy(xi: FloatArray, ds: FloatArray, w0: FloatArray, C: FloatArray) -> float:
    """``kernels.elastic_energy`` in one compiled loop."""
    return float(_elastic_energy(np.ascontiguousarray(xi, dtype=float), np.asarray(ds, dtype=float),
                                 np.ascontiguousarray(w0, dtype=float), np.asarray(C, dtype=float)))


def rotate_pairs(p: FloatArray, a: FloatArray) -> FloatArray:
    """``loads.rotate_pairs`` in one compiled loop."""
    return _rotate_pairs(np.ascontiguousarray(p, dtype=float), np.ascontiguousarray(a, dtype=float))


def add_nodal_loads(
    body: FloatArray, p: FloatArray, idx: np.ndarray, vec: FloatArray, is_spatial: np.ndarray, scale: FloatArray
) -> None:
    """``loads.add_nodal_loads`` (in place) in one compiled loop."""
    nodal_loads_into(body, np.ascontiguousarray(p, dtype=float), idx, vec, is_spatial, scale)


LOADS = loads.LoadKernels(rotate_pairs, add_nodal_loads)
KERNELS = kernels.RodKernels(edge_kinematics, internal_forces, elastic_energy, step_residuals, LOADS)


# --------------------------------------------------------------------------- numpy references of the step core
def support_eval_numpy(q: FloatArray, nodes: np.ndarray, base_p: FloatArray, base_R: FloatArray, base_x: FloatArray,
                       row_entry: np.ndarray, row_rot: np.ndarray, row_dir: FloatArray
                       ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``support_eval`` in array expressions (``SupportRows.phi``/``jacobian_data``): ψ = log(p_i p̄_ref),
    b = T(ψ)⁻ᵀ a, B rows [R_refᵀ b, 0] (rotation) or [0, R_iᵀ a] (translation)."""
    qi = q[nodes]
    psi = quat_log(quat_mul(qi[:, :4], quat_conj(base_p)))
    k, rot, a = row_entry, np.asarray(row_rot, dtype=bool), row_dir
    b = np.einsum("mji,mj->mi", tangent_inv_so3(psi)[k], a)
    phi = np.where(rot, np.einsum("mi,mi->m", a, psi[k]), np.einsum("mi,mi->m", a, qi[k, 4:] - base_x[k]))
    data = np.zeros((k.size, 6))
    data[rot, :3] = np.einsum("mi,mij->mj", b[rot], base_R[k[rot]])
    data[~rot, 3:] = np.einsum("mi,mij->mj", a[~rot], quat_to_matrix(qi[k[~rot], :4]))
    return phi, data, np.where(rot[:, None], b, 0.0)


def edge_forces_numpy(xi: FloatArray, JJ: FloatArray, V: FloatArray, ia: np.ndarray, C_ds: FloatArray,
                      Cw0: FloatArray, Cd_ds: FloatArray, damped: bool, J: FloatArray, m: FloatArray) -> FloatArray:
    """``_edge_forces``: σ_e = C_ds ξ_a − Cw0 (+ Cd_ds JJ_a [v_a; v_{a+1}]), g_a += Jmᵀσ, g_{a+1} += Jpᵀσ, plus the
    gyroscopic terms (``kernels.gyroscopic``)."""
    JJa = JJ[ia]
    sig = C_ds * xi[ia] - Cw0
    if damped:
        sig = sig + Cd_ds * np.einsum("eij,ej->ei", JJa, np.concatenate([V[ia], V[ia + 1]], axis=1))
    f = np.einsum("eij,ei->ej", JJa, sig)
    g = kernels.gyroscopic(V, J, m)
    np.add.at(g, ia, f[:, :6])
    np.add.at(g, ia + 1, f[:, 6:])
    return g


def newton_residual_numpy(xi: FloatArray, JJ: FloatArray, V: FloatArray, lam: FloatArray, ia: np.ndarray,
                          in_edge: np.ndarray, in_comp: np.ndarray, in_row: np.ndarray, in_ref: FloatArray,
                          s_phi: FloatArray, s_data: FloatArray, s_node: np.ndarray, s_row: np.ndarray,
                          C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray, damped: bool, J: FloatArray,
                          mass: FloatArray, q: FloatArray, load_idx: np.ndarray, load_vec: FloatArray,
                          load_spatial: np.ndarray, load_scale: FloatArray
                          ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``newton_residual`` in array expressions: g (``edge_forces_numpy`` + ``loads.add_nodal_loads``), and per
    internal row r (edge node a = ia[in_edge[r]], component k): Φ = ξ_ak − ref, B v = JJ_ak [v_a; v_{a+1}], Bᵀλ
    scattered; per support row: Φ given, B v = data · v_node."""
    g = edge_forces_numpy(xi, JJ, V, ia, C_ds, Cw0, Cd_ds, damped, J, mass)
    if load_idx.size:
        loads.add_nodal_loads(g, q, load_idx, load_vec.copy(), load_spatial, load_scale)
    m = lam.shape[0]
    f, phi, bv = np.zeros_like(g), np.zeros(m), np.zeros(m)
    a = ia[in_edge]
    rows = JJ[a, in_comp]  # (r, 12)
    phi[in_row] = xi[a, in_comp] - in_ref
    bv[in_row] = np.einsum("ri,ri->r", rows[:, :6], V[a]) + np.einsum("ri,ri->r", rows[:, 6:], V[a + 1])
    np.add.at(f, a, rows[:, :6] * lam[in_row, None])
    np.add.at(f, a + 1, rows[:, 6:] * lam[in_row, None])
    phi[s_row] = s_phi
    bv[s_row] = np.einsum("ri,ri->r", s_data, V[s_node])
    np.add.at(f, s_node, s_data * lam[s_row, None])
    return g, f, phi, bv


def rod_residual_numpy(q: FloatArray, V: FloatArray, lam: FloatArray, ia: np.ndarray, in_edge: np.ndarray,
                       in_comp: np.ndarray, in_row: np.ndarray, in_ref: FloatArray, s_nodes: np.ndarray,
                       base_p: FloatArray, base_R: FloatArray, base_x: FloatArray, row_entry: np.ndarray,
                       row_rot: np.ndarray, row_dir: FloatArray, s_node: np.ndarray, s_row: np.ndarray,
                       C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray, damped: bool, J: FloatArray,
                       mass: FloatArray, load_idx: np.ndarray, load_vec: FloatArray, load_spatial: np.ndarray,
                       load_scale: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``rod_residual``: ``kernels.edge_kinematics``, ``support_eval_numpy``, ``newton_residual_numpy``."""
    xi, JJ = kernels.edge_kinematics(q)
    s_phi, s_data, _ = support_eval_numpy(q, s_nodes, base_p, base_R, base_x, row_entry, row_rot, row_dir)
    return newton_residual_numpy(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_phi, s_data, s_node, s_row,
                                 C_ds, Cw0, Cd_ds, damped, J, mass, q, load_idx, load_vec, load_spatial, load_scale)


def ga_rod_evaluate_numpy(q: FloatArray, lam: FloatArray, th: FloatArray, Bnu: FloatArray, base: FloatArray,
                          bh2: float, v_base: FloatArray, c_v: float, vd_base: FloatArray, c_vd: float,
                          mdiag: FloatArray, s: float, gp: float, m: int, idx2: bool,
                          *rod: object) -> tuple[object, ...]:
    """``ga_rod_evaluate``: ``ga_iterate_numpy``, ``groups.s3r3.retract_s3r3``, ``rod_residual_numpy``,
    ``ga_rhs_numpy``."""
    theta, v1, vd1 = ga_iterate_numpy(th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd)
    nn = q.shape[0]
    q1 = retract_s3r3(q, theta.reshape(nn, 6))
    g, f, phi, bv = rod_residual_numpy(q1, v1.reshape(nn, 6), lam, *rod)  # type: ignore[arg-type]
    rhs, g_max, mvd_max = ga_rhs_numpy(mdiag, vd1, g.ravel(), f.ravel(), phi, bv, s, gp, m, idx2)
    return theta, v1, vd1, q1, rhs, g_max, mvd_max, float(np.abs(theta).max())

def ga_rod_iterate_numpy(lub: FloatArray, kl: int, ku: int, piv: np.ndarray, perm: np.ndarray, rhs: FloatArray,
                         th: FloatArray, lam1: FloatArray, nu: FloatArray, Bnu: FloatArray, bn_ptr: np.ndarray,
                         bn_idx: np.ndarray, bn_val: FloatArray, q: FloatArray, base: FloatArray, bh2: float,
                         v_base: FloatArray, c_v: float, vd_base: FloatArray, c_vd: float, mdiag: FloatArray, s: float,
                         gp: float, m: int, idx2: bool, *rod: object) -> tuple[object, ...]:
    """``ga_rod_iterate``: ``ga_solve_update_numpy`` then ``ga_rod_evaluate_numpy``."""
    corr = ga_solve_update_numpy(lub, kl, ku, piv, perm, rhs, th, lam1, nu, Bnu, bn_ptr, bn_idx, bn_val, s, m, idx2)
    _, th2, lam2, _, Bnu2 = corr[:5]
    return (*corr, *ga_rod_evaluate_numpy(q, lam2, th2, Bnu2, base, bh2, v_base, c_v, vd_base, c_vd,  # type: ignore[arg-type]
                                          mdiag, s, gp, m, idx2, *rod))

def jacobian_data_numpy(JJ: FloatArray, rows: np.ndarray, s_data: FloatArray, perm: np.ndarray) -> FloatArray:
    """``jacobian_data``: [JJ_e[rows] for every edge, then the support entries], gathered by ``perm``."""
    return np.concatenate([JJ[:, rows, :].ravel(), s_data.ravel()])[perm]


def pair_H_numpy(xi: FloatArray, s: FloatArray, JJ: FloatArray, *_: FloatArray) -> FloatArray:
    """``pair_H``: [H(−ξ, s); H(ξ, s)] JJ with H = ``groups.tangent_derivatives.tangent_inv_transpose_derivative``
    (the coefficients c, d, d1 of the compiled kernel are not needed)."""
    H = np.concatenate([tangent_inv_transpose_derivative(-xi, s), tangent_inv_transpose_derivative(xi, s)], axis=1)
    return H @ JJ  # type: ignore[no-any-return]


def band_ldl_pivots_numpy(ab: FloatArray) -> FloatArray:
    """``band_ldl_pivots``: the pivots of Gaussian elimination without pivoting on the dense symmetric matrix
    (d_j = A_jj after the rank-one Schur updates of the columns before j)."""
    bw1, n = ab.shape
    A = np.zeros((n, n))
    for k in range(bw1):
        i = np.arange(n - k)
        A[i + k, i] = ab[k, : n - k]
        A[i, i + k] = ab[k, : n - k]
    d = np.empty(n)
    for j in range(n):
        d[j] = A[j, j]
        A[j + 1:, j + 1:] -= np.outer(A[j + 1:, j], A[j, j + 1:]) / d[j]
    return d


# --------------------------------------------------------------------------- kernel / reference pairs
def _configuration(rng: np.random.Generator, n: int = 12) -> FloatArray:
    """(n, 7) frames along a bent, twisted line: edges of length ~0.1, turning by ~1 rad."""
    out = np.empty((n, 7))
    out[0] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    for i in range(1, n):
        step = gk.s3r3_exp(np.concatenate([0.6 * rng.normal(size=3), [0.0, 0.0, 0.1] + 0.02 * rng.normal(size=3)])[None])
        out[i] = gk.s3r3_compose(out[i - 1:i], step)[0]
    return out


def _forces_sample(rng: np.random.Generator, damped: bool) -> tuple:  # type: ignore[type-arg]
    xi, JJ = kernels.edge_kinematics(_configuration(rng))
    ne = xi.shape[0]
    C_ds, Cd_ds = rng.uniform(1.0, 10.0, (ne, 6)), rng.uniform(0.1, 1.0, (ne, 6))
    return (xi, JJ, rng.normal(size=(ne + 1, 6)), C_ds, rng.normal(size=(ne, 6)), Cd_ds if damped else None,
            rng.uniform(0.1, 1.0, (ne + 1, 3)), rng.uniform(0.5, 2.0, ne + 1))


def _energy_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    return (rng.normal(size=(11, 6)), rng.uniform(0.05, 0.2, 11), rng.normal(size=(11, 6)), rng.uniform(1.0, 9.0, 6))


def _loads_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    idx = np.array([2, 2, 5, 0], dtype=np.intp)
    return (rng.normal(size=(6, 6)), _configuration(rng, 6), idx, rng.normal(size=(4, 6)),
            np.array([True, False, True, True]), rng.normal(size=4))


def _returning(add):  # type: ignore[no-untyped-def]
    """An in-place ``add_nodal_loads`` as a function returning the updated copy of ``body``."""
    def apply(body, *args):  # type: ignore[no-untyped-def]
        body = body.copy()
        add(body, *args)
        return body
    return apply


def _support_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    """A bent rod of 12 nodes with supports at nodes 0, 5, 11 (bases turned by ~0.5 rad from the nodes), 3
    rotation and 3 translation rows at node 0, 2 + 1 at node 5, 1 rotation row at node 11 (unit directions)."""
    q = _configuration(rng)
    nodes = np.array([0, 5, 11], dtype=np.int64)
    base = gk.s3r3_compose(q[nodes], gk.s3r3_exp(0.5 * rng.normal(size=(3, 6))))
    row_entry = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 2], dtype=np.int64)
    row_rot = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 1], dtype=np.bool_)
    row_dir = rng.normal(size=(10, 3))
    row_dir /= np.linalg.norm(row_dir, axis=1, keepdims=True)
    return (q, nodes, base[:, :4].copy(), quat_to_matrix(base[:, :4]), base[:, 4:].copy(), row_entry, row_rot,
            row_dir)


def _residual_parts(rng: np.random.Generator, ne: int, m_int: int, m_sup: int) -> dict[str, object]:
    """Material, velocity and load arguments of the fused residual for ``ne`` edges (13 nodes: loads on 3, one
    spatial, one node twice), λ for m_int internal rows (components 3, 4, 5 of each edge) + m_sup support rows."""
    nn = ne + 1
    in_edge = np.repeat(np.arange(ne, dtype=np.int64), 3)[:m_int]
    return {
        "V": rng.normal(size=(nn, 6)), "lam": rng.normal(size=m_int + m_sup), "ia": np.arange(ne, dtype=np.int64),
        "in_edge": in_edge, "in_comp": np.tile(np.array([3, 4, 5], dtype=np.int64), ne)[:m_int],
        "in_row": np.arange(m_int, dtype=np.int64), "in_ref": 0.1 * rng.normal(size=m_int),
        "s_row": np.arange(m_int, m_int + m_sup, dtype=np.int64),
        "C_ds": rng.uniform(1.0, 10.0, (ne, 6)), "Cw0": rng.normal(size=(ne, 6)),
        "Cd_ds": rng.uniform(0.1, 1.0, (ne, 6)), "damped": True, "J": rng.uniform(0.1, 1.0, (nn, 3)),
        "mass": rng.uniform(0.5, 2.0, nn), "load_idx": np.array([2, 2, 7], dtype=np.int64),
        "load_vec": rng.normal(size=(3, 6)), "load_spatial": np.array([True, False, True]),
        "load_scale": rng.normal(size=3),
    }


def _newton_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    q, nodes, bp, bR, bx, entry, rot, rdir = _support_sample(rng)
    xi, JJ = kernels.edge_kinematics(q)
    s_phi, s_data, _ = support_eval_numpy(q, nodes, bp, bR, bx, entry, rot, rdir)
    a = _residual_parts(rng, q.shape[0] - 1, 30, entry.size)
    return (xi, JJ, a["V"], a["lam"], a["ia"], a["in_edge"], a["in_comp"], a["in_row"], a["in_ref"], s_phi, s_data,
            nodes[entry], a["s_row"], a["C_ds"], a["Cw0"], a["Cd_ds"], a["damped"], a["J"], a["mass"], q,
            a["load_idx"], a["load_vec"], a["load_spatial"], a["load_scale"])


def _rod_residual_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    q, nodes, bp, bR, bx, entry, rot, rdir = _support_sample(rng)
    a = _residual_parts(rng, q.shape[0] - 1, 30, entry.size)
    return (q, a["V"], a["lam"], a["ia"], a["in_edge"], a["in_comp"], a["in_row"], a["in_ref"], nodes, bp, bR, bx,
            entry, rot, rdir, nodes[entry], a["s_row"], a["C_ds"], a["Cw0"], a["Cd_ds"], a["damped"], a["J"],
            a["mass"], a["load_idx"], a["load_vec"], a["load_spatial"], a["load_scale"])


def _ga_rod_sample(rng: np.random.Generator, idx2: bool) -> tuple:  # type: ignore[type-arg]
    """A bent rod with supports (``_rod_residual_sample``) and a generalized-α iterate of ~1e-2 rad per node."""
    q, _, lam, *rod = _rod_residual_sample(rng)
    n, m = 6 * q.shape[0], lam.size
    th, base = 1e-2 * rng.normal(size=n), 1e-2 * rng.normal(size=n)
    return (q, lam, th, 1e-3 * rng.normal(size=n), base, 2.3e-6, rng.normal(size=n), 4.1e-3, rng.normal(size=n),
            1.05, rng.uniform(0.5, 2.0, n), 0.37, 0.81, m, idx2, *rod)

def _ga_rod_iterate_sample(rng: np.random.Generator, idx2: bool) -> tuple:  # type: ignore[type-arg]
    """Band LU factors of a random matrix of the size of the rod's unknowns, B_n's CSR arrays and a rod iterate."""
    q, lam, th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd, mdiag, s, gp, m, idx2, *rod = _ga_rod_sample(rng, idx2)
    n = th.size
    B = np.where(rng.random((m, n)) < 0.2, rng.normal(size=(m, n)), 0.0)
    ptr = np.concatenate([[0], np.cumsum((B != 0).sum(axis=1))]).astype(np.int64)
    idx = np.nonzero(B)[1].astype(np.int64)
    lub, kl, ku, piv, perm, _ = band_factors_sample(rng, n=n + m + (m if idx2 else 0))
    rhs = 1e-3 * rng.normal(size=perm.size)
    return (lub, kl, ku, piv, perm, rhs, th, lam, rng.normal(size=m), Bnu, ptr, idx, B[B != 0], q, base, bh2, v_base,
            c_v, vd_base, c_vd, mdiag, s, gp, m, idx2, *rod)

def _jacobian_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    _, JJ = kernels.edge_kinematics(_configuration(rng))
    rows = np.array([3, 4, 5], dtype=np.int64)
    s_data = rng.normal(size=(7, 6))
    return JJ, rows, s_data, rng.permutation(JJ.shape[0] * 36 + 42).astype(np.int64)


def _pair_H_sample(rng: np.random.Generator, angle_scale: float) -> tuple:  # type: ignore[type-arg]
    """Edges bent by ~1 rad (or scaled to ~1e-3 rad: the Taylor branches), a stress s, and T⁻¹'s coefficients."""
    xi, JJ = kernels.edge_kinematics(_configuration(rng, 14))
    xi[:, :3] *= angle_scale
    c, d, d1 = coefficients(np.sqrt(np.einsum("ei,ei->e", xi[:, :3], xi[:, :3])))
    return xi, rng.normal(size=xi.shape), JJ, c, d, d1


def _ldl_sample(rng: np.random.Generator, n: int = 40, bw: int = 7) -> tuple[FloatArray]:
    """Lower band storage of a symmetric indefinite band matrix (diagonal ±(bw + 2): no near-zero pivot)."""
    ab = rng.normal(size=(bw + 1, n))
    ab[0] = (bw + 2.0) * np.where(rng.random(n) < 0.3, -1.0, 1.0) + rng.normal(size=n)
    for k in range(1, bw + 1):
        ab[k, n - k:] = 0.0
    return (ab,)


TWINS: tuple[Twin, ...] = (
    Twin("edge_kinematics", edge_kinematics, kernels.edge_kinematics, lambda rng: (_configuration(rng),)),
    Twin("internal_forces", internal_forces, kernels.internal_forces, lambda rng: _forces_sample(rng, False), 1e-12),
    Twin("internal_forces (damped)", internal_forces, kernels.internal_forces, lambda rng: _forces_sample(rng, True),
         1e-12),
    Twin("elastic_energy", elastic_energy, kernels.elastic_energy, _energy_sample),
    Twin("rotate_pairs", rotate_pairs, loads.rotate_pairs,
         lambda rng: (_configuration(rng, 8)[:, :4], rng.normal(size=(8, 6)))),
    Twin("add_nodal_loads", _returning(add_nodal_loads), _returning(loads.add_nodal_loads), _loads_sample),
    Twin("support_eval", support_eval, support_eval_numpy, _support_sample, 1e-12),
    Twin("newton_residual", newton_residual, newton_residual_numpy, _newton_sample, 1e-12),
    Twin("rod_residual", rod_residual, rod_residual_numpy, _rod_residual_sample, 1e-12),
    Twin("ga_rod_evaluate (index 3)", ga_rod_evaluate, ga_rod_evaluate_numpy, lambda rng: _ga_rod_sample(rng, False),
         1e-12),
    Twin("ga_rod_evaluate (index 2)", ga_rod_evaluate, ga_rod_evaluate_numpy, lambda rng: _ga_rod_sample(rng, True),
         1e-12),
    Twin("ga_rod_iterate (index 3)", ga_rod_iterate, ga_rod_iterate_numpy, lambda rng: _ga_rod_iterate_sample(rng, False),
         1e-10),
    Twin("ga_rod_iterate (index 2)", ga_rod_iterate, ga_rod_iterate_numpy, lambda rng: _ga_rod_iterate_sample(rng, True),
         1e-10),
    Twin("s3r3_tangent_blocks", s3r3_tangent_blocks, tangent_se3,
         lambda rng: (gk.tangents(rng),)),
    Twin("jacobian_data", jacobian_data, jacobian_data_numpy, _jacobian_sample),
    Twin("pair_H", pair_H, pair_H_numpy, lambda rng: _pair_H_sample(rng, 1.0), 1e-12),
    Twin("pair_H (small angles)", pair_H, pair_H_numpy, lambda rng: _pair_H_sample(rng, 1e-3), 1e-12),
    Twin("band_ldl_pivots", band_ldl_pivots, band_ldl_pivots_numpy, _ldl_sample, 1e-11),
)
"""Every compiled rod kernel with its numpy reference and a sample (``step_residuals`` has none: it is
checked against the driver's generic evaluation in ``tests/test_jit.py``; the helpers named in the module
docstring are checked through their callers)."""
