"""Modes and linear buckling of the actual rod (any geometry and supports), about its reference or about a
loaded static state (pre-stress). A structure of rods with joints (``lgbeam.discretisations.frames.Structure``)
runs unchanged: its K_int, ∂f/∂q and Z come through ``tangents.SplitTangents`` and its size
(``length_scale``) takes the place of the rod length L (docs/frames.md, docs/modes.md "Frames").

Modes. The linearisation of M v' + g + Bᵀλ = 0, Φ = 0 about an equilibrium (q*, λ*, μ) with v = 0 is

    M w'' + K_t w + Bᵀ δλ = 0,  B w = 0,   K_t = K_int(q*) − μ ∂f/∂q + Z(q*, λ*)     (``tangents.py``)

so the frequencies solve K_t φ = ω² M φ on ker B, by ARPACK shift-invert on the saddle-point pencil
(``stability.constrained_eigs``). With a compressive pre-stress the first ω² falls linearly with the load
(ω² = ω₀²(1 − P/P_cr) for the pinned–pinned column) and vanishes at buckling; ω² < 0 means an unstable state.

Linear buckling. About the stress-free reference q₀ the first-order load path is q(μ) = q₀ ∘ exp(μΔ),
λ(μ) = μλ₁ with [[K₀, Bᵀ], [B, 0]] [Δ; λ₁] = [f; 0], with the first-order stresses σ₁ = (C/Δs) δξ[Δ] of the
edges, and the classical linearised buckling problem (pre-buckling deformations neglected) is

    (K₀ + μ K_G) φ = 0 on ker B,   K_G = K_σ(σ₁) − ∂f/∂q + Z(q₀, λ₁)

with K_σ the initial-stress (geometric) part of the edge tangent, [H(−ξ, σ₁); H(ξ, σ₁)] JJ
(``tangents.stress_stiffness``; springs: their stiffness differentiated along Δ), ∂f/∂q of the loads and
Z of the multipliers (the constrained stress components, joint forces), all exact. The change of the material
part JJᵀ(C/Δs)JJ along Δ (the "initial-displacement" matrix) is left out: it carries EA and GA times the
first-order rotations, and with it the straight cantilever under a transverse tip load "buckled" at 1/500 of
its lateral-torsional load (docs/modes.md). With ν = 1/μ, −K_G φ = ν K₀ φ, whose largest ν are found by
ARPACK on the operator x ↦ K₀⁻¹(−K_G x) restricted to ker B (one sparse LU of the KKT matrix of K₀).

References
----------
Géradin & Rixen (2015) Mechanical Vibrations §2.4 (constrained eigenproblems); Bathe (2014) FE Procedures
§6.8.2 (linearised buckling analysis); Timoshenko & Gere (1961) §2.1 (P_cr = π²EI/L²), ch. 6 (lateral
buckling of a cantilever under an end load, 4.013√(EI GJ)/L²) and Bažant & Cedolin (1991) §2.1
(ω² = ω₀²(1 − P/P_cr)).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._sparse import arpack_start
from lgbeam._typing import FloatArray

from . import stability, tangents
from .loads import NodalLoad
from .rod import CosseratRod
from .tangents import SplitTangents

RodSystem = CosseratRod | SplitTangents
"""What the modal analysis and the static path follower run: one rod, or several joined (a frame's ``Structure``)."""

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RodModes:
    """ω² ascending (negative: unstable), ω = sign(ω²)·√|ω²| (rad/s), shapes (n, N+1, 6) body-frame (Ω, U)
    with φᵀMφ = 1, and the configuration they are about."""

    omega2: FloatArray
    shapes: FloatArray
    q: FloatArray

    @property
    def omega(self) -> FloatArray:
        return np.sign(self.omega2) * np.sqrt(np.abs(self.omega2))


@dataclass(frozen=True)
class Buckling:
    """Linear buckling load factors μ (ascending, positive: the loads times μ buckle the rod) and mode shapes
    (n, N+1, 6), normalised to a largest rotation or translation / L of 1."""

    load_factors: FloatArray
    shapes: FloatArray


def length_scale(rod: Any) -> float:
    """The length that makes rotations and translations comparable: the rod's length, or a structure's size
    (``tangents.SplitTangents.length_scale``: its largest extent, at least its longest rod)."""
    return float(rod.length_scale) if isinstance(rod, tangents.SplitTangents) else float(rod.mesh.length)


def _weights(rod: Any) -> FloatArray:
    """(6 n_nodes,) weights (1, 1, 1, 1/L, 1/L, 1/L) per node: rotations in rad, translations / L."""
    return np.tile(np.r_[np.ones(3), np.full(3, 1.0 / length_scale(rod))], rod.n_nodes)


def tangent(rod: RodSystem, q: FloatArray, lam: FloatArray | None, load_factor: float, t: float = 0.0) -> sp.csr_array:
    """K_t = K_int(q) − μ ∂f/∂q + Z(q, λ) (the static tangent; λ None: zero multipliers)."""
    q = rod._q(q)
    K = tangents.internal_stiffness(rod, q, t=t)
    if rod.loads and load_factor != 0.0:
        K = K - load_factor * tangents.load_stiffness(rod, t, q)
    if rod.n_constraints and lam is not None and np.any(lam):
        K = K + tangents.constraint_stiffness(rod, t, q, lam)
    return sp.csr_array(K)


def _constraints(rod: RodSystem, q: FloatArray, t: float) -> sp.csr_array:
    return sp.csr_array(rod.constraint_jacobian_t(t, q)) if rod.n_constraints else sp.csr_array((0, 6 * rod.n_nodes))


def _check_modes(rod: RodSystem, n: int, what: str) -> None:
    n_free = 6 * rod.n_nodes - rod.n_constraints
    if not (isinstance(n, (int, np.integer)) and 1 <= n <= n_free - 2):
        raise ValueError(f"the number of {what} must be an integer in [1, {n_free - 2}] for this rod "
                         f"({n_free} free degrees of freedom), got {n!r}")


def modes(rod: RodSystem, n_modes: int, *, q: FloatArray | None = None, lam: FloatArray | None = None,
          load_factor: float = 0.0, t: float = 0.0) -> RodModes:
    """The ``n_modes`` lowest modes about (q, λ, μ) (default: the reference, unloaded) (module docstring).

    Raises ValueError naming the free rigid motions if the supports leave any."""
    _check_modes(rod, n_modes, "modes")
    q = rod._q(rod.q_ref if q is None else q)
    B = _constraints(rod, q, t)
    stability.check_no_rigid_motion(rod.G, q, B, "a modal analysis", springs=rod.support_springs(t, q),
                                    parts=rod.parts() if hasattr(rod, "parts") else None)
    K, M = tangent(rod, q, lam, load_factor, t), sp.csr_array(rod.mass(q))
    shift = -1e-8 * float(np.max(np.abs(K.diagonal()))) / float(np.max(M.diagonal()))
    res = stability.constrained_eigs(K, M, B, n_modes, sigma=shift)
    if not stability.is_symmetric(K):
        logger.warning("the tangent is not symmetric (follower loads or spatial moments): modes of its symmetric part")
    return RodModes(omega2=res.values, shapes=res.vectors.reshape(n_modes, rod.n_nodes, 6), q=q)


@dataclass(frozen=True)
class Participation:
    """Modal participation per mode and global direction x, y, z: factors Γ = φᵀM r / φᵀMφ (kg^½ for M-normalised
    φ), effective masses Γ²φᵀMφ (kg), and the structure's total mass (kg)."""

    gamma: FloatArray  # (n, 3)
    effective_mass: FloatArray  # (n, 3)
    total_mass: float

    @property
    def cumulative_fraction(self) -> FloatArray:
        """(n, 3) Σ_{j ≤ k} effective mass / total mass."""
        return np.cumsum(self.effective_mass, axis=0) / self.total_mass


def participation(rod: Any, shapes: FloatArray, q: FloatArray | None = None) -> Participation:
    """Participation of mode shapes (n, n_nodes, 6) (body-frame (Ω, U), any normalisation) in a unit rigid
    translation r_e of the whole structure along each global axis e: r_e = (0, R_iᵀe) at every node,
    Γ_e = φᵀM r_e / φᵀMφ, m_eff = (φᵀM r_e)²/φᵀMφ. Summed over all the modes of a constrained system, m_eff is
    r_eᵀM P r_e (P the M-orthogonal projection onto ker B): the total mass less what the supports hold
    (Chopra, Dynamics of Structures, §13.2 (modal participation), Clough & Penzien §26-2)."""
    q = rod._q(rod.q_ref if q is None else q)
    R = rod.G.rotation(q)  # (n_nodes, 3, 3)
    M = rod.mass(q)  # lumped (diagonal) or consistent (corotational frames): the same formulas with the full M
    phi = np.asarray(shapes, dtype=float).reshape(len(shapes), -1)
    r = np.zeros((3, rod.n_nodes, 6))
    r[:, :, 3:] = np.einsum("nej->enj", R)  # r_e = (0, R_iᵀ e) at every node: row e of R_i
    Mr = np.stack([M @ r[e].ravel() for e in range(3)], axis=1)  # (6n, 3)
    L = phi @ Mr  # φᵀ M r_e
    mm = np.einsum("kj,kj->k", phi, (M @ phi.T).T)
    total = float(r[0].ravel() @ Mr[:, 0])
    return Participation(gamma=L / mm[:, None], effective_mass=L * L / mm[:, None], total_mass=total)


def linear_path(rod: RodSystem, t: float = 0.0) -> tuple[FloatArray, FloatArray, sp.csr_array, sp.csr_array, Any]:
    """(Δ, λ₁, K₀, B, LU of the KKT matrix of K₀) of the first-order load path about the reference."""
    q0 = rod.q_ref
    B = _constraints(rod, q0, t)
    stability.check_no_rigid_motion(rod.G, q0, B, "a buckling analysis", springs=rod.support_springs(t, q0),
                                    parts=rod.parts() if hasattr(rod, "parts") else None)
    K0 = tangent(rod, q0, None, 0.0, t)
    n, m = K0.shape[0], B.shape[0]
    A = sp.block_array([[K0, B.T], [B, None]], format="csc") if m else K0.tocsc()
    lu = spla.splu(A)
    f = rod.external_forces(t, q0)
    if not np.any(f):
        raise ValueError("a buckling analysis needs loads (the reference pattern that the load factors multiply); "
                         "add loads to the case")
    x = lu.solve(np.concatenate([f, np.zeros(m)]))
    return x[:n], x[n:], K0, B, lu


def geometric_stiffness(rod: RodSystem, dq: FloatArray, lam1: FloatArray, t: float = 0.0) -> sp.csr_array:
    """K_G = K_σ(σ₁) − ∂f/∂q + Z(q₀, λ₁) at the reference (module docstring)."""
    q0 = rod.q_ref
    KG = tangents.stress_stiffness(rod, q0, dq, t)
    if rod.loads:
        KG = KG - tangents.load_stiffness(rod, t, q0)
    if rod.n_constraints:
        KG = KG + tangents.constraint_stiffness(rod, t, q0, lam1)
    return sp.csr_array(KG)


NU_ZERO = 1e-10  # an eigenvalue ν = 1/μ below this fraction of the largest |ν| is zero (no buckling load)


def _has_moments(rod: Any) -> bool:
    return any(isinstance(ld, NodalLoad) and np.any(ld.moment) for r in getattr(rod, "members", (rod,))
               for ld in r.loads)


def no_buckling_message(rod: Any, vals: np.ndarray, negative: np.ndarray) -> str:
    """The one line when −K_G φ = ν K₀ φ has no real ν > 0 (issue 31 item 4): the loads buckle the structure only
    reversed (real ν < 0: then reversing them is the answer), or nodal moments, which are not conservative in
    3-D, make every ν complex (flutter: no static critical load), or the loads only stiffen it."""
    if np.any(negative):
        mu = -1.0 / float(np.min(vals.real[negative]))
        return (f"no positive buckling load factor: these loads buckle the structure only reversed (first at load "
                f"factor {-mu:.6g}); reverse the loads to analyse that")
    if _has_moments(rod) and np.any(~negative & (np.abs(vals.imag) > 1e-8 * np.abs(vals))):
        return ("no real buckling load factor: the eigenvalues are complex because a nodal moment (frame "
                "\"spatial\": a fixed axis, or \"body\": a follower) is not a conservative load in 3-D, and here it "
                "has no static critical load (e.g. a cantilever under an end moment: its stability is a question of "
                "dynamics, flutter); "
                "give the moment as a couple of spatial forces (conservative), or follow the static path "
                "(analysis.method = \"arc-length\") with an imperfection")
    return "no buckling load factor: the loads do not compress the structure (they only stiffen it)"


def buckling(rod: RodSystem, n_modes: int = 1, *, t: float = 0.0) -> Buckling:
    """The ``n_modes`` smallest positive linear buckling load factors of the rod's loads at time t."""
    _check_modes(rod, n_modes, "buckling modes")
    dq, lam1, K0, B, lu = linear_path(rod, t)
    KG = geometric_stiffness(rod, dq, lam1, t)
    n, m = K0.shape[0], B.shape[0]

    def op(x: FloatArray) -> FloatArray:
        return lu.solve(np.concatenate([-(KG @ x), np.zeros(m)]))[:n]

    if n <= stability.DENSE_EIGS:  # a handful of elements: all eigenpairs densely (ARPACK may not converge)
        import scipy.linalg as sla

        KGd = KG.toarray() if sp.issparse(KG) else np.asarray(KG)
        K0d = K0.toarray() if sp.issparse(K0) else np.asarray(K0)
        Z = stability.null_basis(B, n)
        A, M0 = -(Z.T @ KGd @ Z), Z.T @ K0d @ Z  # −K_G φ = ν K₀ φ on ker B, K₀ positive definite there
        if np.abs(A - A.T).max() <= 1e-12 * np.abs(A).max():
            nu_all, y = sla.eigh(0.5 * (A + A.T), M0)
            vals, vecs = nu_all.astype(complex), (Z @ y).astype(complex)
        else:  # follower loads: K_G is not symmetric
            vals, y = sla.eig(A, M0)
            vecs = Z @ y
    else:
        k = min(max(2 * n_modes + 2, 6), n - m - 2)
        vals, vecs = spla.eigs(spla.LinearOperator((n, n), matvec=op, dtype=float), k=k, which="LR", v0=arpack_start(n))
    real = np.abs(vals.imag) <= 1e-8 * np.abs(vals)
    tiny = NU_ZERO * float(np.max(np.abs(vals), initial=0.0))  # ν ≈ 0: μ = 1/ν is round-off, not a load
    keep = real & (vals.real > tiny)
    if not np.any(keep):
        raise ValueError(no_buckling_message(rod, vals, real & (vals.real < -tiny)))
    nu, phi = vals.real[keep], vecs.real[:, keep]
    order = np.argsort(-nu)[:n_modes]
    mu = 1.0 / nu[order]
    phi = phi[:, order].T
    phi = phi / np.max(np.abs(phi * _weights(rod)), axis=1, keepdims=True)
    return Buckling(load_factors=mu, shapes=phi.reshape(-1, rod.n_nodes, 6))


def shape_configurations(rod: RodSystem, q: FloatArray, shape: FloatArray, amplitude: float) -> FloatArray:
    """q ∘ exp(a φ) for a mode shape φ (N+1, 6), scaled so that the largest displacement is ``amplitude``."""
    G = rod.G
    disp = np.linalg.norm(np.einsum("nij,nj->ni", G.rotation(q), shape[:, 3:]), axis=1).max()
    rot = np.abs(shape[:, :3]).max() * length_scale(rod)
    a = amplitude / max(disp, rot, 1e-300)
    return G.compose(q, G.exp(a * shape))
