"""The ``spherical-pendulum`` case kind: seed 000 §5's N-fold spherical pendulum on (TS²)ᴺ, integrated by the
Lie group methods on homogeneous spaces (RKMK, commutator-free, Crouch–Grossman; docs/lie-group-methods.md).

Writes solution.npz (t, the states [q₁, w₁, …], mass positions), diagnostics.csv (energy, | |q_i| − 1 |,
|q_i·w_i| per step) and a ParaView series of the chain as a polyline from the fixed joint through the masses.
A start off TS² (| |q_i| − 1 | or |q_i·w_i| above 1e-10) is refused with what to change (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._runner import Problem, check_work, index_at_reference_end, run_problem
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.io.vtk import Frame
from lgbeam.models.pendulum_chain import SphericalPendulumChain
from lgbeam.solve import Solution
from lgbeam.systems import HomogeneousSpaceODE

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("spherical-pendulum",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "n": Key(int, 2, doc="number of links N"),
        "masses": Key(list, [], doc="N point masses (empty: all 1)"),
        "lengths": Key(list, [], doc="N link lengths (empty: all equal to length)"),
        "length": Key(float, 1.0, doc="link length when lengths is empty (seed 000 Fig. 10: 5/N)"),
        "gravity": Key(float, 9.81, doc="gravitational acceleration g (along −e3)"),
    },
    "initial": {
        "state": Key(str, "paper", doc="paper: q_i = (√2/2, 0, √2/2), w_i = (0, 1, 0); rest: q_i = e1, w_i = 0; "
                     "given: initial.q and initial.w", choices=("paper", "rest", "given")),
        "q": Key(list, [], doc="N unit vectors q_i (with state = 'given')"),
        "w": Key(list, [], doc="N angular velocities w_i ⊥ q_i (with state = 'given')"),
    },
    "integrator": integrator_section(tuple(methods_for(HomogeneousSpaceODE)), "hs-rkmk5", rtol=1e-6, atol=1e-8),
    "time": time_section(),
    "output": output_section(0.01),
}


WORK_BYTES_PER_LINK = 2_000  # measured ~0.8 kB a link (hs-rkmk5, N = 1e5), with margin


def build(case: dict[str, Any]) -> tuple[SphericalPendulumChain, np.ndarray]:
    """(chain, y0) of a validated case; ValueError (exit 2) for inconsistent data or a start off TS²."""
    m, ini = case["model"], case["initial"]
    n = m["n"]
    if n < 1:
        raise ValueError(f"case key 'model.n' must be a positive number of links, got {n}")
    check_work(case, WORK_BYTES_PER_LINK * n, f"a chain of {n} links", "use fewer links (model.n)")
    masses = m["masses"] or [1.0] * n
    lengths = m["lengths"] or [m["length"]] * n
    if len(masses) != n or len(lengths) != n:
        raise ValueError(f"model.masses and model.lengths need model.n = {n} values each (or none), got "
                         f"{len(masses)} and {len(lengths)}")
    chain = SphericalPendulumChain(np.asarray(masses, float), np.asarray(lengths, float), m["gravity"])
    if ini["state"] == "paper":
        return chain, chain.paper_state()
    if ini["state"] == "rest":
        return chain, chain.rest_state()
    try:
        q, w = np.asarray(ini["q"], dtype=float), np.asarray(ini["w"], dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"initial.q and initial.w must be N × 3 lists of numbers ({exc})") from None
    if q.shape != (n, 3) or w.shape != (n, 3):
        raise ValueError(f"initial.q and initial.w must be {n} × 3 lists with initial.state = 'given', got shapes "
                         f"{q.shape} and {w.shape}")
    return chain, chain.state(q, w)


def problem(case: dict[str, Any]) -> Problem:
    """The pendulum chain of a validated case as a ``Problem`` for the runner."""
    chain, y0 = build(case)

    def frame(y: np.ndarray) -> Frame:
        pts = np.vstack([np.zeros(3), chain.positions(y)])
        idx = np.arange(chain.n + 1)
        q, w = chain.split(y)
        pd = {"angular_velocity": np.vstack([np.zeros(3), w]), "direction": np.vstack([np.zeros(3), q])}
        return Frame(pts, [("line", np.stack([idx[:-1], idx[1:]], axis=1))], pd, {})

    def arrays(sol: Solution) -> dict[str, Any]:
        ys = np.asarray(sol.y)
        return {"t": sol.t, "y": ys, "positions": np.array([chain.positions(y) for y in ys])}

    return Problem(chain, y0, frame, arrays,
                   summary=lambda sol: {"unit_q_max": float(sol.summary["unit_q"]["max"]),
                                        "q_dot_w_max": float(sol.summary["q_dot_w"]["max"])},
                   work_bytes=WORK_BYTES_PER_LINK * chain.n)


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the chain; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/pendulum-components.png: seed 000 Fig. 9, the six components of (q_i, w_i) of the first links (at
    most four) over time at the saved states (every accepted step with the case's defaults), and Fig. 11 (a), the
    accepted steps of the run against t (rejected trial steps marked)."""
    from lgbeam.apps._figures import load_run, new_figure, save

    sol, _ = load_run(run_dir)
    t = sol["t"]
    y = sol["y"].reshape(len(t), -1, 2, 3)
    n = min(y.shape[1], 4)
    fig = new_figure(5 * (n + 1), 3.8)
    for i in range(n):
        a = fig.add_subplot(1, n + 1, i + 1)
        for k, c in enumerate("xyz"):
            a.plot(t, y[:, i, 0, k], "-", color=f"C{k}", lw=0.8, label=f"q{i + 1}⁽{k + 1}⁾")
            a.plot(t, y[:, i, 1, k], "--", color=f"C{k}", lw=0.8, label=f"w{i + 1}⁽{k + 1}⁾")
        a.set(xlabel="t", title=f"Fig. 9: components of (q{i + 1}, w{i + 1})")
        a.legend(fontsize=6, ncol=2)
    a = fig.add_subplot(1, n + 1, n + 1)
    full = _all_rows(run_dir)
    acc = (full["accepted"] > 0.5) & (full["h"] > 0)
    a.semilogy(full["t"][acc], full["h"][acc], ".-", ms=2, lw=0.5, label=f"accepted ({int(acc.sum())})")
    rej = full["accepted"] < 0.5
    if rej.any():
        a.semilogy(full["t"][rej], full["h"][rej], "x", color="C3", ms=4, label=f"rejected ({int(rej.sum())})")
    a.set(xlabel="t", ylabel="h", title="Fig. 11 (a): step sizes")
    a.legend(fontsize=7)
    return [save(fig, run_dir, "pendulum-components.png")]


def _all_rows(run_dir: Path) -> dict[str, np.ndarray]:
    """Every row of diagnostics.csv (accepted and rejected trial steps)."""
    from lgbeam.io.plots import read_diagnostics

    return read_diagnostics(Path(run_dir) / "diagnostics.csv")


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """2-norm of the state difference in R^{6N} at the reference's final time (seed 000's error measure)."""
    k = index_at_reference_end(solution, reference)
    return {"state": float(np.linalg.norm(np.asarray(solution["y"])[k] - np.asarray(reference["y"])[-1]))}
