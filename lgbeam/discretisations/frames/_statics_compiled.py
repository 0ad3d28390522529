"""The compiled statics core of a corotational frame (issue 34 item 3): the static residual, the saddle-point (KKT)
matrix assembled in one pass straight into LAPACK band storage, its banded LU, the static retraction and the whole
Newton corrector of ``rods.statics._newton`` (load or arc-length control, affine-covariant damping) in one call.
``TWINS`` pairs the kernels with numpy references for ``tests/test_jit.py``.

Equations (``rods.statics``, ``rods.statics_core``; symbols of ``frames.corotational``), at load factor μ:

    R(q, λ, μ) = Σ_e g_e(q) − μ f(q) + B(q)ᵀλ,   Φ(q) = 0
    A = [[K_t, Bᵀ], [B, 0]],   K_t = Σ_e K_e − μ ∂f/∂w + Z(λ),   Z = ∂(Bᵀλ)/∂w

* K_e: the element tangent of ``_corot_compiled`` (the complex step of the closed form, exact to round-off).
* ∂f/∂w of spatial nodal loads (M, F): per node [[ (RᵀM)^, 0 ], [ (RᵀF)^, 0 ]] (``rods.tangents.load_node_blocks``);
  follower (body-frame) loads: 0.
* Z of the support and joint rows: the central difference of their compiled Bᵀλ (``rods._compiled.support_eval``,
  ``_compiled.joint_eval``) along q ∘ exp(±h e_k) of the entity's nodes, h = 1e-6 rad (1e-6 of the structure's size
  for translations): truncation O(h²) ≈ 1e-12, round-off 1e-16/h ≈ 1e-10 relative to |Bᵀλ|, itself a small part of
  K_t (``tests/test_statics_compiled.py`` checks the whole K_t against central differences of R).
* Order and storage: entry (i, j) of A at ab[2b + π(i) − π(j), π(j)] (b the half-bandwidth, π the fixed
  bandwidth-reducing order of ``statics_core.BandedKKT``), LAPACK ``dgbtrf`` storage with b rows of fill on top.
* Equilibration A' = S A S, S = diag(1/√max_i |A_ij|) (column maxima), then the banded LU with partial pivoting
  (``band_lu``: LAPACK's unblocked ``dgbtf2``; ``band_solve``: ``dgbtrs``), as ``statics_core.KKTFactor``.
* Retraction (``CorotationalStructure.static_retraction``): p_i ← p_i exp(ω_i), every chord c turned by
  φ = c × δc/|c|² and stretched by ε = c·δc/|c|², positions summed from each member's anchor node.
* Newton (``rods.statics._newton``, step for step): the bordered solve of the arc-length constraint
  c·d + c_μ(μ − μ₀) = 0, the damping α = 1, ½, … until the simplified correction shrinks by (1 − α/4), the
  stop max(|R|/F, |Φ|/L) ≤ tol and |a| ≤ tol, or a correction below STEP_TOL with the residual near tol.
"""

from __future__ import annotations

import numpy as np

from lgbeam._numba import Twin, njit
from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods import compiled_kernels as rk

from ._compiled import joint_eval
from ._corot_compiled import CS_STEP, _element, _nodal_forces, _perturbed, element_pass

FD_STEP = 1e-6
STEP_TOL = 1e-11  # rods.statics.STEP_TOL
# status codes of ``newton`` (rods.statics reasons)
CONVERGED, SINGULAR, ARC_TANGENT, DAMPING, NONFINITE, MAX_ITER = 0, 1, 2, 3, 4, 5


# ---------------------------------------------------------------------- banded LU (LAPACK dgbtf2 / dgbtrs)
@njit
def band_lu(ab, bw, piv):  # type: ignore[no-untyped-def]
    """LU with partial pivoting of a band matrix with kl = ku = bw in LAPACK ``dgbtrf`` storage (3bw + 1, n), in
    place (LAPACK's unblocked ``dgbtf2``); piv (n,) 0-based row interchanges. Returns 0, or j + 1 for an exactly
    zero pivot in column j."""
    n = ab.shape[1]
    kv = 2 * bw
    info = 0
    ju = 0
    for j in range(n):
        if j + kv < n:
            for i in range(bw):
                ab[i, j + kv] = 0.0
        km = min(bw, n - 1 - j)
        jp = 0
        big = abs(ab[kv, j])
        for i in range(1, km + 1):
            v = abs(ab[kv + i, j])
            if v > big:
                big, jp = v, i
        piv[j] = j + jp
        if ab[kv + jp, j] != 0.0:
            ju = max(ju, min(j + bw + jp, n - 1))
            if jp != 0:
                for c in range(j, ju + 1):
                    t = ab[kv + jp + j - c, c]
                    ab[kv + jp + j - c, c] = ab[kv + j - c, c]
                    ab[kv + j - c, c] = t
            if km > 0:
                inv = 1.0 / ab[kv, j]
                for i in range(1, km + 1):
                    ab[kv + i, j] *= inv
                for c in range(j + 1, ju + 1):
                    u = ab[kv + j - c, c]
                    if u != 0.0:
                        for i in range(1, km + 1):
                            ab[kv + i + j - c, c] -= ab[kv + i, j] * u
        elif info == 0:
            info = j + 1
    return info


