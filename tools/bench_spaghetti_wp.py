"""Work–precision table of the flying spaghetti (cases/flying-spaghetti.toml) at t = 5 for N = 16 and 64.

For each N: a HEDOP5 rtol 1e-10 (atol 1e-12) reference at the same N, then fixed-step HERK4 and HEDOP5
(constant step) at the steps below their stability limits, adaptive HEDOP5 with the plain (I) and the PI
step-size rule, and the case's own default (its [integrator] section). Error = max over both rod ends of
|x − x_ref| at t = 5 (m; rod length 10). CPU = process time, best of ``--reps`` runs, single-threaded (set
OMP/OPENBLAS/NUMBA_NUM_THREADS=1). "vs best" = CPU / the cheapest run of any method whose error is at most
this run's (1.0: nothing cheaper is as accurate).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 \
        PYTHONPATH=. python tools/bench_spaghetti_wp.py [--reps 3] [--sizes 16 64] [--out outputs/bench]

writes ``<out>/spaghetti-work-precision.csv`` (columns: N, method, controller, parameter, steps, rejected,
cpu_s, error_m, vs_best, status). Not a test: timings belong in benchmarks (docs/half-explicit.md cites it).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from lgbeam.apps import load_case
from lgbeam.apps._runner import controller_of
from lgbeam.apps.rod import build
from lgbeam.integrators.controllers import PI_BETA, AdaptiveStep, ConstantStep
from lgbeam.solve import integrate
from lgbeam.systems import MechanicalState

T_END = 5.0
FIXED = {16: {"herk4": (8e-3, 4e-3, 2e-3), "hedop5": (4e-3, 2e-3)},
         64: {"herk4": (2e-3, 1e-3), "hedop5": (1e-3,)}}  # below the measured limits (docs/half-explicit.md)
RTOLS = {"i": (1e-4, 1e-6, 1e-8), "pi": (1e-4, 1e-6)}


def _ends(rod, sol) -> np.ndarray:
    x = np.asarray(rod.G.translation(np.asarray(sol.q)[-1]))
    return np.array([x[0], x[-1]])


def _run(rod, y0, method: str, ctl, reps: int) -> tuple[object, float]:
    best = np.inf
    for _ in range(reps):
        c0 = time.process_time()
        sol = integrate(rod, method, y0, (0.0, T_END), controller=ctl, diagnostics=False)
        best = min(best, time.process_time() - c0)
        if sol.status != "ok":
            break
    return sol, best


def bench(n: int, reps: int) -> list[dict]:
    case, _ = load_case("flying-spaghetti", [f"model.n_elements={n}"])
    rod, q0, v0 = build(case)
    y0 = MechanicalState(q0, v0)
    integrate(rod, "herk4", y0, (0.0, 2e-3), controller=ConstantStep(1e-3), diagnostics=False)  # warm-up
    integrate(rod, "hedop5", y0, (0.0, 2e-3), controller=ConstantStep(1e-3), diagnostics=False)
    ref_sol, _ = _run(rod, y0, "hedop5", AdaptiveStep(rtol=1e-10, atol=1e-12), 1)
    ref = _ends(rod, ref_sol)
    runs: list[tuple[str, str, str, object]] = []
    for method, hs in FIXED[n].items():
        runs += [(method, "constant", f"h {h:g}", ConstantStep(h)) for h in hs]
    for rule, rtols in RTOLS.items():
        beta = PI_BETA if rule == "pi" else 0.0
        runs += [("hedop5", rule, f"rtol {r:g}", AdaptiveStep(rtol=r, atol=r / 100, beta=beta)) for r in rtols]
    integ = case["integrator"]
    ctl = controller_of(integ)
    param = f"h {ctl.h:g}" if isinstance(ctl, ConstantStep) else f"rtol {ctl.rtol:g}"
    runs.append((integ["method"], "case default", param, ctl))
    rows = []
    for method, rule, param, ctl in runs:
        sol, cpu = _run(rod, y0, method, ctl, reps)
        ok = sol.status == "ok"
        err = float(np.linalg.norm(_ends(rod, sol) - ref, axis=1).max()) if ok else np.inf
        rows.append({"N": n, "method": method, "controller": rule, "parameter": param,
                     "steps": int(sol.stats["n_steps"]), "rejected": int(sol.stats["n_rejected"]),
                     "cpu_s": round(cpu, 3), "error_m": err, "status": str(sol.status)})
        print(f"  N={n:<3} {method:<7} {rule:<13} {param:<10} {rows[-1]['steps']:>6} {rows[-1]['rejected']:>5} "
              f"{cpu:8.2f} {err:10.2e}", flush=True)
    for r in rows:
        cheaper = [s["cpu_s"] for s in rows if s["error_m"] <= r["error_m"]]
        r["vs_best"] = round(r["cpu_s"] / min(cheaper), 2) if np.isfinite(r["error_m"]) else np.nan
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--sizes", type=int, nargs="+", default=[16, 64])
    p.add_argument("--out", type=Path, default=Path("outputs") / "bench")
    a = p.parse_args()
    rows = []
    for n in a.sizes:
        rows += bench(n, a.reps)
    print(f"\n{'N':>3} {'method':<7} {'controller':<13} {'parameter':<10} {'steps':>6} {'rej':>5} {'CPU [s]':>8} "
          f"{'error [m]':>10} {'vs best':>7}")
    for r in rows:
        print(f"{r['N']:>3} {r['method']:<7} {r['controller']:<13} {r['parameter']:<10} {r['steps']:>6} "
              f"{r['rejected']:>5} {r['cpu_s']:8.2f} {r['error_m']:10.2e} {r['vs_best']:7.2f}")
    a.out.mkdir(parents=True, exist_ok=True)
    path = a.out / "spaghetti-work-precision.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["N", "method", "controller", "parameter", "steps", "rejected", "cpu_s",
                                           "error_m", "vs_best", "status"])
        w.writeheader()
        w.writerows(rows)
    print(f"written to {path}")


if __name__ == "__main__":
    main()
