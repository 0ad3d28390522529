"""Lowest eigenfrequencies of a rod case per inertia option at its reference configuration (K φ = ω² M φ on ker B),
against the Euler–Bernoulli cantilever values (β L = 1.8751, 4.6941, 7.8548) when the case is clamped-free.

    python tools/rod_frequencies.py CASE N [N ...]
"""
import argparse

import numpy as np
import scipy.linalg as sla

from lgbeam.apps import load_case
from lgbeam.apps.rod import build

OPTIONS = ("lumped", "end-corrected", "end-corrected-3")
BETA_L = np.array([1.875104069, 4.694091133, 7.854757438])


def frequencies(rod, q0, v0, k=3, rigid=0):
    K = rod.stiffness(0.0, q0, v0).toarray()
    M = rod.mass(q0).toarray()
    B = rod.constraint_jacobian(q0).toarray()
    Z = sla.null_space(B) if B.size else np.eye(M.shape[0])
    lam = np.sort(sla.eigvals(Z.T @ K @ Z, Z.T @ M @ Z).real)
    lam = lam[rigid:]  # drop the rigid modes of a free rod
    return np.sqrt(lam[:k])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("n", type=int, nargs="+")
    a = ap.parse_args()
    for opt in OPTIONS:
        for n in a.n:
            case, _ = load_case(a.case, [f"model.n_elements={n}", f"model.inertia={opt}"])
            rod, q0, v0 = build(case)
            free = case["supports"]["start"] == "free" and case["supports"]["end"] == "free"
            w = frequencies(rod, q0, v0, rigid=6 if free else 0)
            line = f"{opt:16s} N={n:4d} omega={np.array2string(w, precision=8)}"
            if case["supports"]["start"] == "clamped" and case["supports"]["end"] == "free":
                mat, L = rod.material, rod.mesh.length
                k = 1 if case["model"]["transverse"] == "d1" else 0  # deflection along d1: bending about d2 (EI₂)
                ex = BETA_L**2 * np.sqrt(mat.C_K[k] / mat.rhoA) / L**2
                line += f"  rel.err vs Euler-Bernoulli={np.array2string(w / ex - 1, precision=3)}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
