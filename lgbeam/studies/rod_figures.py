"""``python -m lgbeam.studies.rod_figures``: the rod's issue-4 studies as CSV + PNG in outputs/summary/.

Writes ``rod-fig9-orders``, ``rod-fig10-local-error``, ``rod-fig11-adaptive``, ``rod-fig12-stiffness``,
``rod-spatial``, ``rod-linear`` and (``--settle T``) ``rod-settling`` (``.csv`` and ``.png`` each),
and prints one summary line per study. ``--quick`` shortens the horizons (smoke run, about a minute);
``--only fig9,fig11`` runs a subset. Seed 004 §4 Figs. 9–12; see docs/rod.md "Studies".
"""

from __future__ import annotations

import argparse
import csv
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.diagnostics import observed_order
from lgbeam.studies import rod_dynamics as dyn
from lgbeam.studies import rod_linear as lin

logger = logging.getLogger(__name__)

STUDIES = ("fig9", "fig10", "fig11", "fig12", "spatial", "linear", "settle")


def _write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows([[f"{v:.10g}" if isinstance(v, (float, np.floating)) else v for v in r] for r in rows])


def _save(fig: Figure, path: Path) -> None:
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def fig9(out: Path, quick: bool) -> str:
    """Temporal orders for the roll-up (T = 0.05) and flying spaghetti (T = 0.05; HEDOP5 on T = 0.5)."""
    plan = {
        "roll-up": [(0.05, 64, m, ns) for m, ns in (("herk2-heun", (8, 16, 32)), ("herk3", (8, 16, 32)),
                                                     ("herk4", (4, 8, 16)), ("hedop5", (4, 8, 16)))],
        "flying-spaghetti": [(0.05, 128, m, ns) for m, ns in (("herk2-heun", (20, 40, 80)), ("herk3", (20, 40, 80)),
                                                               ("herk4", (28, 40, 56)))]
        + ([] if quick else [(0.5, 500, "hedop5", (125, 175, 250))]),
    }
    rows, lines = [], []
    fig = Figure(figsize=(10, 4))
    for ax, (name, runs) in zip(fig.subplots(1, 2), plan.items()):
        prob, refs = dyn.case_problem(name), {}
        for T, n_ref, method, ns in runs:
            if (T, n_ref) not in refs:
                refs[(T, n_ref)] = dyn.final_positions(prob, T, "hedop5", n_ref)
            hs = T / np.array(ns)
            errs = dyn.temporal_errors(prob, T, method, ns, refs[(T, n_ref)])
            p = observed_order(hs, errs)
            rows += [(name, method, T, h, e, p) for h, e in zip(hs, errs)]
            lines.append(f"{name} {method} T={T:g}: order {p:.2f}")
            ax.loglog(hs, errs, "o-", label=f"{method} (T={T:g}): {p:.2f}")
        ax.set(title=f"{name}: relative position error", xlabel="h", ylabel="error")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    _write_csv(out / "rod-fig9-orders.csv", ("case", "method", "T", "h", "error", "fitted_order"), rows)
    _save(fig, out / "rod-fig9-orders.png")
    return "; ".join(lines)


def fig10(out: Path, quick: bool) -> str:
    """Local error estimate along fixed-step HEDOP5 runs with 2h, h, h/2 (both cases)."""
    T = 0.2 if quick else 2.0
    plan = {"roll-up": 0.005, "flying-spaghetti": 0.0025}
    rows, lines = [], []
    fig = Figure(figsize=(10, 4))
    for ax, (name, h) in zip(fig.subplots(1, 2), plan.items()):
        prob = dyn.case_problem(name)
        runs = {hh: dyn.fixed_step_estimates(prob, T, hh) for hh in (2 * h, h, h / 2)}
        for hh, (t, err, _) in runs.items():
            ax.semilogy(t, err, lw=0.8, label=f"h = {hh:g}")
        t2 = runs[2 * h][0]  # the times common to all three runs
        rows += [(name, h, ti, a, b, c) for ti, a, b, c in
                 zip(t2, runs[2 * h][1], runs[h][1][1::2], runs[h / 2][1][3::4])]
        ratios = []
        for big, small in ((2 * h, h), (h, h / 2)):
            ratios.append(float(np.mean(np.log2(runs[big][1] / runs[small][1][1::2]))))
        lines.append(f"{name}: mean log2 err(2h)/err(h) = {ratios[0]:.2f}, err(h)/err(h/2) = {ratios[1]:.2f}")
        ax.set(title=f"{name}: HEDOP5 err at fixed h", xlabel="t", ylabel="err (eq. (21))")
        ax.legend(fontsize=7)
    _write_csv(out / "rod-fig10-local-error.csv", ("case", "h", "t", "err_2h", "err_h", "err_h/2"), rows)
    _save(fig, out / "rod-fig10-local-error.png")
    return "; ".join(lines)


