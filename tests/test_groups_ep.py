"""Group-layer additions of issue 16: GL⁺(3), GL⁺(3)⋉gl(3)*, duals and right translations, the polar
decomposition toolkit of seed 003 ch. 4 and the sphere retraction of seed 002 §3.

Every check is against an independent truth: finite differences of the maps themselves, group axioms,
residuals of the defining equations, or a second algorithm (SVD against Newton, closed form against
Bartels–Stewart). Tolerances: round-off checks at 1e-13…1e-14 (a few hundred ε for 3×3…18×18 products and
expm); central differences with ε = 1e-6 have error O(ε²)·|third derivative| ≲ 1e-9.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from numpy.testing import assert_allclose

from lgbeam.groups import S3, SO3, SOn
from lgbeam.groups import sphere_retraction as sr
from lgbeam.groups.duals import (
    Ad_dual,
    ad_dual,
    check_injectivity,
    dexp,
    dexp_dual,
    dexp_inv,
    pairing,
    principal_log,
    right_translate,
    right_trivialise,
)
from lgbeam.groups.gl3 import GLp3, SemidirectGL3
from lgbeam.groups.polar import (
    asym,
    dpolar,
    dpolar_dual,
    lyapunov,
    pair_skew,
    polar,
    polar_retraction,
    polar_retraction_inverse,
    sylvester_skew,
)

EPS = 1e-6
FD_TOL = 1e-8  # central differences: O(EPS²) truncation plus O(1e-16/EPS) round-off
GROUPS = [S3(), SO3(), SOn(4), GLp3(), SemidirectGL3()]
IDS = [g.name for g in GROUPS]


def _sample(G, rng, scale=0.5, batch=()):
    return G.exp(scale * rng.normal(size=batch + (G.dim,)))


# ------------------------------------------------------------------------------------------ GL⁺(3)⋉gl(3)*


@pytest.mark.parametrize("G", [GLp3(), SemidirectGL3()], ids=["GLp3", "semidirect"])
def test_group_axioms_and_one_parameter_subgroup(G, rng):
    a, b, c = (_sample(G, rng) for _ in range(3))
    assert_allclose(G.compose(G.compose(a, b), c), G.compose(a, G.compose(b, c)), atol=1e-14)
    assert_allclose(G.compose(a, G.inverse(a)), G.identity(), atol=1e-14)
    z = 0.8 * rng.normal(size=G.dim)
    assert_allclose(G.exp(z), G.compose(G.exp(z / 2), G.exp(z / 2)), atol=1e-14)  # notes/002.md §10.4
    assert_allclose(G.log(G.exp(z)), z, atol=1e-13)


def test_semidirect_product_law_and_the_printed_erratum(rng):
    """(F₁,P₁)(F₂,P₂) = (F₁F₂, P₁ + F₁⁻ᵀP₂F₁ᵀ) is associative; the seed's printed F₁⁻ᵀP₂F₁⁻ᵀ is not (erratum 2)."""
    G = SemidirectGL3()
    a, b, c = (_sample(G, rng) for _ in range(3))

    def printed(x, y):
        F1, P1 = G.split(x)
        F2, P2 = G.split(y)
        F1it = np.linalg.inv(F1).T
        return G.join(F1 @ F2, P1 + F1it @ P2 @ F1it)

    assert np.abs(printed(printed(a, b), c) - printed(a, printed(b, c))).max() > 1e-3
    # Exp is the one-parameter subgroup of this law: d/dt Exp(t z) = R_{Exp(tz)*} z (right translation formula)
    z = rng.normal(size=18)
    t = 0.7
    fd = (G.exp((t + EPS) * z) - G.exp((t - EPS) * z)) / (2 * EPS)
    assert_allclose(fd, right_translate(G, G.exp(t * z), z), atol=FD_TOL)


@pytest.mark.parametrize("G", GROUPS, ids=IDS)
def test_tangent_and_right_dexp_by_finite_differences(G, rng):
    xi, eta = 0.7 * rng.normal(size=G.dim), rng.normal(size=G.dim)
    a_inv = G.inverse(G.exp(xi))
    left = (G.log(G.compose(a_inv, G.exp(xi + EPS * eta))) - G.log(G.compose(a_inv, G.exp(xi - EPS * eta)))) / (2 * EPS)
    assert_allclose(left, G.tangent(xi) @ eta, atol=FD_TOL)
    # right trivialisation (seed 002 §4): log(exp(ξ + εη) exp(ξ)⁻¹) = ε dexp_ξ η + O(ε²)
    right = (principal_log(G, G.compose(G.exp(xi + EPS * eta), a_inv))
             - principal_log(G, G.compose(G.exp(xi - EPS * eta), a_inv))) / (2 * EPS)
    assert_allclose(right, dexp(G, xi) @ eta, atol=FD_TOL)
    assert_allclose(dexp_inv(G, xi) @ dexp(G, xi), np.eye(G.dim), atol=1e-12)
    assert_allclose(dexp_dual(G, xi), dexp(G, xi).T, atol=0)


