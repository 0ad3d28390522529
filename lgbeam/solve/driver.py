"""``integrate``: the one driver loop for every method family.

The driver owns what changes during a run — time, step size, acceptance, saving, counting — while a
method's ``step`` stays a pure function of its inputs (``lgbeam.integrators.base``). The controller
(``ConstantStep`` or ``AdaptiveStep``) sets the step sizes; ``SaveAt`` which states are kept and observed;
the record (``lgbeam.solve.record``) where the per-step rows go.

A trial step fails when the method reports a status other than OK, when its state is not finite, or when
a blow-up diagnostic (``GROWTH_KEYS``: ``energy``, and ``mass`` where a method reports one — a
positive-definite invariant such as NLS's ∫|ψ|²) exceeds ``energy_growth`` times the largest |value| seen so
far (status ``energy_growth`` / ``mass_growth``; each check waits until its reference exceeds ``ENERGY_FLOOR``
= 1e-12, so a system starting at rest — energy zero up to round-off — is checked once it moves). The factor
is the caller's ``energy_growth``, else the method's ``blowup_factor``, else 1e6. A method that declares a
``blowup_factor`` (``HasBlowupFactor``: the Poisson methods, 10, for conservative systems) has its references
frozen at their first values above the floor (the energy's starts at max(|E₀|, ``energy_scale``) where the
diagnostics give that scale: ``growth_reference``) — a blow-up that builds up over many steps is then caught too —
while for the others the reference is the largest |value| so far (a loaded system's energy may grow). An adaptive run rejects such a step and retries it smaller; a constant-step run
stops at the last good state with that status.

Besides those (and whatever ``diagnostics`` says: the checks below run with ``diagnostics=False`` too, from
the diagnostics when they hold the values, else from one cheap evaluation,
``mechanics.residuals(..., velocity=False)`` or the method's ``blowup_invariants``), two checks that do not
follow the solution's own growth:

- the constraint residual: ‖Φ(q)‖ above ``constraint_tol`` (default ``PHI_FACTOR`` = 1e-2 × the system's
  ``length_scale``, else × max(1, ‖q₀‖∞)) fails the step with status ``constraint_drift`` — a 1 m top whose fixed
  point moved by a centimetre is no longer that top, whatever the method;
- the energy check (``drift_factor`` δ = 0.25, status ``energy_growth``), a property of the state, not of where
  the origin is (docs/architecture.md "The driver"): for systems with ``HasEnergyBudget`` (rods, frames, the heavy
  top) E − E₀ − W ≤ δ (C_max + ∫|P| dt), one-sided, with W = ∫P dt the work booked on the system (loads not in
  the potential, moving spring anchors' ∂V/∂t, and λ·Φ_t of prescribed motions; trapezoidal rule over the
  accepted steps) and C = T + |V − V₀| the content with the potential measured from the initial state's (C_max:
  the largest accepted); for kinds whose diagnostics give ``energy_scale`` (kinetic + |each part|: the seed
  bodies, spectral NLS/KdV) |E − E₀| ≤ 2δ C₀ (``INVARIANT_SCALE``) with C₀ that scale at t₀ (fixed: a blow-up
  that inflates both parts cannot widen its own bound; a state whose parts cancel, H = 0, is measured against
  them). Skipped while the
  scale is below ``ENERGY_FLOOR``; off with ``drift_factor=None``.

An exception raised inside a step by the arithmetic of a blown-up state (``blowup_error``: an overflow, a
``LinAlgError``, the ``math`` module's domain error) fails the step with status ``nonfinite`` / ``singular``
like a non-finite state; any other exception propagates (a wrong input stays an error).

SIGINT and SIGTERM (main thread only) are caught between steps — never inside a compiled kernel — and end
the run with status ``interrupted`` (``stats["signal"]`` says which). ``checkpoint`` receives the loop's
full state after accepted steps; ``resume`` continues a run from such a state, bit for bit.
"""

from __future__ import annotations

import cmath
import contextlib
import logging
import math
import signal
import threading
import time as _time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from lgbeam.integrators.base import HasBlowupFactor, HasCheckpoint, HasInitialStep, Status, Step
from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
from lgbeam.integrators.mechanics import residuals
from lgbeam.integrators.registry import make_method
from lgbeam.solve.contracts import check_compatible
from lgbeam.solve.record import MemoryRecord
from lgbeam.solve.save import SaveAt
from lgbeam.solve.solution import Solution
from lgbeam.systems import (
    ConstrainedMechanicalSystem,
    HasEnergyBudget,
    MechanicalState,
    RheonomicConstraints,
    is_rheonomic,
    supports,
)

logger = logging.getLogger(__name__)

Progress = Callable[[float, float, int, int], None]
ENERGY_FLOOR = 1e-12  # below this |energy| (round-off of a system at rest) the blow-up check waits
GROWTH_KEYS = {"energy": Status.ENERGY_GROWTH, "mass": Status.MASS_GROWTH}  # diagnostics checked for blow-up
DEFAULT_GROWTH = 1e6  # the blow-up factor of a method that declares none
PHI_FACTOR = 1e-2  # ‖Φ‖ above this × the model's length is a blow-up (``constraint_tol``)
GUARD_ONLY = ("energy_scale",)  # diagnostics the guard reads but the record does not keep
MESH_ANGLE = (
    150.0  # an element turned this much (degrees) relative to its neighbour: the advice names the mesh
)
BLOWUP_STATUSES = frozenset({Status.NONFINITE, Status.SINGULAR, Status.SOLVER_FAILED, Status.ENERGY_GROWTH,
                             Status.MASS_GROWTH, Status.CONSTRAINT_DRIFT, Status.STEP_UNDERFLOW})
