"""GL⁺(3) and the semidirect product T*GL⁺(3) ≅ GL⁺(3) ⋉ gl(3)* (seed 002 §5.2).

``GLp3``: 3×3 matrices with det > 0, algebra ``gl(3)`` in row-major coordinates ``(..., 9)``
(``hat`` = reshape), pairing ``⟨P, V⟩ = tr(PᵀV)`` = the Euclidean product of the coordinates.
``exp`` is ``lgbeam.groups.expm.expm`` (Higham's scaling and squaring); ``log`` the real principal logarithm, refused (ValueError) when the
matrix has a real eigenvalue ≤ 0 (no real principal log; ``det F ≤ 0`` is refused first).

``SemidirectGL3``: points ``(F, P)`` stored flat ``(..., 18)`` = ``[F row-major, P row-major]``, with
(notes/002.md §3.4; seed 002 §5.2, erratum 2 of notes/002.md §7)

    (F₁, P₁)(F₂, P₂) = (F₁F₂, P₁ + Ad*_{F₁⁻¹} P₂),   Ad*_{F⁻¹} P = F⁻ᵀ P Fᵀ,
    (F, P)⁻¹ = (F⁻¹, −Fᵀ P F⁻ᵀ),
    Exp(ξ, μ) = (e^ξ, ∫₀¹ e^{−tξᵀ} μ e^{tξᵀ} dt) = (e^ξ, φ₁(K) μ),   K μ = −ξᵀμ + μξᵀ,

(erratum 3: the seed's ``dexp_ξ(μ)`` means this ``dexp*_{−ξ} μ``), ``Log(F, P) = (log F, φ₁(K)⁻¹ P)``.
φ₁(K) is the top-right block of ``expm([[K, I], [0, 0]])``. The Lie algebra bracket follows from the
action ρ(F) P = F⁻ᵀ P Fᵀ, ρ'(ξ) = −ad*_ξ (``ad*_ξ P = ξᵀP − Pξᵀ``):
``[(ξ₁, μ₁), (ξ₂, μ₂)] = ([ξ₁, ξ₂], −ad*_{ξ₁} μ₂ + ad*_{ξ₂} μ₁)``.

Both groups follow lgbeam's tangent convention ``T(ξ) = φ₁(−ad_ξ)`` (left trivialisation, docs/conventions.md);
the right-trivialised ``dexp`` of seed 002 is ``T(−ξ)`` (``lgbeam.groups.duals``). ``logm`` is not
batched in scipy: ``log`` loops over a batch (used once per step at most).

References
----------
Celledoni & Owren, "Preserving first integrals with symmetric Lie group methods", §5.2 (seed 002);
Higham (2008), *Functions of Matrices*, §10.7 (the φ₁ block trick) and §11 (principal logarithm).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla

from lgbeam._typing import FloatArray
from lgbeam.groups.base import GroupBase, as_array, check_finite
from lgbeam.groups.expm import expm

logger = logging.getLogger(__name__)

_I3 = np.eye(3)
_I9 = np.eye(9)


def phi1_block(K: FloatArray) -> FloatArray:
    """φ₁(K) = Σ Kᵏ/(k+1)! of square matrices ``(..., m, m)``, the top-right block of ``expm([[K, I], [0, 0]])``."""
    m = K.shape[-1]
    big = np.zeros(K.shape[:-2] + (2 * m, 2 * m))
    big[..., :m, :m] = K
    big[..., :m, m:] = np.eye(m)
    return expm(big)[..., :m, m:]


def ad_matrix(xi: FloatArray) -> FloatArray:
    """``ad_ξ V = ξV − Vξ`` as a 9×9 matrix on row-major coordinates: ``ξ ⊗ I − I ⊗ ξᵀ``."""
    X = np.asarray(xi, dtype=float).reshape(xi.shape[:-1] + (3, 3))
    return _kron(X, _I3) - _kron(_I3, np.swapaxes(X, -1, -2))


def coad_matrix(xi: FloatArray) -> FloatArray:
    """``ad*_ξ P = ξᵀP − Pξᵀ`` (the dual of ``ad_ξ`` under the trace pairing) as a 9×9 matrix."""
    return np.swapaxes(ad_matrix(xi), -1, -2)


def _kron(A: FloatArray, B: FloatArray) -> FloatArray:
    """Batched Kronecker product of 3×3 matrices, ``(..., 9, 9)``."""
    out = A[..., :, None, :, None] * B[..., None, :, None, :]
    return out.reshape(np.broadcast_shapes(A.shape[:-2], B.shape[:-2]) + (9, 9))


def real_logm(F: FloatArray, name: str = "GLp3") -> FloatArray:
    """Real principal logarithm of one matrix with det > 0; ValueError without one (branch-safe)."""
    ev = np.linalg.eigvals(F)
    neg = (np.abs(ev.imag) <= 1e-12 * max(1.0, float(np.abs(ev).max()))) & (ev.real <= 0.0)
    if np.any(neg):
        raise ValueError(f"{name}: the matrix has a real eigenvalue {ev[neg][0].real:.6g} <= 0, so no real principal "
                         "logarithm exists (the step left the domain of log); reduce the step size.")
    L = sla.logm(F)
    if np.iscomplexobj(L):
        if np.abs(L.imag).max() > 1e-10 * max(1.0, float(np.abs(L.real).max())):
            raise ValueError(f"{name}: logm returned a complex logarithm (imaginary part {np.abs(L.imag).max():.3g}); "
                             "the matrix is outside the principal branch")
        L = L.real
    return np.asarray(L, dtype=float)


def check_det_positive(name: str, F: FloatArray, what: str = "deformation gradient F") -> None:
    """ValueError when some ``det F ≤ 0`` (singular or orientation-reversing)."""
    det = np.linalg.det(F)
    bad = ~(det > 0.0)
    if np.any(bad):
        idx = tuple(np.argwhere(np.atleast_1d(bad))[0]) if bad.ndim else ()
        raise ValueError(f"{name}: {what} at batch index {idx} has det F = {np.atleast_1d(det).ravel()[0]:.6g} <= 0 "
                         "(singular or inverted); GL+(3) needs det F > 0. Check the initial deformation gradient.")


@dataclass(frozen=True)
class GLp3(GroupBase):
    """GL⁺(3), 3×3 matrices with positive determinant; see the module docstring."""

    @property
    def name(self) -> str:
        return "GLp3"

    @property
    def dim(self) -> int:
        return 9

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (3, 3)

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        return np.broadcast_to(_I3, tuple(batch) + (3, 3)).copy()

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        return np.matmul(self._elem(a, "a"), self._elem(b, "b"))

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        check_det_positive(self.name, a)
        return np.asarray(np.linalg.inv(a), dtype=np.float64)

    def hat(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        return xi.reshape(xi.shape[:-1] + (3, 3))

    def vee(self, X: FloatArray) -> FloatArray:
        X = as_array(self.name, "algebra matrix", X, (3, 3))
        return X.reshape(X.shape[:-2] + (9,))

    def exp(self, xi: FloatArray) -> FloatArray:
        return expm(self.hat(xi))

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        check_det_positive(self.name, a)
        flat = a.reshape(-1, 3, 3)
        out = np.stack([real_logm(F, self.name) for F in flat])
        return out.reshape(a.shape[:-2] + (9,))

    def ad(self, xi: FloatArray) -> FloatArray:
        return ad_matrix(self._tan(xi))

    def Ad(self, a: FloatArray) -> FloatArray:
        """``Ad_F V = F V F⁻¹`` as a 9×9 matrix: ``F ⊗ F⁻ᵀ``."""
        a = self._elem(a)
        return _kron(a, np.swapaxes(np.linalg.inv(a), -1, -2))

    def tangent(self, xi: FloatArray) -> FloatArray:
        return phi1_block(-self.ad(xi))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        T = self.tangent(xi)
        return np.asarray(np.linalg.solve(T, np.broadcast_to(_I9, T.shape)), dtype=np.float64)

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 3, 3)``, finite, ``det > 0``."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        check_det_positive(self.name, arr)
        return arr


@dataclass(frozen=True)
class SemidirectGL3(GroupBase):
    """GL⁺(3) ⋉ gl(3)*, points ``(F, P)`` flat ``(..., 18)``; see the module docstring."""

    @property
    def name(self) -> str:
        return "GLp3xgl3*"

    @property
    def dim(self) -> int:
        return 18

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (18,)

    @staticmethod
    def split(x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """``(F, P)`` as ``(..., 3, 3)`` views of a flat point (or algebra element ``(ξ, μ)``)."""
        return x[..., :9].reshape(x.shape[:-1] + (3, 3)), x[..., 9:].reshape(x.shape[:-1] + (3, 3))

    @staticmethod
    def join(F: FloatArray, P: FloatArray) -> FloatArray:
        """The flat point of ``(F, P)``."""
        F, P = np.asarray(F, dtype=float), np.asarray(P, dtype=float)
        return np.concatenate([F.reshape(F.shape[:-2] + (9,)), P.reshape(P.shape[:-2] + (9,))], axis=-1)

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        return self.join(np.broadcast_to(_I3, tuple(batch) + (3, 3)), np.zeros(tuple(batch) + (3, 3)))

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        F1, P1 = self.split(self._elem(a, "a"))
        F2, P2 = self.split(self._elem(b, "b"))
        F1it = np.swapaxes(np.linalg.inv(F1), -1, -2)
        return self.join(F1 @ F2, P1 + F1it @ P2 @ np.swapaxes(F1, -1, -2))

    def inverse(self, a: FloatArray) -> FloatArray:
        F, P = self.split(self._elem(a))
        check_det_positive(self.name, F)
        Fi = np.asarray(np.linalg.inv(F), dtype=np.float64)
        return self.join(Fi, -np.swapaxes(F, -1, -2) @ P @ np.swapaxes(Fi, -1, -2))

    def _K(self, xi: FloatArray) -> FloatArray:
        """K μ = −ξᵀμ + μξᵀ = −ad*_ξ μ (row-major 9×9)."""
        return -coad_matrix(xi)

    def exp(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        X, mu = xi[..., :9], xi[..., 9:]
        F = expm(X.reshape(X.shape[:-1] + (3, 3)))
        P = np.einsum("...ij,...j->...i", phi1_block(self._K(X)), mu)
        return np.concatenate([F.reshape(F.shape[:-2] + (9,)), P], axis=-1)

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        F = a[..., :9].reshape(a.shape[:-1] + (3, 3))
        X = GLp3().log(F)
        mu = np.linalg.solve(phi1_block(self._K(X)), a[..., 9:][..., None])[..., 0]
        return np.concatenate([X, mu], axis=-1)

    def ad(self, xi: FloatArray) -> FloatArray:
        """``ad_{(ξ₁, μ₁)}(ξ₂, μ₂) = ([ξ₁, ξ₂], −ad*_{ξ₁} μ₂ + ad*_{ξ₂} μ₁)`` as an 18×18 matrix."""
        xi = self._tan(xi)
        X, mu = xi[..., :9], xi[..., 9:]
        out = np.zeros(xi.shape[:-1] + (18, 18))
        out[..., :9, :9] = ad_matrix(X)
        out[..., 9:, 9:] = -coad_matrix(X)
        # ad*_{ξ₂} μ₁ = ξ₂ᵀM − Mξ₂ᵀ (M = μ₁) is linear in ξ₂; E[i, j, a, b] = ∂(·)_ij / ∂ξ₂[a, b]
        M = mu.reshape(mu.shape[:-1] + (3, 3))
        E = np.einsum("bi,...aj->...ijab", _I3, M) - np.einsum("...ib,ja->...ijab", M, _I3)
        out[..., 9:, :9] = E.reshape(mu.shape[:-1] + (9, 9))
        return out

    def tangent(self, xi: FloatArray) -> FloatArray:
        return phi1_block(-self.ad(xi))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        T = self.tangent(xi)
        return np.asarray(np.linalg.solve(T, np.broadcast_to(np.eye(18), T.shape)), dtype=np.float64)

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 18)``, finite, ``det F > 0``."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        check_det_positive(self.name, self.split(arr)[0])
        return arr


__all__ = ["GLp3", "SemidirectGL3", "ad_matrix", "check_det_positive", "coad_matrix", "phi1_block", "real_logm"]
