"""The compiled step core (rods/_compiled.py, frames/_compiled.py, integrators/_banded.py) against the numpy
reference path it replaces: the same Φ, B, g + Bᵀλ and B v on random configurations, the same banded solves as
SuperLU, and the same generalized-α trajectories with and without the core (a rod built with ``compiled=False``
runs the reference path end to end)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam.discretisations.frames import Joint, Structure
from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, straight
from lgbeam.groups import S3R3
from lgbeam.integrators._banded import BandedLU, band_order
from lgbeam.integrators.generalized_alpha import GeneralizedAlpha
from lgbeam.solve import ConstantStep, MechanicalState, SaveAt, integrate

MAT = Material.from_sectional(EA=1e4, GA=1e4, EI=2.0, GJ=1.5, rhoA=1.0, rhoJ=0.01)
MOTION = {"angular_velocity": [0.3, -0.4, 0.8], "velocity": [0.1, 0.2, -0.3], "ramp": 0.5}


def _rod(compiled: bool, supports: tuple[Support, ...], n: int = 6, **kw) -> CosseratRod:
    G = S3R3(compiled=compiled)
    mesh = RodMesh.uniform(2.0, n)
    q_ref = straight(G, mesh, start=np.zeros(3), direction=np.array([1.0, 0.2, -0.1]))
    return CosseratRod(mesh=mesh, material=MAT, q_ref=q_ref, supports=supports, compiled=compiled,
                       loads=(NodalLoad(node="end", force=[0.0, 0.0, -1.0], moment=[0.1, 0.0, 0.0], frame="spatial"),),
                       **kw)


SUPPORTS = {
    "clamped": (Support("start", "clamped"),),
    "pinned+roller": (Support("start", "pinned"), Support("end", "roller", axis="z")),
    "prescribed": (Support("start", "prescribed", MOTION),),
    "free": (),
}


# (an inextensible straight rod pinned and on a roller is over-constrained: that pair is refused, not tested here)
@pytest.mark.parametrize(("kind", "inextensible"), [(k, i) for k in SUPPORTS for i in (False, True)
                                                    if not (k == "pinned+roller" and i)])
def test_rod_step_core_equals_the_numpy_reference(kind, inextensible, rng):
    """Φ, B and the fused Newton residual (g, Bᵀλ, Φ, B v + Φ_t) of the compiled rod equal those of the same rod
    on numpy kernels, at a random configuration, velocity and λ, at t = 0 and on a moving support at t > 0."""
    fast, ref = (_rod(c, SUPPORTS[kind], inextensible=inextensible) for c in (True, False))
    q = ref.group.retract(ref.q_ref, 0.3 * rng.standard_normal(6 * ref.n_nodes))
    v, lam = rng.standard_normal(6 * ref.n_nodes), rng.standard_normal(ref.n_constraints)
    for t in (0.0, 0.7):
        assert np.abs(fast.constraints_t(t, q) - ref.constraints_t(t, q)).max() < 1e-14
        Bf, Br = fast.constraint_jacobian_t(t, q).toarray(), ref.constraint_jacobian_t(t, q).toarray()
        assert np.abs(Bf - Br).max() < 1e-14
        got, want = fast.newton_residual(t, q, v, lam), ref.newton_residual(t, q, v, lam)
        scale = max(np.abs(want[0]).max(), 1.0)
        for a, b in zip(got, want, strict=True):
            assert np.abs(a - b).max() < 1e-13 * scale
        # and the reference itself is what the protocol methods give
        assert np.abs(want[1] - Br.T @ lam).max() < 1e-13 * scale
        assert np.abs(want[3] - Br @ v - ref.constraint_rate(t, q)).max() < 1e-13


def _member(compiled: bool, a, b, n, **kw) -> CosseratRod:
    a, b = np.asarray(a, float), np.asarray(b, float)
    mesh = RodMesh.uniform(float(np.linalg.norm(b - a)), n)
    return CosseratRod(mesh=mesh, material=MAT, q_ref=straight(S3R3(compiled=compiled), mesh, start=a, direction=b - a),
                       compiled=compiled, **kw)


def test_frame_joint_and_support_rows_equal_the_numpy_reference(rng):
    """A structure's Φ and B (joints: rigid, hinge, ball; supports: clamped, prescribed, pinned) from the compiled
    passes equal the numpy rows, and B = ∂Φ/∂q by central differences."""
    def build(compiled: bool) -> Structure:
        def rod(a, b, n, **kw):
            return _member(compiled, a, b, n, **kw)
        return Structure(
            rods={"a": rod((0, 0, 0), (0, 0, 1), 3, supports=(Support("start", "clamped"),)),
                  "b": rod((0, 0, 1), (1, 0, 1.3), 4, supports=(Support("end", "prescribed", MOTION, fix=("x", "z", "ry")),)),
                  "c": rod((1, 0, 1.3), (1, 1, 1.3), 2, supports=(Support("end", "pinned"),)),
                  "d": rod((1, 1, 1.3), (1, 1, 2.0), 2)},
            joints=(Joint(("a", "end"), ("b", "start"), "ball"), Joint(("b", "end"), ("c", "start"), "rigid"),
                    Joint(("c", "end"), ("d", "start"), "hinge", axis="x", frame="local")))
    fast, ref = build(True), build(False)
    q = ref.group.retract(ref.q_ref, 0.3 * rng.standard_normal(ref.n_dofs))
    for t in (0.0, 0.7):
        assert np.abs(fast.constraints_t(t, q) - ref.constraints_t(t, q)).max() < 1e-14
        B = fast.constraint_jacobian_t(t, q).toarray()
        assert np.abs(B - ref.constraint_jacobian_t(t, q).toarray()).max() < 1e-14
        eps = 1e-6
        fd = np.stack([(fast.constraints_t(t, fast.group.retract(q, eps * e))
                        - fast.constraints_t(t, fast.group.retract(q, -eps * e))) / (2 * eps)
                       for e in np.eye(fast.n_dofs)], axis=1)
        assert np.abs(B - fd).max() < 1e-8


def test_banded_lu_solves_like_superlu(rng):
    """The banded LU (node-block order, LAPACK band factorisation, compiled substitution) of a generalized-α
    Newton matrix gives SuperLU's solution to round-off; a matrix whose band is too wide is left to SuperLU."""
    import lgbeam.integrators._implicit as implicit

    captured = {}
    build = implicit.KKTFactor.build

    def spy(blocks, block=6):
        captured["K"] = sp.bmat([[None if b is None else sp.csr_array(b) for b in row] for row in blocks], format="csc")
        captured["nv"] = blocks[0][0].shape[0]
        return build(blocks, block)

    rod = _rod(True, SUPPORTS["clamped"], n=24, inextensible=True)
    ga = GeneralizedAlpha()
    y, cache = ga.init(rod, 0.0, MechanicalState(rod.q_ref, np.zeros(6 * rod.n_nodes)))
    chain = CosseratRod.chain_tangent_blocks
    try:
        implicit.KKTFactor.build = staticmethod(spy)
        CosseratRod.chain_tangent_blocks = lambda self, *args: None  # type: ignore[method-assign,assignment]
        ga.step(rod, 0.0, 1e-3, y, cache)  # the sparse assembly (the rod's band-storage one bypasses KKTFactor.build)
    finally:
        implicit.KKTFactor.build = staticmethod(build)
        CosseratRod.chain_tangent_blocks = chain  # type: ignore[method-assign]
    K, nv = captured["K"], captured["nv"]
    perm = band_order(sp.csr_array(K), nv, 6)
    kl, ku = BandedLU.bandwidth(K, perm)
    assert BandedLU.fits(K.shape[0], kl, ku) and kl < 40 and ku < 40  # a rod: a narrow band at any N
    lu = BandedLU.factor(K, perm, kl, ku)
    b = rng.standard_normal(K.shape[0])
    x = lu.solve(b)
    ref = spla.splu(K).solve(b)
    assert np.abs(x - ref).max() < 1e-10 * np.abs(ref).max()
    assert np.abs(K @ x - b).max() < 1e-9 * np.abs(b).max()
    assert not BandedLU.fits(100, 30, 30)


