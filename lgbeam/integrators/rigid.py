"""The seven second-order rigid-body integrators of seed 001 §4.1 on SO(3) × R³.

State ``MechanicalState(q=R, v=ω)`` (body angular velocity), system ``RigidBodySO3`` (J, τ(R) = −dU(R)).
Every method is symmetric and of order 2; ``retraction`` switches F between ``cay`` and ``exp``
(the thesis's choice is the default of each). Symbols: ``p`` a momentum, ``F`` the retraction,
``dF`` its right-trivialised tangent (``lgbeam.groups.cayley``), ``w`` the implicit unknown.

ELN   (4.1)  ω½ = ω + h/2 J⁻¹(Jω × ω + τ(R)),  R₁ = R F(hω½),  ω₁ = ω½ + h/2 J⁻¹(Jω₁ × ω₁ + τ(R₁))
TLN   (4.3)  (I + h/2 ω₁^)Jω₁ − h/2 τ(R₁) = (I − h/2 ω^)Jω + h/2 τ(R),  R₁ = R F(h(ω + ω₁)/2)
LIEMID[EA] (4.6)  Θ = h/2 J⁻¹F(−Θ/2)(Jω + h/2 τ),  R½ = R F(Θ),  Jω½ = F(−Θ)(Jω + h/2 τ), then the adjoint
             (F(−Θ) evaluated as F(−Θ/2)², identical for exp and symmetric for cay)
PRK   (4.8)  ω½ = ω + h/2 J⁻¹(τ(R) − ω½ × Jω½),  R₁ = R F(hω½),  ω₁ = ω½ + h/2 J⁻¹(τ(R₁) − ω½ × Jω½)
MCG   (4.9)  Jω½ = F(−h/2 ω½)(Jω + h/2 τ),  R₁ = R F(hω½),  Jω₁ = F(−hω½)(Jω + h/2 τ) + h/2 τ(R₁)
NEW3  (4.10) R½ = R F(h/2 ω),  F(h/2 ω₁)Jω₁ = F(−h/2 ω)Jω + h τ(R½),  R₁ = R½ F(h/2 ω₁)
VLV   (4.11) Jω + h/2 τ = (dF⁻¹_{hω½})ᵀJω½,  R₁ = R F(hω½),  Jω₁ = (dF⁻¹_{−hω½})ᵀJω½ + h/2 τ(R₁)

Corrections against the extraction (notes/001.md §3, §10): MCG (4.9c) has ``Jω_k`` where the text prints
``Jω_{k+1/2}`` (the literal form, ``MCG(literal_misprint=True)``, does not converge: a regression guard);
TLN's printed Jacobian has sign slips, so TLN uses a forward-difference Jacobian (same root). Implicit
equations are solved by a 3×3 Newton method stopped at ‖f‖ < ``tol`` (1e-12 in the thesis); a solve
that fails returns ``Status.SOLVER_FAILED`` with the iteration count.

References
----------
Ortolan (2011), seed 001, §4.1, eqs. (4.1)–(4.11); Simo & Vu-Quoc (1988); Krysl (2005); Nukala & Shelton
(2007); Koziara & Bićanić (2010); Bou-Rabee & Marsden (2009).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import UNIT_NORM_TOL, check_orthonormal, cross
from lgbeam.groups.cayley import Retraction
from lgbeam.integrators.base import Status, Step
from lgbeam.systems import MechanicalState, RigidBodySO3

logger = logging.getLogger(__name__)

_I3 = np.eye(3)


def hat(x: FloatArray) -> FloatArray:
    """3×3 skew matrix of a (3,) vector (fast scalar path of ``groups.base.hat3``)."""
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


class SolverFailure(Exception):
    """A Newton or fixed-point iteration that did not converge (``iterations``, ``residual``)."""

    def __init__(self, what: str, iterations: int, residual: float) -> None:
        super().__init__(f"{what} did not converge in {iterations} iterations (residual {residual:.3e})")
        self.iterations, self.residual = iterations, residual


@dataclass(frozen=True)
class Newton:
    """Newton's method for a small dense system f(x) = 0, stopped at ‖f(x)‖∞ < ``tol``.

    ``jac`` None: forward differences with steps 1e-7 (1 + |x_j|) (a Jacobian error ~1e-7 only slows
    the quadratic convergence to a linear rate ~1e-7, the root is the same).
    """

    tol: float = 1e-12
    max_iter: int = 50

    def __post_init__(self) -> None:
        if not (self.tol > 0 and np.isfinite(self.tol)):
            raise ValueError(f"Newton tolerance must be a finite number > 0, got tol = {self.tol!r}")
        if not (isinstance(self.max_iter, int) and self.max_iter >= 1):
            raise ValueError(f"Newton max_iter must be an integer >= 1, got {self.max_iter!r}")

    def solve(
        self,
        f: Callable[[FloatArray], FloatArray],
        x0: FloatArray,
        jac: Callable[[FloatArray], FloatArray] | None = None,
        what: str = "Newton",
    ) -> tuple[FloatArray, int]:
        """(root, iterations); ``SolverFailure`` after ``max_iter`` iterations or on a non-finite iterate."""
        x = np.array(x0, dtype=float)
        r = f(x)
        res = float(np.abs(r).max())
        for k in range(self.max_iter + 1):
            if res < self.tol:
                return x, k
            if k == self.max_iter or not np.isfinite(res):
                break
            Jm = jac(x) if jac is not None else fd_jacobian(f, x, r)
            try:
                x = x - np.linalg.solve(Jm, r)
            except np.linalg.LinAlgError:
                raise SolverFailure(f"{what} (singular Jacobian)", k + 1, res) from None
            r = f(x)
            res = float(np.abs(r).max())
        raise SolverFailure(what, self.max_iter, res)


def fd_jacobian(f: Callable[[FloatArray], FloatArray], x: FloatArray, fx: FloatArray) -> FloatArray:
    """Forward-difference Jacobian of f at x (fx = f(x))."""
    Jm = np.empty((fx.size, x.size))
    for j in range(x.size):
        d = 1e-7 * (1.0 + abs(x[j]))
        xp = x.copy()
        xp[j] += d
        Jm[:, j] = (f(xp) - fx) / d
    return Jm


def rot_jacobian(F: Retraction, a: float, w: FloatArray, v: FloatArray) -> FloatArray:
    """∂/∂w [F(a w) v] = −a (F(a w) v)^ dF_{a w}  (right-trivialised tangent, seed 001 Def. 2.1.4)."""
    return -a * hat(F.map(a * w) @ v) @ F.tangent(a * w)


def inertia_matrix(inertia: Any, name: str = "inertia") -> FloatArray:
    """J as a (3, 3) SPD matrix from a (3,) diagonal or a (3, 3) matrix; ValueError otherwise."""
    J = np.asarray(inertia, dtype=float)
    if J.shape == (3,):
        J = np.diag(J)
    if J.shape != (3, 3) or not np.all(np.isfinite(J)):
        raise ValueError(
            f"{name} must be 3 principal moments (3,) or a finite (3, 3) matrix, got shape {J.shape}"
        )
    if not np.allclose(J, J.T, rtol=1e-12, atol=1e-14 * np.abs(J).max()):
        raise ValueError(
            f"{name} must be symmetric, got J − Jᵀ with max |entry| {np.abs(J - J.T).max():.3e}; "
            "pass the symmetric inertia tensor (or its principal moments)"
        )
    if np.linalg.eigvalsh(J).min() <= 0:
        raise ValueError(f"{name} must be positive definite, got eigenvalues {np.linalg.eigvalsh(J)}; "
                         "principal moments of a rigid body are > 0")
    return J


@dataclass(frozen=True)
class RigidCache:
    """J, J⁻¹ and τ(R_k) (the torque at the current state, first same as last)."""

    J: FloatArray
    Jinv: FloatArray
    tau: FloatArray


@dataclass(frozen=True)
class _RigidMethod:
    """Shared init/step/diagnostics of the seven methods; a subclass defines ``_advance``."""

    retraction: str = "cay"
    tol: float = 1e-12
    max_iter: int = 50
    system_type: ClassVar[type] = RigidBodySO3
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False
    name: ClassVar[str] = ""  # each method's registered name
    order: ClassVar[int] = 2
    error_order: ClassVar[int | None] = None  # no embedded estimate: constant steps

    @property
    def F(self) -> Retraction:
        return Retraction(self.retraction)  # type: ignore[arg-type]  # validated there

    @property
    def newton(self) -> Newton:
        return Newton(self.tol, self.max_iter)

    def __post_init__(self) -> None:
        Retraction(self.retraction)  # type: ignore[arg-type]
        Newton(self.tol, self.max_iter)

    def init(self, system: RigidBodySO3, t0: float,
             y0: MechanicalState) -> tuple[MechanicalState, RigidCache]:
        J = inertia_matrix(system.inertia, f"{type(system).__name__}.inertia")
        R = np.array(y0.q, dtype=float)
        w = np.array(y0.v, dtype=float)
        if R.shape != (3, 3) or w.shape != (3,):
            raise ValueError(f"{self.name}: the state is MechanicalState(q=R (3, 3), v=ω (3,)), got shapes "
                             f"{R.shape} and {w.shape}")
        check_orthonormal(self.name, R, f"attitude R (tolerance {UNIT_NORM_TOL:g})")
        if not np.all(np.isfinite(w)):
            raise ValueError(f"{self.name}: angular velocity ω must be finite, got {w}")
        return MechanicalState(R, w), RigidCache(J, np.asarray(np.linalg.inv(J), dtype=np.float64),
                                                 self._torque(system, R))

    @staticmethod
    def _torque(system: RigidBodySO3, R: FloatArray) -> FloatArray:
        return np.asarray(system.torque(R), dtype=float)

    def step(self, system: RigidBodySO3, t: float, h: float, y: MechanicalState,
             cache: RigidCache) -> Step[Any, Any]:
        try:
            R1, w1, tau1, iters = self._advance(system, h, y.q, y.v, cache)
        except SolverFailure as exc:
            return Step(
                y, cache, status=Status.SOLVER_FAILED, detail=f"{self.name}: {exc}", iterations=exc.iterations
            )
        return Step(
            MechanicalState(R1, w1), RigidCache(cache.J, cache.Jinv, tau1), iterations=iters, evaluations=1
        )

    def _advance(
        self, system: RigidBodySO3, h: float, R: FloatArray, w: FloatArray, c: RigidCache
    ) -> tuple[FloatArray, FloatArray, FloatArray, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def diagnostics(self, system: RigidBodySO3, t: float, y: MechanicalState,
                    cache: RigidCache) -> dict[str, float]:
        return {"energy": float(0.5 * y.v @ cache.J @ y.v + system.potential(y.q))}


@dataclass(frozen=True)
class LieNewmarkExplicit(_RigidMethod):
    """ELN, explicit Lie–Newmark / Lie–Verlet (γ = ½, β = 0), seed 001 (4.1); Newton on (4.1c)."""

    name: ClassVar[str] = "eln"

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        J, Ji = c.J, c.Jinv
        wh = w + 0.5 * h * Ji @ (cross(J @ w, w) + c.tau)
        R1 = R @ self.F.map(h * wh)
        tau1 = self._torque(system, R1)
        g = wh + 0.5 * h * Ji @ tau1
        x, k = self.newton.solve(lambda x: -x + g + 0.5 * h * Ji @ cross(J @ x, x),
                                 wh, lambda x: -_I3 + 0.5 * h * Ji @ (hat(J @ x) - hat(x) @ J), "ELN (4.1c)")
        return R1, x, tau1, k


@dataclass(frozen=True)
class LieNewmarkTrapezoidal(_RigidMethod):
    """TLN, trapezoidal Lie–Newmark (γ = ½, β = ¼), fully implicit, seed 001 (4.3); difference Jacobian."""

    name: ClassVar[str] = "tln"

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        J, F = c.J, self.F
        rhs = J @ w - 0.5 * h * cross(w, J @ w) + 0.5 * h * c.tau

        def f(x: FloatArray) -> FloatArray:
            return (
                -(J @ x + 0.5 * h * cross(x, J @ x))
                + 0.5 * h * self._torque(system, R @ F.map(0.5 * h * (w + x)))
                + rhs
            )

        x, k = self.newton.solve(f, w, None, "TLN (4.3a)")
        R1 = R @ F.map(0.5 * h * (w + x))
        return R1, x, self._torque(system, R1), k


@dataclass(frozen=True)
class LieMidpointEA(_RigidMethod):
    """LIEMID[EA], Krysl's explicit approximation of the midpoint Lie algorithm, seed 001 (4.6); two Newton
    solves."""

    retraction: str = "exp"
    name: ClassVar[str] = "liemid"

    def _half(self, h: float, m: FloatArray, c: RigidCache, what: str) -> tuple[FloatArray, int]:
        """Θ = h/2 J⁻¹ F(−Θ/2) m."""
        F, Ji = self.F, c.Jinv
        return self.newton.solve(lambda th: -th + 0.5 * h * Ji @ (F.map(-0.5 * th) @ m), 0.5 * h * Ji @ m,
                                 lambda th: -_I3 + 0.5 * h * Ji @ rot_jacobian(F, -0.5, th, m), what)

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        F = self.F
        p = c.J @ w + 0.5 * h * c.tau
        th1, k1 = self._half(h, p, c, "LIEMID (4.6a)")
        half = F.map(-0.5 * th1)
        Rh, mh = R @ F.map(th1), half @ (half @ p)  # F(−Θ/2)² = exp(−Θ) for exp; symmetric for cay too
        th2, k2 = self._half(h, mh, c, "LIEMID (4.6d)")
        R1 = Rh @ F.map(th2)
        tau1 = self._torque(system, R1)
        half = F.map(-0.5 * th2)
        return R1, c.Jinv @ (half @ (half @ mh) + 0.5 * h * tau1), tau1, k1 + k2


@dataclass(frozen=True)
class PartitionedRKMK(_RigidMethod):
    """PRK, Lobatto IIIA–IIIB partitioned RKMK (Nukala & Shelton), seed 001 (4.7)–(4.8)."""

    name: ClassVar[str] = "prk"

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        J, Ji = c.J, c.Jinv
        p = w + 0.5 * h * Ji @ c.tau
        x, k = self.newton.solve(lambda x: -x + p - 0.5 * h * Ji @ cross(x, J @ x), w,
                                 lambda x: -_I3 - 0.5 * h * Ji @ (hat(x) @ J - hat(J @ x)), "PRK (4.8a)")
        R1 = R @ self.F.map(h * x)
        tau1 = self._torque(system, R1)
        return R1, x + 0.5 * h * Ji @ (tau1 - cross(x, J @ x)), tau1, k


@dataclass(frozen=True)
class ModifiedCrouchGrossman(_RigidMethod):
    """MCG, symmetric modified Crouch–Grossman splitting (Nukala & Shelton), seed 001 (4.9), (4.9c) corrected.

    ``literal_misprint=True`` evaluates (4.9c) as extracted, with Jω_{k+1/2} in place of Jω_k: inconsistent,
    it does not converge (kept only as the regression guard of notes/001.md §8 check 8).
    """

    retraction: str = "exp"
    literal_misprint: bool = False
    name: ClassVar[str] = "mcg"

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        F, Ji = self.F, c.Jinv
        p = c.J @ w + 0.5 * h * c.tau
        x, k = self.newton.solve(lambda x: -x + Ji @ (F.map(-0.5 * h * x) @ p), w,
                                 lambda x: -_I3 + Ji @ rot_jacobian(F, -0.5 * h, x, p), "MCG (4.9a)")
        R1 = R @ F.map(h * x)
        tau1 = self._torque(system, R1)
        if self.literal_misprint:  # (4.9c) as extracted: Jω_{k+1/2} in place of Jω_k
            return R1, Ji @ (F.map(-h * x) @ (c.J @ x + 0.5 * h * c.tau) + 0.5 * h * tau1), tau1, k
        # (4.9c) corrected, as the explicit CG half step F(−h/2 ω½) Jω½ (= exp(−hω½)(Jω + h/2 τ) for exp)
        return R1, Ji @ (F.map(-0.5 * h * x) @ (c.J @ x) + 0.5 * h * tau1), tau1, k


@dataclass(frozen=True)
class KoziaraBicanicNEW3(_RigidMethod):
    """NEW3, semi-explicit Koziara–Bićanić scheme, seed 001 (4.10): one torque evaluation per step."""

    retraction: str = "exp"
    name: ClassVar[str] = "new3"

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        F, J = self.F, c.J
        Rh = R @ F.map(0.5 * h * w)
        rhs = F.map(-0.5 * h * w) @ (J @ w) + h * self._torque(system, Rh)
        x, k = self.newton.solve(lambda x: -(F.map(0.5 * h * x) @ (J @ x)) + rhs, w,
                                 lambda x: -(rot_jacobian(F, 0.5 * h, x, J @ x) + F.map(0.5 * h * x) @ J),
                                 "NEW3 (4.10b)")
        return Rh @ F.map(0.5 * h * x), x, c.tau, k


@dataclass(frozen=True)
class VariationalLieVerlet(_RigidMethod):
    """VLV, variational Lie–Verlet (Bou-Rabee & Marsden), seed 001 (4.11): discrete Euler–Poincaré with F.

    With cay, (dcay⁻¹_{hw})ᵀJw = Jw + h/2 w × Jw + h²/4 (wᵀJw) w, the printed (4.11a); the analytic
    Jacobian is used for cay, differences for exp.
    """

    name: ClassVar[str] = "vlv"

    def _advance(self, system, h, R, w, c):  # type: ignore[no-untyped-def]
        F, J, Ji = self.F, c.J, c.Jinv
        p = J @ w + 0.5 * h * c.tau

        def f(x: FloatArray) -> FloatArray:
            return F.tangent_inv(h * x).T @ (J @ x) - p

        def jac(x: FloatArray) -> FloatArray:
            Jx = J @ x
            return (
                J + 0.5 * h * (hat(x) @ J - hat(Jx)) + 0.25 * h * h * (2.0 * np.outer(x, Jx) + (x @ Jx) * _I3)
            )

        x, k = self.newton.solve(f, w, jac if self.retraction == "cay" else None, "VLV (4.11a)")
        R1 = R @ F.map(h * x)
        tau1 = self._torque(system, R1)
        return R1, Ji @ (F.tangent_inv(-h * x).T @ (J @ x) + 0.5 * h * tau1), tau1, k


RIGID_METHODS: dict[str, type[_RigidMethod]] = {
    cls.name: cls for cls in (LieNewmarkExplicit, LieNewmarkTrapezoidal, LieMidpointEA, PartitionedRKMK,
                               ModifiedCrouchGrossman, KoziaraBicanicNEW3, VariationalLieVerlet)
}
RIGID_SUMMARIES: dict[str, str] = {
    "eln": "explicit Lie–Newmark (Lie–Verlet), cay (seed 001 (4.1))",
    "tln": "trapezoidal Lie–Newmark, fully implicit, cay (seed 001 (4.3))",
    "liemid": "LIEMID[EA], Krysl's explicit midpoint Lie approximation, exp (seed 001 (4.6))",
    "prk": "partitioned RKMK, Lobatto IIIA–IIIB, cay (seed 001 (4.8))",
    "mcg": "modified Crouch–Grossman splitting, exp, (4.9c) corrected (seed 001 (4.9))",
    "new3": "Koziara–Bićanić NEW3, semi-explicit, exp (seed 001 (4.10))",
    "vlv": "variational Lie–Verlet, cay, symplectic (seed 001 (4.11))",
}
RIGID_OPTIONS = ("retraction", "tol", "max_iter")

__all__ = ["RIGID_METHODS", "RIGID_OPTIONS", "RIGID_SUMMARIES", "KoziaraBicanicNEW3", "LieMidpointEA",
           "LieNewmarkExplicit", "LieNewmarkTrapezoidal", "ModifiedCrouchGrossman", "Newton",
           "PartitionedRKMK", "RigidCache", "SolverFailure", "VariationalLieVerlet", "fd_jacobian",
           "inertia_matrix"]