DRIFT_FACTOR = (
    0.25  # energy defect above this × (content + ∫|P|) is a blow-up (``drift_factor``; module docstring)
)
INVARIANT_SCALE = 2.0  # the invariant form's bound is this × drift_factor (0.5: half the content at t0): a
#   convergent method at a coarse step may lose a third of it for a while (seed 001's double spherical pendulum,
#   ELN at h = 1/16, the coarsest point of Fig. 7.6: 0.34); a KdV run with a 100 % error in H (= its content) and
#   the review's blow-ups (×41 … ×3 410) pass it


class _ByMethod:
    """The default of ``integrate(energy_growth=...)``: the method's ``blowup_factor``, else
    ``DEFAULT_GROWTH``."""

    def __repr__(self) -> str:
        return "BY_METHOD"


BY_METHOD: Any = _ByMethod()
Diagnostics = Callable[[float, Any], dict[str, float]]


@dataclass(frozen=True)
class AlsoRecord:
    """``diagnostics=AlsoRecord(fn)``: the method's own per-step values and, beside them, the columns of
    ``fn(t, y)`` (e.g. a frame's ground motion and base shear, ``frames.ground``)."""

    fn: Diagnostics


@dataclass
class LoopState:
    """Everything the loop carries from one step to the next: a checkpoint is this object (with the
    method's cache in its ``checkpoint`` form), and ``integrate(..., resume=state)`` continues from it."""

    method: str
    t: float
    y: Any
    cache: Any
    h: float
    after_reject: bool = False
    err_prev: float = math.nan  # error norm of the last accepted step (the PI controller's memory)
    k_grid: int = 1
    k_save: int = 0
    n_acc: int = 0
    n_rej: int = 0
    n_eval: int = 0
    n_iter: int = 0
    h_first: float = math.nan
    h_last: float = math.nan
    h_smallest: float = math.inf
    h_largest: float = 0.0
    energy_ref: float = 0.0
    mass_ref: float = 0.0
    energy0: float = (
        math.nan
    )  # E(t₀), T₀ + |V₀|, the loads' work W and ∫|P| so far, P now (the energy budget)
    content0: float = math.nan
    content_max: float = (
        math.nan
    )  # the largest energy content of the accepted states (the energy check's scale)
    potential0: float = math.nan  # V(t₀) = E₀ − T₀ of a mechanical system (its potential is measured from it)
    ratio_max: float = 0.0  # the largest |E − E₀ − W| / (content + ∫|P|) accepted (provenance: energy_check)
    work: float = 0.0
    work_abs: float = 0.0
    power: float = math.nan
    record: dict[str, Any] | None = None


@dataclass(frozen=True)
class Checkpointing:
    """Call ``save(state)`` with a ``LoopState`` every ``steps`` accepted steps and/or every ``seconds`` of
    wall time (both None: only at t0). The state's ``cache`` is the method's ``checkpoint(cache)`` form."""

    save: Callable[[LoopState], None]
    steps: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.steps is not None and not (isinstance(self.steps, int) and self.steps >= 1):
            raise ValueError(f"checkpoint interval in steps must be an integer >= 1, got {self.steps!r}")
        if self.seconds is not None and not (math.isfinite(self.seconds) and self.seconds > 0):
            raise ValueError(f"checkpoint interval in seconds must be > 0, got {self.seconds!r}")


def _arrays(y: Any) -> tuple[Any, ...]:
    return y.arrays() if isinstance(y, MechanicalState) else (y,)


def _all_finite(y: Any) -> bool:
    """True when every entry is finite: one sum over all arrays settles it unless the sum itself overflows
    (then the entries are checked one by one)."""
    arrays = _arrays(y)
    try:
        total = arrays[0].sum()
        for a in arrays[1:]:
            total = total + a.sum()
        finite = (
            cmath.isfinite(total)
            if isinstance(total, (complex, np.complexfloating))
            else math.isfinite(total)
        )
    except FloatingPointError:  # numpy set to raise (np.seterr) on overflow or inf − inf
        finite = False
    return finite or all(bool(np.isfinite(a).all()) for a in arrays)


def blowup_error(exc: BaseException) -> bool:
    """True when an exception raised inside a step is the arithmetic of a blown-up state, not a wrong
    input: a floating-point error (overflow, division by zero, ``np.seterr(all="raise")``), a singular or
    non-converging linear algebra routine (``LinAlgError``) or the ``math`` module's domain error
    (``math.sin(inf)``)."""
    if isinstance(exc, (ArithmeticError, np.linalg.LinAlgError)):
        return True
    return isinstance(exc, ValueError) and str(exc) in ("math domain error", "math range error")


def advice(status: Status, method: Any, system: object, controller: Any, y: Any) -> str:
    """What to change after a run stopped with ``status`` at the last good state ``y``: an element of a rod
    or frame turned by ``MESH_ANGLE`` or more relative to its neighbour names the mesh (a smaller step
    stops at the same instant); else the status's advice, with the adaptive switch and the methods that
    hold the position constraints named only where they can run this system."""
    if status in BLOWUP_STATUSES and isinstance(y, MechanicalState) and hasattr(system, "element_rotation"):
        angle = math.degrees(float(system.element_rotation(y.q)))
        if angle >= MESH_ANGLE:
            return (
                f"an element's relative rotation reached {angle:.0f}° at the last good state: near 180° the rod's "
                "strain (the group logarithm between neighbouring nodes) jumps, whatever the step, so refine the "
                "mesh (model.n_elements)"
            )
    text = status.advice
    if status in BLOWUP_STATUSES - {Status.STEP_UNDERFLOW} and not controller.adaptive:
        if method.error_order is not None:
            text += ', or let the step adapt (integrator.controller = "pi" with integrator.rtol and integrator.atol)'
        elif others := adaptive_methods(system):
            text += (
                f", or an adaptive method (integrator.method = {' | '.join(others[:3])} with integrator.controller"
                ' = "pi", integrator.rtol and integrator.atol)'
            )
    if status is Status.CONSTRAINT_DRIFT:
        from lgbeam.solve.contracts import compatible_methods

        holders = [
            m for m in ("gen-alpha", "rattle-lgvi") if m in compatible_methods(system) and m != method.name
        ]
        text += f", or a method that holds the position constraints ({', '.join(holders)})" if holders else ""
    return text