@pytest.mark.parametrize("G", GROUPS, ids=IDS)
def test_duals_and_right_translations(G, rng):
    x = _sample(G, rng)
    xi, eta, mu = rng.normal(size=(3, G.dim))
    # R_{x*} ξ = d/dε exp(εξ) x
    fd = (G.compose(G.exp(EPS * xi), x) - G.compose(G.exp(-EPS * xi), x)) / (2 * EPS)
    assert_allclose(right_translate(G, x, xi), fd, atol=FD_TOL)
    # ⟨R_x^* p, ξ⟩ = ⟨p, R_{x*} ξ⟩ for a covector p in the parameter space
    p = rng.normal(size=np.shape(x))
    assert_allclose(pairing(right_trivialise(G, x, p), xi), np.sum(p * right_translate(G, x, xi)), rtol=1e-13)
    # ad* and Ad* are the duals under the algebra pairing; ad_ξ η is the derivative of Ad_{exp(tξ)} η
    assert_allclose(pairing(ad_dual(G, xi) @ mu, eta), pairing(mu, G.ad(xi) @ eta), rtol=1e-12, atol=1e-12)
    if hasattr(G, "Ad"):
        assert_allclose(pairing(Ad_dual(G, x) @ mu, eta), pairing(mu, G.Ad(x) @ eta), rtol=1e-12, atol=1e-12)
        d_ad = (G.Ad(G.exp(EPS * xi)) @ eta - G.Ad(G.exp(-EPS * xi)) @ eta) / (2 * EPS)
        assert_allclose(d_ad, G.ad(xi) @ eta, atol=FD_TOL)


def test_s3_principal_log_and_injectivity_radius():
    """exp on S³ is injective for |Ω| < 2π (seed 002: |v| < π); lgbeam's S3.log folds angles to [0, π]."""
    G = S3()
    axis = np.array([0.6, -0.8, 0.0])
    for angle in (0.0, 1e-9, 1.0, 3.5, 2 * np.pi - 1e-3):
        assert_allclose(principal_log(G, G.exp(angle * axis)), angle * axis, atol=1e-11)
    assert np.linalg.norm(G.log(G.exp(3.5 * axis))) < np.pi  # the folded log differs beyond π
    with pytest.raises(ValueError, match="injectivity radius"):
        check_injectivity(G, 2 * np.pi * axis)
    with pytest.raises(ValueError, match="quaternion is -1"):
        principal_log(G, np.array([-1.0, 0, 0, 0]))


def test_gl3_log_is_branch_safe_and_det_is_checked():
    G = GLp3()
    with pytest.raises(ValueError, match="real eigenvalue .* <= 0"):
        G.log(np.diag([-1.0, -2.0, 1.0]))  # det > 0 but no real principal logarithm
    with pytest.raises(ValueError, match="det F = 0 <= 0"):
        G.validate(np.diag([1.0, 0.0, 1.0]))
    with pytest.raises(ValueError, match="det F = -1 <= 0"):
        SemidirectGL3().validate(SemidirectGL3().join(np.diag([1.0, 1.0, -1.0]), np.zeros((3, 3))))
    # a rotation by 3 rad (complex eigenvalues near −1) keeps a real principal logarithm
    R = SO3().exp(np.array([0.0, 0.0, 3.0]))
    assert_allclose(sla.expm(G.hat(G.log(R))), R, atol=1e-13)


# ------------------------------------------------------------------------------------------ polar toolkit


@pytest.mark.parametrize("n", [3, 4, 7])
def test_polar_svd_newton_and_equivariance(n, rng):
    A = SOn(n).exp(rng.normal(size=SOn(n).dim)) @ (np.eye(n) + 0.4 / np.sqrt(n) * rng.normal(size=(n, n)))
    assert np.linalg.det(A) > 0
    f, g = polar(A), polar(A, "newton")
    assert_allclose(f.U, g.U, atol=1e-13)
    assert_allclose(f.P, g.P, atol=1e-13)
    assert_allclose(f.U.T @ f.U, np.eye(n), atol=1e-14)
    assert np.linalg.det(f.U) > 0 and np.all(np.linalg.eigvalsh(f.P) > 0)
    assert_allclose(f.P, f.P.T, atol=0)
    assert_allclose(f.U @ f.P, A, atol=1e-14)
    Q1, Q2 = SOn(n).exp(rng.normal(size=(2, SOn(n).dim)))
    assert_allclose(polar(Q1 @ A @ Q2).U, Q1 @ f.U @ Q2, atol=1e-13)  # (4.8)
    with pytest.raises(ValueError, match="det A <= 0"):
        polar(np.diag([1.0] * (n - 1) + [-1.0]))


