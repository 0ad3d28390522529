"""The projective retraction on the unit sphere S^{n−1} ⊂ Rⁿ (seed 002 §3, Example 1).

    φ_p(v) = (p + v) / |p + v|                      (eq. (20)), v ∈ T_pS = {v : p·v = 0}
    φ_p⁻¹(q) = q / (p·q) − p                        on the cone p·q > 0
    c(p, q) = (p + q) / |p + q|                      (eq. (21)), the symmetric centre solving (17)
                                                     φ_c⁻¹(p) + φ_c⁻¹(q) = 0
    T_u φ_c = (I − n nᵀ) / |c + u|,  n = (c + u)/|c + u|

Vectorised over leading batch axes (points and vectors ``(..., n)``).

References
----------
Celledoni & Owren (seed 002), §3, eqs. (16)–(21); Adler, Dedieu, Margulies, Martens & Shub (2002)
for retractions.
"""

from __future__ import annotations

import numpy as np

from lgbeam._typing import FloatArray


def _dot(a: FloatArray, b: FloatArray) -> FloatArray:
    return np.einsum("...i,...i->...", a, b)


def retract(c: FloatArray, v: FloatArray) -> FloatArray:
    """``φ_c(v) = (c + v)/|c + v|``."""
    w = np.asarray(c, dtype=float) + np.asarray(v, dtype=float)
    return w / np.sqrt(_dot(w, w))[..., None]


def inverse_retract(c: FloatArray, q: FloatArray) -> FloatArray:
    """``φ_c⁻¹(q) = q/(c·q) − c``; ValueError unless ``c·q > 0`` (q in the open hemisphere around c)."""
    c, q = np.asarray(c, dtype=float), np.asarray(q, dtype=float)
    cq = _dot(c, q)
    if np.any(~(cq > 0.0)):
        raise ValueError(f"inverse_retract: c·q = {float(np.min(cq)):.3g} <= 0; the projective retraction reaches only "
                         "the open hemisphere around c (step too large).")
    return q / cq[..., None] - c


def centre(p: FloatArray, q: FloatArray) -> FloatArray:
    """The symmetric centre ``c(p, q) = (p + q)/|p + q|`` (geodesic midpoint, eq. (21))."""
    return _normalise(np.asarray(p, dtype=float) + np.asarray(q, dtype=float))


def _normalise(w: FloatArray) -> FloatArray:
    n = np.sqrt(_dot(w, w))
    if np.any(~(n > 0.0)):
        raise ValueError("centre: p = -q (antipodal points) has no midpoint; the step is too large.")
    return w / n[..., None]


def tangent_map(c: FloatArray, u: FloatArray) -> FloatArray:
    """``T_u φ_c = (I − n nᵀ)/|c + u|``, ``n = (c + u)/|c + u|``, ``(..., n, n)`` (symmetric)."""
    w = np.asarray(c, dtype=float) + np.asarray(u, dtype=float)
    r = np.sqrt(_dot(w, w))
    nn = w / r[..., None]
    return (np.eye(w.shape[-1]) - nn[..., :, None] * nn[..., None, :]) / r[..., None, None]


def tangent_projector(c: FloatArray) -> FloatArray:
    """``I − c cᵀ``, the orthogonal projector onto ``T_cS``."""
    c = np.asarray(c, dtype=float)
    return np.eye(c.shape[-1]) - c[..., :, None] * c[..., None, :]


__all__ = ["centre", "inverse_retract", "retract", "tangent_map", "tangent_projector"]
