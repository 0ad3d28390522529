"""Seed 000 Figs 2–3, 5–11 and 13–18: Lie group integrators on the heavy top, the N-fold spherical pendulum and
the two quadrotors, each number beside the seed's statement or the checked value of notes/000.md §8.

    python -m lgbeam.studies.lie_figures [--out DIR | --update] [--quick] [--only fig5,fig6,...]

writes ``lie-<figure>.{csv,png}`` and ``lie-summary.csv`` (figure, quantity, measured, seed or note value)
into a fresh, git-ignored ``outputs/lie-figures/<YYYYmmdd-HHMMSS>/``; ``--update`` writes the committed
``outputs/summary/`` instead. ``--quick`` shortens horizons and step lists (seconds, for the tests).

References are independent of the methods: scipy's DOP853 on the ambient equations (rtol = atol = 1e-13, 1e-12
for T = 3 and the quadrotors), as in the seed's "ODE45 with strict tolerance".
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter
from scipy.integrate import solve_ivp

from lgbeam.diagnostics import observed_order
from lgbeam.integrators.lie import SLGI, seed_controller
from lgbeam.io.run import make_run_dir
from lgbeam.models.heavy_top_lie import HeavyTopCotangent, HeavyTopKK
from lgbeam.models.pendulum_chain import SphericalPendulumChain
from lgbeam.models.quadrotors import TwoQuadrotorsPayload
from lgbeam.solve import ConstantStep, SaveAt, Solution, integrate
from lgbeam.studies._output import save_figure, write_csv

logger = logging.getLogger(__name__)

LAST = SaveAt(steps=10**7)
Row = list[Any]






def _dop853(field: Callable[..., np.ndarray], y0: np.ndarray, T: float, tol: float, **kw: object) -> np.ndarray:
    return solve_ivp(field, (0.0, T), y0, method="DOP853", rtol=tol, atol=tol, **kw).y[:, -1]


# --- heavy top, SLGI (Figs 2–3) -------------------------------------------------------------------------


def fig2_3(out: Path, quick: bool) -> list[Row]:
    """SLGI(θ) orders on the seed's heavy top (t ∈ [0, 1]) with the SLGIKK line ((29)–(32), θ = ½), the 3-D curve
    M l Q⁻¹Γ₀ and Q X (Fig. 2), and the long-time energy error (h = 0.01) of θ = ½ and θ = 0 on two panels (their
    scales differ 100×) with the θ = ½ run's M l Q⁻¹Γ₀ (Fig. 3)."""
    top, kk = HeavyTopCotangent(), HeavyTopKK()
    y0 = top.initial_state()
    ref = top.reference_solution([1.0])[-1]
    hs = np.array([1e-3, 5e-4] if quick else [1e-3, 5e-4, 2.5e-4, 1.25e-4])
    rows, summary = [], []
    fig = Figure(figsize=(13, 7.5))

    def error(Q: np.ndarray, pi: np.ndarray) -> float:
        return float(np.linalg.norm(Q.ravel() - ref[:9]) + np.linalg.norm(pi - ref[9:]) / np.linalg.norm(y0[9:]))

    ax = fig.add_subplot(2, 3, 3)
    for theta in (0.0, 0.5, 1.0):
        errs = []
        for h in hs:
            y = integrate(top, SLGI(theta=theta), y0, (0.0, 1.0), controller=ConstantStep(h), save=LAST).y[-1]
            errs.append(error(y[:9], y[9:]))
            rows.append([f"SLGI θ={theta:g}", h, errs[-1]])
        ax.loglog(hs, errs, "o-", label=f"SLGI θ={theta:g} (slope {observed_order(hs, errs):.2f})")
        summary.append(["Fig. 2", f"SLGI θ={theta:g} error at h=1e-3", errs[0],
                        {0.0: 2.081e-2, 0.5: 2.319e-2, 1.0: 2.579e-2}[theta]])
    summary.append(["Fig. 2", "SLGI θ=1/2 observed order",
                    observed_order(hs, [r[2] for r in rows if r[0] == "SLGI θ=0.5"]), "2 (seed: 'θ = 1/2 attain order 2')"])
    errs = []
    for h in hs:
        y = integrate(kk, SLGI(theta=0.5), kk.initial_state(), (0.0, 1.0), controller=ConstantStep(h), save=LAST).y[-1]
        errs.append(error(y[:16].reshape(4, 4)[:3, :3], y[16:19]))
        rows.append(["SLGIKK θ=0.5", h, errs[-1]])
    ax.loglog(hs, errs, "k+--", ms=10, label=f"SLGIKK θ=½ (slope {observed_order(hs, errs):.2f})")
    summary.append(["Fig. 2", "SLGIKK θ=1/2 error at h=1e-3 (= SLGI θ=1/2: notes §5.2)", errs[0], 2.319e-2])
    ax.set(xlabel="h", ylabel="error at t = 1", title="Fig. 2 (right): orders")
    ax.set_xticks(hs, [f"{h:.3g}" for h in hs], minor=False)
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=7)
    write_csv(out / "lie-fig2-slgi-orders.csv", ["method", "h", "error"], rows)
    tt = np.linspace(0, 1, 2001)
    traj = top.reference_solution(tt)
    Q = traj[:, :9].reshape(-1, 3, 3)
    a3 = fig.add_subplot(2, 3, 1, projection="3d")
    bg = top.mass * top.length * Q[:, 2, :]  # M l Qᵀ e₃ (Γ₀ = e₃): the third row of Q
    a3.plot(bg[:, 0], bg[:, 1], bg[:, 2], lw=0.5)
    a3.set_title("Fig. 2 (left): M l Q⁻¹Γ₀ on [0, 1] (reference)", fontsize=9)
    ax2 = fig.add_subplot(2, 3, 2)
    QX = np.einsum("kij,j->ki", Q, top.axis)
    for k, c in enumerate("xyz"):
        ax2.plot(tt, QX[:, k], label=f"(QX)_{c}")
    ax2.set(xlabel="t", title="Fig. 2 (centre): Q X")
    ax2.legend()
    steps = 1000 if quick else 6000
    energy_rows = []
    for col, theta in ((1, 0.5), (2, 0.0)):
        sol = integrate(top, SLGI(theta=theta), y0, (0.0, 0.01 * steps), controller=ConstantStep(0.01),
                        save=SaveAt(steps=1))
        t, E = np.asarray(sol.steps["t"]), np.asarray(sol.steps["energy"])
        ax3 = fig.add_subplot(2, 3, 3 + col)
        ax3.plot(t, E - E[0], lw=0.4, color=f"C{col - 1}")
        ax3.set(xlabel="t", ylabel="H − H₀", title=f"Fig. 3 (top): SLGI θ = {theta:g}, h = 0.01")
        energy_rows += [[theta, a, b - E[0]] for a, b in zip(t[::10], E[::10])]
        summary.append(["Fig. 3", f"SLGI θ={theta:g} max |H−H0| over {steps} steps (h=0.01)",
                        float(np.abs(E - E[0]).max()), {0.5: 0.1685, 0.0: 19.62}[theta] if steps == 6000 else "(6000 steps)"])
        summary.append(["Fig. 3", f"SLGI θ={theta:g} max |π·e3 − π0·e3|", float(np.ptp(sol.steps["pi_e3"])), "≤ 1e-10"])
        if theta == 0.5:
            Qs = np.asarray(sol.y)[:, :9].reshape(-1, 3, 3)
            bg = top.mass * top.length * Qs[:, 2, :]
            a6 = fig.add_subplot(2, 3, 6, projection="3d")
            a6.plot(bg[:, 0], bg[:, 1], bg[:, 2], lw=0.2)
            a6.set_title(f"Fig. 3 (bottom): M l Q⁻¹Γ₀, SLGI θ = ½, {steps} steps", fontsize=9)
    write_csv(out / "lie-fig3-slgi-energy.csv", ["theta", "t", "H-H0"], energy_rows)
    save_figure(fig, out / "lie-fig2-3-heavy-top.png")
    return summary


