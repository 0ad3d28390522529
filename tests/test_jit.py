"""The compiled kernels of ``lgbeam.jit`` against their numpy references (a second implementation of the
same formulas; the numpy paths are themselves checked against scipy, mpmath and finite differences in
test_groups.py / test_rod_consistency.py), and the banded LU against LAPACK through numpy."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam import jit
from lgbeam.groups import S3R3, Product


@pytest.fixture(autouse=True)
def _compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run with the kernels on even under LGBEAM_JIT=0 (numba is a dependency, so it is importable)."""
    monkeypatch.setattr(jit, "ENABLED", True)


def both(monkeypatch: pytest.MonkeyPatch, fn):  # type: ignore[no-untyped-def]
    """fn() with the compiled kernels, then with the numpy paths."""
    fast = fn()
    monkeypatch.setattr(jit, "ENABLED", False)
    ref = fn()
    monkeypatch.setattr(jit, "ENABLED", True)
    return fast, ref


def close(a, b, rtol=1e-13):  # type: ignore[no-untyped-def]
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(1.0, float(np.max(np.abs(b)))))


@pytest.mark.parametrize("scale", [1e-10, 1e-4, 0.3, 1.5, 3.0])
def test_s3r3_maps_match_numpy(monkeypatch: pytest.MonkeyPatch, scale: float) -> None:
    G = S3R3()
    rng = np.random.default_rng(7)
    xi = rng.normal(size=(40, 6)) * scale
    xi[:, :3] *= np.minimum(1.0, 3.0 / np.maximum(np.linalg.norm(xi[:, :3], axis=1, keepdims=True), 1e-300))
    v = rng.normal(size=(40, 6))
    q = G.exp(rng.normal(size=(40, 6)))
    for fn in (lambda: G.exp(xi), lambda: G.compose(q, G.exp(xi)), lambda: G.retract(q, xi),
               lambda: G.log(G.exp(xi)), lambda: G.tangent_inv_apply(xi, v), lambda: G.rotation(q),
               lambda: G.exp(xi[0]), lambda: G.tangent_inv_apply(xi[3], v[3])):
        close(*both(monkeypatch, fn))


def test_retract_is_compose_of_exp() -> None:
    G = S3R3()
    rng = np.random.default_rng(1)
    q, xi = G.exp(rng.normal(size=(9, 6))), rng.normal(size=(9, 6))
    close(G.retract(q, xi), G.compose(q, G.exp(xi)), 1e-15)


def test_product_fast_paths_match_checked_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    P = Product(S3R3(), 12)
    rng = np.random.default_rng(2)
    q, xi, v = P.exp(rng.normal(size=72)), rng.normal(size=72), rng.normal(size=72)
    close(*both(monkeypatch, lambda: P.retract(q, xi)))
    close(*both(monkeypatch, lambda: P.tangent_inv_apply(xi, v)))
    # batched or non-float inputs leave the fast path and still work
    close(P.tangent_inv_apply(np.stack([xi, xi]), np.stack([v, v]))[1], P.tangent_inv_apply(xi, v))
    close(P.retract(q.tolist(), xi.tolist()), P.retract(q, xi))


def _rod(**kw):  # type: ignore[no-untyped-def]
    from lgbeam.apps.rod import build
    from lgbeam.io.cases import load_case

    case, _ = load_case(kw.pop("case", "flying-spaghetti"), kw.pop("sets", ["model.n_elements=12"]))
    return build(case)