def adaptive_methods(system: object) -> list[str]:
    """The registered methods with an embedded error estimate that can integrate ``system``."""
    from lgbeam.integrators.registry import method_entry
    from lgbeam.solve.contracts import compatible_methods

    return [m for m in compatible_methods(system) if method_entry(m).adaptive]


def growth_reference(g0: dict[str, float]) -> float:
    """The growth check's initial energy reference: |E₀|, or the energy content ``energy_scale`` (kinetic
    plus |each part|) where the diagnostics give it: a state whose parts cancel (a focusing NLS plane wave
    with m = a has H = (m²a² − a⁴) L = 0 exactly) is then measured against its parts, not against the
    round-off of H."""
    values = [abs(g0.get(k, math.nan)) for k in ("energy", "energy_scale")]
    return max((v for v in values if math.isfinite(v)), default=0.0)


def stack_states(states: list[Any]) -> Any:
    """Saved states stacked along a leading axis (a ``MechanicalState`` of arrays, or one array)."""
    if states and isinstance(states[0], MechanicalState):
        lam = None if states[0].lam is None else np.array([s.lam for s in states])
        return MechanicalState(np.array([s.q for s in states]), np.array([s.v for s in states]), lam)
    return np.array(states)


class Interrupted(KeyboardInterrupt):
    """SIGINT during ``integrate(..., on_signal="raise")``: raised after the run stopped cleanly between steps;
    ``solution`` is everything up to the last accepted step (status ``interrupted``)."""

    def __init__(self, solution: Solution) -> None:
        super().__init__(solution.message)
        self.solution = solution


def _reraise(signum: int, sol: Solution) -> None:
    """Give a signal the loop recorded back to the caller: SIGINT as ``Interrupted`` (a KeyboardInterrupt),
    SIGTERM to the handler that was there before (the default one ends the process, as without lgbeam)."""
    if signum == signal.SIGINT:
        raise Interrupted(sol)
    handler = signal.getsignal(signum)
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)


class _Signals:
    """SIGINT/SIGTERM recorded (not raised) while the loop runs; main thread only."""

    def __init__(self) -> None:
        self.received: int | None = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[_Signals]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

        def handler(signum: int, frame: Any) -> None:
            self.received = signum

        try:
            for s in old:
                signal.signal(s, handler)
            yield self
        finally:
            for s, h in old.items():
                signal.signal(s, h)


def _setup(system: object, method: Any, t_span: tuple[float, float],
           controller: Any) -> tuple[Any, float, float]: 
    method = make_method(method) if isinstance(method, str) else method
    check_compatible(method, system)
    t0, t_end = (float(x) for x in t_span)
    if not (math.isfinite(t0) and math.isfinite(t_end) and t_end > t0):
        raise ValueError(
            f"need t_end > t0, got t0 = {t0}, t_end = {t_end}; set time.t_end larger than time.t0"
        )
    if not isinstance(controller, (ConstantStep, AdaptiveStep)):
        raise TypeError(f"controller must be ConstantStep(h) or AdaptiveStep(rtol, atol), got {controller!r}")
    if controller.adaptive and method.error_order is None:
        others = adaptive_methods(system)
        choose = f" or choose a method with one ({', '.join(repr(m) for m in others)})" if others else ""
        raise ValueError(f"method {method.name!r} has no embedded error estimate; give a fixed step "
                         f"(ConstantStep(h), case key integrator.h){choose}")
    if isinstance(controller, ConstantStep) and controller.h > t_end - t0:
        logger.info("constant step h = %g is longer than the interval %g; the one step is clipped to it",
                    controller.h, t_end - t0)
    return method, t0, t_end


def _start(system: object, method: Any, controller: Any, t0: float, y0: Any,
           resume: LoopState | None) -> LoopState: 
    """The loop state at t0 (or the resumed one, with the method's cache restored)."""
    if resume is not None:
        if resume.method != method.name:
            raise ValueError(f"checkpoint of method {resume.method!r} cannot resume with {method.name!r}")
        cache = (
            method.restore(system, resume.y, resume.cache)
            if isinstance(method, HasCheckpoint)
            else resume.cache
        )
        return replace(resume, cache=cache)
    y, cache = method.init(system, t0, y0)
    if isinstance(controller, ConstantStep):
        h = controller.h
    elif controller.h0 is not None:
        h = controller.h0
    elif isinstance(method, HasInitialStep):
        h = method.initial_step(system, t0, y, cache, controller.rtol, controller.atol, controller.h_max)
    else:
        raise ValueError(f"method {method.name!r} has no starting-step rule; give AdaptiveStep(h0=...)")
    return LoopState(method.name, t0, y, cache, h)


