"""The corotational element in closed form, compiled: local deformations d, B = ∂d/∂w, nodal forces g = Bᵀ K_l d
and the exact tangent, one pass over all elements (the numpy reference: the complex step of
``corotational.local_deformations``, ``corotational._jacobian``, ``Elements.geometric``; ``TWINS`` pairs them for
``tests/test_jit.py``).

Symbols as ``corotational`` (module docstring): node k = a, b with quaternion p_k (R_k), position x_k, offset c_k;
p̂_k = p_k c̄_k; p_m = (p̂_a + p̂_b)/|p̂_a + p̂_b|; p_e = s(m₃ → e₃) p_m; r_k = p̄_e p̂_k, θ_k = log r_k. Variations
along q ∘ exp(ε w), w = (ω_a, u_a, ω_b, u_b) (body frames), with spatial spins δφ_k = R_k ω_k and
δx = R_b u_b − R_a u_a (Crisfield 1997 vol. 2 §17.3–17.5 for the chain; the mean-rotation and smallest-rotation
steps derived here for this element's frame):

    mean rotation      (c, v) = p̂_a p̄_m   (the half relative rotation, spatial; c = |p̂_a + p̂_b|/2 > 0)
                       δφ_m = ½(I − v̂/c) δφ_a + ½(I + v̂/c) δφ_b
    element frame      δφ_e = (e₃ × δx)/l + e₃ [(m₃ + e₃)·δφ_m − (m₃ × e₃)·δx/l] / (1 + m₃·e₃)
                       (the part ⊥ e₃ turns the chord; the axial part is the twist of the smallest rotation s:
                        e₃·δφ_s = −(m₃ × e₃)·(δm₃ + δe₃)/(1 + m₃·e₃), δm₃ = δφ_m × m₃)
    relative rotations δr_k = ½ (0, R_eᵀ(δφ_k − δφ_e)) r_k,  δθ_k = T_l(θ_k)⁻¹ R_eᵀ (δφ_k − δφ_e),
                       T_l(θ)⁻¹ = I − ½θ̂ + γ θ̂²,  γ = (1 − (θ/2) cot(θ/2))/θ² (series 1/12 + θ²/720 + θ⁴/30240)
    length             δl = e₃·δx

so with k_a = R_aᵀ A_aᵀ n, k_b = R_bᵀ A_bᵀ n (A_a, A_b the two halves above, n = (m₃ + e₃)/(1 + m₃·e₃)),
P = [ê₃ − e₃ (m₃ × e₃)ᵀ/(1 + m₃·e₃)]/l and T_k = T_l(θ_k)⁻¹ R_eᵀ (T_k e₃ = T_l(θ_k)⁻¹ e_z):

    B = [ 0                 −e₃ᵀR_a       0                 e₃ᵀR_b    ]
        [ T_aR_a − T_ae₃k_aᵀ  T_aPR_a     −T_ae₃k_bᵀ         −T_aPR_b  ]
        [ −T_be₃k_aᵀ          T_bPR_a     T_bR_b − T_be₃k_bᵀ  −T_bPR_b  ]

Forces g_e = Bᵀ K_l d. Tangent K_e = ∂g_e/∂w = Bᵀ K_l B + Σ_m (K_l d)_m ∂B_m/∂w: every step above is
complex-analytic (branches read real parts only), so its column k is Im g_e(q ∘ exp(i h e_k))/h of the same
closed form in complex arithmetic (h = 1e-30: exact to round-off; Squire & Trapp 1998), 12 closed-form passes
per element, no finite difference.
"""

from __future__ import annotations

import numpy as np

from lgbeam._numba import Twin, njit
from lgbeam._typing import FloatArray

CS_STEP = 1e-30
_LOG_SERIES = 1e-8  # |v|² below this: the rotation log by its series (corotational.qlog)
_GAMMA_SERIES = 1e-4  # θ² below this: γ(θ) by its series (next term θ⁶/1209600 < 1e-18)


@njit
def _qm(a0, a1, a2, a3, b0, b1, b2, b3):  # type: ignore[no-untyped-def]
    return (a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3, a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1, a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0)


@njit
def _sqrt(z):  # type: ignore[no-untyped-def]
    """√z of a real z, or of a complex-step z = a + ib (|b| = O(h), h = 1e-30): √a + ib/(2√a), exact to round-off
    (the O(b²) terms are 1e-60 of the value) and cheaper than the complex √."""
    r = np.sqrt(z.real)
    return r + (z - z.real) * (0.5 / r) if r > 0.0 else r + 0.0 * z


