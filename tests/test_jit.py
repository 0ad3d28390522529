"""The compiled kernels (the ``_compiled`` modules) against their numpy references (a second implementation
of the same formulas; the numpy paths are themselves checked against scipy, mpmath and finite differences in
test_groups.py / test_rod_consistency.py), and the banded LU against LAPACK.

Objects are built with ``compiled=True`` and ``compiled=False`` explicitly, so these tests run the kernels
whatever ``LGBEAM_JIT`` says (numba is a dependency)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from lgbeam import _numba
from lgbeam.discretisations.frames import _compiled as frame_compiled
from lgbeam.discretisations.frames import _corot_compiled as corot_compiled
from lgbeam.discretisations.frames import _statics_compiled as statics_compiled
from lgbeam.discretisations.rods import _compiled as rod_compiled
from lgbeam.discretisations.rods import kernels
from lgbeam.groups import S3R3, Product
from lgbeam.groups.s3r3 import COMPILED_TWINS as GROUP_TWINS
from lgbeam.integrators import _compiled as stage_compiled
from lgbeam.models.heavy_top import HeavyTop

TWINS = (*GROUP_TWINS, *rod_compiled.TWINS, *stage_compiled.TWINS, *corot_compiled.TWINS, *frame_compiled.TWINS,
         *statics_compiled.TWINS)


def close(a, b, rtol=1e-13):  # type: ignore[no-untyped-def]
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, float(np.max(np.abs(b)))))


def close_all(a, b, rtol=1e-13):  # type: ignore[no-untyped-def]
    """``close`` for arrays or tuples of arrays/numbers."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            close(x, y, rtol)
    else:
        close(a, b, rtol)


@pytest.mark.parametrize("twin", TWINS, ids=[t.name for t in TWINS])
def test_compiled_kernel_matches_its_numpy_reference(twin: _numba.Twin) -> None:
    """Every exported (compiled, reference, sample): the same values on the same (fresh) arguments."""
    for seed in range(3):
        fast = twin.compiled(*twin.sample(np.random.default_rng(seed)))
        ref = twin.reference(*twin.sample(np.random.default_rng(seed)))
        close_all(fast, ref, twin.rtol)


def maps(scale: float):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    xi = rng.normal(size=(40, 6)) * scale
    xi[:, :3] *= np.minimum(1.0, 3.0 / np.maximum(np.linalg.norm(xi[:, :3], axis=1, keepdims=True), 1e-300))
    v = rng.normal(size=(40, 6))
    q = S3R3(compiled=False).exp(rng.normal(size=(40, 6)))
    return (lambda G: G.exp(xi), lambda G: G.compose(q, G.exp(xi)), lambda G: G.retract(q, xi),
            lambda G: G.log(G.exp(xi)), lambda G: G.tangent_inv_apply(xi, v), lambda G: G.rotation(q),
            lambda G: G.exp(xi[0]), lambda G: G.tangent_inv_apply(xi[3], v[3]))


@pytest.mark.parametrize("scale", [1e-10, 1e-4, 0.3, 1.5, 3.0])
def test_s3r3_maps_match_numpy(scale: float) -> None:
    fast, ref = S3R3(compiled=True), S3R3(compiled=False)
    assert fast.maps is not ref.maps
    for fn in maps(scale):
        close(fn(fast), fn(ref))


def test_retract_is_compose_of_exp() -> None:
    G = S3R3(compiled=True)
    rng = np.random.default_rng(1)
    q, xi = G.exp(rng.normal(size=(9, 6))), rng.normal(size=(9, 6))
    close(G.retract(q, xi), G.compose(q, G.exp(xi)), 1e-15)


def test_default_is_read_when_an_object_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """``compiled=None`` resolves to ``lgbeam._numba.ENABLED`` at construction, then stays."""
    for flag in (True, False):
        monkeypatch.setattr(_numba, "ENABLED", flag)
        G = S3R3()
        assert G.compiled is flag
        monkeypatch.setattr(_numba, "ENABLED", not flag)
        assert G.compiled is flag and G.maps is S3R3(compiled=flag).maps


def test_product_fast_paths_match_checked_paths() -> None:
    fast, ref = Product(S3R3(compiled=True), 12), Product(S3R3(compiled=False), 12)
    rng = np.random.default_rng(2)
    q, xi, v = ref.exp(rng.normal(size=72)), rng.normal(size=72), rng.normal(size=72)
    close(fast.retract(q, xi), ref.retract(q, xi))
    close(fast.tangent_inv_apply(xi, v), ref.tangent_inv_apply(xi, v))
    # batched or non-float inputs leave the fast path and still work
    for P in (fast, ref):
        close(P.tangent_inv_apply(np.stack([xi, xi]), np.stack([v, v]))[1], P.tangent_inv_apply(xi, v))
        close(P.retract(q.tolist(), xi.tolist()), P.retract(q, xi))


def _rod(compiled: bool, **kw):  # type: ignore[no-untyped-def]
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build

    case, _ = load_case(kw.pop("case", "flying-spaghetti"), kw.pop("sets", ["model.n_elements=12"]))
    rod, q0, v0 = build(case)
    return dataclasses.replace(rod, compiled=compiled), q0, v0


