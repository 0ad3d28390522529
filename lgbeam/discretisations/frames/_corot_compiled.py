"""Compiled twins of the corotational element's B = ∂d/∂w (complex step) and of its geometric stiffness
K_σ = Σ_m s_m ∂B_m/∂w (central differences of that B), ``frames.corotational``: the same formulas, element by
element with complex scalars instead of (E, 12, ·) complex arrays (``_jacobian``, ``Elements.geometric`` are the
numpy references; ``tests/test_frames_corotational.py`` checks that both agree to round-off)."""

from __future__ import annotations

import cmath

import numpy as np

from lgbeam._numba import njit
from lgbeam._typing import FloatArray

CS_STEP = 1e-30
FD_EPS = 1e-5
_LOG_SERIES = 1e-8


@njit
def _qm(a0, a1, a2, a3, b0, b1, b2, b3):  # type: ignore[no-untyped-def]
    return (a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3, a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1, a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0)


@njit
def _rot(p0, p1, p2, p3, v0, v1, v2):  # type: ignore[no-untyped-def]
    """R(p) v = v + 2w (u × v) + 2 u × (u × v)."""
    c0, c1, c2 = p2 * v2 - p3 * v1, p3 * v0 - p1 * v2, p1 * v1 - p2 * v0
    d0, d1, d2 = p2 * c2 - p3 * c1, p3 * c0 - p1 * c2, p1 * c1 - p2 * c0
    return v0 + 2.0 * (p0 * c0 + d0), v1 + 2.0 * (p0 * c1 + d1), v2 + 2.0 * (p0 * c2 + d2)


@njit
def _log(w, v0, v1, v2):  # type: ignore[no-untyped-def]
    """Rotation vector of a unit quaternion (w, v), Re w > 0 (``corotational.qlog``)."""
    s2 = v0 * v0 + v1 * v1 + v2 * v2
    if abs(s2) < _LOG_SERIES:
        r = s2 / (w * w)
        f = (1.0 - r / 3.0 + r * r / 5.0 - r * r * r / 7.0) / w
    else:
        s = cmath.sqrt(s2)
        f = cmath.atan(s / w) / s
    return 2.0 * f * v0, 2.0 * f * v1, 2.0 * f * v2


@njit
def _deform(pa, xa, pb, xb, ca, cb, l0, d):  # type: ignore[no-untyped-def]
    """d = (l − l₀, θ_a, θ_b) into d (7,) complex, for (4,)/(3,) complex node arrays (``local_deformations``)."""
    ha = _qm(pa[0], pa[1], pa[2], pa[3], ca[0], -ca[1], -ca[2], -ca[3])
    hb = _qm(pb[0], pb[1], pb[2], pb[3], cb[0], -cb[1], -cb[2], -cb[3])
    if (ha[0] * hb[0] + ha[1] * hb[1] + ha[2] * hb[2] + ha[3] * hb[3]).real < 0.0:
        hb = (-hb[0], -hb[1], -hb[2], -hb[3])
    m0, m1, m2, m3 = ha[0] + hb[0], ha[1] + hb[1], ha[2] + hb[2], ha[3] + hb[3]
    nm = cmath.sqrt(m0 * m0 + m1 * m1 + m2 * m2 + m3 * m3)
    w, x, y, z = m0 / nm, m1 / nm, m2 / nm, m3 / nm
    dx0, dx1, dx2 = xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]
    length = cmath.sqrt(dx0 * dx0 + dx1 * dx1 + dx2 * dx2)
    e0, e1, e2 = dx0 / length, dx1 / length, dx2 / length
    n0, n1, n2 = 2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)
    s0 = 1.0 + n0 * e0 + n1 * e1 + n2 * e2
    s1, s2, s3 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0
    ns = cmath.sqrt(s0 * s0 + s1 * s1 + s2 * s2 + s3 * s3)
    pe = _qm(s0 / ns, s1 / ns, s2 / ns, s3 / ns, w, x, y, z)
    ra = _qm(pe[0], -pe[1], -pe[2], -pe[3], ha[0], ha[1], ha[2], ha[3])
    rb = _qm(pe[0], -pe[1], -pe[2], -pe[3], hb[0], hb[1], hb[2], hb[3])
    if ra[0].real < 0.0:
        ra = (-ra[0], -ra[1], -ra[2], -ra[3])
    if rb[0].real < 0.0:
        rb = (-rb[0], -rb[1], -rb[2], -rb[3])
    ta = _log(ra[0], ra[1], ra[2], ra[3])
    tb = _log(rb[0], rb[1], rb[2], rb[3])
    d[0] = length - l0
    d[1], d[2], d[3] = ta
    d[4], d[5], d[6] = tb


