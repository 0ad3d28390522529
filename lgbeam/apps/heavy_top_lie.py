"""The ``heavy-top-lie`` case kind: seed 000 §3.4's heavy top without constraints, in the formulation its method
needs (``lgbeam.models.heavy_top_lie``; docs/lie-group-methods.md):

* ``slgi``, ``slgi-0``, ``slgi-1`` (family lie-symplectic): T*SO(3) in spatial variables (Q, π), eqs. (21)–(22),
  by the symplectic Lie group integrators SLGI(θ) (15)–(17);
* any lie-action method (``hs-*`` RKMK, ``cf*``, ``cg3``, ``ambient-*``): se(3)* ∋ (Π, Γ), eqs. (23)–(24), under the
  coadjoint action of SE(3) (Γ = Qᵀe₃; the attitude about the vertical is not part of this state).

Defaults: seed 000 Fig. 3: SLGI(θ = ½), h = 0.01, 6000 steps (M = 15, l = 2, I = diag(0.234375, 0.46875,
0.234375), X = e₂, Q(0) = I, π(0) = I (0, 150, −4.61538), g = 9.81, Γ₀ = e₃ up). Notes §8.3 (independent
re-implementation): max |H − H₀| = 0.1685 for θ = ½ and 19.62 for θ = 0 (``--set integrator.method=slgi-0``),
bounded (tests/test_seed_cases_lie.py).

Writes solution.npz (t; the state y; for T*SO(3): Q, pi, positions (n_t, 1, 3) = the centre of mass l Q X and
rotations Q; for se(3)*: Pi, Gamma; both: body_gravity = M l Q⁻¹Γ₀ (Fig. 2 left), height of the centre of mass,
energy), diagnostics.csv (per step: the energy and the form's invariants, π·e₃ and ‖QᵀQ − I‖ on T*SO(3), the
Casimirs |Γ| and Π·Γ on se(3)*; M l Q⁻¹Γ₀), a ParaView series (T*SO(3): the centre of mass as a vertex carrying the body
frame, joined to the fixed point; se(3)*: the body seen in its own frame, with the glyphs Γ (up) and Π) and
figures/heavy-top-lie.png (Fig. 2 left and centre, Fig. 3 top).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._bodies import content
from lgbeam.apps._figures import load_run, new_figure, save
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.integrators.registry import method_entry, methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.models.heavy_top_lie import E3, HeavyTopCotangent, HeavyTopLiePoisson
from lgbeam.solve import Solution
from lgbeam.systems import CotangentHamiltonian, HomogeneousSpaceODE

METHODS = (*methods_for(CotangentHamiltonian), *methods_for(HomogeneousSpaceODE))

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("heavy-top-lie",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "mass": Key(float, 15.0, doc="mass M"),
        "length": Key(float, 2.0, doc="distance l from the fixed point to the centre of mass"),
        "gravity": Key(float, 9.81, doc="gravitational acceleration g (Γ₀ = e₃ up)"),
        "inertia": Key(list, [0.234375, 0.46875, 0.234375], doc="principal moments I about the fixed point"),
        "axis": Key(list, [0.0, 1.0, 0.0], doc="unit body vector X from the fixed point to the centre of mass"),
    },
    "initial": {"omega": Key(list, [0.0, 150.0, -4.61538], doc="initial body angular velocity (π(0) = I ω, Q(0) = I)")},
    "integrator": integrator_section(METHODS, "slgi", h=0.01, rtol=1e-8, atol=1e-8),
    "time": time_section(60.0),
    "output": output_section(0.1),
}


def cotangent_form(method: str) -> bool:
    """True when ``method`` integrates the T*SO(3) form (21)–(22) (SLGI), False for the se(3)* form (23)–(24)."""
    return method_entry(method).family == "lie-symplectic"


def build(case: dict[str, Any]) -> HeavyTopCotangent | HeavyTopLiePoisson:
    """The top of a validated case in the form its method needs; ValueError (exit 2) for bad data."""
    m = case["model"]
    cls = HeavyTopCotangent if cotangent_form(case["integrator"]["method"]) else HeavyTopLiePoisson
    try:
        return cls(mass=float(m["mass"]), length=float(m["length"]), gravity=float(m["gravity"]),
                   inertia=np.asarray(m["inertia"], dtype=float), axis=np.asarray(m["axis"], dtype=float),
                   spin=np.asarray(case["initial"]["omega"], dtype=float))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"heavy-top-lie case: {exc}") from None


def problem(case: dict[str, Any]) -> Problem:
    """The heavy top of a validated case as a ``Problem`` for the runner."""
    top = build(case)
    cot = isinstance(top, HeavyTopCotangent)
    Ml = top.mass * top.length

    def frame(y: np.ndarray):  # type: ignore[no-untyped-def]
        from lgbeam.io.vtk import linked_bodies_frame

        if cot:
            Q, pi = y[:9].reshape(3, 3), y[9:]
            w = Q @ ((Q.T @ pi) / top.inertia)
            return linked_bodies_frame((top.length * Q @ top.axis)[None], Q[None], [[0, 1]], points=np.zeros((1, 3)),
                                       point_data={"angular_velocity": np.vstack([w, np.zeros(3)]),
                                                   "momentum": np.vstack([pi, np.zeros(3)])})
        Pi, G = y[:3], y[3:]
        return linked_bodies_frame((top.length * top.axis)[None], np.eye(3)[None], [[0, 1]], points=np.zeros((1, 3)),
                                   point_data={"up": np.vstack([G, G]), "momentum": np.vstack([Pi, Pi])})

    def arrays(sol: Solution) -> dict[str, Any]:
        ys = np.asarray(sol.y)
        out: dict[str, Any] = {"t": sol.t, "y": ys, "form": "T*SO(3)" if cot else "se(3)*"}
        if isinstance(top, HeavyTopCotangent):
            Q = ys[:, :9].reshape(-1, 3, 3)
            gamma = np.einsum("kji,j->ki", Q, E3)  # Qᵀ e₃
            com = top.length * np.einsum("kij,j->ki", Q, top.axis)
            out |= {"Q": Q, "pi": ys[:, 9:], "positions": com[:, None], "rotations": Q[:, None], "QX": com / top.length,
                    "energy": np.array([top.hamiltonian(q, p) for q, p in zip(Q, ys[:, 9:])])}
        else:
            gamma = ys[:, 3:]
            out |= {"Pi": ys[:, :3], "Gamma": gamma, "energy": np.array([top.energy(y) for y in ys])}
        out |= {"body_gravity": Ml * gamma, "height": top.length * gamma @ top.axis}
        return out

    def summary(sol: Solution) -> dict[str, Any]:
        e = sol.summary["energy"]
        return {"energy_error_max": float(max(e["max"] - e["first"], e["first"] - e["min"])),
                "form": "T*SO(3)" if cot else "se(3)*"}

    def diagnostics(t: float, y: np.ndarray) -> dict[str, float]:
        """The method-independent per-step record: energy, the form's invariants and M l Q⁻¹Γ₀ (Fig. 2 left)."""
        if isinstance(top, HeavyTopCotangent):
            Q = y[:9].reshape(3, 3)
            g, energy = Q[2], top.hamiltonian(Q, y[9:])  # Qᵀe₃ is the third row of Q
        else:
            g, energy = y[3:], top.energy(y)
        potential = top.mgl * float(g @ top.axis)  # M g l Γ·X (Γ = Qᵀe₃)
        return {"energy": energy, "energy_scale": content(energy, potential), **top.invariants(t, y), "body_gravity_x": Ml * float(g[0]),
                "body_gravity_y": Ml * float(g[1]), "body_gravity_z": Ml * float(g[2])}

    return Problem(top, top.initial_state(), frame, arrays, summary=summary, diagnostics=diagnostics)


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the top; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/heavy-top-lie.png: seed 000 Fig. 2 left (3-D curve of M l Q⁻¹Γ₀), centre (components of Q X on
    T*SO(3); of Γ = Qᵀe₃ on se(3)*) and Fig. 3 top (energy error H − H₀ per step)."""
    sol, diag = load_run(run_dir)
    t = sol["t"]
    fig = new_figure(14, 4)
    a = fig.add_subplot(1, 3, 1, projection="3d")
    first = diag["t"] <= diag["t"][0] + 1.0
    a.plot(*(diag[f"body_gravity_{c}"][first] for c in "xyz"), lw=0.6)
    a.set_title("Fig. 2 (left): M l Q⁻¹Γ₀ per step on the first time unit", fontsize=9)
    b = fig.add_subplot(1, 3, 2)
    if "QX" in sol:  # slow (precession): the saved states draw it
        tt, comp, label = t, sol["QX"], "Q X"
    else:  # Γ turns with the spin (150 rad/s): every step
        Ml = float(np.linalg.norm(sol["body_gravity"][0]))
        tt, comp, label = diag["t"], np.stack([diag[f"body_gravity_{c}"] for c in "xyz"], 1) / Ml, "Γ = Qᵀe₃"
    for k, c in enumerate("xyz"):
        b.plot(tt, comp[:, k], lw=0.8, label=f"({label})_{c}")
    b.set(xlabel="t", title=f"Fig. 2 (centre): components of {label}")
    b.legend(fontsize=7)
    c = fig.add_subplot(1, 3, 3)
    c.plot(diag["t"], diag["energy"] - diag["energy"][0], lw=0.6)
    c.set(xlabel="t", ylabel="H − H₀", title=f"Fig. 3 (top): energy error ({sol['form']})")
    return [save(fig, run_dir, "heavy-top-lie.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Errors at the reference's final time of the frame-independent output: M l Q⁻¹Γ₀ (both forms) and, on T*SO(3),
    the centre of mass."""
    k = index_at_reference_end(solution, reference)
    out = {"body_gravity": float(np.abs(np.asarray(solution["body_gravity"])[k]
                                        - np.asarray(reference["body_gravity"])[-1]).max())}
    if "positions" in solution and "positions" in reference:
        out["position"] = float(np.abs(np.asarray(solution["positions"])[k] - np.asarray(reference["positions"])[-1]).max())
    return out