# --- double pendulum (Figs 5–7) ---------------------------------------------------------------------------

FIG5_METHODS = ("hs-lie-euler", "hs-heun", "hs-rkmk3", "hs-rkmk4", "hs-rkmk4-2c", "cf4", "cg3", "cf3a", "cf3b",
                "hs-rkmk5", "ambient-rk4")
NOTE_FIG5 = {"hs-lie-euler": 3.200e-1, "hs-heun": 8.495e-4, "hs-rkmk3": 1.635e-5, "hs-rkmk4": 2.810e-8,
             "hs-rkmk4-2c": 2.898e-8, "cf4": 2.361e-8, "cf3a": 1.493e-5, "cf3b": 1.299e-5, "hs-rkmk5": 7.771e-11}


def fig5(out: Path, quick: bool) -> list[Row]:
    """Global error at T = 1 against h on the double pendulum (notes §8.2 setting: paper IC, m = L = 1)."""
    chain = SphericalPendulumChain.uniform(2)
    y0 = chain.paper_state()
    ref = _dop853(chain.vector_field, y0, 1.0, 1e-13)
    hs = np.array([1 / 50, 1 / 100] if quick else [1 / 50, 1 / 100, 1 / 200, 1 / 400])
    rows, summary = [], []
    fig = Figure(figsize=(6, 4.5))
    ax = fig.add_subplot()
    for m in FIG5_METHODS:
        errs = [float(np.linalg.norm(integrate(chain, m, y0, (0.0, 1.0), controller=ConstantStep(h), save=LAST,
                                               diagnostics=False).y[-1] - ref)) for h in hs]
        p = observed_order(hs, errs)
        rows += [[m, h, e] for h, e in zip(hs, errs)]
        ax.loglog(hs, errs, "o-" if not m.startswith("ambient") else "k--", label=f"{m} ({p:.2f})")
        summary.append(["Fig. 5", f"{m} observed order (T=1, h={hs[0]:.3g}…{hs[-1]:.3g})", p,
                        "1,2,3,4,4,4 for Lie–Euler, Heun, RKMK3, RKMK4, RKMK4-2c, CF4"])
        if m in NOTE_FIG5 and not quick:
            summary.append(["Fig. 5", f"{m} error at h=1/400", errs[-1], NOTE_FIG5[m]])
    ax.set(xlabel="h", ylabel="‖y(1) − y_ref(1)‖₂", title="Fig. 5: double pendulum, errors at T = 1")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    save_figure(fig, out / "lie-fig5-orders.png")
    write_csv(out / "lie-fig5-orders.csv", ["method", "h", "error"], rows)
    return summary


