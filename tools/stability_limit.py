"""Explicit step limit of a rod case per inertia option (docs/rod.md "Spatial accuracy").

    python tools/stability_limit.py CASE N [--herk4 T]

Prints ω_max (largest eigenfrequency of K φ = ω² M φ on ker B at the reference configuration, t = 0) per
option, h_RK4 = 2.785/ω_max, and with --herk4 T the largest stable HERK4 step found by bisection over [0, T].
"""
import argparse

import numpy as np
import scipy.linalg as sla

import lgbeam.solve
from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.solve import ConstantStep, MechanicalState

OPTIONS = ("lumped", "end-corrected", "end-corrected-3")


def omega_max(rod, q0, v0):
    K = rod.stiffness(0.0, q0, v0).toarray()
    M = rod.mass(q0).toarray()
    B = rod.constraint_jacobian(q0).toarray()
    Z = sla.null_space(B) if B.size else np.eye(M.shape[0])
    lam = sla.eigvals(Z.T @ K @ Z, Z.T @ M @ Z)
    return float(np.sqrt(np.max(lam.real)))


def stable(rod, q0, v0, h, T):
    sol = lgbeam.solve.integrate(rod, "herk4", MechanicalState(q0, v0), (0.0, T), controller=ConstantStep(h),
                                 diagnostics=False, max_steps=10**7)
    x = rod.G.translation(np.asarray(sol.q)[-1])
    return sol.status == "ok" and bool(np.all(np.isfinite(x))) and float(np.max(np.abs(x))) < 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("n", type=int)
    ap.add_argument("--herk4", type=float, default=None)
    a = ap.parse_args()
    for opt in OPTIONS:
        case, _ = load_case(a.case, [f"model.n_elements={a.n}", f"model.inertia={opt}"])
        rod, q0, v0 = build(case)
        w = omega_max(rod, q0, v0)
        line = f"{a.case} N={a.n} {opt:16s} omega_max={w:.6g} h_RK4=2.785/omega={2.785 / w:.4g}"
        if a.herk4:
            lo, hi = 0.5 * 2.785 / w, 2.0 * 2.785 / w
            for _ in range(8):
                mid = np.sqrt(lo * hi)
                lo, hi = (mid, hi) if stable(rod, q0, v0, mid, a.herk4) else (lo, mid)
            line += f" herk4_stable_h={lo:.4g} (unstable {hi:.4g})"
        print(line, flush=True)


if __name__ == "__main__":
    main()
