"""CPU of the integration alone of a case (default ``steel-cantilever-dynamic``): the denominator of #34's
target "``lgbeam run`` total CPU ≤ 3× its integration's".

The case's problem is built as ``lgbeam run`` builds it (``lgbeam.apps.rod.problem``), then integrated with the
case's method, step and per-step diagnostics (what ``diagnostics.csv`` records) into memory: no frames, no files.
Imports and the first (kernel-loading) call are left out; best of N calls, CPU from ``time.process_time``.
Run from the repository root:

    PYTHONPATH=. python tools/rod_integrate_cpu.py [N] [CASE]
"""

from __future__ import annotations

import sys
import time

from lgbeam.apps import load_case
from lgbeam.apps._runner import controller_of
from lgbeam.apps.rod import problem
from lgbeam.integrators.registry import make_method
from lgbeam.solve import SaveAt, integrate


def integrate_once(case: dict) -> float:
    """CPU seconds of one integration of ``case`` (its problem built outside the timing)."""
    prob = problem(case)
    integ, tm = case["integrator"], case["time"]
    method = make_method(integ["method"], **prob.method_options)
    start = time.process_time()
    sol = integrate(prob.system, method, prob.y0, (tm["t0"], tm["t_end"]),
                    controller=controller_of(integ, (tm["t0"], tm["t_end"])), save=SaveAt(store=False),
                    diagnostics=prob.diagnostics, max_steps=int(integ["max_steps"]))
    cpu = time.process_time() - start
    if str(sol.status) != "ok":
        raise SystemExit(f"integration ended {sol.status}: {sol.message}")
    return cpu


def main() -> None:
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), "5"))
    name = next((a for a in sys.argv[1:] if not a.isdigit()), "steel-cantilever-dynamic")
    case, _ = load_case(name)
    integrate_once(case)  # loads the cached kernels
    best = min(integrate_once(case) for _ in range(n))
    print(f"{name}: integration {best:.3f} s CPU (best of {n}; {case['integrator']['method']}, "
          f"h = {case['integrator']['h']}, {case['model']['n_elements']} elements)")


if __name__ == "__main__":
    main()
