"""The ``spheres`` case kind: seed 001 chs. 6–7's mechanical systems on (S²)ⁿ, integrated by the Lie group methods
lifted from (S²)ⁿ to SO(3)ⁿ (``spheres-eln``, ``spheres-rkmk4``, ``spheres-rkmkgl4``) or by Cartesian RATTLE
(``spheres-rattle``); docs/rigid-bodies.md.

    q_i' = ω_i × q_i,  q_i·ω_i = 0,  M_ii ω_i' − Σ_{j≠i} M_ij q_i^ q_j^ ω_j' = …   (seed 001 (6.5))

``model.kind`` picks the thesis' test problem with its data (seed 001 §7.2, notes/001.md §6): ``pendulum`` (m = 2,
l = 2; q₀ = [1, 1, −1]/√3, ω₀ = [1, 1, 2]), ``double`` (m₁ = 2, m₂ = 1, l₁ = l₂ = 1, the printed start) or
``dipoles`` (an nx × ny array of magnetic needles, m = 0.05, l = 0.02, moment 0.1, spacing 1.2 l). The defaults —
the spherical pendulum, ELN at h = 0.01 on [0, 200] — are seed 001 Fig. 7.1's ELN curve (energy; notes/001.md §9.4:
max |E − E₀| = 1.06e-4, E(200) − E₀ = +4.3e-5) and Fig. 7.2 (| |q| − 1 | and q·ω at round-off).

Writes solution.npz (t, q, ω (n_t, n, 3), ``positions`` of the bobs / needle tips, energy, momentum about k),
diagnostics.csv (per step: energy, max | |q_i| − 1 |, max |q_i·ω_i|, momentum about k), a ParaView series (the
pivots as vertices carrying ``direction`` q_i and ω_i for a Glyph filter; the pendulums as lines pivot → bob) and
figures/spheres.png (the four invariant panels of Figs 7.1–7.2, 7.4–7.5, 7.7–7.8).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lgbeam.apps import RunSummary
from lgbeam.apps._bodies import content, energy_summary, read_run, save
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.io.vtk import Frame
from lgbeam.models import spheres
from lgbeam.solve import MechanicalState, Solution
from lgbeam.systems import ProductOfSpheres

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("spheres",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "kind": Key(str, "pendulum", choices=("pendulum", "double", "dipoles"),
                    doc="seed 001 §7.2's test problem: spherical pendulum (7.5), double spherical pendulum (7.7) or "
                    "the array of magnetic dipoles (7.8), each with the thesis' data and start"),
        "g": Key(float, 9.81, doc="gravitational acceleration (pendulum, double)"),
        "nx": Key(int, 4, doc="dipoles along x (dipoles)"),
        "ny": Key(int, 4, doc="dipoles along y (dipoles)"),
    },
    "integrator": integrator_section(tuple(methods_for(ProductOfSpheres)), "spheres-eln", h=0.01, rtol=None, atol=None,
                                     tol=Key(float, None, doc="nonlinear solver tolerance (omit: the method's own)"),
                                     max_iter=Key(int, None, doc="nonlinear solver iteration cap (omit: the method's own)")),
    "time": time_section(),
    "output": output_section(1.0),
}

PENDULUM_LENGTH = 2.0  # seed 001 §7.2.1 (printed "r = 2")
NEEDLE_LENGTH = 0.02  # seed 001 §7.2.3


def build(case: dict[str, Any]) -> tuple[spheres.Spheres, MechanicalState, np.ndarray, np.ndarray]:
    """(model, y0, pivots (n, 3), lengths (n,)) of a validated case: each sphere's q_i is drawn from its pivot with
    its length (a chain: the pivot of sphere i is the bob of sphere i − 1, marked by a NaN pivot row)."""
    m = case["model"]
    if m["kind"] == "pendulum":
        model, y0 = spheres.spherical_pendulum(g=m["g"])
        return model, y0, np.zeros((1, 3)), np.array([PENDULUM_LENGTH])
    if m["kind"] == "double":
        model, y0 = spheres.double_spherical_pendulum(g=m["g"])
        return model, y0, np.array([[0.0, 0.0, 0.0], [np.nan] * 3]), np.array([1.0, 1.0])
    if m["nx"] < 1 or m["ny"] < 1 or m["nx"] * m["ny"] < 2:
        raise ValueError(f"model.nx and model.ny must be >= 1 with at least two dipoles, got {m['nx']} x {m['ny']}")
    model, y0 = spheres.dipole_array(m["nx"], m["ny"])
    d = 1.2 * NEEDLE_LENGTH
    ii, jj = np.meshgrid(np.arange(m["nx"]), np.arange(m["ny"]), indexing="ij")
    pivots = np.stack([ii.ravel() * d, jj.ravel() * d, np.zeros(ii.size)], axis=1)
    return model, y0, pivots, np.full(ii.size, NEEDLE_LENGTH / 2)


def _pivots_and_tips(pivots: np.ndarray, lengths: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pivot and tip of every sphere for directions q (..., n, 3); a NaN pivot is the previous sphere's tip."""
    if not np.isnan(pivots).any():
        return np.broadcast_to(pivots, q.shape), pivots + lengths[:, None] * q
    tips = np.cumsum(lengths[:, None] * q, axis=-2)  # a chain from the origin
    base = np.concatenate([np.zeros_like(tips[..., :1, :]), tips[..., :-1, :]], axis=-2)
    return base, tips


