"""Cubic NLS with Lagrange finite elements (scikit-fem), as a semilinear Poisson system.

    i ψ_t + ψ_xx + κ |ψ|² ψ = 0   on (0, L),   ψ(0, t) = ψ(L, t) = 0,

κ > 0 focusing, κ < 0 defocusing; the thesis's equation (seed 003 eq. (2.16)) is κ = −2 (the
spectral ``NLS(kappa=κ_s)`` writes −2κ_s, so κ = −2κ_s). With ψ_h = Σ_j (q_j + i p_j) φ_j over the
interior P1/P2 DOFs, the Galerkin equations i M ψ' = K ψ − κ N(ψ), N_j = ∫ |ψ_h|² ψ_h φ_j, are the
Poisson system (seed 003 eq. (2.5) with J → S, D → A)

    y = (q; p) ∈ R^{2n},   y' = S (A y + ∇U(y)),
    S = [[0, M⁻¹], [−M⁻¹, 0]],   A = diag(K, K),   U(y) = −κ/4 ∫ |ψ_h|⁴ dx,
    H(y) = ½ yᵀ A y + U(y) = ½ ∫ |ψ_h,x|² dx − κ/4 ∫ |ψ_h|⁴ dx,

with K_ij = ∫ φ_i' φ_j', M_ij = ∫ φ_i φ_j (``mass="consistent"``; ∫|ψ_h|⁴ by Gauss quadrature exact
for the degree-4p integrand) or M = diag(row sums) and ∫|ψ_h|⁴ ≈ Σ m_j |ψ_j|⁴ (``mass="lumped"``:
nodal quadrature for both). S is skew (also in the M-weighted inner product, where 𝕄S = J), A is
symmetric, but SA ≠ AS in nodal coordinates unless M⁻¹K = KM⁻¹.

Diagonalisation: K Φ = M Φ diag(μ), Φᵀ M Φ = I (``scipy.linalg.eigh`` on the dense (n, n)
matrices, so n ≤ ``MAX_DENSE_DOFS``). With P = diag(Φ, Φ) and y = P z, the system becomes
z' = J (diag(μ, μ) z + Pᵀ∇U(Pz)): canonical S = J, diagonal A, SA = AS, and mode j with
c_j = a_j + i b_j evolves as c_j' = −i μ_j c_j under the linear part. Hence

    φ_k(h S A) y = P · φ_k(−i μ h) · P⁻¹ y,    P⁻¹ = diag(Φᵀ M, Φᵀ M),

exactly (to round-off), for any real h. ``coordinates="modal"`` uses z as the state instead.

Invariants: H and the discrete mass ψ_hᴴ M ψ_h = qᵀMq + pᵀMp (= |z|² in modal coordinates), a
quadratic invariant of the semi-discrete flow (U(1) phase symmetry).

Discrete gradient of U (seed 003 eq. (2.11)): lumped: the thesis's (2.23)–(2.24) with nodal weights,
−κ m ⊙ ((q₀² + q₁²)/2 + (p₀² + p₁²)/2) ⊙ (y₀ + y₁)/2; consistent: the average vector field
∫₀¹ ∇U(y₀ + s(y₁ − y₀)) ds, exact with 2-point Gauss–Legendre because ∇U is cubic. Both are symmetric.

References
----------
Shen & Leok 2019 (seed 003 ch. 2), eqs. (2.5), (2.11), (2.16)–(2.24); Quispel & McLaren 2008
(average vector field); Karakashian, Akrivis & Dougalis 1993 (Galerkin FE for NLS, O(h^{p+1}) in L²).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from skfem import Basis, BilinearForm, ElementLineP1, ElementLineP2, MeshLine
from skfem.helpers import dot, grad

from lgbeam._typing import Array, FloatArray, IntArray
from lgbeam.discretisations._phi import phi as phi_functions  # φ_k(z), shared with the spectral systems

logger = logging.getLogger(__name__)

MAX_DENSE_DOFS = 1000
"""Largest interior DOF count for the dense generalised eigenproblem (Φ is (n, n): 8 MB at 1000; eigh ~2 s at
400 DOFs, ~15 s at 1500 on 2 busy cores)."""

_MASS = ("consistent", "lumped")
_COORDS = ("nodal", "modal")


@dataclass(frozen=True)
class FENLS:
    """Finite-element NLS on (0, L) with Dirichlet BCs implementing ``SemilinearPoissonSystem``.

    Parameters
    ----------
    n_elements
        Number of uniform elements (≥ 2), unless ``nodes`` is given.
    length
        Interval length L > 0.
    kappa
        Coefficient of the cubic term in i ψ_t + ψ_xx + κ|ψ|²ψ = 0 (any finite real; 0 is linear).
    degree
        1 (P1) or 2 (P2) Lagrange elements.
    mass
        "consistent" or "lumped" (row-sum mass and nodal quadrature for the quartic term).
    coordinates
        "nodal" (y = (Re ψ, Im ψ) at the interior DOFs) or "modal" (y = P⁻¹ (q; p)).
    nodes
        Optional mesh vertices (strictly increasing tuple from 0 to L) for a non-uniform mesh.

    References
    ----------
    Seed 003 ch. 2, eqs. (2.5), (2.16)–(2.24).
    """

    n_elements: int
    length: float = 1.0
    kappa: float = -2.0
    degree: int = 1
    mass: str = "consistent"
    coordinates: str = "nodal"
    nodes: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if self.degree not in (1, 2):
            raise ValueError(f"FENLS: degree must be 1 (P1) or 2 (P2), got {self.degree!r}")
        if self.mass not in _MASS:
            raise ValueError(f"FENLS: mass must be one of {_MASS}, got {self.mass!r}")
        if self.coordinates not in _COORDS:
            raise ValueError(f"FENLS: coordinates must be one of {_COORDS}, got {self.coordinates!r}")
        if not (np.isfinite(self.length) and self.length > 0):
            raise ValueError(f"FENLS: length must be a positive finite number, got {self.length!r}")
        if not np.isfinite(self.kappa):
            raise ValueError(f"FENLS: kappa must be finite, got {self.kappa!r}")
        if self.nodes is not None:
            x = np.asarray(self.nodes, dtype=float)
            if x.ndim != 1 or x.size < 3 or not np.all(np.diff(x) > 0):
                raise ValueError("FENLS: nodes must be ≥ 3 strictly increasing coordinates")
            if not (abs(x[0]) <= 1e-12 * self.length and np.isclose(x[-1], self.length)):
                raise ValueError(
                    f"FENLS: nodes must run from 0 to length={self.length}, got [{x[0]}, {x[-1]}]"
                )
            object.__setattr__(self, "n_elements", x.size - 1)
        elif not (isinstance(self.n_elements, (int, np.integer)) and self.n_elements >= 2):
            raise ValueError(f"FENLS: n_elements must be an integer ≥ 2, got {self.n_elements!r}")
        n = self.degree * self.n_elements - 1
        if n > MAX_DENSE_DOFS:
            raise ValueError(
                f"FENLS: {n} interior DOFs exceed the dense-eigenproblem limit {MAX_DENSE_DOFS}; "
                f"use n_elements ≤ {(MAX_DENSE_DOFS + 1) // self.degree} (or the Fourier NLS for fine grids)"
            )

    # ------------------------------------------------------------------ FE structure
    @cached_property
    def basis(self) -> Basis:
        x = (np.asarray(self.nodes, dtype=float) if self.nodes is not None
             else np.linspace(0, self.length, self.n_elements + 1))
        element = ElementLineP1() if self.degree == 1 else ElementLineP2()
        return Basis(MeshLine(x), element, intorder=4 * self.degree)  # exact for |ψ_h|⁴ (degree 4p)

    @cached_property
    def interior(self) -> IntArray:
        """Global DOF indices of the interior (non-Dirichlet) DOFs, sorted by coordinate."""
        dofs = np.setdiff1d(np.arange(self.basis.N), self.basis.get_dofs().all())
        return dofs[np.argsort(self.basis.doflocs[0, dofs], kind="stable")].astype(np.int64)

    @property
    def n_dofs(self) -> int:
        """Number of interior DOFs n (the state has length 2n)."""
        return int(self.interior.size)

    @cached_property
    def x(self) -> FloatArray:
        """Coordinates of the interior DOFs (n,)."""
        return np.asarray(self.basis.doflocs[0, self.interior], dtype=float)

    def _restrict(self, A: sp.spmatrix) -> sp.csr_matrix:
        i = self.interior
        return sp.csr_matrix(A)[i][:, i].tocsr()

    @cached_property
    def stiffness(self) -> sp.csr_matrix:
        """K_ij = ∫ φ_i' φ_j' dx on the interior DOFs, sparse (n, n)."""
        return self._restrict(BilinearForm(lambda u, v, w: dot(grad(u), grad(v))).assemble(self.basis))

    @cached_property
    def mass_matrix(self) -> sp.csr_matrix:
        """M (consistent ∫ φ_i φ_j, or its row-sum diagonal when lumped), sparse (n, n)."""
        M = BilinearForm(lambda u, v, w: u * v).assemble(self.basis)
        if self.mass == "lumped":  # row sums of the full matrix (= ∫ φ_i dx), then restrict
            M = sp.diags(np.asarray(M.sum(axis=1)).ravel())
        return self._restrict(M)

    @cached_property
    def _lumped_weights(self) -> FloatArray:
        return np.asarray(self.mass_matrix.diagonal())

    @cached_property
    def _quadrature(self) -> tuple[sp.csr_matrix, FloatArray]:
        """(B, w): ψ_h at all quadrature points = B ψ, ∫ g dx ≈ Σ w g (exact for degree ≤ 4p)."""
        b = self.basis
        n_el, n_qp = b.dx.shape
        # (n_el, n_qp, n_loc)
        vals = np.stack([np.asarray(b.basis[i][0]) for i in range(len(b.basis))], axis=-1)
        rows = np.broadcast_to(np.arange(n_el * n_qp).reshape(n_el, n_qp, 1), vals.shape).ravel()
        cols = np.broadcast_to(b.element_dofs.T[:, None, :], vals.shape).ravel()
        B = sp.csr_matrix((vals.ravel(), (rows, cols)), shape=(n_el * n_qp, b.N))[:, self.interior]
        return B.tocsr(), np.asarray(b.dx, dtype=float).ravel()

    @cached_property
    def _eig(self) -> tuple[FloatArray, FloatArray]:
        """(μ, Φ) with K Φ = M Φ diag(μ), Φᵀ M Φ = I; dense eigh on (n, n) matrices."""
        mu, Phi = sla.eigh(self.stiffness.toarray(), self.mass_matrix.toarray())
        return mu, Phi

    @property
    def eigenvalues(self) -> FloatArray:
        """Discrete Dirichlet eigenvalues μ_j of −∂²ₓ (ascending); exact: (jπ/L)²."""
        return self._eig[0]

    @cached_property
    def _mass_solve(self) -> Callable[[FloatArray], FloatArray]:
        """r ↦ M⁻¹ r (r of shape (n,) or (n, m))."""
        if self.mass == "lumped":
            w = self._lumped_weights
            return lambda r: r / w[:, None] if r.ndim == 2 else r / w
        solve: Callable[[FloatArray], FloatArray] = spla.factorized(self.mass_matrix.tocsc())
        return solve

    # ------------------------------------------------------------------ conversions
    def _split(self, y: Array) -> tuple[FloatArray, FloatArray]:
        yr = np.asarray(y, dtype=np.float64)
        if yr.shape != (2 * self.n_dofs,):
            raise ValueError(
                f"FENLS: expected a state of shape ({2 * self.n_dofs},) = (q; p), got {yr.shape}"
            )
        return yr[: self.n_dofs], yr[self.n_dofs :]

    def _nodal(self, y: Array) -> tuple[FloatArray, FloatArray]:
        """(q, p) nodal values of the state (maps modal states back)."""
        a, b = self._split(y)
        if self.coordinates == "modal":
            Phi = self._eig[1]
            return Phi @ a, Phi @ b
        return a, b

    def _from_nodal(self, q: FloatArray, p: FloatArray) -> FloatArray:
        if self.coordinates == "modal":
            W = self._mass_weighted_modes  # P⁻¹ = diag(Φᵀ M, Φᵀ M)
            return np.concatenate([W @ q, W @ p])
        return np.concatenate([q, p])

    def from_field(self, psi: Array) -> Array:
        """State y from complex DOF values ψ (n,) at ``x`` (Lagrange: nodal values = coefficients)."""
        psi = np.asarray(psi, dtype=complex)
        if psi.shape != (self.n_dofs,):
            raise ValueError(
                f"FENLS: expected ψ of shape ({self.n_dofs},) at the interior DOFs, got {psi.shape}"
            )
        return self._from_nodal(psi.real.copy(), psi.imag.copy())

    def to_field(self, y: Array) -> Array:
        """Complex DOF values ψ (n,) at ``x`` from a state y."""
        q, p = self._nodal(y)
        return q + 1j * p

    def interpolate(self, psi0: Callable[[FloatArray], Array]) -> Array:
        """State of the FE interpolant of a function ψ₀(x) (vectorised, complex or real)."""
        return self.from_field(np.asarray(psi0(self.x), dtype=complex))

    # ------------------------------------------------------------------ protocol
    def apply_S(self, y: Array) -> Array:
        """S y: nodal (M⁻¹ y_p; −M⁻¹ y_q); modal J y = (y_b; −y_a)."""
        a, b = self._split(y)
        if self.coordinates == "modal":
            return np.concatenate([b, -a])
        sol = self._mass_solve
        return np.concatenate([sol(b), -sol(a)])

    def apply_A(self, y: Array) -> Array:
        """A y: nodal (K q; K p); modal (μ a; μ b)."""
        a, b = self._split(y)
        if self.coordinates == "modal":
            mu = self._eig[0]
            return np.concatenate([mu * a, mu * b])
        K = self.stiffness
        return np.concatenate([K @ a, K @ b])

    def _grad_nodal(self, q: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
        if self.mass == "lumped":
            s = -self.kappa * self._lumped_weights * (q * q + p * p)
            return s * q, s * p
        B, w = self._quadrature
        qq, pp = B @ q, B @ p
        s = -self.kappa * w * (qq * qq + pp * pp)
        return B.T @ (s * qq), B.T @ (s * pp)

    def _pull_back(self, gq: FloatArray, gp: FloatArray) -> FloatArray:
        """Pᵀ applied to a nodal gradient (identity in nodal coordinates)."""
        if self.coordinates == "modal":
            Phi = self._eig[1]
            return np.concatenate([Phi.T @ gq, Phi.T @ gp])
        return np.concatenate([gq, gp])

    def grad_potential(self, y: Array) -> Array:
        """∇U(y), U = −κ/4 ∫ |ψ_h|⁴ (consistent) or −κ/4 Σ m_j |ψ_j|⁴ (lumped)."""
        return self._pull_back(*self._grad_nodal(*self._nodal(y)))

    def potential(self, y: Array) -> float:
        """U(y) = −κ/4 ∫ |ψ_h|⁴ dx (exact quadrature) or its nodal-quadrature version (lumped)."""
        q, p = self._nodal(y)
        if self.mass == "lumped":
            return float(-0.25 * self.kappa * np.sum(self._lumped_weights * (q * q + p * p) ** 2))
        B, w = self._quadrature
        qq, pp = B @ q, B @ p
        return float(-0.25 * self.kappa * np.sum(w * (qq * qq + pp * pp) ** 2))

    def hamiltonian(self, y: Array) -> float:
        """H(y) = ½ ⟨y, A y⟩ + U(y) = ½ ∫ |ψ_h,x|² − κ/4 ∫ |ψ_h|⁴."""
        return float(0.5 * np.dot(y, self.apply_A(y)) + self.potential(y))

    def discrete_mass(self, y: Array) -> float:
        """ψ_hᴴ M ψ_h = qᵀ M q + pᵀ M p (the quadratic invariant; |y|² in modal coordinates)."""
        if self.coordinates == "modal":
            return float(np.dot(y, y))
        q, p = self._split(y)
        M = self.mass_matrix
        return float(q @ (M @ q) + p @ (M @ p))

    def phi(self, k: int, h: float, y: Array) -> Array:
        """φ_k(h S A) y exactly through the eigenbasis (φ_0 = exp), any real h (negative included)."""
        if not np.isfinite(h):
            raise ValueError(f"FENLS.phi: h must be finite, got {h!r}")
        a, b = self._split(y)
        mu, Phi = self._eig
        if self.coordinates == "nodal":
            W = self._mass_weighted_modes
            a, b = W @ a, W @ b
        c = phi_functions(k, -1j * float(h) * mu) * (a + 1j * b)
        if self.coordinates == "nodal":
            return np.concatenate([Phi @ c.real, Phi @ c.imag])
        return np.concatenate([c.real, c.imag])

    @cached_property
    def _mass_weighted_modes(self) -> FloatArray:
        """Φᵀ M (n, n): nodal values → modal coefficients."""
        return np.asarray((self.mass_matrix.T @ self._eig[1]).T)

    def discrete_gradient(self, y0: Array, y1: Array) -> Array:
        """Symmetric discrete gradient ∇̄U(y₀, y₁) with ∇̄U·(y₁ − y₀) = U(y₁) − U(y₀) (seed 003 (2.11))."""
        q0, p0 = self._nodal(y0)
        q1, p1 = self._nodal(y1)
        if self.mass == "lumped":  # seed 003 (2.23)-(2.24) with nodal weights
            s = -self.kappa * self._lumped_weights * 0.5 * (q0 * q0 + q1 * q1 + p0 * p0 + p1 * p1)
            return self._pull_back(s * 0.5 * (q0 + q1), s * 0.5 * (p0 + p1))
        g = 0.5 / np.sqrt(3.0)
        gq = np.zeros_like(q0)
        gp = np.zeros_like(p0)
        for s in (0.5 - g, 0.5 + g):  # 2-point Gauss–Legendre on [0, 1]: exact for the cubic ∇U
            dq, dp = self._grad_nodal(q0 + s * (q1 - q0), p0 + s * (p1 - p0))
            gq += 0.5 * dq
            gp += 0.5 * dp
        return self._pull_back(gq, gp)


if TYPE_CHECKING:  # mypy checks FENLS against the protocols the driver and the methods check at run time
    from lgbeam.systems import (
        HasDiscreteGradient,
        SemilinearPoissonSystem,
    )

    def _meets_protocols(s: FENLS) -> tuple[SemilinearPoissonSystem, HasDiscreteGradient]:
        return (s, s)
