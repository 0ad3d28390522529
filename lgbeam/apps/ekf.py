"""The ``ekf`` case kind: seed 003 §5.5's planar SLAM experiment — one trajectory, landmark field and
sensor set-up, ``realisations`` seeded Monte-Carlo runs of the EKF, the first-estimates EKF and the
reduced EKF (``lgbeam.estimation``).

Writes ``solution.npz`` (``t``; ``pose_true (n_t, 3)``; per filter ``pose_<f>``, ``pose_std_<f>``; the
error histories ``dp_<f>``, ``dth_<f>`` (first realisation) and the means over realisations
``dp_mean_<f>``, ``dth_mean_<f>``, ``nees_<f>``; ``landmarks``; ``positions (n_t, 4, 3)`` = truth and
the three estimates, for the generic trajectory figure), ``diagnostics.csv`` (t and the three filters'
position and heading errors) and ``paraview/<name>.pvd``: per saved time the true and estimated robot
as vertices with their frames, plus the landmark field.

``errors(solution, reference)`` returns each filter's mean position and heading error against the
simulated truth stored in the solution itself (the truth is exact, so the reference run is not
needed); ``lgbeam study ekf-circle --vary sensor.q_z=1e-4,2e-4,4e-4`` therefore fits the growth of
the errors with ``Q_z``.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.estimation.filters import FILTERS, pose_errors, run_filter
from lgbeam.estimation.montecarlo import RunSpec, Setting
from lgbeam.estimation.planar import rot2
from lgbeam.estimation.simulate import (
    TRAJECTORY_KINDS,
    LandmarkField,
    Odometry,
    Scenario,
    StereoCamera,
    make_trajectory,
    simulate,
)
from lgbeam.io.atomic import atomic_write
from lgbeam.io.schema import Key

logger = logging.getLogger(__name__)

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("ekf",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "trajectory": {
        "kind": Key(str, "circle", doc="line | circle | spline"),
        "length": Key(float, 60.0, doc="line length (m)"),
        "radius": Key(float, 10.0, doc="circle radius (m)"),
        "laps": Key(float, 1.0, doc="circle laps"),
        "speed": Key(float, None, doc="speed (m/s); default 1 (line), π/2 (circle)"),
        "segment_time": Key(float, 2.5, doc="spline: time per waypoint segment (s)"),
    },
    "landmarks": {"features_per_step": Key(float, 20.0, doc="mean number of visible landmarks per step (> 0)")},
    "sensor": {
        "q_z": Key(float, 1e-4, doc="bearing noise variance Q_z (rad²)"),
        "range": Key(float, 5.0, doc="maximum landmark distance (m, > 0)"),
        "fov_deg": Key(float, 120.0, doc="field of view of each camera (degrees)"),
        "baseline": Key(float, 0.5, doc="stereo baseline (m)"),
        "model": Key(str, "stereo", doc="stereo (triangulated bearings) | gaussian (unbiased ablation)",
                     choices=("stereo", "gaussian")),
    },
    "odometry": {
        "rate_hz": Key(float, 10.0, doc="odometry and camera rate (Hz)"),
        "q_v": Key(list, [0.01, 0.01], doc="velocity noise variances Q_v ((m/s)²)"),
        "q_w": Key(float, 0.01, doc="turn-rate noise variance Q_w ((rad/s)²)"),
    },
    "filters": Key(list, list(FILTERS), doc="filters to run: ekf, fej, reduced"),
    "monte_carlo": {
        "realisations": Key(int, 1, doc="number of seeded realisations"),
        "seed": Key(int, 2019, doc="base seed"),
    },
    "time": {"t_end": Key(float, None, doc="stop time (s); default: the whole trajectory")},
    "output": {"every": Key(float, 1.0, doc="save interval (s)"), "vtk": Key(bool, True, doc="write ParaView files"),
               "max_memory_gb": Key(float, 8.0, doc="refuse a run whose estimated memory exceeds this (GiB)")},
}


def check_size(case: dict[str, Any], scenario: Scenario) -> None:
    """Refuse, before anything is simulated, a scenario whose working memory exceeds output.max_memory_gb: the
    simulation holds every landmark in every body frame ((K + 1) × L × 2 numbers and their masks, about six
    such arrays), the filters a dense (3 + 2m)² covariance of the m visible landmarks and its products."""
    from lgbeam.apps._runner import check_work

    K = scenario.n_steps
    T = K / scenario.odometry.rate_hz
    path = scenario.trajectory.pose(np.linspace(0.0, T, min(K + 1, 10_001)))[:, :2]
    w = scenario.camera.max_range + scenario.landmarks.margin
    area = float(np.prod(path.max(axis=0) - path.min(axis=0) + 2 * w))
    n_landmarks = scenario.landmarks.density(scenario.camera) * area
    m = scenario.landmarks.features_per_step
    work = 8.0 * (6.0 * (K + 1) * n_landmarks * 2 + 8.0 * (3 + 2 * m) ** 2)
    check_work(case, work, f"a run of {K} steps with about {n_landmarks:.3g} landmarks ({m:g} visible a step)",
               "shorten the trajectory (time.t_end, trajectory.laps / length) or lower landmarks.features_per_step")


def build(case: dict[str, Any]) -> tuple[Scenario, tuple[str, ...]]:
    """The scenario and filter list of a validated case; ValueError for anything inconsistent."""
    tr, lm, se, od = case["trajectory"], case["landmarks"], case["sensor"], case["odometry"]
    if tr["kind"] not in TRAJECTORY_KINDS:
        raise ValueError(f"case key 'trajectory.kind' = {tr['kind']!r} is not a trajectory; choose one of "
                         f"{', '.join(TRAJECTORY_KINDS)}")
    traj = make_trajectory(tr["kind"], length=tr["length"], speed=tr.get("speed"), radius=tr["radius"],
                           laps=tr["laps"], segment_time=tr["segment_time"])
    q_v = np.asarray(od["q_v"], dtype=float)
    if q_v.shape != (2,):
        raise ValueError(f"case key 'odometry.q_v' must be 2 variances, got {od['q_v']!r}")
    filters = tuple(case["filters"])
    bad = [f for f in filters if f not in FILTERS]
    if bad or not filters:
        raise ValueError(f"case key 'filters' must list some of {', '.join(FILTERS)}; got {case['filters']!r}")
    t_end = case["time"].get("t_end")
    if t_end is not None and not t_end > 0:
        raise ValueError(f"case key 'time.t_end' must be > 0, got {t_end}")
    if case["monte_carlo"]["realisations"] < 1:
        raise ValueError("case key 'monte_carlo.realisations' must be at least 1")
    if not case["output"]["every"] > 0:
        raise ValueError(f"case key 'output.every' must be > 0, got {case['output']['every']}")
    scenario = Scenario(
        trajectory=traj, odometry=Odometry(rate_hz=od["rate_hz"], q_v=(float(q_v[0]), float(q_v[1])), q_w=od["q_w"]),
        camera=StereoCamera(bearing_var=se["q_z"], max_range=se["range"], fov_deg=se["fov_deg"],
                            baseline=se["baseline"], model=se["model"]),
        landmarks=LandmarkField(features_per_step=lm["features_per_step"]), t_end=t_end)
    return scenario, filters


def _rng(case: dict[str, Any], realisation: int) -> np.random.Generator:
    """The Monte-Carlo harness's seeding (same data as the study for the same trajectory, density, rate)."""
    s = Setting(case["trajectory"]["kind"], case["landmarks"]["features_per_step"], case["odometry"]["rate_hz"],
                case["sensor"]["q_z"])
    return RunSpec(s, realisation, seed=case["monte_carlo"]["seed"]).rng()


