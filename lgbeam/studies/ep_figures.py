"""Seed 002 Figs. 1–3: integral-preserving Lie group methods on the free rigid body (S², S³) and the
pseudo-rigid body (GL⁺(3) ⋉ gl(3)*).

    python -m lgbeam.studies.ep_figures [--out outputs/seed002] [--summary outputs/summary] [--quick]

writes into ``--out``: ``fig1-sphere.{csv,png}`` (level curves of H on S² from sphere-gonzalez),
``fig2-orders.{csv,png}`` (global error at T = 1 against h: EP2-AVF, EP2-Gonzalez, EP4, Heun; Fig. 2 left),
``fig2-momentum.{csv,png}`` (EP4 body momentum on [0, 50], h = 1/16; Fig. 2 right), ``fig3-energy.{csv,png}``
(pseudo-rigid energy errors on [0, 500]: Heun h = 1/32, midpoint and EP h = 1/16; F(t)[1,1,1]ᵀ for 1000 steps;
det F_sym − det F_EP), and ``seed002-summary.csv`` — the measured numbers beside the paper's statements and the
notes' re-implementation (notes/002.md §8). Unless ``--quick``, the summary and the PNGs are copied to
``--summary``. ``--quick`` shortens every interval (for tests; not the paper's settings).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lgbeam.diagnostics import observed_order
from lgbeam.integrators.registry import make_method
from lgbeam.models.attitude import RigidBodyQuaternion, RigidBodySphere
from lgbeam.models.pseudo_rigid import PseudoRigidBody
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.studies._output import figures_main, save_figure, write_csv

logger = logging.getLogger(__name__)






def fig1(out: Path, quick: bool) -> list[list[float]]:
    """Fig. 1: trajectories of the body momentum on S² (I = diag(1, 2, 3)) by sphere-gonzalez, h = 0.05."""
    body = RigidBodySphere()
    T = 5.0 if quick else 20.0
    starts = [(1, 0.1, 0.1), (1, 0.5, 0.2), (0.2, 1, 0.1), (0.1, 0.3, 1), (0.6, 0.1, 1), (-1, 0.2, 0.3),
              (0.1, -1, 0.4), (0.3, 0.3, -1), (0.05, 1, -0.05)]
    fig = Figure(figsize=(5.5, 5))
    ax = fig.add_subplot(1, 1, 1, projection="3d")
    rows: list[list[float]] = []  # curve index, p0, H, max |ΔH|, max | |p| − 1 |
    for k, s in enumerate(starts):
        p0 = np.asarray(s, float) / np.linalg.norm(s)
        sol = integrate(body, "sphere-gonzalez", p0, (0.0, T), controller=ConstantStep(0.05))
        P = sol.y
        E = body.first_integral(P)
        rows.append([k, *p0, float(E[0]), float(np.abs(E - E[0]).max()), float(np.abs(np.linalg.norm(P, axis=1) - 1).max())])
        ax.plot(P[:, 0], P[:, 1], P[:, 2], lw=1)
    ax.set_title("Fig. 1: free rigid body on S², sphere-gonzalez (h = 0.05)")
    save_figure(fig, out / "fig1-sphere.png")
    write_csv(out / "fig1-sphere.csv", ["curve", "p1", "p2", "p3", "H", "max_energy_error", "max_norm_error"], rows)
    return rows


def fig2_orders(out: Path, quick: bool) -> dict[str, float]:
    """Fig. 2 left: global error at T = 1 against h on the Fig. 2 data (reference DOP853)."""
    body = RigidBodyQuaternion()
    q0 = body.initial_state()
    ref = body.reference([1.0])[-1]
    hs = 2.0 ** -np.arange(5, 8 if quick else 9)
    methods = {"ep2-avf": make_method("ep2-avf"), "ep2-gonzalez": make_method("ep2-gonzalez"),
               "ep4": make_method("ep4", quadrature=12), "lie-heun": make_method("lie-heun")}
    rows, slopes = [], {}
    fig = Figure(figsize=(5.5, 4.5))
    ax = fig.add_subplot(1, 1, 1)
    for name, m in methods.items():
        errs = []
        for h in hs:
            sol = integrate(body, m, q0, (0.0, 1.0), controller=ConstantStep(float(h)), save=SaveAt(steps=10**6))
            err = float(np.linalg.norm(sol.y[-1] - ref)) if sol.status == "ok" else float("nan")
            dH = float(abs(body.first_integral(sol.y[-1]) - body.first_integral(q0)))
            errs.append(err)
            rows.append([name, float(h), err, dH, sol.stats["n_iterations"] / max(1, sol.stats["n_steps"]), sol.status])
        fit = [(h, e) for h, e in zip(hs, errs) if h <= 2.0**-6 and np.isfinite(e)]  # notes §10.8: asymptotic range
        slopes[name] = observed_order(*zip(*fit)) if len(fit) >= 2 else float("nan")
        ax.loglog(hs, errs, "o-", label=f"{name} (slope {slopes[name]:.2f})")
    ax.loglog(hs, 2.0 * hs**2, "k:", lw=0.8, label="slope 2")
    ax.loglog(hs, 2.0 * hs**4, "k--", lw=0.8, label="slope 4")
    ax.set_xlabel("h")
    ax.set_ylabel("‖q(1) − q_ref(1)‖")
    ax.set_title("Fig. 2 left: I = diag(1, 5, 60), m₀ = I(1, 0.5, −1)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    save_figure(fig, out / "fig2-orders.png")
    write_csv(out / "fig2-orders.csv", ["method", "h", "error", "energy_error", "iterations_per_step", "status"], rows)
    return slopes


def fig2_momentum(out: Path, quick: bool) -> dict[str, float]:
    """Fig. 2 right: the body momentum M = E(q)ᵀ m₀ of EP4 on [0, 50], h = 1/16."""
    body = RigidBodyQuaternion()
    T = 5.0 if quick else 50.0
    sol = integrate(body, make_method("ep4", quadrature=12), body.initial_state(), (0.0, T),
                    controller=ConstantStep(1 / 16))
    M = body.body_momentum(sol.y)
    E = np.asarray(sol.steps["energy"])
    ref = body.reference([T])[-1]
    fig = Figure(figsize=(5.5, 5))
    ax = fig.add_subplot(1, 1, 1, projection="3d")
    ax.plot(M[:, 0], M[:, 1], M[:, 2], lw=0.6)
    ax.set_title(f"Fig. 2 right: EP4 body momentum, h = 1/16, [0, {T:g}]")
    save_figure(fig, out / "fig2-momentum.png")
    write_csv(out / "fig2-momentum.csv", ["t", "M1", "M2", "M3", "energy"],
         [[float(t), *map(float, m), float(e)] for t, m, e in zip(sol.t, M, [E[0], *E[: len(sol.t) - 1]])])
    return {"T": T, "max_energy_error": float(np.abs(E - E[0]).max()), "norm_M": float(np.linalg.norm(M[-1])),
            "M1_max": float(np.abs(M[:, 0]).max()), "M2_max": float(np.abs(M[:, 1]).max()),
            "M3_min": float(M[:, 2].min()), "M3_max": float(M[:, 2].max()),
            "final_error": float(np.linalg.norm(sol.y[-1] - ref)),
            "iterations_per_step": sol.stats["n_iterations"] / sol.stats["n_steps"]}


def fig3(out: Path, quick: bool) -> dict[str, float]:
    """Fig. 3: pseudo-rigid body energy errors ([0, 500]), F(t)[1,1,1]ᵀ (1000 steps), det F_sym − det F_EP."""
    body = PseudoRigidBody()
    x0 = body.initial_state()
    H0 = float(body.first_integral(x0))
    T = 20.0 if quick else 500.0
    save = SaveAt(every=1.0)
    ep = integrate(body, "ep2-gonzalez", x0, (0.0, T), controller=ConstantStep(1 / 16), save=save)
    sym = integrate(body, "lie-midpoint", x0, (0.0, T), controller=ConstantStep(1 / 16), save=save)
    heun = integrate(body, "lie-heun", x0, (0.0, T), controller=ConstantStep(1 / 32), save=save)
    dE = {k: body.first_integral(s.y) - H0 for k, s in (("ep", ep), ("sym", sym), ("heun", heun))}
    n_img = 100 if quick else 1000
    img = integrate(body, "ep2-gonzalez", x0, (0.0, n_img / 16), controller=ConstantStep(1 / 16), save=SaveAt(steps=1))
    F = img.y[:, :9].reshape(-1, 3, 3) @ np.ones(3)
    det_diff = body.determinant(sym.y) - body.determinant(ep.y)
    fig = Figure(figsize=(10, 7))
    a1, a2, a3, a4 = (fig.add_subplot(2, 2, k) for k in range(1, 5))
    a1.plot(heun.t, dE["heun"], ":", label="Heun, h = 1/32")
    a1.plot(sym.t, dE["sym"], "-", lw=0.7, label="symmetric (α = 0), h = 1/16")
    a1.legend(fontsize=7)
    a1.set_title("energy error")
    a2.plot(sym.t, dE["sym"], "-", lw=0.7, label="symmetric (α = 0)")
    a2.plot(ep.t, dE["ep"], "-", label="EP (30)")
    a2.legend(fontsize=7)
    a2.set_title("energy error, h = 1/16")
    a3.plot(F[:, 0], F[:, 1], lw=0.6)
    a3.set_title(f"F(t)[1,1,1]ᵀ (x, y), EP, {n_img} steps")
    a4.plot(np.arange(det_diff.size) * 16, det_diff, lw=0.7)
    a4.set_xlabel("step n")
    a4.set_title("det F_n(sym) − det F_n(EP)")
    for a in (a1, a2):
        a.set_xlabel("t")
    save_figure(fig, out / "fig3-energy.png")
    write_csv(out / "fig3-energy.csv", ["t", "dH_ep", "dH_sym", "dH_heun", "det_sym_minus_ep"],
         [[float(t), float(a), float(b), float(c), float(d)]
          for t, a, b, c, d in zip(ep.t, dE["ep"], dE["sym"], dE["heun"], det_diff)])
    return {"T": T, "H0": H0, "ep_max": float(np.abs(dE["ep"]).max()), "sym_max": float(np.abs(dE["sym"]).max()),
            "heun_final": float(dE["heun"][-1]), "det_min": float(body.determinant(ep.y).min()),
            "det_max": float(body.determinant(ep.y).max()), "det_diff_max": float(np.abs(det_diff).max())}


def run(out: Path, summary: Path | None, quick: bool = False) -> list[list[object]]:
    """All three figures; returns the summary rows (quantity, measured, paper, notes)."""
    out.mkdir(parents=True, exist_ok=True)
    f1 = fig1(out, quick)
    slopes = fig2_orders(out, quick)
    mom = fig2_momentum(out, quick)
    f3 = fig3(out, quick)
    rows: list[list[object]] = [
        ["fig1 max |dH| over the curves", max(r[5] for r in f1), "level curves of H", "<= 5e-16 (§8.1)"],
        ["fig1 max | |p| - 1 |", max(r[6] for r in f1), "on the sphere", "2e-16"],
        ["fig2 slope ep2-avf (h <= 2^-6)", slopes["ep2-avf"], "2", "1.97"],
        ["fig2 slope ep2-gonzalez (h <= 2^-6)", slopes["ep2-gonzalez"], "2", "1.97"],
        ["fig2 slope ep4 (h <= 2^-6)", slopes["ep4"], "4", "3.99-4.00"],
        ["fig2 slope lie-heun (h <= 2^-6)", slopes["lie-heun"], "(text only)", "2.1"],
        [f"fig2 EP4 max |dH| on [0, {mom['T']:g}]", mom["max_energy_error"], "preserved", "5.0e-13 on [0, 50]"],
        ["fig2 EP4 |M|", mom["norm_M"], "sphere", "60.060386"],
        ["fig2 EP4 max |M1|", mom["M1_max"], "-", "1.4715"],
        ["fig2 EP4 max |M2|", mom["M2_max"], "-", "3.4079"],
        ["fig2 EP4 min M3", mom["M3_min"], "-", "-60.0424"],
        ["fig2 EP4 max M3", mom["M3_max"], "-", "-59.9636"],
        [f"fig2 EP4 final error at t = {mom['T']:g}", mom["final_error"], "-", "1.96e-2 at t = 50"],
        ["fig2 EP4 iterations per step", mom["iterations_per_step"], "-", "46"],
        [f"fig3 EP max |dH| on [0, {f3['T']:g}]", f3["ep_max"], "~1e-12", "6.3e-13"],
        [f"fig3 symmetric max |dH| on [0, {f3['T']:g}]", f3["sym_max"], "~1e-3", "2.85e-4 (rel. 1.29e-3)"],
        [f"fig3 Heun dH at t = {f3['T']:g}", f3["heun_final"], "drift", "4.1e-2 at t = 500"],
        ["fig3 det F range (EP)", f"[{f3['det_min']:.4f}, {f3['det_max']:.4f}]", "> 0", "[0.7046, 1.3144]"],
        ["fig3 max |det F_sym - det F_EP|", f3["det_diff_max"], "grows", "1.5e-2"],
    ]
    write_csv(out / "seed002-summary.csv", ["quantity", "measured", "paper", "notes/002.md §8"], rows)
    if summary is not None and not quick:
        summary.mkdir(parents=True, exist_ok=True)
        for name in ("seed002-summary.csv", "fig1-sphere.png", "fig2-orders.png", "fig2-orders.csv", "fig2-momentum.png",
                     "fig3-energy.png"):
            shutil.copy(out / name, summary / ("seed002-" + name if not name.startswith("seed002") else name))
    for r in rows:
        logger.info("%s: %s (paper: %s; notes: %s)", *r)
    return rows


def main(argv: list[str] | None = None) -> int:
    return figures_main(argv, __doc__, run, "outputs/seed002", "the paper's")


if __name__ == "__main__":
    raise SystemExit(main())
