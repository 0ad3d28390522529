"""Compiled (numba) twins of the S³⋉R³ maps, the series of ``_series`` and ``base.quat_to_matrix``.

Each kernel is a loop over rows doing exactly the arithmetic of its numpy reference (same formulas, same
Taylor branches and switch points from ``_series``), so results agree to round-off: ``TWINS`` below and
``s3r3.COMPILED_TWINS`` pair every kernel with its reference, and ``tests/test_jit.py`` compares them.
Why: a HEDOP5 step is 7 stages of exp, compose, T⁻¹, forces, Jacobian and a solve; in numpy that is
~3 000 small array calls per step, whose per-call overhead, not arithmetic, sets the cost of a step for
rods of up to a few hundred nodes (``lgbeam bench herk`` measures both paths side by side).

Row kernels take C-contiguous float64 ``(K, 7)`` elements / ``(K, 6)`` tangents. The per-element
helpers (``exp1``, ``compose1``, ``rotate``, ``quat_log1``, ``tinv_so3``, ``tinv_pair1``, ``cross``)
are public for compiled kernels built on them (``lgbeam.discretisations.rods._compiled``, through
``lgbeam.groups.compiled_kernels``).
"""

from __future__ import annotations

import math

import numpy as np

from lgbeam._numba import Twin, njit
from lgbeam.groups import _series as sr
from lgbeam.groups.base import quat_to_matrix as _quat_to_matrix_numpy
from lgbeam.groups.se3 import tangent_inv_pair

# --------------------------------------------------------------------------- series (scalar)
_C_SINC = np.array(sr.COEFFS["sinc"])
_C_SINC_HALF = np.array(sr.COEFFS["sinc_half"])
_C_XSIN = np.array(sr.COEFFS["x_sin_x3"])
_C_TINV_C = np.array(sr.COEFFS["tinv_c"])
_C_TINV_D = np.array(sr.COEFFS["tinv_d"])
_SW_SINC, _SW_SINC_HALF = sr.switch_point("sinc"), sr.switch_point("sinc_half")
_SW_XSIN, _SW_TINV_C, _SW_TINV_D = sr.switch_point("x_sin_x3"), sr.switch_point("tinv_c"), sr.switch_point("tinv_d")


@njit
def horner(c, y):  # type: ignore[no-untyped-def]
    out = 0.0
    for k in range(c.shape[0]):
        out = out * y + c[k]
    return out


