"""``lgbeam bench rod``: µs per HEDOP5 step of the Cosserat rod for N = 16 … 4096 (target: linear
growth) and the wall time of the flying spaghetti to t = 10 at rtol 1e-6 (with its step count)."""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


def _step_cost(n: int, n_steps: int) -> float:
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.solve import ConstantStep, MechanicalState, integrate

    case, _ = load_case("flying-spaghetti", [f"model.n_elements={n}"])
    rod, q0, v0 = build(case)
    h = 1e-3 * 16 / n  # explicit stages: the axial wave ω ≈ 2√(EA/ρA)/Δs must satisfy ωh ≲ 3 (CFL)
    y0 = MechanicalState(q0, v0)
    integrate(rod, "hedop5", y0, (0.0, 2 * h), controller=ConstantStep(h))  # warm-up (caches, imports)
    t0 = time.perf_counter()
    sol = integrate(rod, "hedop5", y0, (0.0, n_steps * h), controller=ConstantStep(h))
    wall = time.perf_counter() - t0
    if sol.status != "ok":
        raise RuntimeError(f"benchmark run N={n} failed: {sol.message}")
    return wall / n_steps * 1e6


def _spaghetti(t_end: float) -> tuple[float, int, int]:
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.solve import AdaptiveStep, MechanicalState, integrate

    case, _ = load_case("flying-spaghetti")
    rod, q0, v0 = build(case)
    t0 = time.perf_counter()
    sol = integrate(rod, "hedop5", MechanicalState(q0, v0), (0.0, t_end), controller=AdaptiveStep(rtol=1e-6, atol=1e-8))
    wall = time.perf_counter() - t0
    acc = np.asarray(sol.steps["accepted"], dtype=bool)
    return wall, int(acc.sum()), int((~acc).sum())


def run(out_dir: Path, quick: bool) -> None:
    """Print the table and write ``out_dir/rod.csv`` (columns: case, N, steps, rejected, us_per_step, wall_s)."""
    sizes = [16, 64] if quick else [16, 64, 256, 1024, 4096]
    n_steps = 5 if quick else 20
    rows = []
    for n in sizes:
        us = _step_cost(n, n_steps)
        rows.append(("hedop5-step", n, n_steps, 0, us, us * n_steps * 1e-6))
    t_end = 0.5 if quick else 10.0
    wall, acc, rej = _spaghetti(t_end)
    rows.append((f"flying-spaghetti-t{t_end:g}", 16, acc, rej, wall / max(acc + rej, 1) * 1e6, wall))
    print(f"{'case':<26}{'N':>6}{'steps':>8}{'rejected':>10}{'us/step':>12}{'wall [s]':>10}")
    for r in rows:
        print(f"{r[0]:<26}{r[1]:>6}{r[2]:>8}{r[3]:>10}{r[4]:>12.0f}{r[5]:>10.2f}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "rod.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["case", "N", "steps", "rejected", "us_per_step", "wall_s"])
        w.writerows(rows)