@njit
def band_solve(lu, bw, piv, b):  # type: ignore[no-untyped-def]
    """x = A⁻¹ b in place from ``band_lu``'s factors (LAPACK ``dgbtrs``, no transpose); b (n,)."""
    n = lu.shape[1]
    kv = 2 * bw
    for j in range(n - 1):
        lm = min(bw, n - 1 - j)
        p = piv[j]
        if p != j:
            t = b[p]
            b[p] = b[j]
            b[j] = t
        bj = b[j]
        if bj != 0.0:
            for i in range(1, lm + 1):
                b[j + i] -= lu[kv + i, j] * bj
    for j in range(n - 1, -1, -1):
        b[j] /= lu[kv, j]
        bj = b[j]
        if bj != 0.0:
            for i in range(max(0, j - kv), j):
                b[i] -= lu[kv + i - j, j] * bj


# ---------------------------------------------------------------------- residual and tangent
@njit
def _qexp(w0, w1, w2):  # type: ignore[no-untyped-def]
    """Unit quaternion of a rotation vector (``corotational.qexp``)."""
    n = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    half = 0.5 * n
    s = np.sin(half) / n if n > 1e-12 else 0.5 - n * n / 48.0
    return np.cos(half), s * w0, s * w1, s * w2


@njit
def _move(q, i, k, h, out):  # type: ignore[no-untyped-def]
    """out (7,) = q_i ∘ exp(h e_k), k < 3 a rotation (p exp(h e_k)), else a translation x + h R(p) e_{k−3}."""
    p0, p1, p2, p3 = q[i, 0], q[i, 1], q[i, 2], q[i, 3]
    for j in range(7):
        out[j] = q[i, j]
    if k < 3:
        e = _qexp(h if k == 0 else 0.0, h if k == 1 else 0.0, h if k == 2 else 0.0)
        r = rk.qmul(p0, p1, p2, p3, e[0], e[1], e[2], e[3])
        for j in range(4):
            out[j] = r[j]
    else:
        v = (1.0 if k == 3 else 0.0, 1.0 if k == 4 else 0.0, 1.0 if k == 5 else 0.0)
        x0, x1, x2 = _rot(p0, p1, p2, p3, v[0], v[1], v[2])
        out[4] += h * x0
        out[5] += h * x1
        out[6] += h * x2


@njit
def _rot(p0, p1, p2, p3, v0, v1, v2):  # type: ignore[no-untyped-def]
    """R(p) v."""
    u0, u1, u2 = p2 * v2 - p3 * v1, p3 * v0 - p1 * v2, p1 * v1 - p2 * v0
    w0, w1, w2 = p2 * u2 - p3 * u1, p3 * u0 - p1 * u2, p1 * u1 - p2 * u0
    return v0 + 2.0 * (p0 * u0 + w0), v1 + 2.0 * (p0 * u1 + w1), v2 + 2.0 * (p0 * u2 + w2)


@njit
def _support_force(qn, base_p, base_R, base_x, row_rot, row_dir, lam_rows, out):  # type: ignore[no-untyped-def]
    """out (6,) = Σ_r B_rᵀ λ_r of one support (node qn (1, 7), its rows)."""
    _, data, _ = rk.support_eval(qn, np.zeros(1, np.int64), base_p, base_R, base_x,
                                 np.zeros(row_rot.shape[0], np.int64), row_rot, row_dir)
    for j in range(6):
        acc = 0.0
        for r in range(row_rot.shape[0]):
            acc += data[r, j] * lam_rows[r]
        out[j] = acc


@njit
def _joint_force(q2, c0, row_rot, row_dir, lam_rows, out):  # type: ignore[no-untyped-def]
    """out (12,) = Σ_r B_rᵀ λ_r of one joint (nodes q2 (2, 7), its rows)."""
    _, data = joint_eval(q2, np.zeros(1, np.int64), np.ones(1, np.int64), c0, np.zeros(row_rot.shape[0], np.int64),
                         row_rot, row_dir)
    for j in range(12):
        acc = 0.0
        for r in range(row_rot.shape[0]):
            acc += data[r, j] * lam_rows[r]
        out[j] = acc


