"""A nonlinear static frame path, lgbeam against OpenSeesPy at equal accuracy (issue 34 item 3; docs/benchmarks.md
"Statics at OpenSees speed").

The frame: a shallow toggle — two members of span 2 × 2 m, rise 0.2 m, meeting rigidly at the apex, hinged at the
supports (A = 1e-2 m², I = 2e-5 m⁴, E = 2e11 Pa), under a vertical apex load P = 1.14e6 N (1.5 × the pinned truss's
limit load). Its path snaps through: up to a limit load μ₁ P, down an unstable branch to a second limit point, and up
again on the far branch to μ = 1. Each code traces the whole path (to the state at μ = 1 beyond the snap) and
reports μ₁; its error is |μ₁ − μ₁_ref| / μ₁_ref against its OWN fine reference (lgbeam: 64 elements per member,
arc length 0.01; OpenSees: 64 per member, 2000 displacement steps), so each is judged on its own discretisation.

- lgbeam: ``solve_static(method="arc-length")`` on the frame built by ``lgbeam.apps.frame`` (its default element,
  the corotational cubic beam of ``frames.corotational`` — OpenSees' element — joints and supports as multipliers,
  the compiled statics core of ``frames.compiled_statics``, the stability count at every state, limit points
  located by regula falsi on dμ/dθ); μ₁ = the first limit-point event's load factor. (An older tree runs what it
  had: ``--before`` of a commit before the corotational default times its Cosserat rods.)
- OpenSeesPy: 2-D ``elasticBeamColumn`` + ``geomTransf Corotational`` (Euler–Bernoulli, as the rods), the apex a
  shared node, ``DisplacementControl`` on the apex's vertical displacement in equal steps, ``BandGeneral`` + RCM,
  ``NormDispIncr`` 1e-10, Newton; μ₁ = the vertex of the parabola through the highest recorded state and its two
  neighbours (what lgbeam reports too). No stability count (OpenSees has none to give).

CPU: ``time.process_time`` of the path alone (model built before), best of ``--repeats`` in one process (after a
warm-up run), one thread (OMP/OPENBLAS/MKL/NUMBA threads = 1). Per state: CPU / converged states. lgbeam's side
runs in a child process with ``PYTHONPATH`` = ``--tree`` (default this tree) so an older checkout can be timed
side by side (``--before OLD``: e.g. ``git archive 2855bcd | tar -x -C /tmp/old``).

Usage:  python tools/bench_statics.py [--before OLD] [--repeats 3] [--quick]
Writes outputs/bench/statics_vs_opensees.csv (one row per code, tree and configuration) and prints the table with
the cheapest configuration of each side within 1e-3 of its reference.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HALF, RISE, AREA, INERTIA, E, G_MOD, LOAD = 2.0, 0.2, 1e-2, 2e-5, 2e11, 8e10, 1.14e6
TARGET = 1e-3
ROOT = Path(__file__).resolve().parents[1]
ENV1 = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def toggle_case(n: int, arc: float) -> dict:
    """The frame case (the ``frame`` kind's keys) with ``n`` elements per member and arc length ``arc``."""
    sec = {"A": AREA, "Iy": INERTIA, "Iz": 5 * INERTIA, "It": 10 * INERTIA}
    mat = {"E": E, "G": G_MOD, "rho": 7850.0}
    return {"kind": "frame", "name": "toggle", "time": {"t_end": 1.0},
            "analysis": {"kind": "static", "method": "arc-length", "arc_length": arc, "max_steps": 2000,
                         "richardson": False},
            "model": {"n_elements": n, "nodes": [{"name": "A", "at": [-HALF, 0.0, 0.0]},
                                                 {"name": "B", "at": [HALF, 0.0, 0.0]},
                                                 {"name": "C", "at": [0.0, 0.0, RISE]}],
                      "members": [{"name": "L", "nodes": ["A", "C"], "section": sec, "material": mat},
                                  {"name": "R", "nodes": ["B", "C"], "section": sec, "material": mat}]},
            "supports": [{"node": nd, "kind": "hinge", "axis": "y"} for nd in ("A", "B")],
            "loads": {"nodal": [{"node": "C", "force": [0.0, 0.0, -LOAD]}]}, "output": {"vtk": False}}


def lgbeam_child(n: int, arc: float, repeats: int) -> dict:
    """(in the child) CPU of the path, states, Newton iterations and the first limit load factor."""
    from lgbeam.apps import frame as frame_app
    from lgbeam.discretisations.rods.statics import solve_static
    from lgbeam.io.schema import validate

    frame = frame_app.build(validate(toggle_case(n, arc), frame_app.SCHEMA))
    best, path = float("inf"), None
    for _ in range(repeats + 1):  # the first run warms the caches (numba, patterns)
        c = time.process_time()
        path = solve_static(frame, method="arc-length", arc_length=arc, max_steps=2000, load_factor=1.0)
        best = min(best, time.process_time() - c)
    assert path is not None
    lim = [e.load_factor for e in path.events if e.kind == "limit point"]
    return {"cpu": best, "states": path.n_steps, "iterations": int(sum(s.iterations for s in path.states)),
            "limit": lim[0] if lim else float("nan"), "status": path.status, "element": type(frame).__name__}


def run_lgbeam(tree: Path, n: int, arc: float, repeats: int) -> dict:
    env = {**os.environ, **ENV1, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, __file__, "--child", str(n), str(arc), str(repeats)], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def opensees_path(n: int, steps: int) -> tuple[list[float], list[float]]:
    """The displacement-controlled path: apex drops w and load factors λ in equal steps of 2.2 × rise / ``steps``,
    until λ ≥ 1 again beyond the snap (lgbeam's end state)."""
    import openseespy.opensees as ops

    ops.wipe()
    ops.model("basic", "-ndm", 2, "-ndf", 3)
    apex = 2 * n + 1  # the right member's nodes are numbered from apex + 1 (B); the apex itself is node n + 1
    xs = np.linspace(-HALF, 0.0, n + 1)
    for k in range(n + 1):  # left member nodes 1 … n+1 (the apex), right member n+2 … 2n+1 back to B
        ops.node(k + 1, float(xs[k]), float(RISE * (xs[k] + HALF) / HALF))
    for k in range(n):
        ops.node(apex + 1 + k, float(-xs[k]), float(RISE * (xs[k] + HALF) / HALF))
    ops.fix(1, 1, 1, 0)
    ops.fix(apex + 1, 1, 1, 0)
    ops.geomTransf("Corotational", 1)
    for k in range(n):
        ops.element("elasticBeamColumn", k + 1, k + 1, k + 2, AREA, E, INERTIA, 1)
        j = apex + 1 + k
        ops.element("elasticBeamColumn", n + k + 1, j, (j + 1) if k < n - 1 else n + 1, AREA, E, INERTIA, 1)
    ops.timeSeries("Linear", 1)
    ops.pattern("Plain", 1, 1)
    ops.load(n + 1, 0.0, -LOAD, 0.0)
    ops.system("BandGeneral")
    ops.numberer("RCM")
    ops.constraints("Plain")
    ops.test("NormDispIncr", 1e-10, 50)
    ops.algorithm("Newton")
    ops.integrator("DisplacementControl", n + 1, 2, -2.2 * RISE / steps)
    ops.analysis("Static")
    w, lam = [0.0], [0.0]
    for _ in range(steps):
        if ops.analyze(1) != 0:
            break
        w.append(-ops.nodeDisp(n + 1, 2))
        lam.append(ops.getLoadFactor(1))
        if w[-1] > RISE and lam[-1] >= 1.0:  # beyond the snap, back at the full load: where lgbeam's path ends
            break
    return w, lam


def vertex(lam: list[float]) -> float:
    """The first limit load: the parabola's vertex through the first state where λ falls next and its two
    neighbours (equal steps in w)."""
    falls = np.flatnonzero(np.diff(lam) < 0.0)
    k = int(falls[0]) if falls.size else int(np.argmax(lam))
    if 0 < k < len(lam) - 1:
        a, b, c = lam[k - 1], lam[k], lam[k + 1]
        den = a - 2 * b + c
        if den < 0:
            return float(b - (c - a) ** 2 / (8 * den))
    return float(lam[k])


def run_opensees(n: int, steps: int, repeats: int) -> dict:
    opensees_path(n, steps)
    best, lam = float("inf"), []
    for _ in range(repeats):
        c = time.process_time()
        _, lam = opensees_path(n, steps)
        best = min(best, time.process_time() - c)
    return {"cpu": best, "states": len(lam) - 1, "iterations": -1, "limit": vertex(lam),
            "status": "ok" if lam[-1] >= 1.0 else "failed"}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3)
    ap.add_argument("--before", type=Path, default=None, help="an older checkout to time beside this tree")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer configurations (no fine references: printed only)")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(lgbeam_child(int(args.child[0]), float(args.child[1]), int(args.child[2]))))
        return
    lg_grid = [(4, 0.2), (8, 0.2), (8, 0.1), (16, 0.5), (16, 0.3), (16, 0.2), (16, 0.1), (30, 0.05)]
    os_grid = [(4, 50), (8, 50), (16, 25), (16, 50), (16, 100), (30, 50)]
    if args.quick:
        lg_grid, os_grid = lg_grid[:3], os_grid[:3]
    trees = [("this tree", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    rows = []
    ref_lg = run_lgbeam(ROOT, 64, 0.01, 1)["limit"]
    ref_os = run_opensees(64, 2000, 1)["limit"]
    print(f"references: lgbeam μ₁ = {ref_lg:.8f} (64/member, arc 0.01); OpenSees μ₁ = {ref_os:.8f} (64/member, 2000 "
          f"steps); they differ by {abs(ref_lg - ref_os) / ref_os:.2e}")
    for name, tree in trees:
        for n, arc in lg_grid:
            r = run_lgbeam(tree, n, arc, args.repeats)
            rows.append({"code": "lgbeam", "tree": name, "per_member": n, "setting": f"arc {arc}", **r,
                         "error": abs(r["limit"] - ref_lg) / ref_lg})
    for n, steps in os_grid:
        r = run_opensees(n, steps, args.repeats)
        rows.append({"code": "OpenSeesPy", "tree": "-", "per_member": n, "setting": f"{steps} steps", **r,
                     "error": abs(r["limit"] - ref_os) / ref_os})
    print(f"\n{'code':<11}{'tree':<11}{'el/member':>10}{'setting':>12}{'states':>8}{'iters':>7}{'CPU s':>9}"
          f"{'ms/state':>10}{'μ₁ error':>11}{'status':>10}")
    for r in rows:
        r["ms_per_state"] = 1e3 * r["cpu"] / max(r["states"], 1)
        print(f"{r['code']:<11}{r['tree']:<11}{r['per_member']:>10}{r['setting']:>12}{r['states']:>8}"
              f"{r['iterations']:>7}{r['cpu']:>9.3f}{r['ms_per_state']:>10.2f}{r['error']:>11.1e}{r['status']:>10}")
    print(f"\ncheapest within {TARGET:g} of its own reference:")
    best = {}
    for key in {(r["code"], r["tree"]) for r in rows}:
        ok = [r for r in rows if (r["code"], r["tree"]) == key and r["error"] <= TARGET and r["status"] != "failed"]
        if ok:
            best[key] = min(ok, key=lambda r: r["cpu"])
            b = best[key]
            print(f"  {key[0]} ({key[1]}): {b['cpu']:.3f} s CPU ({b['per_member']}/member, {b['setting']}, "
                  f"error {b['error']:.1e}, {b['ms_per_state']:.2f} ms/state)")
    ops_best = best.get(("OpenSeesPy", "-"))
    for key, b in best.items():
        if key[0] == "lgbeam" and ops_best is not None:
            print(f"  lgbeam ({key[1]}) / OpenSeesPy at equal accuracy: {b['cpu'] / ops_best['cpu']:.1f}x")
    out = ROOT / "outputs" / "bench" / "statics_vs_opensees.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    cols = ["code", "tree", "per_member", "setting", "states", "iterations", "cpu", "ms_per_state", "limit", "error",
            "status", "element", "load_average"]
    load = f"{os.getloadavg()[0]:.1f}"
    for r in rows:
        r["load_average"] = load
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
