"""Half-explicit Runge–Kutta Lie group methods for constrained mechanical systems.

Solves the index-2 formulation (seed 004 eqs. (5a)–(5c))

    q' = q · v^,   M v' = −g(t, q, v) − B(q)ᵀ λ,   0 = B(q) v

by the stage equations (12)–(15) of seed 004: an explicit first stage with λ_n, stage updates
Q_i = q_n ∘ exp(Θ_i), Θ_i' = T⁻¹(Θ_i) V_i, and for i = 2 … s̄ one saddle-point system (14)

    [ M            B(Q_i)ᵀ ] [V̇_i]   [ −g(t_n + c_i h, Q_i, V_i)                        ]
    [ h a_{i+1,i} B(Q_{i+1})   0 ] [Λ_i] = [ −B(Q_{i+1}) (v_n + h Σ_{j<i} a_{i+1,j} V̇_j) ]

which enforces the hidden constraint B(Q_{i+1}) V_{i+1} = 0. For rheonomic constraints Φ(t, q)
(``lgbeam.systems.RheonomicConstraints``, e.g. prescribed support motion) the hidden constraint is
B(t, q) v + Φ_t(t, q) = 0: every B is evaluated at its stage time (B(t_n + c_i h, Q_i)) and the
second right-hand side gains − Φ_t(t_n + c_{i+1} h, Q_{i+1}). Then q_{n+1} = Q_{s+1},
v_{n+1} = V_{s+1}, λ_{n+1} = Σ d_i Λ_i (eq. (15)). With m = 0 constraints the same code is an
RKMK-type Lie group Runge–Kutta method for q' = q·v^, M v' = −g.

Embedded error estimate (seed 004 §3.1): Θ̂ = h Σ b̂_j Θ̇_j, v̂ = v_n + h Σ b̂_j V̇_j with the same
stages; the error vector is (Θ_{s+1} − Θ̂, v_{n+1} − v̂) in the linear space y = (θ, v).

References
----------
Seed 004 (half-explicit RK Lie group methods), eqs. (12)–(15), (21); Brasey & Hairer (1993);
Arnold (1998); shared/notes/beam-reference-data.md §1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from lgbeam._typing import FloatArray, Matrix
from lgbeam.integrators import _compiled
from lgbeam.integrators._linear import SaddlePointSolver, SingularStageMatrix, as_matrix
from lgbeam.integrators.base import Status, Step, TableauOrders
from lgbeam.integrators.mechanics import (
    consistent_initial_state,
    hermite,
    initial_step,
    multipliers,
    project,
    residuals,
    stage_solver,
)
from lgbeam.integrators.tableaux import HalfExplicitTableau
from lgbeam.systems import (
    ConstrainedMechanicalSystem,
    MechanicalState,
    RheonomicConstraints,
    is_rheonomic,
    supports,
)


def _comb(c: FloatArray, S: FloatArray, k: int) -> FloatArray:
    """Σ_{j<k} c[j] S[j] (numpy path of ``jit.comb_rows``)."""
    return c[:k] @ S[:k]


def _axpy(base: FloatArray, c: FloatArray, S: FloatArray, k: int) -> FloatArray:
    """base + Σ_{j<k} c[j] S[j] (numpy path of ``jit.axpy_rows``)."""
    return base + c[:k] @ S[:k]


@dataclass(frozen=True)
class StageResult:
    """The stages' outcome of one step (internal; the driver sees a ``Step``)."""

    q: FloatArray
    v: FloatArray
    lam: FloatArray
    theta: FloatArray  # Θ_{s+1}: q_{n+1} = q_n ∘ exp(Θ_{s+1})
    error: Callable[[], FloatArray] | None  # () -> (Θ − Θ̂, v − v̂); None without embedded weights
    vdot_start: FloatArray  # V̇ of the explicit first stage
    vdot_end: FloatArray | None  # FSAL: V̇ at (q_{n+1}, v_{n+1}, λ_{n+1}), the next first stage
    n_force_evals: int


@dataclass(frozen=True, slots=True)
class HERKCache:
    """What a half-explicit step carries to the next: the stage solver of M, the FSAL first stage V̇₁
    (None: evaluate it), and whether the constraints depend on t."""

    lin: SaddlePointSolver
    vdot1: FloatArray | None
    rheonomic: bool


