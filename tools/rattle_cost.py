"""CPU (process time of the integration, best of 3) and tip error of rattle-lgvi vs gen-alpha on the 1-s steel
cantilever (cases/steel-cantilever-dynamic.toml), docs/implicit.md "rattle-lgvi: large steps and cost".

Error: max_t |x_tip − x_ref| / max_t |x_ref − x_ref(0)| over 101 output times, reference gen-alpha at
h = 1.25e-4 (cached in $RATTLE_COST_DIR, default /tmp). One JSON line per (N, h, method).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python tools/rattle_cost.py [N ...]
"""

import json
import os
import sys
import time

import numpy as np

from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.solve import ConstantStep, MechanicalState, SaveAt, integrate

TIMES = np.linspace(0.0, 1.0, 101)
CACHE = os.environ.get("RATTLE_COST_DIR", "/tmp")


def run(n: int, method: str, h: float):
    case, _ = load_case("cases/steel-cantilever-dynamic.toml", [f"model.n_elements={n}"])
    rod, q0, v0 = build(case)
    c = time.process_time()
    sol = integrate(rod, method, MechanicalState(q0, v0), (0.0, 1.0), controller=ConstantStep(h),
                    save=SaveAt(times=TIMES), diagnostics=False)
    cpu = time.process_time() - c
    return sol, cpu, np.asarray(sol.q).reshape(len(sol.t), -1, 7)[:, -1, 4:]


def main() -> None:
    for n in [int(a) for a in sys.argv[1:]] or [16, 64]:
        path = os.path.join(CACHE, f"steel_ref_gen-alpha_N{n}.npy")
        if not os.path.exists(path):
            np.save(path, run(n, "gen-alpha", 1.25e-4)[2])
        ref = np.load(path)
        scale = np.abs(ref - ref[0]).max()
        for h in (5e-3, 2e-3, 1e-3):
            for method in ("gen-alpha", "rattle-lgvi"):
                cpus = []
                for _ in range(3):
                    sol, cpu, tip = run(n, method, h)
                    cpus.append(cpu)
                    if sol.status != "ok":
                        break
                ok = sol.status == "ok"
                rec = {"N": n, "h": h, "method": method, "status": str(sol.status.value),
                       "t_final": sol.stats["t_final"], "cpu": round(min(cpus), 3),
                       "its_per_step": round(sol.stats["n_iterations"] / max(1, sol.stats["n_steps"]), 2),
                       "err": float(np.abs(tip - ref).max() / scale) if ok else None}
                print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
