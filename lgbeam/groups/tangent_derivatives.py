"""Derivatives of the inverse tangent operator of SE(3) ≅ S³⋉R³ (locally): what exact tangent
stiffnesses of rods and frames need.

With ξ = (Ω, U), x = |Ω|, the inverse tangent operator is (``groups.se3``)

    T(ξ)⁻¹ = [[A, 0], [D, A]],   A = I + ½Ω̃ + c Ω̃²,   D = ½Ũ + c (ŨΩ̃ + Ω̃Ũ) + d (Ω·U) Ω̃²,

c = (2 − x cot(x/2))/(2x²) (``tinv_c``), d = (x sin x + 4 cos x + x² − 4)/(4 sin²(x/2) x⁴) (``tinv_d``).
Differentiating needs c′(x)/x, which equals d (checked in tests), and d′(x)/x (``tinv_d1``), both even
and analytic at 0 (Taylor branches in ``_series``). With Sq(Ω, a) = Ω̃²a = Ω(Ω·a) − x²a and its
derivative S₂(Ω, a) = ∂Sq/∂Ω = (Ω·a) I + Ωaᵀ − 2aΩᵀ:

    ∂(A a)/∂Ω      = −½ã + d Sq(Ω,a) Ωᵀ + c S₂(Ω,a)
    ∂(D a)/∂Ω      = d [Ũ(Ω̃a) + Ω̃(Ũa)] Ωᵀ − c [Ũã + (Ũa)~] + d₁ (Ω·U) Sq(Ω,a) Ωᵀ + d Sq(Ω,a) Uᵀ + d (Ω·U) S₂(Ω,a)
    ∂(D a)/∂U      = −½ã − c [(Ω̃a)~ + Ω̃ã] + d Sq(Ω,a) Ωᵀ

The transpose has Aᵀ = I − ½Ω̃ + cΩ̃² and Dᵀ = −½Ũ + c(Ω̃Ũ + ŨΩ̃) + d(Ω·U)Ω̃²: the same formulas with
the sign of the ½ terms flipped. ``tangent_inv_derivative(ξ, v)`` = ∂(T(ξ)⁻¹ v)/∂ξ and
``tangent_inv_transpose_derivative(ξ, s)`` = ∂(T(ξ)⁻ᵀ s)/∂ξ, both (..., 6, 6), vectorised over batch axes.

References
----------
Seed 004 Table 2 (the functions c, d and their Taylor branches; beam-reference-data.md §3: the
"dT⁻ᵀ" function there is d′(x)/x); Sonneville, Cardona & Brüls (2014), "Geometrically exact beam finite
element formulated on the special Euclidean group SE(3)", CMAME 268, eqs. (A.9)–(A.12) (derivatives of
the SE(3) tangent operator, there in closed matrix form).
"""

from __future__ import annotations

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import cross, hat3

__all__ = ["coefficients", "tangent_inv_derivative", "tangent_inv_transpose_derivative"]


def coefficients(x: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(c, d, d′/x) at the angles x = |Ω| (the scalar functions of T⁻¹ and its derivative; compiled callers)."""
    c, d = sr.evaluate(("tinv_c", "tinv_d"), x)
    return c, d, sr.tinv_d1(x)


def _outer(a: FloatArray, b: FloatArray) -> FloatArray:
    return a[..., :, None] * b[..., None, :]


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("...i,...i->...", a, b)


def _sq(W: FloatArray, a: FloatArray, n2: FloatArray) -> FloatArray:
    return W * _dot(W, a)[..., None] - n2[..., None] * a


def _s2(W: FloatArray, a: FloatArray) -> FloatArray:
    return _dot(W, a)[..., None, None] * np.eye(3) + _outer(W, a) - 2.0 * _outer(a, W)


def _coefficients(W: FloatArray) -> tuple[FloatArray, ...]:
    n = np.sqrt(_dot(W, W))
    c, d = sr.evaluate(("tinv_c", "tinv_d"), n)
    return c[..., None, None], d[..., None, None], sr.tinv_d1(n)[..., None, None], n * n


def _parts(xi: FloatArray, a: FloatArray, b: FloatArray, sign: float) -> FloatArray:
    """∂/∂ξ of (A_s a, D_s a + A_s b) with A_s = I + s½Ω̃ + cΩ̃², D_s = s½Ũ + c(ŨΩ̃ + Ω̃Ũ) + d(Ω·U)Ω̃²."""
    W, U = xi[..., :3], xi[..., 3:]
    c, d, d1, n2 = _coefficients(W)
    wu = _dot(W, U)[..., None, None]

    def dA(v: FloatArray) -> FloatArray:
        return -sign * 0.5 * hat3(v) + d * _outer(_sq(W, v, n2), W) + c * _s2(W, v)

    sa = _sq(W, a, n2)
    dDa_W = (d * _outer(cross(U, cross(W, a)) + cross(W, cross(U, a)), W)
             - c * (hat3(U) @ hat3(a) + hat3(cross(U, a)))
             + d1 * wu * _outer(sa, W) + d * _outer(sa, U) + d * wu * _s2(W, a))
    dDa_U = -sign * 0.5 * hat3(a) - c * (hat3(cross(W, a)) + hat3(W) @ hat3(a)) + d * _outer(sa, W)
    out = np.zeros(xi.shape[:-1] + (6, 6))
    out[..., :3, :3] = dA(a)
    out[..., 3:, :3] = dDa_W + dA(b)
    out[..., 3:, 3:] = dDa_U
    return out


def tangent_inv_derivative(xi: FloatArray, v: FloatArray) -> FloatArray:
    """∂(T(ξ)⁻¹ v)/∂ξ at fixed v, (..., 6, 6); ξ, v (..., 6) = (Ω, U), (a, b).

    T(ξ)⁻¹ v = (A a, D a + A b) (module docstring)."""
    xi, v = np.asarray(xi, dtype=float), np.asarray(v, dtype=float)
    return _parts(xi, v[..., :3], v[..., 3:], 1.0)


def tangent_inv_transpose_derivative(xi: FloatArray, s: FloatArray) -> FloatArray:
    """∂(T(ξ)⁻ᵀ s)/∂ξ at fixed s, (..., 6, 6); ξ, s (..., 6) = (Ω, U), (m, n).

    T(ξ)⁻ᵀ s = (Aᵀ m + Dᵀ n, Aᵀ n): the rows swap roles, so the blocks of ``_parts`` with (a, b) = (n, m)
    and the ½ signs flipped are permuted into place."""
    xi, s = np.asarray(xi, dtype=float), np.asarray(s, dtype=float)
    P = _parts(xi, s[..., 3:], s[..., :3], -1.0)  # ∂/∂ξ of (Aᵀ n, Dᵀ n + Aᵀ m)
    out = np.empty_like(P)
    out[..., :3, :] = P[..., 3:, :]
    out[..., 3:, :] = P[..., :3, :]
    return out
