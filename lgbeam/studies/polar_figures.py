"""Seed 003 Figs. 4.1–4.3: the polar-decomposition Lie–Poisson method on the free rigid body (SO(3)),
plus the heavy-top check of notes/003-ch3plus.md §C.8.

    python -m lgbeam.studies.polar_figures [--out outputs/seed003-ch4] [--summary outputs/summary] [--quick]

writes into ``--out``: ``fig4-1-energy.{csv,png}`` (energy error on [0, 100], GL2, h = 0.2), ``fig4-2-trajectory.
{csv,png}`` (trajectory error against DOP853, growing linearly), ``fig4-3-orders.{csv,png}`` (max energy and
trajectory errors on [0, 100] against h = 0.4 … 0.05 for GL1/GL2/GL3, fitted slopes), ``heavy-top.csv`` (T = 20,
GL2, h = 0.2, 0.1, 0.05) and ``seed003-ch4-summary.csv`` beside the thesis's statements and the notes' numbers.
Unless ``--quick`` the summary and PNGs are copied to ``--summary``. Free body: J = diag(1, 2, 3),
μ₀ = (0.5, −0.5, 0.5), g₀ = I (thesis §4.5; g₀ unstated there). Trajectory error: max over the saved times of
|m − m_ref| (μ = hat(m)), and ‖g − g_ref‖_max.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
from matplotlib.figure import Figure

from lgbeam._typing import FloatArray
from lgbeam.diagnostics import observed_order
from lgbeam.groups.base import vee3
from lgbeam.models.son_bodies import FreeRigidBodySOn, HeavyTopSOn
from lgbeam.solve import ConstantStep, SaveAt, Solution, integrate
from lgbeam.studies._output import figures_main, save_figure, write_csv

logger = logging.getLogger(__name__)






class _Figures(TypedDict):
    """What ``figures`` measured: the horizon, the rows of fig4-3-orders.csv, the (energy, trajectory) slopes
    per method and the error ratio err(T)/err(T/2)."""

    T: float
    rows: list[list[Any]]
    slopes: dict[str, tuple[float, float]]
    linear: float


def _run(body: FreeRigidBodySOn, method: str, T: float,
         h: float) -> tuple[Solution, FloatArray, FloatArray, FloatArray, FloatArray]:
    ts = np.round(np.arange(0.0, T + 1e-9, 0.4), 12)
    sol = integrate(body, method, body.initial_state(), (0.0, T), controller=ConstantStep(h),
                    save=SaveAt(times=ts))
    ref = body.reference(ts, body.initial_state())
    m_err = np.linalg.norm(vee3(sol.y[:, 1]) - vee3(ref[:, 1]), axis=1)
    g_err = np.abs(sol.y[:, 0] - ref[:, 0]).max(axis=(1, 2))
    E = np.asarray(sol.steps["energy"])
    return sol, ts, m_err, g_err, E


def figures(out: Path, quick: bool) -> _Figures:
    body = FreeRigidBodySOn()
    T = 20.0 if quick else 100.0
    sol, ts, m_err, g_err, E = _run(body, "polar-lp-gl2", T, 0.2)
    t_steps = np.asarray(sol.steps["t"])  # the record's rows: the initial state at t = 0, then t = h, 2h, …, T
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(t_steps, E - E[0], lw=0.7)
    ax.set_xlabel("t")
    ax.set_ylabel("H − H₀")
    ax.set_title("Fig. 4.1: energy error, polar-lp-gl2, h = 0.2")
    save_figure(fig, out / "fig4-1-energy.png")
    write_csv(out / "fig4-1-energy.csv", ["t", "energy_error", "casimir_error"],
         [[float(t), float(e - E[0]), float(c - sol.steps["casimir"][0])]
          for t, e, c in zip(t_steps, E, np.asarray(sol.steps["casimir"]))])
    fig = Figure(figsize=(6, 3.5))
    ax = fig.add_subplot(1, 1, 1)
    ax.plot(ts, m_err, label="|m − m_ref|")
    ax.plot(ts, g_err, label="‖g − g_ref‖_max")
    ax.set_xlabel("t")
    ax.legend(fontsize=8)
    ax.set_title("Fig. 4.2: trajectory error, polar-lp-gl2, h = 0.2")
    save_figure(fig, out / "fig4-2-trajectory.png")
    write_csv(out / "fig4-2-trajectory.csv", ["t", "m_error", "g_error"], [[float(a), float(b), float(c)]
                                                                       for a, b, c in zip(ts, m_err, g_err)])
    half = ts.size // 2
    linear = float(m_err[-1] / max(m_err[half], 1e-300))  # ≈ 2 for linear growth
    # Fig. 4.3: max errors against h
    hs = np.array([0.4, 0.2, 0.1] if quick else [0.4, 0.2, 0.1, 0.05])
    rows: list[list[Any]] = []
    slopes: dict[str, tuple[float, float]] = {}
    fig = Figure(figsize=(10, 4))
    a1, a2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for s in (1, 2, 3):
        name = f"polar-lp-gl{s}"
        ee, et, it = [], [], []
        for h in hs:
            sl, _, me, ge, En = _run(body, name, T, float(h))
            ee.append(float(np.abs(En - En[0]).max()))
            et.append(float(max(me.max(), ge.max())))
            it.append(sl.stats["n_iterations"] / sl.stats["n_steps"])
            rows.append([name, float(h), ee[-1], float(me.max()), float(ge.max()),
                         float(np.abs(np.asarray(sl.steps["casimir"]) - sl.steps["casimir"][0]).max()),
                         float(np.asarray(sl.steps["orthogonality"]).max()), it[-1]])
        above = [(h, e) for h, e in zip(hs, ee) if e > 1e-12]  # fit above the round-off floor of H
        slopes[name] = (observed_order(*zip(*above)) if len(above) >= 2 else float("nan"), observed_order(hs, et))
        a1.loglog(hs, np.maximum(ee, 1e-17), "o-", label=f"GL{s} ({slopes[name][0]:.2f})")
        a2.loglog(hs, et, "o-", label=f"GL{s} ({slopes[name][1]:.2f})")
    for a, what in ((a1, "max |H − H₀|"), (a2, "max trajectory error")):
        a.set_xlabel("h")
        a.set_ylabel(what)
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=8, title="tableau (slope)", title_fontsize=8)
    fig.suptitle(f"Fig. 4.3: polar Lie–Poisson methods, free rigid body, [0, {T:g}]")
    save_figure(fig, out / "fig4-3-orders.png")
    write_csv(out / "fig4-3-orders.csv", ["method", "h", "max_energy_error", "max_m_error", "max_g_error", "max_casimir_error",
                                     "max_orthogonality", "iterations_per_step"], rows)
    return {"T": T, "rows": rows, "slopes": slopes, "linear": linear}


def heavy_top(out: Path, quick: bool) -> tuple[float, list[list[float]]]:
    top = HeavyTopSOn()
    y0 = top.initial_state()
    T = 5.0 if quick else 20.0
    ref = top.reference([T], y0)[-1]
    rows = []
    for h in ((0.2, 0.1) if quick else (0.2, 0.1, 0.05)):
        sol = integrate(top, "polar-gl2", y0, (0.0, T), controller=ConstantStep(h))
        E = np.asarray(sol.steps["energy"])
        v = [top.vertical_momentum(y) for y in sol.y]
        rows.append([h, float(np.linalg.norm(vee3(sol.y[-1][1]) - vee3(ref[1]))), float(np.abs(E - E[0]).max()),
                     float(np.abs(np.asarray(v) - v[0]).max())])
    write_csv(out / "heavy-top.csv", ["h", "momentum_error_at_T", "max_energy_error", "vertical_momentum_drift"], rows)
    return T, rows


def run(out: Path, summary: Path | None, quick: bool = False) -> list[list[object]]:
    out.mkdir(parents=True, exist_ok=True)
    f = figures(out, quick)
    T_top, ht = heavy_top(out, quick)
    gl2 = {r[1]: r for r in f["rows"] if r[0] == "polar-lp-gl2"}
    sl = f["slopes"]
    rows: list[list[object]] = [
        [f"GL2 h = 0.2 max energy error on [0, {f['T']:g}]", gl2[0.2][2], "bounded, no drift", "2.72e-8"],
        [f"GL2 h = 0.2 max |m - m_ref| on [0, {f['T']:g}]", gl2[0.2][3], "grows linearly", "8.40e-5"],
        [f"GL2 h = 0.2 max |g - g_ref| on [0, {f['T']:g}]", gl2[0.2][4], "-", "2.07e-4 (Frobenius)"],
        ["GL2 trajectory error ratio err(T)/err(T/2)", f["linear"], "linear growth (2)", "-"],
        ["GL2 max Casimir error", gl2[0.2][5], "-", "3.8e-14"],
        ["GL2 max |g^T g - I|", gl2[0.2][6], "-", "1e-15"],
        ["GL2 iterations per step (h = 0.2)", gl2[0.2][7], "-", "10.0"],
        ["slope energy GL1 / GL2 / GL3", "exact / {:.2f} / {:.2f}".format(sl["polar-lp-gl2"][0], sl["polar-lp-gl3"][0]),
         "GL2: about 4", "exact / 3.99-4.00 / 6.00"],
        ["slope trajectory GL1 / GL2 / GL3", "{:.2f} / {:.2f} / {:.2f}".format(*(sl[f"polar-lp-gl{s}"][1] for s in (1, 2, 3))),
         "GL2: about 4", "2.00 / 3.99-4.00 / 6.00"],
    ]
    notes_ht = {0.2: (1.08e-3, 1.73e-4), 0.1: (6.79e-5, 1.10e-5), 0.05: (4.25e-6, 6.91e-7)}
    for h, err, en, vert in ht:
        rows.append([f"heavy top T = {T_top:g}, h = {h}: |m - m_ref| / max energy error / vertical drift",
                     f"{err:.3e} / {en:.3e} / {vert:.1e}", "-", "{:.2e} / {:.2e} / 1e-14 (T = 20)".format(*notes_ht[h])])
    write_csv(out / "seed003-ch4-summary.csv", ["quantity", "measured", "thesis", "notes/003-ch3plus.md C.8"], rows)
    if summary is not None and not quick:
        summary.mkdir(parents=True, exist_ok=True)
        for name in ("seed003-ch4-summary.csv", "fig4-1-energy.png", "fig4-2-trajectory.png", "fig4-3-orders.png",
                     "fig4-3-orders.csv"):
            shutil.copy(out / name, summary / (name if name.startswith("seed003") else "seed003-" + name))
    for r in rows:
        logger.info("%s: %s (thesis: %s; notes: %s)", *r)
    return rows


def main(argv: list[str] | None = None) -> int:
    return figures_main(argv, __doc__, run, "outputs/seed003-ch4", "the thesis's")


if __name__ == "__main__":
    raise SystemExit(main())
