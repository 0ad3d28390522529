"""Compiled (numba) kernels of a structure's step core, beside their numpy references: the joints' rows of Φ and B
in one pass (``joint_eval``; reference ``joint_eval_numpy``, the array form of ``JointRows.phi``/``jacobian_data``),
the fused Newton residual of a structure of rods (``structure_residual``; reference ``structure_residual_numpy``)
and of a structure of corotational elements (``corot_residual``), and the Euler–Poincaré terms of a CSR mass
(``gyroscopic``; reference ``gyroscopic_numpy``). ``TWINS`` pairs them for ``tests/test_jit.py``.

Per joint k (joints.py, module docstring): pQ = p̄_a p_b c̄₀ (the quaternion of Q = R_aᵀ R_b C₀ᵀ), ψ = log pQ, then
per row with b = T(ψ)⁻ᵀ n = T(−ψ)⁻¹ n

    translation row  Φ = d·(x_b − x_a)     B = [0, −(R_aᵀ d)ᵀ | 0, (R_bᵀ d)ᵀ]
    rotation row     Φ = n·ψ               B = [−(Q b)ᵀ, 0 | (C₀ᵀ b)ᵀ, 0]

``corot_residual`` has no twin of its own: its parts are twins here and in ``_corot_compiled`` (the element pass)
and ``rods.compiled_kernels`` (support rows, nodal loads), and the whole is checked against the protocol methods
of ``CorotationalStructure`` in ``tests/test_frames_corotational.py``; ``_joint_rows`` is checked through
``structure_residual``.
"""

from __future__ import annotations

import numpy as np

from lgbeam._numba import Twin, njit
from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods import compiled_kernels as rk
from lgbeam.groups import compiled_kernels as gk
from lgbeam.groups.base import cross, quat_conj, quat_mul, quat_to_matrix
from lgbeam.groups.so3 import quat_log, tangent_inv_so3

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
        r0, r1, r2, r3 = rk.qmul(q[b, 0], q[b, 1], q[b, 2], q[b, 3], c0[j, 0], -c0[j, 1], -c0[j, 2], -c0[j, 3])
        p, w0, w1, w2, tc[j] = rk.product_log(q[a, 0], -q[a, 1], -q[a, 2], -q[a, 3], r0, r1, r2, r3)  # p̄_a p_b c̄₀
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
    ``newton_residual`` over every edge of every rod: edge e joins the global nodes ia[e] and ia[e] + 1;
    internal rows (edge, strain component, row, reference); support rows (merged, global nodes); joint rows).
    Springs are not included (the caller adds them)."""
    xi, JJ = rk.edge_kinematics(q)  # every consecutive pair of nodes; the edges are the pairs ia
    if s_row.shape[0]:
        s_phi, s_data, _ = rk.support_eval(q, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir)
        s_node = s_nodes[s_entry]
    else:
        s_phi, s_data, s_node = np.zeros(0), np.zeros((0, 6)), s_row
    g, f, phi, bv = rk.newton_residual(xi, JJ, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_phi, s_data, s_node,
                                    s_row, C_ds, Cw0, Cd_ds, damped, J, mass, q, load_idx, load_vec, load_spatial,
                                    load_scale)
    _joint_rows(q, V, lam, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row, f, phi, bv)
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
def gyroscopic(V, m_ptr, m_idx, m_val, g):  # type: ignore[no-untyped-def]
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
    gyroscopic(V, m_ptr, m_idx, m_val, g)
    if load_idx.shape[0]:
        rk.nodal_loads_into(g, q, load_idx, load_vec, load_spatial, load_scale)
    f = np.zeros_like(g)
    phi = np.zeros(lam.shape[0])
    bv = np.zeros(lam.shape[0])
    if s_row.shape[0]:
        s_phi, s_data, _ = rk.support_eval(q, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir)
        rk.node_rows(s_phi, s_data, s_nodes[s_entry], s_row, V, lam, f, phi, bv)
    _joint_rows(q, V, lam, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row, f, phi, bv)
    return g, f, phi, bv, energy




# ---------------------------------------------------------------------- numpy references and twins (tests/test_jit.py)
def joint_eval_numpy(q: FloatArray, ia: np.ndarray, ib: np.ndarray, c0: FloatArray, row_entry: np.ndarray,
                     row_rot: np.ndarray, row_dir: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``joint_eval`` in array expressions (``JointRows.phi``/``jacobian_data``): pQ = p̄_a p_b c̄₀, ψ = log pQ,
    b = T(ψ)⁻ᵀ n; rotation rows [−Q b, 0 | C₀ᵀ b, 0], translation rows [0, −R_aᵀ d | 0, R_bᵀ d]."""
    pa, pb = q[ia, :4], q[ib, :4]
    pq = quat_mul(quat_conj(pa), quat_mul(pb, quat_conj(c0)))
    psi = quat_log(pq)
    k, rot, d = row_entry, np.asarray(row_rot, dtype=bool), row_dir
    b = np.einsum("mji,mj->mi", tangent_inv_so3(psi)[k], d)
    dx = q[ib, 4:] - q[ia, 4:]
    phi = np.where(rot, np.einsum("mi,mi->m", d, psi[k]), np.einsum("mi,mi->m", d, dx[k]))
    data = np.zeros((k.size, 12))
    kr, kt = k[rot], k[~rot]
    data[rot, 0:3] = -np.einsum("mij,mj->mi", quat_to_matrix(pq[kr]), b[rot])
    data[rot, 6:9] = np.einsum("mji,mj->mi", quat_to_matrix(c0[kr]), b[rot])
    data[~rot, 3:6] = -np.einsum("mji,mj->mi", quat_to_matrix(pa[kt]), d[~rot])
    data[~rot, 9:12] = np.einsum("mji,mj->mi", quat_to_matrix(pb[kt]), d[~rot])
    return phi, data


