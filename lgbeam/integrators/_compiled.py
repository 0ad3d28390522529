"""Compiled (numba) twins of the half-explicit stage arithmetic: stage sums, banded LU, stage solves.

``comb_rows``/``axpy_rows`` are the stage sums of ``half_explicit`` (numpy: ``c[:k] @ S[:k]``);
``band_lu_solve`` is LAPACK's unblocked dgbtf2 + dgbtrs; ``dense_stage_solve``/``schur_stage_solve`` are
the numpy paths of ``_linear.SaddlePointSolver`` in one call (``SaddlePointSolver(compiled=...)`` picks).
``TWINS`` pairs kernels with numpy/LAPACK references for ``tests/test_jit.py``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dgbsv

from lgbeam._numba import ENABLED, Twin, njit
from lgbeam._typing import FloatArray

__all__ = ["ENABLED", "TWINS", "axpy_rows", "band_lu_solve", "band_scatter", "band_scatter_numpy", "comb_rows", "dense_stage_solve", "schur_stage_solve"]


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


TWINS: tuple[Twin, ...] = (
    Twin("comb_rows", comb_rows, lambda c, S, k: c[:k] @ S[:k], _stage_sums),
    Twin("axpy_rows", lambda c, S, k: axpy_rows(S[-1], c, S, k), lambda c, S, k: S[-1] + c[:k] @ S[:k], _stage_sums),
    Twin("band_lu_solve", _band_lu, _band_lu_lapack, _banded, 1e-11),
    Twin("dense_stage_solve", dense_stage_solve, _dense_stage_numpy, _dense_stage, 1e-11),
    Twin("band_scatter", band_scatter, band_scatter_numpy, _band_entries),
)
"""Kernels with numpy or LAPACK references (``schur_stage_solve`` is compared with the numpy path of
``SaddlePointSolver`` in ``tests/test_jit.py``, with the operands that path builds)."""
