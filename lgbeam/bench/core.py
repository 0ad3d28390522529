"""``lgbeam bench core``: what the compiled step core of rods and frames costs (docs/benchmarks.md, "Step core").

Sections of ``core.csv`` (columns: section, case, method, N, value, unit, note; every time is process CPU time,
best of ``REPEATS`` runs, one thread):

1. ``clamp``: µs per explicit step (HEDOP5 and HERK4 at a constant h = 1e-5) of the steel cantilever with its
   clamp and of the same rod free, N = 16 and 64; ``ratio`` = clamped / free (the clamp's rows cost).
2. ``scaling``: µs per step on the flying spaghetti for N = 16 … 4096 (quick: … 256): HERK4 at h = 1e-5 (20
   steps) and gen-alpha at h = 1e-3 (10 steps after one, so the occasional refactorisation is counted);
   ``exponent`` = the least-squares slope of log(µs) against log(N) over N ≥ 256 (1: O(N)).
3. ``steel``: the steel cantilever case over 1 s with gen-alpha at h = 1 ms, N = 16 and 64: CPU seconds,
   steps, Newton iterations and factorisations (the lgbeam side of ``lgbeam bench stiff``'s Exudyn comparison).
4. ``frames``: gen-alpha ms per step of the ``tower-gust`` and ``portal-frame`` cases at their own h (40 steps).
"""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

COLUMNS = ["section", "case", "method", "N", "value", "unit", "note"]
REPEATS = 3


