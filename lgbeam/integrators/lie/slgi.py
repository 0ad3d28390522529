"""The symplectic Lie group integrators SLGI(θ) on T*G ≅ G ⋉ g* (seed 000 §3.1–3.2, eqs. (15)–(17)).

For a Hamiltonian H(g, μ) with right-trivialised field f = (∂H/∂μ, −R_g^* ∂H/∂g) (eq. (14)), one step
g₀, μ₀ → g₁, μ₁ solves for (ξ, n̄) ∈ g × g*

    M_θ = dexp*_{−ξ}(μ₀ + Ad*_{exp(θξ)} n̄) − θ dexp*_{−θξ} Ad*_{exp(θξ)} n̄          (15)
    (ξ, n̄) = h f(exp(θξ) g₀, M_θ)                                                   (16)
    (g₁, μ₁) = (exp(ξ), Ad*_{exp((θ−1)ξ)} n̄)·(g₀, μ₀)                                 (17)

with the semidirect product (11), i.e. g₁ = exp(ξ) g₀, μ₁ = Ad*_{exp((θ−1)ξ)} n̄ + Ad*_{exp(−ξ)} μ₀. In
lgbeam's conventions Ad*_g = Ad(g)ᵀ and dexp*_{−ξ} = (dexp_{−ξ})ᵀ = T(ξ)ᵀ (T the left-trivialised tangent
operator). On an abelian group θ = 0, ½, 1 are symplectic Euler, the implicit midpoint rule and the adjoint
symplectic Euler exactly (notes/000.md §3.7; tests/test_lie_slgi.py). θ = ½ has order 2, θ = 0 and 1 order 1.

The 2·dim unknowns are found by simplified Newton (the Jacobian of the residual by forward differences, kept
from step to step at equal h and refreshed when the iteration slows) or by fixed-point iteration, both started
from h f(g₀, μ₀), to |Δz| ≤ tol (1 + |z|). A step that does not converge in ``max_iter`` iterations returns
status ``solver_failed``.

References
----------
Seed 000 §3.1–3.2, eqs. (11)–(17); Bogfjellmo & Marthinsen (2016), [3] in seed 000; notes/000.md §3.7.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators.base import Status, Step
from lgbeam.systems import CotangentHamiltonian, HasInvariants, supports

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _GroupKit:
    """exp, Ad, T and compose of the acting group; SO(3) through direct Rodrigues formulas on 3-vectors
    (the generic lgbeam maps validate their arguments: ~10× the cost at one body)."""

    exp: Any
    Ad: Any
    tangent: Any
    compose: Any


def _so3_exp(w: FloatArray) -> FloatArray:
    t = math.sqrt(float(w @ w))
    W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    if t < 1e-4:
        a, b = 1.0 - t * t / 6.0, 0.5 - t * t / 24.0
    else:
        a, b = math.sin(t) / t, (1.0 - math.cos(t)) / (t * t)
    return np.eye(3) + a * W + b * (W @ W)


def _so3_tangent(w: FloatArray) -> FloatArray:
    """T(ξ) = I + (cos t − 1)/t² ξ̂ + (t − sin t)/t³ ξ̂² (seed 004 eq. (19)) = dexp_{−ξ}."""
    t = math.sqrt(float(w @ w))
    W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    if t < 1e-3:
        a, b = -0.5 + t * t / 24.0, 1.0 / 6.0 - t * t / 120.0
    else:
        a, b = (math.cos(t) - 1.0) / (t * t), (t - math.sin(t)) / (t**3)
    return np.eye(3) + a * W + b * (W @ W)


def _kit(group: Any) -> _GroupKit:
    if getattr(group, "name", "") == "SO3":
        return _GroupKit(_so3_exp, lambda R: R, _so3_tangent, lambda a, b: a @ b)
    return _GroupKit(group.exp, group.Ad, group.tangent, group.compose)


def split_cotangent(group: Any, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(g, μ) from a flat T*G state [g.ravel(), μ]."""
    n = int(np.prod(group.param_shape))
    return y[:n].reshape(group.param_shape), y[n:]


