"""What the mechanical apps (heavy top, rod) share: integrate a case with a progress bar and a
ParaView series, and write diagnostics.csv."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Callable

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.io.progress import Progress
from lgbeam.io.vtk import Frame, PVDSeries
from lgbeam.solve import Solution, integrate

DIAGNOSTIC_COLUMNS = (("t", "t"), ("h", "h"), ("energy", "energy"), ("phi_norm", "phi"), ("bv_norm", "bv"),
                      ("accepted", "accepted"))


def integrate_case(system: Any, q0: np.ndarray, v0: np.ndarray, case: dict[str, Any], run_dir: Path,
                   frame: Callable[[np.ndarray, np.ndarray, np.ndarray], Frame], *, progress: bool,
                   **options: Any) -> Solution:
    """Integrate over ``case['time']`` with ``case['integrator']``, writing a frame at every output time
    into ``run_dir/paraview/<name>.pvd`` (if ``output.vtk``); the series is closed (valid) on any exit."""
    integ, tm, out = case["integrator"], case["time"], case["output"]
    series = PVDSeries(Path(run_dir) / "paraview" / f"{case['name']}.pvd") if out["vtk"] else None

    def observer(t: float, q: np.ndarray, v: np.ndarray, lam: np.ndarray) -> None:
        if series is not None:
            series.write_frame(t, frame(q, v, lam))

    bar = Progress(tm["t0"], tm["t_end"], enabled=progress)
    try:
        return integrate(
            system, q0, v0, (tm["t0"], tm["t_end"]), integ["method"], h=integ.get("h"), rtol=integ["rtol"],
            atol=integ["atol"], save_every=out["every"], observer=observer,
            progress=(lambda t, h, na, nr: bar.update(t, h, na, nr)) if progress else None, **options,
        )
    finally:
        bar.close()
        if series is not None:
            series.close()


def write_diagnostics(path: Path, steps: dict[str, Any]) -> None:
    """diagnostics.csv: one row per attempted step (t, h, energy, |Φ|, |B v|, accepted 0/1)."""
    n = len(np.asarray(steps.get("t", [])))
    data = [np.asarray(steps.get(k, np.full(n, np.nan))) for _, k in DIAGNOSTIC_COLUMNS]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([c for c, _ in DIAGNOSTIC_COLUMNS])
        for i in range(n):
            w.writerow([repr(float(d[i])) for d in data[:-1]] + [int(bool(data[-1][i]))])


def summary(sol: Solution, **extra: Any) -> RunSummary:
    """The RunSummary of a finished (or stopped) integration."""
    return RunSummary(status=sol.status, message=sol.message, n_steps=int(sol.stats["n_steps"]),
                      n_rejected=int(sol.stats["n_rejected"]), t_final=float(sol.t[-1]), extra=extra)


def index_at_reference_end(solution: dict[str, Any], reference: dict[str, Any]) -> int:
    """Index of the solution's saved time equal to the reference's final time (for study errors)."""
    t_ref = float(np.asarray(reference["t"])[-1])
    t = np.asarray(solution["t"])
    k = int(np.argmin(np.abs(t - t_ref)))
    if abs(t[k] - t_ref) > 1e-9 * max(1.0, abs(t_ref)):
        raise ValueError(f"solution has no saved time at the reference's final time {t_ref}; align output.every")
    return k
