"""Supports of a rod: what a user writes (``Support``, ``PrescribedMotion``), validated on construction.

A support sits at one node (an index, negative from the end, "start"/"end", or an arclength ``s``) and
acts in a frame that is fixed in space: ``frame = "global"`` (e_x, e_y, e_z), ``"local"`` (the node's
reference directors d₁, d₂, d₃), or explicit axes (three orthonormal rows, or two rows that are
orthonormalised: the x axis and a vector in the x–y plane). Its degrees of freedom are the
translations x, y, z along the frame axes and the rotations rx, ry, rz about them. A support

* fixes some of them (constraint rows of Φ and B; ``support_rows.py``),
* holds others elastically (translational/rotational springs: forces with their exact tangent), and
* for kind ``prescribed`` drives its fixed components along a rigid motion of the support base.

Named kinds (``axis`` = "x" | "y" | "z" in the support frame where needed):

    clamped, clamp   rx ry rz x y z        everything fixed
    pinned           x y z                 spherical joint: rotations free
    hinge            x y z + the two rotations ⊥ axis   (rotation about ``axis`` free)
    roller           the two translations ⊥ axis        (slides along ``axis``; rotations free)
    guided           rx ry rz + the two translations ⊥ axis  (slides along ``axis``, no rotation)
    free             nothing (springs only, or no support)
    prescribed       the components in ``fix`` (default all six) follow ``motion``

or an explicit ``fix = ("x", "rz", ...)`` without a kind. Rows and equations: docs/supports.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lgbeam._tables import check_keys
from lgbeam._typing import FloatArray

DOFS = ("rx", "ry", "rz", "x", "y", "z")  # tangent order (Ω, U): rotations first
SUPPORT_KINDS = ("clamped", "clamp", "pinned", "hinge", "roller", "guided", "free", "prescribed")
AXIS_KINDS = ("hinge", "roller", "guided")
MOTION_KEYS = ("angular_velocity", "velocity", "displacement", "rotation", "ramp")
FRAMES = ("global", "local")

_ALL = DOFS
_TRANS = ("x", "y", "z")
_ROT = ("rx", "ry", "rz")


def named_dofs(kind: str, axis: str | None) -> tuple[str, ...]:
    """The fixed degrees of freedom of a named support kind (canonical order rx ry rz x y z)."""
    if kind in ("clamped", "clamp", "prescribed"):
        return _ALL
    if kind == "pinned":
        return _TRANS
    if kind == "free":
        return ()
    assert axis is not None, "axis kinds are checked in Support.__post_init__"
    others = tuple(a for a in _TRANS if a != axis)
    if kind == "hinge":
        return tuple("r" + a for a in others) + _TRANS
    if kind == "roller":
        return others
    return _ROT + others  # guided


def _vec3(where: str, name: str, value: Any) -> tuple[float, float, float]:
    val = np.asarray(value, dtype=float)
    if val.shape != (3,) or not np.all(np.isfinite(val)):
        raise ValueError(f"{where}: {name} must be 3 finite numbers [x, y, z], got {value!r}")
    return (float(val[0]), float(val[1]), float(val[2]))


@dataclass(frozen=True)
class PrescribedMotion:
    """Rigid motion of a support base, starting at t = 0 from the node's reference frame (R₀, x₀):

        x_ref(t) = x₀ + S(t) u + s(t) d,     R_ref(t) = exp(S(t) ω̂) exp(s(t) r̂) R₀

    with the spatial velocity u, angular velocity ω (about the node), a displacement d and a rotation
    vector r reached smoothly, and the ramp factor s(t) = (1 − cos(π t / ramp))/2 for t < ramp, 1 after
    (ramp = 0: s ≡ 1), S(t) = ∫₀ᵗ s. Time is absolute. A displacement or rotation without a ramp is
    there at t = 0 already (a settlement for a static analysis; a dynamic run needs ramp > 0).
    """

    angular_velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    displacement: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    ramp: float = 0.0

    def __post_init__(self) -> None:
        for name in MOTION_KEYS[:-1]:
            object.__setattr__(self, name, _vec3("prescribed motion", name, getattr(self, name)))
        if not (isinstance(self.ramp, (int, float)) and np.isfinite(self.ramp) and self.ramp >= 0.0):
            raise ValueError(f"prescribed motion ramp must be a time >= 0 (0: no ramp), got {self.ramp!r}")
        object.__setattr__(self, "ramp", float(self.ramp))

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> PrescribedMotion:
        """From a case table {angular_velocity, velocity, displacement, rotation, ramp}; unknown keys are errors."""
        if not isinstance(spec, dict):
            raise ValueError(  # noqa: TRY004 - a case-file error: the CLI maps ValueError to exit 2
                f"prescribed motion must be a table with keys {', '.join(MOTION_KEYS)}, got {spec!r}")
        check_keys(spec, MOTION_KEYS, noun="prescribed-motion key", every=True)
        return cls(**{k: spec[k] for k in MOTION_KEYS if k in spec})

    def factor(self, t: float) -> tuple[float, float]:
        """(s(t), S(t) = ∫₀ᵗ s): the ramp factor and its integral."""
        s, S, _ = ramp_factors(t, np.array([self.ramp]))
        return float(s[0]), float(S[0])


def ramp_factors(t: float, ramp: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(s, S = ∫₀ᵗ s, s') of the ramp s(t) = (1 − cos(π t/T))/2 on [0, T), 1 after, for each T in ``ramp``."""
    T = np.asarray(ramp, dtype=float)
    safe = np.where(T > 0.0, T, 1.0)
    inside = (T > 0.0) & (t > 0.0) & (t < T)
    arg = np.pi * t / safe
    s = np.where(inside, 0.5 * (1.0 - np.cos(arg)), 1.0)
    S = np.where(inside, 0.5 * t - 0.5 * safe / np.pi * np.sin(arg), t - 0.5 * T)
    sd = np.where(inside, 0.5 * np.pi / safe * np.sin(arg), 0.0)
    before = (T > 0.0) & (t <= 0.0)
    return np.where(before, 0.0, s), np.where(before, 0.0, S), np.where(before, 0.0, sd)