@njit
def element_tangents(q, ia, ib, ca, cb, l0, K, Ke):  # type: ignore[no-untyped-def]
    """K_e (E, 12, 12) = ∂g_e/∂w of every element by the complex step of the closed form (``_corot_compiled``),
    in 9 passes, not 12: g_e depends on the positions through the chord x_b − x_a only, so with G_l the complex
    step along the spatial δx_b = e_l (x_a fixed), the translation columns are K[:, u_a] = −G R_a and
    K[:, u_b] = G R_b (δx_b = R_b u_b, δx_a = R_a u_a)."""
    h = CS_STEP
    W = np.empty((9, 3, 3), np.complex128)
    P, X = np.empty(4, np.complex128), np.empty(3, np.complex128)
    d, B = np.empty(7, np.complex128), np.empty((7, 12), np.complex128)
    sv, g = np.empty(7, np.complex128), np.empty(12, np.complex128)
    cpa, cxa, cpb, cxb = (np.empty(4, np.complex128), np.empty(3, np.complex128), np.empty(4, np.complex128),
                          np.empty(3, np.complex128))
    cca, ccb = np.empty(4, np.complex128), np.empty(4, np.complex128)
    Gx = np.empty((12, 3))
    for e in range(l0.shape[0]):
        a, b = ia[e], ib[e]
        for i in range(4):
            cpa[i], cpb[i], cca[i], ccb[i] = q[a, i] + 0j, q[b, i] + 0j, ca[e, i] + 0j, cb[e, i] + 0j
        for i in range(3):
            cxa[i], cxb[i] = q[a, 4 + i] + 0j, q[b, 4 + i] + 0j
        le = l0[e] + 0j
        for k in range(3):  # rotations of a and of b
            _perturbed(q[a, :4], q[a, 4:], k, h, P, X)
            _element(P, cxa, cpb, cxb, cca, ccb, le, d, B, W)
            _nodal_forces(K[e], d, B, sv, g)
            for j in range(12):
                Ke[e, j, k] = g[j].imag / h
            _perturbed(q[b, :4], q[b, 4:], k, h, P, X)
            _element(cpa, cxa, P, cxb, cca, ccb, le, d, B, W)
            _nodal_forces(K[e], d, B, sv, g)
            for j in range(12):
                Ke[e, j, 6 + k] = g[j].imag / h
        for l in range(3):  # the chord: x_b + i h e_l
            for i in range(3):
                X[i] = cxb[i]
            X[l] = cxb[l] + 1j * h
            _element(cpa, cxa, cpb, X, cca, ccb, le, d, B, W)
            _nodal_forces(K[e], d, B, sv, g)
            for j in range(12):
                Gx[j, l] = g[j].imag / h
        pa, pb = q[a], q[b]
        for k in range(3):
            ra = _rot(pa[0], pa[1], pa[2], pa[3], 1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0,
                      1.0 if k == 2 else 0.0)
            rb = _rot(pb[0], pb[1], pb[2], pb[3], 1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0,
                      1.0 if k == 2 else 0.0)
            for j in range(12):
                Ke[e, j, 3 + k] = -(Gx[j, 0] * ra[0] + Gx[j, 1] * ra[1] + Gx[j, 2] * ra[2])
                Ke[e, j, 9 + k] = Gx[j, 0] * rb[0] + Gx[j, 1] * rb[1] + Gx[j, 2] * rb[2]


@njit
def _put(ab, pos, bw, i, j, v):  # type: ignore[no-untyped-def]
    """A[i, j] += v in band storage (original indices i, j)."""
    pi, pj = pos[i], pos[j]
    ab[2 * bw + pi - pj, pj] += v


@njit
def residual(q, lam, mu, S, r, phi):  # type: ignore[no-untyped-def]
    """R (n, 6) and Φ (m,) at (q, λ, μ) into r, phi (module docstring); returns the strain energy."""
    (ea, eb, eca, ecb, el0, eK, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir, s_row, j_ia, j_ib, j_c0,
     j_entry, j_rot, j_dir, j_row, load_idx, load_vec, load_spatial, load_time) = S[:25]
    n_el = el0.shape[0]
    for i in range(r.shape[0]):
        for j in range(6):
            r[i, j] = 0.0
    energy = element_pass(q, ea, eb, eca, ecb, el0, eK, False, r, np.empty((n_el, 12)), np.empty((n_el, 7)),
                          np.empty((n_el, 7, 12)), np.empty((0, 12, 12)))
    if load_idx.shape[0]:
        rk.nodal_loads_into(r, q, load_idx, load_vec, load_spatial, -mu * load_time)
    V = np.zeros_like(r)
    bv = np.zeros(phi.shape[0])
    if s_row.shape[0]:
        s_phi, s_data, _ = rk.support_eval(q, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir)
        rk.node_rows(s_phi, s_data, s_nodes[s_entry], s_row, V, lam, r, phi, bv)
    if j_row.shape[0]:
        j_phi, j_data = joint_eval(q, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir)
        for k in range(j_row.shape[0]):
            a, b, row = j_ia[j_entry[k]], j_ib[j_entry[k]], j_row[k]
            for j in range(6):
                r[a, j] += j_data[k, j] * lam[row]
                r[b, j] += j_data[k, 6 + j] * lam[row]
            phi[row] = j_phi[k]
    return energy


