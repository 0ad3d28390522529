"""Lie group generalized-α for constrained mechanical systems (Arnold & Brüls 2007; Brüls, Cardona & Arnold 2012).

For M v' + g(t, q, v) + B(q)ᵀλ = 0, Φ(q) = 0, q' = q · v^ (seed 004 eq. (1)) one step
t_n → t_{n+1} = t_n + h is

    q_{n+1} = q_n ∘ exp(h Δq_n),          Δq_n = v_n + (½ − β) h a_n + β h a_{n+1}
    v_{n+1} = v_n + (1 − γ) h a_n + γ h a_{n+1}
    (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) v̇_{n+1} + α_f v̇_n
    M v̇_{n+1} + g(t_{n+1}, q_{n+1}, v_{n+1}) + B(q_{n+1})ᵀ λ_{n+1} = 0

with the Chung–Hulbert parameters of the spectral radius at infinity ρ∞ ∈ [0, 1]

    α_m = (2ρ∞ − 1)/(ρ∞ + 1),  α_f = ρ∞/(ρ∞ + 1),  γ = ½ + α_f − α_m,  β = ¼ (γ + ½)²

(second order, unconditionally stable for linear problems, high-frequency dissipation set by ρ∞; ρ∞ = 1:
no numerical damping, the trapezoidal rule). The constraints are imposed

- ``index = "3"``: at position level, Φ(q_{n+1}) = 0 (Arnold & Brüls 2007 eq. (13));
- ``index = "2-stabilised"``: Φ(q_{n+1}) = 0 and B(q_{n+1}) v_{n+1} = 0 with the position update
  q_{n+1} = q_n ∘ exp(h Δq_n + B(q_n)ᵀ ν_{n+1}) (GGL stabilisation; Arnold, Brüls & Cardona 2015, eq. (9)):
  v and λ then converge at order 2 from the first step on, without the O(h) transient of the index-3 form.

Rheonomic constraints (``RheonomicConstraints``) use Φ(t_{n+1}, ·) and B(t_{n+1}, ·) v + Φ_t.

Newton iteration on the algebra increment θ = h Δq_n (and λ, ν): with β' = (1 − α_m)/(βh²(1 − α_f)) and
γ' = γ/(βh) the iteration matrix is S_t = M β' + C_t γ' + K_t T(θ) (Brüls, Cardona & Arnold 2012, eq. (62)),
K_t = stiffness + constraint stiffness and C_t = damping from ``HasTangents`` (or coloured central
differences, ``_implicit.FiniteDifferenceTangents``). The equilibrium rows are scaled by 1/β' and λ by β'
(the usual 1/(βh²) scaling of the constraint rows: the matrix tends to [[M, Bᵀ], [B, 0]] as h → 0):

    index 3:          [ M + γ'/β' C_t + K_t T/β'   Bᵀ ] [δθ]     [ r/β' ]
                      [ B T                         0 ] [δλ̃] = − [ Φ    ],   λ += β' δλ̃

    index 2-stabilised adds the unknown ν (column [K_t T B_nᵀ/β'; B T B_nᵀ; 0]) and the row B δθ = −B v/γ'.

Predictor: of v̇_{n+1} = v̇_n (constant acceleration) and θ = 0 (q_{n+1} = q_n) the one with the smaller
scaled residual starts the iteration (one extra residual per step). On fine rod meshes right after a load the
first extrapolates the large high-frequency accelerations of the stiff modes, whose converged increments are
tiny, and starts 1e8 tolerances away: steel cantilever N = 4096, h = 1 ms, 10 steps: 60 Newton iterations from
v̇_n, 20 from the better of the two (N = 256, 2 ms: 41 → 26; N = 16, 5 ms unchanged).

The matrix is factorised by sparse LU (O(N) for the block-banded rod) and reused across iterations and steps
while h is unchanged; the shared controller (``_newton``) decides convergence, refresh and failure, and cuts a
failed step into halves down to h/64; only a failure below that floor is returned (``Status.SOLVER_FAILED``,
naming t, the halvings and the residual): adaptive runs retry it smaller, fixed-step runs stop with the last
converged state.

Error estimate (optional adaptive steps): the local error of the Newmark position update, estimated as
e = (β − 1/6) h² (a_{n+1} − a_n) (Zienkiewicz & Xie 1991, eq. (9)), an O(h³) quantity, so ``error_order`` = 2.

References
----------
Chung & Hulbert (1993), J. Appl. Mech. 60, eqs. (25)–(27) (parameters); Arnold & Brüls (2007),
"Convergence of the generalized-α scheme for constrained mechanical systems", Multibody Syst. Dyn. 18,
eqs. (10)–(13); Brüls, Cardona & Arnold (2012), "Lie group generalized-α time integration of constrained
flexible multibody systems", Mech. Mach. Theory 48, §4, Algorithm 1 and eq. (62); Arnold, Brüls & Cardona
(2015), "Error analysis of generalized-α Lie group time integration methods for constrained mechanical
systems", Numer. Math. 129, eq. (9) (stabilised index-2 form); Zienkiewicz & Xie (1991), Earthquake Eng.
Struct. Dyn. 20 (local error estimate).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray
from lgbeam.integrators._banded import BandedLU
from lgbeam.integrators._compiled import ga_band_matrix, ga_iterate, ga_rhs, ga_solve_update, ga_update
from lgbeam.integrators._implicit import (
    DENSE_LIMIT,
    NONFINITE_SOLVE,
    FiniteDifferenceTangents,
    HasChainTangentBlocks,
    KKTFactor,
    SingularNewtonMatrix,
    abs_max,
    block_size,
    chain_band_plan,
    dense_if_small,
    position_tangent,
    tangent_blocks,
    tangents_for,
    velocity_tangent,
)
from lgbeam.integrators._linear import SaddlePointSolver
from lgbeam.integrators._newton import NewtonControl, Verdict, cut_steps
from lgbeam.integrators.base import Status, Step, check_iteration_options
from lgbeam.integrators.mechanics import (
    consistent_initial_state,
    hermite,
    initial_step,
    jac,
    multipliers,
    newton_residual_fn,
    residuals,
    stage_solver,
)
from lgbeam.systems import ConstrainedMechanicalSystem, MechanicalState, is_rheonomic, supports

INDEX_FORMS = ("3", "2-stabilised")


_NO_CSR = (np.zeros(1, np.int32), np.zeros(0, np.int32), np.zeros(0))


@runtime_checkable
class HasGAEvaluator(Protocol):
    """Optional capability of a system with a diagonal mass matrix: a generalized-α residual evaluation, and a whole
    Newton iteration, each in one compiled call (``CosseratRod``: ``rods._compiled.ga_rod_evaluate``,
    ``ga_rod_iterate``). ``ga_evaluator(t_{n+1}, q_n)`` returns (``evaluate``, ``iterate``):
    ``evaluate(λ, θ̃, B_nᵀν, base, βh², v_base, hγ, v̇_base, (1 − α_m)/(1 − α_f), diag M, 1/β', γ', m, index 2)``
    → (θ, v_{n+1}, v̇_{n+1}, q_{n+1}, scaled right-hand side, max|g|, max|M v̇|, max|θ|), equal to the protocol
    path of ``GeneralizedAlpha._step`` (``newton_residual``) to round-off; ``iterate(lub, kl, ku, piv, perm, rhs,
    θ̃, λ, ν, B_nᵀν, B_n's CSR arrays, base, …, index 2)`` → ``_compiled.ga_solve_update``'s results followed by
    ``evaluate``'s at the corrected iterate. None where the system has none."""

    def ga_evaluator(self, t: float, q: FloatArray) -> tuple[Callable[..., tuple[Any, ...]],
                                                              Callable[..., tuple[Any, ...]]] | None: ...


@functools.cache
def _ones(n: int) -> FloatArray:
    return np.ones(n)


def _diagonal(M: Any) -> FloatArray | None:
    """The diagonal of a diagonal mass matrix (then M v̇ is one vector product), else None."""
    if sp.issparse(M):
        d = M.diagonal()
        return d if M.nnz == np.count_nonzero(d) else None
    M = np.asarray(M)
    d = np.diag(M).copy()
    return d if np.count_nonzero(M) == np.count_nonzero(d) else None


def chung_hulbert(rho_inf: float) -> tuple[float, float, float, float]:
    """(α_m, α_f, β, γ) of the spectral radius at infinity ρ∞ ∈ [0, 1] (Chung & Hulbert 1993, eqs.
    (25)–(27))."""
    r = float(rho_inf)
    if not (math.isfinite(r) and 0.0 <= r <= 1.0):
        raise ValueError(
            f"rho_inf must lie in [0, 1] (spectral radius at infinity: 1 no numerical damping, 0 "
            f"the most), got {rho_inf!r}; e.g. integrator.rho_inf = 0.9"
        )
    am = (2 * r - 1) / (r + 1)
    af = r / (r + 1)
    gamma = 0.5 + af - am
    beta = 0.25 * (gamma + 0.5) ** 2
    return am, af, beta, gamma


@dataclass(frozen=True, slots=True)
class GACache:
    """What a generalized-α step carries: M, M⁻¹ (``lin``), the pseudo-acceleration a_n, v̇_n, the
    tangent helper (None: the system's exact tangents), the factorised Newton matrix and the step it
    belongs to (reuse), and whether the constraints depend on t."""

    M: Any
    lin: SaddlePointSolver
    a: FloatArray
    vdot: FloatArray
    fd: FiniteDifferenceTangents | None
    factor: KKTFactor | None
    factor_h: float
    rheonomic: bool
    n_factorisations: int = 0
    force_floor: float = 0.0
    mdiag: FloatArray | None = None  # the diagonal of a diagonal M (M v̇ as one vector product)
    n_cuts: int = 0  # steps halved after a Newton failure (``_newton.cut_steps``)


@dataclass(frozen=True)
class GeneralizedAlpha:
    """Lie group generalized-α (module docstring): ``rho_inf`` ∈ [0, 1], ``index`` "3" | "2-stabilised",
    Newton tolerance ``tol`` (relative to the step increment θ and to the force level for λ) and
    ``max_iter`` iterations per step; ``reuse`` keeps the factorised iteration matrix across steps.
    ``project_initial``/``consistency_tol`` as for the half-explicit methods."""

    rho_inf: float = 0.9
    index: str = "2-stabilised"
    tol: float = 1e-8
    max_iter: int = 20
    reuse: bool = True
    project_initial: bool = False
    consistency_tol: float = 1e-8
    system_type: ClassVar[type] = ConstrainedMechanicalSystem
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = True
    name: ClassVar[str] = "gen-alpha"
    order: ClassVar[int] = 2
    error_order: ClassVar[int | None] = 2  # the Zienkiewicz–Xie estimate (module docstring)

    def __post_init__(self) -> None:
        chung_hulbert(self.rho_inf)
        if self.index not in INDEX_FORMS:
            raise ValueError(
                f"generalized-α index must be one of {', '.join(map(repr, INDEX_FORMS))} (constraints at "
                f"position level, or stabilised index 2), got {self.index!r}"
            )
        check_iteration_options(self.tol, self.max_iter)

    @property
    def parameters(self) -> tuple[float, float, float, float]:
        """(α_m, α_f, β, γ)."""
        return chung_hulbert(self.rho_inf)

    def init(self, system: ConstrainedMechanicalSystem, t0: float,
             y0: MechanicalState) -> tuple[MechanicalState, GACache]:
        """Check the initial data, compute λ₀ (index-1 condition) and the consistent acceleration a₀ = v̇₀."""
        q = np.asarray(y0.q, dtype=float)
        lin = stage_solver(system, q)
        y = consistent_initial_state(system, lin, t0, y0, project_initial=self.project_initial,
                                     consistency_tol=self.consistency_tol)
        r = -np.asarray(system.forces(t0, y.q, y.v), dtype=float)
        if system.n_constraints:
            r = r - jac(system, t0, y.q).T @ y.lam
        vdot = lin.explicit(r)
        lin.products_only()  # the steps multiply by B only: drop the Schur arrays of the initial λ₀ solve
        fd = tangents_for(system, t0, y.q, y.v, multipliers(y))
        M = dense_if_small(system.mass(y.q))
        return y, GACache(M, lin, vdot, vdot, fd, None, math.nan, is_rheonomic(system), mdiag=_diagonal(M))

    def diagnostics(self, system: ConstrainedMechanicalSystem, t: float, y: MechanicalState,
                    cache: GACache) -> dict[str, float]:
        """‖Φ‖, ‖B v‖ and the energy after a step."""
        return residuals(system, t, y.q, y.v, cache.lin, cache.rheonomic)

    def checkpoint(self, cache: GACache) -> dict[str, Any]:
        """The cache as data (``HasCheckpoint``): a_n, v̇_n and the counters; M, M⁻¹, the tangent helper
        and the factorised matrix are rebuilt on restore (the resumed run refactorises at its first step,
        so it agrees with an uninterrupted run to the Newton tolerance, not bit for bit)."""
        return {"a": cache.a, "vdot": cache.vdot, "rheonomic": cache.rheonomic,
                "n_factorisations": cache.n_factorisations, "force_floor": cache.force_floor}

    def restore(self, system: ConstrainedMechanicalSystem, y: MechanicalState,
                data: dict[str, Any]) -> GACache:
        q = np.asarray(y.q, dtype=float)
        M = dense_if_small(system.mass(q))
        fd = tangents_for(system, 0.0, q, y.v, multipliers(y))
        return GACache(M, stage_solver(system, q), np.asarray(data["a"], dtype=float),
                       np.asarray(data["vdot"], dtype=float), fd, None, math.nan,
                       bool(data["rheonomic"]), int(data["n_factorisations"]), float(data["force_floor"]),
                       mdiag=_diagonal(M))

    def initial_step(self, system: ConstrainedMechanicalSystem, t0: float, y0: MechanicalState,
                     cache: GACache, rtol: FloatArray | float, atol: FloatArray | float,
                     h_max: float) -> float:
        """Starting step size of adaptive runs (Hairer, Nørsett & Wanner I, §II.4)."""
        return initial_step(system, cache.lin, t0, y0, 2, rtol, atol, h_max)

    @property
    def newton(self) -> NewtonControl:
        """The Newton controller (``_newton``) of this configuration."""
        return NewtonControl(self.tol, self.max_iter)

    def step(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
             cache: GACache) -> Step[MechanicalState, GACache]:
        """One step t → t + h; a step whose Newton iteration fails is cut into halves
        (``_newton.cut_steps``, down to h/2^max_cuts); only a failure below that floor is returned as a
        failed step (never raised)."""
        return cut_steps(functools.partial(self._attempt, system), t, h, y, cache, self.newton.max_cuts,
                         on_cut=lambda c: replace(c, n_cuts=c.n_cuts + 1))

    def _attempt(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
                 cache: GACache) -> Step[MechanicalState, GACache]:
        """One step at h exactly; Newton failures, singular matrices and floating-point errors as failed
        steps."""
        try:
            return self._step(system, t, h, y, cache)
        except SingularNewtonMatrix as exc:
            retry = replace(cache, factor=None, factor_h=math.nan)
            return Step(
                y,
                cache,
                status=Status.SINGULAR,
                detail=f"generalized-α Newton matrix at t = {t + h:.6g} (h = {h:.3g}): {exc}",
                retry_cache=retry,
                advice="check the constraints and supports (redundant or contradictory rows)",
            )
        except FloatingPointError as exc:
            return Step(
                y,
                cache,
                status=Status.NONFINITE,
                detail=f"floating-point error in the Newton iteration at "
                f"t = {t + h:.6g} (h = {h:.3g}): {exc}",
                retry_cache=replace(cache, factor=None, factor_h=math.nan),
            )

    def _matrix(self, system: ConstrainedMechanicalSystem, cache: GACache, t1: float, q1: FloatArray,
                v1: FloatArray, lam1: FloatArray, theta: FloatArray, B1: Any, Bn: Any, s: float,
                gp: float) -> tuple[KKTFactor, float]:
        """Factorise the scaled iteration matrix at the current iterate (module docstring); also return the
        round-off level of the forces, 1e-14 max|K_t| max(1, |q|), below which λ corrections are noise."""
        fast = self._chain_matrix(system, cache, t1, q1, v1, lam1, theta, B1, Bn, s, gp)
        if fast is not None:
            return fast
        T = tangent_blocks(system.group, theta)
        KT = position_tangent(system, cache.fd, t1, q1, v1, lam1) @ T
        floor = 1e-14 * abs_max(KT) * max(1.0, np.abs(q1).max())
        A = cache.M + (s * gp) * velocity_tangent(system, cache.fd, t1, q1, v1) + s * KT
        bs = block_size(system)
        if not system.n_constraints:
            return KKTFactor.build([[A]], bs), floor
        B1 = sp.csr_array(B1)
        BT = B1 @ T
        if self.index == "3":
            return KKTFactor.build([[A, B1.T], [BT, None]], bs), floor
        BnT = sp.csr_array(Bn).T
        return KKTFactor.build([[A, s * (KT @ BnT), B1.T], [BT, BT @ BnT, None], [B1, None, None]], bs), floor

    def _chain_matrix(self, system: ConstrainedMechanicalSystem, cache: GACache, t1: float, q1: FloatArray,
                      v1: FloatArray, lam1: FloatArray, theta: FloatArray, B1: Any, Bn: Any, s: float,
                      gp: float) -> tuple[KKTFactor, float] | None:
        """``_matrix`` of a node chain with exact tangent blocks (``HasChainTangentBlocks``) and a diagonal M: the
        matrix straight into band storage in one compiled pass (``_compiled.ga_band_matrix``) and LAPACK's dgbtrf;
        None where that does not apply (the sparse assembly then)."""
        mdiag = getattr(cache, "mdiag", None)
        if cache.fd is not None or mdiag is None or not supports(system, HasChainTangentBlocks):
            return None
        T = system.node_tangent_blocks(theta)
        n, m = mdiag.size, system.n_constraints
        if T.ndim != 3 or T.shape[1:] != (6, 6) or 6 * T.shape[0] != n:
            return None
        idx2 = self.index == "2-stabilised" and m > 0
        B1c = (B1 if type(B1) is sp.csr_array else sp.csr_array(B1)) if m else None
        Bnc = (Bn if type(Bn) is sp.csr_array else sp.csr_array(Bn)) if idx2 else B1c
        if n + m + (m if idx2 else 0) <= DENSE_LIMIT:
            return None
        plan = chain_band_plan(T.shape[0], B1c if B1c is not None else sp.csr_array((0, n)), Bnc, idx2)
        blocks = system.chain_tangent_blocks(t1, q1, v1, lam1) if plan is not None else None
        if plan is None or blocks is None:
            return None
        perm, inv, kl, ku = plan
        b1 = (B1c.indptr, B1c.indices, np.ascontiguousarray(B1c.data, dtype=float)) if B1c is not None else _NO_CSR
        bn = (Bnc.indptr, Bnc.indices, np.ascontiguousarray(Bnc.data, dtype=float)) if Bnc is not None else _NO_CSR
        ab, ok, kt_max = ga_band_matrix(*blocks, T, mdiag, s, s * gp, *b1, *bn, m, idx2, inv, kl, ku)
        if not ok:  # an entry outside the band, or not finite: the sparse path (which names the latter)
            return None
        band = BandedLU.from_band(ab, perm.size, perm, kl, ku)
        if band is None:
            raise SingularNewtonMatrix("the Newton matrix is singular (zero pivot in the banded LU)")
        return KKTFactor(perm.size, band.solve, band), 1e-14 * kt_max * max(1.0, float(np.abs(q1).max()))

    def _step(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
              cache: GACache) -> Step[MechanicalState, GACache]:
        am, af, be, ga = self.parameters
        G, M = system.group, cache.M
        q, v, lam = y.q, y.v, multipliers(y)
        a_n, vd_n = cache.a, cache.vdot
        n, m = v.size, system.n_constraints
        idx2 = self.index == "2-stabilised" and m > 0
        t1 = t + h
        s = be * h * h * (1 - af) / (1 - am)  # 1/β'
        gp = ga / (be * h)  # γ'
        bh2 = be * h * h
        base = h * v + h * h * (0.5 - be) * a_n  # θ = base + βh² a_{n+1}
        v_base = v + h * (1 - ga) * a_n  # v_{n+1} = v_base + γh a_{n+1}
        vd_base = (am * a_n - af * vd_n) / (1 - af)  # v̇_{n+1} = vd_base + (1 − α_m)/(1 − α_f) a_{n+1}
        a1 = (vd_n - am * a_n) / (1 - am)  # predictor v̇_{n+1} = v̇_n
        th = base + bh2 * a1
        lam1 = np.array(lam, dtype=float)
        nu = np.zeros(m)
        Bnu = np.zeros(n)
        Bn = jac(system, t, q) if idx2 else None
        if Bn is not None:  # idx2
            Bc = Bn if type(Bn) is sp.csr_array else sp.csr_array(Bn)
            bn = (Bc.indptr, Bc.indices, np.ascontiguousarray(Bc.data, dtype=np.float64))
        else:
            bn = _NO_CSR
        residual = newton_residual_fn(system, cache.lin, cache.rheonomic)
        mdiag = getattr(cache, "mdiag", None)  # None also for a checkpoint written before the field existed
        factor = cache.factor if (self.reuse and cache.factor_h == h) else None
        n_fact, n_eval = cache.n_factorisations, 0
        force_floor = cache.force_floor
        floor = 1e-14 * max(1.0, float(np.abs(q).max()))
        newton = self.newton.start()
        c_v, c_vd = h * ga, (1 - am) / (1 - af)
        mv = _ones(n) if mdiag is None else mdiag

        kernels = (system.ga_evaluator(t1, q) if mdiag is not None and not cache.rheonomic
                   and supports(system, HasGAEvaluator) else None)
        consts = (base, bh2, v_base, c_v, vd_base, c_vd, mv, s, gp, m, idx2)

        def evaluate(th: FloatArray) -> tuple[Any, ...]:
            """(θ, v_{n+1}, v̇_{n+1}, q_{n+1}, scaled right-hand side, max|g|, max|M v̇|, max|θ|) at the iterate θ̃."""
            if kernels is not None:  # the system's one compiled call (``HasGAEvaluator``), the same arithmetic
                return kernels[0](lam1, th, Bnu, *consts)
            theta, v1, vd1 = ga_iterate(th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd)
            q1 = G.retract(q, theta)
            g1, btl, ph, bv = residual(t1, q1, v1, lam1)
            mvd = vd1 if mdiag is not None else np.asarray(M @ vd1, dtype=float)  # non-diagonal M: M v̇ first
            return (theta, v1, vd1, q1, *ga_rhs(mv, mvd, g1, btl, ph, bv, s, gp, m, idx2), float(np.abs(theta).max()))

        # predictor: the better by scaled residual of v̇_{n+1} = v̇_n and θ = 0 (module docstring)
        start = evaluate(th)
        still = evaluate(base * 0.0)
        n_eval += 2
        if np.linalg.norm(still[4]) < np.linalg.norm(start[4]):
            th, start = base * 0.0, still
        first: tuple[Any, ...] | None = start  # None: evaluate at the new iterate
        while True:
            if first is None:
                first = evaluate(th)
                n_eval += 1
            theta, v1, vd1, q1, rhs, g_max, mvd_max, th_max = first
            first = None
            if factor is None:
                B1 = jac(system, t1, q1) if m else None
                factor, force_floor = self._matrix(system, cache, t1, q1, v1, lam1, theta, B1, Bn, s, gp)
                newton.built()
                n_fact += 1
            if (band := factor.band) is not None and kernels is not None:  # the whole iteration in one call:
                finite, th, lam1, nu, Bnu, d_th, d_lam, lam_max, d_bnu, *after = kernels[1](  # correct, evaluate
                    band.lub, band.kl, band.ku, band.piv, band.perm, rhs, th, lam1, nu, Bnu, *bn, *consts)
                if not finite:
                    raise SingularNewtonMatrix(NONFINITE_SOLVE)
                first = tuple(after)  # the evaluation at the corrected iterate (also the step's end if converged)
                n_eval += 1
            elif band is not None:  # substitution and update in one compiled call
                finite, th, lam1, nu, Bnu, d_th, d_lam, lam_max, d_bnu = ga_solve_update(
                    band.lub, band.kl, band.ku, band.piv, band.perm, rhs, th, lam1, nu, Bnu, *bn, s, m, idx2)
                if not finite:
                    raise SingularNewtonMatrix(NONFINITE_SOLVE)
            else:
                dx = factor.solve(rhs)
                th, lam1, nu, Bnu, d_th, d_lam, lam_max, d_bnu = ga_update(dx, th, lam1, nu, Bnu, *bn, s, m, idx2)
            # relative to the increment θ and to the force level, above the round-off floor of the solve; for λ
            # the floor is the round-off of λ = μ/s from the scaled solve (measured up to ~1e-10 relative)
            allowed_th = self.tol * th_max + floor
            corr, allowed = [d_th], [allowed_th]
            if m:
                corr.append(d_lam)
                allowed.append((self.tol + 1e-9) * (lam_max + g_max + mvd_max) + force_floor + 1e-300)
            if idx2:
                corr.append(d_bnu)
                allowed.append(allowed_th)
            verdict = newton.judge(corr, allowed)
            if verdict is Verdict.CONVERGED:
                break
            if verdict is Verdict.FAILED:
                res = float(np.linalg.norm(rhs))
                detail = (f"generalized-α Newton {newton.describe()} at t = {t1:.6g} (h = {h:.3g}), scaled "
                          f"residual {res:.3e}")
                new_cache = replace(cache, factor=None, factor_h=math.nan, n_factorisations=n_fact)
                return Step(
                    y,
                    new_cache,
                    status=Status.SOLVER_FAILED,
                    detail=detail,
                    evaluations=n_eval,
                    iterations=newton.it,
                    retry_cache=new_cache,
                    advice=newton.advice("generalized-α"),
                )
            if verdict is Verdict.REFRESH:
                factor = None
        if first is not None:  # evaluated at the converged iterate by the fused iteration: the same arithmetic
            theta, v1, vd1, q1 = first[:4]
        else:
            theta, v1, vd1 = ga_iterate(th, Bnu, base, bh2, v_base, c_v, vd_base, c_vd)
            q1 = G.retract(q, theta)
        a1 = (th - base) / bh2
        new_cache = replace(cache, a=a1, vdot=vd1, factor=factor, factor_h=h, n_factorisations=n_fact,
                            force_floor=force_floor)
        error = (be - 1.0 / 6.0) * h * h * (a1 - a_n)

        def dense(sigma: float) -> MechanicalState:
            return hermite(G, q, v, lam, theta, q1, v1, lam1, vd_n, vd1, h, sigma)

        return Step(
            MechanicalState(q1, v1, lam1),
            new_cache,
            error=error,
            magnitude=np.abs(theta),
            dense=dense,
            evaluations=n_eval,
            iterations=newton.it,
        )


__all__ = ["INDEX_FORMS", "GACache", "GeneralizedAlpha", "HasGAEvaluator", "chung_hulbert"]
