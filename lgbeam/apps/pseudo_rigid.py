"""The ``pseudo-rigid`` case kind: seed 002 §5.2's pseudo-rigid (homogeneous St Venant–Kirchhoff) body on
T*GL⁺(3) ≅ GL⁺(3) ⋉ gl(3)*, integrated by the symmetric integral-preserving Lie group methods (``ep2-gonzalez`` —
the paper's EP method (30) —, ``ep2-avf``, ``ep4``, ``lie-midpoint`` — its symmetric α = 0 method —, ``lie-heun``;
docs/discrete-gradients.md).

    x = F X,  F' = P E⁻¹,  P' = −2F ∇W(FᵀF),  W(C) = ½ λ tr(C − I)² + μ tr((C − I)²)   (seed 002 (28)–(29))

The defaults — E = diag(1, 2, 3), λ = 1/3, μ = 1, F₀ = I, P₀ = diag(0.2575, 0.8407, 0.2543), EP (ep2-gonzalez) at
h = 1/16 for 1000 steps ([0, 62.5]) — are seed 002 Fig. 3's EP runs: the energy error "~1e-12, a straight line"
(top right; notes/002.md §8.3: 4.8e-14 at t = 50, 6.3e-13 on the full [0, 500]) and F(t)[1, 1, 1]ᵀ over the first
1000 steps (bottom left; the paper's P₀ there is unstated, so it is drawn from the Fig. 3 P₀). ``time.t_end = 500``
gives the full top row (8000 steps, minutes); ``integrator.method = "lie-midpoint"`` the symmetric curve
(max |ΔH| 2.85e-4 on [0, 500]), ``lie-heun`` with h = 1/32 the drifting one. Only ep2-gonzalez keeps H exactly
here: the paper's (γ₁, γ₂) is not R^*dH under the trace pairing, and the Gonzalez correction (15) restores the
discrete chain rule where an AVF average (ep2-avf, ep4) does not (lgbeam/models/pseudo_rigid.py, notes/002.md §4.3).

Writes solution.npz (t, F, P (n_t, 3, 3), det F, energy, ``corner`` = F[1, 1, 1]ᵀ), diagnostics.csv (per step:
energy, det F, F[1, 1, 1]ᵀ), a ParaView series of the body as the deformed unit cube F·[−½, ½]³ (one hexahedron, point data
``velocity`` F'X) and figures/pseudo-rigid.png (F(t)[1, 1, 1]ᵀ, H − H₀, det F).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lgbeam.apps import RunSummary
from lgbeam.apps._bodies import energy_summary, matrix, method_options, positive, read_run, save
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.io.vtk import Frame
from lgbeam.models.pseudo_rigid import FIG3_P0, PseudoRigidBody
from lgbeam.solve import Solution
from lgbeam.systems import LieGroupFirstIntegral

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("pseudo-rigid",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "inertia": Key(list, [1.0, 2.0, 3.0], doc="diagonal of the inertia tensor E"),
        "lame_lambda": Key(float, 1.0 / 3.0, doc="Lamé constant λ (3λ + 2μ > 0)"),
        "lame_mu": Key(float, 1.0, doc="Lamé constant μ > 0"),
    },
    "initial": {
        "F": Key(list, np.eye(3).tolist(), doc="initial deformation gradient F₀ (3 rows), det F₀ > 0"),
        "P": Key(list, np.diag(FIG3_P0).tolist(), doc="initial momentum P₀ (3 rows)"),
    },
    "integrator": integrator_section(
        tuple(methods_for(LieGroupFirstIntegral)), "ep2-gonzalez", h=0.0625, rtol=None, atol=None,
        quadrature=Key(int, None, doc="quadrature points of ep4 / ep2-avf (omit: the method's own)"),
        tol=Key(float, None, doc="fixed-point tolerance (omit: the method's 1e-14)"),
        max_iter=Key(int, None, doc="fixed-point iteration cap (omit: the method's 500)")),
    "time": time_section(),
    "output": output_section(0.5),
}

# the unit cube [−½, ½]³ in VTK's hexahedron order (bottom face counter-clockwise, then the top face)
CUBE = 0.5 * np.array([[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                       [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]], dtype=float)


def build(case: dict[str, Any]) -> tuple[PseudoRigidBody, np.ndarray]:
    """(body, x0) of a validated case; ValueError for inconsistent data (det F₀ ≤ 0, bad Lamé constants)."""
    m, ini = case["model"], case["initial"]
    body = PseudoRigidBody(tuple(positive(m["inertia"], "model.inertia")),  # type: ignore[arg-type]
                           float(m["lame_lambda"]), float(m["lame_mu"]))
    return body, body.initial_state(matrix(ini["F"], "initial.F"), matrix(ini["P"], "initial.P"))


def problem(case: dict[str, Any]) -> Problem:
    """The pseudo-rigid body of a validated case as a ``Problem`` for the runner."""
    body, x0 = build(case)
    Einv = 1.0 / np.asarray(body.inertia, dtype=float)

    def invariants(t: float, x: np.ndarray) -> dict[str, float]:
        c = x[:9].reshape(3, 3).sum(axis=1)  # F [1, 1, 1]ᵀ, per step for Fig. 3's bottom-left panel
        return {"energy": float(body.first_integral(x)), "energy_scale": float(body.first_integral(x)),  # T + W ≥ 0
                "det_F": float(body.determinant(x)),
                "corner_x": float(c[0]), "corner_y": float(c[1]), "corner_z": float(c[2])}

    def frame(x: np.ndarray) -> Frame:
        F, P = x[:9].reshape(3, 3), x[9:].reshape(3, 3)
        return Frame(CUBE @ F.T, [("hexahedron", np.arange(8)[None])], {"velocity": CUBE @ (P * Einv).T},
                     {"det_F": [np.array([np.linalg.det(F)])]})

    def arrays(sol: Solution) -> dict[str, Any]:
        x = np.asarray(sol.y)
        F, P = x[:, :9].reshape(-1, 3, 3), x[:, 9:].reshape(-1, 3, 3)
        return {"t": sol.t, "F": F, "P": P, "det_F": np.linalg.det(F), "energy": np.asarray(body.first_integral(x)),
                "corner": F @ np.ones(3)}

    integ = case["integrator"]
    opts = method_options(integ, quadrature=integ.get("quadrature"), tol=integ.get("tol"), max_iter=integ.get("max_iter"))
    return Problem(body, x0, frame, arrays, diagnostics=invariants, method_options=opts,
                   summary=lambda sol: energy_summary(sol) | {"det_F_min": float(sol.summary["det_F"]["min"]),
                                                              "det_F_max": float(sol.summary["det_F"]["max"])})


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the pseudo-rigid body; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/pseudo-rigid.png: F(t)[1, 1, 1]ᵀ (x, y) at every step (seed 002 Fig. 3 bottom left), H − H₀ (top
    right) and det F (> 0 on GL⁺(3))."""
    _, diag = read_run(run_dir)
    fig = Figure(figsize=(13, 4))
    a1 = fig.add_subplot(1, 3, 1)
    a1.plot(diag["corner_x"], diag["corner_y"], lw=0.6)
    a1.set_title("F(t)[1, 1, 1]ᵀ (x, y)", fontsize=9)
    a2 = fig.add_subplot(1, 3, 2)
    a2.plot(diag["t"], diag["energy"] - diag["energy"][0], lw=0.6)
    a2.set_title("H − H₀", fontsize=9)
    a2.set_xlabel("t")
    a3 = fig.add_subplot(1, 3, 3)
    a3.plot(diag["t"], diag["det_F"], lw=0.6)
    a3.set_title("det F", fontsize=9)
    a3.set_xlabel("t")
    return [save(fig, run_dir, "pseudo-rigid.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Frobenius error of (F, P) at the reference's final time (notes/002.md §8.3's measure)."""
    k = index_at_reference_end(solution, reference)
    dF = np.asarray(solution["F"])[k] - np.asarray(reference["F"])[-1]
    dP = np.asarray(solution["P"])[k] - np.asarray(reference["P"])[-1]
    return {"FP": float(np.sqrt(np.sum(dF**2) + np.sum(dP**2)))}