@pytest.mark.parametrize("case", ["flying-spaghetti", "roll-up"])
def test_rod_operators_match_numpy(case: str) -> None:
    """Edge kinematics, forces (elastic, damping, gyroscopic, loads) and B, compiled vs numpy, at a
    deformed moving state."""
    fast, q0, v0 = _rod(True, case=case, sets=["model.n_elements=10"])
    ref = dataclasses.replace(fast, compiled=False)
    assert fast.group.G.compiled and not ref.group.G.compiled
    rng = np.random.default_rng(3)
    q = ref.group.retract(q0, 0.2 * rng.normal(size=v0.size))
    v = rng.normal(size=v0.size)
    for fn in (lambda r: r.forces(1.3, q, v), lambda r: r.constraint_jacobian(q).toarray(),
               lambda r: r.external_forces(1.3, q), lambda r: r.constraints(q), lambda r: r.energy(0.0, q, v)):
        close(fn(fast), fn(ref), 1e-12)


@pytest.mark.parametrize("compiled", [True, False])
def test_fused_rod_kernels_match_the_readable_definitions(compiled: bool) -> None:
    """Both fused paths (``edge_kinematics`` + ``internal_forces``) against the readable kernels: xi = log of
    the relative elements, Jm = −T(ξ)⁻¹ Ad(r⁻¹), Jp = T(ξ)⁻¹, g = Jᵀσ + gyroscopic with Kelvin–Voigt σ."""
    rod, q0, v0 = _rod(compiled, sets=["model.n_elements=9"])
    rng = np.random.default_rng(8)
    q = rod.group.retract(q0, 0.3 * rng.normal(size=v0.size)).reshape(-1, 7)
    V = rng.normal(size=(q.shape[0], 6))
    G = S3R3(compiled=False)
    r, xi_ref = kernels.edge_logs(G, q)
    Jm, Jp = kernels.edge_jacobians(G, r, xi_ref)
    xi, JJ = rod._kernels.edge_kinematics(np.ascontiguousarray(q))
    close(xi, xi_ref, 1e-12)
    close(JJ, np.concatenate([Jm, Jp], axis=2), 1e-12)
    mat, ds = rod.material, rod.mesh.ds
    C_d = np.full(6, 0.3)
    sigma = kernels.edge_stress(xi_ref, ds, rod.w0, mat.stiffness, kernels.edge_rates(Jm, Jp, V), C_d)
    g_ref = kernels.scatter_edge_forces(Jm, Jp, sigma) + kernels.gyroscopic(V, rod.node_inertia, rod.node_mass)
    g = rod._kernels.internal_forces(xi, JJ, V, mat.stiffness / ds[:, None], mat.stiffness * rod.w0,
                                     C_d / ds[:, None], rod.node_inertia, rod.node_mass)
    close(g, g_ref, 1e-11)


def test_nodal_and_field_loads_match_numpy() -> None:
    from lgbeam.discretisations.rods.loads import DistributedLoad, Gravity, NodalLoad, external_forces

    rng = np.random.default_rng(4)
    p = S3R3(compiled=False).exp(rng.normal(size=(6, 6)))
    a = np.array
    loads = (NodalLoad(node=2, force=a([1.0, 2, 3]), moment=a([0.0, 1, 0])),
             NodalLoad(node=2, force=a([0.0, 0, 5]), frame="body"), NodalLoad(node=5, moment=a([4.0, 0, 1])),
             Gravity(a([0.0, 0, -9.81])), DistributedLoad(force=a([0.0, 1, 0]), frame="body"))
    w = np.full(6, 0.2)
    for sub in (loads[:3], loads):
        ids = tuple(int(ld.node) if isinstance(ld, NodalLoad) else -1 for ld in sub)
        close(external_forces(0.5, p, sub, ids, w, 2.0, rod_compiled.LOADS), external_forces(0.5, p, sub, ids, w, 2.0))
    # independent check of one spatial nodal load: R_2ᵀ F, on both paths
    R = S3R3(compiled=False).rotation(p)
    for kern in (rod_compiled.LOADS, None):
        f = external_forces(0.0, p, loads[:1], (2,), w, 2.0, kern)
        close(f[2, 3:], R[2].T @ [1, 2, 3], 1e-15)
        close(f[2, :3], R[2].T @ [0, 1, 0], 1e-15)


@pytest.mark.parametrize("n,kl,ku", [(1, 0, 0), (7, 1, 1), (30, 3, 5), (40, 6, 2), (12, 11, 11)])
def test_band_lu_matches_dense_solve(n: int, kl: int, ku: int) -> None:
    rng = np.random.default_rng(n + kl)
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            A[i, j] = rng.normal()
    A += (kl + ku + 2) * np.eye(n) * (rng.random(n) < 0.5)  # some rows well conditioned, others need pivoting
    if n > 2 and kl:
        A[0, 0] = 0.0  # forces a row exchange in the first column
    b = rng.normal(size=n)
    ab = np.zeros((n, 2 * kl + ku + 1))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            ab[j, kl + ku + i - j] = A[i, j]
    x = b.copy()
    assert stage_compiled.band_lu_solve(ab, kl, ku, x) == 0
    np.testing.assert_allclose(A @ x, b, atol=1e-12 * np.linalg.cond(A))


