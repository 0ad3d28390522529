"""Ground motion of a frame case (``[[loads.ground]]``, docs/dynamics.md): the records read and scaled into a
``frames.ground.GroundMotion``, the per-step columns of diagnostics.csv (the ground's displacement, velocity and
acceleration and the base shear), and the run's peaks: relative displacement and drift of each named node, and
the envelopes of the member end forces over the saved frames.

Drift of a named node: the largest over the saved frames of |u_h(node) − u_h(below)| / (z(node) − z(below)), u_h the
horizontal (x, y) relative displacement, "below" the nearest named or supported node directly under it (same x, y
within 1e-6 of the structure's size; z is vertical); a node with nothing under it has no drift.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps._frame_members import _table
from lgbeam.discretisations.frames.ground import Component, GroundMotion
from lgbeam.io import records
from lgbeam.io.cases import source_dir

KEYS = ("direction", "record", "units", "scale")
G_STANDARD = 9.80665  # m/s² per g (ISO 80000-3)
UNITS = {"g": G_STANDARD, "m/s2": 1.0}


def build(case: dict[str, Any], frame: Any) -> GroundMotion | None:
    """The ground motion of a case's [[loads.ground]] tables (None without any); records read from the case
    file's folder."""
    specs = case["loads"].get("ground") or []
    if not specs:
        return None
    folder = source_dir(case)
    comps = []
    for k, spec in enumerate(specs):
        where = f"loads.ground[{k}]"
        spec = _table(spec, where, KEYS)
        if "direction" not in spec or "record" not in spec:
            raise ValueError(f"{where} needs direction = [x, y, z] (a unit vector) and record = <file>")
        units = spec.get("units", "g")
        if units not in UNITS:
            raise ValueError(f"{where}.units = {units!r} is not one of {', '.join(map(repr, UNITS))}")
        scale = spec.get("scale", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not np.isfinite(scale):
            raise ValueError(f"{where}.scale must be a finite number, got {scale!r}")
        try:
            path = records.resolve(spec["record"], folder)
            t, a = records.read(path)
            comps.append(Component(np.asarray(spec["direction"], dtype=float), t, float(scale) * UNITS[units] * a,
                                   name=path.name))
        except (ValueError, TypeError) as err:
            raise ValueError(f"{where}: {err}") from None
    mass = np.asarray(frame.mass(frame.q_ref).diagonal()).reshape(-1, 6)[:, 3].copy()
    return GroundMotion(tuple(comps), mass)


def copy_records(case: dict[str, Any], run_dir: Path) -> None:
    """Copy each record into the run folder at its relative path, beside case.toml (a resumed run reads it there)."""
    folder = source_dir(case)
    for spec in case["loads"].get("ground") or []:
        src = records.resolve(spec["record"], folder)
        dst = Path(run_dir) / spec["record"]
        if dst.resolve() != src:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)


def diagnostics(frame: Any, ground: GroundMotion) -> Any:
    """fn(t, y) -> the columns ground_{a,v,x}_{x,y,z} (spatial) and base_shear_{x,y,z} (Σ of the supports'
    reaction forces, spatial: the total force the ground applies)."""

    def fn(t: float, y: Any) -> dict[str, float]:
        a, v, x = (w[0] for w in ground.vectors(np.array([t])))
        _, sup = frame.support_reactions(t, np.asarray(y.q), np.asarray(y.lam))
        shear = sup[:, 3:].sum(0)
        out: dict[str, float] = {}
        for name, w in (("ground_a", a), ("ground_v", v), ("ground_x", x), ("base_shear", shear)):
            out |= {f"{name}_{c}": float(w[i]) for i, c in enumerate("xyz")}
        return out

    return fn


def below(frame: Any, nodes: dict[str, int]) -> dict[str, int]:
    """Named node -> the node directly below it (module docstring): named nodes and supported nodes."""
    x0 = frame.G.translation(frame._q(frame.q_ref))
    size = float(np.ptp(x0, axis=0).max()) or 1.0
    cand = np.unique(np.concatenate([np.asarray(list(nodes.values()), dtype=np.int64),
                                     np.asarray(frame.support_nodes(), dtype=np.int64)]))
    out = {}
    for name, i in nodes.items():  # named nodes: a few per storey
        same = (np.linalg.norm(x0[cand, :2] - x0[i, :2], axis=1) <= 1e-6 * size) & (x0[cand, 2] < x0[i, 2] - 1e-6 * size)
        if np.any(same):
            out[name] = int(cand[same][np.argmax(x0[cand[same], 2])])
    return out


def peaks(frame: Any, nodes: dict[str, int], positions: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    """Peak relative displacement (|u| and per axis) and drift of each named node over the saved frames
    ``positions`` (n_t, n, 3); the summary entry and lines to print."""
    x0 = frame.G.translation(frame._q(frame.q_ref))
    u = positions - x0
    under = below(frame, nodes)
    entry: dict[str, Any] = {}
    for name, i in nodes.items():
        e: dict[str, Any] = {"peak_displacement_m": float(np.max(np.linalg.norm(u[:, i], axis=1))),
                             "peak_displacement_xyz_m": np.max(np.abs(u[:, i]), axis=0).tolist()}
        if name in under:
            j = under[name]
            h = float(x0[i, 2] - x0[j, 2])
            e["drift"] = float(np.max(np.linalg.norm(u[:, i, :2] - u[:, j, :2], axis=1)) / h)
        entry[name] = e
    worst = max(entry, key=lambda n: entry[n]["peak_displacement_m"]) if entry else None
    lines = []
    if worst is not None:
        d = [n for n in entry if "drift" in entry[n]]
        top = max(d, key=lambda n: entry[n]["drift"]) if d else None
        lines.append(f"ground motion: peak relative displacement {entry[worst]['peak_displacement_m']:.4g} m at {worst}"
                     + (f"; largest drift {100 * entry[top]['drift']:.3g} % at {top}" if top else "")
                     + " (saved frames; solution.npz positions are relative to the moving base)")
    return entry, lines


def envelopes(forces_at: Any, n_frames: int) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """(member forces of the first frame, max, min over the frames): ``forces_at(j)`` the list of
    ``MemberForces`` of saved frame j; the values stacked member after member (rows as member_forces.csv)."""
    first = forces_at(0)
    hi = np.concatenate([mf.values for mf in first])
    lo = hi.copy()
    for j in range(1, n_frames):  # over saved frames (each evaluates all members at once)
        vals = np.concatenate([mf.values for mf in forces_at(j)])
        np.maximum(hi, vals, out=hi)
        np.minimum(lo, vals, out=lo)
    return first, hi, lo
