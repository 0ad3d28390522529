"""``integrate``: the one driver loop for constrained mechanical systems on Lie groups.

It owns everything that changes during a run — time, step size, acceptance, saving, counting —
while the integrator's ``step`` stays a pure function of its inputs. Saving at fixed output times
uses a group-aware interpolant of each step: q(t_n + σh) = q_n ∘ exp(Θ(σ)) with Θ the cubic Hermite
interpolant of Θ(0) = 0, Θ'(0) = h v_n, Θ(1) = Θ_{n+1}, Θ'(1) = h T⁻¹(Θ_{n+1}) v_{n+1} (local
error O(h⁴)); v by cubic Hermite with the stage derivatives V̇ at both ends (FSAL methods) or
linearly, λ linearly.

Rheonomic constraints (``lgbeam.systems.RheonomicConstraints``): the consistency check at t0, the
consistent λ₀, the optional projections and the per-step residuals use Φ(t, q) and the hidden
constraint B(q) v + Φ_t(t, q); scleronomic systems take exactly the old path.
"""

from __future__ import annotations

import logging
import math
import time as _time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.integrators import get_integrator
from lgbeam.integrators._linear import SaddlePointSolver, SingularStageMatrix, as_matrix, mass_inverse
from lgbeam.integrators.controllers import StepSizeController
from lgbeam.integrators.half_explicit import HalfExplicitRK, StepResult, retract, tangent_inv_apply
from lgbeam.systems import is_rheonomic

logger = logging.getLogger(__name__)

Observer = Callable[[float, FloatArray, FloatArray, FloatArray], None]
Progress = Callable[[float, float, int, int], None]


@dataclass
class Solution:
    """Saved states of a run and what happened (``status`` "ok" or the reason it stopped)."""

    t: FloatArray
    q: FloatArray
    v: FloatArray
    lam: FloatArray
    steps: dict[str, FloatArray]
    status: str = "ok"
    message: str = ""
    stats: dict[str, Any] = field(default_factory=dict)


def _check_finite(name: str, x: FloatArray) -> None:
    if not np.all(np.isfinite(x)):
        bad = np.flatnonzero(~np.isfinite(np.ravel(x)))
        raise ValueError(f"{name} contains non-finite values (first at flat index {bad[0]}); fix the initial data")


def _curvature_term(system: Any, q: FloatArray, v: FloatArray, t: float = 0.0) -> FloatArray:
    """(d/dt B(q(t))) v at t along q' = q v^ (plus d/dt Φ_t(t, q(t)) for rheonomic constraints), by a
    central difference in t (used once, for λ₀)."""
    eps = 1e-5 / max(1.0, float(np.linalg.norm(v)))
    G = system.group
    qp, qm = retract(G, q, eps * v), retract(G, q, -eps * v)
    if is_rheonomic(system):
        d = _hidden(system, t + eps, qp, v) - _hidden(system, t - eps, qm, v)
        return d / (2 * eps)
    Bp = as_matrix(system.constraint_jacobian(qp))
    Bm = as_matrix(system.constraint_jacobian(qm))
    d = Bp @ v - Bm @ v
    return d / (2 * eps)


