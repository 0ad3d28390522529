"""Energy-preserving Lie group collocation with s Gauss nodes (seed 002 §4, eqs. (22)–(26)).

A polynomial σ of degree s in the algebra (right trivialisation, X(τ) = exp(σ(τh)) x₀) with

    σ(τh) = h Σ_j L_j(τ) k_j,   L_j(τ) = ∫₀^τ l_j,                                (26), erratum 8 (factor h)
    k_j = dexp⁻¹_{σ_j}(S(X_j) d̄H_j),   σ_j = σ(c_j h),  X_j = exp(σ_j) x₀,       (23), (25)
    d̄H_j = ∫₀¹ (l_j(ξ)/b_j) (dexp⁻¹_{σ_j})ᵀ dexp_{σ(ξh)}ᵀ γ(X(ξ)) dξ,             (24)
    x₁ = exp(σ(h)) x₀,   σ(h) = h Σ_j b_j k_j,

with l_j the Lagrange basis on the Gauss nodes c_j and **b_j = ∫₀¹ l_j** (erratum 7: the seed's
b₁ = b₂ = 1 is inconsistent, the method then runs at half speed). The integral (24) is a Gauss rule with
``quadrature`` points (energy is kept to its accuracy: 6 points give ~1e-14 on the Fig. 2 data).
``H(x₁) − H(x₀) = h Σ_j b_j ⟨d̄H_j, S_j d̄H_j⟩ = 0``. Order 2s (s = 2: order 4, verified); not exactly
symmetric on a non-abelian group (defect O(h^{2s+2}), erratum 12). Fixed point on the k_j from ξ(x₀).

References
----------
Celledoni & Owren (seed 002), §4 and Example 2; Hairer (2010), "Energy-preserving variant of collocation
methods"; Cohen & Hairer (2011); notes/002.md §2.9 and §7 (errata 7, 8, 12).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.duals import check_injectivity, dexp, dexp_inv
from lgbeam.integrators.base import Step
from lgbeam.integrators.integral_preserving.differentials import gauss_legendre
from lgbeam.integrators.integral_preserving.methods import (
    DEFAULT_SOLVER,
    _failed,
    _LieGroupMethod,
    field_of,
    fixed_point,
    solved_float,
)
from lgbeam.integrators.poisson.solver import FixedPoint
from lgbeam.systems import LieGroupFirstIntegral

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CollocationData:
    """Nodes c, weights b, and the Lagrange basis l_j(τ) = Σ_k C[k, j] τᵏ of one collocation method."""

    c: FloatArray
    b: FloatArray
    C: FloatArray

    def basis(self, tau: FloatArray) -> FloatArray:
        """l_j(τ), ``(len(tau), s)``."""
        return np.vander(np.asarray(tau, float), len(self.c), increasing=True) @ self.C

    def integrated(self, tau: FloatArray) -> FloatArray:
        """L_j(τ) = ∫₀^τ l_j, ``(len(tau), s)``."""
        s = len(self.c)
        powers = np.vander(np.asarray(tau, float), s + 1, increasing=True)[:, 1:] / np.arange(1, s + 1)
        return powers @ self.C


def gauss_collocation(s: int, weights: FloatArray | None = None, check: bool = True) -> CollocationData:
    """Gauss nodes with b_j = ∫₀¹ l_j; ``weights`` overrides b (ValueError unless consistent, ``check``)."""
    c, _ = gauss_legendre(s)
    C = np.asarray(np.linalg.inv(np.vander(c, s, increasing=True)), dtype=np.float64)
    b = (1.0 / np.arange(1, s + 1)) @ C  # ∫₀¹ τᵏ dτ = 1/(k+1)
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        if w.shape != (s,):
            raise ValueError(f"EP collocation: weights must have s = {s} entries, got shape {w.shape}")
        if check and not np.allclose(w, b, rtol=0, atol=1e-14):
            raise ValueError(
                f"EP collocation: weights {w.tolist()} differ from b_j = int_0^1 l_j = {b.tolist()}; the "
                "method is then inconsistent (seed 002 Example 2 prints b = 1: erratum 7 of "
                "notes/002.md). Leave weights=None."
            )
        b = w
    return CollocationData(c, b, C)


@dataclass(frozen=True)
class EPCollocation(_LieGroupMethod):
    """Energy-preserving Lie group collocation with s Gauss nodes (order 2s); see the module docstring."""

    stages: int = 2
    quadrature: int = 8
    solver: FixedPoint = DEFAULT_SOLVER
    weights: tuple[float, ...] | None = None
    check_weights: bool = True
    name: str = ""
    data: CollocationData = field(init=False, repr=False, compare=False)
    system_type: ClassVar[type] = _LieGroupMethod.system_type

    def __post_init__(self) -> None:
        gauss_legendre(self.quadrature)
        weights = None if self.weights is None else np.asarray(self.weights, dtype=np.float64)
        object.__setattr__(self, "data", gauss_collocation(self.stages, weights, self.check_weights))
        if not self.name:
            object.__setattr__(self, "name", f"ep{2 * self.stages}")

    @property
    def order(self) -> int:
        return 2 * self.stages

    def step(self, system: LieGroupFirstIntegral, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        G, data = system.group, self.data
        s = self.stages
        xq, wq = gauss_legendre(self.quadrature)
        A_stage = data.integrated(data.c)            # (s, s): σ_j = h Σ_i L_i(c_j) k_i
        A_quad = data.integrated(xq)                 # (m, s)
        l_quad = data.basis(xq) * wq[:, None] / data.b  # (m, s): w_m l_j(ξ_m)/b_j

        def update(flat: FloatArray) -> FloatArray:
            K = flat.reshape(s, G.dim)
            sig_s = h * (A_stage @ K)
            sig_q = h * (A_quad @ K)
            Xs = G.compose(G.exp(sig_s), y)
            Xq = G.compose(G.exp(sig_q), y)
            u = np.einsum("mij,mi->mj", dexp(G, sig_q), system.trivialised_differential(Xq))  # dexp_σᵀ γ
            Dinv = dexp_inv(G, sig_s)                                                        # (s, d, d)
            dbar = np.einsum("sij,si->sj", Dinv, l_quad.T @ u)                               # (dexp⁻¹)ᵀ ∫
            k = np.einsum("sij,sj->si", Dinv, np.einsum("sij,sj->si", system.bivector(Xs), dbar))
            return k.ravel()

        try:
            x, res = fixed_point(self.solver, update, np.tile(field_of(system, y), s))
            theta = h * (data.integrated(np.array([1.0]))[0] @ x.reshape(s, G.dim))
            check_injectivity(G, theta, "EP collocation step")
        except ValueError as exc:
            return _failed(y, exc)
        return solved_float(G.compose(G.exp(theta), y), res)


__all__ = ["CollocationData", "EPCollocation", "gauss_collocation"]
