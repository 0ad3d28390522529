"""Polar-decomposition symplectic (variational) integrators on SO(n) of any RK order (seed 003 ch. 4).

Hamiltonian form (4.26), state (g, p) ∈ SO(n) × so(n)*, RK tableau (a, b) (s stages), unknowns
internal points U_i ∈ SO(n), internal momenta μ_i, Ω_i = ∂H/∂μ(U_i, μ_i), g₁ and the multiplier Λ ∈ so(n):

    U_i = P(g₀ + h Σ_j a_ij U_j Ω_j),   g₁ = P(B),   B = g₀ + h Σ_i b_i U_i Ω_i             (4.12), (4.13)
    μ_k = −Asym(U_kᵀ g₁ Λ) + (h/b_k) ψ_k*(L),   Asym(g₀ᵀ g₁ Λ) = −p₀ + h φ*(L)            (4.26)
    p₁ = Asym(g₁ᵀ B Λᵀ)

where L solves the adjoint stage system (4.21a) L_j = b_j Y_j + Asym(h U_jᵀ (Σ_l a_lj dP*_{A_l}(L_l)) Ω_jᵀ),
Y_i = ∂H/∂U(U_i, μ_i) − Asym(U_iᵀ g₁ Λ Ω_iᵀ), ψ_k*(L) = Asym(U_kᵀ Σ_l a_lk dP*_{A_l}(L_l)),
φ*(L) = Asym(g₀ᵀ Σ_l dP*_{A_l}(L_l)), ``dP*`` the adjoint of the polar tangent map (``lgbeam.groups.polar``).
This is the algorithm of notes/003-ch3plus.md §C.6 (signs and the b_k division checked there); the outer
fixed point runs on (μ_k, Λ) to ``tol``, the inner one on L to 1e-15 relative.

Reduced Lie–Poisson form (4.27): for a left-invariant h(μ) the same equations with g₀ = I and ∂H/∂U = 0
give f₀ = P(B) = g₁ (the relative rotation); the step reconstructs g_{k+1} = g_k f₀ as P(g_k B) (equal by
the equivariance (4.8), and orthogonal to round-off without accumulation), and p₁ = f₀ᵀ p₀ f₀ (a coadjoint
motion: Casimirs such as |μ|² are kept to round-off).

``solver="newton"``: a chord Newton method on the same unknowns (the fixed-point map's Jacobian by forward
differences in the skew coordinates, once per step) — the comparison the thesis proposes (ch. 6) and
``lgbeam bench ep`` measures; its cost grows like (s + 1)² n⁴ per Jacobian against the fixed point's n³.

References
----------
Shen (2019), seed 003, §§4.2–4.5, eqs. (4.8)–(4.28); notes/003-ch3plus.md Part C (C.6 algorithm, C.8 numbers)
and Part F (errata: "Ω_i given by dH/dU" means dH/dμ; "dP*(Ω_i)" means Λ_i).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.linalg as sla

from lgbeam._typing import FloatArray
from lgbeam.groups.polar import PolarFactors, asym, dpolar_dual, polar, sylvester_skew
from lgbeam.integrators.base import Status, Step
from lgbeam.systems import HamiltonianSOn, LiePoissonSOn, supports

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RKTableau:
    """An implicit Runge–Kutta tableau (a, b) with its classical order."""

    name: str
    a: tuple[tuple[float, ...], ...]
    b: tuple[float, ...]
    order: int

    def __post_init__(self) -> None:
        A, b = np.asarray(self.a, float), np.asarray(self.b, float)
        if A.shape != (b.size, b.size) or abs(b.sum() - 1.0) > 1e-14 or np.any(b == 0):
            raise ValueError(
                f"tableau {self.name}: need an (s, s) matrix a and s non-zero weights summing to 1"
            )


def gauss_legendre_tableau(s: int) -> RKTableau:
    """The s-stage Gauss–Legendre collocation tableau (order 2s)."""
    x, w = np.polynomial.legendre.leggauss(s)
    c, b = 0.5 * (x + 1.0), 0.5 * w
    C = np.linalg.inv(np.vander(c, s, increasing=True))
    powers = np.vander(c, s + 1, increasing=True)[:, 1:] / np.arange(1, s + 1)
    A = powers @ C
    return RKTableau(f"GL{s}", tuple(map(tuple, A)), tuple(b), 2 * s)


GL_TABLEAUX = {f"gl{s}": gauss_legendre_tableau(s) for s in (1, 2, 3)}


# (μ, Λ) ↦ (μ', Λ', |ΔU|), the outer fixed-point map; (μ, Λ) ↦ (g₁, p₁, B), the reconstruction
_OuterMap = Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray, float]]
_Finish = Callable[[FloatArray, FloatArray], tuple[FloatArray, FloatArray, FloatArray]]
_Grad = Callable[[FloatArray, FloatArray], FloatArray]  # (U, μ) ↦ a gradient in so(n)
_Solved = tuple[FloatArray, FloatArray, int, bool, float]  # (μ, Λ, iterations, converged, last change)


@dataclass
class _Warm:
    """The stage values U of the last outer iteration (the next one starts there) and their last change."""

    U: FloatArray
    dU: float = math.inf


@dataclass(frozen=True)
class PolarVI:
    """Polar-decomposition variational integrator on SO(n); see the module docstring."""

    tableau: RKTableau = GL_TABLEAUX["gl2"]
    reduced: bool = False
    tol: float = 1e-14
    max_iter: int = 200
    inner_max_iter: int = 200
    solver: str = "fixed-point"
    name: str = ""
    error_order: ClassVar[int | None] = None
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    system_type: ClassVar[type] = HamiltonianSOn

    def __post_init__(self) -> None:
        if self.solver not in ("fixed-point", "newton"):
            raise ValueError(f"polar method: solver must be 'fixed-point' or 'newton', got {self.solver!r}")
        if not (0 < self.tol < 1) or not (isinstance(self.max_iter, int) and self.max_iter >= 1):
            raise ValueError(
                f"polar method: need 0 < tol < 1 and max_iter >= 1, got {self.tol!r}, {self.max_iter!r}"
            )
        if not self.name:
            prefix = "polar-lp-" if self.reduced else "polar-"
            object.__setattr__(self, "name", prefix + self.tableau.name.lower())

    @property
    def order(self) -> int:
        return self.tableau.order

    def init(self, system: HamiltonianSOn | LiePoissonSOn, t0: float,
             y0: FloatArray) -> tuple[FloatArray, None]:
        y = np.array(y0, dtype=float)
        n = system.n
        if y.shape != (2, n, n):
            raise ValueError(
                f"{self.name}: the state must be stack([g, mu]) of shape (2, {n}, {n}), got {y.shape}"
            )
        g, mu = y
        if np.abs(g.T @ g - np.eye(n)).max() > 1e-10 or np.linalg.det(g) <= 0:
            raise ValueError(
                f"{self.name}: g0 is not in SO({n}) (|g^T g - I| = {np.abs(g.T @ g - np.eye(n)).max():.3g})"
            )
        if np.abs(mu + mu.T).max() > 1e-12 * max(1.0, float(np.abs(mu).max())):
            raise ValueError(f"{self.name}: the momentum mu must be skew")
        return y, None

    # ------------------------------------------------------------------ the maps of one step
    def _grads(self, system: HamiltonianSOn | LiePoissonSOn) -> tuple[_Grad, _Grad]:
        """(∂H/∂μ, ∂H/∂U) as functions of (U, μ); the reduced form: (∂h/∂μ, 0)."""
        if self.reduced:
            if not supports(system, LiePoissonSOn):
                raise TypeError(f"{self.name}: the reduced form needs a LiePoissonSOn system (dh_dmu)")
            lie_poisson = system
            return (lambda U, mu: lie_poisson.dh_dmu(mu)), (lambda U, mu: np.zeros_like(mu))
        if not supports(system, HamiltonianSOn):
            raise TypeError(f"{self.name}: needs a HamiltonianSOn system (dH_dmu, dH_dU)")
        return system.dH_dmu, system.dH_dU

    def _stage_map(self, system: HamiltonianSOn | LiePoissonSOn, g0: FloatArray, p0: FloatArray,
                   h: float) -> tuple[_OuterMap, _Finish]:
        """The outer fixed-point map (μ, Λ) ↦ (μ', Λ') and the final reconstruction (notes §C.6)."""
        A, b = np.asarray(self.tableau.a, float), np.asarray(self.tableau.b, float)
        n = g0.shape[-1]
        dHdmu, dHdU = self._grads(system)

        warm = _Warm(np.broadcast_to(g0, (len(b),) + g0.shape).copy())
        # fixed point: one sweep of the stage equations per outer iteration (U joins the iterated unknowns,
        # notes §C.6); Newton: U solved to round-off for each (μ, Λ), so the map is a function of (μ, Λ)
        sweeps = self.inner_max_iter if self.solver == "newton" else 1

        def stages(mu: FloatArray) -> tuple[PolarFactors, FloatArray, FloatArray, FloatArray]:
            # U_i = P(g₀ + h Σ a_ij U_j Ω_j), Ω_j = ∂H/∂μ(U_j, μ_j), starting from the last U
            U, r_prev = warm.U, np.inf
            for _ in range(sweeps):
                Om = dHdmu(U, mu)
                fa = polar(g0 + h * np.einsum("ij,jab->iab", A, U @ Om))
                r = float(np.abs(fa.U - U).max())
                U = fa.U
                if r <= 4e-16 * n or r >= r_prev:
                    break
                r_prev = r
            warm.U, warm.dU = U, r
            Om = dHdmu(U, mu)
            return fa, U, Om, g0 + h * np.einsum("i,iab->ab", b, U @ Om)

        def G(mu: FloatArray, Lam: FloatArray) -> tuple[FloatArray, FloatArray, float]:
            fa, U, Om, B = stages(mu)
            g1 = polar(B).U
            Ut = np.swapaxes(U, -1, -2)
            Y = dHdU(U, mu) - asym(Ut @ g1 @ Lam @ np.swapaxes(Om, -1, -2))
            bY = b[:, None, None] * Y
            L, r_prev = bY, np.inf
            for _ in range(self.inner_max_iter):
                D = dpolar_dual(fa, L)
                S = np.einsum("lj,lab->jab", A, D)
                L_new = bY + asym(h * Ut @ S @ np.swapaxes(Om, -1, -2))
                r = float(np.abs(L_new - L).max())
                L = L_new
                if r <= 1e-15 * max(1.0, float(np.abs(L).max())) or r >= r_prev:
                    break
                r_prev = r
            D = dpolar_dual(fa, L)
            psi = asym(Ut @ np.einsum("lk,lab->kab", A, D))
            vphi = asym(g0.T @ D.sum(axis=0))
            Lam_new = sylvester_skew(g0.T @ g1, -p0 + h * vphi)
            mu_new = -asym(Ut @ g1 @ Lam_new) + (h / b)[:, None, None] * psi
            return mu_new, Lam_new, warm.dU

        def finish(mu: FloatArray, Lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
            _, _, _, B = stages(mu)
            g1 = polar(B).U
            return g1, asym(g1.T @ B @ Lam.T), B

        return G, finish

    def step(self, system: HamiltonianSOn | LiePoissonSOn, t: float, h: float, y: FloatArray,
             cache: None) -> Step[FloatArray, None]:
        gk, pk = y
        n = system.n
        g0 = np.eye(n) if self.reduced else gk
        s = len(self.tableau.b)
        G, finish = self._stage_map(system, g0, pk, h)
        mu = np.broadcast_to(pk, (s, n, n)).copy()
        Lam = -0.5 * pk
        solve = self._newton if self.solver == "newton" else self._fixed_point
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"):
                mu, Lam, its, ok, r = solve(G, mu, Lam, n, s)
                g1, p1, B = finish(mu, Lam)
                # reconstruction g_k f_k = g_k P(B) = P(g_k B) by equivariance (4.8): polar of the product
                # keeps ‖gᵀg − I‖ at round-off instead of accumulating it over the steps
                g_next = polar(gk @ B).U if self.reduced else g1
        except (FloatingPointError, ValueError, np.linalg.LinAlgError) as exc:
            return Step(y, None, status=Status.SOLVER_FAILED, detail=f"{self.name}: {exc}")
        y1 = np.stack([g_next, p1])
        if not ok:
            return Step(
                y1,
                None,
                status=Status.SOLVER_FAILED,
                iterations=its,
                detail=f"{self.name}: fixed point not converged after {its} iterations, change {r:.3g} "
                f"(tol {self.tol:g})",
            )
        return Step(y1, None, iterations=its)

    def _fixed_point(self, G: _OuterMap, mu: FloatArray, Lam: FloatArray, n: int, s: int) -> _Solved:
        r = np.inf
        for it in range(1, self.max_iter + 1):
            mu_new, Lam_new, dU = G(mu, Lam)
            r = max(float(np.abs(mu_new - mu).max()), float(np.abs(Lam_new - Lam).max()), dU)
            scale = max(1.0, float(np.abs(mu_new).max()))
            mu, Lam = mu_new, Lam_new
            if not np.isfinite(r):
                return mu, Lam, it, False, r
            if r <= self.tol * scale:
                return mu, Lam, it, True, r
        return mu, Lam, self.max_iter, False, r

    def _newton(self, G: _OuterMap, mu: FloatArray, Lam: FloatArray, n: int, s: int) -> _Solved:
        i, j = np.triu_indices(n, 1)
        m = i.size

        def pack(mu: FloatArray, Lam: FloatArray) -> FloatArray:
            return np.concatenate([mu[:, i, j].ravel(), Lam[i, j]])

        def unpack(z: FloatArray) -> tuple[FloatArray, FloatArray]:
            M = np.zeros((s + 1, n, n))
            M[:, i, j] = z.reshape(s + 1, m)
            M = M - np.swapaxes(M, -1, -2)
            return M[:s], M[s]

        def F(z: FloatArray) -> FloatArray:
            mu_new, Lam_new, _ = G(*unpack(z))
            return pack(mu_new, Lam_new) - z

        z = pack(mu, Lam)
        Fz = F(z)
        eps = 1e-7 * max(1.0, float(np.abs(z).max()))
        J = np.empty((z.size, z.size))
        for k in range(z.size):  # forward differences, one column per unknown
            dz = np.zeros_like(z)
            dz[k] = eps
            J[:, k] = (F(z + dz) - Fz) / eps
        lu = sla.lu_factor(J)
        r = np.inf
        for it in range(1, self.max_iter + 1):
            dz = -sla.lu_solve(lu, Fz)
            z = z + dz
            r = float(np.abs(dz).max())
            if not np.isfinite(r):
                return *unpack(z), it, False, r
            if r <= self.tol * max(1.0, float(np.abs(z).max())):
                return *unpack(z), it, True, r
            Fz = F(z)
        return *unpack(z), self.max_iter, False, r

    def diagnostics(self, system: HamiltonianSOn | LiePoissonSOn, t: float, y: FloatArray,
                    cache: Any) -> dict[str, float]:
        g, mu = y
        if self.reduced and supports(system, LiePoissonSOn):
            energy = system.reduced_hamiltonian(mu)
        elif not self.reduced and supports(system, HamiltonianSOn):
            energy = system.hamiltonian(y)
        else:
            need = "LiePoissonSOn" if self.reduced else "HamiltonianSOn"
            raise TypeError(f"{self.name}: needs a {need} system")
        potential = float(system.potential(g)) if hasattr(system, "potential") and not self.reduced else 0.0
        return {
            "energy": float(energy),
            "energy_scale": float(energy) - potential + abs(potential),  # T + |V|
            "casimir": float(0.5 * np.sum(mu * mu)),  # ⟨μ, μ⟩ (n = 3: |m|²)
            "orthogonality": float(np.abs(g.T @ g - np.eye(g.shape[0])).max()),
        }


@dataclass(frozen=True)
class PolarLiePoisson(PolarVI):
    """The reduced Lie–Poisson form (4.27) of the polar method, for a left-invariant h(μ)."""

    reduced: bool = True
    system_type: ClassVar[type] = LiePoissonSOn


__all__ = ["GL_TABLEAUX", "PolarLiePoisson", "PolarVI", "RKTableau", "gauss_legendre_tableau"]
