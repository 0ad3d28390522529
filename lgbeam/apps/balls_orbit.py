"""The ``balls-orbit`` case kind: seed 003 ch. 3's rigid body of three balls in a central 1/r field (the
orbit–attitude problem), integrated by the methods for ``RigidBodyInField``: ``lgvi`` (the quaternion Lie group
variational integrator (3.23)), ``rattle-so3``, ``shake-quat``, ``lg-stormer-verlet`` (docs/rigid-bodies.md).

Defaults: seed 003 §3.6 (Figs 3.2–3.3): x₀ = (8, 0, 0), q₀ = 1, p₀ = (0, 1, 0), w₀ = 2Π₀ = (1, 2, 3), LGVI at
h = 0.01 on [0, 1000] (10⁵ steps, about 75 s of CPU). Notes B.10 (independent re-implementation, sampled every
100 steps): max |E − E₀| = 1.88e-7 (bounded), max | |q| − 1 | = 4.3e-14, max |L − L₀| = 8.2e-9
(tests/test_seed_cases_lie.py).

Writes solution.npz (t; x, q, p, Pi; positions (n_t, 1, 3) the centre of mass and rotations (n_t, 1, 3, 3);
balls (n_t, n_balls, 3); energy, unit_norm, angular_momentum (n_t, 3) at the saved times; period, the first
orbital period found), diagnostics.csv (per step: energy, | |q| − 1 |, the total angular momentum x × p + RΠ
(L_x, L_y, L_z)), a ParaView series (the centre of mass as a vertex carrying the body frame, the balls as
points joined to it by lines, the attracting centre at the origin) and figures/balls-orbit.png (Fig. 3.2: the
orbit of the centre of mass and the body over its first orbit; Fig. 3.3: energy, unit-norm and momentum errors).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._bodies import content
from lgbeam.apps._figures import load_run, new_figure, save
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.groups.base import quat_to_matrix
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.models.orbit_attitude import THREE_BALLS, BallsInCentralField, pack, unpack
from lgbeam.solve import Solution
from lgbeam.systems import RigidBodyInField

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("balls-orbit",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "balls": Key(list, THREE_BALLS.tolist(), doc="ball centres ρ_i in the body frame (n × 3, mean 0: the body "
                     "origin is the centre of mass); default the thesis' equilateral triangle of circumradius 1"),
        "ball_mass": Key(float, 1.0, doc="mass of each ball"),
        "ball_radius": Key(float, 0.1, doc="radius of each (uniform) ball"),
    },
    "initial": {
        "x": Key(list, [8.0, 0.0, 0.0], doc="centre of mass x₀"),
        "q": Key(list, [1.0, 0.0, 0.0, 0.0], doc="attitude quaternion q₀ (scalar first, unit)"),
        "p": Key(list, [0.0, 1.0, 0.0], doc="linear momentum p₀ = m x'"),
        "w": Key(list, [1.0, 2.0, 3.0], doc="the thesis' w₀ = 2Π₀ (Π the body angular momentum)"),
    },
    "integrator": integrator_section(tuple(methods_for(RigidBodyInField)), "lgvi", h=0.01, rtol=None, atol=None),
    "time": time_section(1000.0),
    "output": output_section(1.0),
}


def _vec(value: Any, n: int, key: str) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"case key '{key}' must be {n} finite numbers, got {value!r}")
    return arr


def build(case: dict[str, Any]) -> tuple[BallsInCentralField, np.ndarray]:
    """(model, y0) of a validated case; ValueError (exit 2) for inconsistent data."""
    m, ini = case["model"], case["initial"]
    try:
        model = BallsInCentralField(np.asarray(m["balls"], dtype=float), float(m["ball_mass"]), float(m["ball_radius"]))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"model.balls / ball_mass / ball_radius: {exc}") from None
    q = _vec(ini["q"], 4, "initial.q")
    if abs(np.linalg.norm(q) - 1) > 1e-12:
        raise ValueError(f"initial.q must be a unit quaternion (|q| = 1 to 1e-12), got |q| = {np.linalg.norm(q):.6g}")
    x = _vec(ini["x"], 3, "initial.x")
    if np.any(np.linalg.norm(x + model.rho @ quat_to_matrix(q).T, axis=1) <= model.ball_radius):
        raise ValueError("initial.x puts a ball on the attracting centre (|x + Rρ_i| ≤ ball_radius); move the body")
    return model, pack(x, q, _vec(ini["p"], 3, "initial.p"), _vec(ini["w"], 3, "initial.w") / 2)


def problem(case: dict[str, Any]) -> Problem:
    """The orbiting body of a validated case as a ``Problem`` for the runner."""
    model, y0 = build(case)
    nb = len(model.rho)

    def diagnostics(t: float, y: np.ndarray) -> dict[str, float]:
        L = model.angular_momentum(y)
        x, q = y[:3], y[3:7]
        e, u = model.energy(y), model.potential(x, quat_to_matrix(q / np.linalg.norm(q)))
        return {"energy": e, "energy_scale": content(e, u), "unit_norm": abs(float(np.linalg.norm(y[3:7])) - 1.0),
                "L_x": float(L[0]), "L_y": float(L[1]), "L_z": float(L[2])}

    def frame(y: np.ndarray):  # type: ignore[no-untyped-def]
        from lgbeam.io.vtk import linked_bodies_frame

        x, q, p, _Pi = unpack(y)
        R = quat_to_matrix(q)
        balls = x + model.rho @ R.T
        links = np.stack([np.zeros(nb, dtype=int), np.arange(1, nb + 1)], axis=1)
        vel = np.zeros((nb + 2, 3))
        vel[0] = p / model.mass
        return linked_bodies_frame(x[None], R[None], links, points=np.vstack([balls, np.zeros((1, 3))]),
                                   point_data={"velocity": vel})

    def arrays(sol: Solution) -> dict[str, Any]:
        ys = np.asarray(sol.y)
        x, q, p, Pi = unpack(ys)
        R = quat_to_matrix(q)
        return {"t": sol.t, "x": x, "q": q, "p": p, "Pi": Pi, "positions": x[:, None], "rotations": R[:, None],
                "balls": x[:, None] + np.einsum("kij,bj->kbi", R, model.rho),
                "energy": np.array([model.energy(y) for y in ys]), "unit_norm": np.abs(np.linalg.norm(q, axis=1) - 1),
                "angular_momentum": np.array([model.angular_momentum(y) for y in ys]),
                "period": _first_period(np.asarray(sol.t), x)}

    def summary(sol: Solution) -> dict[str, Any]:
        s = sol.summary
        return {"energy_error_max": float(max(s["energy"]["max"] - s["energy"]["first"],
                                              s["energy"]["first"] - s["energy"]["min"])),
                "unit_norm_max": float(s["unit_norm"]["max"]),
                "momentum_error_max": float(max(max(s[k]["max"] - s[k]["first"], s[k]["first"] - s[k]["min"])
                                                for k in ("L_x", "L_y", "L_z")))}

    return Problem(model, y0, frame, arrays, summary=summary, diagnostics=diagnostics)


def _first_period(t: np.ndarray, x: np.ndarray) -> float:
    """The time of the first full turn of the centre of mass about the origin (NaN if it has not turned once)."""
    angle = np.unwrap(np.arctan2(x[:, 1], x[:, 0]))
    turned = np.nonzero(np.abs(angle - angle[0]) >= 2 * np.pi)[0]
    if turned.size == 0:
        return float("nan")
    k = int(turned[0])
    a0, a1 = abs(angle[k - 1] - angle[0]), abs(angle[k] - angle[0])
    return float(t[k - 1] + (2 * np.pi - a0) / (a1 - a0) * (t[k] - t[k - 1]))


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the body; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/balls-orbit.png: seed 003 Fig. 3.2 (a) the orbit of the centre of mass, (b) the body over one
    orbit (the balls and rods at 12 instants, drawn 3× larger about the centre of mass), and Fig. 3.3 (c) the
    energy error, (d) | |q| − 1 |, (e) the error of each angular-momentum component."""
    sol, diag = load_run(run_dir)
    t, x, balls = sol["t"], sol["x"], sol["balls"]
    fig = new_figure(15, 7.5)
    a = fig.add_subplot(2, 3, 1)
    a.plot(x[:, 0], x[:, 1], lw=0.5)
    a.plot([0], [0], "k*", ms=8, label="attracting centre")
    a.set(xlabel="x", ylabel="y", title=f"Fig. 3.2 (a): centre of mass on [{t[0]:g}, {t[-1]:g}]")
    a.set_aspect("equal", adjustable="datalim")
    a.legend(fontsize=7)
    b = fig.add_subplot(2, 3, 2)
    period = float(sol["period"])
    end = period if np.isfinite(period) else t[-1]
    one = t <= end + 1e-12
    b.plot(x[one, 0], x[one, 1], "k-", lw=0.5)
    for k in np.unique(np.linspace(0, one.sum() - 1, 12).astype(int)):
        c = x[k, :2]
        pts = c + 3.0 * (balls[k, :, :2] - c)
        for i, p in enumerate(pts):
            b.plot([c[0], p[0]], [c[1], p[1]], "-", color="0.4", lw=0.8)
            b.plot([p[0]], [p[1]], "o", ms=4, color=f"C{i % 10}")
    b.plot([0], [0], "k*", ms=8)
    b.set(xlabel="x", ylabel="y", title="Fig. 3.2 (b): the body over one orbit" +
          (f" (T = {period:.4g})" if np.isfinite(period) else " (less than one orbit run)"))
    b.set_aspect("equal", adjustable="datalim")
    td = diag["t"]
    c = fig.add_subplot(2, 3, 4)
    c.plot(td, diag["energy"] - diag["energy"][0], lw=0.5)
    c.set(xlabel="t", title="Fig. 3.3 (a): E − E₀")
    d = fig.add_subplot(2, 3, 5)
    d.plot(td, diag["unit_norm"], lw=0.5)
    d.set(xlabel="t", title="Fig. 3.3 (b): | |q| − 1 |")
    e = fig.add_subplot(2, 3, 6)
    for key in ("L_x", "L_y", "L_z"):
        e.plot(td, diag[key] - diag[key][0], lw=0.5, label=key)
    e.set(xlabel="t", title="Fig. 3.3 (c): L − L₀ (components)")
    e.legend(fontsize=7)
    f = fig.add_subplot(2, 3, 3)
    f.plot(t, np.linalg.norm(x, axis=1), lw=0.7)
    f.set(xlabel="t", ylabel="|x|", title="distance from the centre")
    return [save(fig, run_dir, "balls-orbit.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Errors at the reference's final time: centre of mass, attitude (max entry of R), momenta."""
    k = index_at_reference_end(solution, reference)

    def at(d: dict[str, Any], key: str, i: int) -> np.ndarray:
        return np.asarray(d[key])[i]

    return {"position": float(np.abs(at(solution, "x", k) - at(reference, "x", -1)).max()),
            "rotation": float(np.abs(at(solution, "rotations", k) - at(reference, "rotations", -1)).max()),
            "momentum": float(max(np.abs(at(solution, "p", k) - at(reference, "p", -1)).max(),
                                  np.abs(at(solution, "Pi", k) - at(reference, "Pi", -1)).max()))}
