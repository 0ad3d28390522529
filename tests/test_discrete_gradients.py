"""The discrete-gradient layer of issue 16 (seed 002 eqs. (11)–(21); notes/002.md §10 items 1–3, 5, 6).

Truths used: the energy H itself (chain rule), finite differences of H along right translations (the
trivialised differentials), the exact right-trivialised field from the canonical equations (pseudo-rigid
body), and the implicit midpoint rule (sphere). Tolerances: 1e-12 · scale for exact identities (a few
hundred ε times |H| ≈ 30 on the quaternion data), quadrature error bounds for AVF.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from numpy.testing import assert_allclose
from reference_first_integrals import benign_quaternion, nondiagonal_pseudo_rigid

from lgbeam.groups import S3
from lgbeam.groups import sphere_retraction as sr
from lgbeam.groups.duals import pairing, right_translate, right_trivialise
from lgbeam.groups.gl3 import SemidirectGL3
from lgbeam.integrators.integral_preserving.differentials import (
    SphereAVF,
    SphereGonzalez,
    TrivialisedAVF,
    TrivialisedGonzalez,
    midpoint_bivector,
    sphere_bivector,
    step_log,
)
from lgbeam.models.attitude import RigidBodyQuaternion, RigidBodySphere
from lgbeam.models.pseudo_rigid import PseudoRigidBody

EPS = 1e-6


@dataclass(frozen=True)
class TrueDifferentialPRB:
    """The pseudo-rigid energy with its literal R_x^* dH (trace pairing) from the Euclidean gradient:
    the setting in which AVF satisfies the chain rule on GL⁺(3)⋉gl(3)* (the seed's γ does not, erratum 15)."""

    body: PseudoRigidBody = field(default_factory=PseudoRigidBody)
    group: SemidirectGL3 = field(default_factory=SemidirectGL3)

    def first_integral(self, x):
        return self.body.first_integral(x)

    def bivector(self, x):
        return self.body.bivector(x)

    def trivialised_differential(self, x):
        F, P = self.group.split(x)
        dF = 2.0 * F @ self.body.grad_W(np.swapaxes(F, -1, -2) @ F)
        dP = P @ np.diag(1.0 / np.asarray(self.body.inertia))
        return right_trivialise(self.group, x, self.group.join(dF, dP))


def _pair(system, rng, size):
    G = system.group
    u = G.compose(G.exp(0.3 * rng.normal(size=G.dim)), system_point(system))
    return u, G.compose(G.exp(size * rng.normal(size=G.dim)), u)


def system_point(system):
    if isinstance(system, RigidBodyQuaternion):
        return benign_quaternion()[1]
    return nondiagonal_pseudo_rigid()[1]


QUAT = benign_quaternion()[0]
PRB = nondiagonal_pseudo_rigid()[0]


@pytest.mark.parametrize("system", [QUAT, PRB], ids=["S3", "GL3xgl3*"])
def test_gonzalez_chain_rule_is_exact(system, rng):
    for size in (1e-3, 0.05, 0.3):
        u, v = _pair(system, rng, size)
        scale = abs(system.first_integral(u)) + 1.0
        assert abs(TrivialisedGonzalez().chain_rule_residual(system, u, v)) < 1e-13 * scale


@pytest.mark.parametrize("system", [QUAT, TrueDifferentialPRB()], ids=["S3", "GL3xgl3*"])
def test_avf_chain_rule_to_quadrature_accuracy(system, rng):
    u, v = _pair(system, rng, 0.05)
    scale = abs(system.first_integral(u)) + 1.0
    r1 = abs(TrivialisedAVF(1).chain_rule_residual(system, u, v))
    r8 = abs(TrivialisedAVF(8).chain_rule_residual(system, u, v))
    assert r8 < 1e-12 * scale  # 8 Gauss points: error ~ |η|^16, below round-off at |η| ≈ 0.1
    assert r1 > 1e3 * r8  # and the rule is what keeps it: one point (the midpoint) is far off


@pytest.mark.parametrize("system", [QUAT, TrueDifferentialPRB()], ids=["S3", "GL3xgl3*"])
def test_trivialised_differential_is_right_trivialised_dH(system, rng):
    """γ(x) = R_x^* dH: ⟨γ, ξ⟩ = d/dε H(exp(εξ) x) (central differences)."""
    G = system.group
    x = _pair(system, rng, 0.1)[0]
    xi = rng.normal(size=G.dim)
    fd = (system.first_integral(G.compose(G.exp(EPS * xi), x)) - system.first_integral(G.compose(G.exp(-EPS * xi), x)))
    assert_allclose(pairing(system.trivialised_differential(x), xi), fd / (2 * EPS), rtol=1e-8, atol=1e-8)


def test_quaternion_field_is_tangent_to_the_energy_level():
    """γ · ξ = 0 and S γ = ξ (notes §10.5), and ξ reproduces q' = ½ q (0, Ω_body)."""
    body, q = benign_quaternion()
    gam, xi = body.trivialised_differential(q), body.field(q)
    assert abs(gam @ xi) < 1e-14 * np.linalg.norm(gam) * np.linalg.norm(xi)
    assert_allclose(body.bivector(q) @ gam, xi, atol=1e-14)
    Omega = body.body_momentum(q) / np.asarray(body.inertia)
    qdot = 0.5 * S3().compose(q, np.concatenate([[0.0], Omega]))
    assert_allclose(right_translate(body.group, q, xi), qdot, atol=1e-14)


def test_pseudo_rigid_field_is_the_canonical_field(rng):
    """d/dt Exp(t(γ₂, −γ₁))·(F, P) at t = 0 equals (P E⁻¹, −2F∇W(FᵀF)) (notes §10.5)."""
    body, x = nondiagonal_pseudo_rigid()
    G = body.group
    xi = body.bivector(x) @ body.trivialised_differential(x)
    fd = (G.compose(G.exp(EPS * xi), x) - G.compose(G.exp(-EPS * xi), x)) / (2 * EPS)
    F, P = G.split(x)
    exact = G.join(P @ np.diag(1 / np.asarray(body.inertia)), -2.0 * F @ body.grad_W(F.T @ F))
    assert_allclose(fd, exact, atol=1e-9)


@pytest.mark.parametrize("diff", [TrivialisedGonzalez(), TrivialisedAVF(6)], ids=["gonzalez", "avf"])
@pytest.mark.parametrize("system", [QUAT, PRB], ids=["S3", "GL3xgl3*"])
def test_differential_consistency_and_symmetry(diff, system, rng):
    G = system.group
    u, v = _pair(system, rng, 0.1)
    assert_allclose(diff(system, u, v), diff(system, v, u), atol=1e-12)  # d̄H(u, v) = d̄H(v, u)
    eta = step_log(G, u, v)
    assert_allclose(midpoint_bivector(system, u, eta), midpoint_bivector(system, v, -eta), atol=1e-12)
    # consistency (12): d̄H(x, exp(η)x) → γ(x) as |η| → 0, error O(|η|). The seed's pseudo-rigid γ is not
    # R_x^* dH (erratum 15): its Gonzalez correction vanishes only along the field, where the method steps
    # (⟨R_x^* dH − γ, S γ⟩ = 0); across it α η = O(1), which the next test shows.
    direction = system.bivector(u) @ system.trivialised_differential(u) if system is PRB else eta
    small = 1e-6 * direction / np.linalg.norm(direction)
    gam = system.trivialised_differential(u)
    assert np.abs(diff.from_step(system, u, small) - gam).max() < 1e-5 * (1.0 + np.abs(gam).max())
    assert_allclose(midpoint_bivector(system, u, 0.0 * eta), system.bivector(u), atol=0)


def test_pseudo_rigid_gamma_is_not_the_trivialised_differential(rng):
    """Erratum 15 made visible: across the field the seed's γ misses H's change at first order, so its
    Gonzalez correction stays O(1) as η → 0; the literal R_x^* dH has no such defect."""
    u = nondiagonal_pseudo_rigid()[1]
    eta = 1e-6 * rng.normal(size=18)
    _, alpha, _ = TrivialisedGonzalez().parts(PRB, u, eta)
    _, alpha_true, _ = TrivialisedGonzalez().parts(TrueDifferentialPRB(), u, eta)
    assert abs(alpha) * np.linalg.norm(eta) > 1e-3 and abs(alpha_true) * np.linalg.norm(eta) < 1e-5


def test_gonzalez_guard_at_zero_and_tiny_steps():
    """η = 0 gives γ exactly (no 0/0 under np.seterr(raise)); at |η| = 1e-9 the correction is not amplified
    round-off (without the guard α·η ≈ ε|H|/|η| ≈ 1e-5 here)."""
    body, q = benign_quaternion()
    gam = body.trivialised_differential(q)
    assert_allclose(TrivialisedGonzalez().from_step(body, q, np.zeros(3)), gam, atol=0)
    eta = 1e-9 * np.array([0.3, -0.5, 0.8])
    d, _, c = TrivialisedGonzalez().parts(body, q, eta)
    assert np.abs(d - body.trivialised_differential(c)).max() < 1e-8


def test_differential_across_the_injectivity_radius_is_refused():
    body, q = benign_quaternion()
    eta = 2 * np.pi * np.array([0.0, 0.6, 0.8])
    for diff in (TrivialisedGonzalez(), TrivialisedAVF(4)):
        with pytest.raises(ValueError, match=r"injectivity radius of exp on S3 \(seed 002: \|v\| >= pi"):
            diff.from_step(body, q, eta)


# -------------------------------------------------------------------------------------------- sphere


SPHERE = RigidBodySphere()


def _sphere_pair(rng, size=0.2):
    p = np.array([1.0, 1.0, 1.0]) / np.sqrt(3.0)
    q = p + size * rng.normal(size=3)
    return p, q / np.linalg.norm(q)


@pytest.mark.parametrize("diff, tol", [(SphereGonzalez(), 1e-15), (SphereAVF(8), 1e-14)], ids=["gonzalez", "avf"])
def test_sphere_differentials_chain_rule_symmetry_consistency(diff, tol, rng):
    p, q = _sphere_pair(rng)
    assert abs(diff.chain_rule_residual(SPHERE, p, q)) < tol
    assert_allclose(diff(SPHERE, p, q)[0], diff(SPHERE, q, p)[0], atol=1e-15)
    c = sr.centre(p, q)
    assert_allclose(sphere_bivector(SPHERE, p, q, c), sphere_bivector(SPHERE, q, p, c), atol=0)
    q_near = p + 1e-7 * np.array([0.2, -0.5, 0.3])
    q_near /= np.linalg.norm(q_near)
    grad_tangent = sr.tangent_projector(p) @ SPHERE.gradient(p)
    assert np.abs(diff(SPHERE, p, q_near)[0] - grad_tangent).max() < 1e-6


def test_sphere_gonzalez_identity_and_midpoint_equivalence(rng):
    """(|m|² − 1)/|q − p|² = −1/4 for unit p, q (notes §2.8), and one Gonzalez step of the rigid body is the
    implicit midpoint step (both keep |p| and H; notes §10.6: agreement to ~1e-14)."""
    from lgbeam.integrators.integral_preserving.methods import SphereRetractionMethod

    p, q = _sphere_pair(rng)
    m = 0.5 * (p + q)
    assert abs((m @ m - 1.0) / ((q - p) @ (q - p)) + 0.25) < 1e-14
    h = 0.1
    y1 = SphereRetractionMethod().step(SPHERE, 0.0, h, p, None).y
    Iinv = 1.0 / np.asarray(SPHERE.inertia)
    z = p.copy()
    for _ in range(200):  # implicit midpoint z = p + h f((p + z)/2) by plain iteration to round-off
        mid = 0.5 * (p + z)
        z = p + h * np.cross(mid, mid * Iinv)
    assert_allclose(y1, z, atol=1e-14)
