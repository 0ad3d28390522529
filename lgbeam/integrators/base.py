"""What every time-integration method gives the one driver (``lgbeam.solve.integrate``).

A method is frozen configuration plus two pure functions:

    y0, cache = method.init(system, t0, y0)       # checked (consistent) y0; λ₀, FSAL stage, solvers, ...
    step = method.step(system, t, h, y, cache)     # a Step: the candidate at t + h

The driver owns time, step size, acceptance, saving and counting; a method never touches a clock,
a file or an observer. ``Step.cache`` is what the next step needs when this one is accepted;
``Step.retry_cache`` (optional) what a retry of the same step may reuse when it is rejected.

``Status`` is the one enumeration of how a step or a run ended. Its value is a short code (written to
``provenance.json`` and compared as a string, ``sol.status == "ok"``); ``advice`` says what to change.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from lgbeam._typing import FloatArray

StateT = TypeVar("StateT")
CacheT = TypeVar("CacheT")
SysT_contra = TypeVar("SysT_contra", contravariant=True)  # the system protocol a method integrates
StateT_contra = TypeVar("StateT_contra", contravariant=True)  # the same, where only taken (capabilities)
CacheT_contra = TypeVar("CacheT_contra", contravariant=True)


class Status(StrEnum):
    """How a step or a run ended; ``advice`` is the action a user can take."""

    OK = "ok"
    MAX_STEPS = "max_steps"
    STEP_UNDERFLOW = "h_min"
    NONFINITE = "nonfinite"
    SINGULAR = "singular"
    SOLVER_FAILED = "solver_failed"
    ENERGY_GROWTH = "energy_growth"
    MASS_GROWTH = "mass_growth"
    CONSTRAINT_DRIFT = "constraint_drift"
    INTERRUPTED = "interrupted"
    STOPPED = "stopped"

    @property
    def advice(self) -> str:
        return _ADVICE[self]


_ADVICE: dict[Status, str] = {
    Status.OK: "",
    Status.MAX_STEPS: "raise max_steps (case key integrator.max_steps) or loosen the tolerances",
    Status.STEP_UNDERFLOW: "loosen rtol/atol, lower h_min, or check the model (a step blew up at every size tried)",
    Status.NONFINITE: "reduce the step size (integrator.h)",
    Status.SINGULAR: "reduce the step (integrator.h) when earlier steps or the start solved, else check the "
    "constraints and supports (redundant or contradictory rows)",
    Status.SOLVER_FAILED: "use a smaller integrator.h, raise integrator.max_iter, or another method",
    Status.ENERGY_GROWTH: "the solution blew up: reduce integrator.h",
    Status.MASS_GROWTH: "the solution blew up (its mass grew): reduce integrator.h or use another method",
    Status.CONSTRAINT_DRIFT: "the solution left its constraints (a blow-up, or the drift of a method that holds them only "
    "at velocity level): reduce integrator.h",
    Status.INTERRUPTED: "the run was interrupted; the files hold everything up to the last accepted step",
    Status.STOPPED: "an observer asked the run to stop",
}


@dataclass(frozen=True, slots=True)
class Step(Generic[StateT, CacheT]):
    """One candidate step t → t + h; the driver's controller decides whether it is accepted.

    ``error`` is the embedded local-error vector (None without an embedded pair); ``magnitude`` the
    elementwise size |y| the relative tolerance scales (same shape as ``error``). A method whose estimate
    costs extra work may give ``estimate`` instead, a function returning ``(error, magnitude)`` that the
    driver calls only when a controller needs it (not in plain constant-step runs). ``dense(σ)`` is the
    state at t + σh (σ ∈ [0, 1]) for output between steps, or None. ``status`` other than OK means the
    step itself failed (``detail`` says how, ``advice`` — when given — what to change in its status's place);
    adaptive runs then retry smaller, fixed steps stop.
    """

    y: StateT
    cache: CacheT
    error: FloatArray | None = None
    magnitude: FloatArray | None = None
    estimate: Callable[[], tuple[FloatArray, FloatArray]] | None = None
    dense: Callable[[float], StateT] | None = None
    status: Status = Status.OK
    detail: str = ""
    evaluations: int = 0
    iterations: int = 0
    retry_cache: CacheT | None = None
    advice: str = ""  # what to change, where the method knows better than its status's generic advice

    def embedded(self) -> tuple[FloatArray, FloatArray] | None:
        """(error, magnitude) of the embedded estimate, or None when the method gives none."""
        if self.estimate is not None:
            return self.estimate()
        if self.error is None:
            return None
        assert self.magnitude is not None, "a Step with an error estimate needs its magnitude"
        return self.error, self.magnitude


@runtime_checkable
class Integrator(Protocol[SysT_contra, StateT, CacheT]):
    """A one-step method: ``init`` once, then ``step`` (pure) for every trial step.

    ``system_type`` is the protocol (``lgbeam.systems``) a system must satisfy; ``requires`` the
    optional capability protocols this method also needs. The driver checks both before the first step
    (``lgbeam.solve.contracts``, ``isinstance`` on the runtime protocols). ``SysT_contra`` is what the
    method's ``init``/``step``/``diagnostics`` annotate ``system`` with: ``system_type`` itself, or a
    protocol composed of it and ``requires`` (``tests/test_registry_types.py`` checks that they agree).
    ``dense_output``: whether ``Step.dense`` is given (otherwise the driver steps onto output times).
    """

    system_type: ClassVar[type]
    requires: ClassVar[tuple[type, ...]]
    dense_output: ClassVar[bool]

    @property
    def name(self) -> str: ...
    @property
    def order(self) -> int: ...
    @property
    def error_order(self) -> int | None: ...
    def init(self, system: SysT_contra, t0: float, y0: StateT) -> tuple[StateT, CacheT]: ...
    def step(self, system: SysT_contra, t: float, h: float, y: StateT,
             cache: CacheT) -> Step[StateT, CacheT]: ...
    def diagnostics(self, system: SysT_contra, t: float, y: StateT, cache: CacheT) -> dict[str, float]: ...


class TableauOrders:
    """``order`` and ``error_order`` of a method defined by its ``tableau`` (anything with ``order`` and
    ``error_order``): a mixin of the tableau-driven method dataclasses."""

    tableau: Any

    @property
    def order(self) -> int:
        return int(self.tableau.order)

    @property
    def error_order(self) -> int | None:
        return self.tableau.error_order  # type: ignore[no-any-return]


def check_iteration_options(tol: Any, max_iter: Any) -> None:
    """ValueError unless ``tol`` lies in (0, 1) and ``max_iter`` is a positive integer (nonlinear solves)."""
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and 0 < tol < 1):
        raise ValueError(f"Newton tolerance tol must lie in (0, 1), got {tol!r}; e.g. 1e-8")
    if not (isinstance(max_iter, int) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}; e.g. 20")


@runtime_checkable
class HasCheckpoint(Protocol[SysT_contra, StateT_contra, CacheT]):
    """Optional capability of a method: its cache in a picklable, compact form and back (checkpoint and
    restart); without it the cache itself is pickled. The compact form is plain data (arrays, numbers)."""

    def checkpoint(self, cache: CacheT) -> Any: ...
    def restore(self, system: SysT_contra, y: StateT_contra, data: Any) -> CacheT: ...


@runtime_checkable
class HasBlowupFactor(Protocol):
    """Optional capability of a method for conservative systems: the growth factor of its ``energy``/``mass``
    diagnostics over their initial values that the driver treats as a blow-up when the caller gives none
    (the Poisson methods: 10; a method without it: 1e6 over the largest value so far)."""

    @property
    def blowup_factor(self) -> float: ...


@runtime_checkable
class HasInitialStep(Protocol[SysT_contra, StateT_contra, CacheT_contra]):
    """Optional capability of a method: a starting step size for adaptive runs (else ``h0`` is needed).
    ``rtol``/``atol``: scalars or arrays shaped like the error vector (``AdaptiveStep``)."""

    def initial_step(self, system: SysT_contra, t0: float, y0: StateT_contra, cache: CacheT_contra,
                     rtol: FloatArray | float, atol: FloatArray | float, h_max: float) -> float: ...


__all__ = ["HasBlowupFactor", "HasCheckpoint", "HasInitialStep", "Integrator", "Status", "Step"]