def _frame(where: str, frame: Any) -> str | tuple[tuple[float, ...], ...]:
    """Validate a frame: "global" | "local" | 3 orthonormal rows | 2 rows (x axis, a vector in the x–y plane)."""
    if isinstance(frame, str):
        if frame not in FRAMES:
            raise ValueError(f"{where}: frame = {frame!r} is not 'global', 'local' (the node's reference directors) "
                             "or axes [[x-axis], [vector in the x–y plane]]")
        return frame
    A = np.asarray(frame, dtype=float)
    if A.ndim != 2 or A.shape[1] != 3 or A.shape[0] not in (2, 3) or not np.all(np.isfinite(A)):
        raise ValueError(f"{where}: frame must be 'global', 'local', or 2–3 rows of 3 finite numbers "
                         f"([[x-axis], [vector in the x–y plane]]), got {frame!r}")
    if A.shape[0] == 3:
        dev = float(np.max(np.abs(A @ A.T - np.eye(3))))
        if dev > 1e-9 or np.linalg.det(A) < 0.0:
            raise ValueError(f"{where}: the three frame rows must be orthonormal and right-handed (|A Aᵀ − I| = "
                             f"{dev:.2g}); give two rows [[x-axis], [vector in the x–y plane]] to have them completed")
        return tuple(tuple(float(x) for x in row) for row in A)
    x, y = A
    nx = float(np.linalg.norm(x))
    y = y - (y @ x) / nx**2 * x if nx > 0.0 else y
    ny = float(np.linalg.norm(y))
    if nx == 0.0 or ny <= 1e-12 * max(1.0, float(np.linalg.norm(A[1]))):
        raise ValueError(f"{where}: frame rows {frame!r} must be two non-parallel, non-zero vectors")
    ex, ey = x / nx, y / ny
    return tuple(tuple(float(v) for v in row) for row in (ex, ey, np.cross(ex, ey)))