@njit
def load_vector(q, S, f):  # type: ignore[no-untyped-def]
    """f (n, 6): the external loads at q in the nodes' body frames (time factors applied; μ = 1)."""
    load_idx, load_vec, load_spatial, load_time = S[21], S[22], S[23], S[24]
    for i in range(f.shape[0]):
        for j in range(6):
            f[i, j] = 0.0
    if load_idx.shape[0]:
        rk.nodal_loads_into(f, q, load_idx, load_vec, load_spatial, load_time)


@njit
def assemble(q, lam, mu, S, ab):  # type: ignore[no-untyped-def]
    """The KKT matrix A at (q, λ, μ) into ab (3b + 1, n + m) (zeroed here; module docstring)."""
    ea, eb, eca, ecb, el0, eK = S[:6]
    load_idx, load_vec, load_spatial, load_time = S[21:25]
    pos, bw, scale = S[25], S[26], S[27]
    ab[:, :] = 0.0
    n = 6 * q.shape[0]
    n_el = el0.shape[0]
    Ke = np.empty((n_el, 12, 12))
    element_tangents(q, ea, eb, eca, ecb, el0, eK, Ke)
    for e in range(n_el):
        for bi in range(2):
            ni = ea[e] if bi == 0 else eb[e]
            for bj in range(2):
                nj = ea[e] if bj == 0 else eb[e]
                for i in range(6):
                    for j in range(6):
                        _put(ab, pos, bw, 6 * ni + i, 6 * nj + j, Ke[e, 6 * bi + i, 6 * bj + j])
    for k in range(load_idx.shape[0]):  # −μ ∂f/∂w of the spatial loads
        if not load_spatial[k]:
            continue
        i = load_idx[k]
        p0, p1, p2, p3 = q[i, 0], q[i, 1], q[i, 2], q[i, 3]
        for blk in range(2):
            s = load_time[k]
            v0, v1, v2 = _rot(p0, -p1, -p2, -p3, s * load_vec[k, 3 * blk], s * load_vec[k, 3 * blk + 1],
                              s * load_vec[k, 3 * blk + 2])
            row = 6 * i + 3 * blk
            _put(ab, pos, bw, row + 0, 6 * i + 1, mu * v2)  # −μ v̂: v̂ = [[0, −v2, v1], [v2, 0, −v0], [−v1, v0, 0]]
            _put(ab, pos, bw, row + 0, 6 * i + 2, -mu * v1)
            _put(ab, pos, bw, row + 1, 6 * i + 0, -mu * v2)
            _put(ab, pos, bw, row + 1, 6 * i + 2, mu * v0)
            _put(ab, pos, bw, row + 2, 6 * i + 0, mu * v1)
            _put(ab, pos, bw, row + 2, 6 * i + 1, -mu * v0)
    _support_rows(q, lam, S, ab, n, pos, bw, scale)
    _joint_block(q, lam, S, ab, n, pos, bw, scale)


@njit
def _support_rows(q, lam, S, ab, n, pos, bw, scale):  # type: ignore[no-untyped-def]
    """The support rows' B (and Bᵀ) and Z blocks (central differences, module docstring) into ab."""
    s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir, s_row = S[6:14]
    if not s_row.shape[0]:
        return
    _, s_data, _ = rk.support_eval(q, s_nodes, base_p, base_R, base_x, s_entry, s_rot, s_dir)
    for k in range(s_row.shape[0]):
        i = s_nodes[s_entry[k]]
        for j in range(6):
            _put(ab, pos, bw, n + s_row[k], 6 * i + j, s_data[k, j])
            _put(ab, pos, bw, 6 * i + j, n + s_row[k], s_data[k, j])
    qn = np.empty((1, 7))
    fp, fm = np.empty(6), np.empty(6)
    for s in range(s_nodes.shape[0]):
        rows = np.flatnonzero(s_entry == s)
        if not rows.size:
            continue
        lr = np.empty(rows.size)
        for r in range(rows.size):
            lr[r] = lam[s_row[rows[r]]]
        i = s_nodes[s]
        rot, dirs = s_rot[rows], s_dir[rows]
        for k in range(6):
            h = FD_STEP * (1.0 if k < 3 else scale)
            _move(q, i, k, h, qn[0])
            _support_force(qn, base_p[s:s + 1], base_R[s:s + 1], base_x[s:s + 1], rot, dirs, lr, fp)
            _move(q, i, k, -h, qn[0])
            _support_force(qn, base_p[s:s + 1], base_R[s:s + 1], base_x[s:s + 1], rot, dirs, lr, fm)
            for j in range(6):
                _put(ab, pos, bw, 6 * i + j, 6 * i + k, (fp[j] - fm[j]) / (2.0 * h))