def test_band_lu_reports_a_singular_matrix() -> None:
    """Rank 2: LAPACK's dgbsv (same algorithm) reports the zero pivot in the same column."""
    from scipy.linalg.lapack import dgbsv

    A = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 1.0, 1.0]])
    ab = np.zeros((3, 4))
    for i in range(3):
        for j in range(max(0, i - 1), min(3, i + 2)):
            ab[j, 2 + i - j] = A[i, j]
    *_, info = dgbsv(1, 1, ab.T.copy(), np.ones(3))
    assert info > 0
    assert stage_compiled.band_lu_solve(ab, 1, 1, np.ones(3)) == info


def test_stage_solves_match_numpy() -> None:
    """The compiled banded (rod) and dense (one body) stage solves against the numpy paths of
    ``SaddlePointSolver.solve``, and the saddle-point equations themselves."""
    from lgbeam.integrators._linear import SaddlePointSolver, mass_inverse

    rng = np.random.default_rng(5)
    rod, q0, _ = _rod(False)
    top = HeavyTop("S3R3", compiled=False)
    qt, _ = top.initial_state()
    for system, q in ((rod, q0), (top, qt)):
        M = system.mass(q)
        fast, ref = SaddlePointSolver(mass_inverse(M, 6), compiled=True), SaddlePointSolver(mass_inverse(M, 6), compiled=False)
        B_i = system.constraint_jacobian(q)
        B_n = system.constraint_jacobian(system.group.retract(q, 1e-2 * rng.normal(size=M.shape[0])))
        r1, r2 = rng.normal(size=M.shape[0]), rng.normal(size=B_i.shape[0])
        vd, lam = fast.solve(r1, B_i, B_n, 0.37, r2)
        vd0, lam0 = ref.solve(r1, B_i, B_n, 0.37, r2)
        close(vd, vd0, 1e-11)
        close(lam, lam0, 1e-11)
        Md = M.toarray() if hasattr(M, "toarray") else M
        Bi = B_i.toarray() if hasattr(B_i, "toarray") else B_i
        Bn = B_n.toarray() if hasattr(B_n, "toarray") else B_n
        close(Md @ vd + Bi.T @ lam, r1, 1e-11)
        close(0.37 * Bn @ vd, r2, 1e-11)


def _run(system, q, v):  # type: ignore[no-untyped-def]
    from lgbeam.solve import ConstantStep, MechanicalState, integrate

    return integrate(system, "hedop5", MechanicalState(q, v, None), (0.0, 0.02), controller=ConstantStep(1e-3))


def test_integration_matches_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """20 HEDOP5 steps of the flying spaghetti and of the heavy top: compiled and numpy paths agree. The
    systems are built with ``compiled``; the driver's stage solver and stage sums take the default, so it
    is set for each run."""
    rod, q0, v0 = _rod(True)
    top = HeavyTop("S3R3", compiled=True)
    qt, vt = top.initial_state()
    for system, q, v in ((rod, q0, v0), (top, qt, vt)):
        runs = []
        for compiled in (True, False):
            monkeypatch.setattr(_numba, "ENABLED", compiled)
            monkeypatch.setattr(stage_compiled, "ENABLED", compiled)
            runs.append(_run(dataclasses.replace(system, compiled=compiled), q, v))
        fast, ref = runs
        close(fast.q[-1], ref.q[-1], 1e-11)
        close(fast.v[-1], ref.v[-1], 1e-10)
        close(fast.lam[-1], ref.lam[-1], 1e-9)


def test_fused_step_residuals_match_the_generic_ones() -> None:
    """The rod's one-pass (‖Φ‖, ‖Bv‖, energy) against the driver's generic evaluation on the numpy path;
    with supports (roll-up: a clamp) the rod declines and the driver evaluates them itself."""
    from lgbeam.integrators.mechanics import residuals

    def generic(rod, q, v):  # type: ignore[no-untyped-def]
        res = residuals(rod, 0.0, q, v)
        return res["phi"], res["bv"], res["energy"]

    for case, expect_fused in (("flying-spaghetti", True), ("roll-up", False)):
        fast, q0, v0 = _rod(True, case=case, sets=["model.n_elements=9"])
        ref = dataclasses.replace(fast, compiled=False)
        rng = np.random.default_rng(6)
        q, v = ref.group.retract(q0, 0.1 * rng.normal(size=v0.size)), rng.normal(size=v0.size)
        fused = fast.step_residuals(0.0, q, v)
        assert (fused is not None) == expect_fused
        assert ref.step_residuals(0.0, q, v) is None
        expected = generic(ref, q, v)
        close(generic(fast, q, v), expected, 1e-12)
        if fused is not None:
            close(fused, expected, 1e-12)
