"""Space-error study of the flying spaghetti (docs/rod.md "Spatial accuracy").

    python tools/space_error.py VARIANT N [N ...] [--t-end 5] [--rtol 1e-8] [--atol 1e-10]

Prints one line per N: the positions of both ends at t_end (HEDOP5, tight tolerance), and saves them to
outputs/space/VARIANT_N.npy. VARIANT is a value of the rod's ``inertia`` option ("lumped" = today's).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import lgbeam.solve
from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.solve import AdaptiveStep, MechanicalState


def patch(rod, variant: str) -> None:
    """Experimental inertia lumpings, set on the built rod before its mass is first used."""
    if variant == "default":
        return
    h = rod.mesh.ds
    rhoA = rod.material.rhoA
    w = rod.mesh.node_weights.copy()
    J = rod.material.rhoJ[None, :] * w[:, None]
    cube = np.zeros(rod.n_nodes)
    cube[:-1] += h**3
    cube[1:] += h**3
    if variant == "rot+":      # + rhoA l_i^3/12 about the transverse axes
        J[:, :2] += (rhoA * w**3 / 12)[:, None]
    elif variant == "rot-":    # - rhoA (h_l^3 + h_r^3)/12: rigid rotation exact (trapezoid excess h^3/6 per edge)
        J[:, :2] -= (rhoA * cube / 12)[:, None]
    elif variant in ("gregory", "gregoryA"):  # end-corrected trapezoid 5/12, 13/12 (uniform mesh)
        wg = w.copy()
        wg[[0, -1]] -= h[[0, -1]] / 12
        wg[[1, -2]] += h[[0, -1]] / 12
        rod.__dict__["node_mass"] = rhoA * wg
        if variant == "gregory":
            J = rod.material.rhoJ[None, :] * wg[:, None]
    elif variant == "gregory3":  # end-corrected trapezoid 3/8, 7/6, 23/24 (exact for cubics, uniform mesh)
        wg = w.copy()
        h0, h1 = h[0], h[-1]
        wg[[0, 1, 2]] += h0 * np.array([3 / 8 - 1 / 2, 7 / 6 - 1, 23 / 24 - 1])
        wg[[-1, -2, -3]] += h1 * np.array([3 / 8 - 1 / 2, 7 / 6 - 1, 23 / 24 - 1])
        rod.__dict__["node_mass"] = rhoA * wg
        J = rod.material.rhoJ[None, :] * wg[:, None]
    else:
        raise ValueError(variant)
    rod.__dict__["node_inertia"] = J


def ends(case_path: str, n: int, variant: str, t_end: float, rtol: float, atol: float, extra=()) -> np.ndarray:
    sets = [f"model.n_elements={n}", *extra]
    if variant.startswith("opt:"):
        sets.append(f"model.inertia={variant[4:]}")
    case, _ = load_case(case_path, sets)
    rod, q0, v0 = build(case)
    if not variant.startswith("opt:"):
        patch(rod, variant)
    sol = lgbeam.solve.integrate(rod, "hedop5", MechanicalState(q0, v0), (0.0, t_end),
                                 controller=AdaptiveStep(rtol=rtol, atol=atol), diagnostics=False)
    return rod.G.translation(np.asarray(sol.q)[-1])[[0, -1]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variant")
    ap.add_argument("n", type=int, nargs="+")
    ap.add_argument("--case", default="cases/flying-spaghetti.toml")
    ap.add_argument("--t-end", type=float, default=5.0)
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--atol", type=float, default=1e-10)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--tag", default="")
    a = ap.parse_args()
    out = Path("outputs/space")
    out.mkdir(parents=True, exist_ok=True)
    for n in a.n:
        t0 = time.process_time()
        x = ends(a.case, n, a.variant, a.t_end, a.rtol, a.atol, a.set)
        name = f"{Path(a.case).stem}_{a.variant.replace(':', '-')}{a.tag}_T{a.t_end:g}_N{n}.npy"
        np.save(out / name, x)
        print(f"{a.variant} N={n} t={a.t_end:g} cpu={time.process_time() - t0:.1f}s ends={x.ravel().tolist()}", flush=True)


if __name__ == "__main__":
    main()