def fig6_7(out: Path, quick: bool) -> list[Row]:
    """1 − q_iᵀq_i and q_iᵀw_i over [0, 5] (h = 5/999, non-planar start): Lie methods vs ambient RK4 / DOP853."""
    chain = SphericalPendulumChain.uniform(2)
    q1, q2 = np.ones(3) / np.sqrt(3), np.array([0.0, 0.6, 0.8])
    y0 = chain.state(np.array([q1, q2]), np.array([np.cross(q1, [0.5, -1, 2]), np.cross(q2, [1.0, 0, 0])]))
    T = 1.0 if quick else 5.0
    fig = Figure(figsize=(10, 3.8))
    a1, a2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    summary, rows = [], []
    for m in ("hs-lie-euler", "hs-rkmk4", "hs-rkmk4-2c", "cf4", "ambient-rk4"):
        sol = integrate(chain, m, y0, (0.0, T), controller=ConstantStep(5 / 999), save=SaveAt(steps=1))
        q, w = sol.y.reshape(len(sol.t), -1, 2, 3)[:, :, 0], sol.y.reshape(len(sol.t), -1, 2, 3)[:, :, 1]
        dq = 1 - np.einsum("kij,kij->ki", q, q)
        qw = np.einsum("kij,kij->ki", q, w)
        a1.semilogy(sol.t, np.abs(dq[:, 0]) + 1e-17, lw=0.7, label=m)
        a2.semilogy(sol.t, np.abs(qw[:, 0]) + 1e-17, lw=0.7, label=m)
        E = np.array([chain.energy(y) for y in sol.y])
        summary += [["Fig. 6", f"{m} max |1 − q·q| on [0,{T:g}]", float(np.abs(dq).max()),
                     "≈1e-15 Lie; notes 2.95e-7 for ambient RK4" if m.startswith("ambient") else "≈1e-15 (seed: kept)"],
                    ["Fig. 7", f"{m} max |q·w| on [0,{T:g}]", float(np.abs(qw).max()),
                     "notes 1.03e-6" if m.startswith("ambient") else "1e-14…1e-15 (seed)"],
                    ["Figs 6–7", f"{m} max |E − E0| on [0,{T:g}]", float(np.abs(E - E[0]).max()), "notes: 7e-5…8.5e-5 (order 4)"]]
        rows += [[m, float(np.abs(dq).max()), float(np.abs(qw).max()), float(np.abs(E - E[0]).max())]]
    sol = solve_ivp(chain.vector_field, (0.0, T), y0, method="DOP853", rtol=1e-12, atol=1e-12)
    q, w = sol.y.T.reshape(-1, 2, 2, 3)[:, :, 0], sol.y.T.reshape(-1, 2, 2, 3)[:, :, 1]
    dq, qw = 1 - np.einsum("kij,kij->ki", q, q), np.einsum("kij,kij->ki", q, w)
    a1.semilogy(sol.t, np.abs(dq[:, 0]) + 1e-17, "k:", lw=0.7, label="DOP853 (1e-12)")
    a2.semilogy(sol.t, np.abs(qw[:, 0]) + 1e-17, "k:", lw=0.7, label="DOP853 (1e-12)")
    rows.append(["dop853-1e-12", float(np.abs(dq).max()), float(np.abs(qw).max()), ""])
    a1.set(xlabel="t", ylabel="|1 − q₁ᵀq₁|", title="Fig. 6")
    a2.set(xlabel="t", ylabel="|q₁ᵀw₁|", title="Fig. 7")
    a1.legend(fontsize=7)
    save_figure(fig, out / "lie-fig6-7-invariants.png")
    write_csv(out / "lie-fig6-7-invariants.csv", ["method", "max|1-q.q|", "max|q.w|", "max|E-E0|"], rows)
    return summary


