"""Duals and right translations on a Lie group: what the discrete-gradient methods of seed 002 need.

Seed 002 works in the **right** trivialisation (``x' = ξ(x) · x``); lgbeam's groups keep the left one
(``T(ξ) = φ₁(−ad_ξ)``, docs/conventions.md). The two meet here:

- algebra pairing ``⟨μ, ξ⟩ = Σ μ_k ξ_k`` of coordinates (the trace pairing for matrix coordinates, the
  Euclidean one for S³'s ``Ω``), so duals are transposes: ``ad*_ξ = ad_ξᵀ``, ``Ad*_g = Ad_gᵀ``;
- right-trivialised ``dexp_ξ = φ₁(ad_ξ) = T(−ξ)``: ``d/dε exp(ξ + εη) = (dexp_ξ η)^ · exp(ξ)``;
  ``dexp⁻¹_ξ = T(−ξ)⁻¹``, ``dexp*_ξ = dexp_ξᵀ`` (seed 002 §4);
- right translation of vectors ``R_{x*} ξ = d/dε exp(εξ) · x`` in the parameter space, and of covectors
  ``R_x^* p`` with ``⟨R_x^* p, ξ⟩ = ⟨p, R_{x*} ξ⟩`` (Euclidean pairing of the parameter arrays), seed 002 §2.2;
- ``principal_log``: the inverse of exp on the injectivity domain, ``|Ω| < 2π`` on S³ (seed 002: ``|v| < π``
  with ``v = Ω/2``), where lgbeam's ``S3.log`` identifies ``p`` with ``−p`` (angle ≤ π).

References
----------
Celledoni & Owren, "Preserving first integrals with symmetric Lie group methods", §§2.2, 4 (seed 002);
Iserles, Munthe-Kaas, Nørsett & Zanna (2000), §2 (dexp and its inverse).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import quat_mul
from lgbeam.groups.gl3 import SemidirectGL3, coad_matrix
from lgbeam.groups.s3 import S3

logger = logging.getLogger(__name__)

S3_INJECTIVITY = 2.0 * np.pi
"""exp on S³ is injective on ``|Ω| < 2π`` (rotation angle < 2π; seed 002's ``|v| < π``, ``v = Ω/2``)."""


def pairing(mu: FloatArray, xi: FloatArray) -> FloatArray:
    """``⟨μ, ξ⟩`` of algebra coordinates (last axis)."""
    return np.einsum("...k,...k->...", mu, xi)


def ad_dual(group: Any, xi: FloatArray) -> FloatArray:
    """``ad*_ξ = ad_ξᵀ``: ``⟨ad*_ξ μ, η⟩ = ⟨μ, ad_ξ η⟩``."""
    return np.swapaxes(group.ad(xi), -1, -2)


def Ad_dual(group: Any, a: FloatArray) -> FloatArray:
    """``Ad*_g = Ad_gᵀ``: ``⟨Ad*_g μ, η⟩ = ⟨μ, Ad_g η⟩``."""
    return np.swapaxes(group.Ad(a), -1, -2)


def dexp(group: Any, xi: FloatArray) -> FloatArray:
    """Right-trivialised ``dexp_ξ = Σ ad_ξᵏ/(k+1)! = T(−ξ)`` (seed 002 §4)."""
    return group.tangent(-np.asarray(xi, dtype=float))


def dexp_inv(group: Any, xi: FloatArray) -> FloatArray:
    """``dexp_ξ⁻¹ = T(−ξ)⁻¹``."""
    return group.tangent_inv(-np.asarray(xi, dtype=float))


def dexp_dual(group: Any, xi: FloatArray) -> FloatArray:
    """``dexp*_ξ = dexp_ξᵀ`` under the coordinate pairing."""
    return np.swapaxes(dexp(group, xi), -1, -2)


def right_translate(group: Any, x: FloatArray, xi: FloatArray) -> FloatArray:
    """``R_{x*} ξ = d/dε exp(εξ) · x |₀`` in the parameter space of ``group`` (same shape as ``x``).

    Matrix groups: ``ξ^ x``; S³: ``(0, Ω/2) · q``; GL⁺(3) ⋉ gl(3)*: ``(ξF, μ − ad*_ξ P)`` (notes/002.md §3.4).
    """
    x, xi = np.asarray(x, dtype=float), np.asarray(xi, dtype=float)
    if isinstance(group, S3):
        pure = np.concatenate([np.zeros(xi.shape[:-1] + (1,)), 0.5 * xi], axis=-1)
        return quat_mul(pure, x)
    if isinstance(group, SemidirectGL3):
        X, mu = xi[..., :9], xi[..., 9:]
        F, P = group.split(x)
        dF = X.reshape(X.shape[:-1] + (3, 3)) @ F
        dP = mu - np.einsum("...ij,...j->...i", coad_matrix(X), P.reshape(P.shape[:-2] + (9,)))
        return np.concatenate([dF.reshape(dF.shape[:-2] + (9,)), dP], axis=-1)
    if hasattr(group, "hat") and len(group.param_shape) == 2:
        return group.hat(xi) @ x
    raise TypeError(f"right_translate: no right translation for {type(group).__name__}")


def right_translation_matrix(group: Any, x: FloatArray) -> FloatArray:
    """The matrix of ``ξ ↦ R_{x*} ξ``, ``(..., param_size, dim)`` (columns ``R_{x*} e_k``)."""
    x = np.asarray(x, dtype=float)
    batch = x.shape[: x.ndim - len(group.param_shape)]
    E = np.broadcast_to(np.eye(group.dim), batch + (group.dim, group.dim))  # rows e_k
    xs = np.broadcast_to(np.expand_dims(x, len(batch)), batch + (group.dim,) + tuple(group.param_shape))
    cols = right_translate(group, xs, E)
    return np.swapaxes(cols.reshape(batch + (group.dim, -1)), -1, -2)


def right_trivialise(group: Any, x: FloatArray, p: FloatArray) -> FloatArray:
    """``R_x^* p ∈ g*`` of a covector ``p`` given in the parameter space: ``⟨R_x^* p, ξ⟩ = ⟨p, R_{x*} ξ⟩``."""
    M = right_translation_matrix(group, x)
    p = np.asarray(p, dtype=float)
    flat = p.reshape(p.shape[: p.ndim - len(group.param_shape)] + (-1,))
    return np.einsum("...ik,...i->...k", M, flat)


def principal_log(group: Any, a: FloatArray) -> FloatArray:
    """The inverse of ``exp`` on its injectivity domain (S³: ``|Ω| < 2π``; other groups: ``group.log``).

    ValueError on S³ at ``a = −1`` (``|Ω| = 2π``: no unique logarithm).
    """
    if not isinstance(group, S3):
        return group.log(a)
    a = np.asarray(a, dtype=float)
    w, v = a[..., 0], a[..., 1:]
    nv = np.sqrt(np.einsum("...i,...i->...", v, v))
    half = np.arctan2(nv, w)  # in [0, π]
    if np.any(np.pi - half < 1e-12):
        raise ValueError("principal_log: the quaternion is -1 (rotation angle 2*pi), beyond the injectivity radius "
                         "|Omega| < 2*pi of exp on S3 (seed 002: |v| < pi); reduce the step size.")
    small = half < 1e-4
    safe = np.where(small, 1.0, half)
    sinc = np.where(small, 1.0 - half**2 / 6.0, np.sin(safe) / safe)
    return v * (2.0 / sinc)[..., None]


def check_injectivity(group: Any, xi: FloatArray, what: str = "step") -> None:
    """ValueError when ``log(exp(ξ)) ≠ ξ`` for the algebra element ``ξ`` (S³: ``|Ω| ≥ 2π``)."""
    if isinstance(group, S3):
        n = float(np.max(np.linalg.norm(xi, axis=-1)))
        if not n < S3_INJECTIVITY:
            raise ValueError(f"{what} |Omega| = {n:.6g} >= 2*pi, beyond the injectivity radius of exp on S3 "
                             "(seed 002: |v| >= pi with v = Omega/2): log(exp(Omega)) != Omega and the discrete "
                             "chain rule fails. Reduce the step size.")


__all__ = [
    "S3_INJECTIVITY",
    "Ad_dual",
    "ad_dual",
    "check_injectivity",
    "dexp",
    "dexp_dual",
    "dexp_inv",
    "pairing",
    "principal_log",
    "right_translate",
    "right_translation_matrix",
    "right_trivialise",
]