def gyroscopic_numpy(V: FloatArray, m_ptr: np.ndarray, m_idx: np.ndarray, m_val: FloatArray,
                     g: FloatArray) -> FloatArray:
    """``gyroscopic`` (returning the updated copy of g): (π, p) = M v per node, g += (W×π + U×p, W×p)."""
    import scipy.sparse as sp

    n = V.shape[0]
    P = (sp.csr_array((m_val, m_idx, m_ptr), shape=(6 * n, 6 * n)) @ V.ravel()).reshape(n, 6)
    W, U = V[:, :3], V[:, 3:]
    return g + np.concatenate([cross(W, P[:, :3]) + cross(U, P[:, 3:]), cross(W, P[:, 3:])], axis=1)


def structure_residual_numpy(q: FloatArray, V: FloatArray, lam: FloatArray, ia: np.ndarray,
                             C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray, damped: bool, J: FloatArray,
                             mass: FloatArray, in_edge: np.ndarray, in_comp: np.ndarray, in_row: np.ndarray,
                             in_ref: FloatArray, s_nodes: np.ndarray, base_p: FloatArray, base_R: FloatArray,
                             base_x: FloatArray, s_entry: np.ndarray, s_rot: np.ndarray, s_dir: FloatArray,
                             s_row: np.ndarray, j_ia: np.ndarray, j_ib: np.ndarray, j_c0: FloatArray,
                             j_entry: np.ndarray, j_rot: np.ndarray, j_dir: FloatArray, j_row: np.ndarray,
                             load_idx: np.ndarray, load_vec: FloatArray, load_spatial: np.ndarray,
                             load_scale: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``structure_residual``: the rods' ``rod_residual_numpy`` over the edges ia, then the joint rows
    (``joint_eval_numpy``: Φ, B v = data · [v_a; v_b], Bᵀλ scattered)."""
    g, f, phi, bv = rk.rod_residual_numpy(q, V, lam, ia, in_edge, in_comp, in_row, in_ref, s_nodes, base_p, base_R,
                                          base_x, s_entry, s_rot, s_dir, s_nodes[s_entry], s_row, C_ds, Cw0, Cd_ds,
                                          damped, J, mass, load_idx, load_vec, load_spatial, load_scale)
    j_phi, j_data = joint_eval_numpy(q, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir)
    a, b = j_ia[j_entry], j_ib[j_entry]
    phi[j_row] = j_phi
    bv[j_row] = np.einsum("ri,ri->r", j_data[:, :6], V[a]) + np.einsum("ri,ri->r", j_data[:, 6:], V[b])
    np.add.at(f, a, j_data[:, :6] * lam[j_row, None])
    np.add.at(f, b, j_data[:, 6:] * lam[j_row, None])
    return g, f, phi, bv


def _frames(rng: np.random.Generator, n: int) -> FloatArray:
    """(n, 7) random frames: rotations of ~1 rad, positions ~1."""
    return gk.s3r3_exp(rng.normal(size=(n, 6)))  # type: ignore[no-any-return]


def _chain(rng: np.random.Generator, n: int) -> FloatArray:
    """(n, 7) frames along a bent, twisted line (edges ~0.1 long, turning by ~0.6 rad)."""
    steps = gk.s3r3_exp(np.concatenate([0.6 * rng.normal(size=(n - 1, 3)),
                                        [0.0, 0.0, 0.1] + 0.02 * rng.normal(size=(n - 1, 3))], axis=1))
    out = np.empty((n, 7))
    out[0] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    for i in range(1, n):
        out[i] = gk.s3r3_compose(out[i - 1:i], steps[i - 1:i])[0]
    return out


def _joint_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    """Three joints between 8 random nodes (C₀ turned by ~0.3 rad): rigid (6 rows), hinge (5), ball (3)."""
    q = _frames(rng, 8)
    ia, ib = np.array([0, 2, 5], dtype=np.int64), np.array([1, 3, 7], dtype=np.int64)
    c0 = gk.s3r3_exp(np.concatenate([0.3 * rng.normal(size=(3, 3)), np.zeros((3, 3))], axis=1))[:, :4].copy()
    entry = np.array([0] * 6 + [1] * 5 + [2] * 3, dtype=np.int64)
    rot = np.array([1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0], dtype=np.bool_)
    d = rng.normal(size=(14, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return q, ia, ib, c0, entry, rot, d


def _gyroscopic_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    """A symmetric block-tridiagonal mass (6 × 6 blocks, 7 nodes) in CSR, velocities and a force to add to."""
    import scipy.sparse as sp

    n = 7
    band = sp.csr_array(np.kron(np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1), np.ones((6, 6))))
    M = sp.csr_array(band.multiply(rng.normal(size=(6 * n, 6 * n))))
    M = sp.csr_array(M + M.T)
    M.sort_indices()
    return (rng.normal(size=(n, 6)), M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data.copy(),
            rng.normal(size=(n, 6)))


def _structure_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    """Two rods of 6 nodes each (nodes 0–5, 6–11; edges ia = 0…4, 6…10), supports at nodes 0 and 11, a rigid
    joint between nodes 5 and 6, the rods' internal rows (components 3, 4, 5 of each edge), nodal loads."""
    q, V = _chain(rng, 12), rng.normal(size=(12, 6))
    ia = np.concatenate([np.arange(5), np.arange(6, 11)]).astype(np.int64)
    in_edge = np.repeat(np.arange(10, dtype=np.int64), 3)
    in_comp = np.tile(np.array([3, 4, 5], dtype=np.int64), 10)
    s_nodes, s_entry = np.array([0, 11], dtype=np.int64), np.array([0, 0, 0, 1, 1], dtype=np.int64)
    s_rot = np.array([1, 0, 0, 1, 0], dtype=np.bool_)
    s_dir = np.eye(3)[[0, 1, 2, 2, 0]].astype(float)
    base = gk.s3r3_compose(q[s_nodes], gk.s3r3_exp(0.3 * rng.normal(size=(2, 6))))
    j_c0 = gk.s3r3_exp(np.concatenate([0.3 * rng.normal(size=(1, 3)), np.zeros((1, 3))], axis=1))[:, :4].copy()
    j_entry, j_rot = np.zeros(6, dtype=np.int64), np.array([1, 1, 1, 0, 0, 0], dtype=np.bool_)
    m = 30 + 5 + 6
    rows = rng.permutation(m).astype(np.int64)
    ne = ia.size
    return (q, V, rng.normal(size=m), ia, rng.uniform(1.0, 10.0, (ne, 6)), rng.normal(size=(ne, 6)),
            rng.uniform(0.1, 1.0, (ne, 6)), True, rng.uniform(0.1, 1.0, (12, 3)), rng.uniform(0.5, 2.0, 12),
            in_edge, in_comp, rows[:30], 0.1 * rng.normal(size=30), s_nodes, base[:, :4].copy(),
            quat_to_matrix(base[:, :4]), base[:, 4:].copy(), s_entry, s_rot, s_dir, rows[30:35],
            np.array([5], dtype=np.int64), np.array([6], dtype=np.int64), j_c0, j_entry, j_rot, np.eye(3)[[0, 1, 2] * 2],
            rows[35:], np.array([3, 9], dtype=np.int64), rng.normal(size=(2, 6)), np.array([True, False]),
            rng.normal(size=2))


def _returning_g(fn):  # type: ignore[no-untyped-def]
    """An in-place ``gyroscopic`` as a function returning the updated copy of g."""
    def apply(V, m_ptr, m_idx, m_val, g):  # type: ignore[no-untyped-def]
        g = g.copy()
        fn(V, m_ptr, m_idx, m_val, g)
        return g
    return apply


TWINS: tuple[Twin, ...] = (
    Twin("joint_eval", joint_eval, joint_eval_numpy, _joint_sample, 1e-12),
    Twin("gyroscopic (CSR mass)", _returning_g(gyroscopic), gyroscopic_numpy, _gyroscopic_sample),
    Twin("structure_residual", structure_residual, structure_residual_numpy, _structure_sample, 1e-12),
)
"""The structure kernels with their numpy references (``corot_residual``: module docstring)."""
