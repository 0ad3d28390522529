"""``lgbeam bench frames``: what a frame of several rods costs (issue 13).

1. One evaluation of the forces g, the constraints Φ, their Jacobian B, the tangent stiffness K, the constraint
   stiffness Z and the damping matrix D of a chain of M rods (4 elements each, rigid joints, the first rod
   clamped) for M = 1 … 64: the cost per rod shows what the rod-by-rod parts of a ``Structure`` add (K, Z, D are
   evaluated over all edges at once; B and Φ still call each rod).
2. The shipped ``tower-gust`` case (9 rods, 9 joints, 5 supports) for 0.25 s with generalized-α at h = 5 ms (its
   own setting) and with HEDOP5 at rtol 1e-5: steps, Newton iterations or stages, and wall time per step.

3. ``opensees`` (not run by default; ``--sections opensees``): lgbeam's two frame elements against OpenSeesPy
   at equal accuracy, on the gust of steel-frame-2storey and a snap-through frame (``lgbeam.bench.frames_opensees``,
   which writes ``frames_opensees.csv``; the optional peer ``pip install lgbeam[bench]``).

Writes ``frames.csv`` (columns: part, case, M, value, unit) for the sections ``evaluation`` (1) and ``tower`` (2).
"""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.bench import best_of

SECTIONS = ("evaluation", "tower", "opensees")
DEFAULT_SECTIONS = ("evaluation", "tower")  # the OpenSees comparison takes minutes: asked for by name


def chain(m: int, n_elements: int = 4) -> Any:
    """M straight rods end to end along e_x, rigidly joined, the first one clamped at its start."""
    from lgbeam.discretisations.frames import Joint, Structure
    from lgbeam.discretisations.rods import CosseratRod, Material, RodMesh, Support, straight
    from lgbeam.groups import S3R3

    G = S3R3()
    mat = Material.from_sectional(EA=1e4, GA=1e4, EI=1.0, GJ=1.0, rhoA=1.0, rhoJ=0.01)
    rods, joints = {}, []
    for k in range(m):
        mesh = RodMesh.uniform(1.0, n_elements)
        rods[f"r{k}"] = CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh, start=(k, 0, 0), direction=(1, 0, 0)),
                                    supports=(Support("start", "clamped"),) if k == 0 else ())
        if k:
            joints.append(Joint((f"r{k - 1}", "end"), (f"r{k}", "start"), "rigid"))
    return Structure(rods=rods, joints=tuple(joints))


def evaluation_costs(m: int, repeats: int) -> dict[str, float]:
    """Seconds of one g, Φ, B and K evaluation of a chain of ``m`` rods, at a perturbed configuration."""
    s = chain(m)
    rng = np.random.default_rng(0)
    q = s.G.retract(s.q_ref, 1e-3 * rng.standard_normal((s.n_nodes, 6)))
    v = 1e-3 * rng.standard_normal(s.n_dofs)
    lam = rng.standard_normal(s.n_constraints)
    out = {}
    for name, fun in (("forces", lambda: s.forces(0.0, q, v)), ("constraints", lambda: s.constraints(q + 0.0)),
                      ("jacobian", lambda: s.constraint_jacobian(q + 0.0)), ("stiffness", lambda: s.stiffness(0.0, q, v)),
                      ("constraint_stiffness", lambda: s.constraint_stiffness(0.0, q + 0.0, lam)),
                      ("damping", lambda: s.damping(0.0, q, v))):
        fun()
        out[name] = best_of(fun, repeats)  # q + 0.0: a fresh array, so no memo hit between repeats
    return out