@njit
def _atan(z):  # type: ignore[no-untyped-def]
    """atan z of a real or complex-step z (as ``_sqrt``): atan a + ib/(1 + a²)."""
    a = z.real
    return np.arctan(a) + (z - a) / (1.0 + a * a)


@njit
def _cot(z):  # type: ignore[no-untyped-def]
    """cot z of a real or complex-step z (as ``_sqrt``): cot a − ib/sin²a."""
    a = z.real
    s = np.sin(a)
    return np.cos(a) / s - (z - a) / (s * s)


@njit
def _rotmat(p0, p1, p2, p3, R):  # type: ignore[no-untyped-def]
    """R (3, 3) of a unit quaternion (any dtype)."""
    R[0, 0] = 1.0 - 2.0 * (p2 * p2 + p3 * p3)
    R[0, 1] = 2.0 * (p1 * p2 - p0 * p3)
    R[0, 2] = 2.0 * (p1 * p3 + p0 * p2)
    R[1, 0] = 2.0 * (p1 * p2 + p0 * p3)
    R[1, 1] = 1.0 - 2.0 * (p1 * p1 + p3 * p3)
    R[1, 2] = 2.0 * (p2 * p3 - p0 * p1)
    R[2, 0] = 2.0 * (p1 * p3 - p0 * p2)
    R[2, 1] = 2.0 * (p2 * p3 + p0 * p1)
    R[2, 2] = 1.0 - 2.0 * (p1 * p1 + p2 * p2)


@njit
def _log_tinv(r0, r1, r2, r3, T):  # type: ignore[no-untyped-def]
    """θ = log r (Re r0 > 0; ``corotational.qlog``) and T = T_l(θ)⁻¹ = I − ½θ̂ + γθ̂² (3, 3)."""
    s2 = r1 * r1 + r2 * r2 + r3 * r3
    if abs(s2.real) < _LOG_SERIES:
        x = s2 / (r0 * r0)
        f = (1.0 - x / 3.0 + x * x / 5.0 - x * x * x / 7.0) / r0
    else:
        s = _sqrt(s2)
        f = _atan(s / r0) / s
    t0, t1, t2 = 2.0 * f * r1, 2.0 * f * r2, 2.0 * f * r3
    th2 = t0 * t0 + t1 * t1 + t2 * t2
    if abs(th2.real) < _GAMMA_SERIES:
        gam = 1.0 / 12.0 + th2 / 720.0 + th2 * th2 / 30240.0
    else:
        th = _sqrt(th2)
        half = 0.5 * th
        gam = (1.0 - half * _cot(half)) / th2
    # θ̂² = θθᵀ − θ² I
    T[0, 0] = 1.0 + gam * (t0 * t0 - th2)
    T[1, 1] = 1.0 + gam * (t1 * t1 - th2)
    T[2, 2] = 1.0 + gam * (t2 * t2 - th2)
    T[0, 1] = 0.5 * t2 + gam * t0 * t1
    T[1, 0] = -0.5 * t2 + gam * t0 * t1
    T[0, 2] = -0.5 * t1 + gam * t0 * t2
    T[2, 0] = 0.5 * t1 + gam * t0 * t2
    T[1, 2] = 0.5 * t0 + gam * t1 * t2
    T[2, 1] = -0.5 * t0 + gam * t1 * t2
    return t0, t1, t2