@njit
def _joint_block(q, lam, S, ab, n, pos, bw, scale):  # type: ignore[no-untyped-def]
    """The joint rows' B (and Bᵀ) and Z blocks (central differences) into ab."""
    j_ia, j_ib, j_c0, j_entry, j_rot, j_dir, j_row = S[14:21]
    if not j_row.shape[0]:
        return
    _, j_data = joint_eval(q, j_ia, j_ib, j_c0, j_entry, j_rot, j_dir)
    for k in range(j_row.shape[0]):
        a, b = j_ia[j_entry[k]], j_ib[j_entry[k]]
        for j in range(6):
            _put(ab, pos, bw, n + j_row[k], 6 * a + j, j_data[k, j])
            _put(ab, pos, bw, 6 * a + j, n + j_row[k], j_data[k, j])
            _put(ab, pos, bw, n + j_row[k], 6 * b + j, j_data[k, 6 + j])
            _put(ab, pos, bw, 6 * b + j, n + j_row[k], j_data[k, 6 + j])
    q2 = np.empty((2, 7))
    fp, fm = np.empty(12), np.empty(12)
    for jt in range(j_ia.shape[0]):
        rows = np.flatnonzero(j_entry == jt)
        if not rows.size:
            continue
        lr = np.empty(rows.size)
        for r in range(rows.size):
            lr[r] = lam[j_row[rows[r]]]
        nodes = (j_ia[jt], j_ib[jt])
        rot, dirs = j_rot[rows], j_dir[rows]
        c0 = j_c0[jt:jt + 1]
        for side in range(2):
            for k in range(6):
                h = FD_STEP * (1.0 if k < 3 else scale)
                for sgn in range(2):
                    for j in range(7):
                        q2[0, j] = q[nodes[0], j]
                        q2[1, j] = q[nodes[1], j]
                    _move(q, nodes[side], k, h if sgn == 0 else -h, q2[side])
                    _joint_force(q2, c0, rot, dirs, lr, fp if sgn == 0 else fm)
                for bi in range(2):
                    for j in range(6):
                        _put(ab, pos, bw, 6 * nodes[bi] + j, 6 * nodes[side] + k,
                             (fp[6 * bi + j] - fm[6 * bi + j]) / (2.0 * h))


@njit
def factor(q, lam, mu, S, ab, lu, s, piv):  # type: ignore[no-untyped-def]
    """Assemble A at (q, λ, μ) into ab, equilibrate (S A S into ab, the scales into s) and factor a copy into lu;
    returns ``band_lu``'s info (0: regular)."""
    assemble(q, lam, mu, S, ab)
    bw = S[26]
    N = ab.shape[1]
    for j in range(N):
        m = 0.0
        for i in range(ab.shape[0]):
            m = max(m, abs(ab[i, j]))
        s[j] = 1.0 / np.sqrt(m) if m > 0.0 else 1.0
    for j in range(N):
        for i in range(ab.shape[0]):
            row = j + i - 2 * bw
            if 0 <= row < N:
                ab[i, j] *= s[row] * s[j]
    lu[:, :] = ab
    return band_lu(lu, bw, piv)


@njit
def solve(lu, s, piv, S, rhs, out):  # type: ignore[no-untyped-def]
    """out = A⁻¹ rhs (original order; A from ``factor``); rhs (n + m,)."""
    pos, bw = S[25], S[26]
    N = rhs.shape[0]
    b = np.empty(N)
    for i in range(N):
        b[pos[i]] = rhs[i] * s[pos[i]]
    band_solve(lu, bw, piv, b)
    for i in range(N):
        out[i] = b[pos[i]] * s[pos[i]]