def _history_plot(out: Path, stem: str, hists: dict[str, dict[str, np.ndarray]]) -> None:
    rows = [(label, t, h, e) for label, d in hists.items() for t, h, e in zip(d["t"], d["h"], d["err"])]
    _write_csv(out / f"{stem}.csv", ("run", "t", "h", "err"), rows)
    fig = Figure(figsize=(7, 6))
    ax_err, ax_h = fig.subplots(2, 1, sharex=True)
    for label, d in hists.items():
        ax_err.semilogy(d["t"], d["err"], lw=0.7, label=label)
        ax_h.semilogy(d["t"], d["h"], lw=0.9, label=label)
    ax_err.set(ylabel="err (accepted steps)")
    ax_h.set(xlabel="t", ylabel="h")
    ax_err.legend(fontsize=8)
    _save(fig, out / f"{stem}.png")


def _summary(label: str, d: dict[str, np.ndarray]) -> str:
    early = np.median(d["h"][(d["t"] > 0.2) & (d["t"] < 1.0)])
    late = np.median(d["h"][d["t"] > 0.8 * d["t"][-1]])
    return (f"{label}: {d['t'].size} steps ({int(d['n_rejected'])} rejected, {float(d['wall_time_s']):.0f} s), "
            f"median h {early:.3g} on (0.2, 1) → {late:.3g} at the end")


def fig11(out: Path, quick: bool) -> str:
    """Adaptive HEDOP5 (Atol 1e-8, Rtol 1e-6) err and h histories, roll-up and flying spaghetti."""
    T = 1.0 if quick else 5.0
    hists = {name: dyn.adaptive_history(dyn.case_problem(name), T) for name in ("roll-up", "flying-spaghetti")}
    _history_plot(out, "rod-fig11-adaptive", hists)
    return "; ".join(_summary(k, d) for k, d in hists.items())


def fig12(out: Path, quick: bool) -> str:
    """Roll-up with C_K = 5e2 and 5e4: adaptive HEDOP5 histories."""
    T = 1.0 if quick else 5.0
    base = dyn.case_problem("roll-up")
    hists = {f"C_K = {c:g}": dyn.adaptive_history(dyn.with_bending_stiffness(base, c), T) for c in (5e2, 5e4)}
    _history_plot(out, "rod-fig12-stiffness", hists)
    return "; ".join(_summary(k, d) for k, d in hists.items())