# --- variable steps (Figs 8–11) -------------------------------------------------------------------------


def _variable_run(chain: SphericalPendulumChain, y0: np.ndarray, T: float) -> tuple[dict[str, Any], Solution]:
    ref = _dop853(chain.vector_field, y0, T, 1e-12)
    sol = integrate(chain, "hs-rkmk5", y0, (0.0, T), controller=seed_controller(1e-6, h0=T / 100), save=LAST,
                    diagnostics=False)
    n = int(sol.stats["n_steps"])
    const = integrate(chain, "hs-rkmk5", y0, (0.0, T), controller=ConstantStep(T / n), save=LAST, diagnostics=False)
    return {"steps": n, "rejected": int(sol.stats["n_rejected"]), "err_var": float(np.linalg.norm(sol.y[-1] - ref)),
            "err_const": float(np.linalg.norm(const.y[-1] - ref)), "h_max": float(sol.stats["h_largest"])}, sol


NOTE_FIG8 = {2: (117, 1.052e-5, 3.739e-3), 4: (156, 8.904e-5, 3.329e-4), 20: (362, 1.469e-5, 2.996e-5)}
NOTE_FIG10 = {2: (60, 4.562e-6, 3.700e-6), 4: (123, 1.111e-5, 1.271e-4), 20: (795, 6.816e-5, 1.352e-1)}


