"""Seed 003 Figs. 2.1–2.4, 2.6, 2.7 as commands (issue 18 item 5).

``python -m lgbeam.studies.spectral_panels [--fig21] [--panels] [--map] [--quick] [--out outputs/summary]``

- ``--fig21``: Fig. 2.1, h_max against n (log–log) for NLS from the merged Table 2.3 data
  (``--source``; default ``spectral-hmax-nls.csv`` in ``--out``, else the checkout's
  ``outputs/summary/spectral-hmax-nls.csv``, found from any working directory), ours solid, the thesis'
  dashed → ``spectral-fig2.1.png``.
- ``--panels``: the energy-error and trajectory-error panels of Figs. 2.2 (exp-midpoint, NLS n = 161,
  h = 0.01), 2.3 (energy-exp, h = 0.1), 2.4 (DISEX, h = 0.01) on the table case ``nls-table`` over [0, 20],
  and 2.6 (exp-midpoint, KdV n = 401, h = 5e-4), 2.7 (energy-exp, h = 0.005) on ``kdv-zk`` over [0, 1]
  (the thesis gives no horizon nor initial data, notes/003-ch2.md §5.0). Trajectory error: max-norm
  difference to a reference on the same grid (NLS: exp-kahan-li8 with the exact stage, h = 1/400; KdV:
  exp-suzuki4 with the fixed point in Fourier space, h = 1e-4) → ``spectral-fig2.{2,3,4,6,7}.png`` and
  ``spectral-panels.csv``. A run that ends early (a blow-up status) is drawn up to where it stopped.
- ``--map``: the step-size/horizon stability map that explains Fig. 2.4: for every Poisson method of the
  exponential family on ``nls-table`` n = 161, the time at which the run stops (blow-up status, or T if it
  stays bounded) for h in ``MAP_STEPS`` over [0, ``MAP_T``] → ``spectral-fig2.4-map.{csv,png}``.
"""

from __future__ import annotations

import argparse
import csv
import logging
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam._typing import Array
from lgbeam.apps import load_case
from lgbeam.apps.spectral import build
from lgbeam.discretisations.spectral import SpectralPDE
from lgbeam.integrators.registry import make_method
from lgbeam.solve import ConstantStep, SaveAt, integrate

logger = logging.getLogger(__name__)

CHECKOUT = Path(__file__).resolve().parents[2]  # the repository root of this package's checkout

PANELS = {  # figure -> (case, n, method, h, T, save every)
    "2.2": ("nls-table", 161, "exp-midpoint", 0.01, 20.0, 0.1),
    "2.3": ("nls-table", 161, "energy-exp", 0.1, 20.0, 0.1),
    "2.4": ("nls-table", 161, "disex", 0.01, 20.0, 0.1),
    "2.6": ("kdv-zk", 401, "exp-midpoint", 5e-4, 1.0, 0.01),
    "2.7": ("kdv-zk", 401, "energy-exp", 0.005, 1.0, 0.01),
}
REFERENCE = {
    "nls-table": ("exp-kahan-li8", {}, 1 / 400),
    "kdv-zk": ("exp-suzuki4", {"stage": "fixed-point"}, 1e-4),
}
MAP_METHODS = ("exp-midpoint", "disex", "energy-exp", "exp-suzuki4", "exp-yoshida6", "energy-exp4")
MAP_STEPS = (0.02, 0.01, 0.008, 0.005, 0.0025)
MAP_T = 100.0


def _system(case_name: str, n: int) -> tuple[SpectralPDE, Array]:
    case, _ = load_case(case_name, [f"grid.n={n}"])
    system, y0, _ = build(case)
    return system, y0


def _reference(case_name: str, n: int, T: float, every: float) -> Array:
    system, y0 = _system(case_name, n)
    name, opts, h = REFERENCE[case_name]
    ref = integrate(system, make_method(name, **opts), y0, (0.0, T), controller=ConstantStep(h),
                    save=SaveAt(every=every), diagnostics=False)
    if ref.status != "ok":
        raise RuntimeError(f"reference {name} failed: {ref.message}")
    return np.asarray(ref.y)


