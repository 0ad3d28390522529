"""How the seed 003 Tables 5.1–5.6 comparisons depend on choices the thesis leaves open.

    python -m lgbeam.studies.ekf_sensitivity [--realisations 10] [--seed 2019] [--out FILE]
                                             [--scheduler ADDRESS]

Each variant changes one unstated choice of the tables' set-up (``lgbeam.estimation.montecarlo.Setting``)
and runs the same realisations as its baseline (the seed of a realisation does not depend on the
variant: common random numbers). Variants:

``spline corner speed``
    the general trajectory's segment time 2.5 s (tables) → 1.5 s, 1.0 s: peak speed 3.2 → 5.3 → 8.0 m/s,
    peak turn rate 0.97 → 1.6 → 2.4 rad/s (the thesis blames its 10 Hz reduced-filter failure on the
    speed at the corners; its spline is lost);
``odometry at t_{k+1}``
    the reading of the step ``k → k+1`` taken at its end (the superscript of ``v_m^{k+1}`` in (5.9));
``odometry noise as a density``
    ``Q_v, Q_w`` read as spectral densities (per-reading variance ``Q/Δt``; 10× the tables' at 10 Hz);
``unbiased camera``
    ``z = truth + N(0, Q)`` instead of triangulated noisy bearings (removes the depth bias).

Writes a markdown table (stdout, and ``--out`` if given): per cell the three filters' mean δp / δθ, the
reduced/EKF and FE-EKF/EKF ratios of means with 95 % paired bootstrap intervals, dead reckoning and the
mean pose NEES.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from lgbeam.estimation.montecarlo import RunSpec, Setting, ratio_intervals, run_realisation, summarise
from lgbeam.studies.parallel import map_runs

logger = logging.getLogger(__name__)

_SPLINE = Setting("spline", 25.0, 10.0, 1e-4)
_CIRCLE = Setting("circle", 20.0, 10.0, 1e-4)
_LINE = Setting("line", 20.0, 10.0, 1e-4)

VARIANTS: tuple[tuple[str, Setting], ...] = (
    ("baseline (tables)", _SPLINE),
    ("spline segment 1.5 s (peak 1.6 rad/s)", replace(_SPLINE, segment_time=1.5)),
    ("spline segment 1.0 s (peak 2.4 rad/s)", replace(_SPLINE, segment_time=1.0)),
    ("odometry at t_{k+1}", replace(_SPLINE, odometry_sample_at="end")),
    ("baseline (tables)", replace(_SPLINE, q_z=4e-4)),
    ("odometry at t_{k+1}", replace(_SPLINE, q_z=4e-4, odometry_sample_at="end")),
    ("baseline (tables)", _CIRCLE),
    ("odometry noise as a density", replace(_CIRCLE, odometry_noise="density")),
    ("baseline (tables)", replace(_CIRCLE, q_z=4e-4)),
    ("unbiased camera", replace(_CIRCLE, q_z=4e-4, camera_model="gaussian")),
    ("baseline (tables)", _LINE),
    ("odometry noise as a density", replace(_LINE, odometry_noise="density")),
    ("baseline (tables)", replace(_LINE, q_z=4e-4)),
    ("unbiased camera", replace(_LINE, q_z=4e-4, camera_model="gaussian")),
)
"""(label, setting) in the order of the output table."""


def _fmt(ci: tuple[float, float, float]) -> str:
    return f"{ci[0]:.2f} [{ci[1]:.2f}, {ci[2]:.2f}]"


def markdown(results: list[dict[str, Any]], realisations: int) -> str:
    """One row per variant: errors of the three filters, ratios with intervals, dead reckoning."""
    by_setting: dict[Setting, list[dict[str, Any]]] = {}
    for r in results:
        by_setting.setdefault(r["setting"], []).append(r)
    red = ratio_intervals(results)
    fej = ratio_intervals(results, "fej", "ekf")
    out = [f"# EKF tables: sensitivity to the thesis's unstated choices ({realisations} realisations per row)", "",
           ("δp (m) / δθ (rad), means over the realisations; ratios of means with 95 % paired bootstrap "
            "intervals; DR: dead reckoning."), "",
           ("| variant | trajectory | Q_z | EKF | FE-EKF | reduced | red/EKF δp | red/EKF δθ | FEJ/EKF δp | DR | "
            "NEES EKF / FE-EKF / red |"),
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, s in VARIANTS:
        rs = by_setting.get(s)
        if not rs:
            continue
        summ = {row["method"]: row for row in summarise(rs)}
        cells = " | ".join(f"{summ[m]['dp']:.3g} / {summ[m]['dth']:.3g}" for m in ("ekf", "fej", "reduced"))
        out.append(f"| {label} | {s.trajectory} {s.features_per_step:.0f}, {s.rate_hz:.0f} Hz | {s.q_z:.0e} | {cells} | "
                   f"{_fmt(red[s]['dp'])} | {_fmt(red[s]['dth'])} | {_fmt(fej[s]['dp'])} | "
                   f"{summ['ekf']['dr_dp']:.3g} / {summ['ekf']['dr_dth']:.3g} | "
                   + " / ".join(f"{summ[m]['nees']:.0f}" for m in ("ekf", "fej", "reduced")) + " |")
    return "\n".join(out) + "\n"


def run(realisations: int = 10, seed: int = 2019, scheduler: str | None = None) -> str:
    """Run every variant's realisations and return the markdown table."""
    if realisations < 2:
        raise ValueError(f"realisations must be at least 2 (a bootstrap interval needs two), got {realisations}")
    settings = list(dict.fromkeys(s for _, s in VARIANTS))
    specs = [RunSpec(s, i, seed=seed) for s in settings for i in range(realisations)]
    results = map_runs(run_realisation, specs, scheduler=scheduler)
    return markdown(results, realisations)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lgbeam.studies.ekf_sensitivity", description=__doc__.split("\n\n")[0])
    p.add_argument("--realisations", type=int, default=10, help="realisations per variant (default 10)")
    p.add_argument("--seed", type=int, default=2019, help="base seed (the tables' is 2019)")
    p.add_argument("--out", type=Path, default=None, help="also write the markdown table to this file")
    p.add_argument("--scheduler", default=None, help="Dask scheduler: processes, threads, synchronous or an address")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        text = run(args.realisations, args.seed, args.scheduler)
    except ValueError as exc:
        logger.error("error: %s", exc)
        return 2
    print(text, end="")
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
