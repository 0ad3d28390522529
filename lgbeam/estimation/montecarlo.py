"""Monte-Carlo realisations of seed 003 §5.5: settings, seeded runs of the three filters, metrics.

A :class:`Setting` is one cell group of Tables 5.1–5.6 (trajectory, landmark density, rate, ``Q_z``);
:func:`run_realisation` simulates one realisation of it and runs every filter on the *same* data (as
the thesis does). The seed of a realisation depends on (base seed, trajectory, density, rate,
realisation) but not on ``Q_z``, so the three noise levels share landmarks, odometry and noise
directions (common random numbers: the ``Q_z`` trend is not masked by field-to-field scatter).
Parallel execution is the caller's business (``lgbeam.studies.parallel.map_runs``).

Metrics per filter and realisation: time means over ``k = 1..K`` of the position error ``|p̂ − p|``
(m) and heading error ``|θ̂ − θ|`` (rad) — the thesis's "average position / orientation error" —,
the final errors, and the mean pose NEES ``eᵀ Σ⁻¹ e`` (3 for a consistent filter). Beside the filters,
every realisation reports dead reckoning (the odometry integrated by (5.10) alone, no landmarks): the
error a filter that draws no information from the camera would have.

The reduced/EKF ratios of the tables are ratios of means over the realisations; their spread is given
by a paired bootstrap over the realisations (:func:`ratio_intervals`).

References
----------
Shen, X. (2019), PhD thesis, UCSD, §5.5 and Tables 5.1–5.6 (seed 003).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.estimation.filters import FILTERS, pose_errors, run_filter
from lgbeam.estimation.planar import wrap_angle
from lgbeam.estimation.simulate import (
    TRAJECTORY_KINDS,
    Dataset,
    LandmarkField,
    Odometry,
    Scenario,
    StereoCamera,
    make_trajectory,
    simulate,
)

logger = logging.getLogger(__name__)

__all__ = ["FEATURES", "RunSpec", "Setting", "dead_reckoning", "ratio_intervals", "run_realisation", "summarise",
           "table_settings"]

FEATURES: dict[str, tuple[float, float]] = {"line": (20.0, 40.0), "circle": (20.0, 40.0), "spline": (25.0, 50.0)}
"""Low and high mean numbers of visible landmarks per step of each trajectory (§5.5)."""


@dataclass(frozen=True)
class Setting:
    """One experiment: trajectory kind, mean visible landmarks per step, rate (Hz) and ``Q_z`` (rad²)."""

    trajectory: str
    features_per_step: float
    rate_hz: float
    q_z: float
    t_end: float | None = None
    camera_model: str = "stereo"
    segment_time: float = 2.5
    odometry_noise: str = "sample"
    odometry_sample_at: str = "start"

    def __post_init__(self) -> None:
        if self.trajectory not in TRAJECTORY_KINDS:
            raise ValueError(f"unknown trajectory kind {self.trajectory!r}; choose one of {', '.join(TRAJECTORY_KINDS)}")

    def scenario(self) -> Scenario:
        """The simulator's scenario; the last four fields are the sensitivity study's knobs (defaults: the
        tables' set-up), see :class:`~lgbeam.estimation.simulate.Odometry` and ``SplineTrajectory``."""
        od = Odometry(rate_hz=self.rate_hz, noise=self.odometry_noise, sample_at=self.odometry_sample_at)
        return Scenario(trajectory=make_trajectory(self.trajectory, segment_time=self.segment_time), odometry=od,
                        camera=StereoCamera(bearing_var=self.q_z, model=self.camera_model),
                        landmarks=LandmarkField(features_per_step=self.features_per_step), t_end=self.t_end)


@dataclass(frozen=True)
class RunSpec:
    """One realisation of a setting; ``seed`` is the study's base seed."""

    setting: Setting
    realisation: int
    seed: int = 2019
    filters: tuple[str, ...] = FILTERS
    keep_series: bool = False

    def rng(self) -> np.random.Generator:
        s = self.setting
        key = [self.seed, TRAJECTORY_KINDS.index(s.trajectory), round(s.features_per_step * 10),
               round(s.rate_hz * 10), self.realisation]
        return np.random.default_rng(key)


def _nees(pose: FloatArray, cov: FloatArray, truth: FloatArray) -> float:
    e = pose - truth
    e[:, 2] = wrap_angle(e[:, 2])
    return float(np.mean([ei @ np.linalg.solve(ci, ei) for ei, ci in zip(e, cov)]))


def dead_reckoning(data: Dataset) -> FloatArray:
    """The odometry integrated by the nominal update (5.10) from the true initial pose, ``(K + 1, 3)``.

    ``θ_k = θ_0 + Σ_{j<k} w_m^j Δt``, ``p_k = p_0 + Σ_{j<k} R(θ_j) v_m^j Δt`` (vectorised).
    """
    u = data.odometry * data.dt
    th = data.pose[0, 2] + np.concatenate([[0.0], np.cumsum(u[:, 2])])
    c, s = np.cos(th[:-1]), np.sin(th[:-1])
    steps = np.column_stack([c * u[:, 0] - s * u[:, 1], s * u[:, 0] + c * u[:, 1]])
    p = data.pose[0, :2] + np.vstack([np.zeros(2), np.cumsum(steps, axis=0)])
    return np.column_stack([p, th])


def run_realisation(spec: RunSpec) -> dict[str, Any]:
    """Simulate one realisation and run the filters on it.

    Returns
    -------
    dict
        ``{"setting", "realisation", "visible_per_step", "t" (only with keep_series), "dead_reckoning":
        {"dp_mean", "dth_mean"}, "filters": {method: {"dp_mean", "dth_mean", "dp_final", "dth_final",
        "nees_mean", ["dp", "dth"]}}}``; plain floats and arrays, so it pickles to worker processes and back.
    """
    data = simulate(spec.setting.scenario(), spec.rng())
    out: dict[str, Any] = {"setting": spec.setting, "realisation": spec.realisation,
                           "visible_per_step": data.visible_per_step, "filters": {}}
    if spec.keep_series:
        out["t"] = data.t
    dr = dead_reckoning(data)
    out["dead_reckoning"] = {
        "dp_mean": float(np.linalg.norm(dr[1:, :2] - data.pose[1:, :2], axis=1).mean()),
        "dth_mean": float(np.abs(wrap_angle(dr[1:, 2] - data.pose[1:, 2])).mean())}
    for method in spec.filters:
        res = run_filter(method, data)
        dp, dth = pose_errors(res, data)
        row: dict[str, Any] = {"dp_mean": float(dp[1:].mean()), "dth_mean": float(dth[1:].mean()),
                               "dp_final": float(dp[-1]), "dth_final": float(dth[-1]),
                               "nees_mean": _nees(res.pose[1:], res.pose_cov[1:], data.pose[1:])}
        if spec.keep_series:
            row["dp"], row["dth"] = dp, dth
        out["filters"][method] = row
    return out


def summarise(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean and standard deviation over realisations, one row per (setting, filter), in input order."""
    groups: dict[Setting, list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault(r["setting"], []).append(r)
    rows = []
    for s, rs in groups.items():
        for m in rs[0]["filters"]:
            vals = {k: np.array([r["filters"][m][k] for r in rs]) for k in ("dp_mean", "dth_mean", "nees_mean")}
            rows.append({"trajectory": s.trajectory, "features_per_step": s.features_per_step, "rate_hz": s.rate_hz,
                         "q_z": s.q_z, "method": m, "n_runs": len(rs),
                         "visible_per_step": float(np.mean([r["visible_per_step"] for r in rs])),
                         "dp": float(vals["dp_mean"].mean()), "dp_std": float(vals["dp_mean"].std(ddof=1)) if len(rs) > 1 else 0.0,
                         "dth": float(vals["dth_mean"].mean()),
                         "dth_std": float(vals["dth_mean"].std(ddof=1)) if len(rs) > 1 else 0.0,
                         "nees": float(vals["nees_mean"].mean()),
                         "dr_dp": float(np.mean([r["dead_reckoning"]["dp_mean"] for r in rs])),
                         "dr_dth": float(np.mean([r["dead_reckoning"]["dth_mean"] for r in rs]))})
    return rows


def ratio_intervals(results: list[dict[str, Any]], num: str = "reduced", den: str = "ekf", *, n_boot: int = 4000,
                    level: float = 0.95, seed: int = 0) -> dict[Setting, dict[str, tuple[float, float, float]]]:
    """Ratio of means ``mean(num) / mean(den)`` of δp and δθ per setting with a paired bootstrap interval.

    The realisations of a setting are resampled with replacement (the same indices for both filters, which
    ran on the same data), ``n_boot`` times; the interval is the central ``level`` quantile range of the
    resampled ratios. Returns ``{setting: {"dp": (ratio, lo, hi), "dth": (ratio, lo, hi)}}``.
    """
    groups: dict[Setting, list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault(r["setting"], []).append(r)
    rng = np.random.default_rng(seed)
    q = 100 * np.array([(1 - level) / 2, (1 + level) / 2])
    out = {}
    for s, rs in groups.items():
        idx = rng.integers(0, len(rs), size=(n_boot, len(rs)))
        cell = {}
        for key, col in (("dp", "dp_mean"), ("dth", "dth_mean")):
            a = np.array([r["filters"][num][col] for r in rs])
            b = np.array([r["filters"][den][col] for r in rs])
            lo, hi = np.percentile(a[idx].mean(axis=1) / b[idx].mean(axis=1), q)
            cell[key] = (float(a.mean() / b.mean()), float(lo), float(hi))
        out[s] = cell
    return out


def table_settings(trajectories: tuple[str, ...] = TRAJECTORY_KINDS, rates: tuple[float, ...] = (10.0, 20.0),
                   q_zs: tuple[float, ...] = (1e-4, 2e-4, 4e-4), densities: tuple[int, ...] = (0, 1)) -> list[Setting]:
    """The settings of Tables 5.1–5.6 (``densities`` picks the low (0) and/or high (1) field)."""
    return [Setting(tr, FEATURES[tr][d], rate, q) for tr in trajectories for d in densities for rate in rates
            for q in q_zs]
