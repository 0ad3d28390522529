"""``lgbeam bench herk``: µs per fixed-step HEDOP5 step on the heavy top (S3R3) and on the flying-spaghetti
rod for N = 16 … 4096 edges (targets: < 1 ms at N = 16; cost(4096)/cost(256) ≤ 20, i.e. linear in N).

Each size: one warm-up run (caches, kernel compilation), then the best of ``repeats`` timed runs of
1 + ``n_steps`` and of 1 step through ``lgbeam.solve.integrate``; their difference over ``n_steps`` is the
cost of a step with the driver's per-step work (residual bookkeeping) but without the per-run setup. Wall time and process CPU time are both recorded (on a shared machine the CPU time is the
steadier one). Every size is timed twice, side by side: a system built with ``compiled=True`` (the numba
kernels of the ``_compiled`` modules) and one built with ``compiled=False`` (the numpy paths), so the column
``speed-up`` is measured in one run. The stage solver is the driver's (``lgbeam._numba.ENABLED`` picks it),
the same in both columns.
"""

from __future__ import annotations

import csv
import dataclasses
import logging
import time
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


def _time_runs(system, q0, v0, h: float, n_steps: int, repeats: int) -> tuple[float, float]:
    """(wall, cpu) µs per step: best of ``repeats`` of (T(1 + n_steps) − T(1)) / n_steps, so the per-run setup
    (M⁻¹, the stage solver's product pattern, consistent λ₀) is not counted as step cost."""
    from lgbeam.solve import ConstantStep, MechanicalState, integrate

    integrate(system, "hedop5", MechanicalState(q0, v0), (0.0, 2 * h), controller=ConstantStep(h))  # warm-up (kernel compilation, caches)

    def timed(k: int) -> tuple[float, float]:
        best_wall, best_cpu = np.inf, np.inf
        for _ in range(repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            sol = integrate(system, "hedop5", MechanicalState(q0, v0), (0.0, k * h), controller=ConstantStep(h))
            best_wall = min(best_wall, time.perf_counter() - w0)
            best_cpu = min(best_cpu, time.process_time() - c0)
            if sol.status != "ok":
                raise RuntimeError(f"benchmark run failed: {sol.message}")
        return best_wall, best_cpu

    w1, c1 = timed(1)
    wn, cn = timed(1 + n_steps)
    return max(wn - w1, 0.0) / n_steps * 1e6, max(cn - c1, 0.0) / n_steps * 1e6


def heavy_top_cost(n_steps: int, repeats: int, compiled: bool) -> tuple[float, float]:
    """(wall, cpu) µs per HEDOP5 step of the heavy top in S3R3 (seed 004 §2.4 data)."""
    from lgbeam.models.heavy_top import HeavyTop

    top = HeavyTop("S3R3", compiled=compiled)
    q0, v0 = top.initial_state()
    return _time_runs(top, q0, v0, 1e-3, n_steps, repeats)


def rod_cost(n: int, n_steps: int, repeats: int, compiled: bool) -> tuple[float, float]:
    """(wall, cpu) µs per HEDOP5 step of the flying spaghetti with n edges."""

    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build

    case, _ = load_case("flying-spaghetti", [f"model.n_elements={n}"])
    rod, q0, v0 = build(case)
    rod = dataclasses.replace(rod, compiled=compiled)
    h = 1e-3 * 16 / n  # explicit stages: axial wave ω ≈ 2√(EA/ρA)/Δs needs ωh ≲ 3 (see bench/rod.py)
    return _time_runs(rod, q0, v0, h, n_steps, repeats)


def _both(fn, *args) -> tuple[float, float, float, float]:
    """(wall, cpu) of the system built with ``compiled=True``, then of the one built with ``compiled=False``."""
    from lgbeam._numba import AVAILABLE

    if not AVAILABLE:
        logger.warning("numba is missing: both columns use numpy")
        w, c = fn(*args, compiled=False)
        return w, c, w, c
    return (*fn(*args, compiled=True), *fn(*args, compiled=False))


def run(out_dir: Path, quick: bool) -> None:
    """Print the table and write ``out_dir/herk.csv`` (columns: system, N, us_per_step, cpu_us_per_step,
    numpy_us_per_step, numpy_cpu_us_per_step)."""
    sizes = [16, 64] if quick else [16, 64, 256, 1024, 4096]
    repeats = 1 if quick else 3
    rows = [("heavy-top-S3R3", 1, *_both(heavy_top_cost, 20 if quick else 200, repeats))]
    for n in sizes:
        n_steps = 5 if quick else max(10, min(50, 20000 // n))
        rows.append(("rod-flying-spaghetti", n, *_both(rod_cost, n, n_steps, repeats)))
    print(f"{'system':<24}{'N':>6}{'us/step':>12}{'cpu us/step':>14}{'numpy cpu':>12}{'speed-up':>10}")
    for r in rows:
        print(f"{r[0]:<24}{r[1]:>6}{r[2]:>12.0f}{r[3]:>14.0f}{r[5]:>12.0f}{r[5] / r[3]:>10.1f}")
    rod = {r[1]: r[3] for r in rows[1:]}
    if 256 in rod and 4096 in rod:
        print(f"cost(4096)/cost(256) = {rod[4096] / rod[256]:.1f} (cpu, compiled; target <= 20)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "herk.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "N", "us_per_step", "cpu_us_per_step", "numpy_us_per_step", "numpy_cpu_us_per_step"])
        w.writerows(rows)
