"""Work–precision diagrams as seed 003 Figs. 2.5 (NLS) and 2.8 (KdV): error over [0, 1] vs CPU time.

``python -m lgbeam.studies.spectral_figures [--quick] [--out outputs/summary]`` writes
``spectral-work-precision-{nls,kdv}.csv`` and ``.png``.

Setup (the thesis states no initial data; notes/003-ch2.md §5.0): the table cases ``nls-table``
(defocusing NLS, n = 161 as Fig. 2.5) and ``kdv-zk`` (u₀ = cos x, ν = 5·10⁻⁴, n = 1001 as Fig. 2.8).
Error = max over t = 0.1, 0.2, …, 1 of the max-norm difference to a reference computed by DISEX with
h = 1/2560 (quick: 1/640), solver tol 1e-14, on the same grid (time error only). CPU time =
``time.process_time`` of the integration. Each method sweeps h downwards by halving from a start value
below its h_max (classical midpoint and discrete gradient: 0.8 × the contraction bound 2/ρ(SA),
notes §5); the quasi-Newton midpoint runs on NLS only (as in the thesis, which extrapolated it for KdV).
"""

from __future__ import annotations

import argparse
import csv
import logging
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps.spectral import build
from lgbeam.discretisations.spectral import NLS
from lgbeam.integrators.poisson import integrate_poisson, make_poisson_integrator
from lgbeam.io.cases import load_case

logger = logging.getLogger(__name__)

SAVE_DT = 0.1  # error sampled every 0.1 time units over [0, 1]


def _start_steps(kind: str, rho: float) -> dict[str, float]:
    """First (largest) step of each sweep; the classical fixed-point methods start at 0.8·2/ρ(SA)."""
    classical = 0.8 * 2.0 / rho
    if kind == "nls":
        return {"midpoint": classical, "discrete-gradient": classical, "midpoint-newton": 0.1,
                "exp-midpoint": 0.02, "energy-exp": 0.1, "disex": 0.02}
    return {"midpoint": classical, "discrete-gradient": classical, "exp-midpoint": 5e-4, "energy-exp": 5e-3,
            "disex": 2e-4}


def _fields(system: Any, run: Any) -> np.ndarray:
    return np.stack([system.to_field(y) for y in run.y])


def _integrate(system: Any, method: str, y0: np.ndarray, h: float, tol: float = 1e-14) -> tuple[np.ndarray, float, Any]:
    m = int(round(SAVE_DT / h))
    integ = make_poisson_integrator(method, tol=tol)
    t0 = time.process_time()
    run = integrate_poisson(system, integ, y0, h=SAVE_DT / m, t_end=1.0, save_every=m, monitor=lambda v: {})
    cpu = time.process_time() - t0
    return _fields(system, run), cpu, run


def work_precision(case_name: str, n: int, *, points: int = 4, h_ref: float | None = None) -> list[dict[str, Any]]:
    """Rows (method, h, cpu_s, error, mean_iterations, status) for one case at n nodes."""
    case, _ = load_case(case_name, [f"grid.n={n}"])
    system, y0, _ = build(case)
    kind = case["kind"]
    h_ref = h_ref or 1 / 2560
    ref, _, _ = _integrate(system, "disex", y0, h_ref)
    rows: list[dict[str, Any]] = []
    for method, h0 in _start_steps(kind, system.spectral_radius_SA()).items():
        sys_m, y0_m = system, y0
        if method == "midpoint-newton" and isinstance(system, NLS) and system.form != "real":
            sys_m = NLS(system.grid, kappa=system.kappa, form="real")
            y0_m = sys_m.from_field(system.to_field(y0))
        for j in range(points):
            h = SAVE_DT / math.ceil(SAVE_DT / (h0 / 2**j))
            fields, cpu, run = _integrate(sys_m, method, y0_m, h)
            ok = run.status == "ok"
            err = float(np.max(np.abs(fields - ref))) if ok else float("nan")
            rows.append({"case": case_name, "n": n, "method": method, "h": h, "cpu_s": cpu, "error": err,
                         "mean_iterations": float(run.iterations.mean()) if run.n_steps else float("nan"),
                         "status": run.status})
            logger.info("%s n=%d %s h=%.3g: cpu %.3g s, error %.3g", case_name, n, method, h, cpu, err)
    return rows


def plot(rows: list[dict[str, Any]], png: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 4.5))
    for method in dict.fromkeys(r["method"] for r in rows):
        pts = [(r["cpu_s"], r["error"]) for r in rows if r["method"] == method and np.isfinite(r["error"])]
        if pts:
            ax.loglog(*zip(*pts), "o-", label=method)
    ax.set_xlabel("CPU time over [0, 1] (s)")
    ax.set_ylabel("max error over t ∈ [0, 1]")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def write(rows: list[dict[str, Any]], stem: Path, title: str) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    with open(stem.with_suffix(".csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, stem.with_suffix(".png"), title)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("outputs/summary"), help="folder for CSV and PNG")
    p.add_argument("--quick", action="store_true", help="small grids (NLS n=41, KdV n=201), 2 steps per method")
    p.add_argument("--only", choices=("nls", "kdv"), default=None, help="one of the two figures")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    figs = {"nls": ("nls-table", 41 if args.quick else 161, "Fig. 2.5"),
            "kdv": ("kdv-zk", 201 if args.quick else 1001, "Fig. 2.8")}
    for kind, (case_name, n, fig) in figs.items():
        if args.only not in (None, kind):
            continue
        rows = work_precision(case_name, n, points=2 if args.quick else 4, h_ref=1 / 640 if args.quick else None)
        write(rows, args.out / f"spectral-work-precision-{kind}", f"{kind.upper()} n = {n}: work–precision ({fig})")
        print(f"{kind}: wrote {args.out / f'spectral-work-precision-{kind}'}.csv/.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