def integrate(system: object, method: Any, y0: Any, t_span: tuple[float, float], *,
              controller: ConstantStep | AdaptiveStep, save: SaveAt | None = None,
              diagnostics: Diagnostics | bool = True, progress: Progress | None = None,
              max_steps: int = 1_000_000, energy_growth: float | None = BY_METHOD, record: Any = None,
              checkpoint: Checkpointing | None = None, resume: LoopState | None = None,
              constraint_tol: float | None = BY_METHOD, drift_factor: float | None = DRIFT_FACTOR,
              on_signal: str = "raise") -> Solution:
    """Integrate ``system`` with ``method`` (an object or a registered name) from ``y0`` over ``t_span``.

    ``y0`` is the method's state: a ``MechanicalState`` (λ None: the consistent λ₀) or an array (ignored
    when ``resume`` is given). ``diagnostics``: True for the method's own per-step values, False for none,
    ``fn(t, y) -> dict``, or ``AlsoRecord(fn)`` for both. ``record``: a ``MemoryRecord`` (default) or ``CSVRecord``. ``energy_growth``:
    the blow-up factor of the ``energy`` and ``mass`` diagnostics (None: no check; default: the method's
    ``blowup_factor``, else 1e6). ``constraint_tol``: the largest ‖Φ‖ accepted (default: ``PHI_FACTOR`` × the
    system's length; None: no check); ``drift_factor``: the energy budget's factor (None: no budget check; see
    the module docstring). ``on_signal``: what happens after SIGINT/SIGTERM stopped the loop cleanly (the record
    closed, the checkpoint written): "raise" (default) gives the signal back — SIGINT raises ``Interrupted`` (a
    KeyboardInterrupt holding the solution so far), SIGTERM goes to the handler there before (by default the
    process ends) — so a script stops as it would without lgbeam; "return" returns the solution with status
    ``interrupted`` (the command line, which then writes its files). Returns a ``Solution`` whose ``status``
    says why the run stopped.
    """
    if on_signal not in ("raise", "return"):
        raise ValueError(f"on_signal must be 'raise' or 'return', got {on_signal!r}")
    sol, received = _integrate(system, method, y0, t_span, controller, save, diagnostics, progress, max_steps,
                               energy_growth, record, checkpoint, resume, constraint_tol, drift_factor)
    if received is not None and on_signal == "raise":
        _reraise(received, sol)
    return sol


def _integrate(system: object, method: Any, y0: Any, t_span: tuple[float, float], controller: Any,
               save: SaveAt | None, diagnostics: Any, progress: Progress | None, max_steps: int,
               energy_growth: Any, record: Any, checkpoint: Checkpointing | None, resume: LoopState | None,
               constraint_tol: Any, drift_factor: float | None) -> tuple[Solution, int | None]:
    # SIGINT/SIGTERM are recorded from here on (not only in the loop): the first compiled calls (λ₀, the
    # first diagnostics) may compile or load kernels, and an interrupt must not surface inside them
    with _Signals().installed() as signals:
        method, t0, t_end = _setup(system, method, t_span, controller)
        if energy_growth is BY_METHOD:
            energy_growth = (
                float(method.blowup_factor) if isinstance(method, HasBlowupFactor) else DEFAULT_GROWTH
            )
        save = save or SaveAt()
        save_times = save.plan(t0, t_end)
        _check_limits(max_steps, energy_growth, drift_factor)
        rec = record if record is not None else MemoryRecord()
        st0 = _start(system, method, controller, t0, y0, resume)
        diag = _diagnostics_of(system, method, diagnostics)
        measure = isinstance(controller, ConstantStep) and controller.measures
        out_t: list[float] = []
        out_y: list[Any] = []
        stop = False
        guard = _Guard(system, method, st0.y, constraint_tol, drift_factor)
        guard.active = energy_growth is not None or constraint_tol is not None or drift_factor is not None
        if resume is None:
            first = diag(t0, st0.y, st0.cache)
            rec.start(tuple(_recorded(first)) + (("err_raw",) if measure else ()))
            rec.add(t0, 0.0, 0.0, True, 0, _recorded(first))
            g0 = guard.values(t0, st0.y, st0.cache, first)
            st0.energy_ref = growth_reference(g0)
            st0.mass_ref = abs(g0.get("mass", 0.0)) if math.isfinite(g0.get("mass", 0.0)) else 0.0
            guard.start(st0, t0, g0)
            out_t, out_y = [t0], [st0.y]
            stop = _emit(save, t0, st0.y)
        else:
            assert st0.record is not None, "a resumed state carries its record's state"
            rec.restore(st0.record)
            guard.resume(st0.t, st0.y, guard.values(st0.t, st0.y, st0.cache, diag(st0.t, st0.y, st0.cache)))
        loop = _Loop(
            system,
            method,
            controller,
            save,
            save_times,
            diag,
            rec,
            t0,
            t_end,
            max_steps,
            energy_growth,
            measure,
            progress,
            checkpoint,
            out_t,
            out_y,
            guard,
        )
        loop.run(st0, signals, stopped=stop)
        rec.close()
        s = loop.state
        if not save.store and (not out_t or out_t[-1] != s.t):
            out_t.append(s.t)
            out_y.append(s.y)
        message = loop.message
        if message and loop.status not in (Status.OK, Status.STOPPED):
            message = (
                f"{message}; {loop.advice or advice(loop.status, method, system, controller, loop.state.y)}"
            )
            logger.info(message)
        stats = _stats(loop, method, controller, t_end, signals.received)
        return Solution(t=np.asarray(out_t), y=stack_states(out_y), steps=rec.arrays(), status=loop.status,
                        message=message, stats=stats, summary=rec.summary(), state=s), signals.received


