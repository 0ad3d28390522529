"""``lgbeam bench lie``: seed 000's Lie group methods on the N-fold spherical pendulum (issue 14).

Three tables, each written as CSV into the output folder:

- ``lie.csv``: wall time of one step of RKMK4 and CF4 (and one evaluation of f) for N = 2 … 1024 links
  (target: linear in N; the fitted exponent of time against N over N ≥ 64 is printed);
- ``lie-work-precision.csv``: error at T = 1 against wall time for the double pendulum (paper IC) with
  constant-step RKMK4 / CF4 / ambient RK4 and adaptive RKMK(5,4) / ambient DOPRI5 under the controller (33)
  at several tolerances, with the largest drift | |q_i| − 1 | of each run (the ambient methods leave TS²);
- ``lie-kernels.csv``: exp-action and dexp⁻¹ on 10⁵ links against ``lgbeam bench groups``' yardsticks
  (``SO3.exp`` and ``SE3.tangent_inv_apply`` on the same number of elements).

Best of ``repeats`` wall-clock runs; the machine and its load are printed with the table by the caller.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam.bench import best_of
from lgbeam.groups import SE3, SO3
from lgbeam.groups.homogeneous import TangentSpheres
from lgbeam.integrators.lie import seed_controller
from lgbeam.integrators.registry import make_method
from lgbeam.models.pendulum_chain import SphericalPendulumChain
from lgbeam.solve import ConstantStep, SaveAt, integrate

logger = logging.getLogger(__name__)


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def cost(quick: bool) -> list[dict[str, object]]:
    Ns = [2, 8, 32, 128] if quick else [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    rng = np.random.default_rng(0)
    rows: list[dict[str, Any]] = []
    for n in Ns:
        chain = SphericalPendulumChain.uniform(n, length=5.0 / n)
        y = chain.random_state(rng)
        k = max(2, 200 // n) if quick else max(5, 2000 // n)
        row: dict[str, object] = {"N": n}
        def field(c: SphericalPendulumChain = chain, y: np.ndarray = y, k: int = k) -> None:
            for _ in range(k):
                c.algebra_field(0.0, y)

        row["f_us"] = 1e6 * best_of(field, 3, warm_up=True) / k
        for name in ("hs-rkmk4", "cf4"):
            method = make_method(name)

            def steps(m: Any = method, c: SphericalPendulumChain = chain, y: np.ndarray = y,
                      k: int = k) -> None:
                for _ in range(k):
                    m.step(c, 0.0, 1e-3, y, None)

            row[f"{name}_us"] = 1e6 * best_of(steps, 3, warm_up=True) / k
        rows.append(row)
    big = [r for r in rows if float(r["N"]) >= (32 if quick else 64)]
    for name in ("hs-rkmk4", "cf4"):
        xs = np.log([float(r["N"]) for r in big])
        slope = np.polyfit(xs, np.log([float(r[f"{name}_us"]) for r in big]), 1)[0]
        for r in rows:
            r[f"{name}_exponent"] = round(float(slope), 3)
    return rows


def work_precision(quick: bool) -> list[dict[str, object]]:
    chain = SphericalPendulumChain.uniform(2)
    y0, T = chain.paper_state(), 1.0
    ref = solve_ivp(chain.vector_field, (0, T), y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    rows = []
    runs: list[tuple[str, Any, str]] = []
    for h in ([1 / 50, 1 / 200] if quick else [1 / 50, 1 / 100, 1 / 200, 1 / 400, 1 / 800]):
        runs += [(m, ConstantStep(h), f"h={h:.4g}") for m in ("hs-rkmk4", "cf4", "ambient-rk4")]
    for tol in ([1e-6] if quick else [1e-4, 1e-6, 1e-8, 1e-10]):
        runs += [(m, seed_controller(tol, h0=T / 100), f"tol={tol:g}") for m in ("hs-rkmk5", "ambient-dopri5")]
    for name, ctl, setting in runs:
        holder: dict[str, Any] = {}

        def go(name: str = name, ctl: Any = ctl, holder: dict[str, Any] = holder) -> None:
            holder["sol"] = integrate(chain, name, y0, (0.0, T), controller=ctl, save=SaveAt(steps=10**7))

        wall = best_of(go, 1 if quick else 3, warm_up=True)
        sol = holder["sol"]
        rows.append({"method": name, "setting": setting, "steps": sol.stats["n_steps"],
                     "error": float(np.linalg.norm(sol.y[-1] - ref)), "wall_ms": round(1e3 * wall, 3),
                     "max_unit_q": float(np.nanmax(sol.steps["unit_q"]))})
    return rows


def kernels(quick: bool) -> list[dict[str, object]]:
    n = 10_000 if quick else 100_000
    rng = np.random.default_rng(1)
    space = TangentSpheres(n)
    q = rng.standard_normal((n, 3))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    m = np.stack([q, np.cross(q, rng.standard_normal((n, 3)))], axis=1).ravel()
    xi, v = 0.1 * rng.standard_normal(6 * n), rng.standard_normal(6 * n)
    X, V = xi.reshape(n, 6), v.reshape(n, 6)
    reps = 3 if quick else 7
    so3, se3 = SO3(), SE3()
    cases = [("exp-action (TS2)^n", lambda: space.exp_act(xi, m), "SO3.exp", lambda: so3.exp(X[:, :3])),
             ("dexp_inv se(3)^n (template)", lambda: space.dexp_inv(xi, v), "SE3.tangent_inv_apply",
              lambda: se3.tangent_inv_apply(-X, V)),
             ("generator (TS2)^n", lambda: space.generator(xi, m), "SO3.exp", lambda: so3.exp(X[:, :3]))]
    rows = []
    for op, fn, yard, yfn in cases:
        ours, ref = best_of(fn, reps, warm_up=True), best_of(yfn, reps, warm_up=True)
        rows.append({"op": op, "n": n, "ours_ms": round(1e3 * ours, 3), "yardstick": yard,
                     "yardstick_ms": round(1e3 * ref, 3), "ratio": round(ours / ref, 2)})
    return rows


def run(out_dir: Path, quick: bool = False) -> dict[str, list[dict[str, object]]]:
    """Run the three tables, print them, write ``lie.csv`` (cost) and ``lie-*.csv`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = {"cost": cost(quick), "work-precision": work_precision(quick), "kernels": kernels(quick)}
    for name, rows in tables.items():
        _write(out_dir / ("lie.csv" if name == "cost" else f"lie-{name}.csv"), rows)
        print(f"\nlgbeam bench lie: {name}")
        print("  ".join(f"{k:>14s}" for k in rows[0]))
        for r in rows:
            print("  ".join(f"{(f'{v:.4g}' if isinstance(v, float) else str(v)):>14s}" for v in r.values()))
    return tables


__all__ = ["run"]
