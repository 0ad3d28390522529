"""Seed 001 Tables 7.1–7.3 as cost ratios, this tree against an older one, interleaved (docs/benchmarks.md,
"Products of spheres"; issue 25 item 6).

Usage (from the repository root; OLD is a checkout of an older commit, e.g. ``git worktree add ../old 4df7c65``):

    python tools/bench_spheres_before_after.py OLD --rounds 3 [--steps 500] [--out outputs/bench-local]

Each round runs the three problems (spherical pendulum, double spherical pendulum, 4 × 4 dipoles) with the four
methods (spheres-eln, -rkmk4, -rkmkgl4, -rattle) at h = 0.01 once in OLD and once in this tree, each tree in a fresh
process; a time is the CPU time (``time.process_time``, so other jobs on a shared machine count less than in wall
time) per step, best of 3 repetitions of ``--steps`` steps through ``integrate`` (no diagnostics). The summary is
the smallest value of each side over the rounds, as ratios to spheres-ELN beside the thesis' (Tables 7.1–7.3,
notes/001.md §6); the CSV goes to ``<out>/spheres-costs.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r'''
import sys, time, json
import lgbeam
from lgbeam.models.spheres import dipole_array, double_spherical_pendulum, spherical_pendulum
from lgbeam.solve import ConstantStep, SaveAt, integrate
n = int(sys.argv[1])
out = {}
for make in (spherical_pendulum, double_spherical_pendulum, dipole_array):
    model, y0 = make()
    for m in ("spheres-eln", "spheres-rkmk4", "spheres-rkmkgl4", "spheres-rattle"):
        run = lambda k: integrate(model, m, y0, (0.0, k * 0.01), controller=ConstantStep(0.01),
                                  save=SaveAt(steps=10**9), diagnostics=False)
        run(2)
        best = 1e9
        for _ in range(3):
            c = time.process_time(); run(n); best = min(best, time.process_time() - c)
        out[model.name + "/" + m] = best / n
out['__file__'] = lgbeam.__file__
print(json.dumps(out))
'''

THESIS = {  # run times [s] of Tables 7.1–7.3 (MATLAB R2009b, Intel P8600; h = 0.01, T = 200)
    "spherical-pendulum": (0.34, 17.41, 83.17, 2.72),
    "double-spherical-pendulum": (19.71, 44.67, 166.57, 12.64),
    "dipoles-4x4": (118.74, 289.28, 1785.53, 125.22),
}
METHODS = ("spheres-eln", "spheres-rkmk4", "spheres-rkmkgl4", "spheres-rattle")


def _measure(root: Path, steps: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(root), OMP_NUM_THREADS="1")
    # cwd = root: ``python -c`` puts the working folder first on sys.path, before PYTHONPATH
    res = subprocess.run([sys.executable, "-c", CHILD, str(steps)], env=env, capture_output=True, text=True, check=True,
                         cwd=str(root))
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("old", type=Path, help="root of an older checkout (holds lgbeam/)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--out", type=Path, default=Path("outputs/bench-local"))
    args = ap.parse_args(argv)
    if not (args.old / "lgbeam").is_dir():
        raise SystemExit(f"{args.old} has no lgbeam/ folder: give the root of an older checkout")
    here = Path(__file__).resolve().parents[1]
    best: dict[str, dict[str, float]] = {"old": {}, "new": {}}
    for r in range(args.rounds):
        for side, root in (("old", args.old), ("new", here)):
            got = _measure(root, args.steps)
            if not str(got.pop("__file__")).startswith(str(root.resolve())):
                raise SystemExit(f"the {side} run did not import lgbeam from {root}")
            for k, v in got.items():
                best[side][k] = min(best[side].get(k, v), v)
        print(f"round {r + 1}/{args.rounds} done", flush=True)
    rows = []
    print(f"{'problem':28s} {'method':16s} {'old us':>9s} {'old ratio':>9s} {'new us':>9s} {'new ratio':>9s} "
          f"{'thesis':>7s}")
    for prob, th in THESIS.items():
        for m, t_th in zip(METHODS, th):
            o, n = best["old"][f"{prob}/{m}"], best["new"][f"{prob}/{m}"]
            ro, rn = o / best["old"][f"{prob}/spheres-eln"], n / best["new"][f"{prob}/spheres-eln"]
            rows.append([prob, m, round(o * 1e6, 1), round(ro, 2), round(n * 1e6, 1), round(rn, 2), round(t_th / th[0], 2)])
            print(f"{prob:28s} {m:16s} {o * 1e6:9.1f} {ro:9.2f} {n * 1e6:9.1f} {rn:9.2f} {t_th / th[0]:7.2f}")
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "spheres-costs.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["problem", "method", "old_us_per_step", "old_ratio", "new_us_per_step", "new_ratio", "thesis_ratio"])
        w.writerows(rows)
    print(f"CSV: {args.out / 'spheres-costs.csv'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