@pytest.mark.parametrize("n", [3, 5])
def test_polar_retraction_inverse_and_lemma_1(n, rng):
    Om = asym(0.2 * rng.normal(size=(n, n)))
    U = polar_retraction(Om)
    X = polar_retraction_inverse(U)
    assert_allclose(X, Om, atol=1e-14)
    assert np.abs(U.T @ X + X @ U + U.T - U).max() < 1e-14  # (4.10) residual
    S = rng.normal(size=(n, n))
    S = 0.9 * (S + S.T) / np.linalg.norm(S + S.T, 2)  # symmetric, eigenvalues in (−1, 1): P(I + S) = I (Lemma 1)
    assert_allclose(polar(np.eye(n) + S).U, np.eye(n), atol=1e-14)
    with pytest.raises(ValueError, match="real part"):
        polar_retraction_inverse(SOn(n).exp(np.pi * 0.9 * np.eye(SOn(n).dim)[0]))


@pytest.mark.parametrize("n", [3, 4, 6])
def test_polar_tangent_map_its_adjoint_and_the_linear_solves(n, rng):
    A = np.eye(n) + 0.3 * rng.normal(size=(n, n))
    f = polar(A)
    W = rng.normal(size=(n, n))
    Lam = asym(rng.normal(size=(n, n)))
    fd = f.U.T @ (polar(A + EPS * W).U - polar(A - EPS * W).U) / (2 * EPS)  # U̇ = U Ω
    assert_allclose(dpolar(f, W), fd, atol=FD_TOL)
    assert abs(np.sum(dpolar_dual(f, Lam) * W) - pair_skew(Lam, dpolar(f, W))) < 1e-13  # Part H §8
    X = lyapunov(f, Lam)
    assert np.abs(X @ f.P + f.P @ X - Lam).max() < 1e-14
    F = np.eye(n) + 0.3 * rng.normal(size=(n, n))
    C = asym(rng.normal(size=(n, n)))
    L = sylvester_skew(F, C)
    assert np.abs(F @ L + L @ F.T - C).max() < 1e-13 and np.abs(L + L.T).max() == 0.0


def test_sylvester_closed_form_for_n3_matches_bartels_stewart(rng):
    F = np.eye(3) + 0.3 * rng.normal(size=(3, 3))
    C = asym(rng.normal(size=(3, 3)))
    general = sla.solve_sylvester(F, F.T, C)
    assert_allclose(sylvester_skew(F, C), general, atol=1e-14)


# ------------------------------------------------------------------------------------------ sphere retraction


def test_sphere_retraction_centre_and_tangent_map(rng):
    p = np.array([1.0, 0.2, -0.3])
    p /= np.linalg.norm(p)
    q = p + np.array([0.1, -0.3, 0.2])
    q /= np.linalg.norm(q)
    c = sr.centre(p, q)
    assert_allclose(sr.centre(q, p), c, atol=0)
    assert_allclose(sr.inverse_retract(c, p) + sr.inverse_retract(c, q), 0.0, atol=1e-15)  # (17)
    assert_allclose(sr.retract(c, sr.inverse_retract(c, q)), q, atol=1e-15)
    assert abs(c @ sr.inverse_retract(c, q)) < 1e-15  # φ_c⁻¹(q) ∈ T_cS
    u, w = 0.2 * rng.normal(size=3), rng.normal(size=3)
    fd = (sr.retract(c, u + EPS * w) - sr.retract(c, u - EPS * w)) / (2 * EPS)
    assert_allclose(sr.tangent_map(c, u) @ w, fd, atol=FD_TOL)
    with pytest.raises(ValueError, match="hemisphere"):
        sr.inverse_retract(c, -c)


def test_expm_matches_scipy_over_the_scaling_range(rng):
    """``lgbeam.groups.expm.expm`` against scipy's expm, norms 1e-3 … 50 (every Padé degree and squaring)."""
    from lgbeam.groups.expm import expm

    for scale in (1e-3, 0.1, 1.0, 3.0, 10.0, 50.0):
        A = rng.normal(size=(3, 9, 9)) * scale / 3
        R = sla.expm(A)
        assert np.abs(expm(A) - R).max() < 1e-13 * np.abs(R).max()