@dataclass(frozen=True)
class SLGI:
    """SLGI(θ) of seed 000 eqs. (15)–(17) for a ``CotangentHamiltonian``.

    Parameters
    ----------
    theta : θ ∈ [0, 1]; ½ gives order 2.
    solver : "newton" (simplified Newton, finite-difference Jacobian) or "fixed-point".
    tol, max_iter : stopping rule of the stage solver.
    """

    theta: float = 0.5
    solver: str = "newton"
    tol: float = 1e-13
    max_iter: int = 50
    name: str = ""
    system_type: ClassVar[type] = CotangentHamiltonian
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    error_order: ClassVar[None] = None

    def __post_init__(self) -> None:
        if not (isinstance(self.theta, (int, float)) and 0.0 <= self.theta <= 1.0):
            raise ValueError(f"SLGI: theta must lie in [0, 1], got {self.theta!r}")
        if self.solver not in ("newton", "fixed-point"):
            raise ValueError(f"SLGI: solver must be 'newton' or 'fixed-point', got {self.solver!r}")
        if not (math.isfinite(self.tol) and self.tol > 0) or not (
            isinstance(self.max_iter, int) and self.max_iter >= 1
        ):
            raise ValueError(f"SLGI: need tol > 0 and an integer max_iter ≥ 1, got tol={self.tol!r}, "
                             f"max_iter={self.max_iter!r}")
        if not self.name:
            object.__setattr__(self, "name", f"slgi-{self.theta:g}")

    @property
    def order(self) -> int:
        return 2 if self.theta == 0.5 else 1

    def init(self, system: CotangentHamiltonian, t0: float, y0: FloatArray) -> tuple[FloatArray, Any]:
        G = system.group
        y = np.array(y0, dtype=float)
        n = int(np.prod(G.param_shape))
        if y.shape != (n + G.dim,):
            raise ValueError(
                f"{self.name}: the state is flat [g.ravel(), μ] with {n} + {G.dim} entries, got shape "
                f"{y.shape}"
            )
        G.validate(y[:n].reshape(G.param_shape))
        return y, None

    def _map(self, system: CotangentHamiltonian, h: float, g0: FloatArray, mu0: FloatArray,
             z: FloatArray) -> FloatArray:
        """h f(exp(θξ) g₀, M_θ) of (15)–(16) as a function of z = (ξ, n̄)."""
        G, th = _kit(system.group), self.theta
        d = system.group.dim
        xi, nb = z[:d], z[d:]
        E = G.exp(th * xi)
        An = G.Ad(E).T @ nb
        M = G.tangent(xi).T @ (mu0 + An) - th * (G.tangent(th * xi).T @ An)
        a, b = system.hamiltonian_field(G.compose(E, g0), M)
        return h * np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])

    def step(self, system: CotangentHamiltonian, t: float, h: float, y: FloatArray,
             cache: Any) -> Step[FloatArray, Any]:
        """One step; ``cache`` carries (h, Jacobian) for reuse by the next step's simplified Newton."""
        G = system.group
        g0, mu0 = split_cotangent(G, y)
        a, b = system.hamiltonian_field(g0, mu0)
        z = h * np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
        J = cache[1] if (self.solver == "newton" and cache is not None and cache[0] == h) else None
        evals, fresh, dz = 1, False, np.full(z.size, np.inf)
        for it in range(1, self.max_iter + 1):
            r = z - self._map(system, h, g0, mu0, z)
            evals += 1
            if self.solver == "newton":
                if J is None or (it == 6 and not fresh):  # a stale Jacobian converging slowly: refresh once
                    J, e = self._jacobian(system, h, g0, mu0, z)
                    evals, fresh = evals + e, True
                dz = -np.linalg.solve(J, r)
            else:
                dz = -r
            z = z + dz
            if not np.all(np.isfinite(z)):
                break
            if np.linalg.norm(dz) <= self.tol * (1.0 + np.linalg.norm(z)):
                new_cache = (h, J) if J is not None else None
                return Step(self._update(G, g0, mu0, z), new_cache, evaluations=evals, iterations=it)
        return Step(y, cache, status=Status.SOLVER_FAILED, evaluations=evals, iterations=self.max_iter,
                    detail=f"SLGI stage equations (15)–(16) did not converge in {self.max_iter} iterations "
                           f"(|Δz| = {np.linalg.norm(dz):.2e})")

    def _jacobian(self, system: CotangentHamiltonian, h: float, g0: FloatArray, mu0: FloatArray,
                  z: FloatArray) -> tuple[FloatArray, int]:
        """I − ∂(h f ∘ (15))/∂z by forward differences (2·dim evaluations; the Jacobian only sets the rate of
        the simplified Newton iteration, not the solution)."""
        n = z.size
        J = np.eye(n)
        eps = 1e-7 * (1.0 + np.abs(z).max())
        base = self._map(system, h, g0, mu0, z)
        for k in range(n):
            e = np.zeros(n)
            e[k] = eps
            J[:, k] -= (self._map(system, h, g0, mu0, z + e) - base) / eps
        return J, n + 1

    def _update(self, G: Any, g0: FloatArray, mu0: FloatArray, z: FloatArray) -> FloatArray:
        """(17): g₁ = exp(ξ) g₀, μ₁ = Ad*_{exp((θ−1)ξ)} n̄ + Ad*_{exp(−ξ)} μ₀."""
        d = G.dim
        xi, nb = z[:d], z[d:]
        K = _kit(G)
        g1 = K.compose(K.exp(xi), g0)
        mu1 = K.Ad(K.exp((self.theta - 1.0) * xi)).T @ nb + K.Ad(K.exp(-xi)).T @ mu0
        return np.concatenate([np.asarray(g1).ravel(), mu1])

    def diagnostics(self, system: CotangentHamiltonian, t: float, y: FloatArray,
                    cache: Any) -> dict[str, float]:
        g, mu = split_cotangent(system.group, y)
        out = {"energy": float(system.hamiltonian(g, mu))}
        if supports(system, HasInvariants):
            out.update(system.invariants(t, y))
        return out


__all__ = ["SLGI", "split_cotangent"]
