"""Compiled (numba) kernels for the hot loops of the half-explicit integrator on S³⋉R³ rods and bodies.

Each kernel is a loop over bodies/edges doing exactly the arithmetic of its numpy reference in
``lgbeam.groups`` / ``lgbeam.discretisations.rods.kernels`` (same formulas, same Taylor branches from
``lgbeam.groups._series``), so results agree to round-off (``tests/test_jit.py`` checks every kernel
against its numpy reference, and the group tests exercise them against scipy, mpmath and finite
differences). Why: a HEDOP5 step is 7 stages of exp, compose, T⁻¹, forces, Jacobian and a solve; in numpy
that is ~3 000 small array calls per step, whose per-call overhead — not arithmetic — sets the cost of
a step for rods of up to a few hundred nodes (``lgbeam bench herk`` measures both paths side by side).

``ENABLED`` is False when numba is missing or the environment sets ``LGBEAM_JIT=0``; every caller then
takes its numpy path. Kernels are compiled on first use and cached on disk (``cache=True``).
"""

from __future__ import annotations

import math
import os

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr

try:  # pragma: no cover - exercised by the environment, not by a test
    import numba
except ImportError:  # pragma: no cover
    numba = None

ENABLED = numba is not None and os.environ.get("LGBEAM_JIT", "1").strip().lower() not in ("0", "false", "no", "off")


def _njit(fn):  # type: ignore[no-untyped-def]
    if numba is None:  # pragma: no cover
        return fn
    return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)


# --------------------------------------------------------------------------- series (scalar)
_C_SINC = np.array(sr.COEFFS["sinc"])
_C_SINC_HALF = np.array(sr.COEFFS["sinc_half"])
_C_XSIN = np.array(sr.COEFFS["x_sin_x3"])
_C_TINV_C = np.array(sr.COEFFS["tinv_c"])
_C_TINV_D = np.array(sr.COEFFS["tinv_d"])
_SW_SINC, _SW_SINC_HALF = sr._BRANCH["sinc"][0], sr._BRANCH["sinc_half"][0]
_SW_XSIN, _SW_TINV_C, _SW_TINV_D = sr._BRANCH["x_sin_x3"][0], sr._BRANCH["tinv_c"][0], sr._BRANCH["tinv_d"][0]


@_njit
def _horner(c, y):  # type: ignore[no-untyped-def]
    out = 0.0
    for k in range(c.shape[0]):
        out = out * y + c[k]
    return out