def fig8_10(out: Path, quick: bool) -> list[Row]:
    """Accuracy at T = 3 vs N for RKMK(5,4) (tol 1e-6) and RKMK5 with as many equal steps; L_i = 1 and 5/N."""
    Ns = [2, 4, 6] if quick else list(range(2, 21, 2))
    summary, rows = [], []
    fig = Figure(figsize=(11, 7))
    for k, (label, length, note) in enumerate((("Fig. 8", lambda n: 1.0, NOTE_FIG8),
                                               ("Fig. 10", lambda n: 5.0 / n, NOTE_FIG10))):
        res = {}
        for n in Ns:
            chain = SphericalPendulumChain.uniform(n, length=length(n))
            r, sol = _variable_run(chain, chain.paper_state(), 3.0)
            res[n] = r
            rows.append([label, n, r["steps"], r["rejected"], r["err_var"], r["err_const"], r["h_max"]])
            if n in note:
                summary.append([label, f"N={n}: accepted steps / err var / err const",
                                f"{r['steps']} / {r['err_var']:.3e} / {r['err_const']:.3e}",
                                "notes §8.4: {} / {:.3e} / {:.3e}".format(*note[n])])
            if n == Ns[-1]:
                acc = np.asarray(sol.steps["accepted"]).astype(bool) & (np.asarray(sol.steps["h"]) > 0)
                ax = fig.add_subplot(2, 2, 2 * k + 2)
                ax.plot(np.asarray(sol.steps["t"])[acc], np.asarray(sol.steps["h"])[acc], ".-", ms=2)
                ax.set(xlabel="t", ylabel="h", title=f"{label} (right): RKMK(5,4) steps, N = {n}")
        ax = fig.add_subplot(2, 2, 2 * k + 1)
        ax.semilogy(Ns, [res[n]["err_var"] for n in Ns], "o-", label="RKMK(5,4), tol 1e-6")
        ax.semilogy(Ns, [res[n]["err_const"] for n in Ns], "s-", label="RKMK5, same number of steps")
        ax.set(xlabel="N", ylabel="error at T = 3", title=f"{label} (left): L_i = {'1' if k == 0 else '5/N'}")
        ax.legend(fontsize=8)
    save_figure(fig, out / "lie-fig8-10-variable-step.png")
    write_csv(out / "lie-fig8-10-variable-step.csv", ["figure", "N", "steps", "rejected", "err_var", "err_const", "h_max"],
         rows)
    return summary


