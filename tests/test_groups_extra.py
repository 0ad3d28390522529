"""SE2, SOn, S2 and TS2: finite-difference T/T⁻¹, axioms, a second method (SOn(3) vs SO3, SE2 vs
the matrix exponential), and the homogeneous-space action laws of seed 000 §5.1."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
from numpy.testing import assert_allclose

from lgbeam.groups import S2, SE2, SE3, SO3, TS2, SOn

GROUPS = [SE2(), SOn(2), SOn(3), SOn(4), SOn(5)]
EPS_FD = 1e-5  # central differences: O(eps²) truncation ~1e-10 + round-off ~1e-11
FD_TOL = 1e-8


def _samples(G, rng, scale):
    xi = rng.normal(size=(6, G.dim))
    # keep every rotation angle below ~2.5 so that log is single valued (|angle| < π)
    return xi / np.linalg.norm(xi, axis=-1, keepdims=True) * scale


@pytest.mark.parametrize("scale", [1e-9, 1e-4, 1.0, 2.5])
@pytest.mark.parametrize("G", GROUPS, ids=lambda G: G.name)
def test_tangent_and_inverse_by_finite_difference(G, scale, rng) -> None:
    xi, eta = _samples(G, rng, scale), rng.normal(size=(6, G.dim))
    gi, g = G.inverse(G.exp(xi)), G.exp(xi)

    def left(s):
        return G.log(G.compose(gi, G.exp(xi + s * eta)))

    def right(s):
        return G.log(G.compose(g, G.exp(s * eta)))

    T, Ti = G.tangent(xi), G.tangent_inv(xi)
    assert_allclose((left(EPS_FD) - left(-EPS_FD)) / (2 * EPS_FD), np.einsum("nij,nj->ni", T, eta), atol=FD_TOL)
    assert_allclose((right(EPS_FD) - right(-EPS_FD)) / (2 * EPS_FD), np.einsum("nij,nj->ni", Ti, eta), atol=FD_TOL)
    assert_allclose(T @ Ti, np.broadcast_to(np.eye(G.dim), T.shape), atol=1e-13)  # round-off
    assert_allclose(G.log(g), xi, atol=1e-13 * max(1.0, scale))  # SOn log via eigh: ~10 eps relative


@pytest.mark.parametrize("G", GROUPS, ids=lambda G: G.name)
def test_axioms_Ad_ad_hat(G, rng) -> None:
    a, b, c = (G.exp(rng.normal(size=(3, G.dim))) for _ in range(3))
    assert_allclose(G.compose(G.compose(a, b), c), G.compose(a, G.compose(b, c)), atol=1e-14)
    # expm (Padé) output is orthogonal only to ~50 eps (measured 1.1e-14 for SO4), so a·a⁻¹ − I is that
    assert_allclose(G.compose(a, G.inverse(a)), G.identity((3,)), atol=1e-13)
    x, y = rng.normal(size=(2, G.dim))
    X, Y = G.hat(x), G.hat(y)
    assert_allclose(G.ad(x) @ y, G.vee(X @ Y - Y @ X), atol=1e-14)  # ad is the matrix commutator
    assert_allclose(G.exp(x), sla.expm(X), atol=1e-13)  # second method: matrix exponential
    assert_allclose(G.compose(G.compose(a[0], G.exp(y)), G.inverse(a[0])), G.exp(G.Ad(a[0]) @ y), atol=1e-13)
    G.validate(a)


def test_son3_agrees_with_so3(rng) -> None:
    w = rng.normal(size=(10, 3))
    G = SOn(3)
    assert_allclose(G.hat(w), SO3().hat(w), atol=0)
    assert_allclose(G.exp(w), SO3().exp(w), atol=1e-14)  # expm (Padé) vs Rodrigues
    assert_allclose(G.tangent(w), SO3().tangent(w), atol=1e-14)
    assert_allclose(G.tangent_inv(w), SO3().tangent_inv(w), atol=1e-13)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match=r"SE2.*\(\.\.\., 3\)"):
        SE2().exp(np.zeros(2))
    with pytest.raises(ValueError, match="SOn: n must be"):
        SOn(1)
    with pytest.raises(ValueError, match="non-finite"):
        SOn(4).validate(np.full((4, 4), np.nan))
    with pytest.raises(ValueError, match=r"S2: point q must have \|q\| = 1"):
        S2().validate([1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="TS2: w must be tangent"):
        TS2().validate([1.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"TS2.*\(\.\.\., 6\)"):
        TS2().act(np.eye(4), np.zeros(5))


def _rand_ts2(rng, n=5):
    q = rng.normal(size=(n, 3))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return np.concatenate([q, np.cross(q, rng.normal(size=(n, 3)))], axis=-1)


def test_ts2_action_is_left_action_and_preserves_ts2(rng) -> None:
    M, G = TS2(), SE3()
    m = _rand_ts2(rng)
    g1, g2 = G.exp(rng.normal(size=(2, 5, 6)))
    lhs = M.act(G.compose(g1, g2), m)
    assert_allclose(lhs, M.act(g1, M.act(g2, m)), atol=1e-13)  # round-off
    M.validate(lhs)  # stays on TS²: |q| = 1, q·w = 0
    assert_allclose(M.act(G.identity((5,)), m), m, atol=0)


def test_generators_are_derivatives_of_the_action(rng) -> None:
    """ψ_*(ξ)|_m = d/dt act(exp(tξ), m) at t = 0 (central difference, O(h²) ~ 1e-10)."""
    h = 1e-5
    for M in (S2(), TS2()):
        G = M.group
        m = _rand_ts2(rng) if isinstance(M, TS2) else _rand_ts2(rng)[:, :3]
        xi = rng.normal(size=(5, G.dim))
        fd = (M.act(G.exp(h * xi), m) - M.act(G.exp(-h * xi), m)) / (2 * h)
        assert_allclose(fd, M.generator(xi, m), atol=1e-9)
    q = _rand_ts2(rng)[:, :3]
    v = np.cross(q, rng.normal(size=(5, 3)))  # tangent at q
    assert_allclose(S2().generator(S2().lift(q, v), q), v, atol=1e-14)
