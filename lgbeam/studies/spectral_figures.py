"""Work–precision diagrams as seed 003 Figs. 2.5 (NLS) and 2.8 (KdV): error over [0, 1] vs CPU time.

``python -m lgbeam.studies.spectral_figures [--quick] [--only nls|kdv] [--out outputs/summary]`` writes
``spectral-work-precision-{nls,kdv}.csv`` and ``.png``; ``--merge-hmax KIND CSV...`` instead merges the
``hmax.csv`` files of ``lgbeam study --hmax`` runs into ``spectral-hmax-KIND.{csv,md}`` (Tables 2.3/2.4).

Setup (the thesis states no initial data; notes/003-ch2.md §5.0): the table cases ``nls-table``
(defocusing NLS, n = 161 as Fig. 2.5) and ``kdv-zk`` (u₀ = cos x, ν = 5·10⁻⁴, n = 1001 as Fig. 2.8).
Error = max over t = 0.1, 0.2, …, 1 of the max-norm difference to a reference computed by DISEX
(``H_REF``: h = 1/2560 for NLS, 1/80000 for KdV, where some larger DISEX steps are resonant and blow
up), solver tol 1e-14, on the same grid (time error only); the difference to the DISEX run at 2·h_ref
bounds the reference's own error (row ``reference-check``; that run is also a DISEX point in the figure).
``--stability`` scans which steps keep exp-midpoint and DISEX stable over [0, 1] on KdV n = 1001
(``spectral-kdv-stability.csv``).
CPU time = ``time.process_time`` of the integration (runs under 0.5 s are repeated up to 5 times and
the minimum is kept). The steps of each method are given by ``sweeps``; a run that fails (the solver
stops converging after an instability) is drawn as a cross at the top of the figure.
The quasi-Newton midpoint runs on NLS only (as in the thesis, which extrapolated it for KdV to 4·10⁴ s
at h ≈ 3e-5: one step at n = 1001 builds and factorises a dense 1001 × 1001 matrix, ≈ 0.3 s).
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

from lgbeam._typing import Array
from lgbeam.apps import load_case
from lgbeam.apps.spectral import build
from lgbeam.discretisations.spectral import SpectralPDE
from lgbeam.integrators.registry import make_method, method_entry
from lgbeam.solve import ConstantStep, SaveAt, Solution, integrate
from lgbeam.studies.spectral_hmax import (
    HMAX_METHODS,
    THESIS_HMAX,
    hmax_markdown,
    method_system,
    passes_hmax_criterion,
)

logger = logging.getLogger(__name__)

SAVE_DT = 0.1  # error sampled every 0.1 time units over [0, 1]
MIN_CPU_S = 0.5  # shorter runs are repeated (at most REPEATS times) and the minimum time kept
REPEATS = 5
H_REF = {"nls": 1 / 2560, "kdv": 1 / 80000}
"""Reference DISEX steps. KdV: at n = 1001 DISEX blows up within [0, 1] at some steps (1e-4, 4e-4, 7e-4,
1e-3: step-size resonances, docs/spectral.md) and is stable at 2.5e-5, so the reference takes 1/80000."""
KDV_DISEX_STEPS = {1001: (4.9e-4, 2.4e-4, 1.2e-4)}
"""DISEX steps that passed the stability scan over [0, 1] (``--stability``,
outputs/summary/spectral-kdv-stability.csv), used in Fig. 2.8 besides the thesis' 1e-4 and 2·h_ref."""


