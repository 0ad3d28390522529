"""The φ-functions of exponential integrators, shared by the spectral and finite-element discretisations.

    φ₀(z) = eᶻ,   φ_{k+1}(z) = (φ_k(z) − 1/k!) / z,   φ_k(0) = 1/k!,   φ_k(z) = Σ_m z^m / (m + k)!

References
----------
Hochbruck & Ostermann, "Exponential integrators", Acta Numerica 2010, eq. (2.10); seed 003 eq. (2.4)
(φ₁ = ∫₀¹ e^{(1−θ)z} dθ).
"""

from __future__ import annotations

from math import factorial

import numpy as np

from lgbeam._typing import Array

TAYLOR_RADIUS = 1.0  # |z| below this: the Taylor series (no cancellation, no division by a small z)
TAYLOR_TERMS = 30  # truncation < |z|^30 / (30 + k)! < 1/30! ≈ 4e-33 on the Taylor branch


def phi(k: int, z: Array) -> Array:
    """φ_k(z) elementwise, for real or complex ``z`` (the result has the type of ``z``, at least float).

    Taylor series where ``|z| < 1``; elsewhere the recursion, which loses at most a few ulps per step there.

    Parameters
    ----------
    k : non-negative integer
    z : array or scalar
    """
    if isinstance(k, bool) or not (isinstance(k, (int, np.integer)) and k >= 0):
        raise ValueError(f"phi: k must be a non-negative integer, got {k!r}")
    z = np.asarray(z)
    if k == 0:
        return np.exp(z)
    small = np.abs(z) < TAYLOR_RADIUS
    zs = np.where(small, z, 0.0)
    series = np.zeros(z.shape, dtype=np.result_type(z, float))
    for m in range(TAYLOR_TERMS - 1, -1, -1):  # Horner: a loop over terms, not over entries
        series = series * zs + 1.0 / factorial(m + k)
    zl = np.where(small, 1.0, z)
    rec = np.exp(zl)
    for j in range(k):
        rec = (rec - 1.0 / factorial(j)) / zl
    return np.where(small, series, rec)