@njit
def _element(pa, xa, pb, xb, ca, cb, l0, d, B, W):  # type: ignore[no-untyped-def]
    """d (7,) and B (7, 12) of one element (module docstring), any dtype; W (9, 3, 3) work array of that dtype."""
    Ra, Rb, Re, Ta, Tb, Pm, TP = W[0], W[1], W[2], W[3], W[4], W[5], W[6]
    ha = _qm(pa[0], pa[1], pa[2], pa[3], ca[0], -ca[1], -ca[2], -ca[3])
    hb = _qm(pb[0], pb[1], pb[2], pb[3], cb[0], -cb[1], -cb[2], -cb[3])
    if (ha[0] * hb[0] + ha[1] * hb[1] + ha[2] * hb[2] + ha[3] * hb[3]).real < 0.0:
        hb = (-hb[0], -hb[1], -hb[2], -hb[3])
    m0, m1, m2, m3 = ha[0] + hb[0], ha[1] + hb[1], ha[2] + hb[2], ha[3] + hb[3]
    nm = _sqrt(m0 * m0 + m1 * m1 + m2 * m2 + m3 * m3)
    w, x, y, z = m0 / nm, m1 / nm, m2 / nm, m3 / nm
    g = _qm(ha[0], ha[1], ha[2], ha[3], w, -x, -y, -z)  # (c, v) = p̂_a p̄_m
    c, v0, v1, v2 = g[0], g[1], g[2], g[3]
    dx0, dx1, dx2 = xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]
    length = _sqrt(dx0 * dx0 + dx1 * dx1 + dx2 * dx2)
    e0, e1, e2 = dx0 / length, dx1 / length, dx2 / length
    n0, n1, n2 = 2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)  # m₃
    cos1 = 1.0 + n0 * e0 + n1 * e1 + n2 * e2
    k0, k1, k2 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0  # m₃ × e₃
    ns = _sqrt(cos1 * cos1 + k0 * k0 + k1 * k1 + k2 * k2)
    pe = _qm(cos1 / ns, k0 / ns, k1 / ns, k2 / ns, w, x, y, z)
    ra = _qm(pe[0], -pe[1], -pe[2], -pe[3], ha[0], ha[1], ha[2], ha[3])
    rb = _qm(pe[0], -pe[1], -pe[2], -pe[3], hb[0], hb[1], hb[2], hb[3])
    if ra[0].real < 0.0:
        ra = (-ra[0], -ra[1], -ra[2], -ra[3])
    if rb[0].real < 0.0:
        rb = (-rb[0], -rb[1], -rb[2], -rb[3])
    Ja, Jb = W[7], W[8]
    ta = _log_tinv(ra[0], ra[1], ra[2], ra[3], Ja)
    tb = _log_tinv(rb[0], rb[1], rb[2], rb[3], Jb)
    d[0] = length - l0
    d[1], d[2], d[3] = ta
    d[4], d[5], d[6] = tb
    _rotmat(pa[0], pa[1], pa[2], pa[3], Ra)
    _rotmat(pb[0], pb[1], pb[2], pb[3], Rb)
    _rotmat(pe[0], pe[1], pe[2], pe[3], Re)
    # T_k = T_l(θ_k)⁻¹ R_eᵀ; P = [ê₃ − e₃ kᵀ/(1 + m₃·e₃)]/l
    for i in range(3):
        for j in range(3):
            Ta[i, j] = Ja[i, 0] * Re[j, 0] + Ja[i, 1] * Re[j, 1] + Ja[i, 2] * Re[j, 2]
            Tb[i, j] = Jb[i, 0] * Re[j, 0] + Jb[i, 1] * Re[j, 1] + Jb[i, 2] * Re[j, 2]
    e = (e0, e1, e2)
    kk = (k0 / cos1, k1 / cos1, k2 / cos1)
    Pm[0, 0], Pm[0, 1], Pm[0, 2] = 0.0, -e2, e1
    Pm[1, 0], Pm[1, 1], Pm[1, 2] = e2, 0.0, -e0
    Pm[2, 0], Pm[2, 1], Pm[2, 2] = -e1, e0, 0.0
    for i in range(3):
        for j in range(3):
            Pm[i, j] = (Pm[i, j] - e[i] * kk[j]) / length
    # n = (m₃ + e₃)/(1 + m₃·e₃); A_aᵀ n = ½(n + v̂ n/c) (v̂ᵀ = −v̂), A_bᵀ n = ½(n − v̂ n/c)
    nn0, nn1, nn2 = (n0 + e0) / cos1, (n1 + e1) / cos1, (n2 + e2) / cos1
    vn0, vn1, vn2 = (v1 * nn2 - v2 * nn1) / c, (v2 * nn0 - v0 * nn2) / c, (v0 * nn1 - v1 * nn0) / c
    aa = (0.5 * (nn0 + vn0), 0.5 * (nn1 + vn1), 0.5 * (nn2 + vn2))
    ab = (0.5 * (nn0 - vn0), 0.5 * (nn1 - vn1), 0.5 * (nn2 - vn2))
    for j in range(12):
        B[0, j] = 0.0
    for j in range(3):
        B[0, 3 + j] = -(e0 * Ra[0, j] + e1 * Ra[1, j] + e2 * Ra[2, j])
        B[0, 9 + j] = e0 * Rb[0, j] + e1 * Rb[1, j] + e2 * Rb[2, j]
    for blk in range(2):
        T = Ta if blk == 0 else Tb
        r0 = 1 + 3 * blk
        # TP = T P
        for i in range(3):
            for j in range(3):
                TP[i, j] = T[i, 0] * Pm[0, j] + T[i, 1] * Pm[1, j] + T[i, 2] * Pm[2, j]
        te = (T[0, 0] * e0 + T[0, 1] * e1 + T[0, 2] * e2, T[1, 0] * e0 + T[1, 1] * e1 + T[1, 2] * e2,
              T[2, 0] * e0 + T[2, 1] * e1 + T[2, 2] * e2)
        for j in range(3):
            ka = aa[0] * Ra[0, j] + aa[1] * Ra[1, j] + aa[2] * Ra[2, j]  # (R_aᵀ A_aᵀ n)_j
            kb = ab[0] * Rb[0, j] + ab[1] * Rb[1, j] + ab[2] * Rb[2, j]
            for i in range(3):
                tpa = TP[i, 0] * Ra[0, j] + TP[i, 1] * Ra[1, j] + TP[i, 2] * Ra[2, j]
                tpb = TP[i, 0] * Rb[0, j] + TP[i, 1] * Rb[1, j] + TP[i, 2] * Rb[2, j]
                B[r0 + i, j] = -te[i] * ka
                B[r0 + i, 3 + j] = tpa
                B[r0 + i, 6 + j] = -te[i] * kb
                B[r0 + i, 9 + j] = -tpb
                if blk == 0:
                    B[r0 + i, j] += T[i, 0] * Ra[0, j] + T[i, 1] * Ra[1, j] + T[i, 2] * Ra[2, j]
                else:
                    B[r0 + i, 6 + j] += T[i, 0] * Rb[0, j] + T[i, 1] * Rb[1, j] + T[i, 2] * Rb[2, j]


