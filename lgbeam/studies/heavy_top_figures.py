"""Seed 004 Figs. 1–6 for the heavy top (§2.4): convergence of q and λ for every half-explicit method in
each of the four groups (Figs. 1, 2, 4, 5), the drift-off of ‖Φ(q)‖ = ‖Rᵀx − X‖ in the direct against the
semidirect products (Figs. 3, 6), and the step-size history of adaptive HEDOP5.

    python -m lgbeam.studies.heavy_top_figures [--out DIR | --update] [--quick] [--only fig1,fig3,...]

writes, per figure, ``heavy-top-fig1-SO3xR3``, ``heavy-top-fig2-SE3``, ``heavy-top-fig4-S3xR3``,
``heavy-top-fig5-S3R3`` (orders), ``heavy-top-fig3-drift``, ``heavy-top-fig6-drift`` and
``heavy-top-adaptive`` as ``.csv`` and ``.png`` into a fresh, git-ignored folder
``outputs/heavy-top-figures/<YYYYmmdd-HHMMSS>/``; ``--update`` writes the committed ``outputs/summary/``
files instead, ``--out DIR`` any folder. Errors are measured against the independent minimal-coordinate
reference (``lgbeam.models.heavy_top.reference_solution``, scipy DOP853 at rtol 1e-13).

The seed states the groups, the methods (Table 1, orders 1–5) and the plotted quantities, not the step sizes
or horizons; those used here are: convergence at t = 0.2 with h = 1/400 … 1/3200, drift-off
with h = 10⁻³ on t ∈ [0, 4] for herk4 and herk2-midpoint (``--quick``: shorter horizons, three step sizes).
"""

from __future__ import annotations

import argparse
import csv
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.diagnostics import observed_order
from lgbeam.io.run import make_run_dir
from lgbeam.models.heavy_top import HeavyTop, reference_solution
from lgbeam.solve import AdaptiveStep, ConstantStep, MechanicalState, integrate

logger = logging.getLogger(__name__)

#: seed 004 figure → group of its convergence study (left: q, right: λ)
CONVERGENCE = {"fig1": "SO3xR3", "fig2": "SE3", "fig4": "S3xR3", "fig5": "S3R3"}
#: seed 004 figure → (left, right) groups of its drift-off plot
DRIFT = {"fig3": ("SO3xR3", "SE3"), "fig6": ("S3xR3", "S3R3")}
FIGURES = ("fig1", "fig2", "fig3", "fig4", "fig5", "fig6", "adaptive")
DRIFT_METHODS = ("herk4", "herk2-midpoint")
#: the seed's methods: Table 1's half-explicit Runge–Kutta rows (orders 1–5)
SEED_METHODS = ("herk1", "herk2-midpoint", "herk2-heun", "herk2-c2", "herk3", "herk4", "hedop5")


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _label(ax: Axes, xlabel: str, ylabel: str, title: str | None = None, **legend: object) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(**legend)  # type: ignore[arg-type]  # matplotlib's legend kwargs are untyped keywords


def _save(fig: Figure, path: Path) -> None:
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def convergence_errors(group: str, method: str, hs: Sequence[float], T: float) -> tuple[list[float], list[float]]:
    """Errors at t = T for each h: max |R − R_ref|, |x − x_ref| and max|λ − λ_ref| / max|λ_ref|."""
    top = HeavyTop(group)
    q0, v0 = top.initial_state()
    R, x, lam = reference_solution(top, [T])
    eq, el = [], []
    for h in hs:
        sol = integrate(top, method, MechanicalState(q0, v0), (0.0, T), controller=ConstantStep(float(h)))
        qf = sol.q[-1]
        eq.append(float(max(np.abs(top.group.rotation(qf) - R[-1]).max(),
                            np.abs(top.group.translation(qf) - x[-1]).max())))
        el.append(float(np.abs(sol.lam[-1] - lam[-1]).max() / np.abs(lam[-1]).max()))
    return eq, el


def orders(out: Path, fig_id: str = "fig5", quick: bool = False, methods: Sequence[str] | None = None,
           T: float | None = None, hs: Sequence[float] | None = None) -> dict[str, tuple[float, float]]:
    """Figs. 1, 2, 4, 5: global errors of q (left) and λ (right) at t = T against h, fitted slopes.

    Writes ``heavy-top-<fig_id>-<group>.{csv,png}``; returns {method: (order of q, order of λ)}."""
    group = CONVERGENCE[fig_id]
    T = (0.05 if quick else 0.2) if T is None else T
    hs = ([1 / 400, 1 / 800, 1 / 1600] if quick else [1 / 400, 1 / 800, 1 / 1600, 1 / 3200]) if hs is None else hs
    names = list(SEED_METHODS if methods is None else methods)
    rows: list[list[object]] = []
    fitted: dict[str, tuple[float, float]] = {}
    fig = Figure(figsize=(10, 4))
    axq, axl = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    for name in names:
        eq, el = convergence_errors(group, name, hs, T)
        pq, pl = observed_order(hs, eq), observed_order(hs, el)
        fitted[name] = (pq, pl)
        rows += [[group, name, h, a, b, pq, pl] for h, a, b in zip(hs, eq, el)]
        axq.loglog(hs, eq, "o-", label=f"{name} ({pq:.2f})")
        axl.loglog(hs, el, "o-", label=f"{name} ({pl:.2f})")
    for ax, what in ((axq, "max error in R and x"), (axl, "relative error in λ")):
        _label(ax, "h", what, fontsize=7, title="method (fitted order)", title_fontsize=7)
    fig.suptitle(f"seed 004 {fig_id.replace('fig', 'Fig. ')}: heavy top in {group}, t = {T}, "
                 "errors against the minimal-coordinate reference")
    stem = f"heavy-top-{fig_id}-{group}"
    _save(fig, out / f"{stem}.png")
    _write_csv(out / f"{stem}.csv", ["group", "method", "h", "error_q", "error_lam_rel", "order_q", "order_lam"],
               rows)
    return fitted