def panels(out: Path, quick: bool = False) -> list[dict[str, Any]]:
    """Energy and trajectory error against t for each figure of ``PANELS`` (module docstring)."""
    import matplotlib.pyplot as plt

    rows: list[dict[str, Any]] = []
    refs: dict[tuple[str, float], Array] = {}
    for fig, (case_name, n, method, h, T, every) in PANELS.items():
        T = T / 10 if quick else T
        system, y0 = _system(case_name, n)
        if (case_name, T) not in refs:
            refs[(case_name, T)] = _reference(case_name, n, T, every)
        ref = refs[(case_name, T)]
        c0 = time.process_time()
        run = integrate(system, method, y0, (0.0, T), controller=ConstantStep(h), save=SaveAt(every=every))
        cpu = time.process_time() - c0
        H = np.array([system.hamiltonian(y) for y in run.y])
        dH = np.abs(H - H[0]) / abs(H[0])
        traj = np.abs(np.asarray(run.y) - ref[: len(run.y)]).max(axis=1)
        for t, e, d in zip(run.t, dH, traj):
            rows.append({"figure": fig, "method": method, "h": h, "t": float(t), "energy_error": float(e),
                         "trajectory_error": float(d), "status": str(run.status)})
        fig_, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4), constrained_layout=True)
        a.semilogy(run.t, np.maximum(dH, 1e-17))
        a.set(xlabel="t", ylabel="|H − H₀| / |H₀|", title=f"(a) energy error, {method}, h = {h:g}")
        b.semilogy(run.t[1:], np.maximum(traj[1:], 1e-17))
        b.set(xlabel="t", ylabel="max |y − y_ref|", title=f"(b) trajectory error ({run.status})")
        fig_.suptitle(f"seed 003 Fig. {fig}: {case_name}, n = {n} (cpu {cpu:.2f} s)")
        fig_.savefig(out / f"spectral-fig{fig}.png", dpi=110)
        plt.close(fig_)
        logger.info("Fig. %s: %s, status %s, max energy error %.3g, final trajectory error %.3g", fig, method,
                    run.status, dH.max(), traj[-1])
    _write(out / "spectral-panels.csv", rows)
    return rows


def _map_cell(method: str, h: float, T: float) -> dict[str, Any]:
    system, y0 = _system("nls-table", 161)
    c0 = time.process_time()
    run = integrate(system, method, y0, (0.0, T), controller=ConstantStep(h), save=SaveAt(steps=10**9))
    E = run.steps["energy"]
    return {
        "method": method,
        "h": h,
        "T": T,
        "status": str(run.status),
        "t_stop": float(run.stats["t_final"]),
        "max_energy_error": float(np.max(np.abs(E - E[0])) / abs(E[0])),
        "cpu_s": time.process_time() - c0,
        "message": run.message.split(";")[0],
    }


def stability_map(out: Path, quick: bool = False, jobs: int = 2) -> list[dict[str, Any]]:
    """Time at which each (method, h) stops on nls-table n = 161 (module docstring)."""
    import matplotlib.pyplot as plt

    T = 10.0 if quick else MAP_T
    cells = [(m, h, T) for m in MAP_METHODS for h in MAP_STEPS]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(_map_cell, *zip(*cells)))
    _write(out / "spectral-fig2.4-map.csv", rows)
    grid = np.array([[next(r["t_stop"] for r in rows if r["method"] == m and r["h"] == h) for h in MAP_STEPS]
                     for m in MAP_METHODS])
    fig, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    im = ax.imshow(np.log10(grid), cmap="viridis", vmin=0.0, vmax=math.log10(T), aspect="auto")
    ax.set_xticks(range(len(MAP_STEPS)), [f"{h:g}" for h in MAP_STEPS])
    ax.set_yticks(range(len(MAP_METHODS)), MAP_METHODS)
    for i, m in enumerate(MAP_METHODS):
        for j, h in enumerate(MAP_STEPS):
            r = next(r for r in rows if r["method"] == m and r["h"] == h)
            text = f"{r['t_stop']:.3g}" if r["status"] != "ok" else "ok"
            ax.text(
                j, i, text, ha="center", va="center", color="w" if r["status"] != "ok" else "k", fontsize=8
            )
    ax.set(xlabel="h", title=f"NLS n = 161 (Fig. 2.4's problem): time of blow-up, or ok to T = {T:g}")
    fig.colorbar(im, label="log10 t_stop")
    fig.savefig(out / "spectral-fig2.4-map.png", dpi=110)
    plt.close(fig)
    return rows


