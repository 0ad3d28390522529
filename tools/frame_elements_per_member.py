"""Error against elements per member on the two-storey steel frame (cases/steel-frame-2storey.toml; docs/frames.md
"How many elements per member"): roof-corner sway, base moment M_y and f₁ at N = 2 … 16 elements per member, against
OpenSeesPy (ux review t3 §2a: 8 cubic elements per member, exact for nodal loads) and against lgbeam's own
Richardson extrapolation of the two finest grids; then the built-in correction (``analysis.richardson``: N/2, N, 2N
at the case's 8 elements per member) with its error estimates, and its cost against the case mesh alone (static
path + 1 mode + 1 buckling factor, best of 3, process CPU). Prints tables and writes
outputs/frame-elements-per-member.csv and outputs/frame-richardson-cost.csv.

Usage: PYTHONPATH=. python tools/frame_elements_per_member.py [N ...]   (default 2 4 8 16)
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

from lgbeam.apps import frame as frame_app
from lgbeam.apps import load_case
from lgbeam.discretisations.rods import modal
from lgbeam.discretisations.rods.statics import solve_static

OPENSEES = {"sway_m": 0.0302618, "base_moment_Nm": -64226.9, "f1_hz": 5.2381}


def results(n: int) -> dict[str, float]:
    st = frame_app.build(load_case("steel-frame-2storey", [f"model.n_elements={n}"])[0])
    path = solve_static(st, load_steps=1)
    q = path.final.q
    i = st.names.index("c3.2")
    x = st.G.translation(st.split_q(q)[i])[-1] - st.G.translation(st.split_q(st.q_ref)[i])[-1]
    names, R = st.support_reactions(1.0, q, path.final.lam)
    return {"sway_m": float(x[0]), "base_moment_Nm": float(R[list(names).index("c1.1:b1"), 1]),
            "f1_hz": float(modal.modes(st, 1).omega[0] / (2 * np.pi))}


def main(ns: list[int]) -> None:
    rows = [{"n": n, **results(n)} for n in ns]
    rich = {k: rows[-1][k] + (rows[-1][k] - rows[-2][k]) / 3 for k in OPENSEES}
    out = Path("outputs") / "frame-elements-per-member.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    keys = list(OPENSEES)
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["n_elements", *keys, *(f"{k}_err_vs_opensees" for k in keys), *(f"{k}_err_vs_richardson" for k in keys)])
        for r in rows:
            w.writerow([r["n"], *(r[k] for k in keys), *(r[k] / OPENSEES[k] - 1 for k in keys),
                        *(r[k] / rich[k] - 1 for k in keys)])
    print(f"{'N':>3}  " + "  ".join(f"{k:>16}" for k in keys) + "  rel. error vs OpenSeesPy (sway, moment, f1)")
    for r in rows:
        print(f"{r['n']:>3}  " + "  ".join(f"{r[k]:16.8g}" for k in keys) + "  "
              + "  ".join(f"{r[k] / OPENSEES[k] - 1:+.2e}" for k in keys))
    print("Richardson (two finest, order 2): " + "  ".join(f"{k} {rich[k]:.8g} ({rich[k] / OPENSEES[k] - 1:+.1e})"
                                                          for k in keys))
    print(f"wrote {out}")
    builtin()


def builtin(repeats: int = 3) -> None:
    """The built-in correction at the case's mesh (frame_richardson on N/2, N, 2N) and its cost."""
    import time

    from lgbeam.apps import frame_richardson as fr

    case = load_case("steel-frame-2storey")[0]
    cases = fr.family(case)
    res = [results(int(c["model"]["n_elements"])) for c in cases]
    print(f"built-in analysis.richardson ({fr.meshes_label(cases)} elements per member):")
    for k, ops in OPENSEES.items():
        ex = fr.extrapolate([np.array([r[k]]) for r in res])
        v, e = float(ex["value"][0]), float(ex["error"][0])
        print(f"  {k:>16} {v:16.8g} ± {e:.2g} ({e / abs(v):.1e} relative); vs OpenSeesPy {v / ops - 1:+.1e}; "
              f"the mesh alone {res[-2][k] / ops - 1:+.1e}")

    def cost(n: int) -> float:
        best = np.inf
        for _ in range(repeats):
            t = time.process_time()
            st = frame_app.build(load_case("steel-frame-2storey", [f"model.n_elements={n}"])[0])
            solve_static(st, load_steps=1)
            modal.modes(st, 1)
            modal.buckling(st, 1)
            best = min(best, time.process_time() - t)
        return best

    out = Path("outputs") / "frame-richardson-cost.csv"
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["case_n_elements", "n_elements", "cpu_s"])
        for n0 in (int(case["model"]["n_elements"]), 64):   # the default, and a fine mesh where the solves dominate
            per = {m: cost(m) for m in (n0 // 2, n0, 2 * n0)}
            w.writerows([n0, m, t] for m, t in per.items())
            total = sum(per.values())
            print(f"  cost at N = {n0} (static + 1 mode + 1 buckling factor, best of {repeats}, CPU s): "
                  + ", ".join(f"N = {m}: {t:.3f}" for m, t in per.items())
                  + f"; with the correction {total:.3f} s = {total / per[n0]:.1f}× the case mesh alone")
    print(f"  wrote {out}")

if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2, 4, 8, 16])
