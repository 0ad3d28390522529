"""Compiled (numba) twins of the integrators' arithmetic: stage sums, banded LU, stage solves, generalized-α.

``comb_rows``/``axpy_rows`` are the stage sums of ``half_explicit`` (numpy: ``c[:k] @ S[:k]``);
``band_lu_solve`` is LAPACK's unblocked dgbtf2 + dgbtrs; ``dense_stage_solve``/``schur_stage_solve`` are
the numpy paths of ``_linear.SaddlePointSolver`` in one call (``SaddlePointSolver(compiled=...)`` picks);
``band_scatter``/``band_lu_apply`` the band storage and the substitution of ``_banded.BandedLU`` (dgbtrs with the
permutation folded in); ``ga_iterate``/``ga_rhs``/``ga_update`` the arithmetic of one generalized-α Newton
iteration (``generalized_alpha``), ``ga_solve_update`` the banded solve and the update in one call, ``ga_band_matrix`` the iteration matrix of
a chain of nodes straight into band storage. ``TWINS`` pairs kernels with numpy/LAPACK references for ``tests/test_jit.py``
(``_accumulate`` is checked through ``comb_rows``/``axpy_rows``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dgbsv

from lgbeam._newton_kernels import (
    band_factors_sample,
    band_lu_apply,
    band_lu_apply_lapack,
    ga_iterate,
    ga_iterate_numpy,
    ga_rhs,
    ga_rhs_numpy,
    ga_solve_update,
    ga_solve_update_numpy,
    ga_update,
    ga_update_numpy,
)
from lgbeam._numba import ENABLED, Twin, njit
from lgbeam._typing import FloatArray

__all__ = [
    "ENABLED",
    "TWINS",
    "axpy_rows",
    "band_lu_apply",
    "band_lu_solve",
    "band_scatter",
    "band_scatter_numpy",
    "comb_rows",
    "dense_stage_solve",
    "ga_band_matrix",
    "ga_iterate",
    "ga_rhs",
    "ga_solve_update",
    "ga_update",
    "schur_stage_solve",
]


# --------------------------------------------------------------------------- stage combinations
@njit
def _accumulate(out, c, S, k):  # type: ignore[no-untyped-def]
    """out += Σ_{j<k} c[j] S[j], in place (zero coefficients skipped)."""
    for j in range(k):
        cj = c[j]
        if cj != 0.0:
            for l in range(out.shape[0]):
                out[l] += cj * S[j, l]
    return out


@njit
def comb_rows(c, S, k):  # type: ignore[no-untyped-def]
    """Σ_{j<k} c[j] S[j] for S (≥k, n): the stage sums h Σ a_ij Θ̇_j of eq. (12) in one call."""
    return _accumulate(np.zeros(S.shape[1]), c, S, k)


@njit
def axpy_rows(base, c, S, k):  # type: ignore[no-untyped-def]
    """base + Σ_{j<k} c[j] S[j] (the stage velocities v_n + h Σ a_ij V̇_j)."""
    return _accumulate(base.copy(), c, S, k)


# --------------------------------------------------------------------------- banded stage solve
@njit
def band_lu_solve(ab, kl, ku, b):  # type: ignore[no-untyped-def]
    """Solve A x = b in place for A in LAPACK band storage with room for fill-in, by Gaussian elimination
    with partial pivoting (LAPACK dgbtf2 + dgbtrs, unblocked). ``ab`` is (n, 2 kl + ku + 1) indexed
    [column, row] with ab[j, kl + ku + i − j] = A[i, j]. Returns 0, or k + 1 if the pivot of column k is
    zero (A singular)."""
    n = ab.shape[0]
    kv = kl + ku
    ipiv = np.empty(n, dtype=np.int64)
    for j in range(ku + 1, min(kv, n)):  # fill-in rows of the first columns start at zero
        for i in range(kv - j, kl):
            ab[j, i] = 0.0
    ju = 0
    for j in range(n):
        if j + kv < n:
            for i in range(kl):
                ab[j + kv, i] = 0.0
        km = min(kl, n - 1 - j)
        jp = 0
        big = abs(ab[j, kv])
        for r in range(1, km + 1):
            if abs(ab[j, kv + r]) > big:
                big, jp = abs(ab[j, kv + r]), r
        ipiv[j] = j + jp
        if ab[j, kv + jp] == 0.0:
            return j + 1
        ju = max(ju, min(j + ku + jp, n - 1))
        if jp != 0:
            for c in range(j, ju + 1):
                t = ab[c, kv + jp - (c - j)]
                ab[c, kv + jp - (c - j)] = ab[c, kv - (c - j)]
                ab[c, kv - (c - j)] = t
        if km > 0:
            rp = 1.0 / ab[j, kv]
            for r in range(1, km + 1):
                ab[j, kv + r] *= rp
            for c in range(j + 1, ju + 1):
                a = ab[c, kv - (c - j)]
                if a != 0.0:
                    for r in range(1, km + 1):
                        ab[c, kv + r - (c - j)] -= ab[j, kv + r] * a
    for j in range(n - 1):  # L y = P b
        l = ipiv[j]
        if l != j:
            t = b[l]
            b[l] = b[j]
            b[j] = t
        for r in range(1, min(kl, n - 1 - j) + 1):
            b[j + r] -= ab[j, kv + r] * b[j]
    for j in range(n - 1, -1, -1):  # U x = y, U of bandwidth kl + ku
        b[j] /= ab[j, kv]
        bj = b[j]
        for i in range(max(0, j - kv), j):
            b[i] -= ab[j, kv + i - j] * bj
    return 0


@njit
def dense_stage_solve(Minv, B_i, B_next, r1, r2g):  # type: ignore[no-untyped-def]
    """(V̇, Λ, info) of [[M, B_iᵀ], [γ B_next, 0]] [V̇; Λ] = [r1; γ r2g] for small dense M⁻¹ (n, n) and
    B (m, n), through S = B_next M⁻¹ B_iᵀ and Gaussian elimination with partial pivoting (info = k + 1 for a
    zero pivot in column k, −1 for a non-finite multiplier)."""
    m = B_i.shape[0]
    a = Minv @ r1
    MB = Minv @ B_i.T
    S = B_next @ MB
    lam = B_next @ a - r2g
    ab = np.zeros((m, 3 * m - 2 if m > 0 else 1))  # band storage with kl = ku = m − 1 (full)
    kl = m - 1
    for i in range(m):
        for j in range(m):
            ab[j, 2 * kl + i - j] = S[i, j]
    info = band_lu_solve(ab, kl, kl, lam)
    if info == 0 and not np.isfinite(lam).all():
        info = -1
    return a - MB @ lam, lam, info


@njit
def schur_stage_solve(d, r1, r2g, data_next, data_i, rows, cols, pa, pb, weight, target, kl, ku, perm, pos):  # type: ignore[no-untyped-def]
    """(V̇, Λ, info) of [[M, B_iᵀ], [γ B_next, 0]] [V̇; Λ] = [r1; γ r2g] with M⁻¹ = diag(d), both B in one
    CSR pattern (entries ``rows``/``cols``): the Schur complement S = B_next M⁻¹ B_iᵀ is gathered from the
    entry pairs (pa, pb) into band storage at ``target`` (rows/columns permuted by ``perm``/``pos``) and
    solved by ``band_lu_solve``; as ``_linear._ProductPattern``. info: 0, k + 1 for a zero
    pivot in column k, −1 for a non-finite multiplier."""
    m = pos.shape[0]
    ldab = 2 * kl + ku + 1
    a = d * r1
    rhs = -r2g.copy()
    for e in range(rows.shape[0]):
        rhs[rows[e]] += data_next[e] * a[cols[e]]
    ab = np.zeros(m * ldab)
    for k in range(pa.shape[0]):
        ab[target[k]] += data_next[pa[k]] * weight[k] * data_i[pb[k]]
    x = rhs[perm]
    info = band_lu_solve(ab.reshape(m, ldab), kl, ku, x)
    lam = x[pos]
    if info == 0 and not np.isfinite(lam).all():
        info = -1
    out = a.copy()
    for e in range(rows.shape[0]):
        out[cols[e]] -= d[cols[e]] * data_i[e] * lam[rows[e]]
    return out, lam, info


# --------------------------------------------------------------------------- band storage of a sparse matrix
@njit
def band_scatter(pos, v, ldab, n):  # type: ignore[no-untyped-def]
    """LAPACK band storage ab (ldab, n), Fortran order, with ab.flat_F[pos[k]] += v[k]: the entries of a sparse
    matrix scattered in one pass (``_banded.band_positions`` gives pos = (kl + ku + i − j) + ldab·j per entry
    (i, j) of the permuted matrix; duplicates summed). Reference: ``band_scatter_numpy``."""
    flat = np.zeros(ldab * n)
    for k in range(pos.shape[0]):
        flat[pos[k]] += v[k]
    return flat.reshape((n, ldab)).T


# --------------------------------------------------------------------------- banded LU solve (_banded.py)
# --------------------------------------------------------------------------- generalized-α Newton arithmetic
# --------------------------------------------------------------------------- generalized-α matrix in band storage
@njit
def _band_add(flat, inv, kl, ku, ldab, r, c, val):  # type: ignore[no-untyped-def]
    """flat[(kl + ku + i − j) + ldab·j] += val with (i, j) = (inv[r], inv[c]); False when (r, c) lies outside
    the band or val is not finite."""
    i = inv[r]
    j = inv[c]
    d = i - j
    if d > kl or -d > ku or not np.isfinite(val):
        return False
    flat[kl + ku + d + ldab * j] += val
    return True


@njit
def _chain_blocks(node, edge):  # type: ignore[no-untyped-def]
    """(diagonal (n, 6, 6), upper (n − 1, 6, 6), lower (n − 1, 6, 6)) blocks of the block-tridiagonal matrix with
    node blocks ``node`` and edge blocks ``edge`` (n − 1, 12, 12) joining nodes e and e + 1."""
    d = node.copy()
    ne = edge.shape[0]
    up = np.empty((ne, 6, 6))
    lo = np.empty((ne, 6, 6))
    for e in range(ne):
        for a in range(6):
            for b in range(6):
                d[e, a, b] += edge[e, a, b]
                d[e + 1, a, b] += edge[e, 6 + a, 6 + b]
                up[e, a, b] = edge[e, a, 6 + b]
                lo[e, a, b] = edge[e, 6 + a, b]
    return d, up, lo


@njit
def _times_T(blocks, T, shift):  # type: ignore[no-untyped-def]
    """blocks[k] @ T[k + shift] for every k."""
    out = np.zeros_like(blocks)
    for k in range(blocks.shape[0]):
        for a in range(6):
            for c in range(6):
                x = blocks[k, a, c]
                if x != 0.0:
                    for b in range(6):
                        out[k, a, b] += x * T[k + shift, c, b]
    return out


@njit
def ga_band_matrix(Eq, Nq, Ed, Nd, T, mdiag, s, sgp, b1_ptr, b1_idx, b1_val, bn_ptr, bn_idx, bn_val, m, idx2,  # type: ignore[no-untyped-def]
                   inv, kl, ku):
    """The scaled generalized-α iteration matrix of a chain of nodes (``generalized_alpha``, module docstring)
    straight into LAPACK band storage (2kl + ku + 1, N), Fortran order, unknowns in the order ``inv`` (inverse
    permutation). K_t = K + Z and C_t are block tridiagonal: node blocks Nq, Nd (n, 6, 6) and edge blocks Eq, Ed
    (n − 1, 12, 12) joining nodes e and e + 1; T (n, 6, 6) the blocks of T(θ); M = diag(mdiag); B(q_{n+1}) and
    B(q_n) as CSR arrays. With s = 1/β', sgp = γ'/β':

        [ M + sgp C_t + s K_t T    s K_t T B_nᵀ    Bᵀ ]
        [ B T                      B T B_nᵀ        0  ]      (index 2; index 3: the first and last block
        [ B                        0               0  ]       columns, the first two block rows)

    Returns (ab, ok, max|K_t T|): ok False when an entry falls outside the band or is not finite.
    Reference: ``ga_band_matrix_numpy`` (scipy.sparse products)."""
    nn = T.shape[0]
    n = 6 * nn
    N = n + m + (m if idx2 else 0)
    ldab = 2 * kl + ku + 1
    flat = np.zeros(ldab * N)
    ok = True
    Kd, Ku, Kl = _chain_blocks(Nq, Eq)
    Cd, Cu, Cl = _chain_blocks(Nd, Ed)
    KTd = _times_T(Kd, T, 0)
    KTu = _times_T(Ku, T, 1)  # row node e, column node e + 1
    KTl = _times_T(Kl, T, 0)  # row node e + 1, column node e
    kt_max = 0.0
    for blocks in (KTd, KTu, KTl):
        for x in blocks.ravel():
            kt_max = max(kt_max, abs(x))
    for i in range(nn):  # A = M + sgp C + s K T
        for a in range(6):
            for b in range(6):
                r, c = 6 * i + a, 6 * i + b
                x = sgp * Cd[i, a, b]
                if a == b:
                    x = mdiag[r] + x
                ok &= _band_add(flat, inv, kl, ku, ldab, r, c, x + s * KTd[i, a, b])
                if i < nn - 1:
                    ok &= _band_add(flat, inv, kl, ku, ldab, r, c + 6, sgp * Cu[i, a, b] + s * KTu[i, a, b])
                    ok &= _band_add(flat, inv, kl, ku, ldab, r + 6, c, sgp * Cl[i, a, b] + s * KTl[i, a, b])
    if m == 0:
        return flat.reshape((N, ldab)).T, ok, kt_max
    lam0 = n + m if idx2 else n  # first λ column
    cnt = np.zeros(n + 1, np.int64)  # B_n by columns (CSC), for the products with B_nᵀ
    for p in range(bn_idx.shape[0]):
        cnt[bn_idx[p] + 1] += 1
    for k in range(n):
        cnt[k + 1] += cnt[k]
    col_row = np.empty(bn_idx.shape[0], np.int64)
    col_val = np.empty(bn_idx.shape[0])
    fill = cnt[:-1].copy()
    for r in range(m):
        for p in range(bn_ptr[r], bn_ptr[r + 1]):
            k = bn_idx[p]
            col_row[fill[k]] = r
            col_val[fill[k]] = bn_val[p]
            fill[k] += 1
    if idx2:  # s K T B_nᵀ: column ν_r gets s (K T)[:, k] B_n[r, k] from the three block rows around node k // 6
        for r in range(m):
            for p in range(bn_ptr[r], bn_ptr[r + 1]):
                k = bn_idx[p]
                beta, kk, bv = k // 6, k % 6, bn_val[p]
                for al in range(max(beta - 1, 0), min(beta + 2, nn)):
                    for ii in range(6):
                        if al == beta:
                            x = KTd[beta, ii, kk]
                        elif al == beta - 1:
                            x = KTu[al, ii, kk]
                        else:
                            x = KTl[beta, ii, kk]
                        ok &= _band_add(flat, inv, kl, ku, ldab, 6 * al + ii, n + r, s * (x * bv))
    row = np.zeros(n)
    seen = np.zeros(nn, np.bool_)
    nodes = np.empty(nn, np.int64)
    for r in range(m):  # the row B T (and B T B_nᵀ), Bᵀ's column, B's row
        nt = 0
        for p in range(b1_ptr[r], b1_ptr[r + 1]):
            k = b1_idx[p]
            beta, kk, bv = k // 6, k % 6, b1_val[p]
            if not seen[beta]:
                seen[beta] = True
                nodes[nt] = beta
                nt += 1
            for j in range(6):
                row[6 * beta + j] += bv * T[beta, kk, j]
            ok &= _band_add(flat, inv, kl, ku, ldab, k, lam0 + r, bv)
            if idx2:
                ok &= _band_add(flat, inv, kl, ku, ldab, n + m + r, k, bv)
        for t in range(nt):
            beta = nodes[t]
            for j in range(6):
                k = 6 * beta + j
                x = row[k]
                ok &= _band_add(flat, inv, kl, ku, ldab, n + r, k, x)
                if idx2:
                    for p in range(cnt[k], cnt[k + 1]):
                        ok &= _band_add(flat, inv, kl, ku, ldab, n + r, n + col_row[p], x * col_val[p])
                row[k] = 0.0
            seen[beta] = False
    return flat.reshape((N, ldab)).T, ok, kt_max

# --------------------------------------------------------------------------- kernel / reference pairs
def _stage_sums(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    c = rng.normal(size=7)
    c[2] = 0.0  # a zero coefficient (skipped by the kernel)
    return c, rng.normal(size=(7, 30)), 5


def _band_lu_lapack(ab: FloatArray, kl: int, ku: int, b: FloatArray) -> tuple[int, FloatArray]:
    """(info, x) of LAPACK's dgbsv on the same band storage (``ab`` indexed [column, row])."""
    *_, x, info = dgbsv(kl, ku, ab.T.copy(), b.copy())
    return info, x


