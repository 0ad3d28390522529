"""Space error of the steel cantilever (gen-alpha, h = 1e-3): tip position at t_end per N (docs/rod.md).

    python tools/cantilever_space.py VARIANT N [N ...] [--t-end 1.0]

VARIANT: "default" or "opt:<model.inertia value>" (or an experimental patch of tools/space_error.py).
"""
import argparse
import time
from pathlib import Path

import numpy as np
from space_error import patch

import lgbeam.solve
from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.integrators.registry import make_method
from lgbeam.solve import ConstantStep, MechanicalState


def tip(n, variant, t_end, h):
    sets = [f"model.n_elements={n}"]
    if variant.startswith("opt:"):
        sets.append(f"model.inertia={variant[4:]}")
    case, _ = load_case("cases/steel-cantilever-dynamic.toml", sets)
    rod, q0, v0 = build(case)
    if not variant.startswith("opt:"):
        patch(rod, variant)
    sol = lgbeam.solve.integrate(rod, make_method("gen-alpha", rho_inf=0.9), MechanicalState(q0, v0), (0.0, t_end),
                                 controller=ConstantStep(h), diagnostics=False)
    return rod.G.translation(np.asarray(sol.q)[-1])[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("variant")
    ap.add_argument("n", type=int, nargs="+")
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--h", type=float, default=1e-3)
    a = ap.parse_args()
    out = Path("outputs/space")
    out.mkdir(parents=True, exist_ok=True)
    for n in a.n:
        t0 = time.process_time()
        x = tip(n, a.variant, a.t_end, a.h)[None, :]
        np.save(out / f"steel-cantilever-dynamic_{a.variant.replace(':', '-')}_h{a.h:g}_T{a.t_end:g}_N{n}.npy", x)
        print(f"{a.variant} N={n} cpu={time.process_time() - t0:.1f}s tip={x.ravel().tolist()}", flush=True)


if __name__ == "__main__":
    main()