@njit
def symmetric_pivots(ab, bw):  # type: ignore[no-untyped-def]
    """(LDLᵀ pivots of the symmetric part of the equilibrated band, max |A_ij − A_ji|, max |A_ij|)
    (``statics_core.KKTFactor.inertia``)."""
    N = ab.shape[1]
    low = np.zeros((bw + 1, N))
    skew, big = 0.0, 0.0
    for j in range(N):
        low[0, j] = ab[2 * bw, j]
        big = max(big, abs(ab[2 * bw, j]))
        for k in range(1, bw + 1):
            if j + k < N:
                lo, up = ab[2 * bw + k, j], ab[2 * bw - k, j + k]
                low[k, j] = 0.5 * (lo + up)
                skew = max(skew, abs(lo - up))
                big = max(big, abs(lo), abs(up))
    return rk.band_ldl_pivots(low), skew, big


# ---------------------------------------------------------------------- retraction
@njit
def retract(q, dw, S, out):  # type: ignore[no-untyped-def]
    """out = q "∘" δw (``CorotationalStructure.static_retraction``; module docstring); dw (n, 6)."""
    ea, eb = S[0], S[1]
    starts, anchors = S[28], S[29]
    nn = q.shape[0]
    dx = np.empty((nn, 3))
    for i in range(nn):
        p0, p1, p2, p3 = q[i, 0], q[i, 1], q[i, 2], q[i, 3]
        dx[i, 0], dx[i, 1], dx[i, 2] = _rot(p0, p1, p2, p3, dw[i, 3], dw[i, 4], dw[i, 5])
        e = _qexp(dw[i, 0], dw[i, 1], dw[i, 2])
        r = rk.qmul(p0, p1, p2, p3, e[0], e[1], e[2], e[3])
        for j in range(4):
            out[i, j] = r[j]
    n_el = ea.shape[0]
    cn = np.empty((n_el, 3))
    for e in range(n_el):
        a, b = ea[e], eb[e]
        c0, c1, c2 = q[b, 4] - q[a, 4], q[b, 5] - q[a, 5], q[b, 6] - q[a, 6]
        d0, d1, d2 = dx[b, 0] - dx[a, 0], dx[b, 1] - dx[a, 1], dx[b, 2] - dx[a, 2]
        c2n = c0 * c0 + c1 * c1 + c2 * c2
        eps = (c0 * d0 + c1 * d1 + c2 * d2) / c2n
        f0, f1, f2 = (c1 * d2 - c2 * d1) / c2n, (c2 * d0 - c0 * d2) / c2n, (c0 * d1 - c1 * d0) / c2n
        p = _qexp(f0, f1, f2)
        v = _rot(p[0], p[1], p[2], p[3], c0, c1, c2)
        for j in range(3):
            cn[e, j] = (1.0 + eps) * v[j]
    e0 = 0
    for k in range(anchors.shape[0]):
        o, n = starts[k], starts[k + 1] - starts[k]
        a = anchors[k]
        # P_j = Σ_{i<j} c_new[e0 + i]; x_j = x_a + δx_a + P_j − P_a
        pa = np.zeros(3)
        for i in range(a):
            for j in range(3):
                pa[j] += cn[e0 + i, j]
        acc = np.zeros(3)
        for jn in range(n):
            for j in range(3):
                out[o + jn, 4 + j] = q[o + a, 4 + j] + dx[o + a, j] + acc[j] - pa[j]
            if jn < n - 1:
                for j in range(3):
                    acc[j] += cn[e0 + jn, j]
        e0 += n - 1


# ---------------------------------------------------------------------- the Newton corrector
@njit
def _size(r, phi, F, L):  # type: ignore[no-untyped-def]
    m = 0.0
    for i in range(r.shape[0]):
        for j in range(6):
            m = max(m, abs(r[i, j]) / F)
    for i in range(phi.shape[0]):
        m = max(m, abs(phi[i]) / L)
    return m


@njit
def _merit(r, phi, F, L):  # type: ignore[no-untyped-def]
    m = 0.0
    for i in range(r.shape[0]):
        for j in range(6):
            m += (r[i, j] / F) ** 2
    for i in range(phi.shape[0]):
        m += (phi[i] / L) ** 2
    return m


@njit
def _finite(r, phi):  # type: ignore[no-untyped-def]
    for i in range(r.shape[0]):
        for j in range(6):
            if not np.isfinite(r[i, j]):
                return False
    for i in range(phi.shape[0]):
        if not np.isfinite(phi[i]):
            return False
    return True