def fig21(out: Path, source: Path) -> Path:
    """Fig. 2.1 from the merged Table 2.3 CSV: h_max against n, ours and the thesis'. Rows searched with a
    fixed time horizon (``spectral_hmax --horizon``: a ``horizon`` column > 0) go to
    ``spectral-fig2.1-horizon.png`` with the horizon and search in the title."""
    import matplotlib.pyplot as plt

    with open(source, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    for i, m in enumerate(dict.fromkeys(r["method"] for r in rows)):
        mine = sorted(
            (int(r["n"]), float(r["h_max"]), float(r["thesis_h_max"])) for r in rows if r["method"] == m
        )
        n, ours, thesis = (np.array(c) for c in zip(*mine))
        line, = ax.loglog(n, ours, "o-", label=f"{m} (ours)", color=f"C{i}")
        ax.loglog(n, thesis, "x--", color=line.get_color(), alpha=0.7)
    horizons = sorted({float(r.get("horizon") or 0.0) for r in rows} - {0.0})
    title = "seed 003 Fig. 2.1 (NLS): ours solid, thesis dashed"
    if horizons:
        search = ", ".join(sorted({r.get("search") or "confirmed" for r in rows}))
        title += f"\nstability to t = {', '.join(f'{x:g}' for x in horizons)}, search {search}"
    ax.set(xlabel="n (nodes)", ylabel="h_max", title=title)
    ax.legend(fontsize=7)
    path = out / ("spectral-fig2.1-horizon.png" if horizons else "spectral-fig2.1.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def hmax_source(out: Path, source: Path | None = None) -> Path:
    """The Table 2.3 CSV of ``--fig21``: ``source`` if given, else ``out``/spectral-hmax-nls.csv, else the one
    in the checkout (``outputs/summary`` next to the package), whatever the working directory."""
    name = "spectral-hmax-nls.csv"
    candidates = [source] if source is not None else [out / name, CHECKOUT / "outputs" / "summary" / name]
    for path in candidates:
        if path is not None and path.is_file():
            return path
    raise FileNotFoundError(
        f"no Table 2.3 data at {' or '.join(str(c) for c in candidates)}: pass --source PATH, or write it "
        "with `lgbeam study nls-table --hmax ...` and `python -m lgbeam.studies.spectral_figures "
        "--merge-hmax nls ...` (docs/spectral.md)"
    )


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fig21", action="store_true")
    p.add_argument("--panels", action="store_true")
    p.add_argument("--map", action="store_true")
    p.add_argument("--quick", action="store_true", help="short horizons (smoke)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("outputs/summary"))
    p.add_argument("--source", type=Path, default=None, help="--fig21: the merged Table 2.3 CSV")
    args = p.parse_args(argv)
    source = None
    if args.fig21:
        try:
            source = hmax_source(args.out, args.source)
        except FileNotFoundError as exc:
            print(f"spectral_panels: error: {exc}", file=sys.stderr)
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    if source is not None:
        print(fig21(args.out, source))
    if args.panels:
        for r in panels(args.out, args.quick)[-1:]:
            print(r)
    if args.map:
        for r in stability_map(args.out, args.quick, args.jobs):
            print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