def tower(method: str, t_end: float) -> dict[str, float]:
    """Steps, evaluations and wall time of the tower-gust case to ``t_end`` with ``method``."""
    from lgbeam.apps import load_case
    from lgbeam.apps.frame import problem
    from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
    from lgbeam.integrators.registry import make_method
    from lgbeam.solve import integrate

    case, _ = load_case("tower-gust", [f"time.t_end={t_end}"])  # its own gen-alpha at h = 5 ms
    p = problem(case)
    ctrl: ConstantStep | AdaptiveStep
    if method == "gen-alpha":
        m, ctrl = make_method(method), ConstantStep(float(case["integrator"]["h"]))
    else:
        m, ctrl = make_method(method), AdaptiveStep(rtol=1e-5, atol=1e-7)
    integrate(p.system, m, p.y0, (0.0, min(0.02, t_end)), controller=ctrl)  # warm-up (compilation, memos)
    t0 = time.perf_counter()
    sol = integrate(p.system, m, p.y0, (0.0, t_end), controller=ctrl)
    wall = time.perf_counter() - t0
    n = int(sol.stats["n_steps"])
    return {"steps": float(n), "rejected": float(sol.stats["n_rejected"]),
            "evaluations": float(sol.stats.get("n_evaluations", 0)), "wall_s": wall, "ms_per_step": 1e3 * wall / n}


def run(out_dir: Path, quick: bool, sections: list[str] | None = None) -> None:
    """Print the tables of ``sections`` (default ``DEFAULT_SECTIONS``); ``out_dir/frames.csv`` gets the rows of
    evaluation and tower, ``out_dir/frames_opensees.csv`` those of opensees."""
    chosen = list(DEFAULT_SECTIONS) if not sections else list(sections)
    rows: list[tuple[str, str, int, float, str]] = []
    if "evaluation" in chosen:
        _evaluation(rows, quick)
    if "tower" in chosen:
        _tower(rows, quick)
    if rows:
        with open(out_dir / "frames.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["part", "case", "M", "value", "unit"])
            w.writerows(rows)
        print(f"\nwrote {out_dir / 'frames.csv'}")
    if "opensees" in chosen:
        from lgbeam.bench import frames_opensees

        frames_opensees.run(out_dir, quick)


def _evaluation(rows: list[tuple[str, str, int, float, str]], quick: bool) -> None:
    sizes = [1, 4] if quick else [1, 4, 16, 64]
    repeats = 3 if quick else 10
    print(f"{'rods':>5}{'nodes':>7}{'g ms':>9}{'Φ ms':>9}{'B ms':>9}{'K ms':>9}{'Z ms':>9}{'D ms':>9}{'K+Z ms/rod':>12}")
    for m in sizes:
        c = evaluation_costs(m, repeats)
        print(f"{m:>5}{5 * m:>7}{1e3 * c['forces']:>9.3f}{1e3 * c['constraints']:>9.3f}{1e3 * c['jacobian']:>9.3f}"
              f"{1e3 * c['stiffness']:>9.3f}{1e3 * c['constraint_stiffness']:>9.3f}{1e3 * c['damping']:>9.3f}"
              f"{1e3 * (c['stiffness'] + c['constraint_stiffness']) / m:>12.3f}")
        rows += [(part, "chain", m, v, "s") for part, v in c.items()]


def _tower(rows: list[tuple[str, str, int, float, str]], quick: bool) -> None:
    t_end = 0.05 if quick else 0.25
    print(f"\ntower-gust to t = {t_end}:")
    print(f"{'method':>10}{'steps':>7}{'rejected':>10}{'evaluations':>13}{'wall s':>9}{'ms/step':>9}")
    for method in ("gen-alpha", "hedop5"):
        r = tower(method, t_end)
        print(f"{method:>10}{r['steps']:>7.0f}{r['rejected']:>10.0f}{r['evaluations']:>13.0f}{r['wall_s']:>9.2f}"
              f"{r['ms_per_step']:>9.2f}")
        rows += [(f"tower-{method}-{k}", "tower-gust", 9, v, "s" if k == "wall_s" else ("ms" if k == "ms_per_step" else "count"))
                 for k, v in r.items()]