@njit
def _nodal_forces(K, d, B, s, g):  # type: ignore[no-untyped-def]
    """s = K_l d (7,), g = Bᵀ s (12,)."""
    for i in range(7):
        acc = 0.0 * d[0]
        for j in range(7):
            acc += K[i, j] * d[j]
        s[i] = acc
    for j in range(12):
        acc = 0.0 * d[0]
        for i in range(7):
            acc += B[i, j] * s[i]
        g[j] = acc


@njit
def _perturbed(p, x, k, h, P, X):  # type: ignore[no-untyped-def]
    """P, X = the node (p, x) moved along direction k of (ω, u) by the imaginary step i h: p (1, i h e_k/2)/√(1 − h²/4)
    for k < 3, x + i h R(p) e_{k−3} otherwise (complex P (4,), X (3,))."""
    for i in range(4):
        P[i] = p[i] + 0j
    for i in range(3):
        X[i] = x[i] + 0j
    if k < 3:
        b = 0.5j * h
        nrm = np.sqrt(1.0 + 0.25 * (1j * h) ** 2)
        r = _qm(p[0] + 0j, p[1] + 0j, p[2] + 0j, p[3] + 0j, 1.0 + 0j, b if k == 0 else 0j, b if k == 1 else 0j,
                b if k == 2 else 0j)
        for i in range(4):
            P[i] = r[i] / nrm
    else:
        j = k - 3
        p0, p1, p2, p3 = p[0], p[1], p[2], p[3]
        # column j of R(p)
        if j == 0:
            c0, c1, c2 = 1.0 - 2.0 * (p2 * p2 + p3 * p3), 2.0 * (p1 * p2 + p0 * p3), 2.0 * (p1 * p3 - p0 * p2)
        elif j == 1:
            c0, c1, c2 = 2.0 * (p1 * p2 - p0 * p3), 1.0 - 2.0 * (p1 * p1 + p3 * p3), 2.0 * (p2 * p3 + p0 * p1)
        else:
            c0, c1, c2 = 2.0 * (p1 * p3 + p0 * p2), 2.0 * (p2 * p3 - p0 * p1), 1.0 - 2.0 * (p1 * p1 + p2 * p2)
        X[0] = x[0] + 1j * h * c0
        X[1] = x[1] + 1j * h * c1
        X[2] = x[2] + 1j * h * c2


