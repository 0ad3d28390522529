"""Trivialised discrete differentials and discrete bivectors on Lie groups and spheres (seed 002 §§2–3).

Lie group (right trivialisation, algebra coordinates with the sum-of-products pairing; γ = R_x^* dH is the
system's ``trivialised_differential``). For u, v = exp(η) u, η = log(v u⁻¹):

    chain rule (11):   H(v) − H(u) = ⟨d̄H(u, v), η⟩,      consistency (12):  d̄H(x, x) = γ(x)
    AVF (14):          d̄H(u, v) = ∫₀¹ γ(exp(ξη) u) dξ     (Gauss–Legendre, ``quadrature`` points)
    Gonzalez (15):     d̄H(u, v) = γ(c) + α η,  c = exp(η/2) u,  α = [H(v) − H(u) − ⟨γ(c), η⟩]/|η|²

Both are symmetric, d̄H(u, v) = d̄H(v, u). The Gonzalez **guard**: α = 0 when |η| = 0 or when the
numerator is below the round-off of the energies (8 ε (|H(u)| + |H(v)| + |⟨γ, η⟩|)); the correction is then
noise (dividing it by |η|² would amplify it) and the chain rule holds to that round-off anyway.

Sphere S^{n−1} with the projective retraction (``lgbeam.groups.sphere_retraction``), centre
c = (p + q)/|p + q| solving (17), v = φ_c⁻¹(p) = −φ_c⁻¹(q), η = φ_c⁻¹(q) − φ_c⁻¹(p) ∈ T_cS:

    chain rule:        H(q) − H(p) = ⟨d̄H(p, q), η⟩
    AVF (18):          d̄H = P_c ∫₀¹ T_{γ_ξ}φ_cᵀ ∇H(φ_c(γ_ξ)) dξ,  γ_ξ = (1 − ξ) v + ξ(−v)
    Gonzalez (19):     d̄H = P_c ∇H(c) + α η,  α = [H(q) − H(p) − ∇H(c)·η]/|η|²     (P_c = I − c cᵀ)

Discrete bivectors: ``midpoint_bivector`` S̄(u, v) = S(c) (Lie group, c = exp(η/2) u) and
``sphere_bivector`` S̄(p, q) = P_c S((p + q)/2) P_c (for the rigid body, (p+q)/2 × ·, seed 002 Example 1);
both symmetric and consistent (S̄(x, x) = S(x)).

Each differential has ``chain_rule_residual`` (the defect of (11) resp. its sphere form) for tests.

References
----------
Celledoni & Owren (seed 002), eqs. (11)–(21); notes/002.md §§2.3–2.8 and §7 (errata 9: γ at c = exp(η/2) u).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import sphere_retraction as sr
from lgbeam.groups.duals import check_injectivity, pairing, principal_log
from lgbeam.systems import LieGroupFirstIntegral, SphereFirstIntegral

logger = logging.getLogger(__name__)

_EPS = np.finfo(float).eps


def gauss_legendre(n: int) -> tuple[FloatArray, FloatArray]:
    """Gauss–Legendre nodes and weights on [0, 1] (exact for polynomials of degree 2n − 1)."""
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError(f"quadrature must be a positive number of Gauss points, got {n!r}")
    x, w = np.polynomial.legendre.leggauss(int(n))
    return 0.5 * (x + 1.0), 0.5 * w


def step_log(group: Any, u: FloatArray, v: FloatArray) -> FloatArray:
    """η = log(v u⁻¹) on the injectivity domain (``lgbeam.groups.duals.principal_log``)."""
    return principal_log(group, group.compose(v, group.inverse(u)))


@dataclass(frozen=True)
class TrivialisedAVF:
    """AVF trivialised discrete differential (14) with ``quadrature`` Gauss points along exp(ξη) u."""

    quadrature: int = 4
    name: str = "avf"

    def __post_init__(self) -> None:
        gauss_legendre(self.quadrature)

    def from_step(self, system: LieGroupFirstIntegral, u: FloatArray, eta: FloatArray) -> FloatArray:
        """d̄H(u, exp(η) u); ValueError beyond the injectivity radius of exp."""
        G = system.group
        check_injectivity(G, eta, "discrete differential asked across a step")
        xs, ws = gauss_legendre(self.quadrature)
        pts = G.compose(G.exp(xs[:, None] * eta), u)
        return np.einsum("m,mk->k", ws, system.trivialised_differential(pts))

    def __call__(self, system: LieGroupFirstIntegral, u: FloatArray, v: FloatArray) -> FloatArray:
        return self.from_step(system, u, step_log(system.group, u, v))

    def chain_rule_residual(self, system: LieGroupFirstIntegral, u: FloatArray, v: FloatArray) -> float:
        eta = step_log(system.group, u, v)
        d = self.from_step(system, u, eta)
        return float(system.first_integral(v) - system.first_integral(u) - pairing(d, eta))


@dataclass(frozen=True)
class TrivialisedGonzalez:
    """Gonzalez (midpoint) trivialised discrete differential (15) with c = exp(η/2) u and the η → 0 guard."""

    name: str = "gonzalez"

    def parts(self, system: LieGroupFirstIntegral, u: FloatArray,
              eta: FloatArray) -> tuple[FloatArray, float, FloatArray]:
        """(d̄H, α, c) for the step η from u (v = exp(η) u)."""
        G = system.group
        check_injectivity(G, eta, "discrete differential asked across a step")
        c = G.compose(G.exp(0.5 * eta), u)
        v = G.compose(G.exp(eta), u)
        gam = system.trivialised_differential(c)
        return (*gonzalez_correction(system.first_integral(u), system.first_integral(v), gam, eta), c)

    def from_step(self, system: LieGroupFirstIntegral, u: FloatArray, eta: FloatArray) -> FloatArray:
        return self.parts(system, u, eta)[0]

    def __call__(self, system: LieGroupFirstIntegral, u: FloatArray, v: FloatArray) -> FloatArray:
        return self.from_step(system, u, step_log(system.group, u, v))

    def chain_rule_residual(self, system: LieGroupFirstIntegral, u: FloatArray, v: FloatArray) -> float:
        eta = step_log(system.group, u, v)
        d = self.from_step(system, u, eta)
        return float(system.first_integral(v) - system.first_integral(u) - pairing(d, eta))


def gonzalez_correction(H0: FloatArray | float, H1: FloatArray | float, gam: FloatArray,
                        eta: FloatArray) -> tuple[FloatArray, float]:
    """``(γ + α η, α)`` with ``α = [H₁ − H₀ − ⟨γ, η⟩]/|η|²``, α = 0 under the guard (module docstring)."""
    H0, H1 = float(H0), float(H1)
    g_eta = float(pairing(gam, eta))
    num = H1 - H0 - g_eta
    eta2 = float(pairing(eta, eta))
    if eta2 == 0.0 or abs(num) <= 8.0 * _EPS * (abs(H0) + abs(H1) + abs(g_eta)):
        return gam, 0.0
    alpha = num / eta2
    return gam + alpha * eta, alpha


def midpoint_bivector(system: LieGroupFirstIntegral, u: FloatArray, eta: FloatArray) -> FloatArray:
    """S̄(u, exp(η) u) = S(exp(η/2) u): symmetric and consistent (seed 002 §5.1: ω̄(q, q') = ω_R(q̄))."""
    G = system.group
    return system.bivector(G.compose(G.exp(0.5 * eta), u))


# --- spheres with the projective retraction ----------------------------------------------------------


@dataclass(frozen=True)
class SphereGonzalez:
    """Gonzalez discrete differential (19) on S^{n−1} at the symmetric centre (21)."""

    name: str = "gonzalez"

    def __call__(self, system: SphereFirstIntegral, p: FloatArray,
                 q: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(d̄H(p, q) ∈ T_cS, c)."""
        c = sr.centre(p, q)
        eta = sr.inverse_retract(c, q) - sr.inverse_retract(c, p)
        Pc = sr.tangent_projector(c)
        gam = Pc @ system.gradient(c)
        return gonzalez_correction(system.first_integral(p), system.first_integral(q), gam, eta)[0], c

    def chain_rule_residual(self, system: SphereFirstIntegral, p: FloatArray, q: FloatArray) -> float:
        return _sphere_residual(self, system, p, q)


@dataclass(frozen=True)
class SphereAVF:
    """AVF discrete differential (18) on S^{n−1} along φ_c(γ_ξ), ``quadrature`` Gauss points."""

    quadrature: int = 8
    name: str = "avf"

    def __post_init__(self) -> None:
        gauss_legendre(self.quadrature)

    def __call__(self, system: SphereFirstIntegral, p: FloatArray,
                 q: FloatArray) -> tuple[FloatArray, FloatArray]:
        c = sr.centre(p, q)
        v, w = sr.inverse_retract(c, p), sr.inverse_retract(c, q)
        xs, ws = gauss_legendre(self.quadrature)
        gam = (1.0 - xs)[:, None] * v + xs[:, None] * w
        pts = sr.retract(c, gam)
        pulled = np.einsum("mij,mj->mi", sr.tangent_map(c, gam), system.gradient(pts))  # T φ_c is symmetric
        return sr.tangent_projector(c) @ (ws @ pulled), c

    def chain_rule_residual(self, system: SphereFirstIntegral, p: FloatArray, q: FloatArray) -> float:
        return _sphere_residual(self, system, p, q)


def _sphere_residual(diff: SphereGonzalez | SphereAVF, system: SphereFirstIntegral, p: FloatArray,
                     q: FloatArray) -> float:
    d, c = diff(system, p, q)
    eta = sr.inverse_retract(c, q) - sr.inverse_retract(c, p)
    return float(system.first_integral(q) - system.first_integral(p) - d @ eta)


def sphere_bivector(system: SphereFirstIntegral, p: FloatArray, q: FloatArray, c: FloatArray) -> FloatArray:
    """S̄(p, q) = P_c S((p + q)/2) P_c on T_cS: skew, symmetric in (p, q), S̄(p, p) = P_p S(p) P_p."""
    Pc = sr.tangent_projector(c)
    return Pc @ system.bivector(0.5 * (np.asarray(p) + np.asarray(q))) @ Pc


__all__ = ["SphereAVF", "SphereGonzalez", "TrivialisedAVF", "TrivialisedGonzalez", "gauss_legendre",
           "gonzalez_correction", "midpoint_bivector", "sphere_bivector", "step_log"]