def consistent_multiplier(system: Any, lin: SaddlePointSolver, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
    """λ from the index-1 condition B v' + d/dt(B) v (+ d/dt Φ_t) = 0 with M v' = −g − Bᵀλ."""
    if system.n_constraints == 0:
        return np.zeros(0)
    B = _jac(system, t, q)
    _, lam = lin.solve(-system.forces(t, q, v), B, B, 1.0, -_curvature_term(system, q, v, t))
    return lam


def _phi(system: Any, t: float, q: FloatArray) -> FloatArray:
    """Φ(t, q) for rheonomic systems, else Φ(q)."""
    return system.constraints_t(t, q) if is_rheonomic(system) else system.constraints(q)


def _jac(system: Any, t: float, q: FloatArray) -> Any:
    """B(t, q) for rheonomic systems, else B(q)."""
    return as_matrix(system.constraint_jacobian_t(t, q) if is_rheonomic(system) else system.constraint_jacobian(q))


def _hidden(system: Any, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
    """The hidden constraint B(q) v (B(t, q) v + Φ_t(t, q) for rheonomic systems)."""
    bv = _jac(system, t, q) @ v
    return bv + system.constraint_rate(t, q) if is_rheonomic(system) else bv


def project(system: Any, lin: SaddlePointSolver, q: FloatArray, v: FloatArray, tol: float = 1e-13, iters: int = 8,
            t: float = 0.0):
    """Project q onto Φ(t, ·) = 0 (Newton in the mass metric, q ← q ∘ exp(δ)) and v onto
    {B(q) v + Φ_t(t, q) = 0} (ker B(q) for scleronomic constraints), mass-orthogonally."""
    G = system.group
    for _ in range(iters):
        phi = _phi(system, t, q)
        if np.linalg.norm(phi) <= tol:
            break
        q = retract(G, q, lin.correction(_jac(system, t, q), phi))
    B = _jac(system, t, q)
    v = lin.project_velocity(B, v)
    if is_rheonomic(system):  # affine: v − M⁻¹Bᵀ S⁻¹ (B v + Φ_t) = P v + correction(Φ_t)
        v = v + lin.correction(B, system.constraint_rate(t, q))
    return q, v


def _interpolate(system: Any, st: StepResult, q0, v0, lam0, h: float, sigma: float):
    """Group-aware cubic Hermite interpolant of one step at t_n + σh (module docstring)."""
    s2, s3 = sigma * sigma, sigma**3
    h00, h10, h01, h11 = 2 * s3 - 3 * s2 + 1, s3 - 2 * s2 + sigma, -2 * s3 + 3 * s2, s3 - s2
    dtheta_end = tangent_inv_apply(system.group, st.theta, st.v)
    theta = h10 * h * v0 + h01 * st.theta + h11 * h * dtheta_end
    q = retract(system.group, q0, theta)
    if st.vdot_end is not None:
        v = h00 * v0 + h10 * h * st.vdot_start + h01 * st.v + h11 * h * st.vdot_end
    else:
        v = (1 - sigma) * v0 + sigma * st.v
    return q, v, (1 - sigma) * lam0 + sigma * st.lam


def _all_finite(*arrays: FloatArray) -> bool:
    """True when every entry is finite. A NaN or ±inf makes a sum non-finite, so one finite sum per array
    settles it; only a non-finite sum (possibly overflow of huge finite entries) needs the elementwise test."""
    for a in arrays:
        try:
            total = float(np.sum(a))
        except FloatingPointError:  # numpy set to raise (np.seterr) on overflow or inf − inf
            total = math.inf
        if not math.isfinite(total) and not np.isfinite(a).all():
            return False
    return True


def _norm(x: FloatArray) -> float:
    """Euclidean norm without BLAS: for long vectors a threaded ddot can stall for milliseconds on a loaded
    machine, and this runs after every step."""
    x = np.asarray(x, dtype=float)
    return math.sqrt(float(np.einsum("i,i->", x, x))) if x.ndim == 1 else float(np.linalg.norm(x))


def _residuals(system: Any, t: float, q: FloatArray, v: FloatArray, lin: SaddlePointSolver | None = None,
               rheonomic: bool | None = None) -> tuple[float, float, float]:
    """(‖Φ‖, ‖B v (+ Φ_t)‖, energy) after a step; ``lin`` lets B v use the stage solver's cached pattern.
    A system may compute all three at once (``step_residuals``, e.g. the rod's compiled pass)."""
    rheo = is_rheonomic(system) if rheonomic is None else rheonomic
    if not rheo and hasattr(system, "step_residuals") and (fused := system.step_residuals(t, q, v)) is not None:
        return fused
    phi = bv = 0.0
    if system.n_constraints:
        phi = _norm(system.constraints_t(t, q) if rheo else system.constraints(q))
        B = _jac(system, t, q)
        hidden = lin.matvec(B, v) if lin is not None else B @ v
        if rheo:
            hidden = hidden + system.constraint_rate(t, q)
        bv = _norm(hidden)
    energy = float(system.energy(t, q, v)) if hasattr(system, "energy") else float("nan")
    return phi, bv, energy


def integrate(
    system: Any,
    q0: FloatArray,
    v0: FloatArray,
    t_span: tuple[float, float],
    method: str | HalfExplicitRK = "hedop5",
    *,
    h: float | None = None,
    rtol: float | FloatArray | None = None,
    atol: float | FloatArray | None = None,
    save_every: float | None = None,
    observer: Observer | None = None,
    lam0: FloatArray | None = None,
    project_steps: bool = False,
    project_initial: bool = False,
    consistency_tol: float = 1e-8,
    max_steps: int = 1_000_000,
    h_min: float = 1e-12,
    h_max: float | None = None,
    h0: float | None = None,
    fac: float = 0.8,
    facmin: float = 0.2,
    facmax: float = 5.0,
    progress: Progress | None = None,
) -> Solution:
    """Integrate M v' = −g − Bᵀλ, 0 = B v, q' = q v^ over ``t_span``.

    Fixed steps when ``h`` is given (the last one shortened to end at t_end), otherwise adaptive
    with the embedded estimate and ``rtol``/``atol`` (both required). Returns a ``Solution`` whose
    ``status`` says why it stopped: "ok", "max_steps", "h_min", "nonfinite", "singular",
    "interrupted".
    """
    integ = get_integrator(method) if isinstance(method, str) else method
    t0, t_end = map(float, t_span)
    if not np.isfinite(t0) or not np.isfinite(t_end) or t_end <= t0:
        raise ValueError(f"need t_end > t0, got t0 = {t0}, t_end = {t_end}; set time.t_end larger than time.t0")
    adaptive = h is None
    if not adaptive and not (np.isfinite(h) and h > 0):
        raise ValueError(f"step size h must be > 0, got h = {h}; e.g. integrator.h = 1e-3")
    if save_every is not None and not save_every > 0:
        raise ValueError(f"output interval must be > 0, got {save_every}")
    controller = None
    if adaptive:
        if rtol is None or atol is None:
            raise ValueError("adaptive stepping needs rtol and atol (e.g. rtol = 1e-6, atol = 1e-8), or give h")
        if integ.error_order is None:
            raise ValueError(
                f"method {integ.name!r} has no embedded error estimate; give a fixed step h or use 'hedop5'"
            )
        controller = StepSizeController(rtol, atol, fac, facmin, facmax, h_min, np.inf if h_max is None else h_max)
    if getattr(system, "mass_is_constant", True) is False:
        raise ValueError("the half-explicit driver needs a constant mass matrix (mass_is_constant = True)")

    q, v = np.array(q0, dtype=float), np.array(v0, dtype=float)
    _check_finite("initial configuration q0", q)
    _check_finite("initial velocity v0", v)
    if hasattr(system.group, "validate"):
        system.group.validate(q)
    rheonomic = is_rheonomic(system)
    lin = SaddlePointSolver(mass_inverse(system.mass(q), getattr(system, "mass_block", 6)))
    if system.n_constraints:
        phi, bv = np.linalg.norm(_phi(system, t0, q)), np.linalg.norm(_hidden(system, t0, q, v))
        if project_initial:
            q, v = project(system, lin, q, v, t=t0)
        elif phi > consistency_tol or bv > consistency_tol:
            hidden = "B(q0) v0 + Φ_t(t0, q0)" if rheonomic else "B(q0) v0"
            raise ValueError(
                f"inconsistent initial data: |Φ(t0, q0)| = {phi:.3e}, |{hidden}| = {bv:.3e} (tolerance "
                f"{consistency_tol:g}); correct q0/v0 so that the constraints hold, or opt in to projecting "
                "them (project_initial=True, case key initial.project = true)"
            )
    lam = consistent_multiplier(system, lin, t0, q, v) if lam0 is None else np.array(lam0, dtype=float)

    save_times = None if save_every is None else np.append(np.arange(t0, t_end, save_every)[1:], t_end)
    out_t, out_q, out_v, out_l = [t0], [q], [v], [lam]
    if observer:
        observer(t0, q, v, lam)
    rec: dict[str, list[float]] = {k: [] for k in ("t", "h", "err", "accepted", "phi", "bv", "energy")}
    phi0, bv0, e0 = _residuals(system, t0, q, v)
    for k, val in zip(("t", "h", "err", "accepted", "phi", "bv", "energy"), (t0, 0.0, 0.0, 1.0, phi0, bv0, e0)):
        rec[k].append(val)

    status, message = "ok", ""
    t, n_acc, n_rej, n_eval, k_save, after_reject = t0, 0, 0, 0, 0, False
    n_fixed = None if adaptive else max(1, int(np.ceil((t_end - t0) / h - 1e-9)))
    if adaptive:
        h = h0 if h0 is not None else initial_step(system, lin, t0, q, v, lam, integ.order, controller)
    vdot1 = None
    wall = _time.perf_counter()
    try:
        while t < t_end and status == "ok":
            if n_acc + n_rej >= max_steps:
                status, message = "max_steps", f"maximum number of steps {max_steps} reached at t = {t:.6g}; raise max_steps or loosen the tolerances"
                break
            h_try = min(h, t_end - t) if adaptive else (min(h, t_end - t) if n_acc + 1 < n_fixed else t_end - t)
            try:
                st = integ.step(system, lin, t, h_try, q, v, lam, vdot1, rheonomic=rheonomic, with_error=adaptive)
            except SingularStageMatrix as exc:
                status, message = "singular", f"stage system singular at t = {t:.6g}: {exc}; check the constraints/supports"
                break
            except FloatingPointError:  # numpy set to raise (np.seterr): an exploding trial step
                st = None
            n_eval += st.n_force_evals if st is not None else 0
            finite = st is not None and _all_finite(st.q, st.v, st.lam)
            if adaptive:
                err = np.inf
                if finite:
                    y_old = np.concatenate([np.zeros_like(st.theta), v])
                    err = controller.error_norm(st.error, y_old, np.concatenate([st.theta, st.v]))
                accept = err <= 1.0
                h_next = controller.next_step(h_try, err, integ.error_order, after_reject or not accept)
            else:
                err, accept, h_next = 0.0, bool(finite), h
                if not finite:
                    status, message = "nonfinite", f"non-finite state at t = {t + h_try:.6g} with fixed h = {h_try:g}; reduce integrator.h or use the adaptive method"
                    break
            if not accept:
                n_rej += 1
                rec["t"].append(t + h_try), rec["h"].append(h_try), rec["err"].append(err), rec["accepted"].append(0.0)
                for k in ("phi", "bv", "energy"):
                    rec[k].append(float("nan"))
                after_reject, h = True, h_next
                if h < h_min:
                    status, message = "h_min", f"step size fell below h_min = {h_min:g} at t = {t:.6g} (err = {err:.3g}); loosen rtol/atol or check the model"
                vdot1 = st.vdot_start if st is not None else vdot1
                continue
            t_new = t0 + (n_acc + 1) * h if not adaptive and n_acc + 1 < n_fixed else t + h_try
            q_new, v_new, lam_new = st.q, st.v, st.lam
            if project_steps and system.n_constraints:
                q_new, v_new = project(system, lin, q_new, v_new, t=t_new)
            while save_times is not None and k_save < len(save_times) and save_times[k_save] <= t_new + 1e-12 * abs(t_new):
                ts = save_times[k_save]
                sigma = (ts - t) / h_try
                if abs(sigma - 1.0) < 1e-9:
                    qs, vs, ls = q_new, v_new, lam_new
                else:
                    qs, vs, ls = _interpolate(system, st, q, v, lam, h_try, sigma)
                out_t.append(ts), out_q.append(qs), out_v.append(vs), out_l.append(ls)
                if observer:
                    observer(ts, qs, vs, ls)
                k_save += 1
            t, q, v, lam = t_new, q_new, v_new, lam_new
            n_acc += 1
            vdot1 = st.vdot_end if not project_steps else None
            phi, bv, energy = _residuals(system, t, q, v, lin, rheonomic)
            for k, val in zip(("t", "h", "err", "accepted", "phi", "bv", "energy"), (t, h_try, err, 1.0, phi, bv, energy)):
                rec[k].append(val)
            if save_times is None:
                out_t.append(t), out_q.append(q), out_v.append(v), out_l.append(lam)
                if observer:
                    observer(t, q, v, lam)
            if progress:
                progress(t, h_try, n_acc, n_rej)
            after_reject, h = False, h_next
    except KeyboardInterrupt:
        status, message = "interrupted", f"interrupted by the user at t = {t:.6g}"
    stats = {"n_steps": n_acc, "n_rejected": n_rej, "n_force_evals": n_eval, "wall_time": _time.perf_counter() - wall,
             "t_final": t, "method": integ.name}
    if message:
        logger.warning(message)
    return Solution(
        t=np.array(out_t), q=np.array(out_q), v=np.array(out_v), lam=np.array(out_l),
        steps={k: np.array(val) for k, val in rec.items()}, status=status, message=message, stats=stats,
    )


def initial_step(system, lin, t0, q, v, lam, order, controller) -> float:
    """Starting step size (Hairer, Nørsett & Wanner I, §II.4) on y = (θ, v)."""
    B = _jac(system, t0, q) if system.n_constraints else None
    r1 = -system.forces(t0, q, v) - (B.T @ lam if B is not None else 0.0)
    a = lin.explicit(r1)
    y0 = np.concatenate([np.zeros_like(v), v])
    f0 = np.concatenate([v, a])
    scale = controller.atol + np.abs(y0) * controller.rtol
    d0, d1 = np.sqrt(np.mean((y0 / scale) ** 2)), np.sqrt(np.mean((f0 / scale) ** 2))
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    q1, v1 = retract(system.group, q, h0 * v), v + h0 * a
    B1 = _jac(system, t0 + h0, q1) if system.n_constraints else None
    a1 = lin.explicit(-system.forces(t0 + h0, q1, v1) - (B1.T @ lam if B1 is not None else 0.0))
    d2 = np.sqrt(np.mean((np.concatenate([v1 - v, a1 - a]) / scale) ** 2)) / h0
    h1 = max(1e-6, h0 * 1e-3) if max(d1, d2) <= 1e-15 else (0.01 / max(d1, d2)) ** (1.0 / (order + 1))
    return float(min(100 * h0, h1, controller.h_max))
