"""External loads on a rod: nodal forces and moments (spatial or follower), gravity, distributed loads,
each scaled by a time function (constant, piecewise-linear table, the ramp p(t) of seed 004 eq. (24),
a step, or any Python callable).

Sign: a load contributes −f to g, because M v' = −g − Bᵀλ (docs/architecture.md). Body-frame
components of a spatial force F at node i are R_iᵀ F (x' = R U).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import quat_conj, quat_to_matrix


@dataclass(frozen=True)
class TimeFunction:
    """A scalar time function p(t).

    kind: ``"constant"`` (value), ``"step"`` (value for t ≥ t_on, 0 before), ``"table"``
    (piecewise-linear through (times, values), constant beyond the ends), ``"spaghetti"``
    (seed 004 eq. (24): 200 t/2.5 on [0, 2.5], 200 (5 − t)/2.5 on [2.5, 5], 0 afterwards;
    ``value`` scales the peak 200), ``"callable"`` (func(t)).
    """

    kind: str = "constant"
    value: float = 1.0
    times: tuple[float, ...] = ()
    values: tuple[float, ...] = ()
    t_on: float = 0.0
    func: Callable[[float], float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        kinds = ("constant", "step", "table", "spaghetti", "callable")
        if self.kind not in kinds:
            raise ValueError(f"unknown time function {self.kind!r}; use one of {', '.join(kinds)}")
        if self.kind == "table":
            t = np.asarray(self.times, dtype=float)
            if t.ndim != 1 or t.size < 2 or t.size != len(self.values):
                raise ValueError(
                    f"a 'table' time function needs >= 2 times and as many values, got {len(self.times)} "
                    f"times and {len(self.values)} values"
                )
            if np.any(np.diff(t) <= 0.0):
                raise ValueError(f"a 'table' time function needs strictly increasing times, got {list(t)}")
        if self.kind == "callable" and not callable(self.func):
            raise ValueError("a 'callable' time function needs func=<callable t -> float>")

    def __call__(self, t: float) -> float:
        if self.kind == "constant":
            return float(self.value)
        if self.kind == "step":
            return float(self.value) if t >= self.t_on else 0.0
        if self.kind == "table":
            return float(np.interp(t, self.times, self.values))
        if self.kind == "spaghetti":
            peak = 200.0 * float(self.value)
            if t < 0.0 or t > 5.0:
                return 0.0
            return peak * t / 2.5 if t <= 2.5 else peak * (5.0 - t) / 2.5
        assert self.func is not None
        return float(self.func(t))


LOAD_FRAMES = ("spatial", "body", "follower")  # "follower" is a synonym of "body" (the load turns with the rod)


def _load_frame(frame: object) -> str:
    if frame not in LOAD_FRAMES:
        raise ValueError(f"load frame must be 'spatial' or 'body' (= 'follower': it turns with the rod), got {frame!r}")
    return "body" if frame == "follower" else str(frame)


def _vec3(name: str, a: object) -> FloatArray:
    try:
        out = np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be 3 finite numbers, got {a!r}") from None
    if out.shape != (3,) or not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must be 3 finite numbers, got {a!r}")
    return out


@dataclass(frozen=True, kw_only=True)
class NodalLoad:
    """Force and moment at one node, scaled by ``time(t)``; ``frame`` "spatial" or "body" (follower)."""

    node: int | str
    force: FloatArray = field(default_factory=lambda: np.zeros(3))
    moment: FloatArray = field(default_factory=lambda: np.zeros(3))
    frame: str = "spatial"
    time: TimeFunction = field(default_factory=TimeFunction)
    pair: FloatArray = field(init=False, repr=False, compare=False)  # (moment, force), (6,)

    def __post_init__(self) -> None:
        object.__setattr__(self, "force", _vec3("nodal load force", self.force))
        object.__setattr__(self, "moment", _vec3("nodal load moment", self.moment))
        object.__setattr__(self, "frame", _load_frame(self.frame))
        object.__setattr__(self, "pair", np.concatenate([self.moment, self.force]))


@dataclass(frozen=True, kw_only=True)
class DistributedLoad:
    """Force per unit length (lumped with the trapezoidal weights), spatial or body frame, times ``time(t)``."""

    force: FloatArray
    frame: str = "spatial"
    time: TimeFunction = field(default_factory=TimeFunction)

    def __post_init__(self) -> None:
        object.__setattr__(self, "force", _vec3("distributed load force", self.force))
        object.__setattr__(self, "frame", _load_frame(self.frame))


@dataclass(frozen=True)
class Gravity:
    """Uniform gravitational acceleration (spatial), acting on the lumped nodal masses ρA w_i (``CosseratRod.mass_weights``)
    and the rod's point masses (``CosseratRod.node_mass``)."""

    acceleration: FloatArray

    def __post_init__(self) -> None:
        object.__setattr__(self, "acceleration", _vec3("gravity acceleration", self.acceleration))


Load = NodalLoad | DistributedLoad | Gravity