@njit
def _bordered(x1, x2, a, has_arc, c, c_mu, n, out):  # type: ignore[no-untyped-def]
    """out = x1 + δμ x2 with δμ from c·δw + c_μ δμ = −a (``rods.statics._bordered``); returns δμ."""
    dmu = 0.0
    if has_arc:
        cx1, cx2 = 0.0, 0.0
        for i in range(n):
            cx1 += c[i] * x1[i]
            cx2 += c[i] * x2[i]
        dmu = (-a - cx1) / (cx2 + c_mu)
    for i in range(x1.shape[0]):
        out[i] = x1[i] + dmu * x2[i] if has_arc else x1[i]
    return dmu


@njit
def _wnorm(x, w, n):  # type: ignore[no-untyped-def]
    acc = 0.0
    for i in range(n):
        acc += (x[i] * w[i]) ** 2
    return np.sqrt(acc)


@njit
def newton(q, lam, mu, S, tol, max_iter, line_search, has_arc, c, c_mu, mu0,  # type: ignore[no-untyped-def]
           theta_max, seed_lu, seed_s, seed_piv):
    """``rods.statics._newton`` in one call: (q, λ, μ, status, iterations, scaled residual, d, factorisations) with
    status CONVERGED or the failure's code (module constants), d the accumulated correction (n,).

    ``theta_max`` = 0: Newton, the matrix at every iterate (the reference iteration). ``theta_max`` > 0: the matrix
    is kept while the corrections contract, ‖δ_{k+1}‖ ≤ θ_max ‖δ_k‖ (weighted norm), and refactorised at the
    current iterate otherwise, or where the kept matrix's correction fails the damping test or is not finite (a
    fresh matrix is then damped as Newton's) (Deuflhard 2004 §2.1, the simplified-Newton contraction). A seed
    (``seed_lu``, non-empty) is the kept matrix of the first iterate (the last converged state's)."""
    w, L, F, N_ab = S[30], S[31], S[32], S[33]
    nn = q.shape[0]
    n, m = 6 * nn, lam.shape[0]
    N = n + m
    q = q.copy()
    lam = lam.copy()
    r, phi = np.empty((nn, 6)), np.empty(m)
    residual(q, lam, mu, S, r, phi)
    res = _size(r, phi, F, L)
    d = np.zeros(n)
    ab = np.empty((N_ab, N))
    if seed_lu.shape[0]:
        lu, sc, piv = seed_lu.copy(), seed_s.copy(), seed_piv.copy()
    else:
        lu, sc, piv = np.empty((N_ab, N)), np.empty(N), np.empty(N, np.int64)
    rhs, x1, x2, xb, dx, xt = np.empty(N), np.empty(N), np.zeros(N), np.empty(N), np.empty(N), np.empty(N)
    f = np.empty((nn, 6))
    q1, r1, phi1, lam1 = np.empty_like(q), np.empty((nn, 6)), np.empty(m), np.empty(m)
    dwn = np.empty((nn, 6))
    sqn = np.sqrt(nn)
    refresh = seed_lu.shape[0] == 0
    fresh = False
    prev = -1.0
    it = 0
    n_fact = 0
    while True:
        a = 0.0
        if has_arc:
            for i in range(n):
                a += c[i] * d[i]
            a += c_mu * (mu - mu0)
        if res <= tol and abs(a) <= tol:
            return q, lam, mu, CONVERGED, it, res, d, n_fact
        if it == max_iter:
            break
        if refresh:
            n_fact += 1
            if factor(q, lam, mu, S, ab, lu, sc, piv) != 0:
                return q, lam, mu, SINGULAR, it, res, d, n_fact
            refresh, fresh, prev = False, True, -1.0
        rf = r.ravel()
        for i in range(n):
            rhs[i] = -rf[i]
        for i in range(m):
            rhs[n + i] = -phi[i]
        solve(lu, sc, piv, S, rhs, x1)
        bad = not np.all(np.isfinite(x1))
        if has_arc and not bad:
            load_vector(q, S, f)
            ff = f.ravel()
            for i in range(n):
                rhs[i] = ff[i]
            for i in range(m):
                rhs[n + i] = 0.0
            solve(lu, sc, piv, S, rhs, x2)
            bad = not np.all(np.isfinite(x2))
            if not bad:
                den = c_mu
                for i in range(n):
                    den += c[i] * x2[i]
                if den == 0.0:
                    if fresh:
                        return q, lam, mu, ARC_TANGENT, it, res, d, n_fact
                    refresh = True
                    continue
        if bad:
            if fresh:
                return q, lam, mu, SINGULAR, it, res, d, n_fact
            refresh = True
            continue
        dmu = _bordered(x1, x2, a, has_arc, c, c_mu, n, dx)
        size0 = _wnorm(dx, w, n)
        if not fresh and prev > 0.0 and size0 > theta_max * prev:  # the kept matrix contracts too slowly
            refresh = True
            continue
        alpha = 1.0
        stepped = True
        while True:
            for i in range(nn):
                for j in range(6):
                    dwn[i, j] = alpha * dx[6 * i + j]
            retract(q, dwn, S, q1)
            for i in range(m):
                lam1[i] = lam[i] + alpha * dx[n + i]
            mu1 = mu + alpha * dmu
            residual(q1, lam1, mu1, S, r1, phi1)
            a1 = 0.0
            if has_arc:
                for i in range(n):
                    a1 += c[i] * (d[i] + alpha * dx[i])
                a1 += c_mu * (mu1 - mu0)
            fin = _finite(r1, phi1)
            ok = fin
            if ok and line_search and size0 > 1e-6 and res > 1e2 * tol:
                rf1 = r1.ravel()
                for i in range(n):
                    rhs[i] = -rf1[i]
                for i in range(m):
                    rhs[n + i] = -phi1[i]
                solve(lu, sc, piv, S, rhs, xb)
                ok = bool(np.all(np.isfinite(xb)))
                if ok:
                    _bordered(xb, x2, a1, has_arc, c, c_mu, n, xt)
                    ok = _wnorm(xt, w, n) <= (1.0 - 0.25 * alpha) * size0
            if ok or (not line_search and fin):
                break
            if not fresh:  # a kept matrix: refactorise here rather than damp its correction
                stepped = False
                break
            alpha *= 0.5
            if alpha < 1.0 / 64:
                return q, lam, mu, DAMPING, it + 1, res, d, n_fact
        if not stepped:
            refresh = True
            continue
        if not np.isfinite(_merit(r1, phi1, F, L)):
            return q, lam, mu, NONFINITE, it + 1, res, d, n_fact
        q, q1 = q1, q
        lam, lam1 = lam1, lam
        r, r1 = r1, r
        phi, phi1 = phi1, phi
        mu = mu1
        big = 0.0
        for i in range(n):
            d[i] += alpha * dx[i]
            big = max(big, abs(alpha * dx[i] * w[i]))
        res = _size(r, phi, F, L)
        it += 1
        fresh = False
        prev = alpha * size0
        if theta_max <= 0.0 or alpha < 1.0:
            refresh = True
        if big * sqn < STEP_TOL and res <= 1e2 * tol:
            return q, lam, mu, CONVERGED, it, res, d, n_fact
    return q, lam, mu, MAX_ITER, max_iter, res, d, n_fact