@pytest.mark.parametrize("index", ["2-stabilised", "3"])
def test_gen_alpha_with_the_core_follows_the_reference_path(index):
    """The clamped, loaded steel-like rod over 60 steps of generalized-α: the compiled core (fused residual, banded
    LU) and the numpy reference path (protocol methods, same integrator) give the same trajectory to the Newton
    tolerance, and both take the same number of iterations."""
    sols = []
    for compiled in (True, False):
        rod = _rod(compiled, SUPPORTS["clamped"], n=12, inextensible=True)
        y0 = MechanicalState(rod.q_ref, np.zeros(6 * rod.n_nodes))
        sol = integrate(rod, GeneralizedAlpha(index=index), y0, (0.0, 0.06), controller=ConstantStep(1e-3),
                        save=SaveAt(times=np.linspace(0.0, 0.06, 7)), diagnostics=False)
        assert sol.status == "ok"
        sols.append(sol)
    fast, ref = sols
    x_f, x_r = (S3R3().translation(np.asarray(s.q)) for s in sols)
    assert np.abs(x_f - x_r).max() < 1e-9 * np.abs(x_r).max()
    assert np.abs(np.asarray(fast.lam) - np.asarray(ref.lam)).max() < 1e-6 * np.abs(np.asarray(ref.lam)).max()
    assert abs(fast.stats["n_iterations"] - ref.stats["n_iterations"]) <= 2
    assert np.abs(x_r[-1] - x_r[0]).max() > 1e-4  # the rod moved: the comparison is not between two rest states