def _band_lu(ab: FloatArray, kl: int, ku: int, b: FloatArray) -> tuple[int, FloatArray]:
    x = b.copy()
    return band_lu_solve(ab.copy(), kl, ku, x), x


def _banded(rng: np.random.Generator, n: int = 30, kl: int = 3, ku: int = 5) -> tuple:  # type: ignore[type-arg]
    """Band storage of a random banded matrix that needs row exchanges, and a right-hand side."""
    ab = np.zeros((n, 2 * kl + ku + 1))
    for j in range(n):
        for i in range(max(0, j - ku), min(n, j + kl + 1)):
            ab[j, kl + ku + i - j] = rng.normal() + (3.0 if i == j and rng.random() < 0.5 else 0.0)
    return ab, kl, ku, rng.normal(size=n)


def _band_entries(rng: np.random.Generator, n: int = 40, kl: int = 4, ku: int = 7) -> tuple:  # type: ignore[type-arg]
    """Positions of random entries (with duplicates) of an n × n band matrix, their values, ldab and n."""
    i = rng.integers(0, n, size=300)
    j = np.clip(i + rng.integers(-kl, ku + 1, size=300), 0, n - 1)
    ldab = 2 * kl + ku + 1
    return (kl + ku + i - j) + ldab * j, rng.normal(size=300), ldab, n


