"""Lie group library: axioms, exp/log, T and T⁻¹ against finite differences, Ad/ad, scipy, seed 004.

Truth used: group axioms, central finite differences of log(exp(ξ)⁻¹ exp(ξ + εη)) (seed 004 eq. (11)),
scipy.spatial.transform.Rotation, the closed forms (17)-(20) of seed 004 typed here with plain trig,
and the homomorphism S³⋉R³ → SE(3).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from lgbeam.groups import S3, S3R3, SE3, SO3, Product, Rn, S3xR3, SO3xR3

MECH = [SO3(), S3(), SE3(), SO3xR3(), S3R3(), S3xR3()]
ALL = MECH + [Rn(3), Rn(5), Product(S3R3(), 3), Product(SO3(), 2)]
IDS = [G.name for G in ALL]
EPS_FD = 1e-5  # central difference: O(eps^2) truncation ~1e-10, round-off ~1e-16/eps ~1e-11
FD_TOL = 1e-8  # sum of both with a margin of ~100 for the constants (|third derivative| <= ~10)

# rotation magnitudes: ~1, tiny (< 1e-7, 1e-9 of the issue), near pi (off the cut)
MAGS = st.one_of(st.floats(0.05, 2.5), st.floats(1e-12, 1e-7), st.sampled_from([0.0, 1e-9, 1e-4, 1e-2]),
                 st.floats(np.pi - 1e-3, np.pi - 1e-6))


def _rot_blocks(G) -> list[slice]:
    """Slices of a flat tangent vector that hold rotation vectors Ω."""
    if isinstance(G, Product):
        return [slice(i * G.G.dim, i * G.G.dim + 3) for i in range(G.n)] if G.G.dim >= 3 else []
    return [] if isinstance(G, Rn) else [slice(0, 3)]


@st.composite
def tangents(draw, G, max_trans: float = 2.0):
    """A tangent vector of G whose rotation parts have magnitudes drawn from MAGS."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    xi = rng.uniform(-max_trans, max_trans, G.dim)
    for sl in _rot_blocks(G):
        d = rng.normal(size=3)
        xi[sl] = d / np.linalg.norm(d) * draw(MAGS)
    return xi


def _rand_elem(G, rng, batch=()):
    xi = rng.normal(size=tuple(batch) + (G.dim,))
    return G.exp(xi)


# ---------------------------------------------------------------------------------------------------
# axioms, exp/log


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_group_axioms(G, rng) -> None:
    a, b, c = (_rand_elem(G, rng, (4,)) for _ in range(3))
    e = G.identity((4,))
    assert_allclose(G.compose(G.compose(a, b), c), G.compose(a, G.compose(b, c)), atol=1e-14)  # round-off
    assert_allclose(G.compose(a, e), a, atol=1e-15)
    assert_allclose(G.compose(e, a), a, atol=1e-15)
    assert_allclose(G.compose(a, G.inverse(a)), e, atol=1e-14)
    assert_allclose(G.compose(G.inverse(a), a), e, atol=1e-14)
    assert G.identity((2, 3)).shape == (2, 3, *G.param_shape)
    assert_allclose(G.exp(np.zeros((2, G.dim))), G.identity((2,)), atol=0)


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_exp_log_roundtrip(G) -> None:
    @given(xi=tangents(G))
    def check(xi: np.ndarray) -> None:
        g = G.exp(xi)
        assert_allclose(G.log(g), xi, rtol=1e-13, atol=1e-13 * (1 + np.abs(xi).max()))  # issue: 1e-13
        assert_allclose(G.exp(G.log(g)), g, atol=1e-14)  # round-off of one extra exp

    check()


@pytest.mark.parametrize("G", [S3(), S3R3(), S3xR3()], ids=lambda G: G.name)
def test_unit_norm_preserved_by_compose(G, rng) -> None:
    a, b = _rand_elem(G, rng, (2000,)), _rand_elem(G, rng, (2000,))
    u = np.finfo(float).eps / 2
    # one Hamilton product: each component a 4-term dot product, error <= gamma_4 ~ 4u; norm <= 8u
    one = np.abs(np.linalg.norm(G.compose(a, b)[..., :4], axis=-1) - 1.0)
    assert one.max() <= 8 * u, one.max()
    p = a
    for _ in range(1000):  # 1000 chained products without renormalisation: errors add at most linearly
        p = G.compose(p, a)
    dev = np.abs(np.linalg.norm(p[..., :4], axis=-1) - 1.0)
    assert dev.max() <= 1000 * 8 * u, dev.max()


