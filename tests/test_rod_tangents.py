"""Exact tangents of the rod (HasTangents) against central differences of the exact forces and constraints.

Truth: central differences along q ∘ exp(±ε w) (and v ± ε u) of ``forces`` and ``constraint_jacobian``ᵀλ, on
random bent, twisted, moving states of a helix with supports, every load kind and Kelvin–Voigt damping.
Tolerance: the central difference has truncation error ε²/6·|f'''| ≈ 1e-12·|f| and rounding error
≈ 1e-16·|f|/ε = 1e-10·|f| (ε = 1e-6), so an exact tangent agrees to ~1e-10 of max|K|; we assert 1e-7
(three orders of margin). Dropping any single term (the geometric H-term, the load stiffness, Z of one
support kind) changes entries by O(1e-2 … 1) of max|K|, so every assert can fail.
"""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.discretisations.rods import (
    CosseratRod,
    DistributedLoad,
    Gravity,
    Material,
    NodalLoad,
    RodMesh,
    Support,
    helix,
    tangents,
)
from lgbeam.groups.s3r3 import S3R3
from lgbeam.groups.se3 import tangent_inv_se3
from lgbeam.groups.tangent_derivatives import tangent_inv_derivative, tangent_inv_transpose_derivative
from lgbeam.systems import HasTangents

G = S3R3()
EPS = 1e-6
TOL = 1e-7  # relative to max|·|; FD error ~1e-10 (module docstring)
MAT = Material(C_K=[2.0, 3.0, 1.5], C_Gamma=[50.0, 60.0, 80.0], rhoA=1.2, rhoJ=[0.1, 0.2, 0.3],
               C_K_d=[0.7, 0.5, 0.3], C_Gamma_d=[3.0, 2.0, 4.0])
LOADS = (NodalLoad(node="end", force=[1.0, 2.0, 3.0], moment=[0.5, -1.0, 2.0]),
         NodalLoad(node=1, force=[1.0, 0.0, 1.0], moment=[1.0, 1.0, 1.0], frame="body"),
         Gravity([0.0, 0.0, -9.8]), DistributedLoad(force=[0.3, 0.1, 0.2]),
         DistributedLoad(force=[0.0, 0.2, 0.0], frame="body"))
SUPPORTS = {
    "clamped-roller": (Support("start", "clamped"), Support("end", "roller", axis="x")),
    "hinge-springs": (Support("start", "hinge", axis="z", frame="local"),
                      Support("end", "free", stiffness=[10.0, 20.0, 5.0], rotational_stiffness=2.0)),
    "none": (),
}


def _rod(n: int, supports, inextensible: bool = False, compiled: bool = False) -> CosseratRod:
    mesh = RodMesh.uniform(2.0, n)
    return CosseratRod(mesh=mesh, material=MAT, q_ref=helix(G, mesh, radius=0.5, pitch=0.3), supports=supports,
                       loads=LOADS, inextensible=inextensible, compiled=compiled)


def _moved(rod: CosseratRod, eta: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
    q = rod.q_ref if q is None else q
    return G.compose(q, G.exp(eta.reshape(rod.n_nodes, 6)))


def _fd(fun, x_dim: int) -> np.ndarray:
    cols = []
    for j in range(x_dim):
        e = np.zeros(x_dim)
        e[j] = EPS
        cols.append((fun(e) - fun(-e)) / (2 * EPS))
    return np.array(cols).T


def _rel(A: np.ndarray, B: np.ndarray) -> float:
    return float(np.max(np.abs(A - B)) / np.max(np.abs(B)))


@pytest.mark.parametrize("n", [3, 8])
@pytest.mark.parametrize("sup", sorted(SUPPORTS))
def test_tangents_match_central_differences_on_random_states(n, sup, rng):
    rod = _rod(n, SUPPORTS[sup], inextensible=(sup == "none"))
    assert isinstance(rod, HasTangents)
    q = _moved(rod, 0.3 * rng.normal(size=6 * rod.n_nodes))  # bent and twisted away from the helix
    v = rng.normal(size=6 * rod.n_nodes)  # moving: Kelvin–Voigt and gyroscopic terms active
    lam = rng.normal(size=rod.n_constraints)
    t, m = 0.3, 6 * rod.n_nodes
    K = rod.stiffness(t, q, v).toarray()
    Kf = _fd(lambda e: rod.forces(t, _moved(rod, e, q), v), m)
    assert _rel(K, Kf) < TOL
    D = rod.damping(t, q, v).toarray()
    assert _rel(D, _fd(lambda e: rod.forces(t, q, v + e), m)) < TOL
    Z = rod.constraint_stiffness(t, q, lam).toarray()
    Zf = _fd(lambda e: rod.constraint_jacobian_t(t, _moved(rod, e, q)).T @ lam, m)
    assert _rel(Z, Zf) < TOL


def test_tangent_is_block_tridiagonal_and_sparse():
    rod = _rod(64, SUPPORTS["clamped-roller"])
    K = rod.stiffness(0.0, rod.q_ref, np.zeros(6 * rod.n_nodes))
    assert K.nnz <= 36 * (3 * rod.n_nodes - 2)  # 6×6 blocks on three block diagonals, nothing dense
    rows, cols = K.nonzero()
    assert np.max(np.abs(rows // 6 - cols // 6)) <= 1


def test_compiled_kernels_give_the_same_tangent(rng):
    a, b = _rod(6, SUPPORTS["clamped-roller"]), _rod(6, SUPPORTS["clamped-roller"], compiled=True)
    q = _moved(a, 0.2 * rng.normal(size=6 * a.n_nodes))
    v = rng.normal(size=6 * a.n_nodes)
    assert _rel(a.stiffness(0.0, q, v).toarray(), b.stiffness(0.0, q, v).toarray()) < 1e-12


def test_fallback_matches_analytic_support_blocks(rng):
    """The generic coloured central-difference Z (for rows without analytic blocks) equals the analytic one."""
    rod = _rod(7, (Support("start", "clamped"), Support(3, "pinned"), Support("end", "roller", axis="y")))
    q = _moved(rod, 0.3 * rng.normal(size=6 * rod.n_nodes))
    lam = rng.normal(size=rod.n_constraints)
    lam[: rod.n_internal] = 0.0
    Zc = tangents.coloured_constraint_stiffness(rod, 0.0, q, lam).toarray()
    Za = rod.support_constraint_stiffness(0.0, q, lam).toarray()
    assert _rel(Zc, Za) < TOL


@pytest.mark.parametrize("angle", [1e-7, 1e-3, 0.5, 2.0, 3.1])
def test_group_derivatives_of_the_inverse_tangent(angle, rng):
    xi = rng.normal(size=(5, 6))
    xi[:, :3] *= angle / np.linalg.norm(xi[:, :3], axis=1)[:, None]
    v = rng.normal(size=(5, 6))

    def apply(e: np.ndarray, transpose: bool) -> np.ndarray:
        T = tangent_inv_se3(xi + e)
        return ((np.swapaxes(T, -1, -2) if transpose else T) @ v[..., None])[..., 0]

    for fun, transpose in ((tangent_inv_derivative, False), (tangent_inv_transpose_derivative, True)):
        fd = np.stack([(apply(e, transpose) - apply(-e, transpose)) / (2 * EPS) for e in EPS * np.eye(6)], axis=-1)
        assert np.max(np.abs(fun(xi, v) - fd)) < 1e-8  # entries O(1): FD error ~1e-10
