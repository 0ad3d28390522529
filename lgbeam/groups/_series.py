"""Singular functions of the rotation angle, evaluated without loss of accuracy near zero.

Every function ``f(x)`` below is even and analytic at ``x = 0`` (the ``cot`` ones have radius 2π).
For ``|x| < switch`` it is evaluated from its Taylor polynomial in ``y = x²`` (coefficients derived
here in exact rational arithmetic from the series of sin and cos, so nothing is copied by hand);
above the switch the closed form is used, where its cancellation error is below ~1e-15 relative.
Switch points and lengths were chosen against 50-digit mpmath values (``tests/test_series.py``):
relative error ≤ 1e-14 on ``[0, π]`` for all functions, ≤ 2e-15 for most.

Names follow seed 004 Table 2 (see ``/work/shared/notes/beam-reference-data.md`` §3):

================================  ======================================================
``sinc(x)``                        sin x / x
``sin_half_over(x)``               sin(x/2) / x                         (exp on S³)
``cosm1_x2(x)``                    (cos x − 1) / x²                     (T, eq. (19))
``x_sin_x3(x)``                    (x − sin x) / x³                     (T, eq. (19))
``onem_cos_x2(x)``                 (1 − cos x) / x²                     (Rodrigues, eq. (16))
``two_2cos_xsin_x4(x)``            (2 − 2 cos x − x sin x) / x⁴         (C₁, eq. (20))
``x2cos_3sin_x5(x)``               (x (2 + cos x) − 3 sin x) / x⁵       (C₁, eq. (20))
``tinv_c(x)``                      (2 − x cot(x/2)) / (2 x²)            (T⁻¹)
``tinv_d(x)``                      (x sin x + 4 cos x + x² − 4) / (4 sin²(x/2) x⁴)   (T⁻¹, coupling)
``tinv_d1(x)``                     d′(x)/x of ``tinv_d`` (derivatives of T⁻¹; ``tinv_c′(x)/x = tinv_d(x)``)
================================  ======================================================

References
----------
Hante, Tumiotto & Arnold (2022), seed 004, eqs. (16)-(20) and Table 2 (Taylor branches).
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import table_matmul

_N = 40  # length of the exact power series in x used to derive the coefficients


def _sin() -> list[Fraction]:
    return [Fraction((-1) ** (k // 2), factorial(k)) if k % 2 else Fraction(0) for k in range(_N)]


def _cos() -> list[Fraction]:
    return [Fraction((-1) ** (k // 2), factorial(k)) if k % 2 == 0 else Fraction(0) for k in range(_N)]


def _add(*series: list[Fraction]) -> list[Fraction]:
    return [sum((s[k] for s in series), Fraction(0)) for k in range(_N)]


def _scale(c: Fraction | int, s: list[Fraction]) -> list[Fraction]:
    return [Fraction(c) * v for v in s]


def _shift(s: list[Fraction], p: int) -> list[Fraction]:
    """Multiply by x**p (p may be negative when the low coefficients vanish)."""
    if p < 0:
        assert all(v == 0 for v in s[:-p]), "series division by x^p with non-zero low terms"
        return s[-p:] + [Fraction(0)] * (-p)
    return [Fraction(0)] * p + s[: _N - p]


def _mul(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    return [sum((a[i] * b[k - i] for i in range(k + 1)), Fraction(0)) for k in range(_N)]


def _div(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    """Power series a / b with b[0] != 0."""
    out: list[Fraction] = []
    for k in range(_N):
        out.append((a[k] - sum((out[i] * b[k - i] for i in range(k)), Fraction(0))) / b[0])
    return out


def _const(c: int) -> list[Fraction]:
    return [Fraction(c)] + [Fraction(0)] * (_N - 1)


def _even(s: list[Fraction], n_terms: int) -> np.ndarray:
    """Coefficients of y = x² (an even series), highest power first for Horner."""
    assert all(v == 0 for v in s[1::2]), "series is not even"
    return np.array([float(v) for v in s[0::2][:n_terms]][::-1])


_SIN, _COS = _sin(), _cos()
_X = _shift(_const(1), 1)
_HALF_SIN = [v / 2**k for k, v in enumerate(_SIN)]  # sin(x/2)
_HALF_COS = [v / 2**k for k, v in enumerate(_COS)]  # cos(x/2)

# Exact series of each function (in x), then float Horner coefficients in y = x².
_SERIES = {
    "sinc": _shift(_SIN, -1),
    "sinc_half": [2 * v for v in _shift(_HALF_SIN, -1)],  # sinc(x/2) = 2 sin(x/2)/x
    "cosm1_x2": _shift(_add(_COS, _const(-1)), -2),
    "x_sin_x3": _shift(_add(_X, _scale(-1, _SIN)), -3),
    "two_2cos_xsin_x4": _shift(_add(_const(2), _scale(-2, _COS), _scale(-1, _mul(_X, _SIN))), -4),
    "x2cos_3sin_x5": _shift(_add(_scale(2, _X), _mul(_X, _COS), _scale(-3, _SIN)), -5),
    # (2 - x cot(x/2)) / (2x²) = (2 sin(x/2) - x cos(x/2)) / (2 x² sin(x/2))
    "tinv_c": _div(
        _shift(_add(_scale(2, _HALF_SIN), _scale(-1, _mul(_X, _HALF_COS))), -3),
        _scale(2, _shift(_HALF_SIN, -1)),
    ),
    # (x sin x + 4 cos x + x² − 4) / (4 sin²(x/2) x⁴),  4 sin²(x/2) = 2 − 2 cos x
    "tinv_d": _div(
        _shift(_add(_mul(_X, _SIN), _scale(4, _COS), _mul(_X, _X), _const(-4)), -6),
        _shift(_add(_const(2), _scale(-2, _COS)), -2),
    ),
}
# d'(x)/x of tinv_d, term by term (coefficient k s_k of x^(k−2)); the derivative of T⁻¹ (groups.tangent_derivatives)
_SERIES["tinv_d1"] = [k * v for k, v in enumerate(_SERIES["tinv_d"])][2:] + [Fraction(0)] * 2

# (switch point, number of even terms): truncation error at the switch < 1e-17 relative.
_BRANCH = {
    "sinc": (1e-2, 5),
    "sinc_half": (2e-2, 5),  # sinc(x/2): the same polynomial in (x/2)² as "sinc" below 1e-2
    "cosm1_x2": (1e-2, 5),
    "x_sin_x3": (1.0, 12),
    "two_2cos_xsin_x4": (1.5, 14),
    "x2cos_3sin_x5": (2.0, 16),
    "tinv_c": (1.0, 14),
    "tinv_d": (2.0, 18),
    "tinv_d1": (2.0, 18),  # closed form: 3e-14 relative at x = 2, 2e-15 from x = 2.7; series 1.5e-15 at x = 2
}

COEFFS: dict[str, np.ndarray] = {k: _even(_SERIES[k], _BRANCH[k][1]) for k in _BRANCH}
"""Horner coefficients (highest power of y = x² first) of each Taylor branch."""
_LOW: dict[str, np.ndarray] = {k: v[::-1].copy() for k, v in COEFFS.items()}
_COEFF_LISTS: dict[str, list[float]] = {k: [float(c) for c in v] for k, v in COEFFS.items()}

EXACT_SERIES: dict[str, list[Fraction]] = _SERIES
"""Exact rational power series (coefficient of x^k at index k), for tests and docs."""


def switch_point(name: str) -> float:
    """|x| below which ``name`` is evaluated from its Taylor polynomial ``COEFFS[name]`` (in y = x²)."""
    return _BRANCH[name][0]


def _horner(c: np.ndarray, y: FloatArray) -> FloatArray:
    out = np.full_like(y, c[0])
    for ck in c[1:]:
        out = out * y + ck
    return out


def _power_sum(table: np.ndarray, y: FloatArray) -> FloatArray:
    """Σ_k table[k] y^k (lowest power first; ``table`` (L,) or (L, k) for k functions at once).

    Two numpy calls instead of Horner's 2L: the powers by ``cumprod``, then one matrix product. On the
    Taylor branches the terms are positive or decay factorially (y < 4), so this is as accurate as
    Horner (≤ 5e-16 relative difference, checked against 250-digit values in tests/test_series.py).
    """
    powers = np.cumprod(np.broadcast_to(y[..., None], y.shape + (table.shape[0] - 1,)), axis=-1,
                        dtype=np.float64)
    if table.ndim == 1:
        return powers @ table[1:] + table[0]
    return table_matmul(powers, table[1:]) + table[0]


def _branch(name: str, x: FloatArray, closed) -> FloatArray:  # type: ignore[no-untyped-def]
    """Taylor polynomial where |x| < switch, closed form elsewhere (evaluated at a safe argument)."""
    x = np.abs(np.asarray(x, dtype=float))
    switch, _ = _BRANCH[name]
    if x.size == 1:  # single body (rigid bodies): Python floats avoid ~20 ufunc calls of overhead
        xv = float(x.reshape(()))
        if xv < switch:
            y, out = xv * xv, 0.0
            for ck in _COEFF_LISTS[name]:
                out = out * y + ck
        else:
            out = float(closed(xv))
        return np.full(x.shape, out)
    small = x < switch
    if small.all():  # one branch only (the common case on a fine rod mesh): skip the other
        return _power_sum(_LOW[name], x * x)
    if not small.any():
        return closed(x)
    safe = np.where(small, switch, x)
    return np.where(small, _power_sum(_LOW[name], x * x), closed(safe))


def _power_table(names: tuple[str, ...]) -> np.ndarray:
    """(L, k) coefficients of y⁰ … y^(L−1) (lowest first) of the k Taylor branches ``names``."""
    L = max(_BRANCH[nm][1] for nm in names)
    out = np.zeros((L, len(names)))
    for j, nm in enumerate(names):
        c = COEFFS[nm][::-1]
        out[: c.size, j] = c
    return out


_POWER_TABLES: dict[tuple[str, ...], np.ndarray] = {}


def evaluate(names: tuple[str, ...], x: FloatArray) -> tuple[FloatArray, ...]:
    """Several of the functions above at the same ``x`` (one Taylor evaluation for all of them).

    When every ``|x|`` lies below all the switch points, the Taylor polynomials are evaluated together as
    ``[1, y, y², …] @ coefficients`` (two numpy calls); their coefficients are positive or decay
    factorially on the branch, so the power sum is as accurate as Horner. Otherwise each function is
    evaluated on its own.
    """
    x = np.abs(np.asarray(x, dtype=float))
    if x.size > 1 and x.max(initial=0.0) < min(_BRANCH[nm][0] for nm in names):
        table = _POWER_TABLES.get(names)
        if table is None:
            table = _POWER_TABLES.setdefault(names, _power_table(names))
        vals = _power_sum(table, x * x)
        return tuple(vals[..., j] for j in range(len(names)))
    return tuple(_FUNCS[nm](x) for nm in names)


def sinc(x: FloatArray) -> FloatArray:
    """sin(x)/x; Taylor branch for |x| < 1e-2 (truncation < 1e-22)."""
    return _branch("sinc", x, lambda s: np.sin(s) / s)


def sinc_half(x: FloatArray) -> FloatArray:
    """sinc(x/2) = 2 sin(x/2)/x; Taylor branch for |x| < 2e-2."""
    return _branch("sinc_half", x, lambda s: np.sin(0.5 * s) / (0.5 * s))


def sin_half_over(x: FloatArray) -> FloatArray:
    """sin(x/2)/x (seed 004 eq. (17)), = sinc(x/2)/2."""
    return 0.5 * sinc(0.5 * np.asarray(x, dtype=float))


def onem_cos_x2(x: FloatArray) -> FloatArray:
    """(1 − cos x)/x² = sinc(x/2)²/2, free of cancellation (seed 004 eq. (16))."""
    s = sinc(0.5 * np.asarray(x, dtype=float))
    return 0.5 * s * s


def cosm1_x2(x: FloatArray) -> FloatArray:
    """(cos x − 1)/x² = −sinc(x/2)²/2 (seed 004 eq. (19), first coefficient)."""
    return -onem_cos_x2(x)


def x_sin_x3(x: FloatArray) -> FloatArray:
    """(x − sin x)/x³ (seed 004 eq. (19)); Taylor branch for |x| < 1."""
    return _branch("x_sin_x3", x, lambda s: (s - np.sin(s)) / s**3)


def two_2cos_xsin_x4(x: FloatArray) -> FloatArray:
    """(2 − 2cos x − x sin x)/x⁴ (seed 004 eq. (20)); Taylor branch for |x| < 1.5."""
    return _branch(
        "two_2cos_xsin_x4", x, lambda s: (4.0 * np.sin(0.5 * s) ** 2 - s * np.sin(s)) / s**4
    )


def x2cos_3sin_x5(x: FloatArray) -> FloatArray:
    """(x(2 + cos x) − 3 sin x)/x⁵ (seed 004 eq. (20)); Taylor branch for |x| < 2."""
    return _branch("x2cos_3sin_x5", x, lambda s: (s * (2.0 + np.cos(s)) - 3.0 * np.sin(s)) / s**5)


def tinv_c(x: FloatArray) -> FloatArray:
    """(2 − x cot(x/2))/(2x²), the Ω̃² coefficient of T⁻¹; Taylor branch for |x| < 1.

    Singular at x = ±2π (where T is not invertible)."""
    return _branch(
        "tinv_c", x, lambda s: (2.0 - s * np.cos(0.5 * s) / np.sin(0.5 * s)) / (2.0 * s * s)
    )


def tinv_d(x: FloatArray) -> FloatArray:
    """(x sin x + 4cos x + x² − 4)/(4 sin²(x/2) x⁴), the (Ω·U)Ω̃² coefficient of T⁻¹ on SE(3).

    Taylor branch for |x| < 2 (the closed form cancels to ~1e-2 of its terms at x = 1)."""

    def closed(s: FloatArray) -> FloatArray:
        return (s * np.sin(s) + 4.0 * np.cos(s) + s * s - 4.0) / (4.0 * np.sin(0.5 * s) ** 2 * s**4)

    return _branch("tinv_d", x, closed)


def tinv_d1(x: FloatArray) -> FloatArray:
    """d′(x)/x for d = ``tinv_d`` (needed by the derivatives of T⁻¹); Taylor branch for |x| < 2.

    Closed form (N′D − N D′)/(x D²) with N = x sin x + 4 cos x + x² − 4, D = (2 − 2 cos x) x⁴."""

    def closed(s: FloatArray) -> FloatArray:
        sn, cs = np.sin(s), np.cos(s)
        N, Np = s * sn + 4.0 * cs + s * s - 4.0, s * cs - 3.0 * sn + 2.0 * s
        one_c = 4.0 * np.sin(0.5 * s) ** 2  # 2 − 2 cos x without cancellation
        D, Dp = one_c * s**4, 2.0 * sn * s**4 + 4.0 * s**3 * one_c
        return (Np * D - N * Dp) / (D * D * s)

    return _branch("tinv_d1", x, closed)


_FUNCS = {
    "sinc": sinc, "sinc_half": sinc_half, "x_sin_x3": x_sin_x3, "two_2cos_xsin_x4": two_2cos_xsin_x4, "x2cos_3sin_x5": x2cos_3sin_x5,
    "tinv_c": tinv_c, "tinv_d": tinv_d, "tinv_d1": tinv_d1, "cosm1_x2": cosm1_x2,
}
