"""``lgbeam modes CASE`` for a frame case (``kind = "frame"``): the structure of rods and joints
(``lgbeam.apps.frame.model_of(case).structure()``) analysed by ``lgbeam.discretisations.rods.modal`` exactly as one rod (K, M, B and
Z stacked rod by rod plus the joint rows; docs/frames.md): natural frequencies about the reference or the
loaded static state (``--about static``: pre-stress), or linear buckling load factors of the case's loads
(``--buckling``). Writes modes.csv (the columns of ``_rod_modes``) and paraview/modes.pvd: the frame's own
``.vtp`` polylines (one per rod, ``lgbeam.apps.paraview_frames.poly_frame``), frame 0 the state linearised about, frame k
mode k scaled so that its largest displacement (or largest rotation times the size) is ``amplitude`` times
the structure's size (``rods.modal.shape_configurations``), with the point
array ``mode_displacement`` (m: x_k − x_0, spatial) for ParaView's Warp By Vector.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import frame_richardson as fr
from lgbeam.apps.frame import check_size, model_of
from lgbeam.apps.paraview_frames import poly_frame
from lgbeam.cli._rod_modes import NO_CORRECTION, Refine, modes_table, write_csv
from lgbeam.discretisations.frames import Structure
from lgbeam.discretisations.rods import modal
from lgbeam.io.vtk import PVDSeries

logger = logging.getLogger(__name__)

MODE_DISPLACEMENT = ("m", "spatial (e_x, e_y, e_z); x - x of frame 0 (the state linearised about)")


def _with_mode_displacement(frame: Any, disp: np.ndarray) -> Any:
    """The ``PolyFrame`` with the point array ``mode_displacement`` and its unit and frame in the field data."""
    fd = dict(frame.field_data)
    if "array_names" in fd:
        fd["array_names"] = [*fd["array_names"], "mode_displacement"]
        fd["array_units"] = [*fd["array_units"], MODE_DISPLACEMENT[0]]
        fd["array_frames"] = [*fd["array_frames"], MODE_DISPLACEMENT[1]]
    return dataclasses.replace(frame, point_data={**frame.point_data, "mode_displacement": disp}, field_data=fd)


def write_shapes(structure: Structure, name: str, q: np.ndarray, lam: np.ndarray | None, shapes: np.ndarray,
                 out: Path, amplitude: float) -> Path:
    """paraview/modes.pvd of a structure: frame 0 the configuration (q, λ) linearised about, frame k mode k
    (q ∘ exp(aφ_k), largest displacement or rotation × size = ``amplitude`` · size; no multipliers: the section
    resultants of a shape are its elastic part)."""
    pvd = out / "paraview" / "modes.pvd"
    x0 = structure.G.translation(structure._q(q))
    size = amplitude * modal.length_scale(structure)
    with PVDSeries(pvd) as series:
        series.write_frame(0.0, _with_mode_displacement(poly_frame(structure, name, q, None, lam, 0.0), np.zeros_like(x0)))
        for k, shape in enumerate(shapes, start=1):
            qk = modal.shape_configurations(structure, q, shape, size)
            disp = structure.G.translation(qk) - x0
            series.write_frame(float(k), _with_mode_displacement(poly_frame(structure, name, qk, None, None, 0.0), disp))
    return pvd


def _refine(case: dict[str, Any], frame: Structure, *, n: int, about: str, buckling: bool) -> Refine:
    """The Richardson correction of the case mesh's frequencies or load factors (``apps.frame_richardson``): the
    same analysis with half and twice the elements per member, modes matched by their shapes
    (``frame_richardson.match_modes``; a few more modes are computed on the other meshes for that)."""
    def refine(values: np.ndarray, shapes: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
        try:
            models, frames = fr.built_family(model_of(case, frame), frame, lambda m: check_size(case, m))
        except ValueError as err:
            logger.warning("%s", err)
            return np.asarray(values, dtype=float), np.full(len(values), np.nan), f"{NO_CORRECTION}: {err}"
        vals, shps, used, kept = [], [], [], []
        for c, fc in zip(models, frames, strict=True):
            if fc is frame:
                vals.append(np.asarray(values, dtype=float))
                shps.append(np.asarray(shapes))
                used.append(c)
                kept.append(fc)
                continue
            m = min(n + 3, fc.n_dofs - fc.n_constraints - 2)  # a few more than n, to match them by shape
            try:
                if m < 1:
                    raise ValueError(f"{fc.n_dofs - fc.n_constraints} free degrees of freedom")
                _, rows, _, sh, _ = modes_table(fc, case, "", "", n=m, about=about, buckling=buckling, noun="frame")
            except ValueError as err:
                if c is models[-1]:  # the doubled mesh: no correction
                    logger.warning("%s", err)
                    return (np.asarray(values, dtype=float), np.full(len(values), np.nan),
                            f"{NO_CORRECTION}: the mesh with twice the elements: {err}")
                continue  # the halved mesh: two meshes
            vals.append(np.array([r["load_factor" if buckling else "freq_hz"] for r in rows], dtype=float))
            shps.append(np.asarray(sh))
            used.append(c)
            kept.append(fc)
        match = fr.match_modes(shps, kept, n, modal.length_scale(frame), vals)
        table = fr.eigen_rows("load_factor" if buckling else "frequency", "-" if buckling else "Hz", vals, match, n,
                              fr.element_order(models[0].element))
        return (np.array([r["value"] for r in table]), np.array([r["error_estimate"] for r in table]),
                f"Richardson of {fr.meshes_label(used)} elements per member (± its error estimate)")

    return refine


def frame_modes_report(case: dict[str, Any], name: str, *, n: int, about: str, buckling: bool, out: Path,
                       amplitude: float) -> str:
    """Compute, write modes.csv and the ParaView series of a frame case, and return the table to print."""
    frame = model_of(case).structure()
    n_el = sorted({r.mesh.n_elements for r in frame.members})
    what = (f"frame of {len(frame.names)} rods ({', '.join(frame.names)}) and {len(frame.joints)} joints, "
            f"N = {'/'.join(map(str, n_el))} per rod")
    refine = _refine(case, frame, n=n, about=about, buckling=buckling) if case["analysis"].get("richardson") else None
    lines, rows, q, shapes, lam = modes_table(frame, case, name, what, n=n, about=about, buckling=buckling,
                                              noun="frame", refine=refine)
    write_csv(out / "modes.csv", rows)
    pvd = write_shapes(frame, name, q, lam, shapes, out, amplitude)
    lines.append(f"wrote {out / 'modes.csv'} and {pvd} (frame k = mode k)")
    return "\n".join(lines)
