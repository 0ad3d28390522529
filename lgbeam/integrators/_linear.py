"""Structured linear algebra for the half-explicit stage systems (seed 004 eq. (14)).

Each stage solves the (non-symmetric) saddle-point system

    [ M        B_iᵀ ] [V̇]   [r₁]
    [ γ B_{i+1}  0  ] [Λ] = [r₂]

by the Schur complement S = B_{i+1} M⁻¹ B_iᵀ: with M block diagonal (rods, rigid bodies) M⁻¹ is
block diagonal and S is banded, so a stage costs O(n) for n bodies. No dense matrix of the full
system is ever formed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._typing import FloatArray, Matrix


def as_csr(A: Matrix) -> sp.csr_array:
    """A CSR array view of a dense or sparse matrix."""
    return sp.csr_array(A)


def as_matrix(A: Matrix) -> np.ndarray | sp.csr_array:
    """Dense arrays stay dense (small systems: no sparse overhead); sparse ones become CSR."""
    return A if isinstance(A, np.ndarray) else sp.csr_array(A)


def block_diagonal_inverse(M: Matrix, block: int) -> sp.csr_array:
    """Inverse of a block-diagonal matrix with square blocks of size ``block``.

    Raises ``ValueError`` if ``M`` has entries outside the block diagonal (then M is not block
    diagonal with this block size and a general sparse factorisation must be used instead).
    """
    M = sp.coo_array(M)
    n = M.shape[0]
    if n % block:
        raise ValueError(f"mass matrix of size {n} is not made of {block}x{block} blocks")
    if np.any(M.row // block != M.col // block):
        raise ValueError(f"mass matrix has entries outside its {block}x{block} diagonal blocks")
    nb = n // block
    blocks = np.zeros((nb, block, block))
    np.add.at(blocks, (M.row // block, M.row % block, M.col % block), M.data)
    inv = np.linalg.inv(blocks)
    offset = np.arange(nb)[:, None, None] * block
    rows = np.broadcast_to(offset + np.arange(block)[None, :, None], inv.shape)
    cols = np.broadcast_to(offset + np.arange(block)[None, None, :], inv.shape)
    return sp.csr_array((inv.ravel(), (rows.ravel(), cols.ravel())), shape=(n, n))


DENSE_LIMIT = 48  # below this many unknowns dense numpy beats scipy.sparse's per-call overhead


def mass_inverse(M: Matrix, block: int) -> sp.csr_array | np.ndarray:
    """M⁻¹ for an SPD mass matrix: dense for tiny systems, else diagonal, block-diagonal or the
    smallest block size that works (1, ``block``, n), as CSR."""
    M = as_csr(M)
    n = M.shape[0]
    if n <= DENSE_LIMIT:
        return np.linalg.inv(M.toarray())
    for size in dict.fromkeys((1, block, n)):
        try:
            return block_diagonal_inverse(M, size)
        except ValueError:
            continue
    raise ValueError("mass matrix could not be inverted")  # pragma: no cover - size n always fits


@dataclass(frozen=True)
class SaddlePointSolver:
    """Solves the stage systems of eq. (14) with a fixed M⁻¹ (constant mass matrix)."""

    Minv: sp.csr_array | np.ndarray

    def solve(
        self, r1: FloatArray, B_i: sp.csr_array | None, B_next: sp.csr_array | None, gamma: float, r2: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Return (V̇, Λ) of ``[[M, B_iᵀ], [γ B_next, 0]] [V̇; Λ] = [r1; r2]``."""
        a = self.Minv @ r1
        if B_i is None or B_i.shape[0] == 0:
            return a, np.zeros(0)
        S = B_next @ (self.Minv @ B_i.T)
        rhs = B_next @ a - r2 / gamma
        lam = _factor(S)(rhs)
        return a - self.Minv @ (B_i.T @ lam), lam

    def explicit(self, r1: FloatArray) -> FloatArray:
        """M⁻¹ r1 (the explicit first stage)."""
        return self.Minv @ r1

    def project_velocity(self, B: sp.csr_array, v: FloatArray) -> FloatArray:
        """Mass-orthogonal projection of v onto ker B: v − M⁻¹Bᵀ(BM⁻¹Bᵀ)⁻¹Bv."""
        if B.shape[0] == 0:
            return v
        S = B @ (self.Minv @ B.T)
        return v - self.Minv @ (B.T @ _factor(S)(B @ v))

    def correction(self, B: sp.csr_array, residual: FloatArray) -> FloatArray:
        """Minimal-mass-norm δ with B δ = −residual: δ = −M⁻¹Bᵀ(BM⁻¹Bᵀ)⁻¹ residual."""
        S = B @ (self.Minv @ B.T)
        return -(self.Minv @ (B.T @ _factor(S)(residual)))


class SingularStageMatrix(RuntimeError):
    """The Schur complement B M⁻¹ Bᵀ is singular: redundant or contradictory constraints."""


def _dense_solver(S: np.ndarray):
    if not np.all(np.isfinite(S)):
        raise SingularStageMatrix("non-finite entries in the constraint Jacobian")

    def solve(rhs: FloatArray) -> FloatArray:
        try:
            x = np.linalg.solve(S, rhs)
        except np.linalg.LinAlgError as exc:
            raise SingularStageMatrix(f"B M⁻¹ Bᵀ is singular ({exc}): redundant or contradictory constraints") from exc
        if not np.all(np.isfinite(x)):
            raise SingularStageMatrix("B M⁻¹ Bᵀ is numerically singular: redundant or contradictory constraints")
        return x

    return solve


def _factor(S):
    if isinstance(S, np.ndarray):
        return _dense_solver(S)
    if S.shape[0] <= DENSE_LIMIT:
        return _dense_solver(S.toarray())
    try:
        return spla.splu(sp.csc_array(S)).solve
    except RuntimeError as exc:
        raise SingularStageMatrix(f"B M⁻¹ Bᵀ is singular ({exc}): redundant or contradictory constraints") from exc