# ---------------------------------------------------------------------------------------------------
# tangent operator


def _fd_tangent(G, xi, eta):
    """(log(exp(ξ)⁻¹exp(ξ + εη)) − log(exp(ξ)⁻¹exp(ξ − εη)))/(2ε) ≈ T(ξ) η."""
    gi = G.inverse(G.exp(xi))
    return (G.log(G.compose(gi, G.exp(xi + EPS_FD * eta))) - G.log(G.compose(gi, G.exp(xi - EPS_FD * eta)))) / (
        2 * EPS_FD
    )


def _flat_blocks_apply(G, blocks, v):
    if isinstance(G, Product):
        vb = v.reshape(G.n, G.G.dim)
        return np.einsum("nij,nj->ni", blocks, vb).ravel()
    return blocks @ v


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_tangent_matches_finite_difference(G) -> None:
    @given(xi=tangents(G), eta=tangents(G, max_trans=1.0))
    def check(xi: np.ndarray, eta: np.ndarray) -> None:
        for sl in _rot_blocks(G):  # keep ξ ± εη off the cut at π (FD would jump across it)
            if np.linalg.norm(xi[sl]) > 3.0:
                eta[sl] = 0.0
        T = G.tangent(xi)
        assert_allclose(_fd_tangent(G, xi, eta), _flat_blocks_apply(G, T, eta), atol=FD_TOL)
        assert_allclose(G.tangent_apply(xi, eta), _flat_blocks_apply(G, T, eta), atol=1e-14)  # round-off

    check()


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_tangent_inv_matches_finite_difference(G) -> None:
    """log(exp(ξ) exp(εη)) = ξ + ε T(ξ)⁻¹ η + O(ε²) (right perturbation ⇒ T⁻¹)."""

    @given(xi=tangents(G), eta=tangents(G, max_trans=1.0))
    def check(xi: np.ndarray, eta: np.ndarray) -> None:
        for sl in _rot_blocks(G):
            if np.linalg.norm(xi[sl]) > 3.0:
                eta[sl] = 0.0
        g = G.exp(xi)
        fd = (G.log(G.compose(g, G.exp(EPS_FD * eta))) - G.log(G.compose(g, G.exp(-EPS_FD * eta)))) / (2 * EPS_FD)
        Ti = G.tangent_inv(xi)
        assert_allclose(fd, _flat_blocks_apply(G, Ti, eta), atol=FD_TOL * (1 + np.abs(xi).max()))
        assert_allclose(G.tangent_inv_apply(xi, eta), _flat_blocks_apply(G, Ti, eta), atol=1e-14)

    check()


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_tangent_times_inverse_is_identity(G) -> None:
    @given(xi=tangents(G))
    def check(xi: np.ndarray) -> None:
        T, Ti = G.tangent(xi), G.tangent_inv(xi)
        d = T.shape[-1]
        assert_allclose(T @ Ti, np.broadcast_to(np.eye(d), T.shape), atol=1e-14)  # round-off, |T| <= ~3
        assert_allclose(Ti @ T, np.broadcast_to(np.eye(d), T.shape), atol=1e-13)  # |T^-1| up to ~10 at π

    check()


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_tangent_at_1e_minus_9(G, rng) -> None:
    """Issue: including |ξ| = 1e-9; T ≈ I − ad/2 there (series dexp_{−ξ}), to first order."""
    xi = rng.normal(size=G.dim)
    xi *= 1e-9 / np.linalg.norm(xi)
    eta = rng.normal(size=G.dim)
    ad = G.ad(xi)
    expect = eta - 0.5 * _flat_blocks_apply(G, ad, eta)
    assert_allclose(G.tangent_apply(xi, eta), expect, atol=1e-17 * 10)  # next term |ad|²/6 ~ 2e-19
    assert_allclose(_fd_tangent(G, xi, eta), expect, atol=FD_TOL)


# ---------------------------------------------------------------------------------------------------
# Ad, ad, hat, vee


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_Ad_and_ad(G, rng) -> None:
    g = _rand_elem(G, rng)
    xi = 0.3 * rng.normal(size=G.dim)
    # g exp(ξ) g⁻¹ = exp(Ad_g ξ)
    lhs = G.compose(G.compose(g, G.exp(xi)), G.inverse(g))
    assert_allclose(lhs, G.exp(_flat_blocks_apply(G, G.Ad(g), xi)), atol=1e-13)
    # d/dt Ad_{exp(tξ)} η |₀ = ad_ξ η (central difference, h = 1e-5)
    eta, h = rng.normal(size=G.dim), 1e-5
    fd = (_flat_blocks_apply(G, G.Ad(G.exp(h * xi)), eta) - _flat_blocks_apply(G, G.Ad(G.exp(-h * xi)), eta)) / (2 * h)
    assert_allclose(fd, _flat_blocks_apply(G, G.ad(xi), eta), atol=1e-9)  # O(h²) ~ 1e-10
    assert_allclose(G.vee(G.hat(xi)), xi, atol=0)


