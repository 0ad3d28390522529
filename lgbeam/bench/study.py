"""``lgbeam bench study``: the Dask speed-up of a study of 8 runs, serial against a 2-worker LocalCluster.

The same ``lgbeam sweep`` (heavy top, herk4, 8 step sizes over t ∈ [0, 1], no ParaView output) runs three
times, each in a fresh ``python -m lgbeam`` process and a fresh folder: ``--scheduler synchronous`` (one run
after the other in the command's own process: the serial baseline), ``--jobs 1`` and ``--jobs 2`` (a
``distributed.LocalCluster`` of 1 or 2 single-threaded worker processes). Columns: ``wall_s`` (the whole
command, Python start-up included, what a user waits), ``study_s`` (the study itself, from its
provenance.json: cluster start-up, the runs and the gathering), ``runs_s`` (the sum of the runs' own wall
times), ``speedup`` (serial ``wall_s`` / this ``wall_s``). The numba kernels are compiled once beforehand
(on-disk cache), so no column pays for compilation. Quick (for tests): 4 short runs, serial and 2 workers.
"""

from __future__ import annotations

import csv
import json
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path

logger = logging.getLogger(__name__)

CONFIGS = (("serial", ["--scheduler", "synchronous"]), ("dask-1", ["--jobs", "1"]), ("dask-2", ["--jobs", "2"]))


def _sweep(folder: Path, hs: list[float], t_end: float, extra: list[str]) -> tuple[float, float, float]:
    """(wall, study, sum of runs) seconds of one ``lgbeam sweep`` into ``folder``."""
    cmd = [sys.executable, "-m", "lgbeam", "sweep", "heavy-top", "--vary", "integrator.h=" + ",".join(map(repr, hs)),
           "--set", "integrator.method=herk4", "--set", f"time.t_end={t_end!r}", "--set", "output.vtk=false",
           "--set", f"output.every={t_end / 10!r}", "--out", str(folder), "--quiet", *extra]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"benchmark sweep failed ({' '.join(extra)}): {res.stderr.strip()[-800:]}")
    prov = json.loads((folder / "provenance.json").read_text(encoding="utf-8"))
    with open(folder / "study.csv", encoding="utf-8") as fh:
        runs = sum(float(r["wall_time_s"]) for r in csv.DictReader(fh))
    return wall, float(prov["wall_time_s"]), runs


def run(out_dir: Path, quick: bool = False) -> list[dict[str, object]]:
    """Measure, print a table, write ``out_dir/study.csv``; returns the rows."""
    n, t_end = (4, 0.05) if quick else (8, 1.0)
    hs = [1e-3 / (1 + k / 4) for k in range(n)]  # 1e-3 … 3.6e-4: 1000 … 2750 steps at t_end = 1
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as d:
        if not quick:
            _sweep(Path(d) / "warm-up", hs[:1], 0.01, ["--scheduler", "synchronous"])  # numba cache, imports
        for name, extra in CONFIGS[::2] if quick else CONFIGS:
            wall, study, runs = _sweep(Path(d) / name, hs, t_end, extra)
            rows.append({"config": name, "runs": n, "wall_s": round(wall, 2), "study_s": round(study, 2),
                         "runs_s": round(runs, 2)})
    for r in rows:
        r["speedup"] = round(float(rows[0]["wall_s"]) / float(r["wall_s"]), 2)  # type: ignore[arg-type]
    print(f"{'config':<8}{'runs':>6}{'wall (s)':>10}{'study (s)':>11}{'runs (s)':>10}{'speed-up':>10}")
    for r in rows:
        print(f"{r['config']:<8}{r['runs']:>6}{r['wall_s']:>10}{r['study_s']:>11}{r['runs_s']:>10}{r['speedup']:>10}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "study.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows
