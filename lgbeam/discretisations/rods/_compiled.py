"""Compiled (numba) twins of the rod kernels (``kernels.py``, ``loads.py``) and the rod's fused diagnostics.

Each kernel is a loop over edges or nodes doing the arithmetic of its numpy reference, on the per-element
S³⋉R³ kernels of ``lgbeam.groups.compiled_kernels``; ``KERNELS`` has the signatures of
``kernels.NUMPY_KERNELS`` (``CosseratRod(compiled=...)`` picks one of the two), ``TWINS`` pairs each
kernel with its reference for ``tests/test_jit.py``.
"""

from __future__ import annotations

import math

import numpy as np

from lgbeam._numba import Twin, njit
from lgbeam._typing import FloatArray
from lgbeam.groups import compiled_kernels as gk

from . import kernels, loads


@njit
def edge_kinematics(q):  # type: ignore[no-untyped-def]
    """xi_e = log(q_{e}⁻¹ q_{e+1}) (N, 6) and JJ_e = [Jm | Jp] (N, 6, 12), as ``kernels.edge_kinematics``."""
    ne = q.shape[0] - 1
    xi = np.empty((ne, 6))
    JJ = np.empty((ne, 6, 12))
    for e in range(ne):
        a0, a1, a2, a3 = q[e, 0], -q[e, 1], -q[e, 2], -q[e, 3]  # conj(p_a)
        b0, b1, b2, b3 = q[e + 1, 0], q[e + 1, 1], q[e + 1, 2], q[e + 1, 3]
        r0 = a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3
        r1 = a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2
        r2 = a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1
        r3 = a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0
        x0, x1, x2 = gk.rotate(a0, a1, a2, a3, q[e + 1, 4] - q[e, 4], q[e + 1, 5] - q[e, 5], q[e + 1, 6] - q[e, 6])
        w0, w1, w2 = gk.quat_log1(r0, r1, r2, r3)
        c = gk.tinv_c(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
        u0, u1, u2 = gk.tinv_so3(-w0, -w1, -w2, c, x0, x1, x2)
        xi[e, 0], xi[e, 1], xi[e, 2], xi[e, 3], xi[e, 4], xi[e, 5] = w0, w1, w2, u0, u1, u2
        gk.tinv_pair1(xi[e], JJ[e])
    return xi, JJ


@njit
def _edge_forces(xi, JJ, V, ia, C_ds, Cw0, Cd_ds, damped, J, m):  # type: ignore[no-untyped-def]
    """Elastic + Kelvin–Voigt + gyroscopic nodal forces (n_nodes, 6) of the edges e joining nodes ia[e] and
    ia[e] + 1 (ξ, JJ indexed by ia[e]; C per edge e): a rod (ia = 0 … N−1) or every rod of a structure.

    sigma_e = C_ds xi_a − Cw0 (+ Cd_ds · JJ_a [v_a; v_{a+1}]); g_a += Jmᵀσ, g_{a+1} += Jpᵀσ;
    g_i += (Ω × JΩ, m Ω × U)."""
    nn = V.shape[0]
    g = np.zeros((nn, 6))
    sig = np.empty(6)
    for e in range(ia.shape[0]):
        a = ia[e]
        for i in range(6):
            s = C_ds[e, i] * xi[a, i] - Cw0[e, i]
            if damped:
                rate = 0.0
                for j in range(6):
                    rate += JJ[a, i, j] * V[a, j] + JJ[a, i, 6 + j] * V[a + 1, j]
                s += Cd_ds[e, i] * rate
            sig[i] = s
        for j in range(6):
            fa = 0.0
            fb = 0.0
            for i in range(6):
                fa += sig[i] * JJ[a, i, j]
                fb += sig[i] * JJ[a, i, 6 + j]
            g[a, j] += fa
            g[a + 1, j] += fb
    for n in range(nn):
        o0, o1, o2, u0, u1, u2 = V[n, 0], V[n, 1], V[n, 2], V[n, 3], V[n, 4], V[n, 5]
        j0, j1, j2 = J[n, 0] * o0, J[n, 1] * o1, J[n, 2] * o2
        c0, c1, c2 = gk.cross(o0, o1, o2, j0, j1, j2)
        d0, d1, d2 = gk.cross(o0, o1, o2, u0, u1, u2)
        g[n, 0] += c0
        g[n, 1] += c1
        g[n, 2] += c2
        g[n, 3] += m[n] * d0
        g[n, 4] += m[n] * d1
        g[n, 5] += m[n] * d2
    return g


@njit
def _internal_forces(xi, JJ, V, C_ds, Cw0, Cd_ds, damped, J, m):  # type: ignore[no-untyped-def]
    """Elastic + Kelvin–Voigt + gyroscopic nodal forces (N+1, 6) of a rod, as ``kernels.internal_forces``
    (``_edge_forces`` with ia = 0 … N−1)."""
    return _edge_forces(xi, JJ, V, np.arange(xi.shape[0]), C_ds, Cw0, Cd_ds, damped, J, m)


@njit
def _elastic_energy(xi, ds, w0, C):  # type: ignore[no-untyped-def]
    """Σ_e Δs_e ½ Σ_k C_k (xi_ek/Δs_e − w0_ek)², as ``kernels.elastic_energy`` (C the diagonal stiffness)."""
    V = 0.0
    for e in range(xi.shape[0]):
        s = 0.0
        for k in range(6):
            dw = xi[e, k] / ds[e] - w0[e, k]
            s += C[k] * dw * dw
        V += 0.5 * ds[e] * s
    return V


@njit
def step_residuals(xi, JJ, q, V, rows, phi_ref, ds, w0, C, mass_diag, node_mass, gvec):  # type: ignore[no-untyped-def]
    """(‖Φ‖, ‖B v‖, T + V) of a rod whose constraints are the internal rows ``rows`` of every edge:
    Φ_e = xi_e[rows] − phi_ref_e, (B v)_e = JJ_e[rows] [v_e; v_{e+1}], T = ½ Σ M_ii v_i², V elastic
    (``elastic_energy``) − Σ m_i γ·x_i."""
    phi2 = 0.0
    bv2 = 0.0
    for e in range(xi.shape[0]):
        for r in range(rows.shape[0]):
            k = rows[r]
            d = xi[e, k] - phi_ref[e, r]
            phi2 += d * d
            b = 0.0
            for j in range(6):
                b += JJ[e, k, j] * V[e, j] + JJ[e, k, 6 + j] * V[e + 1, j]
            bv2 += b * b
    T = 0.0
    for i in range(V.shape[0]):
        for j in range(6):
            T += 0.5 * mass_diag[6 * i + j] * V[i, j] * V[i, j]
    G = 0.0
    for i in range(q.shape[0]):
        G += node_mass[i] * (gvec[0] * q[i, 4] + gvec[1] * q[i, 5] + gvec[2] * q[i, 6])
    return math.sqrt(phi2), math.sqrt(bv2), T + _elastic_energy(xi, ds, w0, C) - G


@njit
def _rotate_pairs(p, a):  # type: ignore[no-untyped-def]
    """(R(p_i) a_i[:3], R(p_i) a_i[3:]) for (n, 4) unit quaternions and (n, 6) vector pairs."""
    out = np.empty((p.shape[0], 6))
    for i in range(p.shape[0]):
        for k in range(0, 6, 3):
            r0, r1, r2 = gk.rotate(p[i, 0], p[i, 1], p[i, 2], p[i, 3], a[i, k], a[i, k + 1], a[i, k + 2])
            out[i, k], out[i, k + 1], out[i, k + 2] = r0, r1, r2
    return out


@njit
def _add_nodal_loads(body, p, idx, vec, is_spatial, scale):  # type: ignore[no-untyped-def]
    """body[idx_k] += s_k vec_k, rotated by R(p_idx_k)ᵀ first when ``is_spatial[k]`` (in place)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        s = scale[k]
        for b in range(0, 6, 3):
            a0, a1, a2 = s * vec[k, b], s * vec[k, b + 1], s * vec[k, b + 2]
            if is_spatial[k]:
                a0, a1, a2 = gk.rotate(p[i, 0], -p[i, 1], -p[i, 2], -p[i, 3], a0, a1, a2)
            body[i, b] += a0
            body[i, b + 1] += a1
            body[i, b + 2] += a2


# --------------------------------------------------------------------------- the signatures of kernels.py
def internal_forces(
    xi: FloatArray, JJ: FloatArray, V: FloatArray, C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray | None,
    J: FloatArray, m: FloatArray,
) -> FloatArray:
    """``kernels.internal_forces`` in one compiled loop."""
    damped = Cd_ds is not None
    return _internal_forces(xi, JJ, np.ascontiguousarray(V), C_ds, Cw0, Cd_ds if damped else C_ds, damped, J, m)


def elastic_energy(xi: FloatArray, ds: FloatArray, w0: FloatArray, C: FloatArray) -> float:
    """``kernels.elastic_energy`` in one compiled loop."""
    return float(_elastic_energy(np.ascontiguousarray(xi, dtype=float), np.asarray(ds, dtype=float),
                                 np.ascontiguousarray(w0, dtype=float), np.asarray(C, dtype=float)))


def rotate_pairs(p: FloatArray, a: FloatArray) -> FloatArray:
    """``loads.rotate_pairs`` in one compiled loop."""
    return _rotate_pairs(np.ascontiguousarray(p, dtype=float), np.ascontiguousarray(a, dtype=float))


def add_nodal_loads(
    body: FloatArray, p: FloatArray, idx: np.ndarray, vec: FloatArray, is_spatial: np.ndarray, scale: FloatArray
) -> None:
    """``loads.add_nodal_loads`` (in place) in one compiled loop."""
    _add_nodal_loads(body, np.ascontiguousarray(p, dtype=float), idx, vec, is_spatial, scale)


LOADS = loads.LoadKernels(rotate_pairs, add_nodal_loads)
KERNELS = kernels.RodKernels(edge_kinematics, internal_forces, elastic_energy, step_residuals, LOADS)


# --------------------------------------------------------------------------- kernel / reference pairs
def _configuration(rng: np.random.Generator, n: int = 12) -> FloatArray:
    """(n, 7) frames along a bent, twisted line: edges of length ~0.1, turning by ~1 rad."""
    out = np.empty((n, 7))
    out[0] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    for i in range(1, n):
        step = gk.s3r3_exp(np.concatenate([0.6 * rng.normal(size=3), [0.0, 0.0, 0.1] + 0.02 * rng.normal(size=3)])[None])
        out[i] = gk.s3r3_compose(out[i - 1:i], step)[0]
    return out


def _forces_sample(rng: np.random.Generator, damped: bool) -> tuple:  # type: ignore[type-arg]
    xi, JJ = kernels.edge_kinematics(_configuration(rng))
    ne = xi.shape[0]
    C_ds, Cd_ds = rng.uniform(1.0, 10.0, (ne, 6)), rng.uniform(0.1, 1.0, (ne, 6))
    return (xi, JJ, rng.normal(size=(ne + 1, 6)), C_ds, rng.normal(size=(ne, 6)), Cd_ds if damped else None,
            rng.uniform(0.1, 1.0, (ne + 1, 3)), rng.uniform(0.5, 2.0, ne + 1))


def _energy_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    return (rng.normal(size=(11, 6)), rng.uniform(0.05, 0.2, 11), rng.normal(size=(11, 6)), rng.uniform(1.0, 9.0, 6))


def _loads_sample(rng: np.random.Generator) -> tuple:  # type: ignore[type-arg]
    idx = np.array([2, 2, 5, 0], dtype=np.intp)
    return (rng.normal(size=(6, 6)), _configuration(rng, 6), idx, rng.normal(size=(4, 6)),
            np.array([True, False, True, True]), rng.normal(size=4))


def _returning(add):  # type: ignore[no-untyped-def]
    """An in-place ``add_nodal_loads`` as a function returning the updated copy of ``body``."""
    def apply(body, *args):  # type: ignore[no-untyped-def]
        body = body.copy()
        add(body, *args)
        return body
    return apply


TWINS: tuple[Twin, ...] = (
    Twin("edge_kinematics", edge_kinematics, kernels.edge_kinematics, lambda rng: (_configuration(rng),)),
    Twin("internal_forces", internal_forces, kernels.internal_forces, lambda rng: _forces_sample(rng, False), 1e-12),
    Twin("internal_forces (damped)", internal_forces, kernels.internal_forces, lambda rng: _forces_sample(rng, True),
         1e-12),
    Twin("elastic_energy", elastic_energy, kernels.elastic_energy, _energy_sample),
    Twin("rotate_pairs", rotate_pairs, loads.rotate_pairs,
         lambda rng: (_configuration(rng, 8)[:, :4], rng.normal(size=(8, 6)))),
    Twin("add_nodal_loads", _returning(add_nodal_loads), _returning(loads.add_nodal_loads), _loads_sample),
)
"""Every compiled rod kernel with its numpy reference and a sample (``step_residuals`` has none: it is
checked against the driver's generic evaluation in ``tests/test_jit.py``)."""