def fig9_11(out: Path, quick: bool) -> list[Row]:
    """N = 2: components, step sizes of RKMK(5,4) / DOP853 (rtol 1e-6, atol 1e-12: the code's ODE45) / RKMK5,
    and the zoom of w_i^(2) on [2.1, 3]."""
    chain = SphericalPendulumChain.uniform(2)
    y0, T = chain.paper_state(), 3.0
    r, sol = _variable_run(chain, y0, T)
    st = sol.steps
    acc = np.asarray(st["accepted"]).astype(bool) & (np.asarray(st["h"]) > 0)
    t_acc, h_acc = np.asarray(st["t"])[acc], np.asarray(st["h"])[acc]
    dense = solve_ivp(chain.vector_field, (0.0, T), y0, method="DOP853", rtol=1e-12, atol=1e-12, dense_output=True)
    ode45 = solve_ivp(chain.vector_field, (0.0, T), y0, method="RK45", rtol=1e-6, atol=1e-12)
    var = integrate(chain, "hs-rkmk5", y0, (0.0, T), controller=seed_controller(1e-6, h0=T / 100), save=SaveAt(steps=1),
                    diagnostics=False)
    const = integrate(chain, "hs-rkmk5", y0, (0.0, T), controller=ConstantStep(T / r["steps"]), save=SaveAt(steps=1),
                      diagnostics=False)
    fig = Figure(figsize=(11, 3.8))
    a = fig.add_subplot(1, 3, 1)
    a.semilogy(t_acc, h_acc, ".-", ms=2, label=f"RKMK(5,4) ({r['steps']} steps)")
    a.semilogy(ode45.t[1:], np.diff(ode45.t), ".-", ms=2, label=f"RK45, rtol 1e-6 ({len(ode45.t) - 1})")
    a.axhline(T / r["steps"], color="k", ls="--", label="RKMK5 constant")
    a.set(xlabel="t", ylabel="h", title="Fig. 11 (a): step sizes, N = 2")
    a.legend(fontsize=7)
    b = fig.add_subplot(1, 3, 2)
    tz = np.linspace(2.1, 3.0, 400)
    b.plot(tz, dense.sol(tz)[4], "k-", lw=0.8, label="w₁⁽²⁾ reference")
    for name, s in (("RKMK(5,4)", var), ("RKMK5", const)):
        m = (s.t >= 2.1)
        b.plot(s.t[m], s.y[m, 4], ".", ms=3, label=name)
    b.set(xlabel="t", title="Fig. 11 (b): w₁⁽²⁾ on [2.1, 3]")
    b.legend(fontsize=7)
    c = fig.add_subplot(1, 3, 3)
    tt = np.linspace(0, T, 1500)
    wdot = np.array([chain.vector_field(0.0, y)[[4, 10]] for y in dense.sol(tt).T])
    c.plot(tt, wdot[:, 0], label="w₁′⁽²⁾")
    c.plot(tt, wdot[:, 1], label="w₂′⁽²⁾")
    c.set(xlabel="t", title="Fig. 11 (c): w_i′⁽²⁾")
    c.legend(fontsize=7)
    save_figure(fig, out / "lie-fig9-11-double-pendulum.png")
    fig9 = Figure(figsize=(11, 4.2))  # Fig. 9: the six components of (q_i, w_i) by the three methods
    for i in range(2):
        ax = fig9.add_subplot(1, 2, i + 1)
        for k in range(3):
            for j, (what, ls) in enumerate((("q", "-"), ("w", "--"))):
                col = 6 * i + 3 * j + k
                ax.plot(tt, dense.sol(tt)[col], ls, color=f"C{k}", lw=0.8,
                        label=f"{what}{i + 1}⁽{k + 1}⁾")
                ax.plot(var.t, var.y[:, col], "o", color=f"C{k}", ms=2.5, mfc="none",
                        label="RKMK(5,4)" if col % 6 == 0 else None)
                ax.plot(const.t[::3], const.y[::3, col], "s", color=f"C{k}", ms=1.8,
                        label="RKMK5, constant (every 3rd)" if col % 6 == 0 else None)
                ax.plot(ode45.t, ode45.y[col], "x", color=f"C{k}", ms=2.5,
                        label="RK45 (rtol 1e-6)" if col % 6 == 0 else None)
        ax.set(xlabel="t", title=f"Fig. 9: components of (q{i + 1}, w{i + 1}), N = 2 (lines: DOP853 reference)")
        ax.legend(fontsize=5, ncol=3)
    save_figure(fig9, out / "lie-fig9-components.png")
    write_csv(out / "lie-fig9-11-steps.csv", ["t", "h"], [[a_, b_] for a_, b_ in zip(t_acc, h_acc)])
    i = int(np.argmin(h_acc))
    return [["Figs 9/11", "N=2 smallest RKMK(5,4) step and its time", f"{h_acc[i]:.3e} at t={t_acc[i]:.3f}",
             "notes §8.4: 4.78e-3 at t=2.286; seed: step strongly reduced near t≈2.2"],
            ["Figs 9/11", "N=2 accepted/rejected steps", f"{r['steps']}/{r['rejected']}", "notes §8.4: 117/17"],
            ["Fig. 11", "RK45 (rtol 1e-6, atol 1e-12) steps on [0,3]", len(ode45.t) - 1, "(the code's ODE45)"]]


