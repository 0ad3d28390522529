"""Lie group methods on products of spheres (S²)ⁿ through the lift of seed 001 ch. 6, and Cartesian RATTLE.

State ``MechanicalState(q (n, 3), v=ω (n, 3))``, system ``ProductOfSpheres``. The lift (seed 001 (6.6)–(6.7)):
q_i = R_i q_i(0) with R_i' = Ω_i^ R_i (right-trivialised, spatial), Ω_i' = α_i(q, Ω), an ODE on
G = (SO(3) × R³)ⁿ with product (g, ξ)(h, η) = (gh, ξ + η), exp((ξ, a)) = (exp ξ, a) and the action
λ((u_R, u_W), (q, W)) = (exp(u_R) q, W + u_W) applied per sphere (we act on q directly instead of storing R:
identical results, notes/001.md §5.3). Vector field y(q, Ω) = (Ω, α(q, Ω)).

spheres-eln    (7.1)  Ω½ = Ω + h/2 α(q, Ω),  q₁ = exp(hΩ½) q,  Ω₁ = Ω½ + h/2 α(q₁, Ω₁)  (Newton if α depends on Ω)
spheres-rkmk4  RKMK with the classical RK4 tableau (the extraction's a₂₂ = ½ is a typo for a₂₁),
               dexp⁻¹ truncated after 3 Bernoulli terms (I − ½ad + 1/12 ad²)
spheres-rkmkgl4  RKMK with 2-stage Gauss–Legendre, stages by fixed-point iteration (threshold ``tol``)
spheres-rattle (7.4)  Cartesian RATTLE, one constraint |q_i|² = 1 per sphere: Newton on the n position
               multipliers, one n × n linear solve for the velocity multipliers (state converted by
               q' = ω × q and back by ω = q × q', exact on T(S²)ⁿ).

References
----------
Ortolan (2011), seed 001, eqs. (6.6)–(6.7), (7.1), (7.4), §5.4; Munthe-Kaas (1998); Andersen (1983);
Leimkuhler & Skeel (1994).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import cross
from lgbeam.integrators.base import Status, Step
from lgbeam.integrators.rigid import Newton, SolverFailure
from lgbeam.systems import MechanicalState, ProductOfSpheres

logger = logging.getLogger(__name__)

SQ3 = np.sqrt(3.0)
RK4_TABLEAU = (np.array([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1.0, 0]]),
               np.array([1 / 6, 1 / 3, 1 / 3, 1 / 6]))
GL4_TABLEAU = (np.array([[0.25, 0.25 - SQ3 / 6], [0.25 + SQ3 / 6, 0.25]]), np.array([0.5, 0.5]))


def rotate(u: FloatArray, q: FloatArray) -> FloatArray:
    """exp(u_i^) q_i for (n, 3) arrays (the action of the lift), by Rodrigues' formula on the vectors:
    q cos θ + (sin θ/θ) u × q + ((1 − cos θ)/θ²)(u·q) u, θ = |u|, with sin θ/θ = sinc(θ/π) and
    (1 − cos θ)/θ² = ½ sinc(θ/2π)² (no small-angle branch, no 3 × 3 matrices)."""
    th = np.sqrt(np.einsum("ij,ij->i", u, u))
    s = np.sinc(th / np.pi)
    c2 = 0.5 * np.sinc(th / (2.0 * np.pi)) ** 2
    uq = np.einsum("ij,ij->i", u, q)
    return q * (1.0 - th * th * c2)[:, None] + s[:, None] * cross(u, q) + (c2 * uq)[:, None] * u


@runtime_checkable
class HasCoupledParts(Protocol):
    """Optional capability of a ``ProductOfSpheres`` whose M couples the spheres: α(q, ω) = M̄(q)⁻¹ (c(q) +
    Σ_{j≠i} M_ij |ω_j|² q_i × q_j) (seed 001 (6.5b)), so spheres-ELN's implicit ω-solve factors M̄ once a
    step and takes the exact Jacobian instead of forward differences."""

    def coupled_parts(self, q: FloatArray) -> tuple[FloatArray, FloatArray]: ...


class CoupledSpheres(ProductOfSpheres, HasCoupledParts, Protocol):
    """A ``ProductOfSpheres`` with ``HasCoupledParts`` (what spheres-ELN's exact ω-Jacobian needs)."""


def _check_state(name: str, model: ProductOfSpheres, y: MechanicalState) -> MechanicalState:
    q, w = np.array(y.q, dtype=float), np.array(y.v, dtype=float)
    n = model.n_spheres
    if q.shape != (n, 3) or w.shape != (n, 3):
        raise ValueError(
            f"{name}: the state is MechanicalState(q (n, 3), v=ω (n, 3)) with n = {n}, got shapes "
            f"{q.shape} and {w.shape}"
        )
    dev = np.abs(np.linalg.norm(q, axis=1) - 1.0).max()
    if not dev <= 1e-10:
        raise ValueError(
            f"{name}: every q_i must be a unit vector (| |q_i| − 1 | = {dev:.2e} > 1e-10); normalise q"
        )
    return MechanicalState(q, w)


@dataclass(frozen=True)
class _SpheresMethod:
    tol: float = 1e-13
    max_iter: int = 100
    system_type: ClassVar[type] = ProductOfSpheres
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    label: ClassVar[str] = ""

    @property
    def name(self) -> str:
        return self.label

    @property
    def error_order(self) -> int | None:
        return None

    def __post_init__(self) -> None:
        Newton(self.tol, self.max_iter)  # validates tol and max_iter

    def init(self, model: ProductOfSpheres, t0: float, y0: MechanicalState) -> tuple[MechanicalState, Any]:
        y = _check_state(self.name, model, y0)
        return y, model.angular_acceleration(y.q, y.v)

    def diagnostics(self, model: ProductOfSpheres, t: float, y: MechanicalState,
                    cache: Any) -> dict[str, float]:
        return {"energy": float(model.energy(y.q, y.v)) if hasattr(model, "energy") else float("nan")}

    def _failed(self, y: MechanicalState, cache: Any, exc: SolverFailure) -> Step[Any, Any]:
        return Step(
            y, cache, status=Status.SOLVER_FAILED, detail=f"{self.name}: {exc}", iterations=exc.iterations
        )


@dataclass(frozen=True)
class SpheresELN(_SpheresMethod):
    """Spatial explicit Lie–Newmark on (S²)ⁿ, seed 001 (7.1); keeps q_i·Ω_i exactly (notes/001.md §8 check
    14)."""

    label: ClassVar[str] = "spheres-eln"

    @property
    def order(self) -> int:
        return 2

    def step(self, model: ProductOfSpheres, t: float, h: float, y: MechanicalState,
             cache: FloatArray) -> Step[Any, Any]:
        wh = y.v + 0.5 * h * cache
        q1 = rotate(h * wh, y.q)
        if not model.velocity_dependent:
            a1 = model.angular_acceleration(q1, wh)
            return Step(MechanicalState(q1, wh + 0.5 * h * a1), a1, evaluations=1)
        shape = wh.shape
        if isinstance(model, HasCoupledParts):
            f, jac = self._coupled_residual(model, q1, wh, h)
        else:
            f, jac = (
                (
                    lambda x: (
                        -x + wh.ravel() + 0.5 * h * model.angular_acceleration(q1, x.reshape(shape)).ravel()
                    )
                ),
                None,
            )
        try:
            x, k = Newton(self.tol, self.max_iter).solve(f, wh.ravel(), jac, "spheres-ELN (7.1d)")
        except SolverFailure as exc:
            return self._failed(y, cache, exc)
        w1 = x.reshape(shape)
        return Step(
            MechanicalState(q1, w1), model.angular_acceleration(q1, w1), iterations=k, evaluations=k + 1
        )

    @staticmethod
    def _coupled_residual(model: CoupledSpheres, q1: FloatArray, wh: FloatArray, h: float) -> tuple[Any, Any]:
        """(f, J) of ω₁ = Ω½ + h/2 α(q₁, ω₁) with M̄(q₁)⁻¹ formed once: α = M̄⁻¹(c + Σ_j M_ij |ω_j|² q_i × q_j),
        ∂/∂ω_j of the sum = 2 M_ij (q_i × q_j) ω_jᵀ (exact Jacobian, one small solve per Newton iteration)."""
        n = q1.shape[0]
        Mbar, c = model.coupled_parts(q1)
        Minv = np.linalg.inv(Mbar)
        M = np.asarray(model.mass_matrix, dtype=float)
        off = M - np.diag(np.diag(M))
        P = off[:, :, None] * cross(q1[:, None, :], q1[None, :, :])  # (n, n, 3): M_ij q_i × q_j
        base = wh.ravel()

        def alpha(x: FloatArray) -> FloatArray:
            w = x.reshape(n, 3)
            return Minv @ (c + np.einsum("ija,j->ia", P, np.einsum("ja,ja->j", w, w))).ravel()

        def f(x: FloatArray) -> FloatArray:
            return -x + base + 0.5 * h * alpha(x)

        def jac(x: FloatArray) -> FloatArray:
            D = 2.0 * P[:, :, :, None] * x.reshape(n, 3)[None, :, None, :]  # (i, j, a, b) = 2 P_ija x_jb
            return 0.5 * h * (Minv @ D.transpose(0, 2, 1, 3).reshape(3 * n, 3 * n)) - np.eye(3 * n)

        return f, jac


@dataclass(frozen=True)
class SpheresRKMK(_SpheresMethod):
    """RKMK on the lift G = (SO(3) × R³)ⁿ (seed 001 §7.1): explicit tableau, or implicit by fixed point."""

    tableau: str = "rk4"
    label: ClassVar[str] = "spheres-rkmk"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tableau not in ("rk4", "gl4"):
            raise ValueError(f"spheres RKMK tableau must be 'rk4' or 'gl4', got {self.tableau!r}")

    @property
    def name(self) -> str:
        return "spheres-rkmk4" if self.tableau == "rk4" else "spheres-rkmkgl4"

    @property
    def order(self) -> int:
        return 4

    def _stage(self, model: ProductOfSpheres, y: MechanicalState, uR: FloatArray,
               uW: FloatArray) -> tuple[FloatArray, FloatArray]:
        """k̃ = dexp⁻¹_u(y(λ(u, y₀))) for one stage u = (u_R, u_W) (n, 3) each; dexp⁻¹ truncated after three
        Bernoulli terms, W − ½ u × W + 1/12 u × (u × W) (``groups.cayley.dexp_inv_series``, order 4)."""
        q, W = rotate(uR, y.q), y.v + uW
        uW_ = cross(uR, W)
        return W - 0.5 * uW_ + cross(uR, uW_) / 12.0, model.angular_acceleration(q, W)

    def step(self, model: ProductOfSpheres, t: float, h: float, y: MechanicalState,
             cache: Any) -> Step[Any, Any]:
        A, b = RK4_TABLEAU if self.tableau == "rk4" else GL4_TABLEAU
        s = b.size
        KR = np.zeros((s,) + y.q.shape)
        KW = np.zeros((s,) + y.q.shape)
        iters = 0
        if self.tableau == "rk4":
            for i in range(s):
                KR[i], KW[i] = self._stage(model, y, h * np.tensordot(A[i, :i], KR[:i], 1),
                                           h * np.tensordot(A[i, :i], KW[:i], 1))
        else:  # fixed point: u_i = h Σ a_ij k̃_j, started from k̃_j = y(y₀) (seed 001 §7.1)
            KR[:], KW[:] = y.v, cache
            U = h * np.tensordot(A, np.stack([KR, KW], 1), 1)
            while True:
                iters += 1
                for i in range(s):
                    KR[i], KW[i] = self._stage(model, y, U[i, 0], U[i, 1])
                U_new = h * np.tensordot(A, np.stack([KR, KW], 1), 1)
                delta = float(np.abs(U_new - U).max())
                U = U_new
                if delta <= self.tol:
                    break
                if iters >= self.max_iter or not np.isfinite(delta):
                    exc = SolverFailure("RKMKGL4 fixed-point iteration", iters, delta)
                    return self._failed(y, cache, exc)
        vR, vW = h * np.tensordot(b, KR, 1), h * np.tensordot(b, KW, 1)
        q1, w1 = rotate(vR, y.q), y.v + vW
        a1 = model.angular_acceleration(q1, w1) if self.tableau == "gl4" else None
        return Step(MechanicalState(q1, w1), a1, iterations=iters, evaluations=s * max(iters, 1))


@dataclass(frozen=True)
class SpheresRattle(_SpheresMethod):
    """Cartesian RATTLE (seed 001 (7.4)) with one constraint |q_i|² = 1 per sphere and constant mass M."""

    label: ClassVar[str] = "spheres-rattle"

    @property
    def order(self) -> int:
        return 2

    def init(self, model: ProductOfSpheres, t0: float, y0: MechanicalState) -> tuple[MechanicalState, Any]:
        y = _check_state(self.name, model, y0)
        return y, (np.linalg.inv(model.mass_matrix), model.potential_gradient(y.q))

    def step(self, model: ProductOfSpheres, t: float, h: float, y: MechanicalState,
             cache: Any) -> Step[Any, Any]:
        Minv, dV = cache
        q, v = y.q, cross(y.v, y.q)  # q' = ω × q
        a = q + h * v - 0.5 * h * h * (Minv @ dV)  # q₁ = a − h² M⁻¹(λ ⊙ q): F(q)ᵀλ = 2λ_i q_i, halved by h/2

        def g(lam: FloatArray) -> FloatArray:
            q1 = a - h * h * Minv @ (lam[:, None] * q)
            return np.einsum("ij,ij->i", q1, q1) - 1.0

        def jac(lam: FloatArray) -> FloatArray:
            q1 = a - h * h * Minv @ (lam[:, None] * q)
            return -2.0 * h * h * Minv * (q1 @ q.T)

        try:
            lam, k = Newton(self.tol, self.max_iter).solve(g, np.zeros(model.n_spheres), jac, "RATTLE (7.4c)")
        except SolverFailure as exc:
            return self._failed(y, cache, exc)
        q1 = a - h * h * Minv @ (lam[:, None] * q)
        vh = (q1 - q) / h
        dV1 = model.potential_gradient(q1)
        b = vh - 0.5 * h * Minv @ dV1  # v₁ = b − h M⁻¹(μ ⊙ q₁), q₁_i·v₁_i = 0 (7.4e)
        mu = np.linalg.solve(h * Minv * (q1 @ q1.T), np.einsum("ij,ij->i", q1, b))
        v1 = b - h * Minv @ (mu[:, None] * q1)
        return Step(MechanicalState(q1, cross(q1, v1)), (Minv, dV1), iterations=k, evaluations=1)


SPHERES_METHODS: dict[str, Any] = {
    "spheres-eln": SpheresELN,
    "spheres-rkmk4": lambda **kw: SpheresRKMK(tableau="rk4", **kw),
    "spheres-rkmkgl4": lambda **kw: SpheresRKMK(tableau="gl4", **kw),
    "spheres-rattle": SpheresRattle,
}
SPHERES_SUMMARIES: dict[str, str] = {
    "spheres-eln": "spatial explicit Lie–Newmark on (S²)ⁿ via the lift to (SO(3)×R³)ⁿ (seed 001 (7.1))",
    "spheres-rkmk4": "RKMK4 on the lift (SO(3)×R³)ⁿ, classical RK4 (seed 001 §7.1)",
    "spheres-rkmkgl4": "RKMK with 2-stage Gauss–Legendre on the lift, fixed-point stages (seed 001 §7.1)",
    "spheres-rattle": "Cartesian RATTLE, one |q_i|² = 1 constraint per sphere (seed 001 (7.4))",
}
SPHERES_OPTIONS = ("tol", "max_iter")

__all__ = [
    "SPHERES_METHODS",
    "SPHERES_OPTIONS",
    "SPHERES_SUMMARIES",
    "SpheresELN",
    "SpheresRKMK",
    "SpheresRattle",
]