def constraint_residual(group: str, method: str, h: float, T: float) -> tuple[np.ndarray, np.ndarray]:
    """(t_n, ‖Φ(q_n)‖) of an index-2 run without projection (Φ = Rᵀx − X, the position constraint)."""
    top = HeavyTop(group)
    q0, v0 = top.initial_state()
    sol = integrate(top, method, MechanicalState(q0, v0), (0.0, T), controller=ConstantStep(h))
    return np.asarray(sol.steps["t"], dtype=float), np.asarray(sol.steps["phi"], dtype=float)


def drift(out: Path, fig_id: str = "fig3", quick: bool = False, methods: Sequence[str] = DRIFT_METHODS,
          h: float = 1e-3, T: float | None = None) -> dict[tuple[str, str], tuple[float, float]]:
    """Figs. 3, 6: ‖Φ(q)‖ over t, direct product (left) against semidirect product (right), no projection.

    Writes ``heavy-top-<fig_id>-drift.{csv,png}``; returns {(group, method): (max ‖Φ‖ on the
    first half of [0, T], max ‖Φ‖ on the second half)}: equal for a bounded residual, about ×2 for a linear
    drift from ‖Φ(q₀)‖ = 0."""
    T = (0.5 if quick else 4.0) if T is None else T
    every = max(1, round(0.01 / h))  # the CSV keeps one step in every 0.01 time units; the PNG every step
    fig = Figure(figsize=(10, 4))
    rows: list[list[object]] = []
    halves: dict[tuple[str, str], tuple[float, float]] = {}
    for k, group in enumerate(DRIFT[fig_id]):
        ax = fig.add_subplot(1, 2, k + 1)
        for method in methods:
            t, phi = constraint_residual(group, method, h, T)
            first = t <= T / 2
            halves[(group, method)] = (float(phi[first].max()), float(phi[~first].max()))
            ax.semilogy(t, np.maximum(phi, 1e-17), lw=0.8, label=method)
            rows += [[group, method, tt, pp] for tt, pp in zip(t[::every], phi[::every])]
        _label(ax, "t", "‖Φ(q)‖ = ‖Rᵀx − X‖", f"{group}, h = {h:g}", fontsize=8)
    fig.suptitle(f"seed 004 {fig_id.replace('fig', 'Fig. ')}: drift-off of the position constraint "
                 "(index-2 formulation, no projection)")
    _save(fig, out / f"heavy-top-{fig_id}-drift.png")
    _write_csv(out / f"heavy-top-{fig_id}-drift.csv", ["group", "method", "t", "phi_norm"], rows)
    return halves


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


def parse_only(text: str | None) -> tuple[str, ...]:
    """The figures named by ``--only`` (comma-separated, from ``FIGURES``); all of them when None."""
    if text is None:
        return FIGURES
    chosen = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [s for s in chosen if s not in FIGURES]
    if unknown or not chosen:
        raise ValueError(f"--only: unknown figure {', '.join(unknown) or '(none given)'}; "
                         f"choose from {', '.join(FIGURES)}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--out", type=Path, default=None,
                   help="folder for CSV and PNG (default: a fresh outputs/heavy-top-figures/<YYYYmmdd-HHMMSS>/)")
    p.add_argument("--update", action="store_true", help="write the committed outputs/summary/heavy-top-* files")
    p.add_argument("--quick", action="store_true", help="shorter horizons and fewer step sizes")
    p.add_argument("--only", default=None, help=f"comma-separated subset of {', '.join(FIGURES)}")
    args = p.parse_args(argv)
    if args.out is not None and args.update:
        p.error("give --out DIR or --update, not both (--update writes the committed outputs/summary/)")
    try:
        chosen = parse_only(args.only)
    except ValueError as exc:
        p.error(str(exc))
    out = output_dir(args.out, args.update)
    for fig_id in chosen:
        if fig_id in CONVERGENCE:
            fitted = orders(out, fig_id, quick=args.quick)
            print(f"{fig_id} ({CONVERGENCE[fig_id]}): orders q / λ " +
                  ", ".join(f"{m} {a:.2f}/{b:.2f}" for m, (a, b) in fitted.items()))
        elif fig_id in DRIFT:
            halves = drift(out, fig_id, quick=args.quick)
            print(f"{fig_id}: max ‖Φ‖ first half / second half " +
                  ", ".join(f"{g} {m} {a:.3g}/{b:.3g}" for (g, m), (a, b) in halves.items()))
        else:
            n_acc, n_rej = adaptive(out, quick=args.quick)
            print(f"adaptive HEDOP5: {n_acc} accepted, {n_rej} rejected steps")
    print(f"figures in {out}")
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