@pytest.mark.parametrize("G", [SO3(), S3(), SE3(), S3R3()], ids=lambda G: G.name)
def test_ad_is_matrix_commutator(G, rng) -> None:
    x, y = rng.normal(size=(2, G.dim))
    X, Y = G.hat(x), G.hat(y)
    assert_allclose(G.ad(x) @ y, G.vee(X @ Y - Y @ X), atol=1e-14)


# ---------------------------------------------------------------------------------------------------
# scipy and seed 004


def _rotvecs(rng, n: int = 2000) -> np.ndarray:
    d = rng.normal(size=(n, 3))
    ang = np.concatenate([rng.uniform(0, np.pi - 1e-6, n - 8), [0, 1e-12, 1e-8, 1e-4, 1e-2, 1, 3, np.pi - 1e-6]])
    return d / np.linalg.norm(d, axis=1, keepdims=True) * ang[:, None]


def test_so3_s3_agree_with_scipy(rng) -> None:
    w = _rotvecs(rng)
    r = Rotation.from_rotvec(w)
    assert_allclose(SO3().exp(w), r.as_matrix(), atol=1e-14)  # issue: 1e-14
    assert_allclose(S3().exp(w), r.as_quat(scalar_first=True), atol=1e-14)
    assert_allclose(S3().log(r.as_quat(scalar_first=True)), r.as_rotvec(), atol=1e-14)
    ok = np.linalg.norm(w, axis=1) < np.pi - 1e-3  # log from a matrix is ill-conditioned (1/sin θ) at π
    assert_allclose(SO3().log(r.as_matrix()[ok]), r.as_rotvec()[ok], atol=1e-14)
    near = ~ok
    assert_allclose(SO3().log(r.as_matrix()[near]), r.as_rotvec()[near], atol=1e-9)  # cond ~ 1/(π-θ) ≤ 1e6
    q1, q2 = r[:-1], r[1:]
    assert_allclose(
        Rotation.from_quat(S3().compose(q1.as_quat(scalar_first=True), q2.as_quat(scalar_first=True)),
                           scalar_first=True).as_matrix(), (q1 * q2).as_matrix(), atol=1e-14)


def test_double_cover_commutes_with_exp(rng) -> None:
    w = _rotvecs(rng)
    assert_allclose(S3().rotation(S3().exp(w)), SO3().exp(w), atol=1e-14)
    xi = np.concatenate([w, rng.normal(size=w.shape)], axis=1)
    a = S3R3().exp(xi)
    phi = SE3().from_rotation(S3R3().rotation(a), S3R3().translation(a))
    assert_allclose(phi, SE3().exp(xi), atol=1e-13)
    b = S3R3().exp(xi[::-1])
    ab = S3R3().compose(a, b)
    assert_allclose(SE3().from_rotation(S3R3().rotation(ab), S3R3().translation(ab)),
                    SE3().compose(SE3().exp(xi), SE3().exp(xi[::-1])), atol=1e-12)
    assert_allclose(S3R3().tangent(xi), SE3().tangent(xi), atol=0)


def _seed004_reference(W: np.ndarray, U: np.ndarray):
    """Seed 004 eqs. (17)-(20) typed with plain trig (valid away from ω = 0)."""
    w = np.linalg.norm(W)
    Wt = np.array([[0, -W[2], W[1]], [W[2], 0, -W[0]], [-W[1], W[0], 0]])
    Ut = np.array([[0, -U[2], U[1]], [U[2], 0, -U[0]], [-U[1], U[0], 0]])
    T = np.eye(3) + (np.cos(w) - 1) / w**2 * Wt + (w - np.sin(w)) / w**3 * Wt @ Wt  # (19)
    p = np.concatenate([[np.cos(w / 2)], W / w * np.sin(w / 2)])  # (17)
    C1 = ((np.cos(w) - 1) / w**2 * Ut + (w - np.sin(w)) / w**3 * (Ut @ Wt + Wt @ Ut)
          + (2 - 2 * np.cos(w) - w * np.sin(w)) / w**4 * (W @ U) * Wt
          - (w * (2 + np.cos(w)) - 3 * np.sin(w)) / w**5 * (W @ U) * Wt @ Wt)  # (20)
    TT = np.block([[T, np.zeros((3, 3))], [C1, T]])
    return np.concatenate([p, T.T @ U]), TT  # (18)