def _springs(where: str, name: str, value: Any) -> tuple[float, float, float] | None:
    if value is None:
        return None
    val = np.broadcast_to(np.asarray(value, dtype=float), (3,)) if np.ndim(value) == 0 else np.asarray(value, float)
    if val.shape != (3,) or not np.all(np.isfinite(val)):
        raise ValueError(f"{where}: {name} must be one number or 3 numbers (per frame axis x, y, z), got {value!r}")
    if np.any(val < 0.0):
        raise ValueError(f"{where}: {name} must be >= 0 on every axis (a spring pushes back), got {value!r}; "
                         "give positive stiffnesses, 0 for no spring")
    return (float(val[0]), float(val[1]), float(val[2]))


@dataclass(frozen=True)
class Support:
    """A support at ``node`` (index, negative from the end, "start"/"end") or at arclength ``s``.

    Parameters
    ----------
    node : node reference, or None with ``s``.
    kind : one of ``SUPPORT_KINDS`` (module docstring), or None with ``fix``.
    motion : PrescribedMotion (or its dict), only for kind "prescribed".
    s : arclength of the node (must coincide with a node to 1e-9 L).
    fix : explicit fixed degrees of freedom, a subset of ("x", "y", "z", "rx", "ry", "rz") in ``frame``
        (with kind "prescribed": the driven components; default all six).
    frame : "global", "local" (the node's reference directors, fixed in space) or axes (rows).
    axis : "x" | "y" | "z": the free rotation (hinge) or sliding direction (roller, guided).
    stiffness : translational spring stiffness along the frame axes (one number or three, ≥ 0).
    rotational_stiffness : rotational spring stiffness about the frame axes (one number or three, ≥ 0).
    name : label in the output (default "<kind>@<node>").
    """

    node: int | str | None = None
    kind: str | None = None
    motion: PrescribedMotion | dict[str, Any] | None = field(default=None)
    s: float | None = field(default=None, kw_only=True)
    fix: tuple[str, ...] | None = field(default=None, kw_only=True)
    frame: Any = field(default="global", kw_only=True)
    axis: str | None = field(default=None, kw_only=True)
    stiffness: Any = field(default=None, kw_only=True)
    rotational_stiffness: Any = field(default=None, kw_only=True)
    name: str | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        where = self.where
        self._check_place(where)
        kind = self.kind
        if kind is not None and kind not in SUPPORT_KINDS:
            raise ValueError(f"unknown support kind {kind!r} at {where}; use one of {', '.join(SUPPORT_KINDS)} "
                             "or an explicit fix = [...]")
        if self.fix is not None:
            if isinstance(self.fix, str) or not all(isinstance(d, str) for d in self.fix):
                raise ValueError(f"{where}: fix must be a list of names from {', '.join(DOFS)}, got {self.fix!r}")
            bad = [d for d in self.fix if d not in DOFS]
            if bad:
                raise ValueError(f"{where}: unknown degree(s) of freedom {', '.join(map(repr, bad))} in fix; "
                                 f"use names from {', '.join(DOFS)}")
            if len(set(self.fix)) != len(self.fix):
                raise ValueError(f"{where}: fix = {list(self.fix)} names a degree of freedom twice")
            if kind not in (None, "prescribed"):
                raise ValueError(f"{where}: give either kind = {kind!r} or fix = {list(self.fix)}, not both "
                                 "(fix selects the driven components only for kind 'prescribed')")
            object.__setattr__(self, "fix", tuple(d for d in DOFS if d in self.fix))
        if kind in AXIS_KINDS and self.axis not in _TRANS:
            raise ValueError(f"support kind {kind!r} at {where} needs axis = 'x', 'y' or 'z' in its frame (the "
                             f"{'free rotation axis' if kind == 'hinge' else 'sliding direction'}), got {self.axis!r}")
        if kind not in AXIS_KINDS and self.axis is not None:
            raise ValueError(f"{where}: axis is only for kinds {', '.join(AXIS_KINDS)}; drop it or use one of them")
        if isinstance(self.motion, dict):
            object.__setattr__(self, "motion", PrescribedMotion.from_dict(self.motion))
        if kind == "prescribed" and self.motion is None:
            raise ValueError(f"prescribed support at {where} needs a motion (angular_velocity, velocity, "
                             "displacement, rotation, ramp)")
        if kind != "prescribed" and self.motion is not None:
            raise ValueError(f"support at {where} is {kind!r}: a motion is only for kind 'prescribed' "
                             "(use kind = 'prescribed' with fix = [...] to drive some components)")
        object.__setattr__(self, "frame", _frame(where, self.frame))
        object.__setattr__(self, "stiffness", _springs(where, "stiffness", self.stiffness))
        object.__setattr__(self, "rotational_stiffness", _springs(where, "rotational_stiffness",
                                                                   self.rotational_stiffness))
        self._check_springs(where)
        if kind == "prescribed" and not self.dofs and not self.has_springs:
            raise ValueError(f"prescribed support at {where} fixes nothing (fix = []) and has no springs; "
                             "name the driven components in fix")

    def _check_place(self, where: str) -> None:
        if (self.node is None) == (self.s is None):
            label = f" {self.name!r}" if self.name else ""
            raise ValueError(f"support{label}: give exactly one of node (index, 'start', 'end') or s (arclength), "
                             f"got node = {self.node!r}, s = {self.s!r}")
        if self.node is not None and (isinstance(self.node, (bool, float)) or not isinstance(self.node, (int, str, np.integer))):
            raise ValueError(f"support node must be an integer index or 'start'/'end', got {self.node!r}; "
                             "for a position along the rod give s = <arclength>")
        if self.s is not None and (isinstance(self.s, bool) or not isinstance(self.s, (int, float)) or not np.isfinite(self.s)):
            raise ValueError(f"support s must be a finite arclength, got {self.s!r}")

    def _check_springs(self, where: str) -> None:
        for name, vals, dofs in (("stiffness", self.stiffness, _TRANS), ("rotational_stiffness", self.rotational_stiffness, _ROT)):
            if vals is None:
                continue
            clash = [d for d, k in zip(dofs, vals, strict=True) if k > 0.0 and d in self.dofs]
            if clash:
                raise ValueError(f"{where}: a {name} on {', '.join(clash)}, which the support fixes; "
                                 "set that stiffness to 0 or leave the degree of freedom free")

    @property
    def where(self) -> str:
        """Human-readable place for messages: 'node 3', 'node 'end'', 's = 0.5'."""
        place = f"node {self.node!r}" if self.node is not None else f"s = {self.s!r}"
        return f"support {self.name!r} at {place}" if self.name else place

    @property
    def dofs(self) -> tuple[str, ...]:
        """Fixed (or driven) degrees of freedom in canonical order rx ry rz x y z."""
        if self.fix is not None:
            return self.fix
        return named_dofs(self.kind or "free", self.axis)

    @property
    def n_rows(self) -> int:
        return len(self.dofs)

    @property
    def has_springs(self) -> bool:
        return any(k > 0.0 for k in (self.stiffness or ()) + (self.rotational_stiffness or ()))

    @property
    def label_kind(self) -> str:
        if self.kind is not None:
            return self.kind
        return "fix(" + ",".join(self.dofs) + ")" if self.dofs else "spring"

    def axes(self, R_ref: FloatArray) -> FloatArray:
        """The frame's axes as rows (3, 3) in spatial coordinates, given the node's reference rotation."""
        if self.frame == "global":
            return np.eye(3)
        if self.frame == "local":
            return np.asarray(R_ref, dtype=float).T.copy()
        return np.array(self.frame, dtype=float)


def resolve_node(sup: Support, mesh: Any) -> int:
    """Node index of a support: its ``node`` through ``mesh.node_index``, or the node at arclength ``s``."""
    if sup.node is not None:
        try:
            return mesh.node_index(sup.node)
        except ValueError as err:
            label = f"support {sup.name!r}" if sup.name else f"{sup.label_kind} support"
            raise ValueError(f"{label}: {err}") from None
    s = np.asarray(mesh.s)
    j = int(np.argmin(np.abs(s - sup.s)))
    if abs(s[j] - sup.s) > 1e-9 * max(mesh.length, 1.0):
        raise ValueError(f"{sup.where}: no node at s = {sup.s:g} (the rod spans s = {s[0]:g} … {s[-1]:g}; nearest "
                         f"node {j} at s = {s[j]:g}); choose n_elements so a node falls there, or give node = {j}")
    return j
