"""A Lie group variational integrator of RATTLE/SHAKE type for constrained mechanical systems.

For a system M v' = −g − Bᵀλ, Φ(q) = 0, q' = q · v^ with constant M and forces of the form

    g(t, q, v) = −ad_vᵀ M v + g₀(t, q),      g₀(t, q) = g(t, q, 0)

(the left-trivialised Euler–Lagrange equations of L = ½ vᵀMv − V(q) with, optionally, time- and
position-dependent loads: g₀ = ∇V − f(t, q)), the discrete Lagrangian on G × G with the increment
f = log(q₀⁻¹ q₁),

    L_d(q₀, q₁) = (1/2h) fᵀ M f − h V(q_½),     q_½ = q₀ ∘ exp(f/2)          ("midpoint", default)
    L_d(q₀, q₁) = (1/2h) fᵀ M f − (h/2)(V(q₀) + V(q₁))                         ("trapezoidal")

gives with the constrained discrete Legendre transforms (Marsden & West 2001, §3.5; seed 003 eq. (1.39))
and body momenta μ = M v the one-step map (SHAKE for the positions, RATTLE for the velocities)

    μ₀ = (1/h) T(−f)⁻ᵀ M f + h P₀ᵀ g₀(t_½, q_½) + (h/2) B(q₀)ᵀ Λ₀,     Φ(q₀ ∘ exp f) = 0
    μ₁ = (1/h) T(f)⁻ᵀ M f − h P₁ᵀ g₀(t_½, q_½) − (h/2) B(q₁)ᵀ Λ₁,       B(q₁) M⁻¹ μ₁ = 0

with P₀ = ½ T(−f/2) T(−f)⁻¹ and P₁ = ½ T(f/2) T(f)⁻¹ (the derivatives of q_½ along left-translated
variations of q₀ and q₁; the trapezoidal rule replaces h P₀ᵀ g₀(q_½) by (h/2) g₀(t₀, q₀) and h P₁ᵀ g₀(q_½)
by (h/2) g₀(t₁, q₁)). Loads other than a potential enter as the discrete Lagrange–d'Alembert forces at the
same quadrature points. The first line (n + m equations for f, Λ₀) is solved by Newton with the exact
tangent K = ∂g₀/∂q of ``HasTangents`` (finite differences otherwise) and the derivatives of the group maps
T(±f)⁻ᵀ, P₀ (block-local central differences: one block per node, O(N)); the second line is one linear
saddle-point solve with M.

Multipliers: Λ₀ and Λ₁ are each first-order approximations of λ, but their mean is λ(t_n + h/2) + O(h²)
(the method is symmetric). λ_{n+1} is reported as the linear extrapolation to t_{n+1} of the midpoint values
of this and the previous step (of λ₀ and this step's midpoint value on the first step): order 2. It is
output only; the dynamics never use it.

Properties: symplectic and, for a G-invariant V, momentum-preserving (discrete Noether; the rod's
potential depends on q_{i−1}⁻¹q_i only), symmetric, order 2 (Marsden & West 2001, Thm 2.3.1 and §1.6;
L_d is a second-order quadrature of the action). The classical RATTLE quadrature ("trapezoidal") is explicit
in the forces and stable only for h ω_max < 2 — for a steel beam h ≲ 1e-5 s; the midpoint quadrature is
implicit and for linear(ised) problems unconditionally stable with bounded energy (it reduces to the
implicit midpoint rule in flat space), which is what stiff structures need.

Scope: constant mass matrices and forces of the form above. ``init`` checks the form: it compares
g(t₀, q₀, v) − g(t₀, q₀, 0) with −ad_vᵀ M v for a test velocity and refuses (ValueError) a system with
velocity-dependent forces beyond the gyroscopic terms (material damping, say): a variational integrator
of the conservative part would silently drop them.

References
----------
Marsden & West (2001), "Discrete mechanics and variational integrators", Acta Numerica 10, §§1.6, 2.3, 3.5
(constrained discrete Legendre transforms), 3.2 (discrete Lagrange–d'Alembert forcing); seed 003 ch. 1
eqs. (1.27), (1.39) and ch. 3 (quaternion LGVI; /work/shared/notes/003-ch3plus.md Parts A.5–A.7, B);
Bou-Rabee & Marsden (2009), "Hamilton–Pontryagin integrators on Lie groups", Found. Comput. Math. 9
(left-trivialised discrete Legendre transforms through dexp⁻¹ = T⁻¹); Hante, Tumiotto & Arnold (2022),
"A Lie group variational integration approach to the full discretization of a constrained geometrically
exact Cosserat beam model", Multibody Syst. Dyn. 54.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from lgbeam._typing import FloatArray
from lgbeam.integrators._implicit import (
    FD_EPS,
    BlockDiagonalGroup,
    FiniteDifferenceTangents,
    KKTFactor,
    SingularNewtonMatrix,
    abs_max,
    dense_if_small,
    tangent_blocks,
    tangents_for,
)
from lgbeam.integrators._linear import SaddlePointSolver, SingularStageMatrix
from lgbeam.integrators._newton import NewtonControl, Verdict, cut_steps
from lgbeam.integrators.base import Status, Step, check_iteration_options
from lgbeam.integrators.mechanics import (
    consistent_initial_state,
    hermite,
    jac,
    multipliers,
    phi,
    residuals,
    stage_solver,
)
from lgbeam.systems import (
    ConstrainedMechanicalSystem,
    HasTangents,
    LieGroup,
    MechanicalState,
    RheonomicConstraints,
    is_rheonomic,
    supports,
)

QUADRATURES = ("midpoint", "trapezoidal")
BLOCK_EPS = 1e-7  # central-difference step of the block-local group-map derivatives (relative error ~1e-13)


def _blocks(x: Any, d: int) -> FloatArray:
    return np.asarray(x, dtype=float).reshape(-1, d, d)


def _bmv(A: FloatArray, x: FloatArray, transpose: bool = False) -> FloatArray:
    """Blockwise A x (or Aᵀ x) for blocks A (nb, d, d) and flat x (nb·d,)."""
    nb, d, _ = A.shape
    xb = x.reshape(nb, d)
    out = np.einsum("bji,bj->bi", A, xb) if transpose else np.einsum("bij,bj->bi", A, xb)
    return out.reshape(-1)


def _block_dim(G: LieGroup, n: int) -> int:
    T = np.asarray(G.tangent(np.zeros(n)))
    return int(T.shape[-1])


def _momentum_map(G: LieGroup, d: int, f: FloatArray, Mf: FloatArray, g: FloatArray, h: float, midpoint: bool,
                  side: int) -> FloatArray:
    """h × the discrete momentum at the start (side = 0: T(−f)⁻ᵀMf + h² P₀ᵀg) or end (side = 1:
    T(f)⁻ᵀMf − h² P₁ᵀg) of a step, without the constraint and the trapezoidal end-point terms."""
    sgn = -1.0 if side == 0 else 1.0
    Tinv = _blocks(G.tangent_inv(sgn * f), d)
    out = _bmv(Tinv, Mf, transpose=True)
    if midpoint:
        Th = _tangent(G, d, 0.5 * sgn * f)
        pg = 0.5 * _bmv(Tinv, _bmv(Th, g, transpose=True), transpose=True)  # P ᵀ g = ½ T⁻ᵀ T(±f/2)ᵀ g
        out = out - sgn * h * h * pg
    return out


def _tangent(G: LieGroup, d: int, x: FloatArray) -> FloatArray:
    """Blocks (nb, d, d) of T(x), as the batched inverse of the T(x)⁻¹ blocks: equal to ``G.tangent`` to
    round-off (well conditioned near the identity) and half its cost for S³⋉R³, whose T has the costlier
    series (the translational coupling block)."""
    return np.asarray(np.linalg.inv(_blocks(G.tangent_inv(x), d)), dtype=np.float64)


GROWING = "high-frequency mode of the discrete map is growing"
GROWTH_RATIO = 10.0  # healthy steel-cantilever runs: max|v_n| / max|f/h| ≤ 1.6; at the 5-ms failures 50–128


def _growing_mode_note(v: FloatArray, v_half: FloatArray | None) -> str:
    """A hint for a failed step: the state's velocities far above the last step's mean velocity f/h mark a
    growing high-frequency mode of the discrete map (docs/implicit.md, "rattle-lgvi: large steps and
    cost"), which no Newton safeguard can make correct; empty otherwise."""
    if v_half is None:
        return ""
    mean = np.abs(v_half).max(initial=0.0)
    ratio = np.abs(v).max(initial=0.0) / mean if mean > 0.0 else 0.0
    if ratio <= GROWTH_RATIO:
        return ""
    return (
        f"; the state's velocities are {ratio:.0f}× the last step's mean velocity f/h: a {GROWING} at this h "
        "(docs/implicit.md, 'rattle-lgvi: large steps and cost')"
    )


def _block_jacobian(fun: Callable[[FloatArray], FloatArray], f: FloatArray, d: int) -> FloatArray:
    """Blocks (nb, d, d) of the block-diagonal Jacobian of a blockwise map, by central differences
    (component k of every block perturbed at once: 2d evaluations whatever the number of blocks)."""
    nb = f.size // d
    J = np.empty((nb, d, d))
    for k in range(d):
        e2 = np.zeros((nb, d))
        e2[:, k] = BLOCK_EPS
        e = e2.reshape(-1)
        J[:, :, k] = ((fun(f + e) - fun(f - e)) / (2 * BLOCK_EPS)).reshape(nb, d)
    return J


@dataclass(frozen=True, slots=True)
class VICache:
    """What a variational step carries: M, M⁻¹ (``lin``), the tangent helper (None: exact tangents),
    the block size of the group, the last Λ₀ and mean velocity f/h (predictors), the forces g₀ at the step's
    end (trapezoidal: reused as the next start), and whether the constraints depend on t."""

    M: Any
    lin: SaddlePointSolver
    fd: FiniteDifferenceTangents | None
    d: int
    lam0: FloatArray
    v_half: FloatArray | None
    g_end: FloatArray | None
    rheonomic: bool
    lam_mid: FloatArray | None = None
    h_prev: float = 0.0
    factor: KKTFactor | None = None
    force_floor: float = 0.0
    B_end: Any = None  # B(t₁, q₁) of the last step: this step's B(t₀, q₀) when the state is unchanged
    tq_end: tuple[float, FloatArray] | None = None
    n_cuts: int = 0  # steps halved after a Newton failure (``_newton.cut_steps``)


def _check_conservative(system: ConstrainedMechanicalSystem, t0: float, q: FloatArray, v: FloatArray,
                        M: sp.csr_array, d: int) -> None:
    """ValueError unless g(t, q, v) − g(t, q, 0) = −ad_vᵀ M v (module docstring)."""
    G = system.group
    rng = np.random.default_rng(2024)
    u = rng.normal(size=v.size) * (1.0 + np.abs(v).max(initial=0.0))
    dg = np.asarray(system.forces(t0, q, u), dtype=float) - np.asarray(
        system.forces(t0, q, np.zeros_like(u)), dtype=float
    )
    gyro = -_bmv(_blocks(G.ad(u), d), M @ u, transpose=True)
    scale = np.abs(dg).max(initial=0.0) + np.abs(gyro).max(initial=0.0) + 1e-300
    gap = np.abs(dg - gyro).max(initial=0.0)
    if gap > 1e-8 * scale:
        raise ValueError(
            f"rattle-lgvi integrates conservative systems (forces g(t, q) plus the gyroscopic terms −ad_vᵀMv): "
            f"the forces of {type(system).__name__} depend on the velocity otherwise (relative gap {gap / scale:.1e}; "
            "material damping?). Set the damping to zero, or use gen-alpha, whose iteration includes damping"
        )


@dataclass(frozen=True)
class RattleLGVI:
    """Lie group variational integrator of RATTLE/SHAKE type (module docstring): ``quadrature`` of the
    potential "midpoint" (implicit, for stiff structures) or "trapezoidal" (classical RATTLE, explicit in
    the forces); Newton tolerance ``tol`` and ``max_iter`` iterations per step."""

    quadrature: str = "midpoint"
    tol: float = 1e-8
    max_iter: int = 20
    project_initial: bool = False
    consistency_tol: float = 1e-8
    system_type: ClassVar[type] = ConstrainedMechanicalSystem
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = True
    name: ClassVar[str] = "rattle-lgvi"
    order: ClassVar[int] = 2
    error_order: ClassVar[int | None] = None  # no embedded estimate: constant steps

    def __post_init__(self) -> None:
        if self.quadrature not in QUADRATURES:
            raise ValueError(
                f"rattle-lgvi quadrature must be one of {', '.join(map(repr, QUADRATURES))}, got "
                f"{self.quadrature!r}"
            )
        check_iteration_options(self.tol, self.max_iter)

    def init(self, system: ConstrainedMechanicalSystem, t0: float,
             y0: MechanicalState) -> tuple[MechanicalState, VICache]:
        """Check the initial data and the form of the forces; λ₀ from the index-1 condition."""
        q = np.asarray(y0.q, dtype=float)
        lin = stage_solver(system, q)
        y = consistent_initial_state(system, lin, t0, y0, project_initial=self.project_initial,
                                     consistency_tol=self.consistency_tol)
        M = dense_if_small(system.mass(y.q))
        d = _block_dim(system.group, y.v.size)
        _check_conservative(system, t0, y.q, y.v, M, d)
        fd = tangents_for(system, t0, y.q, np.zeros_like(y.v), np.zeros(system.n_constraints))
        return y, VICache(M, lin, fd, d, np.array(y.lam, dtype=float), None, None, is_rheonomic(system))

    def diagnostics(self, system: ConstrainedMechanicalSystem, t: float, y: MechanicalState,
                    cache: VICache) -> dict[str, float]:
        """‖Φ‖, ‖B v‖ and the energy after a step."""
        return residuals(system, t, y.q, y.v, cache.lin, cache.rheonomic)

    def checkpoint(self, cache: VICache) -> dict[str, Any]:
        """The cache as data (``HasCheckpoint``): the predictors and the forces at the step's end; M, M⁻¹, the
        tangent helper and the factorised matrix are rebuilt on restore (a resumed run refactorises)."""
        return {"d": cache.d, "lam0": cache.lam0, "v_half": cache.v_half, "g_end": cache.g_end,
                "rheonomic": cache.rheonomic, "lam_mid": cache.lam_mid, "h_prev": cache.h_prev,
                "force_floor": cache.force_floor}

    def restore(self, system: ConstrainedMechanicalSystem, y: MechanicalState,
                data: dict[str, Any]) -> VICache:
        q = np.asarray(y.q, dtype=float)
        fd = tangents_for(system, 0.0, q, np.zeros_like(y.v), np.zeros(system.n_constraints))
        return VICache(
            dense_if_small(system.mass(q)),
            stage_solver(system, q),
            fd,
            int(data["d"]),
            np.asarray(data["lam0"], dtype=float),
            data["v_half"],
            data["g_end"],
            bool(data["rheonomic"]),
            data["lam_mid"],
            float(data["h_prev"]),
            None,
            float(data["force_floor"]),
        )

    @property
    def newton(self) -> NewtonControl:
        """The Newton controller (``_newton``) of this configuration."""
        return NewtonControl(self.tol, self.max_iter)

    def step(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
             cache: VICache) -> Step[MechanicalState, VICache]:
        """One step t → t + h; a step whose Newton iteration fails is cut into halves
        (``_newton.cut_steps``, down to h/2^max_cuts) unless a high-frequency mode of the discrete map is
        growing (``_growing_mode_note``: smaller steps would hide, not cure, it); a failure is returned as
        a failed step (never raised)."""
        return cut_steps(functools.partial(self._attempt, system), t, h, y, cache, self.newton.max_cuts,
                         can_cut=lambda st: GROWING not in st.detail,
                         on_cut=lambda c: replace(c, n_cuts=c.n_cuts + 1))

    def _attempt(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
                 cache: VICache) -> Step[MechanicalState, VICache]:
        """One step at h exactly; Newton failures, singular matrices and floating-point errors as failed
        steps."""
        try:
            return self._step(system, t, h, y, cache)
        except (SingularNewtonMatrix, SingularStageMatrix) as exc:
            return Step(
                y,
                cache,
                status=Status.SINGULAR,
                detail=f"rattle-lgvi Newton matrix at t = {t + h:.6g} (h = {h:.3g}): {exc}",
                advice="check the constraints and supports (redundant or contradictory rows)",
            )
        except FloatingPointError as exc:
            return Step(
                y,
                cache,
                status=Status.NONFINITE,
                detail=f"floating-point error in the Newton iteration at "
                f"t = {t + h:.6g} (h = {h:.3g}): {exc}",
            )

    def _g0(self, system: ConstrainedMechanicalSystem, t: float, q: FloatArray) -> FloatArray:
        return np.asarray(system.forces(t, q, np.zeros(system.group.dim)), dtype=float)

    def _stiffness(self, system: ConstrainedMechanicalSystem, cache: VICache, t: float,
                   q: FloatArray) -> sp.csr_array:
        zero = np.zeros(system.group.dim)
        if cache.fd is None:
            assert supports(system, HasTangents), "fd is None only with exact tangents (tangents_for)"
            return sp.csr_array(system.stiffness(t, q, zero))
        return cache.fd.colouring.jacobian(lambda w: self._g0(system, t, system.group.retract(q, w)), FD_EPS)

    def _step(self, system: ConstrainedMechanicalSystem, t: float, h: float, y: MechanicalState,
              cache: VICache) -> Step[MechanicalState, VICache]:
        G, M, d = system.group, cache.M, cache.d
        q, v = y.q, y.v
        n, m = v.size, system.n_constraints
        mid = self.quadrature == "midpoint"
        th, t1 = t + 0.5 * h, t + h
        hmu0 = h * (M @ v)
        B0 = None
        if m:
            reuse = cache.tq_end is not None and cache.tq_end[0] == t and np.array_equal(cache.tq_end[1], q)
            B0 = cache.B_end if reuse else jac(system, t, q)
            B0T = B0.T.tocsr() if sp.issparse(B0) else np.ascontiguousarray(np.asarray(B0).T)  # once per step
        trap0 = None
        if not mid:  # the explicit start-point term (h²/2) g₀(t, q₀) (FSAL from the last step)
            g_start = cache.g_end if cache.g_end is not None else self._g0(system, t, q)
            trap0 = 0.5 * h * h * g_start
        # predictor: f ≈ h v_{n+½} ≈ h (2 v_n − v_{n−½})
        f = h * v if cache.v_half is None else h * (2.0 * v - cache.v_half)
        lt = 0.5 * h * h * (cache.lam0 if cache.lam0.size == m else np.zeros(m))  # Λ̃₀ = (h²/2) Λ₀
        factor = cache.factor if cache.h_prev == h else None  # reuse across steps of equal size
        force_floor = cache.force_floor
        n_eval = 0
        newton = self.newton.start()
        g_half = np.zeros(n)
        while True:
            q1 = G.retract(q, f)
            if mid:
                q_half = G.retract(q, 0.5 * f)
                g_half = self._g0(system, th, q_half)
                n_eval += 1
            Mf = M @ f
            R1 = _momentum_map(G, d, f, Mf, g_half, h, mid, 0) - hmu0
            if trap0 is not None:
                R1 = R1 + trap0
            if m:
                R1 = R1 + B0T @ lt
            parts = [-R1]
            if m:
                parts.append(-phi(system, t1, q1))
            if factor is None:
                factor, force_floor = self._matrix(system, cache, f, h, th, q, g_half, B0, t1, q1, mid)
                newton.built()
            dx = factor.solve(np.concatenate(parts))
            df = dx[:n]
            f = f + df
            dlt = dx[n:]
            lt = lt + dlt
            force_scale = np.abs(g_half if mid else g_start).max(initial=0.0)
            # relative to the increment and to the force level, above the round-off floor of the solve
            corr = [float(np.abs(df).max())]
            allowed = [self.tol * float(np.abs(f).max()) + 1e-14 * max(1.0, float(np.abs(q).max()))]
            if m:
                scale_l = np.abs(lt).max() + 0.5 * h * h * force_scale
                floor_l = 1e-13 * (np.abs(Mf).max() + np.abs(hmu0).max()) + 0.5 * h * h * force_floor
                corr.append(float(np.abs(dlt).max()))
                allowed.append(float(self.tol * scale_l + floor_l))
            verdict = newton.judge(corr, allowed)
            if verdict is Verdict.CONVERGED:
                break
            if verdict is Verdict.FAILED:
                res = float(np.linalg.norm(np.concatenate(parts)))
                detail = f"rattle-lgvi Newton {newton.describe()} at t = {t1:.6g} (h = {h:.3g}), residual {res:.3e}"
                note = _growing_mode_note(v, cache.v_half)
                advice = (
                    "use a smaller integrator.h or gen-alpha (whose numerical damping removes the mode)"
                    if note
                    else newton.advice("rattle-lgvi")
                )
                return Step(y, cache, status=Status.SOLVER_FAILED, detail=detail + note, evaluations=n_eval,
                            iterations=newton.it, advice=advice)
            if verdict is Verdict.REFRESH:
                factor = None
        return self._close(system, cache, t, h, y, f, lt, factor, force_floor, n_eval, newton.it)

    def _close(self, system: ConstrainedMechanicalSystem, cache: VICache, t: float, h: float, y: MechanicalState,
               f: FloatArray, lt: FloatArray, factor: KKTFactor | None, force_floor: float, n_eval: int,
               iterations: int) -> Step[MechanicalState, VICache]:
        """The end of a converged step: q₁ = q₀ ∘ f, the end momentum's velocity v₁ and multipliers (hidden
        constraint B₁ v₁ = −Φ_t), λ at t₁ through the midpoint values, the cache of the next step."""
        G, M, d = system.group, cache.M, cache.d
        q, v, lam = y.q, y.v, multipliers(y)
        m, mid = system.n_constraints, self.quadrature == "midpoint"
        th, t1 = t + 0.5 * h, t + h
        g_half = np.zeros(v.size)
        q1 = G.retract(q, f)
        if mid:
            q_half = G.retract(q, 0.5 * f)
            g_half = self._g0(system, th, q_half)
            n_eval += 1
        hmu1 = _momentum_map(G, d, f, M @ f, g_half, h, mid, 1)
        g_end = None
        if not mid:
            g_end = self._g0(system, t1, q1)
            n_eval += 1
            hmu1 = hmu1 - 0.5 * h * h * g_end
        B1 = None
        if m:
            B1 = jac(system, t1, q1)
            r2 = np.zeros(m)
            if cache.rheonomic and supports(system, RheonomicConstraints):
                r2 = -system.constraint_rate(t1, q1)
            v1, lam_s = cache.lin.solve(hmu1 / h, B1, B1, 1.0, r2)
            lam1 = 2.0 * lam_s / h
        else:
            v1, lam1 = cache.lin.explicit(hmu1 / h), np.zeros(0)
        lam0 = 2.0 * lt / (h * h)
        mean = 0.5 * (lam0 + lam1)  # λ(t_n + h/2) + O(h²)
        if cache.lam_mid is None:  # through λ_n and the midpoint value
            lam_out = 2.0 * mean - lam
        else:  # through the midpoint values of this and the last step
            lam_out = mean + (0.5 * h) * (mean - cache.lam_mid) / (0.5 * (h + cache.h_prev))
        new_cache = VICache(M, cache.lin, cache.fd, d, lam0, f / h, g_end, cache.rheonomic, mean, h, factor,
                            force_floor, B1, (t1, q1), cache.n_cuts)

        def dense(sigma: float) -> MechanicalState:
            return hermite(G, q, v, lam, f, q1, v1, lam_out, None, None, h, sigma)

        return Step(MechanicalState(q1, v1, lam_out), new_cache, dense=dense, evaluations=n_eval,
                    iterations=iterations)

    def _matrix(self, system: ConstrainedMechanicalSystem, cache: VICache, f: FloatArray, h: float, th: float,
                q: FloatArray, g_half: FloatArray, B0: Any, t1: float, q1: FloatArray,
                mid: bool) -> tuple[KKTFactor, float]:
        """Factorise the Newton matrix of the first line of the scheme in (f, Λ̃₀); also return the
        round-off level of the forces, 1e-14 max|K| max(1, |q|) (trapezoidal: 0), below which λ corrections
        are noise."""
        G, d, M = system.group, cache.d, cache.M
        Mf = M @ f  # the group-map part: ∂/∂f [T(−f)⁻ᵀ a + h² P₀ᵀ g] at fixed a = Mf, g = g₀(q_½)
        blocks = _block_jacobian(lambda x: _momentum_map(G, d, x, Mf, g_half, h, mid, 0), f, d)
        Tm = _blocks(G.tangent_inv(-f), d)
        A = _bdiag(G, blocks) + _bdiag(G, np.transpose(Tm, (0, 2, 1))) @ M
        floor = 0.0
        if mid:  # h² P₀ᵀ K(q_½) ∂q_½/∂f, ∂q_½/∂f = ½ T(f/2)
            q_half = G.retract(q, 0.5 * f)
            K = self._stiffness(system, cache, th, q_half)
            floor = 1e-14 * abs_max(K) * max(1.0, np.abs(q).max())
            P0T = (
                0.5
                * _bdiag(G, np.transpose(Tm, (0, 2, 1)))
                @ _bdiag(G, np.transpose(_blocks(G.tangent(-0.5 * f), d), (0, 2, 1)))
            )
            A = A + (0.5 * h * h) * (P0T @ K @ tangent_blocks(G, 0.5 * f))
        if not system.n_constraints:
            return KKTFactor.build([[sp.csr_array(A)]]), floor
        B1 = sp.csr_array(jac(system, t1, q1))
        return KKTFactor.build(
            [[sp.csr_array(A), sp.csr_array(B0).T], [B1 @ tangent_blocks(G, f), None]]
        ), floor


def _bdiag(G: LieGroup, blocks: FloatArray) -> sp.csr_array:
    """Block-diagonal CSR from (nb, d, d) blocks (one block: a plain 2-D array)."""
    if blocks.shape[0] == 1:
        return sp.csr_array(blocks[0])
    assert supports(G, BlockDiagonalGroup), f"{type(G).__name__}: several blocks need block_diag (Product)"
    return G.block_diag(blocks)


__all__ = ["QUADRATURES", "RattleLGVI", "VICache"]
