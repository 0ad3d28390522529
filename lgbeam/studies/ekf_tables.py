"""Seed 003 Tables 5.1–5.6 and Figs. 5.2/5.4/5.6: Monte-Carlo comparison of the EKF, the first-estimates
EKF and the reduced EKF on the line, circle and spline trajectories.

    python -m lgbeam.studies.ekf_tables [--quick] [--out DIR] [--realisations 20] [--seed 2019]
                                        [--scheduler ADDRESS] [--summary outputs/summary]

writes into ``DIR`` (default ``outputs/ekf/<YYYYmmdd-HHMMSS>``):

``ekf-tables.csv``
    one row per (trajectory, features per step, rate, Q_z, filter): mean position and heading error
    over the realisations with their standard deviations, the mean pose NEES, the measured mean
    number of visible landmarks, and the thesis's numbers beside them;
``ekf-tables.md``
    the six tables laid out as in the thesis, each cell "ours (thesis)", plus the reduced/EKF ratios;
``ekf-runs.csv``
    every realisation's numbers;
``ekf-error-growth-{line,circle,spline}.png`` (+ ``.csv``)
    Figs. 5.2/5.4/5.6: position and heading error against time, mean over the realisations, at 10 Hz,
    the low landmark density and Q_z = 1e-4.

``--quick``: 3 realisations, 10 Hz, low density only (a minute). ``--summary DIR`` also copies the
markdown, the table CSV and the figures there (the committed ``outputs/summary/`` files come from a
full run). Realisations run through ``lgbeam.studies.parallel.map_runs`` (Dask when installed).
"""

from __future__ import annotations

import os

# The filters' matrices are small (≤ ~130); threaded BLAS only adds contention, and the runs are
# parallel across realisations instead. Must precede the first numpy import of the process.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import logging
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.estimation.filters import FILTERS
from lgbeam.estimation.montecarlo import (
    FEATURES,
    RunSpec,
    Setting,
    ratio_intervals,
    run_realisation,
    summarise,
    table_settings,
)
from lgbeam.estimation.thesis import Q_Z_VALUES, RATES_HZ, THESIS_TABLES, thesis_value
from lgbeam.studies.parallel import map_runs

logger = logging.getLogger(__name__)

LABELS = {"ekf": "EKF", "fej": "FE-EKF", "reduced": "Red"}
FIGURES = {"line": "5.2", "circle": "5.4", "spline": "5.6"}


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def _is_figure_setting(s: Setting) -> bool:
    return s.rate_hz == 10.0 and s.features_per_step == FEATURES[s.trajectory][0] and s.q_z == 1e-4


def specs_for(settings: list[Setting], realisations: int, seed: int) -> list[RunSpec]:
    """One spec per (setting, realisation); the figure settings keep their error time series."""
    return [RunSpec(s, i, seed=seed, keep_series=_is_figure_setting(s)) for s in settings for i in range(realisations)]