def spatial(out: Path, quick: bool) -> str:
    """Static tip of cantilever-tip-load, N = 4 … 128 against N = 256."""
    ns = np.array([4, 8, 16, 32] if quick else [4, 8, 16, 32, 64, 128])
    tips = lin.static_tips("cantilever-tip-load", ns)
    errs, p = lin.spatial_order(ns, tips, lin.static_tips("cantilever-tip-load", [256])[0])
    _write_csv(out / "rod-spatial.csv", ("n_elements", "tip_x", "tip_y", "tip_z", "tip_error"),
               [(int(n), *t, e) for n, t, e in zip(ns, tips, errs)])
    fig = Figure(figsize=(5, 4))
    ax = fig.add_subplot()
    ax.loglog(ns, errs, "o-", label=f"tip error vs N = 256: order {p:.2f}")
    ax.set(xlabel="N", ylabel="|x_tip − x_tip,ref| (m)", title="cantilever-tip-load (static)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, out / "rod-spatial.png")
    return f"spatial order of the static tip (N = {ns[0]}…{ns[-1]} vs 256): {p:.2f}"


def linear(out: Path, quick: bool) -> str:
    """Small-amplitude frequencies and static compliance against Euler–Bernoulli (FEM and closed form)."""
    ns = np.array([4, 8, 16, 32] if quick else [4, 8, 16, 32, 64, 128])
    ref = lin.euler_bernoulli_reference(lin.case_with("cantilever-tip-load", 16), 3)
    rows = []
    for n in ns:
        case = lin.case_with("cantilever-tip-load", int(n))
        om = lin.transverse_frequencies(case, 3)
        om_eb = lin.transverse_frequencies(case, 3, rotary_inertia_scale=1e-4)
        delta = -lin.static_tip(case)[2] / 10.0
        rows.append((int(n), *om, *om_eb, delta))
    head = ("n_elements", "omega1", "omega2", "omega3", "omega1_rhoJx1e-4", "omega2_rhoJx1e-4", "omega3_rhoJx1e-4",
            "compliance")
    rows.append(("EB closed form", *ref["omega_exact"], *ref["omega_exact"], ref["compliance_exact"]))
    rows.append(("EB scikit-fem N=16", *ref["omega_fem"], *ref["omega_fem"], ref["compliance_fem"]))
    _write_csv(out / "rod-linear.csv", head, rows)
    data = np.array([r[1:] for r in rows[:-2]], dtype=float)
    exact = np.array(rows[-2][1:], dtype=float)
    errs = np.abs(data - exact) / exact
    fig = Figure(figsize=(6, 4.5))
    ax = fig.add_subplot()
    orders = []
    for j, label in enumerate(head[1:]):
        p = -observed_order(ns[1:], errs[1:, j])
        orders.append(f"{label} {p:.2f}")
        ax.loglog(ns, errs[:, j], "o-" if j > 2 else "x--", label=f"{label}: {p:.2f}")
    ax.set(xlabel="N", ylabel="relative error vs EB closed form", title="cantilever-tip-load, linear regime")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    _save(fig, out / "rod-linear.png")
    return "linear regime fitted orders (N ≥ 8): " + ", ".join(orders)


def settle(out: Path, t_end: float) -> str:
    """Long adaptive roll-up: |tip − clamp| at save points and the step sizes."""
    d = dyn.adaptive_history(dyn.case_problem("roll-up"), t_end, save_every=1.0)
    _write_csv(out / "rod-settling.csv", ("t", "tip_clamp_distance"), list(zip(d["t_save"], d["gap"])))
    fig = Figure(figsize=(7, 6))
    ax_g, ax_h = fig.subplots(2, 1, sharex=True)
    ax_g.semilogy(d["t_save"], d["gap"])
    ax_g.axhline(1e-6, color="k", ls=":")
    ax_g.set(ylabel="|tip − clamp|")
    ax_h.semilogy(d["t"], d["h"])
    ax_h.set(xlabel="t", ylabel="h")
    _save(fig, out / "rod-settling.png")
    below = np.flatnonzero(d["gap"] < 1e-6)
    when = f"first below 1e-6 at t = {d['t_save'][below[0]]:g}" if below.size else f"min {d['gap'].min():.3g}"
    return (f"roll-up settling to t = {t_end:g}: {d['t'].size} steps, {float(d['wall_time_s']):.0f} s, "
            f"final |tip − clamp| = {d['gap'][-1]:.3g} ({when}), final h = {d['h'][-1]:.3g}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lgbeam.studies.rod_figures", description=__doc__.split("\n\n")[1])
    ap.add_argument("--out", type=Path, default=Path("outputs/summary"), help="output folder (default outputs/summary)")
    ap.add_argument("--quick", action="store_true", help="short horizons (smoke run)")
    ap.add_argument("--only", default=",".join(s for s in STUDIES if s != "settle"), help=f"subset of {','.join(STUDIES)}")
    ap.add_argument("--settle", type=float, default=300.0, metavar="T", help="horizon of the settling run (default 300)")
    args = ap.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    bad = sorted(set(chosen) - set(STUDIES))
    if bad:
        raise SystemExit(f"unknown studies {bad}; choose from {', '.join(STUDIES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    table: dict[str, Callable[[], str]] = {
        "fig9": lambda: fig9(args.out, args.quick), "fig10": lambda: fig10(args.out, args.quick),
        "fig11": lambda: fig11(args.out, args.quick), "fig12": lambda: fig12(args.out, args.quick),
        "spatial": lambda: spatial(args.out, args.quick), "linear": lambda: linear(args.out, args.quick),
        "settle": lambda: settle(args.out, args.settle),
    }
    for name in chosen:
        print(f"{name}: {table[name]()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
