"""Homogeneous spaces of seed 000 (lgbeam.groups.homogeneous): dexp⁻¹ against the integral formula, the
action axioms, generators by finite differences, orbit invariants, the scalar functions against 50-digit
values, and bad input (notes/000.md §10 checks 1–2)."""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.linalg import expm

from lgbeam.groups import SE3, SO3, TS2
from lgbeam.groups.homogeneous import (
    MANIFOLD_TOL,
    CoadjointSE3,
    CoadjointSO3,
    LeftMultiplication,
    ProductSpace,
    TangentSpheres,
    Translation,
    _coefficients,
    bracket_se3,
    dexp_inv_se3,
    dexp_inv_series,
    dexp_inv_so3,
)
from lgbeam.groups.se3 import tangent_inv_se3_apply
from lgbeam.groups.so3 import tangent_inv_so3_apply


def _hat(x):
    return np.array([[0, -x[2], x[1]], [x[2], 0, -x[0]], [-x[1], x[0], 0]])


def _ad_se3(x):
    """6×6 matrix of y ↦ [x, y] built from the bracket formula (A × B, A × b + a × B) alone."""
    out = np.zeros((6, 6))
    out[:3, :3] = _hat(x[:3])
    out[3:, 3:] = _hat(x[:3])
    out[3:, :3] = _hat(x[3:])
    return out


def _dexp_inv_integral(ad):
    """(∫₀¹ exp(s ad) ds)⁻¹ by 40-point Gauss–Legendre on expm: the definition of right dexp⁻¹."""
    s, w = np.polynomial.legendre.leggauss(40)
    D = sum(wi * expm(0.5 * (si + 1) * ad) for si, wi in zip(s, w)) / 2
    return np.linalg.inv(D)


def _tangent_sample(rng, n, scale):
    return rng.standard_normal((n, 6)) * scale


@pytest.mark.parametrize("scale", [1e-7, 1e-3, 0.1, 0.5, 1.2])
def test_dexp_inv_se3_matches_integral_formula(rng, scale):
    """Check 1 of notes §10: the φ(ad) template equals (∫ exp(s ad))⁻¹ to 1e-12 (|A| up to ~3)."""
    for x in _tangent_sample(rng, 6, scale):
        y = rng.standard_normal(6)
        ref = _dexp_inv_integral(_ad_se3(x)) @ y
        assert_allclose(dexp_inv_se3(x, y), ref, atol=1e-12 * (1 + np.abs(ref).max()))  # notes §8.1: 5e-13
        # lgbeam's left-trivialised T relates as dexp⁻¹_σ = T(−σ)⁻¹ (docs/conventions.md)
        assert_allclose(dexp_inv_se3(x, y), tangent_inv_se3_apply(-x, y), atol=1e-12 * (1 + np.abs(ref).max()))


def test_dexp_inv_so3_matches_integral_formula(rng):
    for scale in (1e-8, 0.01, 1.0, 2.5):
        u, v = rng.standard_normal(3) * scale, rng.standard_normal(3)
        ref = _dexp_inv_integral(_hat(u)) @ v
        assert_allclose(dexp_inv_so3(u, v), ref, atol=1e-12)
        assert_allclose(dexp_inv_so3(u, v), tangent_inv_so3_apply(-u, v), atol=1e-13)


def test_truncated_series_converges_to_the_exact_map(rng):
    """(8) truncated after ad^k approaches the exact dexp⁻¹ with error O(|x|^{k+1}) (B_3 = 0 skips a power)."""
    x, y = rng.standard_normal(6), rng.standard_normal(6)
    x *= 0.3 / np.linalg.norm(x[:3])
    exact = dexp_inv_se3(x, y)
    errs = [np.abs(dexp_inv_series(bracket_se3, x, y, k) - exact).max() for k in (0, 1, 2, 4, 6, 8, 10)]
    assert all(a > b for a, b in itertools.pairwise(errs))
    assert errs[-1] < 1e-12
    with pytest.raises(ValueError, match="degree must be an integer"):
        dexp_inv_series(bracket_se3, x, y, 11)


def test_scalar_functions_against_50_digits():
    """sin t/t, (1−cos t)/t², (t−sin t)/t³, g₂, g̃₂ on both sides of the series switch (1.5) and near 0."""
    with mp.workdps(50):  # local precision: a global mp.dps would change other modules' references

        def g2(z):
            return (1 - (z / 2) * mp.cot(z / 2)) / z**2

        ts = [1e-9, 1e-4, 0.02, 0.7, 1.49999, 1.5, 1.50001, 3.0, 5.5]
        got = _coefficients(np.array(ts))
        for t, row in zip(ts, got):
            z = mp.mpf(t)
            ref = [mp.sin(z) / z, (1 - mp.cos(z)) / z**2, (z - mp.sin(z)) / z**3, g2(z), mp.diff(g2, z) / z]
            assert_allclose(row, [float(r) for r in ref], rtol=3e-14)  # closed forms lose ≤ 1.5e-14 at the switch


def _ts2_point(rng, n):
    q = rng.standard_normal((n, 3))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return np.stack([q, np.cross(q, rng.standard_normal((n, 3)))], axis=1).ravel()


