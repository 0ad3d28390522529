"""Simulator of seed 003 §5.5: a planar robot on a line, circle or spline, odometry, a random landmark
field and a forward-looking stereo pair (two bearing cameras, 120° field of view, 5 m range).

The truth is the continuous trajectory (the line and circle are constant twists, ``pose(t) = pose(0) ·
exp(t ξ)`` in SE(2), evaluated with ``lgbeam.groups.SE2``; the spline is a periodic cubic spline in
time). Odometry samples the body velocity at the start of each step, so the filters' forward-Euler
propagation (5.9)/(5.18) carries the discretisation error the thesis discusses for the spline.

Choices the thesis leaves open ([RECON] in ``shared/notes/003-ch3plus.md`` D.5), made here:

* odometry noise is per sample: ``v_m = v + n_v``, ``n_v ~ N(0, Q_v)``, ``w_m = w + n_w`` (so (5.9)
  puts ``Δt² Q`` on each step);
* cameras at ``(0, ±b/2)`` in the body frame (``b`` = the 0.5 m robot diameter), optical axes along
  the heading; a landmark is seen when it lies within ``max_range`` of the robot centre and inside
  both cameras' field of view; each camera measures the bearing with noise ``N(0, Q_z)``; the two rays
  are intersected and the covariance is first order in the measured bearings;
* a triangulation whose measured disparity is below ``min_disparity`` (the rays nearly parallel) is
  discarded;
* landmarks are uniform (a Poisson field) in the band of half-width ``max_range + 1`` m around the path;
  the density is set from the wanted mean number of visible landmarks per step and the visible area.

References
----------
Shen, X. (2019), PhD thesis, UCSD, §5.5 (seed 003).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Protocol

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.spatial import cKDTree

from lgbeam._typing import FloatArray, IntArray
from lgbeam.estimation.planar import rot2
from lgbeam.groups import SE2

logger = logging.getLogger(__name__)

__all__ = [
    "TRAJECTORY_KINDS",
    "ConstantTwist",
    "Dataset",
    "LandmarkField",
    "Odometry",
    "Scenario",
    "SplineTrajectory",
    "StereoCamera",
    "Trajectory",
    "make_trajectory",
    "simulate",
    "triangulate",
    "triangulation_jacobian",
]

TRAJECTORY_KINDS = ("line", "circle", "spline")


class Trajectory(Protocol):
    """A robot path: pose ``(p, θ)`` and body velocity ``(v_x, v_y, w)`` at times ``t`` (vectorised)."""

    @property
    def duration(self) -> float: ...

    def pose(self, t: FloatArray) -> FloatArray: ...           # (n, 3): x, y, θ

    def body_velocity(self, t: FloatArray) -> FloatArray: ...  # (n, 3): v_x, v_y (body frame), w


@dataclass(frozen=True)
class ConstantTwist:
    """Constant body velocity ``v = (speed, 0)``, angular rate ``w`` from the origin, heading 0.

    ``pose(t) = exp(t ξ)`` in SE(2) with ``ξ = (w, speed, 0)`` — the exact solution of (5.3).
    ``w = 0`` is the thesis's straight line, ``w = speed / radius`` its circle.
    """

    speed: float
    rate: float
    duration: float

    def __post_init__(self) -> None:
        if not (self.speed > 0 and self.duration > 0 and np.isfinite(self.rate)):
            raise ValueError(f"trajectory needs speed > 0, duration > 0 and a finite turn rate; got speed "
                             f"{self.speed}, duration {self.duration}, rate {self.rate}")

    def pose(self, t: FloatArray) -> FloatArray:
        t = np.atleast_1d(np.asarray(t, dtype=float))
        xi = np.stack([self.rate * t, self.speed * t, np.zeros_like(t)], axis=-1)
        X = SE2().exp(xi)
        return np.stack([X[:, 0, 2], X[:, 1, 2], self.rate * t], axis=-1)

    def body_velocity(self, t: FloatArray) -> FloatArray:
        t = np.atleast_1d(np.asarray(t, dtype=float))
        return np.stack([np.full_like(t, self.speed), np.zeros_like(t), np.full_like(t, self.rate)], axis=-1)


DEFAULT_WAYPOINTS: tuple[tuple[float, float], ...] = (
    (0.0, 0.0), (3.0, 0.0), (6.0, 0.0), (9.0, 0.0), (12.0, 0.0), (15.0, 0.0), (20.0, 5.0), (20.0, 8.0),
    (20.0, 11.0), (15.0, 16.0), (12.0, 16.0), (9.0, 16.0), (6.0, 16.0), (3.0, 16.0), (0.0, 16.0), (-5.0, 11.0),
    (-5.0, 8.0), (-5.0, 5.0),
)
"""Closed waypoint loop of the general trajectory ([RECON]: the thesis's figure is lost): a 25 m × 16 m
rounded rectangle with waypoints 3 m apart on the sides and 7.1 m apart across the corners; with
equal times per segment (2.5 s) the speed is 1.2 m/s on the sides and up to 3.2 m/s at the corners,
the turn rate up to 0.97 rad/s (the thesis: "the velocity is very high around corners")."""


@dataclass(frozen=True)
class SplineTrajectory:
    """A periodic cubic spline through ``waypoints`` at equal time intervals ``segment_time``.

    The robot moves forward along the path (non-holonomic): ``θ = atan2(ẏ, ẋ)``, ``v = (|ṗ|, 0)``,
    ``w = (ẋ ÿ − ẏ ẍ) / |ṗ|²``. The thesis's general trajectory (§5.5.3) is a cubic spline with
    "very high speed at corners".
    """

    waypoints: tuple[tuple[float, float], ...] = DEFAULT_WAYPOINTS
    segment_time: float = 2.5

    def __post_init__(self) -> None:
        pts = np.asarray(self.waypoints, dtype=float)
        if pts.ndim != 2 or pts.shape[1] != 2 or pts.shape[0] < 3:
            raise ValueError(f"spline waypoints must be at least 3 (x, y) pairs; got shape {pts.shape}")
        if not self.segment_time > 0:
            raise ValueError(f"spline segment_time must be > 0, got {self.segment_time}")

    @cached_property
    def _spline(self) -> CubicSpline:
        pts = np.asarray(self.waypoints, dtype=float)
        pts = np.vstack([pts, pts[:1]])
        knots = self.segment_time * np.arange(pts.shape[0])
        return CubicSpline(knots, pts, bc_type="periodic")

    @property
    def duration(self) -> float:
        return self.segment_time * len(self.waypoints)

    def _derivs(self, t: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        t = np.atleast_1d(np.asarray(t, dtype=float))
        s = self._spline
        return s(t), s(t, 1), s(t, 2)

    def pose(self, t: FloatArray) -> FloatArray:
        p, dp, _ = self._derivs(t)
        th = np.unwrap(np.arctan2(dp[:, 1], dp[:, 0]))
        return np.column_stack([p, th])

    def body_velocity(self, t: FloatArray) -> FloatArray:
        _, dp, ddp = self._derivs(t)
        speed2 = np.sum(dp**2, axis=1)
        if speed2.min() <= 0.0:
            raise ValueError("spline trajectory stops (|ṗ| = 0); move the waypoints apart")
        w = (dp[:, 0] * ddp[:, 1] - dp[:, 1] * ddp[:, 0]) / speed2
        return np.column_stack([np.sqrt(speed2), np.zeros_like(w), w])


def make_trajectory(kind: str, *, length: float = 60.0, speed: float | None = None, radius: float = 10.0,
                    laps: float = 1.0, segment_time: float = 2.5) -> Trajectory:
    """The thesis's trajectories by name: ``"line"`` (60 m at 1 m/s), ``"circle"`` (r = 10 m at π/2 m/s,
    one lap = 40 s), ``"spline"`` (the general trajectory).

    Raises ValueError for an unknown kind (listing the known ones) or non-positive sizes.
    """
    if kind == "line":
        v = 1.0 if speed is None else speed
        if not (length > 0 and v > 0):
            raise ValueError(f"line trajectory needs length > 0 and speed > 0; got {length}, {v}")
        return ConstantTwist(speed=v, rate=0.0, duration=length / v)
    if kind == "circle":
        v = np.pi / 2 if speed is None else speed
        if not (radius > 0 and v > 0 and laps > 0):
            raise ValueError(f"circle trajectory needs radius, speed and laps > 0; got {radius}, {v}, {laps}")
        return ConstantTwist(speed=v, rate=v / radius, duration=laps * 2 * np.pi * radius / v)
    if kind == "spline":
        return SplineTrajectory(segment_time=segment_time)
    raise ValueError(f"unknown trajectory kind {kind!r}; choose one of {', '.join(TRAJECTORY_KINDS)}")


# ------------------------------------------------------------------------------------------ sensors
@dataclass(frozen=True)
class StereoCamera:
    """Two forward-looking bearing cameras at ``(0, ±baseline/2)`` in the body frame.

    Parameters
    ----------
    bearing_var
        ``Q_z``, variance of each measured bearing (rad²); the thesis uses 1e-4, 2e-4, 4e-4.
    max_range
        Landmarks farther than this from the robot centre are not used (thesis: 5 m).
    fov_deg
        Field angle of each camera (thesis: 120°).
    baseline
        Distance between the cameras (the robot's 0.5 m diameter).
    min_disparity
        Triangulations with ``tan β_R − tan β_L`` below this are discarded as unstable.
    model
        ``"stereo"``: triangulate noisy bearings (the thesis's sensor; the estimate is biased, its
        first-order covariance is evaluated at the measured bearings); ``"gaussian"``: the ablation
        ``z = z_true + N(0, Q)`` with ``Q`` the first-order covariance at the true bearings (unbiased,
        exactly Gaussian).
    """

    bearing_var: float = 1e-4
    max_range: float = 5.0
    fov_deg: float = 120.0
    baseline: float = 0.5
    min_disparity: float = 0.02
    model: str = "stereo"

    def __post_init__(self) -> None:
        if not (np.isfinite(self.max_range) and self.max_range > 0):
            raise ValueError(f"sensor range must be > 0 (metres; the thesis uses 5), got {self.max_range}")
        if not (np.isfinite(self.bearing_var) and self.bearing_var > 0):
            raise ValueError(f"bearing noise variance Q_z must be > 0 (rad²; the thesis uses 1e-4 to 4e-4), "
                             f"got {self.bearing_var}")
        if not 0 < self.fov_deg < 180:
            raise ValueError(f"camera field of view must be in (0, 180) degrees, got {self.fov_deg}")
        if not self.baseline > 0:
            raise ValueError(f"stereo baseline must be > 0, got {self.baseline}")
        if not self.min_disparity > 0:
            raise ValueError(f"min_disparity must be > 0, got {self.min_disparity}")
        if self.model not in ("stereo", "gaussian"):
            raise ValueError(f"camera model must be 'stereo' or 'gaussian', got {self.model!r}")

    def visible(self, z: FloatArray) -> np.ndarray:
        """Mask of body-frame points ``z`` ``(..., 2)`` inside range and both cameras' fields of view."""
        z = np.asarray(z, dtype=float)
        half = np.deg2rad(self.fov_deg) / 2
        x, y = z[..., 0], z[..., 1]
        ok = (x > 0) & (x**2 + y**2 <= self.max_range**2)
        xs = np.where(ok, x, 1.0)
        for c in (0.5 * self.baseline, -0.5 * self.baseline):
            ok &= np.abs(np.arctan2(y - c, xs)) <= half
        return ok

    def bearings(self, z: FloatArray) -> FloatArray:
        """Exact bearings ``(β_L, β_R)`` of body-frame points ``z`` ``(n, 2)`` (requires ``x > 0``)."""
        z = np.asarray(z, dtype=float)
        c = 0.5 * self.baseline
        return np.stack([np.arctan2(z[:, 1] - c, z[:, 0]), np.arctan2(z[:, 1] + c, z[:, 0])], axis=-1)

    @property
    def visible_area(self) -> float:
        """Area (m²) of the region :meth:`visible` accepts (midpoint rule on a 2 mm polar grid; computed
        once per geometry, since every realisation builds its own camera)."""
        return _visible_area(self.max_range, self.fov_deg, self.baseline)


@lru_cache(maxsize=32)
def _visible_area(max_range: float, fov_deg: float, baseline: float) -> float:
    cam = StereoCamera(max_range=max_range, fov_deg=fov_deg, baseline=baseline)
    r = (np.arange(2500) + 0.5) * max_range / 2500
    half = np.deg2rad(fov_deg) / 2
    a = -half + (np.arange(1200) + 0.5) * 2 * half / 1200
    R, A = np.meshgrid(r, a, indexing="ij")
    pts = np.stack([R * np.cos(A), R * np.sin(A)], axis=-1)
    return float(np.sum(cam.visible(pts) * R) * (r[1] - r[0]) * (a[1] - a[0]))


def triangulate(beta: FloatArray, baseline: float) -> FloatArray:
    """Intersection of the rays from ``(0, ±b/2)`` with bearings ``(β_L, β_R)`` ``(n, 2)``.

    ``x = b / (tan β_R − tan β_L)``, ``y = x tan β_L + b/2``.
    """
    aL, aR = np.tan(beta[:, 0]), np.tan(beta[:, 1])
    x = baseline / (aR - aL)
    return np.stack([x, x * aL + 0.5 * baseline], axis=-1)


def triangulation_jacobian(beta: FloatArray, baseline: float) -> FloatArray:
    """``∂(x, y)/∂(β_L, β_R)`` of :func:`triangulate`, shape ``(n, 2, 2)``."""
    aL, aR = np.tan(beta[:, 0]), np.tan(beta[:, 1])
    x = baseline / (aR - aL)
    dx_daL, dx_daR = x**2 / baseline, -(x**2) / baseline
    sL, sR = 1 + aL**2, 1 + aR**2  # d tan β / dβ
    Jm = np.empty((beta.shape[0], 2, 2))
    Jm[:, 0, 0], Jm[:, 0, 1] = dx_daL * sL, dx_daR * sR
    Jm[:, 1, 0], Jm[:, 1, 1] = (aL * dx_daL + x) * sL, aL * dx_daR * sR
    return Jm


@dataclass(frozen=True)
class Odometry:
    """Odometry at ``rate_hz`` with noise ``N(0, Q_v)`` on ``v`` and ``N(0, Q_w)`` on ``w``.

    ``noise = "sample"`` (default, the seed's (5.9) read literally): each reading carries ``N(0, Q)``, so
    a step's increment has variance ``Δt² Q``. ``noise = "density"``: ``Q`` is a spectral density
    (per-sample variance ``Q/Δt``, increment variance ``Δt Q``, independent of the rate). ``sample_at``:
    the reading used for the step ``t_k → t_{k+1}`` is the body velocity at ``"start"`` (``t_k``, default)
    or ``"end"`` (``t_{k+1}``, the seed's superscript in ``v_m^{k+1}``). The thesis states neither.
    """

    rate_hz: float = 10.0
    q_v: tuple[float, float] = (0.01, 0.01)
    q_w: float = 0.01
    noise: str = "sample"
    sample_at: str = "start"

    def __post_init__(self) -> None:
        if not (np.isfinite(self.rate_hz) and self.rate_hz > 0):
            raise ValueError(f"odometry/camera rate must be > 0 Hz (the thesis uses 10 and 20), got {self.rate_hz}")
        if min(self.q_v) < 0 or self.q_w < 0:
            raise ValueError(f"odometry noise variances must be >= 0, got Q_v = {self.q_v}, Q_w = {self.q_w}")
        if self.noise not in ("sample", "density"):
            raise ValueError(f"odometry noise must be 'sample' or 'density', got {self.noise!r}")
        if self.sample_at not in ("start", "end"):
            raise ValueError(f"odometry sample_at must be 'start' or 'end', got {self.sample_at!r}")

    @property
    def dt(self) -> float:
        return 1.0 / self.rate_hz

    @property
    def noise_cov(self) -> FloatArray:
        """Covariance of one reading's noise ``(n_v, n_w)``: ``diag(Q_v, Q_w)`` (``/ Δt`` for a density)."""
        scale = 1.0 if self.noise == "sample" else self.rate_hz
        return scale * np.diag([self.q_v[0], self.q_v[1], self.q_w])


@dataclass(frozen=True)
class LandmarkField:
    """A Poisson field of landmarks around the path with ``features_per_step`` visible on average.

    ``density = features_per_step / camera.visible_area`` (landmarks per m²); the thesis's fields have
    about 20 or 40 (line, circle) and 25 or 50 (general trajectory) visible landmarks per step.
    """

    features_per_step: float = 20.0
    margin: float = 1.0

    def __post_init__(self) -> None:
        if not (np.isfinite(self.features_per_step) and self.features_per_step > 0):
            raise ValueError(f"landmark density must be > 0 (mean visible landmarks per step, the thesis uses "
                             f"20 to 50), got {self.features_per_step}")

    def density(self, camera: StereoCamera) -> float:
        return self.features_per_step / camera.visible_area

    def sample(self, path: FloatArray, camera: StereoCamera, rng: np.random.Generator) -> FloatArray:
        """Landmarks ``(L, 2)`` uniform in the band of half-width ``max_range + margin`` around ``path``."""
        w = camera.max_range + self.margin
        lo, hi = path.min(axis=0) - w, path.max(axis=0) + w
        n = rng.poisson(self.density(camera) * float(np.prod(hi - lo)))
        pts = lo + rng.random((n, 2)) * (hi - lo)
        d, _ = cKDTree(path).query(pts)
        return pts[d <= w]


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """One experiment of §5.5: trajectory, odometry, camera and landmark field."""

    trajectory: Trajectory
    odometry: Odometry = field(default_factory=Odometry)
    camera: StereoCamera = field(default_factory=StereoCamera)
    landmarks: LandmarkField = field(default_factory=LandmarkField)
    t_end: float | None = None

    @property
    def n_steps(self) -> int:
        T = self.trajectory.duration if self.t_end is None else min(self.t_end, self.trajectory.duration)
        return max(1, round(T * self.odometry.rate_hz))


@dataclass(frozen=True)
class Dataset:
    """One realisation: the truth, the odometry readings and the triangulated landmark measurements.

    Attributes
    ----------
    t
        ``(K + 1,)`` times ``t_k = k Δt``.
    pose
        ``(K + 1, 3)`` true ``(x, y, θ)``.
    odometry
        ``(K, 3)`` readings ``(v_x, v_y, w)`` used for the step ``k → k + 1``.
    landmarks
        ``(L, 2)`` true global landmark positions.
    offsets, ids, z, cov
        Measurements of step ``k`` are rows ``offsets[k]:offsets[k + 1]`` of ``ids`` (landmark index,
        increasing), ``z`` ``(M, 2)`` (relative position, body frame) and ``cov`` ``(M, 2, 2)``.
    dt
        Step ``Δt``.
    """

    t: FloatArray
    pose: FloatArray
    odometry: FloatArray
    landmarks: FloatArray
    offsets: IntArray
    ids: IntArray
    z: FloatArray
    cov: FloatArray
    dt: float
    noise_cov: FloatArray

    @property
    def n_steps(self) -> int:
        return self.odometry.shape[0]

    def measurements(self, k: int) -> tuple[IntArray, FloatArray, FloatArray]:
        """``(ids, z, cov)`` of step ``k``."""
        s = slice(self.offsets[k], self.offsets[k + 1])
        return self.ids[s], self.z[s], self.cov[s]

    @property
    def visible_per_step(self) -> float:
        """Mean number of landmarks measured per step."""
        return float(np.diff(self.offsets).mean())


def simulate(scenario: Scenario, rng: np.random.Generator) -> Dataset:
    """Draw one realisation of ``scenario``.

    The random numbers are drawn in a fixed order (landmarks, odometry noise, then standard-normal
    bearing noise scaled by ``√Q_z``), so realisations with the same seed and different ``Q_z`` share
    the landmark field, the odometry and the noise directions (common random numbers).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"simulate needs an explicit np.random.Generator, got {type(rng).__name__}")
    od, cam = scenario.odometry, scenario.camera
    K = scenario.n_steps
    t = np.arange(K + 1, dtype=np.float64) * od.dt
    pose = scenario.trajectory.pose(t)
    fine = scenario.trajectory.pose(np.linspace(0.0, t[-1], max(2, int(t[-1] / 0.05) + 1)))[:, :2]
    lm = scenario.landmarks.sample(fine, cam, rng)
    vel = scenario.trajectory.body_velocity(t[:-1] if od.sample_at == "start" else t[1:])
    # = rng.multivariate_normal(0, diag, method="cholesky") draw for draw; also allows a zero variance
    noise = rng.standard_normal((K, 3)) * np.sqrt(np.diag(od.noise_cov))
    odometry = vel + noise
    # all landmarks in every body frame: z_i(t_k) = R(θ_k)ᵀ (p_i − p_k), (K + 1, L, 2)
    rel = np.einsum("kji,klj->kli", rot2(pose[:, 2]), lm[None, :, :] - pose[:, None, :2])
    mask = cam.visible(rel)
    kk, ii = np.nonzero(mask)
    beta_true = cam.bearings(rel[kk, ii])
    noise = rng.standard_normal((kk.size, 2))
    if cam.model == "gaussian":
        Jt = triangulation_jacobian(beta_true, cam.baseline)
        cov = cam.bearing_var * np.einsum("nij,nkj->nik", Jt, Jt)
        z = rel[kk, ii] + np.sqrt(cam.bearing_var) * np.einsum("nij,nj->ni", Jt, noise)
    else:
        beta = beta_true + np.sqrt(cam.bearing_var) * noise
        good = np.tan(beta[:, 1]) - np.tan(beta[:, 0]) >= cam.min_disparity
        kk, ii, beta = kk[good], ii[good], beta[good]
        z = triangulate(beta, cam.baseline)
        Jt = triangulation_jacobian(beta, cam.baseline)
        cov = cam.bearing_var * np.einsum("nij,nkj->nik", Jt, Jt)
    offsets = np.searchsorted(kk, np.arange(K + 2)).astype(np.int64)
    return Dataset(t=t, pose=pose, odometry=odometry, landmarks=lm, offsets=offsets, ids=ii.astype(np.int64),
                   z=z, cov=cov, dt=od.dt, noise_cov=od.noise_cov)