@pytest.mark.parametrize("angle_scale", [1.0, 1e-3, 0.0])
def test_compiled_pair_H_equals_the_numpy_derivative(angle_scale, rng):
    """The compiled ∂(JJᵀ s)/∂q blocks of K and Z (``rods._compiled.pair_H``) equal the numpy ones
    (``groups.tangent_derivatives``), for edges bent by ~1 rad, by ~1e-3 rad (Taylor branches) and straight."""
    from lgbeam.discretisations.rods import _compiled, kernels, tangents

    xi, JJ = kernels.edge_kinematics(_compiled._configuration(rng, 14))
    xi[:, :3] *= angle_scale
    s = rng.standard_normal(xi.shape)
    ref = tangents._pair_H(xi, s, JJ, False)
    assert np.abs(tangents._pair_H(xi, s, JJ, True) - ref).max() < 1e-14 * np.abs(ref).max()


@pytest.mark.parametrize("group", ["S3R3", "SO3xR3", "SE3", "S3xR3"])
def test_heavy_top_fused_step_residuals_equal_the_protocol_methods(group, rng):
    """The heavy top's one-pass (‖Φ‖, ‖B v‖, energy) (the driver's per-step diagnostics) equals the norms of
    ``constraints``, ``constraint_jacobian`` @ v and ``energy`` at a random state."""
    from lgbeam.models.heavy_top import HeavyTop

    top = HeavyTop(group)
    q0, _ = top.initial_state()
    q, v = top.group.retract(q0, 0.3 * rng.standard_normal(6)), rng.standard_normal(6)
    want = (np.linalg.norm(top.constraints(q)), np.linalg.norm(np.asarray(top.constraint_jacobian(q)) @ v),
            top.energy(0.0, q, v))
    assert np.allclose(top.step_residuals(0.0, q, v), want, rtol=1e-14, atol=1e-14)


def test_structure_fused_residual_equals_the_numpy_reference(rng):
    """A structure's one-pass Newton residual (all edges, supports, joints, nodal loads; an elastic joint's and a
    support's springs added after) equals the numpy structure's protocol methods (g, Bᵀλ, Φ, B v + Φ_t), with a
    moving support at t > 0."""
    def build(compiled: bool) -> Structure:
        def rod(a, b, n, **kw):
            return _member(compiled, a, b, n, **kw)
        return Structure(
            rods={"a": rod((0, 0, 0), (0, 0, 1), 3, supports=(Support("start", "clamped"),),
                           loads=(NodalLoad(node="end", force=[0.3, 0.0, 0.1], frame="spatial"),)),
                  "b": rod((0, 0, 1), (1, 0, 1.3), 4, inextensible=True,
                           supports=(Support("end", "prescribed", MOTION, fix=("x", "z", "ry")),),
                           loads=(NodalLoad(node=2, moment=[0.0, 0.2, 0.0]),)),
                  "c": rod((1, 0, 1.3), (1, 1, 1.3), 2, supports=(Support("end", "pinned", rotational_stiffness=[2.0, 0, 0]),))},
            joints=(Joint(("a", "end"), ("b", "start"), "elastic", rotational_stiffness=[1.0, 2.0, 3.0]),
                    Joint(("b", "end"), ("c", "start"), "rigid")))
    fast, ref = build(True), build(False)
    assert fast._fused is not None and ref._fused is None
    q = ref.group.retract(ref.q_ref, 0.3 * rng.standard_normal(ref.n_dofs))
    v, lam = rng.standard_normal(ref.n_dofs), rng.standard_normal(ref.n_constraints)
    for t in (0.0, 0.7):
        got, want = fast.newton_residual(t, q, v, lam), ref.newton_residual(t, q, v, lam)
        scale = max(np.abs(want[0]).max(), 1.0)
        for a, b in zip(got, want, strict=True):
            assert np.abs(a - b).max() < 1e-13 * scale
