"""Seed 004 Figs. 1–6 for the heavy top: convergence of q and λ for every half-explicit method, the
drift-off of ‖Φ(q)‖ in the four groups, and the step-size history of adaptive HEDOP5.

    python -m lgbeam.studies.heavy_top_figures [--out DIR | --update] [--quick]

writes ``heavy-top-orders.{csv,png}``, ``heavy-top-drift.{csv,png}``, ``heavy-top-adaptive.{csv,png}`` into a
fresh, git-ignored folder ``outputs/heavy-top-figures/<YYYYmmdd-HHMMSS>/``; ``--update`` writes the
committed ``outputs/summary/`` files instead, ``--out DIR`` any folder.
Errors are measured against the independent minimal-coordinate reference
(``lgbeam.models.heavy_top.reference_solution``, scipy DOP853 at rtol 1e-13).
"""

from __future__ import annotations

import argparse
import csv
import logging
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.diagnostics import observed_order
from lgbeam.integrators.registry import methods_for
from lgbeam.io.run import make_run_dir
from lgbeam.models.heavy_top import GROUPS, HeavyTop, reference_solution
from lgbeam.solve import AdaptiveStep, ConstantStep, MechanicalState, integrate
from lgbeam.systems import ConstrainedMechanicalSystem

logger = logging.getLogger(__name__)


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _label(ax, xlabel: str, ylabel: str, title: str | None = None, **legend) -> None:  # type: ignore[no-untyped-def]
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(**legend)


def _save(fig: Figure, path: Path) -> None:
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def orders(out: Path, group: str = "S3R3", quick: bool = False) -> list[list[object]]:
    """Figs. 1/5: global errors of q and λ at t = 0.2 against h, every method, fitted slopes."""
    top = HeavyTop(group)
    q0, v0 = top.initial_state()
    T = 0.05 if quick else 0.2
    R, x, lam = reference_solution(top, [T])
    hs = np.array([1 / 400, 1 / 800, 1 / 1600] if quick else [1 / 400, 1 / 800, 1 / 1600, 1 / 3200])
    rows: list[list[object]] = []
    fig = Figure(figsize=(10, 4))
    axq, axl = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for name in methods_for(ConstrainedMechanicalSystem):
        eq, el = [], []
        for h in hs:
            sol = integrate(top, name, MechanicalState(q0, v0), (0.0, T), controller=ConstantStep(float(h)))
            qf = sol.q[-1]
            eq.append(max(np.abs(top.group.rotation(qf) - R[-1]).max(), np.abs(top.group.translation(qf) - x[-1]).max()))
            el.append(np.abs(sol.lam[-1] - lam[-1]).max() / np.abs(lam[-1]).max())
            rows.append([group, name, h, eq[-1], el[-1]])
        pq, pl = (observed_order(hs, e) for e in (eq, el))
        axq.loglog(hs, eq, "o-", label=f"{name} ({pq:.2f})")
        axl.loglog(hs, el, "o-", label=f"{name} ({pl:.2f})")
    for ax, what in ((axq, "max error in R and x"), (axl, "relative error in λ")):
        _label(ax, "h", what, fontsize=7, title="method (fitted order)", title_fontsize=7)
    fig.suptitle(f"heavy top in {group}, t = {T}: errors against the minimal-coordinate reference")
    _save(fig, out / "heavy-top-orders.png")
    _write_csv(out / "heavy-top-orders.csv", ["group", "method", "h", "error_q", "error_lam_rel"], rows)
    return rows


def drift(out: Path, quick: bool = False) -> dict[str, float]:
    """Figs. 3/6: ‖Φ(q)‖ over time, herk4 with h = 1e-3, in the four groups (no projection)."""
    T = 0.5 if quick else 2.0
    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    rows: list[list[object]] = []
    final: dict[str, float] = {}
    for group in GROUPS:
        top = HeavyTop(group)
        q0, v0 = top.initial_state()
        sol = integrate(top, "herk4", MechanicalState(q0, v0), (0.0, T), controller=ConstantStep(1e-3))
        t, phi = sol.steps["t"], np.maximum(sol.steps["phi"], 1e-17)
        ax.semilogy(t, phi, label=group, lw=0.8)
        rows += [[group, tt, pp] for tt, pp in zip(t[::10], phi[::10])]
        final[group] = float(phi.max())
    _label(ax, "t", "‖Φ(q)‖", "drift-off, herk4, h = 1e-3 (index-2, no projection)")
    _save(fig, out / "heavy-top-drift.png")
    _write_csv(out / "heavy-top-drift.csv", ["group", "t", "phi_norm"], rows)
    return final


def adaptive(out: Path, quick: bool = False) -> tuple[int, int]:
    """Adaptive HEDOP5 (rtol = atol = 1e-8) on t ∈ [0, 1]: step sizes of accepted and rejected steps."""
    top = HeavyTop("S3R3")
    q0, v0 = top.initial_state()
    sol = integrate(top, "hedop5", MechanicalState(q0, v0), (0.0, 0.2 if quick else 1.0),
                    controller=AdaptiveStep(rtol=1e-8, atol=1e-8))
    st = sol.steps
    acc = st["accepted"][1:] > 0
    t, h = st["t"][1:], st["h"][1:]
    fig = Figure(figsize=(6, 4))
    ax = fig.add_subplot()
    ax.semilogy(t[acc], h[acc], "-", lw=0.8, label=f"accepted ({acc.sum()})")
    ax.semilogy(t[~acc], h[~acc], "rx", label=f"rejected ({(~acc).sum()})")
    _label(ax, "t", "h", "heavy top, adaptive HEDOP5, rtol = atol = 1e-8")
    _save(fig, out / "heavy-top-adaptive.png")
    _write_csv(out / "heavy-top-adaptive.csv", ["t", "h", "err", "accepted"],
               [[a, b, c, int(d)] for a, b, c, d in zip(st["t"], st["h"], st["err"], st["accepted"])])
    return int(acc.sum()), int((~acc).sum())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=None,
                   help="folder for CSV and PNG (default: a fresh outputs/heavy-top-figures/<YYYYmmdd-HHMMSS>/)")
    p.add_argument("--update", action="store_true", help="write the committed outputs/summary/heavy-top-* files")
    p.add_argument("--quick", action="store_true", help="shorter horizons and fewer step sizes")
    args = p.parse_args(argv)
    if args.out is not None and args.update:
        p.error("give --out DIR or --update, not both (--update writes the committed outputs/summary/)")
    out = output_dir(args.out, args.update)
    orders(out, quick=args.quick)
    final = drift(out, quick=args.quick)
    n_acc, n_rej = adaptive(out, quick=args.quick)
    print(f"max ‖Φ‖: {final}; adaptive HEDOP5: {n_acc} accepted, {n_rej} rejected steps; figures in {out}")
    return 0


def output_dir(out: Path | None, update: bool) -> Path:
    """``out``; the committed ``outputs/summary`` with ``update``; else a fresh git-ignored run folder."""
    if out is None and not update:
        return make_run_dir("heavy-top-figures", root="outputs")
    folder = out if out is not None else Path("outputs") / "summary"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


if __name__ == "__main__":
    raise SystemExit(main())
