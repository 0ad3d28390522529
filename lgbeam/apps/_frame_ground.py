"""Ground motion of a frame case (``[[loads.ground]]``, docs/dynamics.md): the records read and scaled into a
``frames.ground.GroundMotion``, the per-step columns of diagnostics.csv (the ground's displacement, velocity and
acceleration and the base shear), and the run's peaks: relative displacement and drift of each named node, and
the envelopes of the member end forces over the saved frames (``frames.ground``: drift, peaks, envelopes).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps._frame_members import _table
from lgbeam.discretisations.frames.ground import Component, GroundMotion, envelopes, peak_response

__all__ = ["build", "copy_records", "diagnostics", "envelopes", "peaks"]
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
    return GroundMotion(tuple(comps), nodal_masses(frame))


def nodal_masses(frame: Any) -> np.ndarray:
    """(n,) each node's translational mass m_i = ⅓ Σ_e (M r_e)_i · R_iᵀ e, r_e = (0, R_iᵀ e) per node: the
    diagonal of a lumped mass, the row sums (the rods' lumped masses: ρAℓ/2 per element end) of the corotational
    element's consistent one, whose diagonal alone holds only 13/35 of an element's mass."""
    q = frame.q_ref
    R = frame.G.rotation(q)  # (n, 3, 3)
    M = frame.mass(q)
    r = np.zeros((3, R.shape[0], 6))
    r[:, :, 3:] = np.einsum("nej->enj", R)
    Mr = np.stack([(M @ r[e].ravel()).reshape(-1, 6)[:, 3:] for e in range(3)])  # (3, n, 3)
    return np.einsum("enj,enj->n", Mr, r[:, :, 3:]) / 3.0


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


def peaks(frame: Any, nodes: dict[str, int], positions: np.ndarray) -> tuple[dict[str, Any], list[str]]:
    """Peak relative displacement (|u| and per axis) and drift of each named node over the saved frames
    ``positions`` (n_t, n, 3) (``frames.ground.peak_response``); the summary entry and lines to print."""
    entry = peak_response(frame, nodes, positions)
    worst = max(entry, key=lambda n: entry[n]["peak_displacement_m"]) if entry else None
    lines = []
    if worst is not None:
        d = [n for n in entry if "drift" in entry[n]]
        top = max(d, key=lambda n: entry[n]["drift"]) if d else None
        lines.append(f"ground motion: peak relative displacement {entry[worst]['peak_displacement_m']:.4g} m at {worst}"
                     + (f"; largest drift {100 * entry[top]['drift']:.3g} % at {top}" if top else "")
                     + " (saved frames; solution.npz positions are relative to the moving base)")
    return entry, lines
