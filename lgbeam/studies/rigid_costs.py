"""Cost per step of the rigid-body, (S²)ⁿ and LGVI methods beside the theses' ratios (seed 001 Fig. 4.3,
Tables 7.1–7.3; seed 003 Table 3.1); used by ``lgbeam bench rigid`` and ``studies.rigid_figures``.

Ratios are to ELN (the seven SO(3) methods; seed 001: ELN fastest, TLN "up to ~12×"), to spheres-ELN per
problem (Tables 7.1–7.3, h = 0.01, T = 200 there: ratios of run times), and to the LGVI (Table 3.1: LG
Störmer–Verlet 7.20/7.46 = 0.97, SHAKE 11.00/7.46 = 1.47). Each time is the best of ``repeats`` runs of
``n`` steps through the one driver (``integrate``, no diagnostics), in CPU time.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from lgbeam.integrators.registry import methods_for
from lgbeam.models.orbit_attitude import BallsInCentralField
from lgbeam.models.rigid_body import ortolan_problem
from lgbeam.models.spheres import dipole_array, double_spherical_pendulum, spherical_pendulum
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.systems import ProductOfSpheres, RigidBodyInField, RigidBodySO3

logger = logging.getLogger(__name__)

THESIS_RIGID = {"tln": "up to ~12 (Fig. 4.3, not legible)"}
THESIS_SPHERES = {  # run times [s] of Tables 7.1–7.3 (MATLAB, P8600); ratios to ELN are what we compare
    "spherical-pendulum": {"spheres-eln": 0.34, "spheres-rkmk4": 17.41, "spheres-rkmkgl4": 83.17, "spheres-rattle": 2.72},
    "double-spherical-pendulum": {"spheres-eln": 19.71, "spheres-rkmk4": 44.67, "spheres-rkmkgl4": 166.57,
                                  "spheres-rattle": 12.64},
    "dipoles-4x4": {"spheres-eln": 118.74, "spheres-rkmk4": 289.28, "spheres-rkmkgl4": 1785.53, "spheres-rattle": 125.22},
}
THESIS_TABLE_3_1 = {"lgvi": 7.46, "lg-stormer-verlet": 7.20, "shake-quat": 11.00}  # s per 1000 steps
SPHERE_METHODS = ("spheres-eln", "spheres-rkmk4", "spheres-rkmkgl4", "spheres-rattle")


def time_per_step(system: RigidBodySO3 | ProductOfSpheres | RigidBodyInField, method: str, y0: Any, h: float,
                  n: int, repeats: int) -> float:
    """Best-of-``repeats`` CPU time (``time.process_time``) per step [s] of ``n`` constant steps through ``integrate``;
    CPU rather than wall time, so that other jobs on a shared machine disturb the ratios less."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        sol = integrate(system, method, y0, (0.0, n * h), controller=ConstantStep(h), save=SaveAt(steps=10**9),
                        diagnostics=False)
        best = min(best, time.process_time() - t0)
        if sol.status != "ok":
            raise RuntimeError(f"{method}: {sol.message}")
    return best / n


def measure(quick: bool = False) -> list[dict[str, object]]:
    """Rows (group, problem, method, µs per step, ratio, thesis ratio)."""
    n, repeats = (100, 1) if quick else (1000, 3)
    rows: list[dict[str, object]] = []

    def add(group: str, problem: str, times: dict[str, float], base: str, thesis: dict[str, object]) -> None:
        for m, t in times.items():
            rows.append({"group": group, "problem": problem, "method": m, "us_per_step": round(t * 1e6, 1),
                         "ratio": round(t / times[base], 2), "thesis_ratio": thesis.get(m, "")})

    body, y0 = ortolan_problem()
    add("seed001-ch4", "ortolan", {m: time_per_step(body, m, y0, 0.125, n, repeats) for m in methods_for(RigidBodySO3)},
        "eln", {"eln": 1.0, **THESIS_RIGID})
    for make in (spherical_pendulum, double_spherical_pendulum, dipole_array):
        model, s0 = make()
        ref = THESIS_SPHERES[model.name]
        add("seed001-ch7", model.name, {m: time_per_step(model, m, s0, 0.01, n, repeats) for m in SPHERE_METHODS},
            "spheres-eln", {m: round(v / ref["spheres-eln"], 2) for m, v in ref.items()})
    balls = BallsInCentralField()
    add("seed003-ch3", "three-balls",
        {m: time_per_step(balls, m, balls.initial_state(), 0.01, n, repeats) for m in methods_for(RigidBodyInField)},
        "lgvi", {m: round(v / THESIS_TABLE_3_1["lgvi"], 2) for m, v in THESIS_TABLE_3_1.items()})
    return rows


