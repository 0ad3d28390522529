"""``integrate``: the one driver loop for every method family.

The driver owns what changes during a run — time, step size, acceptance, saving, counting — while a
method's ``step`` stays a pure function of its inputs (``lgbeam.integrators.base``). The controller
(``ConstantStep`` or ``AdaptiveStep``) sets the step sizes; ``SaveAt`` which states are kept and
observed. A failed step (status other than OK, or a non-finite candidate) is rejected and retried
smaller by an adaptive run and ends a constant-step run at the last good state.
"""

from __future__ import annotations

import logging
import math
import time as _time
from collections.abc import Callable
from typing import Any

import numpy as np

from lgbeam.integrators.base import HasInitialStep, Status, Step
from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
from lgbeam.integrators.registry import make_method
from lgbeam.solve.contracts import check_compatible
from lgbeam.solve.save import SaveAt
from lgbeam.solve.solution import Solution
from lgbeam.systems import MechanicalState

logger = logging.getLogger(__name__)

Progress = Callable[[float, float, int, int], None]
Diagnostics = Callable[[float, Any], dict[str, float]]


def _arrays(y: Any) -> tuple[Any, ...]:
    return y.arrays() if isinstance(y, MechanicalState) else (y,)


def _all_finite(y: Any) -> bool:
    """True when every entry is finite: one sum per array settles it unless the sum itself overflows."""
    for a in _arrays(y):
        try:
            total = complex(np.sum(a))
        except FloatingPointError:  # numpy set to raise (np.seterr) on overflow or inf − inf
            total = complex(math.inf)
        if not (math.isfinite(total.real) and math.isfinite(total.imag)) and not np.isfinite(a).all():
            return False
    return True


def _stack(states: list[Any]) -> Any:
    if states and isinstance(states[0], MechanicalState):
        lam = None if states[0].lam is None else np.array([s.lam for s in states])
        return MechanicalState(np.array([s.q for s in states]), np.array([s.v for s in states]), lam)
    return np.array(states)


class _Record:
    """Per-attempted-step record: t, h, err, accepted, iterations and the diagnostics' keys."""

    def __init__(self, first: dict[str, float], raw: bool) -> None:
        self.keys = ("t", "h", "err", "accepted", "iterations", *(("err_raw",) if raw else ()), *first)
        self.rows: dict[str, list[float]] = {k: [] for k in self.keys}
        self.nan = dict.fromkeys(first, math.nan)

    def add(self, t: float, h: float, err: float, accepted: bool, iterations: int, diag: dict[str, float]) -> None:
        for k, val in zip(self.keys[:5], (t, h, err, float(accepted), float(iterations))):
            self.rows[k].append(val)
        for k in self.keys[5:]:
            self.rows[k].append(diag.get(k, math.nan))

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, dtype=float) for k, v in self.rows.items()}


def _setup(system: Any, method: Any, t_span: tuple[float, float], controller: Any) -> tuple[Any, float, float]:
    method = make_method(method) if isinstance(method, str) else method
    check_compatible(method, system)
    t0, t_end = (float(x) for x in t_span)
    if not (math.isfinite(t0) and math.isfinite(t_end) and t_end > t0):
        raise ValueError(f"need t_end > t0, got t0 = {t0}, t_end = {t_end}; set time.t_end larger than time.t0")
    if not isinstance(controller, (ConstantStep, AdaptiveStep)):
        raise TypeError(f"controller must be ConstantStep(h) or AdaptiveStep(rtol, atol), got {controller!r}")
    if controller.adaptive and method.error_order is None:
        raise ValueError(f"method {method.name!r} has no embedded error estimate; give a fixed step "
                         "(ConstantStep(h), case key integrator.h) or choose an adaptive method (e.g. 'hedop5')")
    return method, t0, t_end