def _check_limits(max_steps: Any, energy_growth: Any, drift_factor: float | None) -> None:
    """ValueError (one line) for a step budget, growth factor or drift factor that cannot work."""
    if not (isinstance(max_steps, int) and max_steps >= 1):
        raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
    if energy_growth is not None and not energy_growth > 1:
        raise ValueError(f"energy_growth must be a factor > 1 (or None to disable), got {energy_growth!r}")
    if drift_factor is not None and not drift_factor > 0:
        raise ValueError(f"drift_factor must be > 0 (or None to disable), got {drift_factor!r}")


def _diagnostics_of(system: object, method: Any, diagnostics: Any) -> Callable[[float, Any, Any], dict[str, float]]:
    """The per-step diagnostics: the method's (True), the method's and an ``AlsoRecord``'s, none (False), or
    the user's function of (t, y)."""
    if diagnostics is True:
        return lambda t, yy, c: method.diagnostics(system, t, yy, c)
    if isinstance(diagnostics, AlsoRecord):
        return lambda t, yy, c: method.diagnostics(system, t, yy, c) | diagnostics.fn(t, yy)
    if diagnostics is False:
        return lambda t, yy, c: {}
    return lambda t, yy, c: diagnostics(t, yy)


def _stats(loop: _Loop, method: Any, controller: Any, t_end: float, signal: int | None) -> dict[str, Any]:
    """``Solution.stats``: counts, step sizes, the signal that stopped the run, the energy check's largest
    ratio, and a note when a constant step had to shorten its last step to end at t_end."""
    s, guard = loop.state, loop.guard
    stats: dict[str, Any] = {
        "n_steps": s.n_acc,
        "n_rejected": s.n_rej,
        "n_evaluations": s.n_eval,
        "n_iterations": s.n_iter,
        "wall_time": loop.wall,
        "t_final": s.t,
        "method": method.name,
        "h_first": s.h_first,
        "h_last": s.h_last,
        "h_smallest": s.h_smallest if s.n_acc else math.nan,
        "h_largest": s.h_largest if s.n_acc else math.nan,
    }
    if signal is not None:
        stats["signal"] = signal
    if guard.mode is not None and guard.rtol is not None:
        stats["energy_check"] = s.ratio_max
    if isinstance(controller, ConstantStep) and s.n_acc and abs(s.h_last - controller.h) > 1e-12 * controller.h:
        stats["note"] = f"constant step {controller.h:g}; the last step was {s.h_last:.6g} to end at t = {t_end:g}"
    return stats


