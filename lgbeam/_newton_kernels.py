"""Compiled (numba) Newton arithmetic shared by the integrators and the discretisations' fused iterations
(``lgbeam/integrators/_compiled.py``, ``lgbeam/discretisations/rods/_compiled.py``): the banded substitution
``band_lu_apply`` (LAPACK's dgbtrs with a permutation folded in) and the generalized-α iterate, right-hand side
and update (``ga_iterate``/``ga_rhs``/``ga_update``/``ga_solve_update``), with their numpy/LAPACK references.

A base module (docs/architecture.md): a discretisation that fuses a Newton iteration into its residual kernel
calls these without importing the integrators; the integrators re-export them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dgbtrf, dgbtrs

from lgbeam._numba import njit
from lgbeam._typing import FloatArray

__all__ = ["band_factors_sample", "band_lu_apply", "band_lu_apply_lapack", "ga_iterate", "ga_iterate_numpy", "ga_rhs",
           "ga_rhs_numpy", "ga_solve_update", "ga_solve_update_numpy", "ga_update", "ga_update_numpy"]


@njit
def band_lu_apply(lub, kl, ku, piv, perm, b):  # type: ignore[no-untyped-def]
    """x with A x = b from the band LU (``dgbtrf``'s ``lub``, 0-based ``piv``) of A[perm][:, perm]: LAPACK's
    dgbtrs with the permutation folded in (``_banded.BandedLU.solve``). Reference: ``band_lu_apply_lapack``."""
    n = b.shape[0]
    x = np.empty(n)
    for i in range(n):
        x[i] = b[perm[i]]
    kv = kl + ku
    for j in range(n - 1):  # L: row interchanges and the multipliers below the diagonal
        lp = piv[j]
        xj = x[lp]
        if lp != j:
            x[lp] = x[j]
            x[j] = xj
        lm = min(kl, n - 1 - j)
        col = lub[kv + 1:kv + 1 + lm, j]  # contiguous views: the loops below vectorise
        xs = x[j + 1:j + 1 + lm]
        for i in range(lm):
            xs[i] -= col[i] * xj
    for j in range(n - 1, -1, -1):  # U: kl + ku superdiagonals
        xj = x[j] / lub[kv, j]
        x[j] = xj
        i0 = max(0, j - kv)
        col = lub[kv - (j - i0):kv, j]
        xs = x[i0:j]
        for i in range(j - i0):
            xs[i] -= col[i] * xj
    out = np.empty(n)
    for i in range(n):
        out[perm[i]] = x[i]
    return out



@njit
def ga_iterate(th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd):  # type: ignore[no-untyped-def]
    """(θ = θ̃ + B_nᵀν, v_{n+1}, v̇_{n+1}) of the iterate θ̃ = base + βh² a_{n+1}."""
    a1 = (th - base) / bh2
    return th + Bnu, v_base + c_v * a1, vd_base + c_vd * a1


@njit
def ga_rhs(mdiag, vd1, g1, btl, ph, bv, s, gp, m, idx2):  # type: ignore[no-untyped-def]
    """The scaled right-hand side [−r/β'; −Φ; −(B v + Φ_t)/γ'] with r = M v̇ + g + Bᵀλ, max|g| and max|M v̇|."""
    n = vd1.shape[0]
    mvd = mdiag * vd1
    out = np.empty(n + m + (m if idx2 else 0))
    out[:n] = -s * (mvd + g1 + btl)
    if m:
        out[n:n + m] = -ph
    if idx2:
        out[n + m:] = bv * (-1.0 / gp)
    return out, np.abs(g1).max(), np.abs(mvd).max()


@njit
def ga_update(dx, th, lam1, nu, Bnu, bn_ptr, bn_idx, bn_val, s, m, idx2):  # type: ignore[no-untyped-def]
    """Apply the Newton correction dx = [δθ̃; δν; δλ̃] (λ += δλ̃/s, B_nᵀν updated through B_n's CSR
    arrays); return the new (θ̃, λ, ν, B_nᵀν) and max|δθ̃|, max|δλ|, max|λ|, max|B_nᵀδν|."""
    n = th.shape[0]
    d_th = dx[:n]
    th_new = th + d_th
    d_lam = 0.0
    lam_max = 0.0
    lam_new = lam1
    nu_new = nu
    Bnu_new = Bnu
    d_bnu = 0.0
    if m:
        off = n + (m if idx2 else 0)
        dlam = dx[off:] / s
        lam_new = lam1 + dlam
        d_lam = np.abs(dlam).max()
        lam_max = np.abs(lam_new).max()
    if idx2:
        dnu = dx[n:n + m]
        nu_new = nu + dnu
        dB = np.zeros(n)
        for r in range(m):
            for k in range(bn_ptr[r], bn_ptr[r + 1]):
                dB[bn_idx[k]] += bn_val[k] * dnu[r]
        Bnu_new = Bnu + dB
        d_bnu = np.abs(dB).max()
    return th_new, lam_new, nu_new, Bnu_new, np.abs(d_th).max(), d_lam, lam_max, d_bnu



@njit
def ga_solve_update(lub, kl, ku, piv, perm, rhs, th, lam1, nu, Bnu, bn_ptr, bn_idx, bn_val, s, m, idx2):  # type: ignore[no-untyped-def]
    """One generalized-α correction in one call: dx = A⁻¹ rhs from the band LU (``band_lu_apply``), then
    ``ga_update``; returns (all of dx finite, *ga_update's results). Reference: ``ga_solve_update_numpy``."""
    dx = band_lu_apply(lub, kl, ku, piv, perm, rhs)
    finite = True
    for i in range(dx.shape[0]):
        if not np.isfinite(dx[i]):
            finite = False
            break
    th_new, lam_new, nu_new, Bnu_new, d_th, d_lam, lam_max, d_bnu = ga_update(dx, th, lam1, nu, Bnu, bn_ptr, bn_idx,
                                                                             bn_val, s, m, idx2)
    return finite, th_new, lam_new, nu_new, Bnu_new, d_th, d_lam, lam_max, d_bnu



def band_lu_apply_lapack(lub: FloatArray, kl: int, ku: int, piv: np.ndarray, perm: np.ndarray,
                         b: FloatArray) -> FloatArray:
    """Reference of ``band_lu_apply``: LAPACK's dgbtrs on b[perm], scattered back through perm."""
    x, info = dgbtrs(lub, kl, ku, b[perm], piv)
    assert info == 0
    out = np.empty_like(x)
    out[perm] = x
    return out


def band_factors_sample(rng: np.random.Generator, n: int = 36, kl: int = 4, ku: int = 6) -> tuple:  # type: ignore[type-arg]
    """dgbtrf's factors of a random band matrix that needs row exchanges, a permutation and a right-hand side."""
    ab = np.zeros((2 * kl + ku + 1, n), order="F")
    for j in range(n):
        for i in range(max(0, j - ku), min(n, j + kl + 1)):
            ab[kl + ku + i - j, j] = rng.normal() + (3.0 if i == j and rng.random() < 0.5 else 0.0)
    lub, piv, info = dgbtrf(ab, kl, ku)
    assert info == 0
    return lub, kl, ku, np.ascontiguousarray(piv, dtype=np.int64), rng.permutation(n).astype(np.int64), rng.normal(size=n)


def ga_iterate_numpy(th: FloatArray, Bnu: FloatArray, base: FloatArray, bh2: float, v_base: FloatArray, c_v: float,
                     vd_base: FloatArray, c_vd: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Reference of ``ga_iterate``: a = (θ̃ − base)/(βh²), (θ̃ + B_nᵀν, v_base + c_v a, v̇_base + c_v̇ a)."""
    acc = (th - base) / bh2
    return th + Bnu, v_base + c_v * acc, vd_base + c_vd * acc


def ga_rhs_numpy(mdiag: FloatArray, vd1: FloatArray, g1: FloatArray, btl: FloatArray, ph: FloatArray, bv: FloatArray,
                 s: float, gp: float, m: int, idx2: bool) -> tuple[FloatArray, float, float]:
    """Reference of ``ga_rhs``: [−s (M v̇ + g + Bᵀλ); −Φ; −(B v + Φ_t)/γ'] (the last block for index 2 only)."""
    mvd = mdiag * vd1
    parts = [-s * (mvd + g1 + btl), -ph[:m]] + ([-bv / gp] if idx2 else [])
    return np.concatenate(parts), float(np.abs(g1).max()), float(np.abs(mvd).max())


def ga_update_numpy(dx: FloatArray, th: FloatArray, lam1: FloatArray, nu: FloatArray, Bnu: FloatArray,
                    bn_ptr: np.ndarray, bn_idx: np.ndarray, bn_val: FloatArray, s: float, m: int,
                    idx2: bool) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, float, float, float, float]:
    """Reference of ``ga_update``: θ̃ += δθ̃, λ += δλ̃/s, ν += δν, B_nᵀν += B_nᵀδν (B_n as a scipy CSR matrix)."""
    n = th.shape[0]
    off = n + (m if idx2 else 0)
    dlam = dx[off:] / s
    lam = lam1 + dlam
    dnu = dx[n:n + m] if idx2 else np.zeros(m)
    dB = sp.csr_array((bn_val, bn_idx, bn_ptr), shape=(m, n)).T @ dnu
    return (th + dx[:n], lam, nu + dnu, Bnu + dB, float(np.abs(dx[:n]).max()), float(np.abs(dlam).max()),
            float(np.abs(lam).max()), float(np.abs(dB).max()) if idx2 else 0.0)


def ga_solve_update_numpy(lub: FloatArray, kl: int, ku: int, piv: np.ndarray, perm: np.ndarray, rhs: FloatArray,
                          *update: object) -> tuple[object, ...]:
    """Reference of ``ga_solve_update``: LAPACK's dgbtrs (``band_lu_apply_lapack``), then ``ga_update_numpy``."""
    dx = band_lu_apply_lapack(lub, kl, ku, piv, perm, rhs)
    return (bool(np.isfinite(dx).all()), *ga_update_numpy(dx, *update))  # type: ignore[arg-type]