@_njit
def sinc(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_SINC:
        return _horner(_C_SINC, x * x)
    return math.sin(x) / x


@_njit
def sinc_half(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_SINC_HALF:
        return _horner(_C_SINC_HALF, x * x)
    return math.sin(0.5 * x) / (0.5 * x)


@_njit
def x_sin_x3(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_XSIN:
        return _horner(_C_XSIN, x * x)
    return (x - math.sin(x)) / x**3


@_njit
def tinv_c(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_TINV_C:
        return _horner(_C_TINV_C, x * x)
    return (2.0 - x * math.cos(0.5 * x) / math.sin(0.5 * x)) / (2.0 * x * x)


@_njit
def tinv_d(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_TINV_D:
        return _horner(_C_TINV_D, x * x)
    s = math.sin(0.5 * x)
    return (x * math.sin(x) + 4.0 * math.cos(x) + x * x - 4.0) / (4.0 * s * s * x**4)


# --------------------------------------------------------------------------- S³⋉R³ per element
@_njit
def _exp1(xi, out):  # type: ignore[no-untyped-def]
    """exp of one (Ω, U) into out[0:7] (seed 004 eq. (18)), as ``S3R3.exp``."""
    w0, w1, w2, u0, u1, u2 = xi[0], xi[1], xi[2], xi[3], xi[4], xi[5]
    n2 = w0 * w0 + w1 * w1 + w2 * w2
    n = math.sqrt(n2)
    s = sinc_half(n)
    xs = x_sin_x3(n)
    out[0] = math.cos(0.5 * n)
    out[1], out[2], out[3] = 0.5 * s * w0, 0.5 * s * w1, 0.5 * s * w2
    a = 0.5 * s * s
    wu = w0 * u0 + w1 * u1 + w2 * u2
    out[4] = u0 + a * (w1 * u2 - w2 * u1) + xs * (wu * w0 - n2 * u0)
    out[5] = u1 + a * (w2 * u0 - w0 * u2) + xs * (wu * w1 - n2 * u1)
    out[6] = u2 + a * (w0 * u1 - w1 * u0) + xs * (wu * w2 - n2 * u2)


@_njit
def _rotate(p0, p1, p2, p3, v0, v1, v2):  # type: ignore[no-untyped-def]
    """R(p) v for a unit quaternion p = (p0, p1, p2, p3): v + 2 p0 (u × v) + 2 u × (u × v), u = (p1, p2, p3)."""
    c0 = p2 * v2 - p3 * v1
    c1 = p3 * v0 - p1 * v2
    c2 = p1 * v1 - p2 * v0
    return (v0 + 2.0 * (p0 * c0 + p2 * c2 - p3 * c1),
            v1 + 2.0 * (p0 * c1 + p3 * c0 - p1 * c2),
            v2 + 2.0 * (p0 * c2 + p1 * c1 - p2 * c0))


@_njit
def _compose1(a, b, out):  # type: ignore[no-untyped-def]
    """(p_a p_b, x_a + R(p_a) x_b) into out[0:7]."""
    a0, a1, a2, a3 = a[0], a[1], a[2], a[3]
    b0, b1, b2, b3 = b[0], b[1], b[2], b[3]
    r0, r1, r2 = _rotate(a0, a1, a2, a3, b[4], b[5], b[6])
    out[0] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
    out[1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
    out[2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
    out[3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0
    out[4], out[5], out[6] = a[4] + r0, a[5] + r1, a[6] + r2


@_njit
def s3r3_exp(xi):  # type: ignore[no-untyped-def]
    """(K, 6) → (K, 7)."""
    out = np.empty((xi.shape[0], 7))
    for k in range(xi.shape[0]):
        _exp1(xi[k], out[k])
    return out


@_njit
def s3r3_compose(a, b):  # type: ignore[no-untyped-def]
    """(K, 7), (K, 7) → (K, 7)."""
    out = np.empty((a.shape[0], 7))
    for k in range(a.shape[0]):
        _compose1(a[k], b[k], out[k])
    return out


@_njit
def s3r3_retract(q, theta):  # type: ignore[no-untyped-def]
    """q ∘ exp(θ): (K, 7), (K, 6) → (K, 7) (the stage update of seed 004 eq. (12))."""
    out = np.empty((q.shape[0], 7))
    e = np.empty(7)
    for k in range(q.shape[0]):
        _exp1(theta[k], e)
        _compose1(q[k], e, out[k])
    return out


@_njit
def _quat_log(p0, p1, p2, p3):  # type: ignore[no-untyped-def]
    """Rotation vector of a unit quaternion, angle in [0, π] (as ``so3.quat_log``)."""
    half = math.atan2(math.sqrt(p1 * p1 + p2 * p2 + p3 * p3), abs(p0))
    f = (-2.0 if p0 < 0.0 else 2.0) / sinc(half)
    return p1 * f, p2 * f, p3 * f


@_njit
def _tinv_so3(w0, w1, w2, c, v0, v1, v2):  # type: ignore[no-untyped-def]
    """T⁻¹(Ω) v = v + ½ Ω×v + c Ω×(Ω×v), c = tinv_c(|Ω|)."""
    a0 = w1 * v2 - w2 * v1
    a1 = w2 * v0 - w0 * v2
    a2 = w0 * v1 - w1 * v0
    return (v0 + 0.5 * a0 + c * (w1 * a2 - w2 * a1),
            v1 + 0.5 * a1 + c * (w2 * a0 - w0 * a2),
            v2 + 0.5 * a2 + c * (w0 * a1 - w1 * a0))


@_njit
def s3r3_log(a):  # type: ignore[no-untyped-def]
    """(K, 7) → (K, 6): (Ω, T⁻¹(−Ω) x) (as ``S3R3.log``)."""
    out = np.empty((a.shape[0], 6))
    for k in range(a.shape[0]):
        w0, w1, w2 = _quat_log(a[k, 0], a[k, 1], a[k, 2], a[k, 3])
        c = tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
        u0, u1, u2 = _tinv_so3(-w0, -w1, -w2, c, a[k, 4], a[k, 5], a[k, 6])
        out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4], out[k, 5] = w0, w1, w2, u0, u1, u2
    return out


@_njit
def _cross(a0, a1, a2, b0, b1, b2):  # type: ignore[no-untyped-def]
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@_njit
def s3r3_tinv_apply(xi, v):  # type: ignore[no-untyped-def]
    """T(ξ)⁻¹ v on se(3), (K, 6), (K, 6) → (K, 6): [[A, 0], [D, A]] with A = T⁻¹(Ω) and
    D = Ũ/2 + c (ŨΩ̃ + Ω̃Ũ) + d (Ω·U) Ω̃² (``lgbeam.groups.se3``)."""
    out = np.empty((xi.shape[0], 6))
    for k in range(xi.shape[0]):
        w0, w1, w2, u0, u1, u2 = xi[k, 0], xi[k, 1], xi[k, 2], xi[k, 3], xi[k, 4], xi[k, 5]
        a0, a1, a2, b0, b1, b2 = v[k, 0], v[k, 1], v[k, 2], v[k, 3], v[k, 4], v[k, 5]
        n = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        c, d = tinv_c(n), tinv_d(n)
        r0, r1, r2 = _tinv_so3(w0, w1, w2, c, a0, a1, a2)
        s0, s1, s2 = _tinv_so3(w0, w1, w2, c, b0, b1, b2)
        wa0, wa1, wa2 = _cross(w0, w1, w2, a0, a1, a2)
        ua0, ua1, ua2 = _cross(u0, u1, u2, a0, a1, a2)
        x0, x1, x2 = _cross(u0, u1, u2, wa0, wa1, wa2)  # Ũ Ω̃ a
        y0, y1, y2 = _cross(w0, w1, w2, ua0, ua1, ua2)  # Ω̃ Ũ a
        z0, z1, z2 = _cross(w0, w1, w2, wa0, wa1, wa2)  # Ω̃² a
        e = d * (w0 * u0 + w1 * u1 + w2 * u2)
        out[k, 0], out[k, 1], out[k, 2] = r0, r1, r2
        out[k, 3] = 0.5 * ua0 + c * (x0 + y0) + e * z0 + s0
        out[k, 4] = 0.5 * ua1 + c * (x1 + y1) + e * z1 + s1
        out[k, 5] = 0.5 * ua2 + c * (x2 + y2) + e * z2 + s2
    return out


@_njit
def _hat_entry(i, j, a0, a1, a2):  # type: ignore[no-untyped-def]
    """Entry (i, j) of hat(a) = [[0, −a2, a1], [a2, 0, −a0], [−a1, a0, 0]]."""
    if i == 0:
        return 0.0 if j == 0 else (-a2 if j == 1 else a1)
    if i == 1:
        return a2 if j == 0 else (0.0 if j == 1 else -a0)
    return -a1 if j == 0 else (a0 if j == 1 else 0.0)


@_njit
def _tinv_pair1(xi, J):  # type: ignore[no-untyped-def]
    """J (6, 12) = [−T⁻¹(−ξ) | T⁻¹(ξ)] of one ξ (as ``se3.tangent_inv_pair``)."""
    w0, w1, w2, u0, u1, u2 = xi[0], xi[1], xi[2], xi[3], xi[4], xi[5]
    W = (w0, w1, w2)
    U = (u0, u1, u2)
    n2 = w0 * w0 + w1 * w1 + w2 * w2
    n = math.sqrt(n2)
    c, d = tinv_c(n), tinv_d(n)
    wu = w0 * u0 + w1 * u1 + w2 * u2
    e = d * wu
    for i in range(3):
        for j in range(3):
            dij = 1.0 if i == j else 0.0
            ww = W[i] * W[j] - n2 * dij  # Ω̃²
            sym = W[i] * U[j] + U[i] * W[j] - 2.0 * wu * dij  # ŨΩ̃ + Ω̃Ũ
            hw = _hat_entry(i, j, w0, w1, w2)
            hu = _hat_entry(i, j, u0, u1, u2)
            A = dij + c * ww
            Dsym = c * sym + e * ww
            # T⁻¹(ξ): A = I + ½Ω̃ + cΩ̃², D = ½Ũ + c(ŨΩ̃+Ω̃Ũ) + d(Ω·U)Ω̃²; T⁻¹(−ξ) flips the ½ terms
            J[i, 6 + j] = A + 0.5 * hw
            J[3 + i, 9 + j] = A + 0.5 * hw
            J[3 + i, 6 + j] = Dsym + 0.5 * hu
            J[i, 9 + j] = 0.0
            J[i, j] = -(A - 0.5 * hw)
            J[3 + i, 3 + j] = -(A - 0.5 * hw)
            J[3 + i, j] = -(Dsym - 0.5 * hu)
            J[i, 3 + j] = 0.0


@_njit
def s3r3_tinv_pair(xi):  # type: ignore[no-untyped-def]
    """(K, 6) → (K, 6, 12), as ``se3.tangent_inv_pair``."""
    out = np.empty((xi.shape[0], 6, 12))
    for k in range(xi.shape[0]):
        _tinv_pair1(xi[k], out[k])
    return out


# --------------------------------------------------------------------------- rod edges and forces
@_njit
def rod_edge_kinematics(q):  # type: ignore[no-untyped-def]
    """xi_e = log(q_{e}⁻¹ q_{e+1}) (N, 6) and JJ_e = [Jm | Jp] (N, 6, 12), as ``kernels.edge_kinematics``."""
    ne = q.shape[0] - 1
    xi = np.empty((ne, 6))
    JJ = np.empty((ne, 6, 12))
    for e in range(ne):
        a0, a1, a2, a3 = q[e, 0], -q[e, 1], -q[e, 2], -q[e, 3]  # conj(p_a)
        b0, b1, b2, b3 = q[e + 1, 0], q[e + 1, 1], q[e + 1, 2], q[e + 1, 3]
        r0 = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
        r1 = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
        r2 = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
        r3 = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0
        x0, x1, x2 = _rotate(a0, a1, a2, a3, q[e + 1, 4] - q[e, 4], q[e + 1, 5] - q[e, 5], q[e + 1, 6] - q[e, 6])
        w0, w1, w2 = _quat_log(r0, r1, r2, r3)
        c = tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
        u0, u1, u2 = _tinv_so3(-w0, -w1, -w2, c, x0, x1, x2)
        xi[e, 0], xi[e, 1], xi[e, 2], xi[e, 3], xi[e, 4], xi[e, 5] = w0, w1, w2, u0, u1, u2
        _tinv_pair1(xi[e], JJ[e])
    return xi, JJ


@_njit
def rod_internal_forces(xi, JJ, V, C_ds, Cw0, Cd_ds, damped, J, m):  # type: ignore[no-untyped-def]
    """Elastic + Kelvin–Voigt + gyroscopic nodal forces (N+1, 6), as ``CosseratRod.forces`` without loads.

    sigma_e = C_ds xi_e − Cw0 (+ Cd_ds · JJ_e [v_e; v_{e+1}]); g_e += Jmᵀσ, g_{e+1} += Jpᵀσ;
    g_i += (Ω × JΩ, m Ω × U)."""
    ne = xi.shape[0]
    g = np.zeros((ne + 1, 6))
    sig = np.empty(6)
    for e in range(ne):
        for i in range(6):
            s = C_ds[e, i] * xi[e, i] - Cw0[e, i]
            if damped:
                rate = 0.0
                for j in range(6):
                    rate += JJ[e, i, j] * V[e, j] + JJ[e, i, 6 + j] * V[e + 1, j]
                s += Cd_ds[e, i] * rate
            sig[i] = s
        for j in range(6):
            fa = 0.0
            fb = 0.0
            for i in range(6):
                fa += sig[i] * JJ[e, i, j]
                fb += sig[i] * JJ[e, i, 6 + j]
            g[e, j] += fa
            g[e + 1, j] += fb
    for n in range(ne + 1):
        o0, o1, o2, u0, u1, u2 = V[n, 0], V[n, 1], V[n, 2], V[n, 3], V[n, 4], V[n, 5]
        j0, j1, j2 = J[n, 0] * o0, J[n, 1] * o1, J[n, 2] * o2
        c0, c1, c2 = _cross(o0, o1, o2, j0, j1, j2)
        d0, d1, d2 = _cross(o0, o1, o2, u0, u1, u2)
        g[n, 0] += c0
        g[n, 1] += c1
        g[n, 2] += c2
        g[n, 3] += m[n] * d0
        g[n, 4] += m[n] * d1
        g[n, 5] += m[n] * d2
    return g


@_njit
def rod_elastic_energy(xi, ds, w0, C):  # type: ignore[no-untyped-def]
    """Σ_e Δs_e ½ Σ_k C_k (xi_ek/Δs_e − w0_ek)², as ``kernels.elastic_energy`` (C the diagonal stiffness)."""
    V = 0.0
    for e in range(xi.shape[0]):
        s = 0.0
        for k in range(6):
            dw = xi[e, k] / ds[e] - w0[e, k]
            s += C[k] * dw * dw
        V += 0.5 * ds[e] * s
    return V


@_njit
def rod_step_residuals(xi, JJ, q, V, rows, phi_ref, ds, w0, C, mass_diag, node_mass, gvec):  # type: ignore[no-untyped-def]
    """(‖Φ‖, ‖B v‖, T + V) of a rod whose constraints are the internal rows ``rows`` of every edge:
    Φ_e = xi_e[rows] − phi_ref_e, (B v)_e = JJ_e[rows] [v_e; v_{e+1}], T = ½ Σ M_ii v_i², V elastic
    (``rod_elastic_energy``) − Σ m_i γ·x_i."""
    phi2 = 0.0
    bv2 = 0.0
    for e in range(xi.shape[0]):
        for r in range(rows.shape[0]):
            k = rows[r]
            d = xi[e, k] - phi_ref[e, r]
            phi2 += d * d
            b = 0.0
            for j in range(6):
                b += JJ[e, k, j] * V[e, j] + JJ[e, k, 6 + j] * V[e + 1, j]
            bv2 += b * b
    T = 0.0
    for i in range(V.shape[0]):
        for j in range(6):
            T += 0.5 * mass_diag[6 * i + j] * V[i, j] * V[i, j]
    G = 0.0
    for i in range(q.shape[0]):
        G += node_mass[i] * (gvec[0] * q[i, 4] + gvec[1] * q[i, 5] + gvec[2] * q[i, 6])
    return math.sqrt(phi2), math.sqrt(bv2), T + rod_elastic_energy(xi, ds, w0, C) - G


@_njit
def rotate_pairs(p, a):  # type: ignore[no-untyped-def]
    """(R(p_i) a_i[:3], R(p_i) a_i[3:]) for (n, 4) unit quaternions and (n, 6) vector pairs."""
    out = np.empty((p.shape[0], 6))
    for i in range(p.shape[0]):
        for k in range(0, 6, 3):
            r0, r1, r2 = _rotate(p[i, 0], p[i, 1], p[i, 2], p[i, 3], a[i, k], a[i, k + 1], a[i, k + 2])
            out[i, k], out[i, k + 1], out[i, k + 2] = r0, r1, r2
    return out


@_njit
def add_nodal_loads(body, p, idx, vec, is_spatial, scale):  # type: ignore[no-untyped-def]
    """body[idx_k] += s_k vec_k, rotated by R(p_idx_k)ᵀ first when ``is_spatial[k]`` (in place)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        s = scale[k]
        for b in range(0, 6, 3):
            a0, a1, a2 = s * vec[k, b], s * vec[k, b + 1], s * vec[k, b + 2]
            if is_spatial[k]:
                a0, a1, a2 = _rotate(p[i, 0], -p[i, 1], -p[i, 2], -p[i, 3], a0, a1, a2)
            body[i, b] += a0
            body[i, b + 1] += a1
            body[i, b + 2] += a2


# --------------------------------------------------------------------------- stage combinations
@_njit
def _accumulate(out, c, S, k):  # type: ignore[no-untyped-def]
    """out += Σ_{j<k} c[j] S[j], in place (zero coefficients skipped)."""
    for j in range(k):
        cj = c[j]
        if cj != 0.0:
            for l in range(out.shape[0]):
                out[l] += cj * S[j, l]
    return out


@_njit
def comb_rows(c, S, k):  # type: ignore[no-untyped-def]
    """Σ_{j<k} c[j] S[j] for S (≥k, n): the stage sums h Σ a_ij Θ̇_j of eq. (12) in one call."""
    return _accumulate(np.zeros(S.shape[1]), c, S, k)


@_njit
def axpy_rows(base, c, S, k):  # type: ignore[no-untyped-def]
    """base + Σ_{j<k} c[j] S[j] (the stage velocities v_n + h Σ a_ij V̇_j)."""
    return _accumulate(base.copy(), c, S, k)


# --------------------------------------------------------------------------- banded stage solve
@_njit
def band_lu_solve(ab, kl, ku, b):  # type: ignore[no-untyped-def]
    """Solve A x = b in place for A in LAPACK band storage with room for fill-in, by Gaussian elimination
    with partial pivoting (LAPACK dgbtf2 + dgbtrs, unblocked). ``ab`` is (n, 2 kl + ku + 1) indexed
    [column, row] with ab[j, kl + ku + i − j] = A[i, j]. Returns 0, or k + 1 if the pivot of column k is
    zero (A singular)."""
    n = ab.shape[0]
    kv = kl + ku
    ipiv = np.empty(n, dtype=np.int64)
    for j in range(ku + 1, min(kv, n)):  # fill-in rows of the first columns start at zero
        for i in range(kv - j, kl):
            ab[j, i] = 0.0
    ju = 0
    for j in range(n):
        if j + kv < n:
            for i in range(kl):
                ab[j + kv, i] = 0.0
        km = min(kl, n - 1 - j)
        jp = 0
        big = abs(ab[j, kv])
        for r in range(1, km + 1):
            if abs(ab[j, kv + r]) > big:
                big, jp = abs(ab[j, kv + r]), r
        ipiv[j] = j + jp
        if ab[j, kv + jp] == 0.0:
            return j + 1
        ju = max(ju, min(j + ku + jp, n - 1))
        if jp != 0:
            for c in range(j, ju + 1):
                t = ab[c, kv + jp - (c - j)]
                ab[c, kv + jp - (c - j)] = ab[c, kv - (c - j)]
                ab[c, kv - (c - j)] = t
        if km > 0:
            rp = 1.0 / ab[j, kv]
            for r in range(1, km + 1):
                ab[j, kv + r] *= rp
            for c in range(j + 1, ju + 1):
                a = ab[c, kv - (c - j)]
                if a != 0.0:
                    for r in range(1, km + 1):
                        ab[c, kv + r - (c - j)] -= ab[j, kv + r] * a
    for j in range(n - 1):  # L y = P b
        l = ipiv[j]
        if l != j:
            t = b[l]
            b[l] = b[j]
            b[j] = t
        for r in range(1, min(kl, n - 1 - j) + 1):
            b[j + r] -= ab[j, kv + r] * b[j]
    for j in range(n - 1, -1, -1):  # U x = y, U of bandwidth kl + ku
        b[j] /= ab[j, kv]
        bj = b[j]
        for i in range(max(0, j - kv), j):
            b[i] -= ab[j, kv + i - j] * bj
    return 0


@_njit
def dense_stage_solve(Minv, B_i, B_next, r1, r2g):  # type: ignore[no-untyped-def]
    """(V̇, Λ, info) of [[M, B_iᵀ], [γ B_next, 0]] [V̇; Λ] = [r1; γ r2g] for small dense M⁻¹ (n, n) and
    B (m, n), through S = B_next M⁻¹ B_iᵀ and Gaussian elimination with partial pivoting (info = k + 1 for a
    zero pivot in column k, −1 for a non-finite multiplier)."""
    m = B_i.shape[0]
    a = Minv @ r1
    MB = Minv @ B_i.T
    S = B_next @ MB
    lam = B_next @ a - r2g
    ab = np.zeros((m, 3 * m - 2 if m > 0 else 1))  # band storage with kl = ku = m − 1 (full)
    kl = m - 1
    for i in range(m):
        for j in range(m):
            ab[j, 2 * kl + i - j] = S[i, j]
    info = band_lu_solve(ab, kl, kl, lam)
    if info == 0 and not np.isfinite(lam).all():
        info = -1
    return a - MB @ lam, lam, info


@_njit
def quat_to_matrix(p):  # type: ignore[no-untyped-def]
    """R(p) of (K, ≥4) unit quaternions (first four columns), (K, 3, 3), as ``groups.base.quat_to_matrix``."""
    out = np.empty((p.shape[0], 3, 3))
    for k in range(p.shape[0]):
        w, x, y, z = p[k, 0], p[k, 1], p[k, 2], p[k, 3]
        out[k, 0, 0] = 1.0 - 2.0 * (y * y + z * z)
        out[k, 0, 1] = 2.0 * (x * y - w * z)
        out[k, 0, 2] = 2.0 * (x * z + w * y)
        out[k, 1, 0] = 2.0 * (x * y + w * z)
        out[k, 1, 1] = 1.0 - 2.0 * (x * x + z * z)
        out[k, 1, 2] = 2.0 * (y * z - w * x)
        out[k, 2, 0] = 2.0 * (x * z - w * y)
        out[k, 2, 1] = 2.0 * (y * z + w * x)
        out[k, 2, 2] = 1.0 - 2.0 * (x * x + y * y)
    return out


@_njit
def schur_stage_solve(d, r1, r2g, data_next, data_i, rows, cols, pa, pb, weight, target, kl, ku, perm, pos):  # type: ignore[no-untyped-def]
    """(V̇, Λ, info) of [[M, B_iᵀ], [γ B_next, 0]] [V̇; Λ] = [r1; γ r2g] with M⁻¹ = diag(d), both B in one
    CSR pattern (entries ``rows``/``cols``): the Schur complement S = B_next M⁻¹ B_iᵀ is gathered from the
    entry pairs (pa, pb) into band storage at ``target`` (rows/columns permuted by ``perm``/``pos``) and
    solved by ``band_lu_solve``; as ``lgbeam.integrators._linear._ProductPattern``. info: 0, k + 1 for a zero
    pivot in column k, −1 for a non-finite multiplier."""
    m = pos.shape[0]
    ldab = 2 * kl + ku + 1
    a = d * r1
    rhs = -r2g.copy()
    for e in range(rows.shape[0]):
        rhs[rows[e]] += data_next[e] * a[cols[e]]
    ab = np.zeros(m * ldab)
    for k in range(pa.shape[0]):
        ab[target[k]] += data_next[pa[k]] * weight[k] * data_i[pb[k]]
    x = rhs[perm]
    info = band_lu_solve(ab.reshape(m, ldab), kl, ku, x)
    lam = x[pos]
    if info == 0 and not np.isfinite(lam).all():
        info = -1
    out = a.copy()
    for e in range(rows.shape[0]):
        out[cols[e]] -= d[cols[e]] * data_i[e] * lam[rows[e]]
    return out, lam, info


def fast_rows(a: object, width: int) -> FloatArray | None:
    """``a`` viewed as (K, width) rows when it is a C-contiguous float64 ndarray whose last axis has
    ``width`` entries (the integrator's hot path, where the checked conversions cost more than the
    kernels), else None."""
    if (type(a) is np.ndarray and a.dtype.char == "d" and a.flags.c_contiguous and a.ndim
            and a.shape[-1] == width):
        return a.reshape(-1, width)
    return None


def as_rows(a: FloatArray, width: int) -> FloatArray:
    """``a`` as a C-contiguous float (K, width) array (a view when it already is one)."""
    return np.ascontiguousarray(a, dtype=float).reshape(-1, width)