class _Loop:
    """The step loop of ``integrate`` (one object so that its state can be checkpointed and resumed)."""

    def __init__(self, system: object, method: Any, controller: Any, save: SaveAt,
                 save_times: np.ndarray | None, diag: Callable[..., dict[str, float]], rec: Any, t0: float,
                 t_end: float, max_steps: int, energy_growth: float | None, measure: bool,
                 progress: Progress | None, checkpoint: Checkpointing | None, out_t: list[float],
                 out_y: list[Any], guard: _Guard) -> None:
        self.guard = guard
        self.system, self.method, self.ctl, self.save, self.save_times = (
            system,
            method,
            controller,
            save,
            save_times,
        )
        self.diag, self.rec, self.t0, self.t_end, self.max_steps = diag, rec, t0, t_end, max_steps
        self.growth, self.measure, self.progress, self.ckpt = energy_growth, measure, progress, checkpoint
        self.frozen_refs = isinstance(
            method, HasBlowupFactor
        )  # conservative: growth against the initial value
        self.out_t, self.out_y = out_t, out_y
        self.n_grid = controller.plan(t0, t_end)[0] if isinstance(controller, ConstantStep) else 0
        self.status, self.message, self.wall = Status.OK, "", 0.0
        self.advice = ""  # a failed step's own advice (Step.advice), in place of the status's
        self.candidate: dict[str, float] = {}

    def grid(self, k: int) -> float:
        """The k-th point of the constant-step grid (the last one is t_end exactly)."""
        return self.t0 + k * self.ctl.h if k < self.n_grid else self.t_end

    def trial(self, s: LoopState) -> tuple[float, float]:
        """(t_new, h) of the next trial step."""
        if self.ctl.adaptive:
            h_try = min(s.h, self.t_end - s.t)
            t_new = self.t_end if h_try == self.t_end - s.t else s.t + h_try
        else:  # the grid t0 + k h: h itself, the last step ends exactly at t_end
            t_new = self.grid(s.k_grid)
            h = self.ctl.h
            h_try = h if s.k_grid < self.n_grid and abs(t_new - s.t - h) <= 1e-12 * h else t_new - s.t
        if not self.method.dense_output and self.save_times is not None and s.k_save < len(self.save_times):
            ts = float(self.save_times[s.k_save])
            if ts < t_new - 1e-12 * max(1.0, abs(t_new)):  # step onto the output time
                t_new, h_try = ts, ts - s.t
        return t_new, h_try

    def judge(
        self, s: LoopState, st: Step[Any, Any], t_new: float, h_try: float
    ) -> tuple[bool, float, Status, str, dict[str, float]]:
        """(accept, err, failure status, detail, diagnostics of the candidate)."""
        ok = st.status is Status.OK and _all_finite(st.y)
        fail: Status = st.status if st.status is not Status.OK else Status.NONFINITE
        detail = st.detail or ("" if ok else "non-finite state")
        err = 0.0
        est = st.embedded() if ok and (self.ctl.adaptive or self.measure) else None
        if ok and self.ctl.adaptive:
            if est is None:
                raise ValueError(f"method {self.method.name!r} gave no error estimate in an adaptive run")
            err = self.ctl.error_norm(*est)
            if not err <= 1.0:
                return False, err, Status.OK, "", {}
        elif est is not None:
            err = self.ctl.error_norm(*est)
        d: dict[str, float] = {}
        self.candidate = {}
        if ok:
            d = self.diag(t_new, st.y, st.cache)
            if est is not None and self.measure:
                d = {**d, "err_raw": float(np.linalg.norm(est[0]))}
            g = self.candidate = self.guard.values(t_new, st.y, st.cache, d)
            for key, status in GROWTH_KEYS.items():
                value, ref = g.get(key, math.nan), getattr(s, f"{key}_ref")
                if self.growth is not None and ref > ENERGY_FLOOR and not math.isnan(value) \
                        and not abs(value) <= self.growth * ref:
                    ok, fail = False, status
                    what = "its initial |value|" if self.frozen_refs else f"the largest |{key}| so far"
                    detail = f"{key} {value:.3g} exceeds {self.growth:g} × {what} ({ref:.3g})"
                    break
            if ok:
                fail_guard, detail = self.guard.check(s, t_new, h_try, st.y, g)
                if fail_guard is not None:
                    ok, fail = False, fail_guard
        return ok, (err if ok else math.inf), fail, detail, _recorded(d)

    def run(self, s: LoopState, signals: _Signals, stopped: bool) -> None:
        self.state = s
        wall0 = last_ckpt_wall = _time.perf_counter()
        last_ckpt_step = s.n_acc
        if stopped:
            self.status, self.message = Status.STOPPED, "stopped by an observer at t0"
        elif self.ckpt is not None and s.n_acc == 0 and s.n_rej == 0:
            self._checkpoint(s)
        try:
            while self.status is Status.OK and s.t < self.t_end:
                if signals.received is not None:
                    name = signal.Signals(signals.received).name
                    self.status, self.message = Status.INTERRUPTED, f"interrupted by {name} at t = {s.t:.6g}"
                    break
                if s.n_acc + s.n_rej >= self.max_steps:
                    self.status = Status.MAX_STEPS
                    self.message = f"maximum number of steps {self.max_steps} reached at t = {s.t:.6g}"
                    break
                t_new, h_try = self.trial(s)
                try:
                    st: Step[Any, Any] = self.method.step(self.system, s.t, h_try, s.y, s.cache)
                    s.n_eval += st.evaluations
                    s.n_iter += st.iterations
                    accept, err, fail, detail, d = self.judge(s, st, t_new, h_try)
                except (ArithmeticError, ValueError) as exc:  # LinAlgError is a ValueError
                    if not blowup_error(exc):
                        raise
                    fail = Status.SINGULAR if isinstance(exc, np.linalg.LinAlgError) else Status.NONFINITE
                    st, accept, err, d = Step(s.y, s.cache, status=fail), False, math.inf, {}
                    detail = f"the step raised {type(exc).__name__} ({exc}): its arithmetic broke down"
                if not accept:
                    self.reject(s, st, t_new, h_try, err, fail, detail)
                    continue
                self.accept(s, st, t_new, h_try, err, d)
                if self.ckpt is not None and (
                    (self.ckpt.steps and s.n_acc - last_ckpt_step >= self.ckpt.steps)
                    or (self.ckpt.seconds and _time.perf_counter() - last_ckpt_wall >= self.ckpt.seconds)
                ):
                    self._checkpoint(s)
                    last_ckpt_step, last_ckpt_wall = s.n_acc, _time.perf_counter()
        except KeyboardInterrupt:  # outside the main thread, or a handler of the caller's
            self.status, self.message = Status.INTERRUPTED, f"interrupted by the user at t = {s.t:.6g}"
            signals.received = signals.received or signal.SIGINT
        self.wall = _time.perf_counter() - wall0

    def reject(self, s: LoopState, st: Step[Any, Any], t_new: float, h_try: float, err: float, fail: Status,
               detail: str) -> None:
        if not self.ctl.adaptive:
            self.status, self.advice = fail, st.advice
            self.message = (f"{self.method.name}: step {s.n_acc + 1} failed (t = {s.t:.6g} -> {t_new:.6g}, "
                            f"h = {h_try:.3g}): {detail}")
            return
        s.n_rej += 1
        self.rec.add(t_new, h_try, err, False, st.iterations, {})
        if fail is Status.OK and st.retry_cache is not None:  # an error-test rejection of a good step
            s.cache = st.retry_cache
        s.h = self.ctl.next_step(h_try, err, self.method.error_order, True)
        s.after_reject = True
        if s.h < self.ctl.h_min:
            self.status = Status.STEP_UNDERFLOW
            self.message = (
                f"step size fell below h_min = {self.ctl.h_min:g} at t = {s.t:.6g} (err = {err:.3g})"
            )
            self.message += f"; last failure: {fail} ({detail})" if fail is not Status.OK else ""

    def accept(self, s: LoopState, st: Step[Any, Any], t_new: float, h_try: float, err: float,
               d: dict[str, float]) -> None:
        stop = self._save_between(s, st, t_new, h_try)
        if self.ctl.adaptive:
            s.h = self.ctl.next_step(h_try, err, self.method.error_order, s.after_reject, s.err_prev)
            hold = getattr(self.method, "step_hold", None)  # keep h unless it may grow by more than hold
            if hold is not None and s.h <= hold * h_try:  # (rkstiff's rule: a method whose coefficients
                s.h = min(s.h, h_try) if s.after_reject else h_try  # cost more than a step when h changes)
            s.err_prev = err
        s.t, s.y, s.cache, s.after_reject = t_new, st.y, st.cache, False
        s.n_acc += 1
        s.h_first = h_try if s.n_acc == 1 else s.h_first
        s.h_last, s.h_smallest, s.h_largest = h_try, min(s.h_smallest, h_try), max(s.h_largest, h_try)
        self.guard.accept(s, self.candidate)
        for key in GROWTH_KEYS:
            value = self.candidate.get(key, math.nan)
            ref = getattr(s, f"{key}_ref")
            if math.isfinite(value) and not (self.frozen_refs and ref > ENERGY_FLOOR):
                setattr(s, f"{key}_ref", max(ref, abs(value)))
        if not self.ctl.adaptive and t_new == self.grid(s.k_grid):
            s.k_grid += 1
        self.rec.add(s.t, h_try, err, True, st.iterations, d)
        sv = self.save
        if self.save_times is None and (sv.steps is None or s.n_acc % sv.steps == 0 or s.t >= self.t_end):
            stop = _emit(sv, s.t, s.y) or stop
            if sv.store:
                self.out_t.append(s.t)
                self.out_y.append(s.y)
        if stop:
            self.status, self.message = Status.STOPPED, f"stopped by an observer at t = {s.t:.6g}"
        if self.progress is not None:
            self.progress(s.t, h_try, s.n_acc, s.n_rej)

    def _save_between(self, s: LoopState, st: Step[Any, Any], t_new: float, h: float) -> bool:
        """Save the output times in (t, t_new] (the step's end state or its dense output)."""
        stop, times = False, self.save_times
        if times is None:
            return stop
        while s.k_save < len(times) and times[s.k_save] <= t_new + 1e-12 * max(1.0, abs(t_new)):
            ts = float(times[s.k_save])
            sigma = (ts - s.t) / h
            if abs(sigma - 1.0) < 1e-9:
                ys = st.y
            elif st.dense is not None:
                ys = st.dense(sigma)
            else:  # unreachable: steps land on output times when there is no dense output
                raise AssertionError(f"output time {ts} inside a step without dense output")
            stop = _emit(self.save, ts, ys) or stop
            if self.save.store:
                self.out_t.append(ts)
                self.out_y.append(ys)
            s.k_save += 1
        return stop

    def _checkpoint(self, s: LoopState) -> None:
        assert self.ckpt is not None
        self.rec.flush()
        cache = self.method.checkpoint(s.cache) if isinstance(self.method, HasCheckpoint) else s.cache
        self.ckpt.save(replace(s, cache=cache, record=self.rec.state()))