@pytest.mark.parametrize("omega", [0.3, 1.0, 2.0, 3.0])
def test_s3r3_reproduces_seed004_eqs_17_to_20(omega: float, rng) -> None:
    W = rng.normal(size=3)
    W *= omega / np.linalg.norm(W)
    U = rng.normal(size=3)
    q_ref, T_ref = _seed004_reference(W, U)
    xi = np.concatenate([W, U])
    # plain-trig reference loses ~eps/ω^5 relative in the x2cos_3sin_x5 term: 1e-12 at ω = 0.3
    assert_allclose(S3R3().exp(xi), q_ref, atol=1e-14)
    assert_allclose(S3R3().tangent(xi), T_ref, atol=1e-12)


# ---------------------------------------------------------------------------------------------------
# batch shapes, Product


@pytest.mark.parametrize("G", MECH, ids=lambda G: G.name)
def test_batch_shapes_and_mechanical_accessors(G, rng) -> None:
    xi = rng.normal(size=(2, 3, G.dim))
    g = G.exp(xi)
    assert g.shape == (2, 3, *G.param_shape)
    assert G.log(g).shape == (2, 3, G.dim)
    assert G.tangent(xi).shape == G.tangent_inv(xi).shape == G.Ad(g).shape == G.ad(xi).shape == (2, 3, G.dim, G.dim)
    R, x = G.rotation(g), G.translation(g)
    assert R.shape == (2, 3, 3, 3) and x.shape == (2, 3, 3)
    assert_allclose(R, SO3().exp(xi[..., :3]), atol=1e-14)
    again = G.from_rotation(R) if G.dim == 3 else G.from_rotation(R, x)
    assert_allclose(G.log(again), G.log(g), atol=1e-13)
    G.validate(g)


def test_product_blocks_apply_and_csr(rng) -> None:
    P = Product(S3R3(), 50)
    xi, v = 0.5 * rng.normal(size=(2, P.dim))
    q = P.exp(xi)
    assert q.shape == (50, 7)
    assert_allclose(q, S3R3().exp(xi.reshape(50, 6)), atol=0)
    Ti = P.tangent_inv(xi)
    assert Ti.shape == (50, 6, 6)
    B = P.block_diag(Ti)
    assert B.format == "csr" and B.shape == (300, 300) and B.nnz == 50 * 36
    assert_allclose(B @ v, P.tangent_inv_apply(xi, v), atol=1e-14)
    assert_allclose(P.block_diag(P.tangent(xi)) @ P.tangent_inv_apply(xi, v), v, atol=1e-13)
    # batched product tangents
    xb = rng.normal(size=(4, P.dim))
    assert P.tangent_inv_apply(xb, xb).shape == (4, P.dim)


# ---------------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("G", ALL, ids=IDS)
def test_bad_input_raises_actionable_valueerror(G) -> None:
    with pytest.raises(ValueError, match=G.name.replace("^", r"\^")) as exc:
        G.exp(np.zeros(G.dim + 1))
    assert str(G.dim) in str(exc.value)  # the expected shape is named
    with pytest.raises(ValueError, match="shape"):
        G.compose(np.zeros((2, 2)), G.identity())
    bad = G.identity((2,))
    bad.reshape(-1)[1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        G.validate(bad)


@pytest.mark.parametrize("G", [S3(), S3R3(), S3xR3(), Product(S3R3(), 4)], ids=lambda G: G.name)
def test_non_unit_quaternion_rejected_not_renormalised(G) -> None:
    a = G.identity()
    a.reshape(-1)[0] = 1.0 + 2e-8  # just beyond UNIT_NORM_TOL = 1e-8
    with pytest.raises(ValueError, match=r"not unit.*\(\.\.\., 4\)"):
        G.validate(a)
    a.reshape(-1)[0] = 1.0 + 5e-9  # within the documented tolerance: accepted unchanged
    assert np.array_equal(G.validate(a), a)


@pytest.mark.parametrize("G", [SO3(), SE3(), SO3xR3()], ids=lambda G: G.name)
def test_non_rotation_rejected(G) -> None:
    a = G.identity()
    a[0, 0] = 1.1
    with pytest.raises(ValueError, match="not a rotation"):
        G.validate(a)
