"""Exact tangents of the rod (``HasTangents``): K = ∂g/∂q, D = ∂g/∂v, Z = ∂(Bᵀλ)/∂q, all along
left-translated directions w (q_i ∘ exp(ε w_i)), analytic through the group maps.

Symbols (kernels.py): per edge e = (a, b) = (i−1, i), ξ = log(q_a⁻¹ q_b), JJ = [Jm | Jp] = [−T(−ξ)⁻¹ | T(ξ)⁻¹]
(6, 12), so δξ = JJ [w_a; w_b]. The elastic + Kelvin–Voigt forces are f_a = Jmᵀσ, f_b = Jpᵀσ with
σ = C/Δs ξ − C w0 + C_d/Δs JJ [v_a; v_b]. With H(ξ, s) = ∂(T(ξ)⁻ᵀ s)/∂ξ and P(ξ, v) = ∂(T(ξ)⁻¹ v)/∂ξ
(``groups.tangent_derivatives``):

    K_e = JJᵀ (C/Δs) JJ + [H(−ξ, σ); H(ξ, σ)] JJ + JJᵀ (C_d/Δs) [P(ξ, v_b) + P(−ξ, v_a)] JJ      (12, 12)
    D_e = JJᵀ (C_d/Δs) JJ;   gyroscopic (Ω×JΩ, mΩ×U):  ∂/∂Ω = Ω̃J − (JΩ)~, −mŨ;  ∂/∂U = mΩ̃        (node)
    loads  g ∋ −f, f = Rᵀ(M, F) for spatial loads (nodal, distributed, gravity): K_i[:, Ω] = −[(RᵀM)~; (RᵀF)~]
           (d/dε (R e^{εw̃})ᵀ a = (Rᵀa)~ w); follower (body-frame) loads have no stiffness
    Z, internal rows (Kirchhoff, inextensible): Bᵀλ = JJ[rows]ᵀ λ_e, so Z_e = [H(−ξ, s_λ); H(ξ, s_λ)] JJ with
           s_λ ∈ R⁶ holding λ_e in the constrained components
    Z, support rows: the rod's analytic blocks (``support_rows.py``: rotation and translation rows in a frame)
    Z, any other constraint rows (a system without analytic support blocks): central differences of
           B(q ∘ exp(±εw))ᵀλ over a distance-2 colouring of the nodes those rows touch
           (``coloured_constraint_stiffness``; truncation O(ε²), ε = 1e-6: ~1e-12 relative)

Element blocks are scattered into one fixed block-tridiagonal CSR pattern (``assembly.block_tridiagonal``):
no Python loop over nodes or edges, O(N) work and memory.

References
----------
Seed 004 §4 eqs. (23)–(25) (strains, forces, constraints); Simo & Vu-Quoc (1986) §4 (geometric stiffness of
the exact rod: material + geometric parts); Sonneville, Cardona & Brüls (2014) §4 (tangent stiffness of the
SE(3) beam element through the derivative of T⁻ᵀ).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray
from lgbeam.groups.base import hat3
from lgbeam.groups.tangent_derivatives import (
    coefficients,
    tangent_inv_derivative,
    tangent_inv_transpose_derivative,
)

from . import assembly
from .loads import DistributedLoad, Gravity, NodalLoad

FD_EPS = 1e-6  # step of the coloured central-difference fallback (relative truncation ~ε² ≈ 1e-12)


@runtime_checkable
class SplitTangents(Protocol):
    """A system of several rods (``lgbeam.discretisations.frames.Structure``) seen by the static path follower
    and the modal analysis: its stiffness split into K_int(t, q) and ∂f/∂q of the loads, its constraint
    stiffness Z, the loads f, a static retraction q "∘" δw and the scales of the static residual. The
    functions below dispatch to it; a ``CosseratRod`` uses the kernels of this module."""

    # what the static path follower and the modal analysis read of any rod system (a ``CosseratRod`` has these too)
    @property
    def n_nodes(self) -> int: ...
    @property
    def n_dofs(self) -> int: ...
    @property
    def n_constraints(self) -> int: ...
    @property
    def G(self) -> Any: ...
    @property
    def q_ref(self) -> FloatArray: ...
    @property
    def loads(self) -> tuple[Any, ...]: ...
    def mass(self, q: FloatArray) -> sp.csr_array: ...
    def forces(self, t: float, q: FloatArray, v: FloatArray) -> FloatArray: ...
    def external_forces(self, t: float, q: FloatArray) -> FloatArray: ...
    def support_springs(self, t: float, q: FloatArray) -> sp.csr_array | None: ...
    def constraints_t(self, t: float, q: FloatArray) -> FloatArray: ...
    def constraint_jacobian_t(self, t: float, q: FloatArray) -> sp.csr_array: ...
    def _q(self, q: FloatArray) -> FloatArray: ...

    # what only a system of several rods has
    @property
    def length_scale(self) -> float: ...
    def force_scale(self, t: float) -> float: ...
    def internal_stiffness(self, t: float, q: FloatArray) -> Any: ...
    def load_stiffness(self, t: float, q: FloatArray) -> Any: ...
    def constraint_stiffness(self, t: float, q: FloatArray, lam: FloatArray) -> Any: ...
    def stress_stiffness(self, t: float, q: FloatArray, dq: FloatArray) -> Any: ...
    def static_retraction(self, q: FloatArray, dw: FloatArray) -> FloatArray: ...


def _pattern(rod: Any) -> assembly.CSRPattern:
    pat = rod.__dict__.get("_tangent_pattern")
    if pat is None:
        pat = assembly.block_tridiagonal(rod.n_nodes, 6)
        rod.__dict__["_tangent_pattern"] = pat  # a pure cache on the frozen rod (like cached_property)
    return pat


def _assemble(rod: Any, Ke: FloatArray | None, node: FloatArray | None) -> sp.csr_array:
    """CSR (6(N+1), 6(N+1)) from element blocks Ke (N, 12, 12) and node blocks (N+1, 6, 6) (either may be None)."""
    n = rod.n_nodes
    diag = np.zeros((n, 6, 6)) if node is None else np.array(node, dtype=float)
    if Ke is None:
        up = lo = np.zeros((n - 1, 6, 6))
    else:
        diag[:-1] += Ke[:, :6, :6]
        diag[1:] += Ke[:, 6:, 6:]
        up, lo = Ke[:, :6, 6:], Ke[:, 6:, :6]
    return _pattern(rod).matrix(np.concatenate([diag.ravel(), up.ravel(), lo.ravel()]))


def _pair_H(xi: FloatArray, s: FloatArray, JJ: FloatArray, compiled: bool = False) -> FloatArray:
    """[H(−ξ, s); H(ξ, s)] JJ, (N, 12, 12): the derivative of JJᵀ s at fixed s (``compiled``: one compiled loop
    over the edges, ``_compiled.pair_H``)."""
    if compiled:
        from ._compiled import pair_H

        xi = np.ascontiguousarray(xi, dtype=float)
        c, d, d1 = coefficients(np.sqrt(np.einsum("ei,ei->e", xi[:, :3], xi[:, :3])))
        return pair_H(xi, np.ascontiguousarray(s, dtype=float), np.ascontiguousarray(JJ, dtype=float),
                      np.ascontiguousarray(c, dtype=float), np.ascontiguousarray(d, dtype=float),
                      np.ascontiguousarray(d1, dtype=float))  # type: ignore[no-any-return]
    Hab = np.concatenate([tangent_inv_transpose_derivative(-xi, s), tangent_inv_transpose_derivative(xi, s)], axis=1)
    return Hab @ JJ  # the same as ``_compiled.pair_H_numpy``, the compiled kernel's reference


def _velocities(rod: Any, v: FloatArray | None) -> FloatArray | None:
    if v is None:
        return None
    V = np.asarray(v, dtype=float).reshape(rod.n_nodes, 6)
    return V if np.any(V) else None


def edge_blocks(xi: FloatArray, JJ: FloatArray, C_ds: FloatArray, Cw0: FloatArray, Cd_ds: FloatArray | None,
                Va: FloatArray | None, Vb: FloatArray | None, compiled: bool = False,
                s_extra: FloatArray | None = None) -> FloatArray:
    """K_e (E, 12, 12) of any set of E edges (a rod's, or every edge of a structure at once): ξ, JJ of the edges,
    C/Δs, C w0, C_d/Δs per edge, the velocities of their end nodes a and b (None: at rest). ``s_extra`` (E, 6): a
    stress added to σ in the [H(−ξ, ·); H(ξ, ·)] JJ term only (linear in it: the internal rows' multipliers, whose
    Z_e is that term at s_λ, in the same pass)."""
    sigma = C_ds * xi - Cw0
    rate = None
    if Va is not None and Vb is not None and Cd_ds is not None:
        rate = (JJ @ np.concatenate([Va, Vb], axis=1)[:, :, None])[:, :, 0]
        sigma = sigma + Cd_ds * rate
    Ke = np.swapaxes(JJ, 1, 2) @ (C_ds[:, :, None] * JJ) + _pair_H(xi, sigma if s_extra is None else sigma + s_extra,
                                                                 JJ, compiled)
    if rate is not None:
        assert Va is not None and Vb is not None and Cd_ds is not None
        dP = (tangent_inv_derivative(xi, Vb) + tangent_inv_derivative(-xi, Va)) @ JJ
        Ke += np.swapaxes(JJ, 1, 2) @ (Cd_ds[:, :, None] * dP)
    return Ke


def element_stiffness(rod: Any, q: FloatArray, v: FloatArray | None = None,
                      s_extra: FloatArray | None = None) -> FloatArray:
    """K_e (N, 12, 12) of the elastic and Kelvin–Voigt edge forces (module docstring); ``s_extra``: see
    ``edge_blocks``."""
    xi, JJ = rod._edges(rod._q(q))
    C_ds, Cw0, Cd_ds, _, _ = rod._kv
    V = _velocities(rod, v)
    return edge_blocks(xi, JJ, C_ds, Cw0, Cd_ds, None if V is None else V[:-1], None if V is None else V[1:],
                       bool(rod.compiled), s_extra)


def spatial_load_pairs(rod: Any, t: float) -> FloatArray | None:
    """Spatial (moment, force) per node (N+1, 6) of every spatial-frame load at time t, or None if none."""
    out = np.zeros((rod.n_nodes, 6))
    found = False
    w = rod.mass_weights
    for load, i in zip(rod.loads, rod._load_nodes, strict=True):
        if isinstance(load, NodalLoad) and load.frame == "spatial":
            out[i] += load.time(t) * load.pair
        elif isinstance(load, DistributedLoad) and load.frame == "spatial":
            out[:, 3:] += load.time(t) * w[:, None] * load.force
        elif isinstance(load, Gravity):
            out[:, 3:] += rod.node_mass[:, None] * load.acceleration
        else:
            continue
        found = True
    return out if found else None


def load_node_blocks(rod: Any, t: float, q: FloatArray) -> FloatArray | None:
    """∂f/∂w of the external loads per node (N+1, 6, 6) (f enters g as −f), or None (no spatial loads)."""
    pairs = spatial_load_pairs(rod, t)
    if pairs is None:
        return None
    R = rod.G.rotation(rod._q(q))
    body_m = np.einsum("nji,nj->ni", R, pairs[:, :3])
    body_f = np.einsum("nji,nj->ni", R, pairs[:, 3:])
    blocks = np.zeros((rod.n_nodes, 6, 6))
    blocks[:, :3, :3] = hat3(body_m)
    blocks[:, 3:, :3] = hat3(body_f)
    return blocks


def internal_stiffness(rod: Any, q: FloatArray, v: FloatArray | None = None, t: float = 0.0) -> sp.csr_array:
    """∂g_int/∂w (elastic + Kelvin–Voigt + spring supports; gyroscopic forces do not depend on q), CSR."""
    if isinstance(rod, SplitTangents):
        return sp.csr_array(rod.internal_stiffness(t, q))
    K = _assemble(rod, element_stiffness(rod, q, v), None)
    rows = getattr(rod, "support_rows", None)
    if rows is not None and rows.has_springs:
        K = (K + rod.support_stiffness(t, rod._q(q))).tocsr()
    return K


def directional_derivative(f: Callable[[FloatArray], Any], G: Any, q: FloatArray, dq: FloatArray,
                           length: float) -> sp.csr_array:
    """d/ds f(q ∘ exp(s dq))|₀ by a central difference with step h = 1e-4/|dq| (rotations in rad, translations
    / ``length``): relative truncation O(h²|dq|²) ≈ 1e-8; zero for dq = 0."""
    W = np.asarray(dq, dtype=float).reshape(-1, 6)
    size = float(np.max(np.abs(np.concatenate([W[:, :3], W[:, 3:] / length], axis=1)), initial=0.0))
    q = np.asarray(q, dtype=float).reshape(len(W), -1)
    if size == 0.0:
        return sp.csr_array(f(q) * 0.0)
    h = 1e-4 / size
    return sp.csr_array((f(G.compose(q, G.exp(h * W))) - f(G.compose(q, G.exp(-h * W)))) / (2.0 * h))


def stress_stiffness(rod: Any, q: FloatArray, dq: FloatArray, t: float = 0.0) -> sp.csr_array:
    """K_σ(σ₁): the initial-stress (geometric) stiffness of the first-order stresses of a displacement dq about a
    stress-free state q, CSR. Elastic edges: [H(−ξ, σ₁); H(ξ, σ₁)] JJ (the stress part of K_e) with
    σ₁ = (C/Δs) JJ [dq_a; dq_b]; spring supports: the central difference of their stiffness along dq
    (``directional_derivative``). Without the change of the material part JJᵀ(C/Δs)JJ along dq: that
    "initial-displacement" term carries EA, GA times the first-order rotations and gives spurious buckling
    loads (docs/modes.md)."""
    if isinstance(rod, SplitTangents):
        return sp.csr_array(rod.stress_stiffness(t, q, dq))
    q = rod._q(q)
    xi, JJ = rod._edges(q)
    W = np.asarray(dq, dtype=float).reshape(rod.n_nodes, 6)
    dxi = (JJ @ np.concatenate([W[:-1], W[1:]], axis=1)[:, :, None])[:, :, 0]
    K = _assemble(rod, _pair_H(xi, rod._kv[0] * dxi, JJ, bool(rod.compiled)), None)
    rows = getattr(rod, "support_rows", None)
    if rows is not None and rows.has_springs:
        K = (K + directional_derivative(lambda qq: rod.support_stiffness(t, qq), rod.G, q, W,
                                        rod.mesh.length)).tocsr()
    return sp.csr_array(K)


def load_stiffness(rod: Any, t: float, q: FloatArray) -> sp.csr_array:
    """∂f/∂w of the external loads f at time t (block diagonal CSR; zero for follower loads)."""
    if isinstance(rod, SplitTangents):
        return sp.csr_array(rod.load_stiffness(t, q))
    return _assemble(rod, None, load_node_blocks(rod, t, q))


def stiffness(rod: Any, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
    """K w = d/dε g(t, q ∘ exp(εw), v)|₀ without spring supports (``CosseratRod.stiffness`` adds them), CSR."""
    blocks = load_node_blocks(rod, t, q)
    return _assemble(rod, element_stiffness(rod, q, v), None if blocks is None else -blocks)


def gyroscopic_blocks(V: FloatArray, J: FloatArray, m: FloatArray) -> FloatArray:
    """∂/∂u of the gyroscopic forces per node (n, 6, 6) at the velocities V (n, 6) = (Ω, U), nodal rotary inertia
    J (n, 3) and mass m (n,)."""
    Om, U = V[:, :3], V[:, 3:]
    node = np.zeros((V.shape[0], 6, 6))
    node[:, :3, :3] = hat3(Om) * J[:, None, :] - hat3(J * Om)
    node[:, 3:, :3] = -m[:, None, None] * hat3(U)
    node[:, 3:, 3:] = m[:, None, None] * hat3(Om)
    return node


def damping(rod: Any, q: FloatArray, v: FloatArray) -> sp.csr_array:
    """D u = d/dε g(t, q, v + εu)|₀: Kelvin–Voigt JJᵀ (C_d/Δs) JJ plus the gyroscopic node blocks, CSR."""
    _, _, Cd_ds, J, m = rod._kv
    node = gyroscopic_blocks(np.asarray(v, dtype=float).reshape(rod.n_nodes, 6), J, m)
    Ke = None
    if Cd_ds is not None:
        _, JJ = rod._edges(rod._q(q))
        Ke = np.swapaxes(JJ, 1, 2) @ (Cd_ds[:, :, None] * JJ)
    return _assemble(rod, Ke, node)


def constraint_stiffness(rod: Any, t: float, q: FloatArray, lam: FloatArray) -> sp.csr_array:
    """Z w = d/dε B(t, q ∘ exp(εw))ᵀ λ|₀ (``HasTangents.constraint_stiffness``), CSR (module docstring).

    Internal rows here; support rows from the rod's ``support_constraint_stiffness`` (analytic, support_rows.py)
    when it has one, else by ``coloured_constraint_stiffness``."""
    if isinstance(rod, SplitTangents):
        return sp.csr_array(rod.constraint_stiffness(t, q, lam))
    q = rod._q(q)
    lam = np.asarray(lam, dtype=float)
    nr, n_int = len(rod.internal_rows), rod.n_internal
    Ke = None
    if nr:
        xi, JJ = rod._edges(q)
        s = np.zeros((rod.mesh.n_elements, 6))
        s[:, rod._rows_index] = lam[:n_int].reshape(-1, nr)
        Ke = _pair_H(xi, s, JJ, bool(rod.compiled))
    Z = _assemble(rod, Ke, None)
    if rod.n_constraints > n_int:
        analytic = getattr(rod, "support_constraint_stiffness", None)
        if analytic is not None:
            Z = Z + analytic(t, q, lam)
        else:
            lam_s = lam.copy()
            lam_s[:n_int] = 0.0
            Z = Z + coloured_constraint_stiffness(rod, t, q, lam_s)
    return sp.csr_array(Z)


def _perturb(rod: Any, q: FloatArray, eta: FloatArray) -> FloatArray:
    return rod.G.compose(q, rod.G.exp(eta.reshape(rod.n_nodes, 6)))


def _distance2_colouring(node_rows: list[np.ndarray], n_nodes: int) -> list[np.ndarray]:
    """Colour the nodes that rows touch so that no two nodes of one colour share a neighbour (nodes are
    neighbours when some row touches both): then the columns of one colour have disjoint row supports."""
    touched = sorted({int(j) for r in node_rows for j in r})
    nbrs: dict[int, set[int]] = {j: set() for j in touched}
    for r in node_rows:
        for j in r:
            nbrs[int(j)].update(int(k) for k in r)
    colour: dict[int, int] = {}
    for j in touched:  # support rows: a handful of nodes, not a hot path
        near = {colour[k2] for k in nbrs[j] for k2 in nbrs[k] if k2 in colour}
        colour[j] = next(c for c in range(len(touched) + 1) if c not in near)
    n_col = max(colour.values(), default=-1) + 1
    return [np.array([j for j in touched if colour[j] == c], dtype=np.intp) for c in range(n_col)]


def coloured_constraint_stiffness(rod: Any, t: float, q: FloatArray, lam: FloatArray,
                                  eps: float = FD_EPS) -> sp.csr_array:
    """Z by central differences of w ↦ B(t, q ∘ exp(±εw))ᵀλ, columns grouped by a distance-2 colouring of
    the nodes that the rows with λ ≠ 0 touch (6 × 2 × colours evaluations of B). The generic fallback for
    constraint rows without an analytic Z; error O(ε²)."""
    q = rod._q(q)
    n = rod.n_nodes
    jac: Callable[[float, FloatArray], Any] = (getattr(rod, "constraint_jacobian_t", None)
                                               or (lambda tt, qq: rod.constraint_jacobian(qq)))
    B = sp.csr_array(jac(t, q))
    active = np.flatnonzero(lam)
    if active.size == 0:
        return sp.csr_array((6 * n, 6 * n))
    node_rows = [np.unique(B.indices[B.indptr[r]: B.indptr[r + 1]] // 6) for r in active]
    rows_out, cols_out, vals_out = [], [], []
    for group in _distance2_colouring(node_rows, n):
        for j in range(6):
            eta = np.zeros((n, 6))
            eta[group, j] = eps
            d = (sp.csr_array(jac(t, _perturb(rod, q, eta))).T @ lam
                 - sp.csr_array(jac(t, _perturb(rod, q, -eta))).T @ lam) / (2.0 * eps)
            d = d.reshape(n, 6)
            for k in group:  # rows of column (k, j): the nodes sharing a row with node k
                near = np.unique(np.concatenate([r for r in node_rows if k in r]))
                rows_out.append((6 * near[:, None] + np.arange(6)).ravel())
                cols_out.append(np.full(6 * near.size, 6 * k + j))
                vals_out.append(d[near].ravel())
    return sp.coo_array((np.concatenate(vals_out), (np.concatenate(rows_out), np.concatenate(cols_out))),
                        shape=(6 * n, 6 * n)).tocsr()

