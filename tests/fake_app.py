"""A tiny app for the io/cli tests: a rigid polyline swinging as a pendulum in the x-y plane.

θ'' = -(g/L) sin θ is integrated with explicit Euler (order 1) or the explicit midpoint rule
(order 2), so a time-step study must show slopes 1 and 2. The rod of ``n_nodes`` nodes is the line
from the origin at angle θ; its frames rotate about z. Output follows the app contract: solution.npz,
diagnostics.csv, paraview/<name>.pvd.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.io.progress import Progress
from lgbeam.io.schema import Key
from lgbeam.io.vtk import PVDSeries, rod_frame

SCHEMA = {
    "kind": Key(str, doc="app kind"),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one line"),
    "integrator": {
        "method": Key(str, "midpoint", choices=("euler", "midpoint")),
        "h": Key(float, 0.01, doc="step size"),
    },
    "time": {"t0": Key(float, 0.0), "t_end": Key(float, 1.0)},
    "model": {"n_nodes": Key(int, 6), "theta0": Key(float, 1.0), "g_over_l": Key(float, 1.0)},
    "output": {"every": Key(float, 0.1), "vtk": Key(bool, True)},
    "debug": {"sleep": Key(float, 0.0, doc="seconds to sleep per step (signal tests)"),
              "catch_interrupt": Key(bool, False, doc="return status 'interrupted' instead of raising")},
}


def _rhs(y, c):
    return np.array([y[1], -c * np.sin(y[0])])


def _state_frames(theta: np.ndarray, n: int):
    s = np.linspace(0.0, 1.0, n)
    pos = np.stack([np.cos(theta)[:, None] * s, np.sin(theta)[:, None] * s, np.zeros((theta.size, n))], -1)
    c, sn, z, o = np.cos(theta), np.sin(theta), np.zeros_like(theta), np.ones_like(theta)
    R = np.stack([np.stack([c, -sn, z], -1), np.stack([sn, c, z], -1), np.stack([z, z, o], -1)], -2)
    return pos, np.broadcast_to(R[:, None], (theta.size, n, 3, 3)).copy()


def run(case, run_dir: Path, *, progress: bool = False) -> RunSummary:
    h, method = case["integrator"]["h"], case["integrator"]["method"]
    t0, t_end, c = case["time"]["t0"], case["time"]["t_end"], case["model"]["g_over_l"]
    n, every = case["model"]["n_nodes"], case["output"]["every"]
    n_steps = round((t_end - t0) / h)
    save_stride = max(1, round(every / h))
    y = np.array([case["model"]["theta0"], 0.0])
    ts, ys, diag = [t0], [y.copy()], []
    bar = Progress(t0, t_end, progress)
    series = PVDSeries(Path(run_dir) / "paraview" / f"{case['name']}.pvd") if case["output"]["vtk"] else None

    def save(t, y):
        if series is not None:
            pos, R = _state_frames(np.array([y[0]]), n)
            series.write_frame(t, rod_frame(pos[0], R[0], radius=0.03, velocity=np.zeros((n, 3)),
                                            cell_data={"K": np.zeros((n - 1, 3))}))

    status = "ok"
    try:
        save(t0, y)
        for k in range(n_steps):
            t = t0 + k * h
            if method == "euler":
                y = y + h * _rhs(y, c)
            else:
                y = y + h * _rhs(y + 0.5 * h * _rhs(y, c), c)
            energy = 0.5 * y[1] ** 2 - c * np.cos(y[0])
            diag.append((t + h, h, energy, 0.0))
            bar.update(t + h, h, k + 1, 0)
            if (k + 1) % save_stride == 0 or k + 1 == n_steps:
                ts.append(t + h)
                ys.append(y.copy())
                save(t + h, y)
            if case["debug"]["sleep"]:
                time.sleep(case["debug"]["sleep"])
    except KeyboardInterrupt:
        status = "interrupted"
        if not case["debug"]["catch_interrupt"]:
            raise
    finally:
        bar.close()
        if series is not None:
            series.close()
        Y = np.array(ys)
        pos, R = _state_frames(Y[:, 0], n)
        np.savez(Path(run_dir) / "solution.npz", t=np.array(ts), s=np.linspace(0.0, 1.0, n), positions=pos, rotations=R,
                 lam=np.zeros((len(ts), 0)), q=Y[:, :1], v=Y[:, 1:], group="Rn")
        np.savetxt(Path(run_dir) / "diagnostics.csv", np.array(diag).reshape(-1, 4), delimiter=",",
                   header="t,h,energy,phi", comments="")
    return RunSummary(status=status, n_steps=n_steps, t_final=ts[-1])


def errors(solution, reference) -> dict[str, float]:
    """Position and rotation errors at the reference's final time."""
    return {
        "position": float(np.max(np.abs(solution["positions"][-1] - reference["positions"][-1]))),
        "rotation": float(np.max(np.abs(solution["rotations"][-1] - reference["rotations"][-1]))),
    }


PEND_TOML = """kind = "fake"
description = "a swinging polyline (test app)"

[integrator]
method = "euler"
h = 0.01

[output]
every = 0.1
"""


def install(monkeypatch, tmp_path: Path) -> Path:
    """Register this module as kind "fake" and a cases folder holding ``pend.toml``; return that folder."""
    import sys

    import lgbeam.apps

    here = str(Path(__file__).parent)
    if here not in sys.path:
        monkeypatch.syspath_prepend(here)
    monkeypatch.setitem(lgbeam.apps.APPS, "fake", "fake_app")
    cases = tmp_path / "cases"
    cases.mkdir(exist_ok=True)
    (cases / "pend.toml").write_text(PEND_TOML)
    monkeypatch.setenv("LGBEAM_CASES", str(cases))
    return cases