# ---------------------------------------------------------------------- twins (tests/test_jit.py)
def band_lu_solve(ab: FloatArray, bw: int, b: FloatArray) -> FloatArray:
    """x = A⁻¹ b through ``band_lu`` and ``band_solve`` (copies)."""
    lu = np.array(ab, dtype=float)
    piv = np.empty(lu.shape[1], np.int64)
    band_lu(lu, bw, piv)
    x = np.array(b, dtype=float)
    band_solve(lu, bw, piv, x)
    return x


def band_lu_solve_lapack(ab: FloatArray, bw: int, b: FloatArray) -> FloatArray:
    """The reference: LAPACK ``dgbtrf`` + ``dgbtrs`` (scipy)."""
    from scipy.linalg import lapack

    lu, piv, _ = lapack.dgbtrf(np.array(ab, dtype=float), bw, bw)
    x, _ = lapack.dgbtrs(lu, bw, bw, np.array(b, dtype=float), piv)
    return np.asarray(x)


def _band_sample(rng: np.random.Generator, n: int = 30, bw: int = 4) -> tuple[FloatArray, int, FloatArray]:
    """A non-symmetric band matrix (weak diagonal: pivoting happens) in dgbtrf storage, and a right-hand side."""
    A = np.zeros((n, n))
    for k in range(-bw, bw + 1):
        A += np.diag(rng.standard_normal(n - abs(k)), k)
    ab = np.zeros((3 * bw + 1, n))
    for j in range(n):
        for i in range(max(0, j - bw), min(n, j + bw + 1)):
            ab[2 * bw + i - j, j] = A[i, j]
    return ab, bw, rng.standard_normal(n)


def retract_numpy(structure: object, q: FloatArray, dw: FloatArray) -> FloatArray:
    """The reference retraction: ``CorotationalStructure.static_retraction``."""
    return np.asarray(structure.static_retraction(q, dw))  # type: ignore[attr-defined]


TWINS: tuple[Twin, ...] = (
    Twin("banded LU with partial pivoting (dgbtf2/dgbtrs)", band_lu_solve, band_lu_solve_lapack, _band_sample, 1e-10),
)
"""The band LU against LAPACK (the residual, KKT band, retraction and Newton are checked against the numpy
statics core on frames in ``tests/test_statics_compiled.py``)."""