def test_tangent_spheres_action_axioms_and_generator(rng):
    """ψ(exp ξ₁, ψ(exp ξ₂, m)) = ψ(exp ξ₁ exp ξ₂, m) through lgbeam's SE3 product and the TS2 action
    (independent code); generator = d/dt ψ(exp tξ, m) by central differences; |q|, q·w invariant."""
    n = 4
    space, m = TangentSpheres(n), _ts2_point(rng, n)
    x1, x2 = rng.standard_normal(6 * n), rng.standard_normal(6 * n)
    G = SE3()
    g12 = G.compose(G.exp(x1.reshape(n, 6)), G.exp(x2.reshape(n, 6)))
    two_steps = space.exp_act(x1, space.exp_act(x2, m))
    assert_allclose(two_steps, TS2().act(g12, m.reshape(n, 6)).ravel(), atol=1e-13)
    eps = 1e-6
    fd = (space.exp_act(eps * x1, m) - space.exp_act(-eps * x1, m)) / (2 * eps)
    assert_allclose(space.generator(x1, m), fd, atol=1e-8)  # O(eps²) remainder
    dq, qw = space.residuals(two_steps)
    assert np.abs(dq).max() < 1e-14 and np.abs(qw).max() < 1e-13
    assert space.deviation(two_steps)["unit_q"] < 1e-14


def test_coadjoint_actions(rng):
    """SE(3) on se(3)*: left action for the pair product, generator = −ad*, Casimirs |Γ|, Π·Γ kept;
    SO(3) on so(3)*: g μ with generator ξ × μ."""
    space, m = CoadjointSE3(), rng.standard_normal(6)
    x1, x2 = rng.standard_normal(6), rng.standard_normal(6)
    G = SE3()
    g = G.compose(G.exp(x1), G.exp(x2))
    R, u = g[:3, :3], g[:3, 3]
    expected = np.concatenate([R @ m[:3] + np.cross(u, R @ m[3:]), R @ m[3:]])
    out = space.exp_act(x1, space.exp_act(x2, m))
    assert_allclose(out, expected, atol=1e-13)
    assert abs(np.linalg.norm(out[3:]) - np.linalg.norm(m[3:])) < 1e-13 and abs(out[:3] @ out[3:] - m[:3] @ m[3:]) < 1e-12
    ad_star = _ad_se3(x1).T @ m  # ⟨ad*_x μ, y⟩ = ⟨μ, ad_x y⟩
    assert_allclose(space.generator(x1, m), -ad_star, atol=1e-14)
    eps = 1e-6
    assert_allclose(space.generator(x1, m), (space.exp_act(eps * x1, m) - space.exp_act(-eps * x1, m)) / (2 * eps),
                    atol=1e-8)
    so3 = CoadjointSO3()
    mu, xi = rng.standard_normal(3), rng.standard_normal(3)
    assert_allclose(so3.exp_act(xi, mu), SO3().exp(xi) @ mu, atol=1e-14)
    assert_allclose(so3.generator(xi, mu), np.cross(xi, mu), atol=1e-15)


def test_left_multiplication_and_products(rng):
    """SO(3) acting on itself: exp(ξ)R, generator ξ̂R, dexp⁻¹ = the so(3) formula; a product space acts factor
    by factor (the quadrotor space R⁶ × (SO(3) × R³)² × (TS²)² has algebra dim 30 and 42 coordinates)."""
    so3 = LeftMultiplication(SO3())
    R = SO3().exp(rng.standard_normal(3)).ravel()
    xi, v = rng.standard_normal(3), rng.standard_normal(3)
    assert_allclose(so3.exp_act(xi, R), (SO3().exp(xi) @ R.reshape(3, 3)).ravel(), atol=1e-14)
    assert_allclose(so3.dexp_inv(xi, v), dexp_inv_so3(xi, v), atol=1e-14)
    assert_allclose(so3.bracket(xi, v), np.cross(xi, v), atol=1e-15)
    quad = ProductSpace((Translation(6), so3, Translation(3), so3, Translation(3), TangentSpheres(2)))
    assert (quad.dim, quad.size) == (30, 42)
    P = np.concatenate([rng.standard_normal(6), R, rng.standard_normal(3), R, rng.standard_normal(3),
                        _ts2_point(rng, 2)])
    x = rng.standard_normal(30)
    out = quad.validate(quad.exp_act(x, P))
    assert_allclose(out[:6], P[:6] + x[:6])
    assert_allclose(quad.part(5, out), TangentSpheres(2).exp_act(x[18:], quad.part(5, P)), atol=1e-15)
    dev = quad.deviation(out)
    assert dev["unit_q"] < 1e-14 and max(v for k, v in dev.items() if k.startswith("orthogonality")) < 1e-14


def test_bad_points_are_refused_with_what_to_change(rng):
    space = TangentSpheres(2)
    m = _ts2_point(rng, 2)
    bad_norm = m.copy()
    bad_norm[6:9] *= 1 + 1e-6
    with pytest.raises(ValueError, match=r"q_2 is not a unit vector .* normalise"):
        space.validate(bad_norm)
    bad_tangent = m.copy()
    bad_tangent[3:6] += 1e-6 * bad_tangent[0:3]
    with pytest.raises(ValueError, match=r"w_1 is not tangent .* use w − \(q·w\) q"):
        space.validate(bad_tangent)
    assert space.validate(m + 0.1 * MANIFOLD_TOL * np.r_[np.zeros(6), m[6:9], np.zeros(3)]) is not None
    with pytest.raises(ValueError, match="flat array of 12 entries"):
        space.validate(m.reshape(2, 6))
    with pytest.raises(ValueError, match="positive integer"):
        TangentSpheres(0)
    with pytest.raises(ValueError, match="not a rotation"):
        LeftMultiplication(SO3()).validate(np.eye(3).ravel() * 1.01)
    with pytest.raises(ValueError, match="not a homogeneous space"):
        ProductSpace((Translation(3), SO3()))
