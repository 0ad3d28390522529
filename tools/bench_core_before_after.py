"""Per-step cost of this tree against an older one, interleaved (docs/benchmarks.md, "Step core").

Usage (from the repository root; OLD is a checkout of an older commit, e.g. ``git worktree add ../old e99601a``):

    python tools/bench_core_before_after.py OLD --what top,rod,tower-gust,portal-frame --rounds 3

Each round runs every case once in OLD (``PYTHONPATH=OLD``) and once in this tree, each in a fresh process, and
prints the µs (or ms) per step of both; the summary is the smallest value of each side over the rounds (the least
disturbed run on a shared machine). Cases:

- ``top``: the heavy top (S³⋉R³), HEDOP5 at h = 1 ms, 500 steps, diagnostics on (the old drivers' setting);
- ``rod``: the flying spaghetti (N = 16), HERK4 at h = 1 ms, 300 steps, diagnostics on;
- a frame case name: gen-alpha at the case's h, 40 steps, diagnostics off.

The old tree is driven through the API it has: ``lgbeam.solve.integrate(system, q0, v0, span, method, h=...)``
before the one driver (e99601a), the one driver's ``integrate(system, method, MechanicalState, span,
controller=...)`` after it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

CHILD = r'''
import sys, time
import numpy as np
what, root = sys.argv[1], sys.argv[2]
import lgbeam.solve as solve
one_driver = hasattr(solve, "ConstantStep")
def best(run, n, reps=3):
    run(2)
    b = 1e9
    for _ in range(reps):
        c = time.process_time(); run(n); b = min(b, time.process_time() - c)
    return b / n
if what in ("top", "rod"):
    if what == "top":
        from lgbeam.models.heavy_top import HeavyTop
        system = HeavyTop("S3R3"); q0, v0 = system.initial_state(); method, h, n = "hedop5", 1e-3, 500
    else:
        from lgbeam.apps.rod import build
        try:
            from lgbeam.apps import load_case
        except ImportError:
            from lgbeam.io.cases import load_case
        case, _ = load_case(root + "/cases/flying-spaghetti.toml", [])
        system, q0, v0 = build(case); method, h, n = "herk4", 1e-3, 300
    if one_driver:
        run = lambda k: solve.integrate(system, method, solve.MechanicalState(q0, v0), (0, k * h),
                                        controller=solve.ConstantStep(h))
    else:
        run = lambda k: solve.integrate(system, q0, v0, (0, k * h), method, h=h)
    print(f"{best(run, n) * 1e6:.0f} us/step")
else:
    from lgbeam.apps import get_app, load_case
    case, _ = load_case(what, [])
    prob = get_app(case["kind"]).problem(case)
    h = float(case["integrator"].get("h") or 1e-3)
    run = lambda k: solve.integrate(prob.system, "gen-alpha", prob.y0, (0, k * h), controller=solve.ConstantStep(h),
                                    diagnostics=False)
    print(f"{best(run, 40) * 1e3:.2f} ms/step")
'''


def _run(tree: Path, what: str, root: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, what, str(root)], cwd=tree, env=env, capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    value, unit = out.split()
    return float(value), unit


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old", type=Path, help="checkout of the older commit")
    p.add_argument("--what", default="top,rod,tower-gust,portal-frame")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    new = Path(__file__).resolve().parents[1]
    best: dict[tuple[str, str], float] = {}
    for r in range(args.rounds):
        for what in args.what.split(","):
            for side, tree in (("before", args.old.resolve()), ("after", new)):
                value, unit = _run(tree, what, new)
                best[what, side] = min(best.get((what, side), float("inf")), value)
                print(f"round {r + 1} {what:14s} {side:6s} {value:10.2f} {unit}", flush=True)
    print("\ncase           before    after   after/before (best of the rounds)")
    for what in args.what.split(","):
        b, a = best[what, "before"], best[what, "after"]
        print(f"{what:14s} {b:8.2f} {a:8.2f}   {a / b:.2f}")


if __name__ == "__main__":
    main()
