"""``lgbeam bench ep``: cost of the integral-preserving and polar methods (issue 16).

1. **Equal accuracy** (seed 002 Fig. 2 data: I = diag(1, 5, 60), m₀ = I(1, 0.5, −1), T = 1): for EP2
   (Gonzalez, AVF), EP4, the symmetric Lie midpoint and explicit Heun, the step h* that gives the global
   error ``target`` (1e-3; quick 1e-2) is fitted from two pilot runs (err ≈ C hᵖ), then one run at
   h = T/⌈T/h*⌉ is timed: steps, fixed-point iterations per step, wall time per step and in total, the
   error reached and the energy error.
2. **Polar method on SO(n)**, n = 3, 5, 10, 20, 30, 50 (quick: 3, 5, 8): a generalised free rigid body with
   random d ∈ [0.5, 1.5]ⁿ and μ₀ (|Ω| ≈ 1, h = 0.1), GL2, Lie–Poisson form: wall time per step and iterations
   of the fixed point (the thesis's solver) against a chord Newton solve (forward-difference Jacobian of the
   fixed-point map in the (s + 1)·n(n − 1)/2 skew coordinates, once per step) — the comparison proposed in
   the thesis (ch. 6) and not made there.

Both tables are printed and written as ``ep-accuracy.csv`` and ``ep-polar.csv`` into a fresh folder
``<out>/ep-<timestamp>/``. Timings are CPU time of this process (``time.process_time``: robust on a shared,
loaded machine where wall time is not; single run each); set ``OPENBLAS_NUM_THREADS=1`` for small matrices.
"""

from __future__ import annotations

import csv
import logging
import math
import time
from pathlib import Path

import numpy as np

from lgbeam.integrators.registry import make_method
from lgbeam.models.attitude import RigidBodyQuaternion
from lgbeam.models.son_bodies import FreeRigidBodySOn
from lgbeam.solve import ConstantStep, SaveAt, Solution, integrate

logger = logging.getLogger(__name__)

LAST = SaveAt(steps=10**9)


def _error(body: RigidBodyQuaternion, method: object, h: float,
           ref: np.ndarray) -> tuple[float, Solution, float]:
    t0 = time.process_time()
    sol = integrate(body, method, body.initial_state(), (0.0, 1.0), controller=ConstantStep(h), save=LAST,
                    diagnostics=False)
    wall = time.process_time() - t0
    err = float(np.linalg.norm(sol.y[-1] - ref)) if sol.status == "ok" else math.inf
    return err, sol, wall


def equal_accuracy(quick: bool) -> list[dict[str, object]]:
    body = RigidBodyQuaternion()
    ref = body.reference([1.0])[-1]
    H0 = float(body.first_integral(body.initial_state()))
    target = 1e-2 if quick else 1e-3
    methods = {"ep2-gonzalez": make_method("ep2-gonzalez"), "ep2-avf": make_method("ep2-avf"),
               "ep4": make_method("ep4", quadrature=12), "lie-midpoint": make_method("lie-midpoint"),
               "lie-heun": make_method("lie-heun")}
    rows = []
    for name, m in methods.items():
        p = m.order
        h1, h2 = 2.0**-6, 2.0**-7
        e1, e2 = _error(body, m, h1, ref)[0], _error(body, m, h2, ref)[0]
        C = math.sqrt(e1 / h1**p * e2 / h2**p)
        h = 1.0 / math.ceil(1.0 / (target / C) ** (1.0 / p))
        err, sol, wall = _error(body, m, h, ref)
        n = sol.stats["n_steps"]
        rows.append({"method": name, "order": p, "h": h, "steps": n, "error": err,
                     "energy_error": float(abs(body.first_integral(sol.y[-1]) - H0)),
                     "iterations_per_step": round(sol.stats["n_iterations"] / n, 1),
                     "cpu_ms_per_step": round(1e3 * wall / n, 3), "cpu_total_s": round(wall, 3)})
    return rows


def _son_body(n: int, rng: np.random.Generator) -> tuple[FreeRigidBodySOn, np.ndarray]:
    body = FreeRigidBodySOn(tuple(rng.uniform(0.5, 1.5, n)))
    M = rng.normal(size=(n, n))
    mu = M - M.T
    Om = body.dh_dmu(mu)
    mu = mu / np.abs(Om).max()  # |Ω| ≈ 1
    return body, body.initial_state(mu)


def polar_scaling(quick: bool) -> list[dict[str, object]]:
    rng = np.random.default_rng(16)
    ns = (3, 5, 8) if quick else (3, 5, 10, 20, 30, 50)
    rows = []
    for n in ns:
        body, y0 = _son_body(n, rng)
        for solver in ("fixed-point", "newton"):
            m = make_method("polar-lp-gl2", solver=solver)
            steps = 1 if (solver == "newton" and n >= 20) else 3
            t0 = time.process_time()
            sol = integrate(body, m, y0, (0.0, 0.1 * steps), controller=ConstantStep(0.1), save=LAST, diagnostics=False)
            wall = time.process_time() - t0
            rows.append({"n": n, "solver": solver, "unknowns": 3 * n * (n - 1) // 2, "steps": sol.stats["n_steps"],
                         "status": str(sol.status),
                         "iterations_per_step": round(sol.stats["n_iterations"] / max(1, sol.stats["n_steps"]), 1),
                         "cpu_ms_per_step": round(1e3 * wall / max(1, sol.stats["n_steps"]), 2)})
        fp, nt = rows[-2], rows[-1]
        nt["newton_over_fixed_point"] = round(float(nt["cpu_ms_per_step"]) / float(fp["cpu_ms_per_step"]), 1)
    return rows


def _table(title: str, rows: list[dict[str, object]]) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    print(title)
    print("  ".join(f"{k:>14s}" for k in keys))
    for r in rows:
        print("  ".join(f"{_fmt(r.get(k, '')):>14s}" for k in keys))


def _fmt(v: object) -> str:
    return f"{v:.3e}" if isinstance(v, float) and (abs(v) < 1e-2 or abs(v) >= 1e5) and v != 0 else str(v)


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def run(out_dir: Path, quick: bool = False) -> dict[str, list[dict[str, object]]]:
    """Run both benchmarks, print the tables, write the CSVs into a fresh folder under ``out_dir``."""
    folder = Path(out_dir) / f"ep-{time.strftime('%Y%m%d-%H%M%S')}"
    folder.mkdir(parents=True, exist_ok=False)
    acc = equal_accuracy(quick)
    _table(f"lgbeam bench ep: equal accuracy (seed 002 Fig. 2 data, T = 1, target error {1e-2 if quick else 1e-3:g})", acc)
    pol = polar_scaling(quick)
    _table("lgbeam bench ep: polar GL2 (Lie–Poisson) on SO(n), h = 0.1: fixed point against chord Newton", pol)
    _write(folder / "ep-accuracy.csv", acc)
    _write(folder / "ep-polar.csv", pol)
    print(f"CSV written to {folder}")
    return {"accuracy": acc, "polar": pol}


__all__ = ["equal_accuracy", "polar_scaling", "run"]
