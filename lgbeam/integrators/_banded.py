"""Banded LU of a sparse Newton (KKT) matrix: a bandwidth-reducing ordering, LAPACK's ``dgbtrf`` and a compiled
``dgbtrs``.

The implicit mechanical methods factorise their iteration matrix rarely (it is reused across iterations and
steps while Newton contracts) and solve with it several times per step, so the cost that counts is the solve.
For a rod (or a chain of them) the matrix is block-banded once the unknowns are ordered along the rod: each
node's six velocity unknowns, then the constraint rows (and their multipliers) whose B row starts at that
node. ``band_order`` finds this order from the pattern alone (no discretisation is imported): a velocity
unknown's key is its block (``block`` entries per node), a constraint row's key is the first block its
own row touches (else its column), plus ½. When the band is narrow (``BandedLU.fits``) the matrix is stored as
LAPACK band storage, factorised by ``scipy.linalg.lapack.dgbtrf`` (partial pivoting within the band) and each
solve is one compiled forward/back substitution with the permutation folded in (``_compiled.band_lu_apply``), which removes the
per-call overhead of the general sparse solver — at N = 16 it is most of the cost of a solve. Otherwise the
caller keeps SuperLU.

The ordering is computed once per pattern (the symbolic analysis is reused: a refactorisation of the same
pattern only scatters the values into band storage). The scatter is one compiled pass over the entries
(``_compiled.band_scatter``, twin of ``band_scatter_numpy``) at positions ``band_positions`` computed once per
pattern: ab[kl + ku + i − j, j] += a_ij in Fortran order, the layout ``dgbtrf`` works in (no copy).

References
----------
Anderson et al. (1999), *LAPACK Users' Guide*, 3rd ed., §§2.4.2 and 5.1.3 (band storage, xGBTRF/xGBTRS);
Golub & Van Loan (2013), *Matrix Computations*, 4th ed., §4.3 (banded Gaussian elimination with pivoting).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.linalg import lapack

from lgbeam._numba import ENABLED
from lgbeam._typing import FloatArray
from lgbeam.integrators._compiled import band_lu_apply, band_scatter, band_scatter_numpy

BAND_FRACTION = 0.5  # band storage (2kl + ku + 1 rows) at most this fraction of n: else the general sparse LU


def band_order(K: sp.csr_array, n_velocity: int, block: int) -> np.ndarray:
    """A permutation that lines the unknowns up along the structure's node blocks (module docstring)."""
    n = K.shape[0]
    key = np.empty(n)
    key[:n_velocity] = np.arange(n_velocity) // block
    if n > n_velocity:
        first = np.full(n - n_velocity, np.inf)
        for C in (K[n_velocity:, :n_velocity].tocoo(), K[:n_velocity, n_velocity:].T.tocoo()):  # rows, then columns
            if not np.all(np.isfinite(first)):
                cand = np.full(n - n_velocity, np.inf)
                np.minimum.at(cand, C.row, C.col // block)
                first = np.where(np.isfinite(first), first, cand)
        key[n_velocity:] = np.where(np.isfinite(first), first, 0.0) + 0.5
    return np.argsort(key, kind="stable")


def band_width(r: np.ndarray, c: np.ndarray, perm: np.ndarray) -> tuple[int, int]:
    """(kl, ku) of the matrix with entries at (r, c) once its unknowns are put in the order ``perm``."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    d = inv[r] - inv[c]
    return (int(max(d.max(), 0)), int(max(-d.min(), 0))) if d.size else (0, 0)


def band_positions(r: np.ndarray, c: np.ndarray, perm: np.ndarray, kl: int, ku: int) -> np.ndarray:
    """Flat (Fortran-order) positions in band storage (2kl + ku + 1, n) of the entries (r, c) once the unknowns
    are put in the order ``perm``: (kl + ku + i − j) + (2kl + ku + 1)·j with (i, j) the permuted (r, c)."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size)
    ri, ci = inv[r], inv[c]
    pos = (kl + ku + ri - ci) + (2 * kl + ku + 1) * ci
    small = (2 * kl + ku + 1) * perm.size < np.iinfo(np.int32).max  # int32 halves the memory kept per pattern
    return np.ascontiguousarray(pos, dtype=np.int32 if small else np.int64)


@dataclass(frozen=True)
class BandedLU:
    """LU factors of A[perm][:, perm] in LAPACK band storage; ``solve(b)`` returns A⁻¹ b."""

    n: int
    kl: int
    ku: int
    lub: FloatArray
    piv: np.ndarray
    perm: np.ndarray

    @staticmethod
    def bandwidth(K: Any, perm: np.ndarray) -> tuple[int, int]:
        """(kl, ku) of K[perm][:, perm]."""
        C = sp.coo_array(K)
        return band_width(C.row, C.col, perm)

    @staticmethod
    def fits(n: int, kl: int, ku: int) -> bool:
        """Band storage worth it: at most ``BAND_FRACTION`` of the dense matrix."""
        return 2 * kl + ku + 1 <= BAND_FRACTION * n

    @staticmethod
    def factor(K: Any, perm: np.ndarray, kl: int, ku: int) -> BandedLU | None:
        """Factorise K (square, sparse) in the order ``perm``; None when LAPACK reports a zero pivot."""
        C = sp.coo_array(K)
        C.sum_duplicates()
        return BandedLU.from_entries(C.row, C.col, C.data, K.shape[0], perm, kl, ku)

    @staticmethod
    def from_entries(r: np.ndarray, c: np.ndarray, v: FloatArray, n: int, perm: np.ndarray, kl: int,
                     ku: int) -> BandedLU | None:
        """Factorise the n × n matrix with entries (r, c, v) (duplicates summed) in the order ``perm``."""
        return BandedLU.from_positions(band_positions(r, c, perm, kl, ku), v, n, perm, kl, ku)

    @staticmethod
    def from_positions(pos: np.ndarray, v: FloatArray, n: int, perm: np.ndarray, kl: int, ku: int,
                       compiled: bool = ENABLED) -> BandedLU | None:
        """Factorise the matrix whose entries v sit at the band positions ``pos`` (``band_positions``, kept per
        pattern by the caller); ``compiled`` picks ``_compiled.band_scatter`` or its numpy reference."""
        scatter = band_scatter if compiled else band_scatter_numpy
        ab = scatter(pos, np.ascontiguousarray(v, dtype=float), 2 * kl + ku + 1, n)
        lub, piv, info = lapack.dgbtrf(ab, kl, ku, overwrite_ab=1)
        if info != 0:
            return None
        return BandedLU(n, kl, ku, lub, np.ascontiguousarray(piv, dtype=np.int64), np.ascontiguousarray(perm, dtype=np.int64))

    @staticmethod
    def from_band(ab: FloatArray, n: int, perm: np.ndarray, kl: int, ku: int) -> BandedLU | None:
        """Factorise the matrix already in band storage ``ab`` (2kl + ku + 1, n), Fortran order, unknowns in the
        order ``perm`` (overwritten); None when LAPACK reports a zero pivot."""
        lub, piv, info = lapack.dgbtrf(ab, kl, ku, overwrite_ab=1)
        if info != 0:
            return None
        return BandedLU(n, kl, ku, lub, np.ascontiguousarray(piv, dtype=np.int64),
                        np.ascontiguousarray(perm, dtype=np.int64))

    def solve(self, b: FloatArray) -> FloatArray:
        return band_lu_apply(self.lub, self.kl, self.ku, self.piv, self.perm, np.ascontiguousarray(b, dtype=float))


__all__ = ["BAND_FRACTION", "BandedLU", "band_order", "band_positions", "band_scatter_numpy", "band_width"]
