"""The statics core: the saddle-point (KKT) matrix of a static Newton step assembled straight into band storage
in a fixed, bandwidth-reducing order, factorised once per state and reused, with the stability count taken from
the same assembled band (issue 34 item 3).

    A = [[K_t, Bᵀ], [B, 0]],   K_t = K_int − μ ∂f/∂q + Z(λ)                       (rods.statics)

* Order: node by node, each constraint row after the last node it couples, nodes in the natural order or a
  reverse Cuthill–McKee one (``stability.kkt_matrix``), fixed at the first assembly; A is then banded with
  half-bandwidth b (≈ 20 for a rod, independent of the mesh).
* Assembly: each part (K_int, ∂f/∂q, Z, B) is a CSR matrix with a fixed pattern; the flat position of each of
  its entries in LAPACK general band storage (row kl + ku + i − j, column j) is computed once, so one
  ``np.bincount`` scatters every part's entries (signs and the load factor applied) — no sparse sums, block
  matrices or COO conversions per Newton iteration. A part whose pattern changes rebuilds the maps.
* Solve: symmetric diagonal equilibration A' = S A S, S = diag(1/√max_i |A'_ij|) (column maxima), and LAPACK's
  banded LU with partial pivoting (``dgbtrf``/``dgbtrs``): O(n b²) per factorisation, O(n b) per solve; the
  factorisation serves every solve at that (q, λ, μ) — the Newton step, the line search's simplified step, the
  arc-length load vector, the next step's predictor.
* Stability count (``inertia``): Sylvester's law on the symmetric part of the same equilibrated band,
  #neg(Zᵀ S_sym Z) = #neg(A_sym) − m (Gould 1985; ``stability`` module docstring), from the pivots of its banded
  LDLᵀ without pivoting (``_compiled.band_ldl_pivots``) — no eigen-solve at a state. A (near-)zero
  pivot falls back to LAPACK's banded eigensolver on the same band; a non-symmetric tangent (follower loads,
  skew part > ``stability.SYM_TOL`` max|K|) to ``stability.nonsymmetric_count``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.linalg import lapack

from lgbeam._typing import FloatArray

from . import stability
from ._compiled import band_ldl_pivots


class BandedKKT:
    """Fixed-order band storage of the KKT matrix of n dofs and m constraint rows (module docstring).

    ``assemble(parts, B)`` takes the K parts as (coefficient, CSR) pairs and B (CSR) and returns the band; the
    order and bandwidth are fixed at the first call (and again only if an entry falls outside the band)."""

    def __init__(self, n: int, m: int) -> None:
        self.n, self.m, self.N = n, m, n + m
        self.pos: np.ndarray | None = None
        self.bw = 0

    def _order(self, Ks: Sequence[sp.csr_array], B: sp.csr_array) -> None:
        """The bandwidth-reducing order (``stability.kkt_matrix``) of the current pattern."""
        S = sp.csr_array(abs(Ks[0]))
        for K in Ks[1:]:
            S = sp.csr_array(S + abs(K))
        _, perm = stability.kkt_matrix(S, B)
        pos = np.empty(self.N, dtype=np.int64)
        pos[perm] = np.arange(self.N)
        self.perm, self.pos = perm, pos

    def _coords(self, Ks: Sequence[sp.csr_array], B: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols) in the fixed order of the K parts' entries, then B's, then Bᵀ's (CSR data order)."""
        assert self.pos is not None
        pos, n = self.pos, self.n
        rows, cols = [], []
        for K in (*Ks, B):
            r = np.repeat(np.arange(K.shape[0]), np.diff(K.indptr))
            rows.append(r)
            cols.append(K.indices)
        rb, cb = rows.pop(), cols.pop()
        R = np.concatenate([pos[np.concatenate(rows)] if rows else np.zeros(0, np.int64), pos[n + rb], pos[cb]])
        C = np.concatenate([pos[np.concatenate(cols)] if cols else np.zeros(0, np.int64), pos[cb], pos[n + rb]])
        return R, C

    def assemble(self, parts: Sequence[tuple[float, sp.csr_array]], B: sp.csr_array) -> tuple[FloatArray, np.ndarray]:
        """(band (3b + 1, n + m) of A = [[Σ c_k K_k, Bᵀ], [B, 0]] in the fixed order, the flat band positions of
        the K entries and of their transposes (2, nnz K))."""
        Ks = [sp.csr_array(K) for _, K in parts]
        B = sp.csr_array(B)
        if self.pos is None:
            self._order(Ks, B)
        R, C = self._coords(Ks, B)
        bw = int(np.max(np.abs(R - C), initial=0))
        if bw > self.bw:  # the first call, or a new coupling: widen the band (storage and row map)
            self.bw = bw
            self.shape = (3 * bw + 1, self.N)  # dgbtrf's storage: b rows of fill above the 2b + 1 diagonals
            band_row = np.arange(self.shape[0])[:, None] - 2 * bw + np.arange(self.N)[None, :]
            self._row_of = np.clip(band_row, 0, self.N - 1)
        bw, N = self.bw, self.N
        nk = R.size - 2 * B.nnz
        flat = (2 * bw + R - C) * N + C
        val = np.concatenate([*(c * K.data for (c, _), K in zip(parts, Ks, strict=True)), B.data, B.data])
        # with weights, bincount sums float64 (numpy's stubs type every bincount as intp)
        counts = np.bincount(flat, weights=val, minlength=self.shape[0] * N)
        ab = np.asarray(counts, dtype=np.float64).reshape(self.shape)
        kpos = np.stack([flat[:nk], (2 * bw + C[:nk] - R[:nk]) * N + R[:nk]])
        return ab, kpos