class _BudgetedSystem(ConstrainedMechanicalSystem, HasEnergyBudget, Protocol):
    """A mechanical system that books its energy (the budget form of the energy check)."""


class _Guard:
    """The checks of the module docstring that hold whatever ``diagnostics`` is: the values (from the
    diagnostics when they hold them, else one cheap evaluation), the constraint residual and the energy
    check."""

    def __init__(self, system: object, method: Any, y0: Any, constraint_tol: Any,
                 drift_factor: float | None) -> None: 
        self.system, self.method = system, method
        state = isinstance(y0, MechanicalState)
        mech = system if state and supports(system, ConstrainedMechanicalSystem) else None
        budget = mech if mech is not None and supports(mech, HasEnergyBudget) else None
        self.mechanical: ConstrainedMechanicalSystem | None = mech
        self.budgeted: _BudgetedSystem | None = budget  # set: the energy budget can be checked
        self.driven: RheonomicConstraints | None = None  # set: prescribed motions book λ·Φ_t
        if budget is not None and is_rheonomic(budget):
            self.driven = budget
        self.own = getattr(method, "blowup_invariants", None)  # a method's cheap invariants (e.g. NLS's mass)
        if constraint_tol is BY_METHOD:
            length = float(budget.length_scale) if budget is not None \
                else max(1.0, float(np.abs(y0.q).max())) if mech is not None else math.inf
            constraint_tol = PHI_FACTOR * length
        if constraint_tol is not None and not constraint_tol > 0:
            raise ValueError(f"constraint_tol must be > 0 (or None to disable), got {constraint_tol!r}")
        self.phi_tol = constraint_tol if constraint_tol is not None else math.inf
        self.rtol = drift_factor
        self.bound = (
            math.inf
        )  # the factor of the form in use: drift_factor, or INVARIANT_SCALE × it (``resume``)
        self.mode: str | None = (
            None  # "budget" (E − E₀ − W, one-sided), "invariant" (|E − E₀|), None: no check
        )
        self.pending: tuple[float, float, float, float] | None = None
        self.active = True  # False when every check is off (energy_growth, constraint_tol, drift_factor None)

    def values(self, t: float, y: Any, cache: Any, d: dict[str, float]) -> dict[str, float]:
        """{phi, energy, mass, energy_scale} that the checks need (those the system has)."""
        if "energy" in d or "phi" in d or "mass" in d or not self.active:
            return d
        if self.own is not None:
            return dict(self.own(self.system, t, y, cache))
        if self.mechanical is not None and (self.rtol is not None or math.isfinite(self.phi_tol)):
            return residuals(self.mechanical, t, y.q, y.v, velocity=False)
        return d

    def power(self, t: float, y: Any) -> float | None:
        """P = f·v of the loads not in the potential (with ∂V/∂t of moving spring anchors) plus λ·Φ_t, the
        power of the prescribed motions (M v' + g + Bᵀλ = 0 and B v + Φ_t = 0 give dE/dt = P + λ·Φ_t); None
        when the system cannot say or a driven state carries no λ."""
        assert self.budgeted is not None, "power() only for a system with HasEnergyBudget (the budget check)"
        p = self.budgeted.external_power(t, y.q, y.v)
        if p is None or self.driven is None:
            return p
        if y.lam is None:
            return None
        return float(p) + float(np.dot(y.lam, self.driven.constraint_rate(t, y.q)))

    def content(self, s: LoopState, y: Any, g: dict[str, float]) -> float:
        """The state's energy content, the scale of the energy check: the invariant's ``energy_scale``
        (kinetic plus |each energy part|) or, for a mechanical system, T + |V − V₀| (the potential relative
        to the initial state's: the same rod at z = 0 and at z = 10⁵ m has the same content)."""
        if self.mode == "invariant":
            return float(g.get("energy_scale", math.nan))
        assert self.budgeted is not None, "the budget form needs HasEnergyBudget (resume() picks it so)"
        kinetic = float(self.budgeted.kinetic_energy(y.v))
        return kinetic + abs(g.get("energy", math.nan) - kinetic - s.potential0)

    def scale(self, s: LoopState, content: float) -> float:
        """The energy check's scale before the work: an invariant kind's content at t₀ (its energy is
        conserved, so a blow-up that inflates both parts cannot widen its own bound); a mechanical system's
        largest content so far (a rod falling from rest under gravity, whose work is in V, has none at t₀)."""
        return s.content0 if self.mode == "invariant" else max(s.content_max, content)

    def start(self, s: LoopState, t0: float, g0: dict[str, float]) -> None:
        """E₀, V₀, the content at t₀ and P(t₀) of the energy check (off when the system cannot account for its
        energy or ``drift_factor`` is None)."""
        self.resume(t0, s.y, g0)
        if self.mode is None:
            return
        energy = g0["energy"]
        if self.mode == "budget":
            power = self.power(t0, s.y)
            assert power is not None and self.budgeted is not None, "resume() picks the budget form only then"
            s.power = float(power)
            s.potential0 = energy - float(self.budgeted.kinetic_energy(s.y.v))
        else:
            s.power = 0.0
        s.energy0 = energy
        s.content0 = s.content_max = self.content(s, s.y, g0)

    def resume(self, t: float, y: Any, g: dict[str, float]) -> None:
        """The check's form from the values ``g`` at (t, y): "invariant" when they carry ``energy_scale``,
        "budget" for a mechanical system that books its power, None (no check) otherwise; a resumed run
        picks the same form (its E₀, content and work come with the loop state)."""
        self.mode = None
        if self.rtol is None or not math.isfinite(g.get("energy", math.nan)):
            return
        if math.isfinite(g.get("energy_scale", math.nan)):
            self.mode = "invariant"
            self.bound = self.rtol * INVARIANT_SCALE
        elif self.budgeted is not None and self.power(t, y) is not None:
            self.mode, self.bound = "budget", self.rtol

    def check(
        self, s: LoopState, t_new: float, h: float, y: Any, g: dict[str, float]
    ) -> tuple[Status | None, str]:
        """(failure status or None, detail) of a candidate step's values ``g``."""
        self.pending = None
        phi = g.get("phi", 0.0)
        if not phi <= self.phi_tol:
            return Status.CONSTRAINT_DRIFT, (
                f"constraint residual |Φ| = {phi:.3g} exceeds {self.phi_tol:.3g} "
                f"({PHI_FACTOR:g} × the model's length)"
            )
        if self.mode is None or self.rtol is None or not math.isfinite(s.energy0):
            return None, ""
        power = self.power(t_new, y) if self.mode == "budget" else 0.0
        if power is None or not math.isfinite(power):
            return None, ""
        work = s.work + 0.5 * h * (s.power + power)
        work_abs = s.work_abs + 0.5 * h * (abs(s.power) + abs(power))
        energy, content = g.get("energy", math.nan), self.content(s, y, g)
        scale = self.scale(s, content) + work_abs
        defect = energy - s.energy0 - work
        bad = defect > self.bound * scale if self.mode == "budget" else not abs(defect) <= self.bound * scale
        if scale > ENERGY_FLOOR and (bad or not math.isfinite(defect)):
            if self.mode == "budget":
                what, of = (f"E − E₀ − W; E₀ = {s.energy0:.6g}, W = {work:.3g} the work done on it",
                            "the largest content so far plus the work's magnitude")
            else:
                what, of = (
                    f"E − E₀; E₀ = {s.energy0:.6g}, a conserved energy",
                    "its content at t0: kinetic + |each part|",
                )
            return Status.ENERGY_GROWTH, (
                f"energy {energy:.6g} is {defect:.3g} from its balance ({what}), more than "
                f"{self.bound:g} × the energy content ({scale:.3g}: {of})"
            )
        self.pending = (float(power), work, work_abs, content)
        return None, ""

    def accept(self, s: LoopState, g: dict[str, float]) -> None:
        if self.pending is not None:
            s.power, s.work, s.work_abs, content = self.pending
            s.content_max = max(s.content_max, content)
            defect = g["energy"] - s.energy0 - s.work  # signed for the budget: a damped rod loses energy
            s.ratio_max = max(s.ratio_max, (defect if self.mode == "budget" else abs(defect))
                              / max(self.scale(s, content) + s.work_abs, ENERGY_FLOOR))
            self.pending = None


def _recorded(d: dict[str, float]) -> dict[str, float]:
    """The diagnostics that go to the record: all but the guard's own values (``GUARD_ONLY``)."""
    return {k: v for k, v in d.items() if k not in GUARD_ONLY} if "energy_scale" in d else d


def _emit(save: SaveAt, t: float, y: Any) -> bool:
    """Hand a saved state to the observers; True when one asks to stop."""
    stop = False
    for obs in save.observers:
        stop = (obs(t, y) is Status.STOPPED) or stop
    return stop