def table_rows(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`summarise` rows with the thesis's values and the reduced/EKF ratios with their 95 % paired
    bootstrap intervals over the realisations (the same on the three rows of a setting)."""
    rows = summarise(results)
    cis = {(s.trajectory, s.features_per_step, s.rate_hz, s.q_z): c for s, c in ratio_intervals(results).items()}
    for r in rows:
        th = thesis_value(r["trajectory"], r["features_per_step"], r["rate_hz"], r["q_z"], r["method"])
        r["thesis_dp"], r["thesis_dth"] = th if th is not None else (float("nan"), float("nan"))
        ci = cis.get((r["trajectory"], r["features_per_step"], r["rate_hz"], r["q_z"]))
        for key in ("dp", "dth"):
            vals = ci[key] if ci is not None else (float("nan"),) * 3
            for name, v in zip(("", "_lo", "_hi"), vals):
                r[f"red_ekf_{key}{name}"] = v
    return rows


def _ratio_cell(ours: tuple[float, float, float], thesis: float) -> str:
    """``ratio [lo, hi]; thesis`` with ``*`` where the thesis's ratio lies outside our interval."""
    flag = "" if ours[1] <= thesis <= ours[2] else " *"
    return f"{ours[0]:.2f} [{ours[1]:.2f}, {ours[2]:.2f}]; {thesis:.2f}{flag}"


def markdown(rows: list[dict[str, Any]]) -> str:
    """The six tables as the thesis lays them out, each cell ``δp / δθ`` ours and (thesis)."""
    idx = {(r["trajectory"], r["features_per_step"], r["rate_hz"], r["q_z"], r["method"]): r for r in rows}
    out = ["# Seed 003 Tables 5.1–5.6: ours (thesis)", "",
           ("Each cell: mean position error δp (m) / mean heading error δθ (rad), over the realisations; "
           "the thesis's value in parentheses. `n` realisations, `vis` measured mean landmarks per step."), ""]
    for (traj, fps), (table, _) in THESIS_TABLES.items():
        present = [(rate, q) for rate in RATES_HZ for q in Q_Z_VALUES if (traj, fps, rate, q, "ekf") in idx]
        if not present:
            continue
        rates = [rate for rate in RATES_HZ if any(p[0] == rate for p in present)]
        any_row = idx[(traj, fps, *present[0], "ekf")]
        out += [(f"## Table {table}: {traj}, about {fps:.0f} features per step "
                f"(n = {any_row['n_runs']}, vis = {any_row['visible_per_step']:.1f})"), ""]
        out.append("| Q_z | " + " | ".join(f"{rate:.0f} Hz {LABELS[m]}" for rate in rates for m in FILTERS) + " |")
        out.append("|---" * (1 + len(rates) * len(FILTERS)) + "|")
        for q in Q_Z_VALUES:
            cells = []
            for rate in rates:
                for m in FILTERS:
                    r = idx.get((traj, fps, rate, q, m))
                    cells.append("—" if r is None else f"{r['dp']:.3g} / {r['dth']:.3g} ({r['thesis_dp']:.4g} / "
                                 f"{r['thesis_dth']:.3g})")
            out.append(f"| {q:.0e} | " + " | ".join(cells) + " |")
        out.append("")
    out += ["## Reduced / EKF ratios (ours [95 % paired bootstrap interval over the realisations]; thesis)", "",
            ("`*`: the thesis's ratio lies outside our interval. DR: dead reckoning (odometry alone, no "
             "landmarks), δp / δθ, the error of a filter that draws nothing from the camera."), "",
            "| trajectory | features | rate | Q_z | δp ratio | δθ ratio | NEES EKF | NEES FE-EKF | NEES Red | DR |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for key, r in idx.items():
        if key[4] != "ekf":
            continue
        red, fej = idx.get(key[:4] + ("reduced",)), idx.get(key[:4] + ("fej",))
        if red is None or fej is None:
            continue
        dp = (r["red_ekf_dp"], r["red_ekf_dp_lo"], r["red_ekf_dp_hi"])
        dth = (r["red_ekf_dth"], r["red_ekf_dth_lo"], r["red_ekf_dth_hi"])
        out.append(f"| {key[0]} | {key[1]:.0f} | {key[2]:.0f} Hz | {key[3]:.0e} | "
                   f"{_ratio_cell(dp, red['thesis_dp'] / r['thesis_dp'])} | "
                   f"{_ratio_cell(dth, red['thesis_dth'] / r['thesis_dth'])} | {r['nees']:.0f} | {fej['nees']:.0f} | "
                   f"{red['nees']:.0f} | {r['dr_dp']:.3g} / {r['dr_dth']:.3g} |")
    return "\n".join(out) + "\n"


def error_growth(results: list[dict[str, Any]], out: Path) -> list[Path]:
    """Figs. 5.2/5.4/5.6: mean δp(t), δθ(t) over the realisations that kept their series."""
    paths = []
    for traj, fig_no in FIGURES.items():
        rs = [r for r in results if r["setting"].trajectory == traj and "t" in r]
        if not rs:
            continue
        t = rs[0]["t"]
        fig = Figure(figsize=(10, 3.8))
        axp, axt = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
        rows: dict[str, Any] = {"t": t}
        for m in FILTERS:
            dp = np.mean([r["filters"][m]["dp"] for r in rs], axis=0)
            dth = np.mean([r["filters"][m]["dth"] for r in rs], axis=0)
            rows[f"dp_{m}"], rows[f"dth_{m}"] = dp, dth
            axp.plot(t, dp, label=LABELS[m])
            axt.plot(t, dth, label=LABELS[m])
        s = rs[0]["setting"]
        for ax, lab in ((axp, "position error (m)"), (axt, "heading error (rad)")):
            ax.set_xlabel("t (s)")
            ax.set_ylabel(lab)
            ax.grid(True, alpha=0.3)
            ax.legend()
        fig.suptitle(f"Fig. {fig_no}: error growth, {traj}, {s.rate_hz:.0f} Hz, Q_z = {s.q_z:.0e}, "
                     f"~{s.features_per_step:.0f} features/step, mean of {len(rs)} realisations")
        FigureCanvasAgg(fig)
        fig.tight_layout()
        png = out / f"ekf-error-growth-{traj}.png"
        fig.savefig(png, dpi=100)
        with open(png.with_suffix(".csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(list(rows))
            w.writerows(np.column_stack(list(rows.values())).round(6).tolist())
        paths.append(png)
    return paths


def run_study(out: Path, *, quick: bool = False, realisations: int | None = None, seed: int = 2019,
              scheduler: str | None = None) -> list[dict[str, Any]]:
    """Run the Monte-Carlo study into ``out``; return the table rows."""
    n = realisations if realisations is not None else (3 if quick else 20)
    if n < 1:
        raise ValueError(f"realisations must be at least 1, got {n}")
    settings = table_settings(rates=(10.0,), densities=(0,)) if quick else table_settings()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = map_runs(run_realisation, specs_for(settings, n, seed), scheduler=scheduler)
    logger.info("%d realisations in %.1f s", len(results), time.perf_counter() - t0)
    rows = table_rows(results)
    _write_csv(out / "ekf-tables.csv", rows)
    runs = [{"trajectory": r["setting"].trajectory, "features_per_step": r["setting"].features_per_step,
             "rate_hz": r["setting"].rate_hz, "q_z": r["setting"].q_z, "realisation": r["realisation"],
             "visible_per_step": r["visible_per_step"], "method": m,
             **{k: v for k, v in f.items() if k not in ("dp", "dth")}}
            for r in results for m, f in r["filters"].items()]
    _write_csv(out / "ekf-runs.csv", runs)
    (out / "ekf-tables.md").write_text(markdown(rows), encoding="utf-8")
    error_growth(results, out)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lgbeam.studies.ekf_tables", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="3 realisations, 10 Hz and the low density only")
    p.add_argument("--out", type=Path, default=None, help="output folder (default outputs/ekf/<timestamp>)")
    p.add_argument("--realisations", type=int, default=None, help="realisations per setting (default 20; quick 3)")
    p.add_argument("--seed", type=int, default=2019, help="base seed of the study")
    p.add_argument("--scheduler", default=None, help="Dask scheduler: processes, threads, synchronous or an address")
    p.add_argument("--summary", type=Path, default=None, help="also copy tables and figures into this folder")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    out = args.out or Path("outputs") / "ekf" / time.strftime("%Y%m%d-%H%M%S")
    try:
        rows = run_study(out, quick=args.quick, realisations=args.realisations, seed=args.seed,
                         scheduler=args.scheduler)
    except ValueError as exc:
        logger.error("error: %s", exc)
        return 2
    if args.summary is not None:
        args.summary.mkdir(parents=True, exist_ok=True)
        for name in ("ekf-tables.md", "ekf-tables.csv", *(f"ekf-error-growth-{t}.png" for t in FIGURES)):
            if (out / name).exists():
                shutil.copy(out / name, args.summary / name)
    logger.info("%d table rows written to %s", len(rows), out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
