"""Step CPU time and peak memory of an explicit run (HEDOP5, constant step) of corotational consistent-mass
frames: a long cantilever (6(N+1) unknowns) and steel-frame-2storey with ``model.n_elements`` scaled up.

    PYTHONPATH=. python tools/bench_consistent_mass.py [--sizes 50 200 800] [--frame 8 32] [--steps 5]

Prints one row per model: unknowns n, constraints m, setup (stage solver) seconds, ms per step, and the peak
traced memory of solver set-up + steps (tracemalloc, numpy buffers included) against n²·8 bytes.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np

from lgbeam.apps import frame as frame_app
from lgbeam.apps import load_case
from lgbeam.integrators import make_method
from lgbeam.io.schema import validate
from lgbeam.solve import ConstantStep, MechanicalState, integrate


def cantilever(n: int):  # type: ignore[no-untyped-def]
    """A clamped 10 m steel-like cantilever of n corotational elements, consistent mass, no load."""
    model = {"element": "corotational", "n_elements": n, "mass": "consistent",
             "material": {"EA": 1e5, "GA": 1e5, "EI": 3.0, "GJ": 2.1, "rhoA": 1.0, "rhoJ": 1e-2},
             "rods": [{"name": "r", "start": [0.0, 0.0, 0.0], "end": [0.0, 0.0, 10.0]}]}
    raw = {"kind": "frame", "name": "bench", "model": model,
           "supports": [{"rod": "r", "node": "start", "kind": "clamped"}], "loads": {},
           "analysis": {"kind": "static"}, "time": {"t_end": 1.0}}
    return frame_app.build(validate(raw, frame_app.SCHEMA))


def frame(n: int):  # type: ignore[no-untyped-def]
    case = load_case("steel-frame-2storey", ['model.element="corotational"', f"model.n_elements={n}"])[0]
    return frame_app.build(case)


def run(st, steps: int) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """(set-up s, s per step, peak MB) of HEDOP5 from rest with a small random velocity, constant h."""
    v0 = 1e-6 * np.random.default_rng(0).standard_normal(st.n_dofs)
    v0[np.unique(st.constraint_jacobian(st.q_ref).indices)] = 0.0  # B v0 = 0: the constrained nodes at rest
    h = 1e-7
    y0 = MechanicalState(st.q_ref, v0)
    method = make_method("hedop5")
    integrate(st, method, y0, (0.0, h), controller=ConstantStep(h), diagnostics=False)  # warm (JIT, caches)
    tracemalloc.start()
    t0 = time.process_time()
    integrate(st, method, y0, (0.0, h), controller=ConstantStep(h), diagnostics=False)
    t1 = time.process_time()
    integrate(st, method, y0, (0.0, (steps + 1) * h), controller=ConstantStep(h), diagnostics=False)
    t2 = time.process_time()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    per_step = ((t2 - t1) - (t1 - t0)) / steps
    return t1 - t0, per_step, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[50, 200, 800])
    ap.add_argument("--frame", type=int, nargs="*", default=[8, 32])
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    print(f"{'model':<22}{'n':>7}{'m':>6}{'1-step run s':>14}{'ms/step':>10}{'peak MB':>10}{'n^2*8 MB':>10}")
    models = [(f"cantilever N={n}", cantilever, n) for n in a.sizes]
    models += [(f"steel-frame N={n}", frame, n) for n in a.frame]
    for name, build, n in models:
        st = build(n)
        setup, per, peak = run(st, a.steps)
        nn = st.n_dofs
        print(f"{name:<22}{nn:>7}{st.n_constraints:>6}{setup:>14.3f}{1e3 * per:>10.2f}{peak:>10.1f}"
              f"{nn * nn * 8 / 2**20:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
