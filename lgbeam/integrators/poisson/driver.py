"""Fixed-step driver for the Poisson-system integrators: per-step iteration counts and monitors."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lgbeam._typing import Array, FloatArray
from lgbeam.systems import SemilinearPoissonSystem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PoissonRun:
    """Result of ``integrate_poisson``.

    ``t``, ``y``: saved times and states (n_save, n_state); ``steps``: per-step records (t, h,
    iterations and the monitor's values, including step 0 = the initial state with iterations 0);
    ``status`` is ``"ok"`` or ``"solver_failed"`` (then ``message`` says which step, which residual and
    what to change), or ``"interrupted"``.
    """

    t: FloatArray
    y: Array
    steps: dict[str, FloatArray]
    status: str = "ok"
    message: str = ""
    n_steps: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def iterations(self) -> FloatArray:
        return self.steps["iterations"][1:]


def step_plan(t0: float, t_end: float, h: float) -> tuple[int, float]:
    """Number of steps and the last step size for fixed steps h over [t0, t_end]."""
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"step size h must be a positive number, got h={h!r} (set integrator.h)")
    if not t_end > t0:
        raise ValueError(f"t_end={t_end!r} must be larger than t0={t0!r} (set time.t_end)")
    n = max(1, math.ceil((t_end - t0) / h - 1e-9))
    return n, (t_end - t0) - (n - 1) * h


def integrate_poisson(
    system: SemilinearPoissonSystem,
    integrator: Any,
    y0: Array,
    *,
    h: float,
    t_end: float,
    t0: float = 0.0,
    save_every: int = 1,
    monitor: Callable[[Array], dict[str, float]] | None = None,
    observer: Callable[[int, float, Array], None] | None = None,
    max_steps: int | None = None,
    log_failure: bool = True,
) -> PoissonRun:
    """Integrate with fixed steps (the last one shortened to land on ``t_end``).

    Parameters
    ----------
    monitor : callable, optional
        ``monitor(y) -> {name: value}`` evaluated after every step (default: ``{"energy": H(y)}``).
    observer : callable, optional
        ``observer(i, t, y)`` at every ``save_every``-th step and at the end.
    max_steps : int, optional
        Stop after this many steps (used by the h_max study: "the first 1000 steps").
    log_failure : bool
        Log a solver failure as a warning (the h_max study expects failures and turns this off).
    """
    if save_every < 1:
        raise ValueError(f"save_every must be a positive number of steps, got {save_every}")
    n, h_last = step_plan(t0, t_end, h)
    if max_steps is not None:
        n, h_last = min(n, max_steps), (h_last if max_steps >= n else h)
    mon = monitor or (lambda y: {"energy": system.hamiltonian(y)})
    first = mon(y0)
    records: dict[str, list[float]] = {"t": [t0], "h": [0.0], "iterations": [0.0]}
    records.update({key: [val] for key, val in first.items()})
    ts, ys = [t0], [np.array(y0, copy=True)]
    if observer is not None:
        observer(0, t0, y0)
    y, t, status, message = y0, t0, "ok", ""
    done = 0
    try:
        for i in range(1, n + 1):
            hi = h if i < n else h_last
            st = integrator.step(system, hi, y)
            if not st.converged:
                status = "solver_failed"
                message = (
                    f"{integrator.name}: the nonlinear solver did not converge at step {i} (t = {t:.6g} -> "
                    f"{t + hi:.6g}, h = {hi:.3g}): relative increment {st.residual:.3g} after {st.iterations} "
                    f"iterations ({st.reason}). Use a smaller integrator.h, raise integrator.max_iter, or "
                    f"another solver (e.g. energy-exp or midpoint-newton)."
                )
                (logger.warning if log_failure else logger.debug)(message)
                break
            y, t, done = st.y, t0 + (i * h if i < n else (n - 1) * h + h_last), i
            records["t"].append(t)
            records["h"].append(hi)
            records["iterations"].append(float(st.iterations))
            for key, val in mon(y).items():
                records[key].append(val)
            if i % save_every == 0 or i == n:
                ts.append(t)
                ys.append(np.array(y, copy=True))
                if observer is not None:
                    observer(i, t, y)
    except KeyboardInterrupt:
        status, message = "interrupted", f"interrupted after {done} steps at t = {t:.6g}"
        logger.warning(message)
    steps = {key: np.asarray(val) for key, val in records.items()}
    return PoissonRun(np.asarray(ts), np.asarray(ys), steps, status, message, done)