@dataclass(frozen=True, kw_only=True)
class PointMass:
    """A point mass ``mass`` (kg) with rotary inertia ``inertia`` (kg m², about the node's directors d₁, d₂, d₃)
    attached to ``node`` (index, negative from the end, "start" or "end"): added to the rod's lumped nodal mass
    and inertia (so to its dynamics, modes, kinetic energy and the gravity it carries)."""

    node: int | str
    mass: float = 0.0
    inertia: FloatArray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self) -> None:
        m = float(self.mass)
        if not np.isfinite(m) or m < 0.0:
            raise ValueError(f"point mass must be a finite number >= 0 (kg), got {self.mass!r}")
        J = np.broadcast_to(np.asarray(self.inertia, dtype=float), (3,)).copy()
        if not np.all(np.isfinite(J)) or np.any(J < 0.0):
            raise ValueError(f"point mass inertia must be 3 finite numbers >= 0 (kg m²), got {self.inertia!r}")
        object.__setattr__(self, "mass", m)
        object.__setattr__(self, "inertia", J)


def external_forces(
    t: float,
    p: FloatArray,
    loads: tuple[Load, ...],
    node_ids: tuple[int, ...],
    weights: FloatArray,
    rhoA: float,
    kernels: LoadKernels | None = None,
    node_mass: FloatArray | None = None,
) -> FloatArray:
    """Body-frame generalised external forces (N+1, 6) = (moment, force) per node at time t.

    ``p`` (N+1, 4) are the nodal unit quaternions (R_iᵀ a = R(p̄_i) a for spatial vectors a); a
    configuration (N+1, 7) of S³⋉R³ may be passed as it is (only its first four columns are read);
    ``node_ids[k]`` is the resolved node of ``loads[k]`` (−1 for non-nodal loads); ``weights`` are
    the trapezoidal nodal lengths ℓ_i; ``kernels``: ``NUMPY_LOADS`` (None) or the compiled twins
    (``rods._compiled.LOADS``), as the calling rod chose them; ``node_mass`` (N+1,): the nodal masses that
    gravity acts on (the rod's ρA w_i plus its point masses; default ρA w_i).
    """
    rotate, add_nodal = kernels or NUMPY_LOADS
    n = p.shape[0]
    body = np.zeros((n, 6))
    spatial: FloatArray | None = None  # (n, 6) once a load acts on every node
    # nodal loads: rotated at their own nodes only
    idx: list[int] = []
    vec: list[FloatArray] = []
    is_spatial: list[bool] = []
    for load, i in zip(loads, node_ids, strict=True):  # loop over load objects, not nodes
        if isinstance(load, NodalLoad):
            idx.append(i)
            vec.append(load.time(t) * load.pair)
            is_spatial.append(load.frame == "spatial")
            continue
        if spatial is None:
            spatial = np.zeros((n, 6))
        if isinstance(load, DistributedLoad):
            target = spatial if load.frame == "spatial" else body
            target[:, 3:] += load.time(t) * weights[:, None] * load.force
        else:
            m = rhoA * weights if node_mass is None else node_mass
            spatial[:, 3:] += m[:, None] * load.acceleration
    if spatial is not None:  # R_iᵀ a for the spatial moment and force blocks
        body += rotate(quat_conj(p[:, :4]), spatial)
    if idx:
        add_nodal(body, p, np.array(idx, dtype=np.intp), np.array(vec), np.array(is_spatial), np.ones(len(idx)))
    return body


def add_nodal_loads(
    body: FloatArray, p: FloatArray, idx: np.ndarray, vec: FloatArray, is_spatial: np.ndarray, scale: FloatArray
) -> None:
    """body[idx_k] += s_k vec_k (body frame) or s_k R(p_idx_k)ᵀ vec_k (spatial), in place; (k,) loads, (k, 6)
    (moment, force) pairs, (k,) scales."""
    vec = scale[:, None] * vec
    sp_ = np.flatnonzero(is_spatial)
    if sp_.size:
        vec[sp_] = rotate_pairs(quat_conj(p[idx[sp_], :4]), vec[sp_])
    np.add.at(body, idx, vec)


def rotate_pairs(p: FloatArray, a: FloatArray) -> FloatArray:
    """(R(p_i) a_i[:3], R(p_i) a_i[3:]) for (n, 4) unit quaternions and (n, 6) vector pairs."""
    R = quat_to_matrix(p)
    return np.concatenate([np.einsum("nij,nj->ni", R, a[:, :3]), np.einsum("nij,nj->ni", R, a[:, 3:])], axis=1)


class LoadKernels(NamedTuple):
    """The two load kernels: these numpy functions (``NUMPY_LOADS``) or their compiled twins
    (``rods._compiled.LOADS``)."""

    rotate_pairs: Callable[[FloatArray, FloatArray], FloatArray]
    add_nodal_loads: Callable[..., None]


NUMPY_LOADS = LoadKernels(rotate_pairs, add_nodal_loads)