class KKTFactor:
    """The banded LU of one equilibrated KKT matrix and, on demand, the stability count (module docstring)."""

    def __init__(self, kkt: BandedKKT, ab: FloatArray, kpos: np.ndarray) -> None:
        self.ab, self.kpos, self.m = ab, kpos, kkt.m
        self.bw, self.N, self.perm = kkt.bw, kkt.N, kkt.perm  # this band's (a later one may be wider)
        bw = self.bw
        colmax = np.max(np.abs(ab), axis=0)
        self.s = 1.0 / np.sqrt(np.where(colmax > 0.0, colmax, 1.0))
        self.abs_ = ab * self.s[kkt._row_of] * self.s[None, :]
        lu, piv, info = lapack.dgbtrf(self.abs_, bw, bw)
        self.ok = info == 0
        self.lu, self.piv = lu, piv

    def solve(self, rhs: FloatArray) -> FloatArray:
        """A⁻¹ rhs in the original order (rhs: (n + m,) or (n + m, k))."""
        perm, s = self.perm, self.s
        b = np.asarray(rhs, dtype=float)[perm]
        b = (b.T * s).T
        x, _ = lapack.dgbtrs(self.lu, self.bw, self.bw, b, self.piv)
        x = (x.T * s).T
        out = np.empty_like(x)
        out[perm] = x
        return out

    def symmetric_lower(self) -> FloatArray:
        """The lower band (b + 1, n + m) of the symmetric part of the equilibrated matrix."""
        bw, N, a = self.bw, self.N, self.abs_
        low = np.zeros((bw + 1, N))
        low[0] = a[2 * bw]
        for k in range(1, bw + 1):  # one slice per band offset (b of them), not a loop over rows
            low[k, : N - k] = 0.5 * (a[2 * bw + k, : N - k] + a[2 * bw - k, k:])
        return low

    def inertia(self, mass: Callable[[], Any], K: Callable[[], tuple[Any, Any]]) -> tuple[int, int]:
        """(negative, (near-)zero) eigenvalues of the tangent on ker B (``stability.negative_count``'s counts):
        the LDLᵀ pivots of the symmetric part; ``mass``/``K`` give M and (K_t, B) for the non-symmetric route."""
        flat = self.ab.ravel()
        k = flat[self.kpos[0]]
        skew = float(np.max(np.abs(k - flat[self.kpos[1]]), initial=0.0))
        kmax = float(np.max(np.abs(k), initial=0.0))
        m = self.m
        if skew > stability.SYM_TOL * kmax:
            Kt, B = K()
            return stability.nonsymmetric_count(Kt, mass(), B)
        low = self.symmetric_lower()
        if stability.NUMBA_ENABLED:
            d = band_ldl_pivots(low)
            if np.all(np.isfinite(d)) and np.min(np.abs(d)) > 64 * np.finfo(float).eps * float(np.max(np.abs(d))):
                return int(np.sum(d < 0)) - m, 0
        neg = la.eigvals_banded(low, lower=True, select="v", select_range=(-np.inf, -stability.ZERO_TOL))
        near = la.eigvals_banded(low, lower=True, select="v", select_range=(-stability.ZERO_TOL, stability.ZERO_TOL))
        return int(neg.size) - m, int(near.size)