@dataclass(frozen=True)
class HalfExplicitRK(TableauOrders):
    """A half-explicit Runge–Kutta Lie group method given by its tableau (seed 004 Table 1).

    ``project_steps``: project every accepted step back onto Φ = 0, B v = 0 (mass-orthogonally);
    ``project_initial``: project inconsistent initial data instead of refusing it (tolerance
    ``consistency_tol`` on |Φ(q0)| and |B v0|).
    """

    tableau: HalfExplicitTableau
    project_steps: bool = False
    project_initial: bool = False
    consistency_tol: float = 1e-8
    system_type: ClassVar[type] = ConstrainedMechanicalSystem
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = True

    def __post_init__(self) -> None:
        A = self.tableau.A
        sub = np.array([A[i + 1, i] for i in range(1, self.tableau.stages)])
        if np.any(sub == 0):
            raise ValueError(
                f"tableau {self.tableau.name!r} has a zero coefficient a_(i+1,i); the stage systems (14) "
                "would be singular"
            )

    @property
    def name(self) -> str:
        return self.tableau.name

    def init(self, system: ConstrainedMechanicalSystem, t0: float,
             y0: MechanicalState) -> tuple[MechanicalState, HERKCache]:
        """Check the initial data (or project it), compute λ₀ when ``y0.lam`` is None, build the stage
        solver."""
        q = np.asarray(y0.q, dtype=float)
        lin = stage_solver(system, q)
        y = consistent_initial_state(system, lin, t0, y0, project_initial=self.project_initial,
                                     consistency_tol=self.consistency_tol)
        return y, HERKCache(lin, None, is_rheonomic(system))

    def step(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
             cache: HERKCache) -> Step[MechanicalState, HERKCache]:
        """One step t → t + h (seed 004 (12)–(15)); a singular stage matrix or an overflow is a failed
        step."""
        q, v, lam = y.q, y.v, multipliers(y)
        try:
            st = self.stages(system, cache.lin, t, h, q, v, lam, cache.vdot1, cache.rheonomic)
        except SingularStageMatrix as exc:
            return Step(y, cache, status=Status.SINGULAR, detail=f"stage system singular: {exc}")
        except FloatingPointError as exc:  # numpy set to raise (np.seterr): an exploding trial step
            return Step(y, cache, status=Status.NONFINITE, detail=f"floating-point error in a stage: {exc}")
        q1, v1, vdot_end = st.q, st.v, st.vdot_end
        if self.project_steps and system.n_constraints:
            q1, v1 = project(system, cache.lin, q1, v1, t=t + h)
            vdot_end = None
        lin, G = cache.lin, system.group

        def dense(sigma: float) -> MechanicalState:
            return hermite(G, q, v, lam, st.theta, q1, v1, st.lam, st.vdot_start, st.vdot_end, h, sigma)

        estimate = None
        if st.error is not None:
            err_fn, theta = st.error, st.theta

            def estimate() -> tuple[FloatArray, FloatArray]:
                return err_fn(), np.concatenate([np.abs(theta), np.maximum(np.abs(v), np.abs(v1))])

        return Step(
            MechanicalState(q1, v1, st.lam),
            HERKCache(lin, vdot_end, cache.rheonomic),
            estimate=estimate,
            dense=dense,
            evaluations=st.n_force_evals,
            retry_cache=HERKCache(lin, st.vdot_start, cache.rheonomic),
        )

    def checkpoint(self, cache: HERKCache) -> dict[str, Any]:
        """The cache without its stage solver (rebuilt from the constant M on restore)."""
        return {"vdot1": cache.vdot1, "rheonomic": cache.rheonomic}

    def restore(self, system: ConstrainedMechanicalSystem, y: MechanicalState,
                data: dict[str, Any]) -> HERKCache:
        return HERKCache(stage_solver(system, np.asarray(y.q, dtype=float)), data["vdot1"], data["rheonomic"])

    def diagnostics(self, system: ConstrainedMechanicalSystem, t: float, y: MechanicalState,
                    cache: HERKCache) -> dict[str, float]:
        """‖Φ‖, ‖B v‖ and the energy after a step."""
        return residuals(system, t, y.q, y.v, cache.lin, cache.rheonomic)

    def initial_step(self, system: ConstrainedMechanicalSystem, t0: float, y0: MechanicalState,
                     cache: HERKCache, rtol: FloatArray | float, atol: FloatArray | float,
                     h_max: float) -> float:
        """Starting step size of adaptive runs (Hairer, Nørsett & Wanner I, §II.4)."""
        return initial_step(system, cache.lin, t0, y0, self.error_order or self.order, rtol, atol, h_max)

    def stages(
        self,
        system: ConstrainedMechanicalSystem,
        lin: SaddlePointSolver,
        t: float,
        h: float,
        q: FloatArray,
        v: FloatArray,
        lam: FloatArray,
        vdot1: FloatArray | None = None,
        rheonomic: bool | None = None,
    ) -> StageResult:
        """The stages of one step t → t + h from (q, v, λ); ``vdot1`` is a first stage reused from the
        last step (FSAL). ``rheonomic``: whether the constraints depend on t (None: ask the system)."""
        tab, G = self.tableau, system.group
        A, c, sbar, s = tab.A, tab.c, tab.stages, tab.s
        n, m = v.size, lam.size
        dtheta = np.zeros((sbar, n))
        vdot = np.zeros((sbar, n))
        lams = np.zeros((sbar, m))
        n_eval = 0
        rheo = is_rheonomic(system) if rheonomic is None else rheonomic
        driven = system if rheo and supports(system, RheonomicConstraints) else None
        if driven is not None:
            def jac(tt: float, X: FloatArray) -> Matrix:
                return as_matrix(driven.constraint_jacobian_t(tt, X))
        else:
            def jac(tt: float, X: FloatArray) -> Matrix:
                return as_matrix(system.constraint_jacobian(X))
        if vdot1 is None:
            r1 = -system.forces(t, q, v)
            if m:
                r1 = r1 - lin.rmatvec(jac(t, q), lam)
            vdot1 = lin.explicit(r1)
            n_eval += 1
        vdot[0], dtheta[0], lams[0] = vdot1, v, lam  # T⁻¹(0) = I
        Q_next = G.retract(q, h * A[1, 0] * dtheta[0])
        Q_end = Q_next if s == 1 else None
        B_i = jac(t + c[1] * h, Q_next) if m else None
        hA = h * A
        comb, axpy = (_compiled.comb_rows, _compiled.axpy_rows) if lin.compiled and v.dtype == np.float64 \
            else (_comb, _axpy)
        for i in range(1, sbar):
            Theta_i, Q_i = comb(hA[i], dtheta, i), Q_next
            V_i = axpy(v, hA[i], vdot, i)
            dtheta[i] = G.tangent_inv_apply(Theta_i, V_i)
            Q_next = G.retract(q, comb(hA[i + 1], dtheta, i + 1))
            if i + 1 == s:
                Q_end = Q_next
            r1 = -system.forces(t + c[i] * h, Q_i, V_i)
            n_eval += 1
            if m:
                B_next = jac(t + c[i + 1] * h, Q_next)
                r2 = -lin.matvec(B_next, axpy(v, hA[i + 1], vdot, i))
                if driven is not None:
                    r2 = r2 - driven.constraint_rate(t + c[i + 1] * h, Q_next)
                vdot[i], lams[i] = lin.solve(r1, B_i, B_next, h * A[i + 1, i], r2)
                B_i = B_next
            else:
                vdot[i] = lin.explicit(r1)
        theta = comb(hA[s], dtheta, sbar)
        q1 = Q_end if Q_end is not None else G.retract(q, theta)
        v1 = axpy(v, hA[s], vdot, sbar)
        lam1 = tab.d @ lams
        error = None
        if tab.b_hat is not None:
            b_hat, w = tab.b_hat, A[s] - tab.b_hat

            def error() -> FloatArray:  # evaluated only when a controller asks (not in constant-step runs)
                return np.concatenate([theta - h * (b_hat @ dtheta), h * (w @ vdot)])
        return StageResult(
            q=q1, v=v1, lam=lam1, theta=theta, error=error, vdot_start=vdot1,
            vdot_end=vdot[-1] if tab.fsal else None, n_force_evals=n_eval,
        )
