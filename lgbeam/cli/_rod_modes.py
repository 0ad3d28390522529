"""``lgbeam modes CASE`` on the actual rod: frequencies about the reference or the loaded static state, or
linear buckling load factors (``lgbeam.discretisations.rods.modal``); writes modes.csv and
paraview/modes.pvd (frame k = mode k at the given amplitude, point array ``mode_displacement``).
``modes_table`` is shared with the frame cases (``_frame_modes.py``).

modes.csv columns: mode, omega2 (rad²/s²; negative = unstable), omega_rad_s, freq_hz, period_s, and with
``--about static`` omega0_rad_s (about the reference) and ratio = ω²/ω₀²; then participation_x/y/z (Γ, kg^½ for
the mass-normalised shapes), effective_mass_x/y/z (kg) and cumulative_mass_fraction_x/y/z (of the total mass;
``rods.modal.participation``); with ``--buckling``: mode,
load_factor (multiple of the case's loads at time.t_end that buckles the rod). A frame's Richardson correction
(``refine``) adds freq_hz_mesh and freq_hz_error after freq_hz (load_factor_mesh, load_factor_error).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps.rod import build
from lgbeam.apps.rod_static import settings
from lgbeam.discretisations.rods import modal
from lgbeam.discretisations.rods.statics import solve_static
from lgbeam.io.atomic import atomic_write_rows
from lgbeam.io.vtk import PVDSeries

logger = logging.getLogger(__name__)

ZERO_MODE = 1e-9  # |ω²| below this fraction of the largest computed |ω²| counts as zero (a mechanism)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """modes.csv: one row per mode (floats with 17 significant digits)."""
    atomic_write_rows(path, rows)


def _write_shapes(rod: Any, q: np.ndarray, shapes: np.ndarray, out: Path, amplitude: float) -> Path:
    """paraview/modes.pvd: frame 0 the configuration linearised about, frame k mode k scaled to ``amplitude`` L."""
    pvd = out / "paraview" / "modes.pvd"
    zero = np.zeros(6 * rod.n_nodes)
    x0 = rod.G.translation(q)
    with PVDSeries(pvd) as series:
        for k, shape in enumerate([None, *shapes]):
            qk = q if shape is None else modal.shape_configurations(rod, q, shape, amplitude * modal.length_scale(rod))
            pts, cells, pd, cd = rod.vtk_frame(qk, zero, None)
            pd = {**pd, "mode_displacement": pts - x0}
            series.write(float(k), pts, cells=cells, point_data=pd, cell_data=cd)
    return pvd


Refine = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, str]]
NO_CORRECTION = "no Richardson correction"  # how a ``Refine`` label begins when it could not correct


def _unmatched(err: np.ndarray, label: str) -> list[str]:
    """The line naming corrected modes without an estimate (not found on the finer mesh), if any."""
    missing = np.flatnonzero(np.isnan(err))
    if not missing.size or label.startswith(NO_CORRECTION):
        return []
    return [(f"mode {', '.join(str(k + 1) for k in missing)}: no estimate (nan): not found on the mesh with twice the "
             "elements (the shapes differ), so the case's mesh is too coarse for it; refine model.n_elements")]


def modes_table(system: modal.RodSystem, case: dict[str, Any], name: str, what: str, *, n: int, about: str,
                buckling: bool, noun: str = "rod",
                refine: Refine | None = None) -> tuple[list[str], list[dict[str, Any]], np.ndarray, np.ndarray, np.ndarray | None]:
    """Modes or buckling of ``system`` (a rod or a ``frames.Structure``: ``rods.modal`` runs both alike).

    Returns (lines of the printed table, rows of modes.csv, the configuration linearised about, the shapes
    (n, n_nodes, 6), its multipliers λ (the static state's, else None)); ``what`` describes the system in the
    title, ``noun`` names it ("rod", "frame"). ``refine(values, shapes)`` → (values, error estimates, label):
    the frequencies (Hz) or load factors corrected by finer meshes (``apps.frame_richardson``); the table and
    modes.csv then give the corrected values, with the system's own as ``*_mesh`` and the estimates as ``*_error``."""
    loaded = buckling or about == "static"  # the loads' instant t_end matters only then (a frame may omit it)
    if loaded and case["time"].get("t_end") is None:
        raise ValueError("time.t_end is not set: buckling and modes about the static state take the loads at "
                         "t = time.t_end; add it to the case ([time] t_end = 1.0) or --set time.t_end=…")
    t1 = float(case["time"]["t_end"]) if loaded else float("nan")
    if buckling:
        lines, rows, shapes = _buckling_table(system, name, what, n, t1, refine)
        return lines, rows, system.q_ref, shapes, None
    ref = modal.modes(system, n)
    lam = None
    if about == "static":
        path = solve_static(system, t=t1, **settings(case))
        if path.status == "failed":
            raise ValueError(f"no static state to linearise about: {path.message}")
        st = path.final
        lam = st.lam
        res = modal.modes(system, n, q=st.q, lam=st.lam, load_factor=st.load_factor, t=t1)
        head = (f"{name}: modes of the {what} about its static state (load factor {st.load_factor:.6g}, "
                f"{path.status}) with pre-stress; ω₀ about the reference")
    else:
        res = ref
        kind = getattr(system, "mass_kind", "lumped")
        head = f"{name}: modes of the {what} about its reference (exact tangent, {kind} mass, ker B)"
    part = modal.participation(system, res.shapes, res.q)
    f_mesh = np.asarray(res.omega, dtype=float) / (2 * np.pi)
    f, f_err, label = f_mesh, np.full(n, np.nan), ""
    if refine is not None:
        f, f_err, label = refine(f_mesh, res.shapes)
        head += f"; {label}"
    rows = _mode_rows(res, ref, part, f, f_mesh, f_err, static=about == "static", refined=refine is not None)
    lines = [head] + _mode_lines(rows, static=about == "static", refined=refine is not None)
    if refine is not None:
        lines += _unmatched(f_err, label)
    lines.append(f"total mass {part.total_mass:.6g} kg (members + point masses; the mass held by the supports takes "
                 "part in no mode); effective masses and participation factors of unit rigid translations along x, y, z")
    zero = np.abs(res.omega2) <= ZERO_MODE * float(np.max(np.abs(res.omega2)))
    if np.any(zero):
        lines.append(f"mode {', '.join(str(k + 1) for k in np.flatnonzero(zero))}: ω² ≈ 0 (round-off against the "
                     f"largest): a mechanism, a motion the supports and joints leave free (e.g. a rod spinning "
                     f"about its axis between ball joints)")
    if np.any((res.omega2 < 0) & ~zero):
        lines.append(f"negative ω²: the state is unstable (the {noun} buckles)")
    return lines, rows, res.q, res.shapes, lam


def _buckling_table(system: modal.RodSystem, name: str, what: str, n: int, t1: float,
                    refine: Refine | None) -> tuple[list[str], list[dict[str, Any]], np.ndarray]:
    """The printed lines, modes.csv rows and shapes of linear buckling under the loads at t1."""
    buck = modal.buckling(system, n, t=t1)
    mu = np.asarray(buck.load_factors, dtype=float)
    rows: list[dict[str, Any]] = [{"mode": k + 1, "load_factor": float(m)} for k, m in enumerate(mu)]
    title = f"{name}: linear buckling of the {what} under its loads at t = {t1:g} (exact tangent, ker B)"
    if refine is not None:
        val, err, label = refine(mu, buck.shapes)
        rows = [{"mode": k + 1, "load_factor": float(val[k]), "load_factor_mesh": float(mu[k]),
                 "load_factor_error": float(err[k])} for k in range(len(mu))]
        title += f"; {label}"
    lines = [title, f"{'mode':>4}  {'load factor':>15}" + (f"  {'± estimate':>10}  {'this mesh':>15}" if refine else "")]
    lines += [f"{r['mode']:>4d}  {r['load_factor']:15.8g}" + (
        f"  {r['load_factor_error']:10.2g}  {r['load_factor_mesh']:15.8g}" if refine else "") for r in rows]
    if refine is not None:
        lines += _unmatched(err, label)
    return lines, rows, buck.shapes


def _mode_rows(res: Any, ref: Any, part: Any, f: np.ndarray, f_mesh: np.ndarray, f_err: np.ndarray, *,
               static: bool, refined: bool) -> list[dict[str, Any]]:
    """modes.csv rows: ω², ω, f (corrected when ``refined``, with the mesh's own and the estimate), T, the
    ratio to the reference's ω² about a static state, participation, effective and cumulative masses."""
    rows = []
    for k in range(len(f)):
        w = 2 * np.pi * float(f[k]) if refined else float(res.omega[k])
        r: dict[str, Any] = {"mode": k + 1, "omega2": float(np.copysign(w * w, res.omega2[k])) if refined
                             else float(res.omega2[k]), "omega_rad_s": w, "freq_hz": float(f[k])}
        if refined:
            r |= {"freq_hz_mesh": float(f_mesh[k]), "freq_hz_error": float(f_err[k])}
        r["period_s"] = float(2 * np.pi / w) if w > 0 else float("nan")
        if static:
            ratio = float(res.omega2[k] / ref.omega2[k])
            # corrected: ω₀ = ω/√ratio with the case mesh's ratio, so that the row stays consistent
            r["omega0_rad_s"] = float(w / np.sqrt(ratio)) if refined and ratio > 0 else float(ref.omega[k])
            r["ratio"] = ratio
        for j, ax in enumerate("xyz"):
            r[f"participation_{ax}"] = float(part.gamma[k, j])
        for j, ax in enumerate("xyz"):
            r[f"effective_mass_{ax}"] = float(part.effective_mass[k, j])
        for j, ax in enumerate("xyz"):
            r[f"cumulative_mass_fraction_{ax}"] = float(part.cumulative_fraction[k, j])
        rows.append(r)
    return rows


def _mode_lines(rows: list[dict[str, Any]], *, static: bool, refined: bool) -> list[str]:
    """The printed table of ``_mode_rows``: its header and a line a mode."""
    extra = f"  {'ω₀ [rad/s]':>15}  {'ω²/ω₀²':>10}" if static else ""
    est = f"  {'± f [Hz]':>9}" if refined else ""
    lines = [(f"{'mode':>4}  {'omega [rad/s]':>15}  {'f [Hz]':>13}{est}  {'T [s]':>10}{extra}  "
              f"{'m_eff x, y, z [kg]':>32}  {'cumulative x, y, z':>20}")]
    for r in rows:
        tail = f"  {r['omega0_rad_s']:15.8g}  {r['ratio']:10.6f}" if static else ""
        me = "  ".join(f"{r[f'effective_mass_{a}']:10.4g}" for a in "xyz")
        cu = " ".join(f"{r[f'cumulative_mass_fraction_{a}']:6.3f}" for a in "xyz")
        pm = f"  {r['freq_hz_error']:9.2g}" if refined else ""
        lines.append(f"{r['mode']:>4d}  {r['omega_rad_s']:15.8g}  {r['freq_hz']:13.6g}{pm}  {r['period_s']:10.5g}{tail}  "
                     f"{me}  {cu}")
    return lines


def rod_modes_report(case: dict[str, Any], name: str, *, n: int, about: str, buckling: bool, out: Path,
                     amplitude: float) -> str:
    """Compute, write modes.csv and the ParaView series, and return the table to print."""
    rod, _, _ = build(case)
    what = f"{case['model']['geometry']} rod, N = {rod.mesh.n_elements}, L = {rod.mesh.length:g}"
    lines, rows, q, shapes, _ = modes_table(rod, case, name, what, n=n, about=about, buckling=buckling)
    write_csv(out / "modes.csv", rows)
    pvd = _write_shapes(rod, q, shapes, out, amplitude)
    lines.append(f"wrote {out / 'modes.csv'} and {pvd} (frame k = mode k)")
    return "\n".join(lines)
