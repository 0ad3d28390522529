"""Singular functions of lgbeam.groups._series against 250-digit mpmath values (independent truth)."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lgbeam.groups import _series as sr

DPS = 250  # the closed forms cancel ~x^6: at x >= 1e-30 that is < 190 of the 250 digits


@pytest.fixture(autouse=True)
def _precision():
    """Every test here computes its references at 250 digits, whatever another module set globally."""
    with mp.workdps(DPS):
        yield

REF = {
    "sinc": lambda x: mp.sin(x) / x,
    "sin_half_over": lambda x: mp.sin(x / 2) / x,
    "onem_cos_x2": lambda x: (1 - mp.cos(x)) / x**2,
    "cosm1_x2": lambda x: (mp.cos(x) - 1) / x**2,
    "x_sin_x3": lambda x: (x - mp.sin(x)) / x**3,
    "two_2cos_xsin_x4": lambda x: (2 - 2 * mp.cos(x) - x * mp.sin(x)) / x**4,
    "x2cos_3sin_x5": lambda x: (x * (2 + mp.cos(x)) - 3 * mp.sin(x)) / x**5,
    "tinv_c": lambda x: (2 - x * mp.cot(x / 2)) / (2 * x**2),
    "tinv_d": lambda x: (x * mp.sin(x) + 4 * mp.cos(x) + x**2 - 4) / (4 * mp.sin(x / 2) ** 2 * x**4),
}
LIMIT_AT_0 = {"sinc": 1, "sin_half_over": Fraction(1, 2), "onem_cos_x2": Fraction(1, 2),
              "cosm1_x2": Fraction(-1, 2), "x_sin_x3": Fraction(1, 6), "two_2cos_xsin_x4": Fraction(1, 12),
              "x2cos_3sin_x5": Fraction(1, 60), "tinv_c": Fraction(1, 12), "tinv_d": Fraction(1, 360)}

# the sample angles, both sides of every switch point, and up to pi - 1e-6
POINTS = np.array([1e-30, 1e-12, 1e-9, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2 * (1 - 1e-12), 1e-2, 0.05, 0.1, 0.3,
                   0.5, 1 - 1e-12, 1.0, 1.2, 1.5 - 1e-12, 1.5, 2 - 1e-12, 2.0, 2.5, 3.0, np.pi - 1e-6])
REL_TOL = 1e-14  # issue target is 1e-13 for exp/log/T; the building blocks need margin below it


def _ref(name: str, x: np.ndarray) -> np.ndarray:
    return np.array([float(REF[name](mp.mpf(float(v)))) for v in x])


@pytest.mark.parametrize("name", sorted(REF))
def test_against_mpmath_on_grid(name: str) -> None:
    got = getattr(sr, name)(POINTS)
    ref = _ref(name, POINTS)
    rel = np.abs(got - ref) / np.abs(ref)
    assert rel.max() <= REL_TOL, f"{name}: max rel error {rel.max():.2e} at x = {POINTS[rel.argmax()]}"
    # evenness: f(-x) = f(x)
    assert np.array_equal(getattr(sr, name)(-POINTS), got)


@pytest.mark.parametrize("name", sorted(REF))
def test_limit_at_zero_is_exact(name: str) -> None:
    assert getattr(sr, name)(np.array([0.0]))[0] == float(LIMIT_AT_0[name])


@given(x=st.floats(min_value=1e-30, max_value=np.pi - 1e-6))  # 1e-30: see DPS above
def test_against_mpmath_random(x: float) -> None:
    for name, fn in REF.items():
        got = float(getattr(sr, name)(np.array([x]))[0])
        ref = float(fn(mp.mpf(x)))
        assert abs(got - ref) <= REL_TOL * abs(ref), f"{name}({x!r}) = {got!r}, mpmath {ref!r}"


def test_taylor_coefficients_match_seed004_table2() -> None:
    """The Taylor polynomials of seed 004 Table 2 (notes §3) are prefixes of the exact series."""
    table = {
        "cosm1_x2": [Fraction(-1, 2), Fraction(1, 24), Fraction(-1, 720)],
        "x_sin_x3": [Fraction(1, 6), Fraction(-1, 120), Fraction(1, 5040)],
        "two_2cos_xsin_x4": [Fraction(1, 12), Fraction(-1, 180), Fraction(1, 6720), Fraction(-1, 453600)],
        "x2cos_3sin_x5": [Fraction(1, 60), Fraction(-1, 1260), Fraction(1, 60480), Fraction(-1, 4989600)],
        "tinv_c": [Fraction(1, 12), Fraction(1, 720), Fraction(1, 30240)],
        "tinv_d": [Fraction(1, 360), Fraction(1, 7560), Fraction(1, 201600), Fraction(1, 5987520),
                   Fraction(691, 130767436800)],
    }
    for name, coeffs in table.items():
        assert sr.EXACT_SERIES[name][0 : 2 * len(coeffs) : 2] == coeffs, name
    # the decimal constant of the reference implementation (notes §3)
    assert float(Fraction(691, 130767436800)) == pytest.approx(5.284190138687493e-9, rel=1e-15)


def test_no_fp_error_at_zero_and_tiny() -> None:
    """conftest raises on divide/invalid: the safe-branch construction must not trip it."""
    x = np.array([0.0, 5e-324, 1e-300, -0.0])
    for name in REF:
        assert np.all(np.isfinite(getattr(sr, name)(x)))