@njit
def _tangent_one(pa, xa, pb, xb, ca, cb, l0, K, Ke, Z):  # type: ignore[no-untyped-def]
    """K_e (12, 12) = ∂(Bᵀ K_l d)/∂w of one element by the complex step of the closed form; Z: complex work."""
    h = CS_STEP
    W, P, X, d, B, s, g, cpa, cxa, cpb, cxb, cca, ccb = Z
    for i in range(4):
        cpa[i], cpb[i], cca[i], ccb[i] = pa[i] + 0j, pb[i] + 0j, ca[i] + 0j, cb[i] + 0j
    for i in range(3):
        cxa[i], cxb[i] = xa[i] + 0j, xb[i] + 0j
    for k in range(12):
        if k < 6:
            _perturbed(pa, xa, k, h, P, X)
            _element(P, X, cpb, cxb, cca, ccb, l0 + 0j, d, B, W)
        else:
            _perturbed(pb, xb, k - 6, h, P, X)
            _element(cpa, cxa, P, X, cca, ccb, l0 + 0j, d, B, W)
        _nodal_forces(K, d, B, s, g)
        for j in range(12):
            Ke[j, k] = g[j].imag / h


@njit
def element_pass(q, ia, ib, ca, cb, l0, K, want_tangent, g_nodes, g_e, s_e, B_e, K_e):  # type: ignore[no-untyped-def]
    """One pass over all elements at the nodes q (n, 7): local forces s_e = K_l d (E, 7), B_e (E, 7, 12), element
    forces g_e = Bᵀ s (E, 12), their sum into the nodes g_nodes (n, 6) (added), and, with ``want_tangent``, the
    exact tangents K_e (E, 12, 12). Returns the strain energy ½ Σ dᵀ K_l d."""
    W = np.empty((9, 3, 3))
    d = np.empty(7)
    Z = (np.empty((9, 3, 3), np.complex128), np.empty(4, np.complex128), np.empty(3, np.complex128),
         np.empty(7, np.complex128), np.empty((7, 12), np.complex128), np.empty(7, np.complex128),
         np.empty(12, np.complex128), np.empty(4, np.complex128), np.empty(3, np.complex128),
         np.empty(4, np.complex128), np.empty(3, np.complex128), np.empty(4, np.complex128), np.empty(4, np.complex128))
    energy = 0.0
    for e in range(l0.shape[0]):
        a, b = ia[e], ib[e]
        pa, xa, pb, xb = q[a, :4], q[a, 4:], q[b, :4], q[b, 4:]
        _element(pa, xa, pb, xb, ca[e], cb[e], l0[e], d, B_e[e], W)
        _nodal_forces(K[e], d, B_e[e], s_e[e], g_e[e])
        for i in range(7):
            energy += 0.5 * d[i] * s_e[e, i]
        for j in range(6):
            g_nodes[a, j] += g_e[e, j]
            g_nodes[b, j] += g_e[e, 6 + j]
        if want_tangent:
            _tangent_one(pa, xa, pb, xb, ca[e], cb[e], l0[e], K[e], K_e[e], Z)
    return energy


@njit
def geometric(q, ia, ib, ca, cb, l0, s):  # type: ignore[no-untyped-def]
    """K_σ (E, 12, 12), K[j, k] = Σ_m s_m ∂B[m, j]/∂w_k for given local forces s (E, 7) (linear buckling's
    stress stiffness): the complex step of the closed-form B along each direction k, exact to round-off."""
    n = l0.shape[0]
    out = np.empty((n, 12, 12))
    h = CS_STEP
    W = np.empty((9, 3, 3), np.complex128)
    P, X = np.empty(4, np.complex128), np.empty(3, np.complex128)
    d, B = np.empty(7, np.complex128), np.empty((7, 12), np.complex128)
    for e in range(n):
        a, b = ia[e], ib[e]
        pa, xa, pb, xb = q[a, :4] + 0j, q[a, 4:] + 0j, q[b, :4] + 0j, q[b, 4:] + 0j
        cca, ccb = ca[e] + 0j, cb[e] + 0j
        for k in range(12):
            if k < 6:
                _perturbed(q[a, :4], q[a, 4:], k, h, P, X)
                _element(P, X, pb, xb, cca, ccb, l0[e] + 0j, d, B, W)
            else:
                _perturbed(q[b, :4], q[b, 4:], k - 6, h, P, X)
                _element(pa, xa, P, X, cca, ccb, l0[e] + 0j, d, B, W)
            for j in range(12):
                acc = 0.0
                for m in range(7):
                    acc += s[e, m] * B[m, j].imag
                out[e, j, k] = acc / h
    return out