def problem(case: dict[str, Any]) -> Problem:
    """The spheres of a validated case as a ``Problem`` for the runner."""
    model, y0, pivots, lengths = build(case)
    chain = bool(np.isnan(pivots).any()) or model.n_spheres == 1

    def invariants(t: float, y: MechanicalState) -> dict[str, float]:
        q, w = y.q, y.v
        return {"energy": model.energy(q, w), "energy_scale": content(model.energy(q, w), model.potential(q)),
                "unit_q": float(np.abs(np.linalg.norm(q, axis=1) - 1.0).max()),
                "q_dot_omega": float(np.abs(np.einsum("ij,ij->i", q, w)).max()),
                "momentum_k": model.momentum_about(q, w)}

    def frame(y: MechanicalState) -> Frame:
        base, tips = _pivots_and_tips(pivots, lengths, y.q)
        n = model.n_spheres
        if chain:  # the joints and bobs of the pendulum as one polyline, data on the segment's far end
            pts = np.vstack([np.zeros(3), tips])
            idx = np.arange(n + 1)
            pd = {"direction": np.vstack([np.zeros(3), y.q]), "angular_velocity": np.vstack([np.zeros(3), y.v])}
            return Frame(pts, [("line", np.stack([idx[:-1], idx[1:]], axis=1))], pd, {})
        return Frame(np.asarray(base, dtype=float), [("vertex", np.arange(n)[:, None])],
                     {"direction": y.q.copy(), "angular_velocity": y.v.copy()}, {})

    def arrays(sol: Solution) -> dict[str, Any]:
        q, w = np.asarray(sol.q), np.asarray(sol.v)
        return {"t": sol.t, "q": q, "omega": w, "positions": _pivots_and_tips(pivots, lengths, q)[1],
                "energy": np.array([model.energy(a, b) for a, b in zip(q, w)]),
                "momentum_k": np.array([model.momentum_about(a, b) for a, b in zip(q, w)]),
                "problem": model.name}

    integ = case["integrator"]
    opts = {k: integ[k] for k in ("tol", "max_iter") if integ.get(k) is not None}
    return Problem(model, y0, frame, arrays, diagnostics=invariants, method_options=opts,
                   summary=lambda sol: energy_summary(sol, "unit_q", "q_dot_omega"))


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the spheres; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/spheres.png: E − E₀, max | |q_i| − 1 |, max |q_i·ω_i| and the momentum about k at every step (the
    panels of seed 001 Figs 7.1–7.2 / 7.4–7.5 / 7.7–7.8 for this run's method)."""
    _, diag = read_run(run_dir)
    t = diag["t"]
    fig = Figure(figsize=(12, 3.5))
    cols = (("energy", "E − E₀", False), ("unit_q", "max | |q_i| − 1 |", True),
            ("q_dot_omega", "max |q_i·ω_i|", True), ("momentum_k", "momentum about k − J₀", False))
    for k, (col, title, log) in enumerate(cols):
        ax = fig.add_subplot(1, 4, k + 1)
        v = diag[col] if log else diag[col] - diag[col][0]
        if log:
            ax.semilogy(t, np.maximum(v, 1e-18), lw=0.5)
        else:
            ax.plot(t, v, lw=0.5)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("t")
    return [save(fig, run_dir, "spheres.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Max-norm errors of q and ω at the reference's final time (seed 001 Figs 7.3/7.6/7.9)."""
    k = index_at_reference_end(solution, reference)
    return {"q": float(np.abs(np.asarray(solution["q"])[k] - np.asarray(reference["q"])[-1]).max()),
            "omega": float(np.abs(np.asarray(solution["omega"])[k] - np.asarray(reference["omega"])[-1]).max())}