# --- quadrotors (Figs 13–18) ------------------------------------------------------------------------------


def fig13_18(out: Path, quick: bool) -> list[Row]:
    """RKMK convergence at T = 5 against DOP853, and the RKMK4 run of Figs 14–18 (h = 5/1999 as the code)."""
    model = TwoQuadrotorsPayload()
    P0 = model.initial_state()
    summary, rows = [], []
    fig = Figure(figsize=(11, 7))
    if not quick:
        ref = model.reference_solution([5.0])[-1]
        hs = 5.0 / np.array([250, 500, 1000, 2000])
        ax = fig.add_subplot(2, 3, 1)
        for m in ("hs-lie-euler", "hs-heun", "hs-rkmk3", "hs-rkmk4"):
            errs = []
            for h in hs:
                sol = integrate(model, m, P0, (0.0, 5.0), controller=ConstantStep(h), save=LAST, diagnostics=False)
                errs.append(float(np.linalg.norm(sol.y[-1] - ref)) if sol.status == "ok" else np.nan)
            rows += [[m, h, e] for h, e in zip(hs, errs)]
            ok = np.isfinite(errs)
            ax.loglog(hs[ok], np.asarray(errs)[ok], "o-", label=m)
            if ok.all():
                summary.append(["Fig. 13", f"{m} observed order (h = 5/500…5/2000)",
                                observed_order(hs[1:], np.asarray(errs)[1:]),
                                "notes §8.5: Heun 2, RKMK3 3, RKMK4 4; Lie–Euler unstable for h ≥ 0.01"])
            else:  # a slope through the finite points of an unstable method is no order (Lie–Euler: 2 points)
                summary.append(["Fig. 13", f"{m}: no order fitted, non-finite at h = "
                                + ", ".join(f"{h:g}" for h in hs[~ok]),
                                "errors " + ", ".join(f"{e:.4g}" for e in np.asarray(errs)[ok]) + " at h = "
                                + ", ".join(f"{h:g}" for h in hs[ok]),
                                "notes §8.5: Lie–Euler unstable for h ≥ 0.01; 138.5, 32.58 at 5e-3, 2.5e-3"])
        ax.set(xlabel="h", ylabel="error at T = 5", title="Fig. 13: convergence")
        ax.legend(fontsize=7)
        write_csv(out / "lie-fig13-orders.csv", ["method", "h", "error"], rows)
    h = 0.01 if quick else 5 / 1999
    sol = integrate(model, "hs-rkmk4", P0, (0.0, 5.0), controller=ConstantStep(h), save=SaveAt(steps=1))
    yd = np.array([model.desired(t)[0] for t in sol.t])
    y = sol.y[:, :3]
    ax = fig.add_subplot(2, 3, 2)
    for k, c in enumerate("xyz"):
        ax.plot(sol.t, y[:, k], "b-", lw=0.8)
        ax.plot(sol.t, yd[:, k], "r--", lw=0.8)
    ax.set(xlabel="t", title="Fig. 15: load position (blue) vs y_d (red)")
    st = sol.steps
    ax = fig.add_subplot(2, 3, 3)
    ax.semilogy(st["t"], st["tracking"])
    ax.set(xlabel="t", title="Fig. 16: |y − y_d|")
    ax = fig.add_subplot(2, 3, 4)
    ax.semilogy(st["t"], st["link_error_1"], label="|q₁ − q₁d|")
    ax.semilogy(st["t"], st["link_error_2"], label="|q₂ − q₂d|")
    ax.set(xlabel="t", title="Fig. 17: link direction errors")
    ax.legend(fontsize=7)
    ax = fig.add_subplot(2, 3, 5)
    q = sol.y[:, 30:42].reshape(-1, 2, 2, 3)[:, :, 0]
    ax.plot(sol.t, 1 - np.einsum("kij,kij->ki", q, q))
    ax.set(xlabel="t", title="Fig. 18: 1 − |q_i|²")
    ax = fig.add_subplot(2, 3, 6, projection="3d")
    ax.plot(y[:, 0], y[:, 1], y[:, 2], "b-")
    for k in range(0, len(sol.t), max(1, len(sol.t) // 10)):
        for i, L in enumerate(model.lengths):
            qi = sol.y[k, 30 + 6 * i: 33 + 6 * i]
            ax.plot(*np.stack([y[k], y[k] - L * qi]).T, "k-", lw=0.6)
    ax.invert_zaxis()
    ax.set_title("Fig. 14: snapshots (e₃ down)")
    save_figure(fig, out / "lie-fig13-18-quadrotors.png")
    t = np.asarray(st["t"])
    write_csv(out / "lie-fig15-18-tracking.csv", ["t", "tracking", "link_error_1", "link_error_2", "unit_q"],
         [[a, b, c, d, e] for a, b, c, d, e in zip(t, st["tracking"], st["link_error_1"], st["link_error_2"],
                                                    st["unit_q"])][:: max(1, len(t) // 500)])
    late = np.asarray(st["tracking"])[t >= 4.0]
    summary += [["Fig. 16", "max |y − y_d| for t ≥ 4 (RKMK4)", float(late.max()), "< 1e-3 (issue 14); notes ≈5e-5 at t=5"],
                ["Fig. 17", "link errors at t = 3", (f"{st['link_error_1'][np.argmin(abs(t - 3))]:.1e}, "
                 f"{st['link_error_2'][np.argmin(abs(t - 3))]:.1e}"), "notes §8.5: 4e-4, 5e-4"],
                ["Fig. 18", "max | |q_i| − 1 | and ‖RᵀR − I‖", (f"{np.nanmax(st['unit_q']):.1e}, "
                 f"{max(np.nanmax(st[k]) for k in st if k.startswith('orthogonality')):.1e}"),
                 "notes: ~1e-15, ~1e-14"]]
    return summary


FIGURES: dict[str, Callable[[Path, bool], list[Row]]] = {
    "fig2-3": fig2_3, "fig5": fig5, "fig6-7": fig6_7, "fig8-10": fig8_10, "fig9-11": fig9_11, "fig13-18": fig13_18,
}


def run(out: Path, quick: bool = False, only: list[str] | None = None) -> list[Row]:
    """Run the figures (all, or ``only``), write ``lie-summary.csv`` and return its rows."""
    names = only or list(FIGURES)
    unknown = sorted(set(names) - set(FIGURES))
    if unknown:
        raise ValueError(f"unknown figure(s) {', '.join(unknown)}; choose from {', '.join(FIGURES)}")
    rows: list[Row] = []
    for name in names:
        logger.info("seed 000 %s ...", name)
        rows += FIGURES[name](out, quick)
    suffix = "" if only is None else "-" + "-".join(names)
    write_csv(out / f"lie-summary{suffix}.csv", ["figure", "quantity", "measured", "seed or note"], rows)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=None, help="folder for CSV and PNG (default: a fresh run folder)")
    p.add_argument("--update", action="store_true", help="write the committed outputs/summary/lie-* files")
    p.add_argument("--quick", action="store_true", help="short horizons and step lists (seconds)")
    p.add_argument("--only", default=None, help=f"comma-separated subset of {', '.join(FIGURES)}")
    args = p.parse_args(argv)
    if args.out is not None and args.update:
        p.error("give --out DIR or --update, not both")
    if args.out is None and not args.update:
        out = make_run_dir("lie-figures", root="outputs")
    else:
        out = args.out if args.out is not None else Path("outputs") / "summary"
        out.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        rows = run(out, quick=args.quick, only=args.only.split(",") if args.only else None)
    except ValueError as exc:
        p.error(str(exc))
    for r in rows:
        logger.info("%-9s %-60s %-28s %s", *(str(x) for x in r))
    logger.info("figures and CSV in %s", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