def sweeps(kind: str, n: int, rho: float, points: int, h_ref: float) -> dict[str, list[float]]:
    """The steps each method runs (largest first).

    NLS (Fig. 2.5): ``points`` halvings from a start below h_max (classical fixed-point methods:
    0.8·2/ρ(SA), the contraction bound). KdV (Fig. 2.8, affordable at n = 1001): classical methods two
    steps from 0.8·2/ρ(SA) (one run there takes ≈ 30 s); energy-exp ``points`` + 1 halvings from its
    h_max 7.7e-3 (Table 2.4, n-independent). The exponential midpoint rule blows up over [0, 1] when
    h·ρ(SA) = hνk_max³ is close to a multiple of π (step-size resonance, docs/spectral.md): it runs at the
    thesis' 6e-4, at the resonant 4π/ρ (to show the instability), at the non-resonant (m + ½)π/ρ,
    m = 6, 3, 1, and below the first resonance at 0.8π/ρ and two halvings. DISEX runs at the thesis' h,
    at the steps of ``KDV_DISEX_STEPS`` and at 2·h_ref (the reference check).
    """
    classical = 0.8 * 2.0 / rho

    def halve(h0: float, k: int) -> list[float]:
        return [h0 / 2**j for j in range(k)]

    if kind == "nls":
        return {m: halve(h0, points) for m, h0 in (
            ("midpoint", classical), ("discrete-gradient", classical), ("midpoint-newton", 0.1),
            ("exp-midpoint", 0.02), ("energy-exp", 0.1), ("disex", 0.02))}
    thesis = {m: THESIS_HMAX["kdv"][m].get(n) for m in ("exp-midpoint", "disex")}
    exp_mid = [thesis["exp-midpoint"], 4 * math.pi / rho] + [(m + 0.5) * math.pi / rho for m in (6, 3, 1)]
    exp_mid += halve(0.8 * math.pi / rho, min(points, 3))
    disex = [thesis["disex"], *KDV_DISEX_STEPS.get(n, ()), 2 * h_ref]
    return {
        "midpoint": halve(classical, min(points, 2)),
        "discrete-gradient": halve(classical, min(points, 2)),
        "exp-midpoint": sorted({h for h in exp_mid if h}, reverse=True),
        "energy-exp": halve(7.7e-3, points + 1),
        "disex": sorted({h for h in disex if h and h >= 2 * h_ref}, reverse=True),
    }


def _fields(system: SpectralPDE, run: Solution) -> Array:
    return np.stack([system.to_field(y) for y in run.y])


def _integrate(system: SpectralPDE, method: str, y0: Array, h: float,
               tol: float = 1e-14) -> tuple[Array, float, Solution]:
    m = round(SAVE_DT / h)
    # the thesis' stage solve
    fixed = {"stage": "fixed-point"} if "stage" in method_entry(method).options else {}
    integ = make_method(method, tol=tol, **fixed)
    cpu = math.inf
    for _ in range(REPEATS):
        t0 = time.process_time()
        run = integrate(
            system,
            integ,
            y0,
            (0.0, 1.0),
            controller=ConstantStep(SAVE_DT / m),
            save=SaveAt(steps=m),
            diagnostics=False,
        )
        cpu = min(cpu, time.process_time() - t0)
        if cpu >= MIN_CPU_S or run.status != "ok":
            break
    return _fields(system, run), cpu, run


def _on_grid(h: float) -> float:
    """The largest step ≤ h that divides the sampling interval SAVE_DT."""
    return SAVE_DT / math.ceil(SAVE_DT / h - 1e-9)


def work_precision(case_name: str, n: int, *, points: int = 4, h_ref: float | None = None,
                   methods: list[str] | None = None) -> list[dict[str, Any]]:
    """Rows (method, h, cpu_s, error, mean_iterations, status) for one case at n nodes.

    A run that fails (solver not converged, typically after an instability) gets error = inf."""
    case, _ = load_case(case_name, [f"grid.n={n}"])
    system, y0, _ = build(case)
    kind = case["kind"]
    h_ref = _on_grid(h_ref or H_REF[kind])
    t0 = time.process_time()
    ref, _, run_ref = _integrate(system, "disex", y0, h_ref)
    if run_ref.status != "ok":
        raise RuntimeError(f"reference run failed: {run_ref.message}")
    logger.info("reference: DISEX h=%.3g (%.0f s)", h_ref, time.process_time() - t0)
    cache: dict[tuple[str, float], tuple[Array, float, Solution]] = {}
    cache[("disex", 2 * h_ref)] = check = _integrate(system, "disex", y0, 2 * h_ref)
    diff = float(np.max(np.abs(check[0] - ref))) if check[2].status == "ok" else math.inf
    logger.info("DISEX at 2 h_ref differs by %.3g (a bound on the reference's error; /31 if both were in the "
                "asymptotic order-5 regime)", diff)
    rows: list[dict[str, Any]] = [
        {
            "case": case_name,
            "n": n,
            "method": "reference-check",
            "h": 2 * h_ref,
            "cpu_s": check[1],
            "error": diff,
            "mean_iterations": float(check[2].iterations.mean()),
            "status": check[2].status,
        }
    ]
    for method, steps in sweeps(kind, n, system.spectral_radius_SA(), points, h_ref).items():
        if methods and method not in methods:
            continue
        sys_m, y0_m = method_system(method, system, y0)
        for h in map(_on_grid, steps):
            fields, cpu, run = cache.get((method, h)) or _integrate(sys_m, method, y0_m, h)
            ok = run.status == "ok"
            err = float(np.max(np.abs(fields - ref))) if ok else math.inf
            rows.append({"case": case_name, "n": n, "method": method, "h": h, "cpu_s": cpu, "error": err,
                         "mean_iterations": float(run.iterations.mean()) if run.n_steps else float("nan"),
                         "status": run.status})
            logger.info(
                "%s n=%d %s h=%.3g: cpu %.3g s, error %.3g, %.1f its/step (%s, %d steps)",
                case_name,
                n,
                method,
                h,
                cpu,
                err,
                rows[-1]["mean_iterations"],
                run.status,
                run.n_steps,
            )
    return rows


