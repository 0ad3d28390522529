"""The polar decomposition on GL⁺(n) and the linear solves of the SO(n) polar methods (seed 003 §4.2).

``A = U P``: U ∈ SO(n) (det A > 0), P symmetric positive definite; the closest rotation to A in the
Frobenius norm, equivariant ``P(Q₁ A Q₂) = Q₁ P(A) Q₂`` (4.8). Two ways: the SVD ``A = W S Vᵀ`` gives
``U = W Vᵀ``, ``P = V S Vᵀ`` (and P's eigenbasis for free), or Newton's iteration (4.9)
``U_{k+1} = (U_k + U_k⁻ᵀ)/2`` from ``U_0 = A``.

Conventions of seed 003 ch. 4 (notes/003-ch3plus.md §C.2): ``Asym(A) = A − Aᵀ`` (no ½), the pairing on
skew matrices ``⟨X, Y⟩ = ½ Σ X_ij Y_ij`` (for n = 3, ``⟨hat a, hat b⟩ = a·b``), ``A ⊙ B = Σ a_ij b_ij``.

- Polar retraction ``Ω ↦ P(I + Ω)`` on skew Ω, and its inverse from (4.10) ``UᵀΩ + ΩU = U − Uᵀ``;
- tangent map (4.11) ``dP_A(W) = Ω`` with ``ΩP + PΩ = UᵀW − WᵀU``, and its adjoint
  ``dP*_A(Λ) = U X`` with ``XP + PX = Λ`` (the Lyapunov solve; ``dP*_A(Λ) ⊙ W = ⟨Λ, dP_A(W)⟩``);
- the skew Sylvester solve ``F Λ + Λ Fᵀ = C`` (C skew ⇒ Λ skew; n = 3 closed form
  ``A hat(x) + hat(x) Aᵀ = hat((tr A I − Aᵀ) x)``).

References
----------
Shen (2019), PhD thesis, UCSD, ch. 4, eqs. (4.8)–(4.11) and Lemma 1 (seed 003); Higham (1986),
"Computing the polar decomposition — with applications" (Newton's iteration).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from lgbeam._typing import FloatArray
from lgbeam.groups.base import hat3, vee3

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PolarFactors:
    """``A = U P`` with ``P = V diag(s) Vᵀ`` (``s`` > 0, the singular values of A), batched ``(..., n, n)``."""

    U: FloatArray
    P: FloatArray
    V: FloatArray
    s: FloatArray


def asym(A: FloatArray) -> FloatArray:
    """``Asym(A) = A − Aᵀ`` (seed 003 ch. 4 convention, no factor ½)."""
    return A - np.swapaxes(A, -1, -2)


def pair_skew(X: FloatArray, Y: FloatArray) -> FloatArray:
    """``⟨X, Y⟩ = ½ Σ X_ij Y_ij`` on skew matrices (n = 3: the dot product of the vectors)."""
    return 0.5 * np.einsum("...ij,...ij->...", X, Y)


def _check_det(A: FloatArray, det_sign: FloatArray) -> None:
    bad = ~(det_sign > 0)
    if np.any(bad):
        raise ValueError("polar: det A <= 0, so the orthogonal polar factor is not in SO(n) (or A is singular); "
                         f"{int(np.sum(bad))} matrices affected. The polar retraction needs det(I + Ω) > 0.")


def polar(A: FloatArray, method: str = "svd", tol: float = 1e-15, max_iter: int = 50) -> PolarFactors:
    """Polar decomposition ``A = U P`` of ``(..., n, n)`` matrices with det A > 0.

    Parameters
    ----------
    A : (..., n, n) array
    method : {"svd", "newton"}
        SVD (default; P's eigenbasis comes with it) or Newton's iteration (4.9), after which ``V``, ``s``
        come from ``eigh(P)``.
    tol, max_iter : Newton's stopping rule ``‖U_{k+1} − U_k‖_max ≤ tol`` and iteration cap.

    Returns
    -------
    PolarFactors
    """
    A = np.asarray(A, dtype=float)
    if method == "svd":
        W, s, Vt = np.linalg.svd(A)
        _check_det(A, np.linalg.det(W) * np.linalg.det(Vt))
        V = np.swapaxes(Vt, -1, -2)
        U = W @ Vt
        P = (V * s[..., None, :]) @ Vt
        return PolarFactors(U, P, V, s)
    if method == "newton":
        _check_det(A, np.linalg.det(A))
        U = A
        for k in range(max_iter):
            U_new = 0.5 * (U + np.swapaxes(np.linalg.inv(U), -1, -2))
            done = np.abs(U_new - U).max() <= tol * max(1.0, float(np.abs(U_new).max()))
            U = U_new
            if done:
                break
        else:
            logger.warning("polar: Newton iteration not converged after %d iterations", max_iter)
        P = np.swapaxes(U, -1, -2) @ A
        P = 0.5 * (P + np.swapaxes(P, -1, -2))
        s, V = np.linalg.eigh(P)
        return PolarFactors(U, P, V, s)
    raise ValueError(f"polar: method must be 'svd' or 'newton', got {method!r}")


def polar_retraction(Omega: FloatArray) -> FloatArray:
    """``P(I + Ω)``, the orthogonal polar factor of ``I + Ω`` for skew Ω (seed 003 §4.2)."""
    Omega = np.asarray(Omega, dtype=float)
    return polar(np.eye(Omega.shape[-1]) + Omega).U


def polar_retraction_inverse(U: FloatArray) -> FloatArray:
    """Skew Ω with ``P(I + Ω) = U``: the solution of (4.10) ``UᵀΩ + ΩU = U − Uᵀ`` (Bartels–Stewart).

    Unique where the eigenvalues of U lie in the open right half-plane (rotations by angles < π/2);
    ValueError otherwise (the Sylvester operator is singular or the solution is not skew).
    """
    U = np.asarray(U, dtype=float)
    flat = U.reshape((-1,) + U.shape[-2:])
    ev_min = min(float(np.linalg.eigvals(u).real.min()) for u in flat)
    if ev_min <= 0.0:
        raise ValueError(f"polar_retraction_inverse: U has an eigenvalue with real part {ev_min:.3g} <= 0 (a rotation "
                         "by pi/2 or more); the polar retraction does not reach it. Use smaller steps.")
    out = np.stack([sla.solve_sylvester(u.T, u, u - u.T) for u in flat])
    return (0.5 * asym(out)).reshape(U.shape)


def lyapunov(f: PolarFactors, L: FloatArray) -> FloatArray:
    """X with ``X P + P X = L`` in P's eigenbasis: ``X = V [(Vᵀ L V)_ij / (s_i + s_j)] Vᵀ``."""
    V, s = f.V, f.s
    M = np.swapaxes(V, -1, -2) @ L @ V
    M = M / (s[..., :, None] + s[..., None, :])
    return V @ M @ np.swapaxes(V, -1, -2)


def dpolar(f: PolarFactors, W: FloatArray) -> FloatArray:
    """Tangent map (4.11): ``Ω = dP_A(W)`` with ``ΩP + PΩ = UᵀW − WᵀU`` (``U̇ = U Ω``)."""
    UtW = np.swapaxes(f.U, -1, -2) @ W
    return lyapunov(f, UtW - np.swapaxes(UtW, -1, -2))


def dpolar_dual(f: PolarFactors, Lam: FloatArray) -> FloatArray:
    """Adjoint ``dP*_A(Λ) = U X``, ``XP + PX = Λ``: ``dP*_A(Λ) ⊙ W = ⟨Λ, dP_A(W)⟩`` for skew Λ."""
    return f.U @ lyapunov(f, Lam)


def sylvester_skew(F: FloatArray, C: FloatArray) -> FloatArray:
    """Skew Λ with ``F Λ + Λ Fᵀ = C`` (C skew); n = 3 by ``Λ = hat((tr F I − Fᵀ)⁻¹ vee C)``."""
    F, C = np.asarray(F, dtype=float), np.asarray(C, dtype=float)
    n = F.shape[-1]
    if n == 3:
        tr = np.trace(F, axis1=-2, axis2=-1)[..., None, None]
        x = np.linalg.solve(tr * np.eye(3) - np.swapaxes(F, -1, -2), vee3(C)[..., None])[..., 0]
        return hat3(x)
    flatF, flatC = F.reshape((-1, n, n)), C.reshape((-1, n, n))
    out = np.stack([sla.solve_sylvester(a, a.T, c) for a, c in zip(flatF, flatC)])
    return (0.5 * asym(out)).reshape(C.shape)


__all__ = ["PolarFactors", "asym", "dpolar", "dpolar_dual", "lyapunov", "pair_skew", "polar", "polar_retraction",
           "polar_retraction_inverse", "sylvester_skew"]