def _rot3(theta: np.ndarray) -> np.ndarray:
    R = np.zeros(theta.shape + (3, 3))
    R[..., :2, :2] = rot2(theta)
    R[..., 2, 2] = 1.0
    return R


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False) -> RunSummary:
    """Run the realisations; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    scenario, filters = build(case)
    check_size(case, scenario)
    run_dir = Path(run_dir)
    n_real = case["monte_carlo"]["realisations"]
    first: dict[str, Any] = {}
    means = {f: np.zeros(3) for f in filters}
    for i in range(n_real):
        data = simulate(scenario, _rng(case, i))
        for f in filters:
            res = run_filter(f, data)
            dp, dth = pose_errors(res, data)
            e = res.pose[1:] - data.pose[1:]
            nees = np.mean([ei @ np.linalg.solve(ci, ei) for ei, ci in zip(e, res.pose_cov[1:])])
            means[f] += np.array([dp[1:].mean(), dth[1:].mean(), nees]) / n_real
            if i == 0:
                first[f] = (res, dp, dth)
        if i == 0:
            data0 = data
    stride = max(1, round(case["output"]["every"] / data0.dt))
    keep = np.unique(np.r_[np.arange(0, data0.t.size, stride), data0.t.size - 1])
    t = data0.t[keep]
    out: dict[str, Any] = {"t": t, "pose_true": data0.pose[keep], "landmarks": data0.landmarks,
                           "filters": np.array(filters)}
    positions = [np.column_stack([data0.pose[keep, :2], np.zeros(keep.size)])]
    for f in filters:
        res, dp, dth = first[f]
        out[f"pose_{f}"] = res.pose[keep]
        out[f"pose_std_{f}"] = np.sqrt(np.diagonal(res.pose_cov[keep], axis1=1, axis2=2))
        out[f"dp_{f}"], out[f"dth_{f}"] = dp[keep], dth[keep]
        out[f"dp_mean_{f}"], out[f"dth_mean_{f}"], out[f"nees_{f}"] = means[f]
        positions.append(np.column_stack([res.pose[keep, :2], np.zeros(keep.size)]))
    out["positions"] = np.stack(positions, axis=1)
    with atomic_write(run_dir / "solution.npz") as fh:
        np.savez(fh, **out)
    with atomic_write(run_dir / "diagnostics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["t", *(f"dp_{f}" for f in filters), *(f"dth_{f}" for f in filters)])
        for k in range(data0.t.size):
            w.writerow([f"{data0.t[k]:.6g}", *(f"{first[f][1][k]:.6g}" for f in filters),
                        *(f"{first[f][2][k]:.6g}" for f in filters)])
    if case["output"]["vtk"]:
        _write_vtk(run_dir / "paraview" / f"{case['name']}.pvd", out, filters)
    summary = {f: {"dp": float(means[f][0]), "dth": float(means[f][1]), "nees": float(means[f][2])} for f in filters}
    logger.info("ekf %s: %s", case["name"], summary)
    return RunSummary(status="ok", n_steps=data0.n_steps, t_final=float(data0.t[-1]),
                      extra={"realisations": n_real, "mean_errors": summary,
                             "visible_per_step": data0.visible_per_step})


def _write_vtk(pvd: Path, out: dict[str, Any], filters: tuple[str, ...]) -> None:
    from lgbeam.io.vtk import Frame, PVDSeries

    lm = out["landmarks"]
    n_lm = lm.shape[0]
    with PVDSeries(pvd) as series:
        for k, t in enumerate(out["t"]):
            poses = [out["pose_true"][k]] + [out[f"pose_{f}"][k] for f in filters]
            pts = np.vstack([np.column_stack([np.array(poses)[:, :2], np.zeros(len(poses))]),
                             np.column_stack([lm, np.zeros(n_lm)])])
            R = _rot3(np.array(poses)[:, 2])
            n = pts.shape[0]
            heading = np.zeros((n, 3))
            heading[: len(poses)] = R[:, :, 0]
            which = np.r_[np.arange(len(poses)), np.full(n_lm, -1)].astype(float)  # 0 truth, 1.. filters, -1 landmark
            series.write_frame(float(t), Frame(pts, [("vertex", np.arange(n)[:, None])],
                                               {"heading": heading, "body": which}, {}))


def figures(run_dir: Path) -> list[Path]:
    """figures/ekf-paths.png: seed 003 Figs 5.1/5.3/5.5 — the true path, each filter's estimated path (first
    realisation) and the landmarks, x horizontal, y vertical, equal scale; beside it each filter's position
    error over time (the Tables 5.1–5.6 quantity)."""
    from lgbeam.apps._figures import new_figure, save

    with np.load(Path(run_dir) / "solution.npz", allow_pickle=False) as z:
        sol = {k: z[k] for k in z.files}
    filters = [str(f) for f in sol["filters"]]
    fig = new_figure(13, 5.5)
    a = fig.add_subplot(1, 2, 1)
    lm = sol["landmarks"]
    a.plot(lm[:, 0], lm[:, 1], ".", color="0.6", ms=2, label=f"landmarks ({len(lm)})")
    a.plot(sol["pose_true"][:, 0], sol["pose_true"][:, 1], "k-", lw=1.5, label="true path")
    for i, f in enumerate(filters):
        p = sol[f"pose_{f}"]
        a.plot(p[:, 0], p[:, 1], "--", color=f"C{i}", lw=1.0, label=f"{f} estimate")
    a.plot(sol["pose_true"][:1, 0], sol["pose_true"][:1, 1], "ko", ms=5)
    a.set(xlabel="x [m]", ylabel="y [m]", title="Figs 5.1/5.3/5.5: true and estimated paths, landmarks")
    a.set_aspect("equal", adjustable="datalim")
    a.legend(fontsize=7)
    b = fig.add_subplot(1, 2, 2)
    for i, f in enumerate(filters):
        b.plot(sol["t"], sol[f"dp_{f}"], color=f"C{i}", lw=0.8, label=f)
    b.set(xlabel="t [s]", ylabel="position error [m]", title="position error, first realisation")
    b.legend(fontsize=7)
    return [save(fig, run_dir, "ekf-paths.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Each filter's mean position (m) and heading (rad) error against the simulated truth (see the module
    docstring; ``reference`` is accepted for the study interface and not used)."""
    return {f"{key}_{f}": float(np.asarray(solution[f"{key}_mean_{f}"]))
            for f in np.asarray(solution["filters"]).tolist() for key in ("dp", "dth")}