@njit
def sinc(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_SINC:
        return horner(_C_SINC, x * x)
    return math.sin(x) / x


@njit
def sinc_half(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_SINC_HALF:
        return horner(_C_SINC_HALF, x * x)
    return math.sin(0.5 * x) / (0.5 * x)


@njit
def x_sin_x3(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_XSIN:
        return horner(_C_XSIN, x * x)
    return (x - math.sin(x)) / x**3


_C_C4 = np.array(sr.COEFFS["two_2cos_xsin_x4"])
_C_C5 = np.array(sr.COEFFS["x2cos_3sin_x5"])
_SW_C4, _SW_C5 = sr.switch_point("two_2cos_xsin_x4"), sr.switch_point("x2cos_3sin_x5")


@njit
def two_2cos_xsin_x4(x):  # type: ignore[no-untyped-def]
    """(2 − 2cos x − x sin x)/x⁴ (``_series.two_2cos_xsin_x4``)."""
    x = abs(x)
    if x < _SW_C4:
        return horner(_C_C4, x * x)
    h = math.sin(0.5 * x)
    return (4.0 * h * h - x * math.sin(x)) / x**4


@njit
def x2cos_3sin_x5(x):  # type: ignore[no-untyped-def]
    """(x(2 + cos x) − 3 sin x)/x⁵ (``_series.x2cos_3sin_x5``)."""
    x = abs(x)
    if x < _SW_C5:
        return horner(_C_C5, x * x)
    return (x * (2.0 + math.cos(x)) - 3.0 * math.sin(x)) / x**5


@njit
def tinv_c(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_TINV_C:
        return horner(_C_TINV_C, x * x)
    return (2.0 - x * math.cos(0.5 * x) / math.sin(0.5 * x)) / (2.0 * x * x)


@njit
def tinv_d(x):  # type: ignore[no-untyped-def]
    x = abs(x)
    if x < _SW_TINV_D:
        return horner(_C_TINV_D, x * x)
    s = math.sin(0.5 * x)
    return (x * math.sin(x) + 4.0 * math.cos(x) + x * x - 4.0) / (4.0 * s * s * x**4)


# --------------------------------------------------------------------------- S³⋉R³ per element
@njit
def exp1(xi, out):  # type: ignore[no-untyped-def]
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


@njit
def rotate(p0, p1, p2, p3, v0, v1, v2):  # type: ignore[no-untyped-def]
    """R(p) v for a unit quaternion p = (p0, p1, p2, p3): v + 2 p0 (u × v) + 2 u × (u × v), u = (p1, p2, p3)."""
    c0 = p2 * v2 - p3 * v1
    c1 = p3 * v0 - p1 * v2
    c2 = p1 * v1 - p2 * v0
    return (v0 + 2.0 * (p0 * c0 + p2 * c2 - p3 * c1),
            v1 + 2.0 * (p0 * c1 + p3 * c0 - p1 * c2),
            v2 + 2.0 * (p0 * c2 + p1 * c1 - p2 * c0))


@njit
def compose1(a, b, out):  # type: ignore[no-untyped-def]
    """(p_a p_b, x_a + R(p_a) x_b) into out[0:7]."""
    a0, a1, a2, a3 = a[0], a[1], a[2], a[3]
    b0, b1, b2, b3 = b[0], b[1], b[2], b[3]
    r0, r1, r2 = rotate(a0, a1, a2, a3, b[4], b[5], b[6])
    out[0] = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
    out[1] = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
    out[2] = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
    out[3] = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0
    out[4], out[5], out[6] = a[4] + r0, a[5] + r1, a[6] + r2


@njit
def s3r3_exp(xi):  # type: ignore[no-untyped-def]
    """(K, 6) → (K, 7)."""
    out = np.empty((xi.shape[0], 7))
    for k in range(xi.shape[0]):
        exp1(xi[k], out[k])
    return out


@njit
def s3r3_compose(a, b):  # type: ignore[no-untyped-def]
    """(K, 7), (K, 7) → (K, 7)."""
    out = np.empty((a.shape[0], 7))
    for k in range(a.shape[0]):
        compose1(a[k], b[k], out[k])
    return out


@njit
def s3r3_retract(q, theta):  # type: ignore[no-untyped-def]
    """q ∘ exp(θ): (K, 7), (K, 6) → (K, 7) (the stage update of seed 004 eq. (12))."""
    out = np.empty((q.shape[0], 7))
    e = np.empty(7)
    for k in range(q.shape[0]):
        exp1(theta[k], e)
        compose1(q[k], e, out[k])
    return out


@njit
def quat_log1(p0, p1, p2, p3):  # type: ignore[no-untyped-def]
    """Rotation vector of a unit quaternion, angle in [0, π] (as ``so3.quat_log``)."""
    half = math.atan2(math.sqrt(p1 * p1 + p2 * p2 + p3 * p3), abs(p0))
    f = (-2.0 if p0 < 0.0 else 2.0) / sinc(half)
    return p1 * f, p2 * f, p3 * f


@njit
def tinv_so3(w0, w1, w2, c, v0, v1, v2):  # type: ignore[no-untyped-def]
    """T⁻¹(Ω) v = v + ½ Ω×v + c Ω×(Ω×v), c = tinv_c(|Ω|)."""
    a0 = w1 * v2 - w2 * v1
    a1 = w2 * v0 - w0 * v2
    a2 = w0 * v1 - w1 * v0
    return (v0 + 0.5 * a0 + c * (w1 * a2 - w2 * a1),
            v1 + 0.5 * a1 + c * (w2 * a0 - w0 * a2),
            v2 + 0.5 * a2 + c * (w0 * a1 - w1 * a0))


@njit
def s3r3_log(a):  # type: ignore[no-untyped-def]
    """(K, 7) → (K, 6): (Ω, T⁻¹(−Ω) x) (as ``S3R3.log``)."""
    out = np.empty((a.shape[0], 6))
    for k in range(a.shape[0]):
        w0, w1, w2 = quat_log1(a[k, 0], a[k, 1], a[k, 2], a[k, 3])
        c = tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
        u0, u1, u2 = tinv_so3(-w0, -w1, -w2, c, a[k, 4], a[k, 5], a[k, 6])
        out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4], out[k, 5] = w0, w1, w2, u0, u1, u2
    return out


@njit
def cross(a0, a1, a2, b0, b1, b2):  # type: ignore[no-untyped-def]
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit
def s3r3_tinv_apply(xi, v):  # type: ignore[no-untyped-def]
    """T(ξ)⁻¹ v on se(3), (K, 6), (K, 6) → (K, 6): [[A, 0], [D, A]] with A = T⁻¹(Ω) and
    D = Ũ/2 + c (ŨΩ̃ + Ω̃Ũ) + d (Ω·U) Ω̃² (``lgbeam.groups.se3``)."""
    out = np.empty((xi.shape[0], 6))
    for k in range(xi.shape[0]):
        w0, w1, w2, u0, u1, u2 = xi[k, 0], xi[k, 1], xi[k, 2], xi[k, 3], xi[k, 4], xi[k, 5]
        a0, a1, a2, b0, b1, b2 = v[k, 0], v[k, 1], v[k, 2], v[k, 3], v[k, 4], v[k, 5]
        n = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        c, d = tinv_c(n), tinv_d(n)
        r0, r1, r2 = tinv_so3(w0, w1, w2, c, a0, a1, a2)
        s0, s1, s2 = tinv_so3(w0, w1, w2, c, b0, b1, b2)
        wa0, wa1, wa2 = cross(w0, w1, w2, a0, a1, a2)
        ua0, ua1, ua2 = cross(u0, u1, u2, a0, a1, a2)
        x0, x1, x2 = cross(u0, u1, u2, wa0, wa1, wa2)  # Ũ Ω̃ a
        y0, y1, y2 = cross(w0, w1, w2, ua0, ua1, ua2)  # Ω̃ Ũ a
        z0, z1, z2 = cross(w0, w1, w2, wa0, wa1, wa2)  # Ω̃² a
        e = d * (w0 * u0 + w1 * u1 + w2 * u2)
        out[k, 0], out[k, 1], out[k, 2] = r0, r1, r2
        out[k, 3] = 0.5 * ua0 + c * (x0 + y0) + e * z0 + s0
        out[k, 4] = 0.5 * ua1 + c * (x1 + y1) + e * z1 + s1
        out[k, 5] = 0.5 * ua2 + c * (x2 + y2) + e * z2 + s2
    return out


@njit
def _hat_entry(i, j, a0, a1, a2):  # type: ignore[no-untyped-def]
    """Entry (i, j) of hat(a) = [[0, −a2, a1], [a2, 0, −a0], [−a1, a0, 0]]."""
    if i == 0:
        return 0.0 if j == 0 else (-a2 if j == 1 else a1)
    if i == 1:
        return a2 if j == 0 else (0.0 if j == 1 else -a0)
    return -a1 if j == 0 else (a0 if j == 1 else 0.0)


@njit
def tinv_pair1(xi, J):  # type: ignore[no-untyped-def]
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


@njit
def s3r3_tinv_pair(xi):  # type: ignore[no-untyped-def]
    """(K, 6) → (K, 6, 12), as ``se3.tangent_inv_pair``."""
    out = np.empty((xi.shape[0], 6, 12))
    for k in range(xi.shape[0]):
        tinv_pair1(xi[k], out[k])
    return out



@njit
def quat_to_matrix(p):  # type: ignore[no-untyped-def]
    """R(p) of (K, ≥4) unit quaternions (first four columns), (K, 3, 3), as ``base.quat_to_matrix``."""
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


# --------------------------------------------------------------------------- kernel / reference pairs
def _angles(rng: np.random.Generator) -> tuple[np.ndarray]:
    """|x| on both sides of every switch point, tiny, and up to π (the Taylor and closed branches)."""
    sw = [sr.switch_point(nm) for nm in ("sinc", "sinc_half", "x_sin_x3", "tinv_c", "tinv_d")]
    near = np.concatenate([np.array(sw) * (1.0 - 1e-12), np.array(sw) * (1.0 + 1e-12)])
    return (np.concatenate([[0.0, 1e-300, 1e-9], near, rng.uniform(0.0, np.pi, 20)]),)


def _unit_quaternions(rng: np.random.Generator) -> tuple[np.ndarray]:
    p = rng.normal(size=(30, 4))
    return (p / np.linalg.norm(p, axis=1, keepdims=True),)


def tangents(rng: np.random.Generator, k: int = 40) -> np.ndarray:
    """(k, 6) tangents with |Ω| from 1e-10 to 3 (below π: off the cut of log)."""
    xi = rng.normal(size=(k, 6))
    W = xi[:, :3]
    W *= (np.geomspace(1e-10, 3.0, k) / np.linalg.norm(W, axis=1))[:, None]
    return xi


TWINS: tuple[Twin, ...] = (
    *(Twin(nm, np.vectorize(fn), getattr(sr, nm), _angles)
      for nm, fn in (("sinc", sinc), ("sinc_half", sinc_half), ("x_sin_x3", x_sin_x3), ("tinv_c", tinv_c),
                     ("tinv_d", tinv_d))),
    Twin("quat_to_matrix", quat_to_matrix, _quat_to_matrix_numpy, _unit_quaternions),
    Twin("s3r3_tinv_pair", s3r3_tinv_pair, tangent_inv_pair, lambda rng: (tangents(rng),)),
)
"""(compiled, reference, sample) of the kernels whose references live in other groups modules; the
S³⋉R³ maps are paired in ``s3r3.COMPILED_TWINS`` (s3r3 imports this module)."""