def integrate(system: Any, method: Any, y0: Any, t_span: tuple[float, float], *,
              controller: ConstantStep | AdaptiveStep, save: SaveAt | None = None,
              diagnostics: Diagnostics | bool = True, progress: Progress | None = None,
              max_steps: int = 1_000_000) -> Solution:
    """Integrate ``system`` with ``method`` (an object or a registered name) from ``y0`` over ``t_span``.

    ``y0`` is the method's state: a ``MechanicalState`` (λ None: the consistent λ₀) or an array.
    ``diagnostics``: True for the method's own per-step values, False for none, or ``fn(t, y) -> dict``.
    Returns a ``Solution`` whose ``status`` says why the run stopped (``lgbeam.integrators.Status``).
    """
    method, t0, t_end = _setup(system, method, t_span, controller)
    save = save or SaveAt()
    save_times = save.plan(t0, t_end)
    if not (isinstance(max_steps, int) and max_steps >= 1):
        raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
    y, cache = method.init(system, t0, y0)
    diag: Callable[[float, Any, Any], dict[str, float]] = (
        (lambda t, yy, c: method.diagnostics(system, t, yy, c)) if diagnostics is True
        else (lambda t, yy, c: {}) if diagnostics is False else (lambda t, yy, c: diagnostics(t, yy)))
    first = diag(t0, y, cache)
    measure = not controller.adaptive and controller.measures
    rec = _Record(first, measure)
    rec.add(t0, 0.0, 0.0, True, 0, first)
    out_t, out_y = [t0], [y]
    adaptive = controller.adaptive
    if adaptive:
        if controller.h0 is not None:
            h = controller.h0
        elif isinstance(method, HasInitialStep):
            h = method.initial_step(system, t0, y, cache, controller.rtol, controller.atol, controller.h_max)
        else:
            raise ValueError(f"method {method.name!r} has no starting-step rule; give AdaptiveStep(h0=...)")
        n_grid = 0
    else:
        h = controller.h
        n_grid, _ = controller.plan(t0, t_end)

    def grid(k: int) -> float:  # the k-th point of the constant-step grid
        return t0 + k * h if k < n_grid else t_end

    stop = _emit(save, t0, y)
    status, message = (Status.STOPPED, "stopped by an observer at t0") if stop else (Status.OK, "")
    t, k_grid, k_save, n_acc, n_rej, n_eval, n_iter = t0, 1, 0, 0, 0, 0, 0
    h_taken: list[float] = []
    row_extra: dict[str, float] = {}
    after_reject, err, last_detail = False, 0.0, ""
    wall = _time.perf_counter()
    try:
        while status is Status.OK and t < t_end:
            if n_acc + n_rej >= max_steps:
                status, message = Status.MAX_STEPS, f"maximum number of steps {max_steps} reached at t = {t:.6g}"
                break
            if adaptive:
                h_try = min(h, t_end - t)
                t_new = t_end if h_try == t_end - t else t + h_try
            else:  # the grid t0 + k h: h itself, the last step ends exactly at t_end
                t_new = grid(k_grid)
                h_try = h if k_grid < n_grid and abs(t_new - t - h) <= 1e-12 * h else t_new - t
            if not method.dense_output and save_times is not None and k_save < len(save_times):
                ts = float(save_times[k_save])
                if ts < t_new - 1e-12 * max(1.0, abs(t_new)):  # step onto the output time
                    t_new, h_try = ts, ts - t
            st: Step[Any, Any] = method.step(system, t, h_try, y, cache)
            n_eval += st.evaluations
            n_iter += st.iterations
            ok = st.status is Status.OK and _all_finite(st.y)
            fail = st.status if st.status is not Status.OK else Status.NONFINITE
            if adaptive:
                err = controller.error_norm(st.error, st.magnitude) if ok else math.inf
                accept = err <= 1.0
                h_next = controller.next_step(h_try, err, method.error_order, after_reject or not accept)
            else:
                err, accept, h_next = 0.0, ok, h
                if measure and ok and st.error is not None:
                    err = controller.error_norm(st.error, st.magnitude)
                    row_extra = {"err_raw": float(np.linalg.norm(st.error))}
                if not ok:
                    status = fail
                    what = st.detail or "non-finite state"
                    message = (f"{method.name}: step {n_acc + 1} failed (t = {t:.6g} -> {t_new:.6g}, h = {h_try:.3g}): "
                               f"{what}")
                    break
            if not accept:
                n_rej += 1
                last_detail = st.detail if not ok else ""
                rec.add(t_new, h_try, err, False, st.iterations, {})
                if ok and st.retry_cache is not None:
                    cache = st.retry_cache
                after_reject, h = True, h_next
                if h < controller.h_min:
                    status = Status.STEP_UNDERFLOW
                    message = f"step size fell below h_min = {controller.h_min:g} at t = {t:.6g} (err = {err:.3g})"
                    message += f"; last failure: {last_detail}" if last_detail else ""
                continue
            k_save, stop = _save_between(save, save_times, k_save, t, t_new, h_try, st, out_t, out_y)
            t, y, cache = t_new, st.y, st.cache
            n_acc += 1
            h_taken.append(h_try)
            if not adaptive and t_new == grid(k_grid):
                k_grid += 1
            rec.add(t, h_try, err, True, st.iterations, {**diag(t, y, cache), **row_extra} if measure else diag(t, y, cache))
            if save_times is None and (save.steps is None or n_acc % save.steps == 0 or t >= t_end):
                stop = _emit(save, t, y) or stop
                if save.store:
                    out_t.append(t), out_y.append(y)
            if stop:
                status, message = Status.STOPPED, f"stopped by an observer at t = {t:.6g}"
            if progress is not None:
                progress(t, h_try, n_acc, n_rej)
            after_reject, h = False, h_next
    except KeyboardInterrupt:
        status, message = Status.INTERRUPTED, f"interrupted by the user at t = {t:.6g}"
    if not save.store and out_t[-1] != t:
        out_t.append(t), out_y.append(y)
    if message and status not in (Status.OK, Status.STOPPED):
        message = f"{message}; {status.advice}"
        logger.info(message)
    hs = np.asarray(h_taken) if h_taken else np.zeros(1)
    stats = {"n_steps": n_acc, "n_rejected": n_rej, "n_evaluations": n_eval, "n_iterations": n_iter,
             "wall_time": _time.perf_counter() - wall, "t_final": t, "method": method.name,
             "h_first": float(hs[0]), "h_last": float(hs[-1]), "h_smallest": float(hs.min()),
             "h_largest": float(hs.max())}
    if not adaptive and h_taken and abs(h_taken[-1] - h) > 1e-12 * h:
        stats["note"] = f"constant step {h:g}; the last step was {h_taken[-1]:.6g} to end at t = {t_end:g}"
    return Solution(t=np.asarray(out_t), y=_stack(out_y), steps=rec.arrays(), status=status, message=message,
                    stats=stats)


def _emit(save: SaveAt, t: float, y: Any) -> bool:
    """Hand a saved state to the observers; True when one asks to stop."""
    stop = False
    for obs in save.observers:
        stop = (obs(t, y) is Status.STOPPED) or stop
    return stop


def _save_between(save: SaveAt, save_times: np.ndarray | None, k: int, t: float, t_new: float, h: float,
                  st: Step[Any, Any], out_t: list[float], out_y: list[Any]) -> tuple[int, bool]:
    """Save the output times in (t, t_new] (the step's end state or its dense output)."""
    stop = False
    if save_times is None:
        return k, stop
    while k < len(save_times) and save_times[k] <= t_new + 1e-12 * max(1.0, abs(t_new)):
        ts = float(save_times[k])
        sigma = (ts - t) / h
        if abs(sigma - 1.0) < 1e-9:
            ys = st.y
        elif st.dense is not None:
            ys = st.dense(sigma)
        else:  # unreachable: steps land on output times when there is no dense output
            raise AssertionError(f"output time {ts} inside a step without dense output")
        stop = _emit(save, ts, ys) or stop
        if save.store:
            out_t.append(ts), out_y.append(ys)
        k += 1
    return k, stop