def band_scatter_numpy(pos: np.ndarray, v: FloatArray, ldab: int, n: int) -> FloatArray:
    """Reference of ``band_scatter``: band storage (ldab, n) with the values v added at ``pos``."""
    flat = np.zeros(ldab * n)
    np.add.at(flat, pos, v)
    return flat.reshape((n, ldab)).T


def _dense_stage_numpy(Minv: FloatArray, B_i: FloatArray, B_next: FloatArray, r1: FloatArray,
                       r2g: FloatArray) -> tuple[FloatArray, FloatArray, int]:
    """The numpy path of ``SaddlePointSolver.solve`` for dense operands."""
    a = Minv @ r1
    lam: FloatArray = np.asarray(np.linalg.solve(B_next @ (Minv @ B_i.T), B_next @ a - r2g), dtype=float)
    return a - Minv @ (B_i.T @ lam), lam, 0


def _dense_stage(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    L = rng.normal(size=(6, 6))
    B_i = rng.normal(size=(3, 6))
    return (np.linalg.inv(L @ L.T + 6 * np.eye(6)), B_i, B_i + 1e-2 * rng.normal(size=(3, 6)), rng.normal(size=6),
            rng.normal(size=3))


def ga_band_matrix_numpy(Eq: FloatArray, Nq: FloatArray, Ed: FloatArray, Nd: FloatArray, T: FloatArray,
                         mdiag: FloatArray, s: float, sgp: float, b1_ptr: np.ndarray, b1_idx: np.ndarray,
                         b1_val: FloatArray, bn_ptr: np.ndarray, bn_idx: np.ndarray, bn_val: FloatArray, m: int,
                         idx2: bool, inv: np.ndarray, kl: int, ku: int) -> tuple[FloatArray, bool, float]:
    """Reference of ``ga_band_matrix``: the blocks assembled and multiplied by scipy.sparse (as
    ``GeneralizedAlpha._matrix`` does), the entries put into band storage through ``inv``."""
    nn = T.shape[0]
    n = 6 * nn

    def chain(node: FloatArray, edge: FloatArray) -> sp.csr_array:
        dense = np.zeros((n, n))
        for i in range(nn):
            dense[6 * i:6 * i + 6, 6 * i:6 * i + 6] += node[i]
        for e in range(nn - 1):
            dense[6 * e:6 * e + 12, 6 * e:6 * e + 12] += edge[e]
        return sp.csr_array(dense)

    Tm = sp.block_diag(list(T), format="csr")
    KT = chain(Nq, Eq) @ Tm
    A = sp.diags_array(mdiag) + sgp * chain(Nd, Ed) + s * KT
    blocks: list[list[object]] = [[A]]
    if m:
        B1 = sp.csr_array((b1_val, b1_idx, b1_ptr), shape=(m, n))
        BnT = sp.csr_array((bn_val, bn_idx, bn_ptr), shape=(m, n)).T
        BT = B1 @ Tm
        blocks = ([[A, s * (KT @ BnT), B1.T], [BT, BT @ BnT, None], [B1, None, None]] if idx2
                  else [[A, B1.T], [BT, None]])
    K = sp.coo_array(sp.block_array(blocks))
    N = K.shape[0]
    ldab = 2 * kl + ku + 1
    i, j = inv[K.row], inv[K.col]
    inside = (i - j <= kl) & (j - i <= ku)
    flat = np.zeros(ldab * N)
    np.add.at(flat, (kl + ku + i - j + ldab * j)[inside], K.data[inside])
    ok = bool(inside.all() and np.isfinite(K.data).all())
    return flat.reshape((N, ldab)).T, ok, float(np.abs(KT.data).max(initial=0.0))

def _ga_iterate_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    return (rng.normal(size=42), rng.normal(size=42), rng.normal(size=42), 0.3e-6, rng.normal(size=42), 0.7e3,
            rng.normal(size=42), 1.1e6)


def _ga_rhs_sample(rng: np.random.Generator, idx2: bool) -> tuple:  # type: ignore[type-arg]
    n, m = 42, 15
    return (rng.uniform(0.5, 2.0, n), rng.normal(size=n), rng.normal(size=n), rng.normal(size=n), rng.normal(size=m),
            rng.normal(size=m), 0.37, 0.81, m, idx2)


def _ga_update_sample(rng: np.random.Generator, idx2: bool) -> tuple:  # type: ignore[type-arg]
    n, m = 42, 15
    B = sp.csr_array(np.where(rng.random((m, n)) < 0.2, rng.normal(size=(m, n)), 0.0))
    B.sort_indices()
    return (rng.normal(size=n + m + (m if idx2 else 0)), rng.normal(size=n), rng.normal(size=m), rng.normal(size=m),
            rng.normal(size=n), B.indptr.astype(np.int64), B.indices.astype(np.int64), B.data.copy(), 0.37, m, idx2)


def _ga_solve_update_sample(rng: np.random.Generator, idx2: bool) -> tuple:  # type: ignore[type-arg]
    """Band LU factors of a random matrix of the size of the update's dx (42 + 15 (+ 15)) and an update sample."""
    dx, *update = _ga_update_sample(rng, idx2)
    lub, kl, ku, piv, perm, _ = band_factors_sample(rng, n=dx.size)
    return (lub, kl, ku, piv, perm, dx, *update)

def _ga_band_matrix_sample(rng: np.random.Generator, m: int, idx2: bool) -> tuple:  # type: ignore[type-arg]
    """A chain of 7 nodes: random node and edge blocks, T blocks, a mass diagonal, m constraint rows on one or two
    neighbouring nodes (B and B_n of one pattern), the unknowns reversed in pairs, the full band."""
    nn = 7
    n = 6 * nn
    rows = []
    for r in range(m):
        a = int(rng.integers(0, nn - 1))
        cols = np.sort(rng.choice(np.arange(6 * a, 6 * a + (12 if r % 2 else 6)), size=5, replace=False))
        rows.append(cols)
    ptr = np.concatenate([[0], np.cumsum([len(c) for c in rows])]).astype(np.int64)
    idx = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    N = n + m + (m if idx2 else 0)
    perm = np.arange(N).reshape(-1, 1)[::-1].ravel() if N % 2 else np.arange(N).reshape(-1, 2)[:, ::-1].ravel()
    inv = np.empty(N, np.int64)
    inv[perm] = np.arange(N)
    return (rng.normal(size=(nn - 1, 12, 12)), rng.normal(size=(nn, 6, 6)), rng.normal(size=(nn - 1, 12, 12)),
            rng.normal(size=(nn, 6, 6)), rng.normal(size=(nn, 6, 6)), rng.uniform(1.0, 2.0, n), 0.37, 0.81, ptr, idx,
            rng.normal(size=idx.size), ptr, idx, rng.normal(size=idx.size), m, idx2, inv, N - 1, N - 1)

TWINS: tuple[Twin, ...] = (
    Twin("comb_rows", comb_rows, lambda c, S, k: c[:k] @ S[:k], _stage_sums),
    Twin("axpy_rows", lambda c, S, k: axpy_rows(S[-1], c, S, k), lambda c, S, k: S[-1] + c[:k] @ S[:k], _stage_sums),
    Twin("band_lu_solve", _band_lu, _band_lu_lapack, _banded, 1e-11),
    Twin("dense_stage_solve", dense_stage_solve, _dense_stage_numpy, _dense_stage, 1e-11),
    Twin("band_scatter", band_scatter, band_scatter_numpy, _band_entries),
    Twin("band_lu_apply", band_lu_apply, band_lu_apply_lapack, band_factors_sample, 1e-12),
    Twin("ga_iterate", ga_iterate, ga_iterate_numpy, _ga_iterate_sample),
    Twin("ga_rhs (index 3)", ga_rhs, ga_rhs_numpy, lambda rng: _ga_rhs_sample(rng, False)),
    Twin("ga_rhs (index 2)", ga_rhs, ga_rhs_numpy, lambda rng: _ga_rhs_sample(rng, True)),
    Twin("ga_update (index 3)", ga_update, ga_update_numpy, lambda rng: _ga_update_sample(rng, False)),
    Twin("ga_update (index 2)", ga_update, ga_update_numpy, lambda rng: _ga_update_sample(rng, True)),
    Twin("ga_band_matrix (unconstrained)", ga_band_matrix, ga_band_matrix_numpy,
         lambda rng: _ga_band_matrix_sample(rng, 0, False), 1e-12),
    Twin("ga_band_matrix (index 3)", ga_band_matrix, ga_band_matrix_numpy,
         lambda rng: _ga_band_matrix_sample(rng, 9, False), 1e-12),
    Twin("ga_band_matrix (index 2)", ga_band_matrix, ga_band_matrix_numpy,
         lambda rng: _ga_band_matrix_sample(rng, 9, True), 1e-12),
    Twin("ga_solve_update (index 3)", ga_solve_update, ga_solve_update_numpy,
         lambda rng: _ga_solve_update_sample(rng, False), 1e-11),
    Twin("ga_solve_update (index 2)", ga_solve_update, ga_solve_update_numpy,
         lambda rng: _ga_solve_update_sample(rng, True), 1e-11),
)
"""Kernels with numpy or LAPACK references (``schur_stage_solve`` is compared with the numpy path of
``SaddlePointSolver`` in ``tests/test_jit.py``, with the operands that path builds)."""