def _cpu(fn: Any, repeats: int) -> tuple[float, Any]:
    """(smallest process CPU seconds of ``repeats`` calls, the last result)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        c0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c0)
    return best, out


def _rod(case: str, sets: list[str]) -> tuple[Any, Any]:
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.solve import MechanicalState

    c, _ = load_case(case, sets)
    rod, q0, v0 = build(c)
    return rod, MechanicalState(q0, v0)


def _per_step(rod: Any, y0: Any, method: str, h: float, steps: int, repeats: int) -> tuple[float, Any]:
    """µs per step of ``steps`` constant steps (after a one-step warm-up: compilation, caches)."""
    from lgbeam.solve import ConstantStep, SaveAt, integrate

    def run() -> Any:
        return integrate(rod, method, y0, (0.0, steps * h), controller=ConstantStep(h),
                         save=SaveAt(times=[0.0, steps * h]), diagnostics=False)

    integrate(rod, method, y0, (0.0, h), controller=ConstantStep(h), diagnostics=False)
    cpu, sol = _cpu(run, repeats)
    if sol.status != "ok":
        raise RuntimeError(f"bench core: {method} N = {rod.mesh.n_elements} failed: {sol.message}")
    return cpu / sol.stats["n_steps"] * 1e6, sol


def clamp(rows: list[list[Any]], sizes: list[int], repeats: int) -> None:
    """Clamped and free runs alternate, ``2 * repeats`` rounds, each the best of its rounds (the machine's drift
    then affects both alike)."""
    for n in sizes:
        for method in ("hedop5", "herk4"):
            rods = {sup: _rod("steel-cantilever-dynamic", [f"model.n_elements={n}", f"supports.start={sup}"])
                    for sup in ("clamped", "free")}
            us = {sup: float("inf") for sup in rods}
            for _ in range(2 * repeats):
                for sup, (rod, y0) in rods.items():
                    us[sup] = min(us[sup], _per_step(rod, y0, method, 1e-5, 100, 1)[0])
            for sup in rods:
                rows.append(["clamp", f"steel-cantilever-dynamic ({sup})", method, n, us[sup], "us/step", "h = 1e-5"])
            rows.append(["clamp", "steel-cantilever-dynamic", method, n, us["clamped"] / us["free"], "ratio",
                         "clamped / free per step (alternating runs)"])


def scaling(rows: list[list[Any]], sizes: list[int], repeats: int) -> None:
    for method, h, steps in (("herk4", 1e-5, 20), ("gen-alpha", 1e-3, 10)):
        us = []
        for n in sizes:
            rod, y0 = _rod("flying-spaghetti", [f"model.n_elements={n}"])
            cost, sol = _per_step(rod, y0, method, h, steps, 2 * repeats if n < 1024 else repeats)
            us.append(cost)
            rows.append(["scaling", "flying-spaghetti", method, n, cost, "us/step",
                         f"h = {h:g}, {steps} steps, {sol.stats['n_iterations']} Newton iterations"])
        big = [i for i, n in enumerate(sizes) if n >= 256]
        if len(big) >= 2:
            x, y = np.log([sizes[i] for i in big]), np.log([us[i] for i in big])
            rows.append(["scaling", "flying-spaghetti", method, 0, float(np.polyfit(x, y, 1)[0]), "exponent",
                         f"least-squares slope of log(us/step) vs log(N) over N = {', '.join(str(sizes[i]) for i in big)}"])


def steel(rows: list[list[Any]], sizes: list[int], t_end: float, repeats: int) -> None:
    from lgbeam.solve import ConstantStep, SaveAt, integrate

    for n in sizes:
        rod, y0 = _rod("steel-cantilever-dynamic", [f"model.n_elements={n}"])

        def run(rod: Any = rod, y0: Any = y0) -> Any:
            return integrate(rod, "gen-alpha", y0, (0.0, t_end), controller=ConstantStep(1e-3),
                             save=SaveAt(times=np.linspace(0.0, t_end, 101)), diagnostics=False)

        run()
        cpu, sol = _cpu(run, repeats)
        if sol.status != "ok":
            raise RuntimeError(f"bench core: steel cantilever N = {n} failed: {sol.message}")
        note = (f"{sol.stats['n_steps']} steps, {sol.stats['n_iterations']} Newton iterations, "
                f"{sol.state.cache.n_factorisations} factorisations")
        rows.append(["steel", "steel-cantilever-dynamic", "gen-alpha", n, cpu, "s", f"t = 0…{t_end:g} s, h = 1 ms; {note}"])


def frames(rows: list[list[Any]], repeats: int) -> None:
    from lgbeam.apps import get_app, load_case
    from lgbeam.solve import ConstantStep, SaveAt, integrate

    steps = 40
    for name in ("tower-gust", "portal-frame"):
        case, _ = load_case(name, [])
        prob = get_app(case["kind"]).problem(case)
        h = float(case["integrator"].get("h") or 1e-3)

        def run(prob: Any = prob, h: float = h) -> Any:
            return integrate(prob.system, "gen-alpha", prob.y0, (0.0, steps * h), controller=ConstantStep(h),
                             save=SaveAt(times=[0.0, steps * h]), diagnostics=False)

        run()
        cpu, sol = _cpu(run, repeats)
        rows.append(["frames", name, "gen-alpha", int(prob.y0.v.size // 6), cpu / sol.stats["n_steps"] * 1e3, "ms/step",
                     f"h = {h:g}, {steps} steps, {sol.stats['n_iterations']} Newton iterations (N: nodes)"])


def run(out_dir: Path, quick: bool) -> None:
    rows: list[list[Any]] = []
    repeats = 1 if quick else REPEATS
    clamp(rows, [16] if quick else [16, 64], repeats)
    scaling(rows, [16, 64, 256] if quick else [16, 64, 256, 1024, 4096], repeats)
    steel(rows, [16] if quick else [16, 64], 0.05 if quick else 1.0, repeats)
    frames(rows, repeats)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "core.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)
    print(f"{'section':9s} {'case':38s} {'method':10s} {'N':>5s} {'value':>12s} unit")
    for r in rows:
        print(f"{r[0]:9s} {r[1]:38s} {r[2]:10s} {r[3]:5d} {r[4]:12.4g} {r[5]}")


__all__ = ["run"]
