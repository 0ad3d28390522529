"""steel-frame-2storey-quake against OpenSeesPy: the same frame (members split as lgbeam's rods, coincident rod ends
merged into one node, elasticBeamColumn with lgbeam's section stiffness EA, EI₁, EI₂, GJ and local axes y = d₁,
z = d₂, lgbeam's lumped nodal masses and rotary inertia (diagonal in the global axes: every member is axis-aligned),
Rayleigh 5 % at its own modes 1 and 3, UniformExcitation along x by the shipped record, Newmark ½ ¼ at 10 ms);
prints the peak relative roof displacement (r1, x) and the frequencies of both.

Run: PYTHONPATH=. python tools/quake_vs_opensees.py [N_ELEMENTS] [T_END]   (needs openseespy). Measured (12 s):
n = 4: f₁ 1.3300 vs 1.2884 Hz; n = 8: peak 28.742 vs 28.548 mm (+0.68 %), f₁ +0.78 %, 5.1 s vs 3.2 s CPU;
n = 16: 28.591 mm (+0.15 %), f₁ 1.2909 Hz, 8.7 s vs 7.6 s CPU (OpenSeesPy on the same subdivision).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import load_case
from lgbeam.apps.frame import node_ids, problem
from lgbeam.integrators.controllers import ConstantStep
from lgbeam.io import records
from lgbeam.solve import integrate


def lgbeam_peak(n: int, t_end: float) -> tuple[float, np.ndarray, float, Any, int]:
    """(peak |u_x(r1)| [m], the first three f [Hz], CPU s of the integration, the structure, r1's node)."""
    case, _ = load_case("steel-frame-2storey-quake", [f"model.n_elements={n}", f"time.t_end={t_end}"])
    prob = problem(case)
    fr = prob.system
    t0 = time.process_time()
    sol = integrate(fr, "gen-alpha", prob.y0, (0.0, t_end), controller=ConstantStep(0.01), diagnostics=False)
    cpu = time.process_time() - t0
    i = node_ids(case, fr)["r1"]
    x = fr.G.translation(np.asarray(sol.q))[:, i, 0]
    return float(np.max(np.abs(x - x[0]))), fr.viscous.omega[:3] / (2 * np.pi), cpu, fr, i


def opensees_peak(fr: Any, r1: int, t_end: float) -> tuple[float, np.ndarray, float]:
    """The same for the OpenSeesPy model of the module docstring."""
    import openseespy.opensees as ops

    G = fr.G
    q = fr._q(fr.q_ref)
    X, R = G.translation(q), G.rotation(q)
    m = np.asarray(fr.mass(fr.q_ref).diagonal()).reshape(-1, 6)
    key = np.round(X, 9)
    uniq, tag = np.unique(key, axis=0, return_inverse=True)
    tag = tag.ravel() + 1
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    for k, p in enumerate(uniq):
        ops.node(k + 1, *p.tolist())
    mass = np.zeros((len(uniq), 6))
    for i in range(len(X)):  # per lgbeam node: translational mass, body-frame inertia turned global (diagonal)
        J = R[i] @ np.diag(m[i, :3]) @ R[i].T
        mass[tag[i] - 1] += np.concatenate([[m[i, 3]] * 3, np.diag(J)])
    for k in range(len(uniq)):
        ops.mass(k + 1, *mass[k].tolist())
    for k in np.unique(tag[fr.support_nodes()]):
        ops.fix(int(k), 1, 1, 1, 1, 1, 1)
    e = 0
    for r, off in zip(fr.members, fr.node_offsets[:-1], strict=True):
        EI1, EI2, GJ = r.material.C_K
        EA = r.material.C_Gamma[2]
        for j in range(r.n_nodes - 1):
            a, b = off + j, off + j + 1
            d2 = R[a][:, 1]
            e += 1
            ops.geomTransf("Linear", e, *d2.tolist())  # vecxz = d₂: local z = d₂, y = d₁
            ops.element("elasticBeamColumn", e, int(tag[a]), int(tag[b]), EA, 1.0, 1.0, GJ, EI1, EI2, e)
    lam = np.array(ops.eigen(3))
    w = np.sqrt(lam)
    a0, a1 = 2 * 0.05 * w[0] * w[2] / (w[0] + w[2]), 2 * 0.05 / (w[0] + w[2])
    ops.rayleigh(a0, 0.0, 0.0, a1)
    t, a = records.read(records.resolve("records/synthetic-kt-0.3g.at2", Path(__file__).resolve().parents[1] / "cases"))
    ops.timeSeries("Path", 1, "-dt", float(t[1] - t[0]), "-values", *(9.80665 * a).tolist())
    ops.pattern("UniformExcitation", 1, 1, "-accel", 1)
    ops.constraints("Plain")
    ops.numberer("RCM")
    ops.system("BandGeneral")
    ops.test("NormDispIncr", 1e-10, 20)
    ops.algorithm("Linear")
    ops.integrator("Newmark", 0.5, 0.25)
    ops.analysis("Transient")
    r1 = int(tag[r1])
    peak = 0.0
    t0 = time.process_time()
    for _ in range(round(t_end / 0.01)):
        assert ops.analyze(1, 0.01) == 0
        peak = max(peak, abs(ops.nodeDisp(r1, 1)))
    return peak, w / (2 * np.pi), time.process_time() - t0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 12.0
    ours, f_ours, cpu, fr, r1 = lgbeam_peak(n, t_end)
    theirs, f_ops, cpu_ops = opensees_peak(fr, r1, t_end)
    print(f"n = {n}, t_end = {t_end}: peak |u_x(r1)| lgbeam {1e3 * ours:.3f} mm ({cpu:.1f} s CPU), OpenSeesPy "
          f"{1e3 * theirs:.3f} mm ({cpu_ops:.1f} s CPU), difference {100 * (ours / theirs - 1):+.2f} %; f [Hz] lgbeam "
          f"{np.round(f_ours, 4).tolist()}, OpenSeesPy {np.round(f_ops, 4).tolist()}")


if __name__ == "__main__":
    main()
