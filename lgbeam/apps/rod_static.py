"""The static analysis of a rod case (``analysis.kind = "static"``): the load path from the reference to the
loads at ``time.t_end`` times ``analysis.load_factor`` (``rods.statics.solve_static``), written as

    solution.npz      every converged state (t, load_factor, positions, rotations, lam, q, reactions, ...)
    path.csv, path.png   load factor, tip position, iterations, residual, negative eigenvalues, branch per state
    diagnostics.csv   one row per state (t, energy, |Φ|)
    paraview/<name>.pvd  one frame per state (time = the state's index scaled onto [t0, t_end])

The run's status is the path's: "ok" (stable), "unstable" (with the number of negative eigenvalues),
"critical", or "failed" (the message names the load factor and residual; the states up to the last
converged one are written).
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._rod_supports import reaction_arrays, reaction_summary, section_arrays
from lgbeam.apps._runner import write_diagnostics
from lgbeam.discretisations.rods import CosseratRod
from lgbeam.discretisations.rods.statics import StaticPath, solve_static
from lgbeam.io.atomic import atomic_write, write_via

logger = logging.getLogger(__name__)


def settings(case: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``solve_static`` from the case's ``analysis`` section (validated there)."""
    a = case["analysis"]
    return {"method": a["method"], "load_steps": int(a["load_steps"]), "max_cutbacks": int(a["max_cutbacks"]),
            "arc_length": a.get("arc_length"), "max_steps": int(a["max_steps"]), "load_factor": float(a["load_factor"]),
            "tol": float(a["tol"]), "branch_switch": bool(a["branch_switch"]), "stability_check": bool(a["stability"])}


def write_path_csv(path: StaticPath, G: Any, out: Path, node: int = -1, label: str | None = None) -> None:
    """path.csv: one row per converged state (``StaticPath.table`` of ``node``, by default the end node s = L);
    ``label`` (a frame's node name): a last column ``node`` naming the node whose x, y, z the rows hold."""
    table = path.table(G, node)
    keys = list(table)
    with atomic_write(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([*keys, "status", *(["node"] if label is not None else [])])
        for k, row in enumerate(zip(*(table[c] for c in keys))):
            w.writerow([repr(float(x)) for x in row] + [path.states[k].status] + ([label] if label is not None else []))


def plot_path(path: StaticPath, G: Any, out: Path, title: str, node: int = -1,
              label: str = "the end node s = L") -> None:
    """path.png: load factor against the displacement components of ``node`` (named ``label``); unstable states
    marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tab = path.table(G, node)
    mu = tab["load_factor"]
    unstable = tab["n_negative"] > 0
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for c in ("x", "y", "z"):
        u = tab[c] - tab[c][0]
        line, = ax.plot(u, mu, ".-", label=f"u_{c}")
        ax.plot(u[unstable], mu[unstable], "x", color=line.get_color())
    for e in path.events:
        ax.axhline(e.load_factor, color="0.6", lw=0.8, ls="--")
        ax.annotate(f"{e.kind} μ = {e.load_factor:.5g}", (0.02, e.load_factor), xycoords=("axes fraction", "data"),
                    fontsize=8, va="bottom")
    ax.set_xlabel(f"displacement of {label} [length unit of the case]")
    ax.set_ylabel("load factor μ [-]")
    ax.set_title(f"{title}: static path ({path.status}; × unstable states)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    write_via(out, lambda p: fig.savefig(p, dpi=120))
    plt.close(fig)


def run_static(case: dict[str, Any], rod: CosseratRod, q0: np.ndarray, run_dir: Path) -> RunSummary:
    """Solve the static path of a rod case and write the run folder (module docstring)."""
    from lgbeam.io.vtk import PVDSeries

    t0, t1 = float(case["time"]["t0"]), float(case["time"]["t_end"])
    path = solve_static(rod, t=t1, **settings(case))
    G, zero = rod.G, np.zeros(6 * rod.n_nodes)
    n = len(path.states)
    ts = t0 + (t1 - t0) * np.arange(n) / max(n - 1, 1)
    q = np.stack([s.q for s in path.states])
    lam = np.stack([s.lam for s in path.states])
    if case["output"]["vtk"]:
        from lgbeam.apps.paraview_frames import rod_frames

        frame = rod_frames(rod, str(case["name"]))
        with PVDSeries(run_dir / "paraview" / f"{case['name']}.pvd",
                       edges=case["output"].get("edge_data", True)) as series:
            for t, qq, ll in zip(ts, q, lam, strict=True):
                series.write_frame(float(t), frame(qq, zero, ll, t1))
    with atomic_write(run_dir / "solution.npz") as fh:
        np.savez(fh, t=ts, s=rod.mesh.s, positions=G.translation(q), rotations=G.rotation(q), lam=lam, q=q,
                 v=np.zeros((n, zero.size)), group="S3R3", load_factor=np.array([s.load_factor for s in path.states]),
                 n_negative=np.array([s.n_negative for s in path.states]), **reaction_arrays(rod, ts, q, lam),
                 **section_arrays(rod, q, lam))
    write_path_csv(path, G, run_dir / "path.csv")
    plot_path(path, G, run_dir / "path.png", str(case["name"]))
    rec = {"t": ts, "h": np.zeros(n), "accepted": np.ones(n),
           "energy": np.array([rod.energy(t1, qq, zero) for qq in q]),
           "phi": np.array([np.linalg.norm(rod.constraints(qq)) if rod.n_constraints else 0.0 for qq in q]),
           "bv": np.zeros(n)}
    write_diagnostics(run_dir / "diagnostics.csv", rec)
    last = path.final
    status = "ok" if path.status == "ok" else ("failed" if path.status == "failed" else path.status)
    extra = {"tip": G.translation(last.q[-1]).tolist(), "analysis": "static", "load_factor": last.load_factor,
             "n_negative": last.n_negative, "load_steps_taken": path.n_steps, "cutbacks": path.cutbacks,
             "events": [{"kind": e.kind, "load_factor": e.load_factor,
                         "bracket": [e.lower, e.upper] if np.isfinite(e.lower) else None} for e in path.events],
             **reaction_summary(rod, t1, last.q, last.lam)}
    return RunSummary(status=status, message=path.message, n_steps=path.n_steps, n_rejected=path.cutbacks,
                      t_final=t1, extra=extra)
