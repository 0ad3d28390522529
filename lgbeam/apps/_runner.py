"""The one runner of every case kind: a case's ``build`` gives a ``Problem`` (system, initial state,
ParaView frame, solution arrays); ``run_problem`` integrates it through ``lgbeam.solve.integrate`` with the
case's integrator, time and output sections, and writes the run folder:

    solution.npz      what ``Problem.arrays(sol)`` returns (the app's own keys)
    diagnostics.csv   one row per attempted step: t, h, err, accepted, iterations, the method's diagnostics
    paraview/<name>.pvd (+ frames)   every output time, valid at any moment (``PVDSeries``)

The series is closed (valid) on any exit; ``KeyboardInterrupt`` inside the driver becomes the status
"interrupted" with every file written.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
from lgbeam.integrators.registry import make_method
from lgbeam.io.progress import Progress
from lgbeam.io.vtk import Frame, PVDSeries
from lgbeam.solve import SaveAt, Solution, integrate


@dataclass(frozen=True)
class Problem:
    """What an app's ``build`` hands the runner.

    ``frame(y)`` is the ParaView frame of a state; ``arrays(sol)`` the arrays of solution.npz;
    ``summary(sol)`` extra figures for provenance.json; ``diagnostics`` True (the method's own), False or
    ``fn(t, y) -> dict``; ``method_options`` extra options for ``make_method`` (e.g. projections).
    """

    system: Any
    y0: Any
    frame: Callable[[Any], Frame]
    arrays: Callable[[Solution], dict[str, Any]]
    summary: Callable[[Solution], dict[str, Any]] = lambda sol: {}
    diagnostics: Any = True
    method_options: dict[str, Any] = field(default_factory=dict)


def controller_of(integ: dict[str, Any]) -> ConstantStep | AdaptiveStep:
    """ConstantStep(integrator.h) when h is given, else AdaptiveStep(integrator.rtol, integrator.atol)."""
    if integ.get("h") is not None:
        return ConstantStep(integ["h"])
    if integ.get("rtol") is None or integ.get("atol") is None:
        raise ValueError("adaptive stepping needs integrator.rtol and integrator.atol (e.g. 1e-6, 1e-8), "
                         "or give a fixed step integrator.h")
    return AdaptiveStep(rtol=integ["rtol"], atol=integ["atol"])


def run_problem(case: dict[str, Any], run_dir: Path, problem: Problem, *, progress: bool) -> RunSummary:
    """Integrate ``problem`` over ``case['time']`` with ``case['integrator']``; write the run folder."""
    integ, tm, out = case["integrator"], case["time"], case["output"]
    run_dir = Path(run_dir)
    method = make_method(integ["method"], **problem.method_options)
    controller = controller_of(integ)
    series = PVDSeries(run_dir / "paraview" / f"{case['name']}.pvd") if out["vtk"] else None
    observers = () if series is None else (lambda t, y: series.write_frame(t, problem.frame(y)),)
    bar = Progress(tm["t0"], tm["t_end"], enabled=progress)
    try:
        sol = integrate(problem.system, method, problem.y0, (tm["t0"], tm["t_end"]), controller=controller,
                        save=SaveAt(every=out["every"], observers=observers), diagnostics=problem.diagnostics,
                        progress=bar.update if progress else None, max_steps=int(integ.get("max_steps", 1_000_000)))
    finally:
        bar.close()
        if series is not None:
            series.close()
    np.savez(run_dir / "solution.npz", **problem.arrays(sol))
    write_diagnostics(run_dir / "diagnostics.csv", sol.steps)
    return RunSummary(status=str(sol.status), message=sol.message, n_steps=sol.n_steps,
                      n_rejected=int(sol.stats["n_rejected"]), t_final=float(sol.stats["t_final"]),
                      extra={"h_last": sol.stats["h_last"], **problem.summary(sol)})


def write_diagnostics(path: Path, steps: dict[str, Any]) -> None:
    """diagnostics.csv: one row per attempted step, the columns of the driver's record (``Solution.steps``)."""
    keys = list(steps)
    data = [np.asarray(steps[k], dtype=float) for k in keys]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(keys)
        for row in zip(*data):
            w.writerow([repr(float(x)) for x in row])


def index_at_reference_end(solution: dict[str, Any], reference: dict[str, Any]) -> int:
    """Index of the solution's saved time equal to the reference's final time (for study errors)."""
    t_ref = float(np.asarray(reference["t"])[-1])
    t = np.asarray(solution["t"])
    k = int(np.argmin(np.abs(t - t_ref)))
    if abs(t[k] - t_ref) > 1e-9 * max(1.0, abs(t_ref)):
        raise ValueError(f"solution has no saved time at the reference's final time {t_ref}; align output.every")
    return k
