"""Observability tools: observability matrix and Gramian (continuous and discrete, time-invariant and
time-varying), null space, subspace comparison and the chain property of transition matrices.

For ``ẋ = A x``, ``z = C x`` (thesis (1.45)) the system is observable iff the observability matrix
``O = [C; CA; …; CA^{n−1}]`` has full column rank iff the Gramian
``W_o(t) = ∫₀ᵗ e^{Aᵀτ} Cᵀ C e^{Aτ} dτ`` is nonsingular (Thm 9); the unobservable subspace is
``Null(O)`` (1.46). For a linearised discrete filter with transition matrices ``Φ_{k+1,k}`` and
measurement Jacobians ``H_k`` the local observability matrix is
``M = [H_0; H_1 Φ_{1,0}; H_2 Φ_{2,1} Φ_{1,0}; …]`` (Huang et al. 2008, eq. (30)) and its Gramian ``MᵀM``.

References
----------
Shen, X. (2019), PhD thesis, UCSD (seed 003): eqs. (1.45), (1.46), Thm 9, (5.1).
Van Loan, C. F. (1978), "Computing integrals involving the matrix exponential", IEEE TAC 23(3), Thm 1.
Huang, G. P., Mourikis, A. I., Roumeliotis, S. I. (2008), ICRA, §III.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np
import scipy.linalg as sla

from lgbeam._typing import FloatArray

logger = logging.getLogger(__name__)

__all__ = [
    "chain_defect",
    "gramian",
    "gramian_tv",
    "null_space",
    "observability_matrix",
    "observability_matrix_tv",
    "subspace_angle",
    "unobservable_dimension",
]


def observability_matrix(A: FloatArray, C: FloatArray) -> FloatArray:
    """``O = [C; CA; …; CA^{n−1}]`` of ``ẋ = A x``, ``z = C x``, shape ``(n m, n)`` (thesis Thm 9)."""
    A, C = np.asarray(A, dtype=float), np.atleast_2d(np.asarray(C, dtype=float))
    n = A.shape[0]
    if A.shape != (n, n) or C.shape[1] != n:
        raise ValueError(f"observability_matrix needs A (n, n) and C (m, n); got {A.shape} and {C.shape}")
    blocks, CA = [], C
    for _ in range(n):
        blocks.append(CA)
        CA = CA @ A
    return np.vstack(blocks)


def observability_matrix_tv(H: Sequence[FloatArray], Phi: Sequence[FloatArray]) -> FloatArray:
    """Local observability matrix ``[H_0; H_1 Φ_{1,0}; H_2 Φ_{2,1} Φ_{1,0}; …]`` of a linearised filter.

    ``Phi[k]`` is ``Φ_{k+1,k}``; ``len(Phi) >= len(H) − 1``.
    """
    if len(H) == 0 or len(Phi) < len(H) - 1:
        raise ValueError(f"need at least one H and len(Phi) >= len(H) - 1; got {len(H)} and {len(Phi)}")
    n = np.asarray(H[0]).shape[1]
    T, rows = np.eye(n), []
    for k, Hk in enumerate(H):
        rows.append(np.asarray(Hk, dtype=float) @ T)
        if k < len(H) - 1:
            T = np.asarray(Phi[k], dtype=float) @ T
    return np.vstack(rows)


def gramian(A: FloatArray, C: FloatArray, t: float) -> FloatArray:
    """``W_o(t) = ∫₀ᵗ e^{Aᵀτ} Cᵀ C e^{Aτ} dτ`` by Van Loan's block exponential.

    ``expm(t [[−Aᵀ, CᵀC], [0, A]]) = [[F₁₁, F₁₂], [0, F₂₂]]`` gives ``W_o(t) = F₂₂ᵀ F₁₂``.
    """
    A, C = np.asarray(A, dtype=float), np.atleast_2d(np.asarray(C, dtype=float))
    n = A.shape[0]
    if not t > 0:
        raise ValueError(f"Gramian horizon t must be > 0, got {t}")
    M = np.zeros((2 * n, 2 * n))
    M[:n, :n], M[:n, n:], M[n:, n:] = -A.T, C.T @ C, A
    F = sla.expm(t * M)
    W = F[n:, n:].T @ F[:n, n:]
    return 0.5 * (W + W.T)


def gramian_tv(H: Sequence[FloatArray], Phi: Sequence[FloatArray]) -> FloatArray:
    """Discrete observability Gramian ``Σ_k Φ_{k,0}ᵀ H_kᵀ H_k Φ_{k,0} = MᵀM``."""
    M = observability_matrix_tv(H, Phi)
    return M.T @ M


def null_space(M: FloatArray, rtol: float = 1e-10) -> FloatArray:
    """Orthonormal basis ``(n, k)`` of ``Null(M)``: singular values below ``rtol · σ_max`` count as zero."""
    return sla.null_space(np.asarray(M, dtype=float), rcond=rtol)


def unobservable_dimension(M: FloatArray, rtol: float = 1e-10) -> int:
    """``n − rank(M)`` with the same rank threshold as :func:`null_space`."""
    return int(null_space(M, rtol).shape[1])


def subspace_angle(U: FloatArray, V: FloatArray) -> float:
    """Largest principal angle (rad) between ``span U`` and ``span V``; 0 when they coincide."""
    return float(np.max(sla.subspace_angles(np.asarray(U, dtype=float), np.asarray(V, dtype=float))))


def chain_defect(transition: Callable[[FloatArray, FloatArray], FloatArray], x0: FloatArray, x1: FloatArray,
                 x2: FloatArray) -> float:
    """``max |Φ(x₂, x₁) Φ(x₁, x₀) − Φ(x₂, x₀)|`` for a two-point transition matrix ``Φ(x_next, x_prev)`` (5.1)."""
    return float(np.abs(transition(x2, x1) @ transition(x1, x0) - transition(x2, x0)).max())