@njit
def deformations(q, ia, ib, ca, cb, l0):  # type: ignore[no-untyped-def]
    """d (E, 7) at q (n, 7) (closed form; ``corotational.local_deformations``)."""
    n = l0.shape[0]
    out = np.empty((n, 7))
    W = np.empty((9, 3, 3))
    B = np.empty((7, 12))
    for e in range(n):
        a, b = ia[e], ib[e]
        _element(q[a, :4], q[a, 4:], q[b, :4], q[b, 4:], ca[e], cb[e], l0[e], out[e], B, W)
    return out


def run_pass(q: FloatArray, ia: np.ndarray, ib: np.ndarray, ca: FloatArray, cb: FloatArray, l0: FloatArray,
             K: FloatArray, tangent: bool) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray | None,
                                                    float]:
    """(g (n, 6), g_e (E, 12), s (E, 7), B (E, 7, 12), K_e (E, 12, 12) or None, V) at q (n, 7): one call of
    ``element_pass``."""
    n_el = l0.shape[0]
    g = np.zeros((q.shape[0], 6))
    g_e, s, B = np.empty((n_el, 12)), np.empty((n_el, 7)), np.empty((n_el, 7, 12))
    Ke = np.empty((n_el, 12, 12)) if tangent else np.empty((0, 12, 12))
    energy = element_pass(q, ia, ib, ca, cb, l0, K, tangent, g, g_e, s, B, Ke)
    return g, g_e, s, B, (Ke if tangent else None), float(energy)


# ---------------------------------------------------------------------- twins (tests/test_jit.py)
def _sample(rng: np.random.Generator) -> tuple[FloatArray, ...]:
    """Six strongly rotated, stretched elements with offsets, and one straight unstrained element (θ = 0: the
    series branches) (pa, xa, pb, xb, ca, cb, l0)."""
    from .corotational import qexp, qmul, qrot

    E = 7
    pa = qexp(0.7 * rng.standard_normal((E, 3)))
    pb = qmul(pa, qexp(0.3 * rng.standard_normal((E, 3))))
    xa = rng.standard_normal((E, 3))
    xb = xa + np.array([0.0, 0.0, 1.0]) + 0.2 * rng.standard_normal((E, 3))
    ca, cb = qexp(0.1 * rng.standard_normal((E, 3))), qexp(0.1 * rng.standard_normal((E, 3)))
    pb[-1], ca[-1], cb[-1] = pa[-1], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
    xb[-1] = xa[-1] + 1.05 * qrot(pa[-1], np.array([0.0, 0.0, 1.0]))
    return pa, xa, pb, xb, ca, cb, np.full(E, 1.05)


def _closed_db(pa: FloatArray, xa: FloatArray, pb: FloatArray, xb: FloatArray, ca: FloatArray, cb: FloatArray,
               l0: FloatArray) -> tuple[FloatArray, FloatArray]:
    E = l0.shape[0]
    q = np.ascontiguousarray(np.concatenate([np.concatenate([pa, xa], 1), np.concatenate([pb, xb], 1)]))
    ia, ib = np.arange(E), np.arange(E) + E
    _, _, _, B, _, _ = run_pass(q, ia, ib, np.ascontiguousarray(ca), np.ascontiguousarray(cb), l0,
                                np.zeros((E, 7, 7)), False)
    return deformations(q, ia, ib, np.ascontiguousarray(ca), np.ascontiguousarray(cb), l0), B


def _reference_db(pa: FloatArray, xa: FloatArray, pb: FloatArray, xb: FloatArray, ca: FloatArray, cb: FloatArray,
                  l0: FloatArray) -> tuple[FloatArray, FloatArray]:
    from .corotational import _jacobian, local_deformations

    return np.real(local_deformations(pa, xa, pb, xb, ca, cb, l0)), _jacobian(pa, xa, pb, xb, l0, ca, cb)


TWINS: tuple[Twin, ...] = (
    Twin("corotational d and closed-form B", _closed_db, _reference_db, _sample, 1e-10),
)
"""The closed-form (d, B) against the numpy complex step (the tangent's twin, against the numpy central
differences of B, is in ``tests/test_frames_corotational.py``)."""


def warm() -> FloatArray:
    """Compile the kernels on a one-element sample (returns its B)."""
    q = np.array([[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]])
    p = np.array([[1.0, 0.0, 0.0, 0.0]])
    ia, ib = np.zeros(1, np.int64), np.ones(1, np.int64)
    out = run_pass(q, ia, ib, p, p, np.ones(1), np.zeros((1, 7, 7)), True)
    deformations(q, ia, ib, p, p, np.ones(1))
    geometric(q, ia, ib, p, p, np.ones(1), np.zeros((1, 7)))
    return out[3]