@njit
def _perturb(p, x, k, eps, scale, P, X):  # type: ignore[no-untyped-def]
    """P, X = the node (p, x) moved along direction k of (ω, u) by ε: p (1, ε e_k/2)/√(1 + ε²/4) for k < 3,
    x + ε·scale·R(p) e_{k−3} otherwise (``_perturbed``)."""
    for i in range(4):
        P[i] = p[i]
    for i in range(3):
        X[i] = x[i]
    z = 0j
    if k < 3:
        nrm = cmath.sqrt(1.0 + 0.25 * eps * eps)
        b = 0.5 * eps
        r = _qm(p[0], p[1], p[2], p[3], 1.0 + z, b if k == 0 else z, b if k == 1 else z, b if k == 2 else z)
        for i in range(4):
            P[i] = r[i] / nrm
    else:
        o = 1.0 + z
        r3 = _rot(p[0], p[1], p[2], p[3], o if k == 3 else z, o if k == 4 else z, o if k == 5 else z)
        for i in range(3):
            X[i] = x[i] + eps * scale * r3[i]


@njit
def _jac_one(pa, xa, pb, xb, ca, cb, l0, B, P, X, d):  # type: ignore[no-untyped-def]
    """B (7, 12) of one element at real nodes (complex arrays with zero imaginary part) by complex step; P (4,),
    X (3,), d (7,) complex work arrays."""
    h = CS_STEP
    for k in range(12):
        if k < 6:
            _perturb(pa, xa, k, 1j * h, 1.0, P, X)
            _deform(P, X, pb, xb, ca, cb, l0, d)
        else:
            _perturb(pb, xb, k - 6, 1j * h, 1.0, P, X)
            _deform(pa, xa, P, X, ca, cb, l0, d)
        for m in range(7):
            B[m, k] = d[m].imag / h


@njit
def jacobian(pa, xa, pb, xb, ca, cb, l0):  # type: ignore[no-untyped-def]
    """B (E, 7, 12) (``corotational._jacobian``)."""
    n = l0.shape[0]
    out = np.empty((n, 7, 12))
    cpa, cxa = pa.astype(np.complex128), xa.astype(np.complex128)
    cpb, cxb = pb.astype(np.complex128), xb.astype(np.complex128)
    cca, ccb = ca.astype(np.complex128), cb.astype(np.complex128)
    P, X, d = np.empty(4, np.complex128), np.empty(3, np.complex128), np.empty(7, np.complex128)
    for e in range(n):
        _jac_one(cpa[e], cxa[e], cpb[e], cxb[e], cca[e], ccb[e], l0[e], out[e], P, X, d)
    return out


@njit
def geometric(pa, xa, pb, xb, ca, cb, l0, s):  # type: ignore[no-untyped-def]
    """K_σ (E, 12, 12), K[j, k] = Σ_m s_m ∂B[m, j]/∂w_k by central differences (ε = FD_EPS) of the exact B
    (``Elements.geometric``)."""
    n = l0.shape[0]
    out = np.zeros((n, 12, 12))
    P, X = np.empty(4, np.complex128), np.empty(3, np.complex128)
    P2, X2, d = np.empty(4, np.complex128), np.empty(3, np.complex128), np.empty(7, np.complex128)
    Bp, Bm = np.empty((7, 12)), np.empty((7, 12))
    cpa, cxa = pa.astype(np.complex128), xa.astype(np.complex128)
    cpb, cxb = pb.astype(np.complex128), xb.astype(np.complex128)
    cca, ccb = ca.astype(np.complex128), cb.astype(np.complex128)
    for e in range(n):
        for k in range(12):
            for sgn in range(2):
                eps = FD_EPS if sgn == 0 else -FD_EPS
                B = Bp if sgn == 0 else Bm
                if k < 6:
                    _perturb(cpa[e], cxa[e], k, eps + 0j, l0[e], P, X)
                    _jac_one(P, X, cpb[e], cxb[e], cca[e], ccb[e], l0[e], B, P2, X2, d)
                else:
                    _perturb(cpb[e], cxb[e], k - 6, eps + 0j, l0[e], P, X)
                    _jac_one(cpa[e], cxa[e], P, X, cca[e], ccb[e], l0[e], B, P2, X2, d)
            scale = 2.0 * FD_EPS * (l0[e] if (3 <= k < 6 or k >= 9) else 1.0)
            for j in range(12):
                acc = 0.0
                for m in range(7):
                    acc += s[e, m] * (Bp[m, j] - Bm[m, j])
                out[e, j, k] = acc / scale
    return out


def warm() -> FloatArray:
    """Compile both kernels on a one-element sample (returns its B)."""
    p = np.array([[1.0, 0.0, 0.0, 0.0]])
    x0, x1 = np.zeros((1, 3)), np.array([[0.0, 0.0, 1.0]])
    one = np.ones(1)
    B = jacobian(p, x0, p, x1, p, p, one)
    geometric(p, x0, p, x1, p, p, one, np.zeros((1, 7)))
    return B
