"""SO(3) toolkit of seed 001 ch. 2 (lgbeam.groups.cayley) against independent truth: scipy's expm, the
defining Cayley formula, central differences, and the quaternion identities of seed 003 §3.3
(notes/001.md §8 checks 1–4, notes/003-ch3plus.md H.1)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.linalg import expm

from lgbeam.groups.base import hat3, quat_mul, quat_to_matrix, vee3
from lgbeam.groups.cayley import (
    Retraction,
    cay,
    check_torque,
    dcay,
    dcay_inv,
    dexp,
    dexp_inv,
    dexp_inv_series,
    quat_F,
    quat_G,
    quat_times_pure,
    torque_defect,
    torque_from_potential,
)
from lgbeam.groups.so3 import exp_so3
from lgbeam.models.orbit_attitude import BallsInCentralField, body_torque
from lgbeam.models.rigid_body import OrtolanPotential


def _vectors(rng, n=6, scale=1.0):
    v = rng.normal(size=(n, 3))
    return scale * v / np.linalg.norm(v, axis=1, keepdims=True) * rng.uniform(0.1, 3.0, (n, 1))


def test_cay_matches_its_definition_and_inverse(rng):
    x = _vectors(rng)
    X = hat3(x)
    ref = np.array([(np.eye(3) + Xi / 2) @ np.linalg.inv(np.eye(3) - Xi / 2) for Xi in X])
    assert_allclose(cay(x), ref, atol=1e-14)  # (2.2) = (2.8) to round-off
    assert_allclose(cay(x) @ cay(-x), np.broadcast_to(np.eye(3), X.shape), atol=1e-15)  # (2.12)
    assert_allclose(np.swapaxes(cay(x), -1, -2), cay(-x), atol=1e-15)
    assert_allclose(np.linalg.det(cay(x)), 1.0, atol=1e-14)


@pytest.mark.parametrize("kind", ["exp", "cay"])
def test_retraction_map_fast_path_equals_batch(rng, kind):
    F = Retraction(kind)
    x = _vectors(rng, 4)
    batch = F.map(x)
    ref = np.array([expm(hat3(xi)) for xi in x]) if kind == "exp" else cay(x)
    assert_allclose(batch, ref, atol=1e-14)  # Rodrigues vs scipy's Padé expm: round-off
    for xi, Ri in zip(x, batch):
        assert_allclose(F.map(xi), Ri, atol=1e-15)
    assert_allclose(F.map(np.array([1e-9, -2e-9, 0.5e-9])), np.eye(3) + hat3(np.array([1e-9, -2e-9, 0.5e-9])),
                    atol=1e-17)  # small-angle branch: I + x^ + O(|x|²)


@pytest.mark.parametrize("kind", ["exp", "cay"])
@pytest.mark.parametrize("triv", ["right", "left"])
def test_trivialised_tangents_by_central_differences(rng, kind, triv):
    """right: (dF_x δ)^ = dF/dε(x + εδ) F(x)ᵀ; left: (dF^L_x δ)^ = F(x)ᵀ dF/dε (seed 001 Def. 2.1.4)."""
    F, eps = Retraction(kind), 1e-6
    for x, d in zip(_vectors(rng, 5), rng.normal(size=(5, 3))):
        dF = (F.map(x + eps * d) - F.map(x - eps * d)) / (2 * eps)
        fd = vee3(dF @ F.map(x).T) if triv == "right" else vee3(F.map(x).T @ dF)
        assert_allclose(F.tangent(x, triv) @ d, fd, atol=1e-9)  # central difference: O(ε²) ~ 1e-12
        assert_allclose(F.tangent_inv(x, triv) @ F.tangent(x, triv), np.eye(3), atol=1e-13)


def test_known_closed_forms():
    x = np.array([0.3, -0.4, 1.1])
    th2 = x @ x
    assert_allclose(dcay(x), 4 / (4 + th2) * (np.eye(3) + hat3(x) / 2), atol=1e-16)  # (2.9)
    assert_allclose(dcay_inv(x), np.eye(3) - hat3(x) / 2 + np.outer(x, x) / 4, atol=1e-16)
    th = np.sqrt(th2)
    ref = np.sin(th) / th * np.eye(3) + (1 - np.cos(th)) / th2 * hat3(x) + (th - np.sin(th)) / th**3 * np.outer(x, x)
    assert_allclose(dexp(x), ref, atol=1e-15)  # (2.7)
    assert_allclose(dexp_inv(x) @ dexp(x), np.eye(3), atol=1e-14)
    # the Bernoulli truncation is the Taylor polynomial of dexp⁻¹: error O(|x|⁴)
    small = 1e-2 * x
    v = np.array([1.0, 2.0, -0.5])
    assert np.abs(dexp_inv_series(small, v, 4) - dexp_inv(small) @ v).max() < 1e-8


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="retraction must be 'exp' or 'cay'"):
        Retraction("pade")
    with pytest.raises(ValueError, match="trivialisation must be 'right' or 'left'"):
        dcay(np.zeros(3), "middle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="order must be 1, 2, 3 or 4"):
        dexp_inv_series(np.zeros(3), np.ones(3), 6)


def test_torque_of_the_test_potential_and_the_misprint(rng):
    """notes/001.md §8 check 4: the corrected (3.5) matches −dU to 1e-8; the printed 2(m−1)/m² is off by ~1e-1."""
    R = exp_so3(_vectors(rng, 6))
    good, bad = OrtolanPotential(), OrtolanPotential(misprinted=True)
    assert check_torque(good, good.torque, R) < 1e-8
    assert max(torque_defect(bad, bad.torque, Ri) for Ri in R) > 1e-2
    with pytest.raises(ValueError, match="not −dU"):
        check_torque(bad, bad.torque, R)
    assert_allclose(torque_from_potential(good, R[0]), good.torque(R[0]), atol=1e-8)


def test_quaternion_F_G_and_the_potential_trick(rng):
    """H.1: q·(0,v) = F(q)ᵀv, Im(q·(0,v)) = G(q)ᵀv; F(q)∂V/∂q = −2τ = 2 vee(RᵀD − DᵀR) (3.24 corrected)."""
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    v = rng.normal(size=3)
    assert_allclose(quat_times_pure(q, v), quat_F(q).T @ v, atol=1e-15)
    assert_allclose(quat_times_pure(q, v)[1:], quat_G(q).T @ v, atol=1e-15)
    assert_allclose(quat_F(q) @ quat_F(q).T, np.eye(3), atol=1e-15)
    body = BallsInCentralField()
    x = np.array([8.0, 0.3, -0.2])
    R = quat_to_matrix(q)
    _, D = body.potential_gradients(x, R)
    eps = 1e-6
    for eta in np.eye(3):  # dV/dε along q·(0, εη) with the quaternion convention of seed 003 (no 1/2)
        qp = quat_mul(q, np.concatenate([[np.cos(eps)], np.sin(eps) * eta]))
        qm = quat_mul(q, np.concatenate([[np.cos(eps)], -np.sin(eps) * eta]))
        fd = (body.potential(x, quat_to_matrix(qp)) - body.potential(x, quat_to_matrix(qm))) / (2 * eps)
        assert abs(fd - (-2 * body_torque(R, D)) @ eta) < 1e-8  # central difference O(ε²)