@pytest.mark.parametrize("case", ["flying-spaghetti", "roll-up"])
def test_rod_operators_match_numpy(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """Edge kinematics, forces (elastic, damping, gyroscopic, loads) and B, compiled vs numpy, at a
    deformed moving state."""
    rod, q0, v0 = _rod(case=case, sets=["model.n_elements=10"])
    rng = np.random.default_rng(3)
    q = rod.group.retract(q0, 0.2 * rng.normal(size=v0.size))
    v = rng.normal(size=v0.size)
    for fn in (lambda: rod.forces(1.3, q, v), lambda: rod.constraint_jacobian(q).toarray(),
               lambda: rod.external_forces(1.3, q), lambda: rod.constraints(q), lambda: rod.energy(0.0, q, v)):
        rod._memo.clear()
        fast = fn()
        monkeypatch.setattr(jit, "ENABLED", False)
        rod._memo.clear()
        ref = fn()
        monkeypatch.setattr(jit, "ENABLED", True)
        close(fast, ref, 1e-12)


def test_nodal_and_field_loads_match_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    from lgbeam.discretisations.rods.loads import DistributedLoad, Gravity, NodalLoad, external_forces

    rng = np.random.default_rng(4)
    p = S3R3().exp(rng.normal(size=(6, 6)))
    loads = (NodalLoad(node=2, force=[1, 2, 3], moment=[0, 1, 0]), NodalLoad(node=2, force=[0, 0, 5], frame="body"),
             NodalLoad(node=5, moment=[4, 0, 1]), Gravity([0, 0, -9.81]), DistributedLoad(force=[0, 1, 0], frame="body"))
    w = np.full(6, 0.2)
    for sub in (loads[:3], loads):
        ids = tuple(ld.node if isinstance(ld, NodalLoad) else -1 for ld in sub)
        close(*both(monkeypatch, lambda sub=sub, ids=ids: external_forces(0.5, p, sub, ids, w, 2.0)))
    # independent check of one spatial nodal load: R_2ᵀ F
    R = S3R3().rotation(p)
    f = external_forces(0.0, p, loads[:1], (2,), w, 2.0)
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
    assert jit.band_lu_solve(ab, kl, ku, x) == 0
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
    assert jit.band_lu_solve(ab, 1, 1, np.ones(3)) == info


def test_stage_solves_match_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled banded (rod) and dense (one body) stage solves against the numpy paths of
    ``SaddlePointSolver.solve``, and the saddle-point equations themselves."""
    from lgbeam.integrators._linear import SaddlePointSolver, mass_inverse
    from lgbeam.models.heavy_top import HeavyTop

    rng = np.random.default_rng(5)
    rod, q0, _ = _rod()
    top = HeavyTop("S3R3")
    qt, _ = top.initial_state()
    for system, q in ((rod, q0), (top, qt)):
        M = system.mass(q)
        lin = SaddlePointSolver(mass_inverse(M, 6))
        B_i = system.constraint_jacobian(q)
        B_n = system.constraint_jacobian(system.group.retract(q, 1e-2 * rng.normal(size=M.shape[0])))
        r1, r2 = rng.normal(size=M.shape[0]), rng.normal(size=B_i.shape[0])
        (vd, lam), (vd0, lam0) = both(
            monkeypatch, lambda lin=lin, r1=r1, B_i=B_i, B_n=B_n, r2=r2: lin.solve(r1, B_i, B_n, 0.37, r2))
        close(vd, vd0, 1e-11)
        close(lam, lam0, 1e-11)
        Md = M.toarray() if hasattr(M, "toarray") else M
        Bi = B_i.toarray() if hasattr(B_i, "toarray") else B_i
        Bn = B_n.toarray() if hasattr(B_n, "toarray") else B_n
        close(Md @ vd + Bi.T @ lam, r1, 1e-11)
        close(0.37 * Bn @ vd, r2, 1e-11)


def test_integration_matches_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """20 HEDOP5 steps of the flying spaghetti and of the heavy top: compiled and numpy paths agree."""
    from lgbeam.models.heavy_top import HeavyTop
    from lgbeam.solve import integrate

    rod, q0, v0 = _rod()
    top = HeavyTop("S3R3")
    qt, vt = top.initial_state()
    for system, q, v in ((rod, q0, v0), (top, qt, vt)):
        fast, ref = both(monkeypatch, lambda s=system, q=q, v=v: integrate(s, q, v, (0.0, 0.02), "hedop5", h=1e-3))
        close(fast.q[-1], ref.q[-1], 1e-11)
        close(fast.v[-1], ref.v[-1], 1e-10)
        close(fast.lam[-1], ref.lam[-1], 1e-9)


def test_fused_step_residuals_match_the_generic_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rod's one-pass (‖Φ‖, ‖Bv‖, energy) against the driver's generic evaluation on the numpy path;
    with supports (roll-up: a clamp) the rod declines and the driver evaluates them itself."""
    from lgbeam import solve

    for case, expect_fused in (("flying-spaghetti", True), ("roll-up", False)):
        rod, q0, v0 = _rod(case=case, sets=["model.n_elements=9"])
        rng = np.random.default_rng(6)
        q, v = rod.group.retract(q0, 0.1 * rng.normal(size=v0.size)), rng.normal(size=v0.size)
        fused = rod.step_residuals(0.0, q, v)
        assert (fused is not None) == expect_fused
        monkeypatch.setattr(jit, "ENABLED", False)
        ref = solve._residuals(rod, 0.0, q, v)
        monkeypatch.setattr(jit, "ENABLED", True)
        close(solve._residuals(rod, 0.0, q, v), ref, 1e-12)
        if fused is not None:
            close(fused, ref, 1e-12)