def plot(rows: list[dict[str, Any]], png: Path, title: str, note: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    finite = [r["error"] for r in rows if np.isfinite(r["error"]) and r["method"] != "reference-check"]
    top = 10 * max(finite) if finite else 1.0
    any_failed = False
    for i, method in enumerate(dict.fromkeys(r["method"] for r in rows if r["method"] != "reference-check")):
        color = f"C{i}"
        pts = [(r["cpu_s"], r["error"]) for r in rows if r["method"] == method and np.isfinite(r["error"])]
        if pts:
            ax.loglog(*zip(*pts), "o-", color=color, label=method)
        bad = [r["cpu_s"] for r in rows if r["method"] == method and not np.isfinite(r["error"])]
        if bad:
            ax.loglog(bad, [top] * len(bad), "x", color=color, markersize=9, mew=2)
            any_failed = True
    if any_failed:  # one neutral legend entry for the crosses of every method
        ax.plot(
            [], [], "x", color="0.3", markersize=9, mew=2, label="run failed (unstable), drawn at the top"
        )
    ax.set_xlabel("CPU time over [0, 1] (s)")
    ax.set_ylabel("max error over t ∈ [0, 1]")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if note:
        ax.text(0.01, 0.01, note, transform=ax.transAxes, fontsize=7, va="bottom", ha="left", color="0.35")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def write(rows: list[dict[str, Any]], stem: Path, title: str, note: str = "") -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    with open(stem.with_suffix(".csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, stem.with_suffix(".png"), title, note)


def stability_scan(case_name: str, n: int, method: str, hs: list[float], *, t_end: float = 1.0,
                   energy_tol: float = 1e-2) -> list[dict[str, Any]]:
    """Which steps keep a method stable over a fixed time [0, t_end] (not a fixed number of steps):
    the h_max test (i) + (ii) of ``HMAX_CRITERION`` over [0, t_end]. A run stops at the first step whose
    energy error exceeds ``energy_tol``·|H₀| (``passes_hmax_criterion`` with n_steps = t_end/h)."""
    case, _ = load_case(case_name, [f"grid.n={n}"])
    system, y0, _ = build(case)
    sys_m, y0_m = method_system(method, system, y0)
    integ = make_method(method)
    rows = []
    for h in hs:
        t0 = time.process_time()
        ok, its = passes_hmax_criterion(sys_m, integ, y0_m, h, n_steps=math.ceil(t_end / h - 1e-9),
                                        energy_tol=energy_tol)
        rows.append(
            {
                "case": case_name,
                "n": n,
                "method": method,
                "h": h,
                "h_nu_kmax3": h * system.spectral_radius_SA(),
                "t_end": t_end,
                "passes": ok,
                "mean_iterations": its,
                "cpu_s": round(time.process_time() - t0, 2),
            }
        )
        logger.info("%s n=%d %s h=%.4g (h·ρ(SA) = %.2f): %s over [0, %g]", case_name, n, method, h,
                    rows[-1]["h_nu_kmax3"], "passes" if ok else "fails", t_end)
    return rows


def _number(v: str) -> Any:
    if v in ("True", "False"):
        return v == "True"
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if v.lstrip("-").isdigit() else f


def merge_hmax(kind: str, csvs: list[Path], out: Path) -> list[dict[str, Any]]:
    """Merge the ``hmax.csv`` files of several ``lgbeam study --hmax`` runs (later files win for the same
    method and n) into ``out/spectral-hmax-{kind}.csv`` and ``.md`` (Tables 2.3/2.4 beside the thesis)."""
    cells: dict[tuple[str, int], dict[str, Any]] = {}
    for path in csvs:
        with open(path, newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                row = {k: _number(v) for k, v in r.items()}
                cells[(row["method"], row["n"])] = row
    order = {m: i for i, m in enumerate(HMAX_METHODS)}
    rows = sorted(cells.values(), key=lambda r: (r["n"], order.get(r["method"], len(order))))
    fields = list(dict.fromkeys(k for r in rows for k in r))
    out.mkdir(parents=True, exist_ok=True)
    with open(out / f"spectral-hmax-{kind}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields, restval="")
        w.writeheader()
        w.writerows(rows)
    (out / f"spectral-hmax-{kind}.md").write_text(hmax_markdown(rows, kind), encoding="utf-8")
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("outputs/summary"), help="folder for CSV and PNG")
    p.add_argument(
        "--quick", action="store_true", help="small grids (NLS n=41, KdV n=201), 2 steps per method"
    )
    p.add_argument("--only", choices=("nls", "kdv"), default=None, help="one of the two figures")
    p.add_argument("--merge-hmax", nargs="+", default=None, metavar=("KIND", "CSV"),
                   help="instead of the figures: merge hmax.csv files of `lgbeam study --hmax` runs into "
                        "OUT/spectral-hmax-KIND.{csv,md} (KIND nls or kdv)")
    p.add_argument(
        "--stability",
        action="store_true",
        help="instead of the figures: which steps keep exp-midpoint and DISEX stable over [0, 1] on "
        "KdV n = 1001 (OUT/spectral-kdv-stability.csv)",
    )
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.stability:
        n, t_end = (201, 0.2) if args.quick else (1001, 1.0)
        rows = stability_scan(
            "kdv-zk", n, "exp-midpoint", list(np.geomspace(2e-3, 2e-5, 3 if args.quick else 21)), t_end=t_end
        )
        rows += stability_scan("kdv-zk", n, "disex", list(np.geomspace(1e-3, 2e-5, 3 if args.quick else 12)),
                               t_end=t_end)
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / "spectral-kdv-stability.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {args.out / 'spectral-kdv-stability.csv'}")
        return 0
    if args.merge_hmax:
        kind, *paths = args.merge_hmax
        if kind not in ("nls", "kdv") or not paths:
            p.error("--merge-hmax expects KIND (nls or kdv) and at least one hmax.csv")
        rows = merge_hmax(kind, [Path(x) for x in paths], args.out)
        print(f"{kind}: merged {len(rows)} rows into {args.out / f'spectral-hmax-{kind}'}.csv/.md")
        return 0
    figs = {"nls": ("nls-table", 41 if args.quick else 161, "Fig. 2.5"),
            "kdv": ("kdv-zk", 201 if args.quick else 1001, "Fig. 2.8")}
    for kind, (case_name, n, fig) in figs.items():
        if args.only not in (None, kind):
            continue
        h_ref = 1 / 640 if args.quick else H_REF[kind]
        rows = work_precision(case_name, n, points=2 if args.quick else 4, h_ref=h_ref)
        note = f"reference: DISEX h = 1/{round(1 / h_ref)}, same grid; solver tol 1e-14"
        write(
            rows,
            args.out / f"spectral-work-precision-{kind}",
            f"{'NLS' if kind == 'nls' else 'KdV'} n = {n}: work–precision ({fig})",
            note,
        )
        print(f"{kind}: wrote {args.out / f'spectral-work-precision-{kind}'}.csv/.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
