"""``lgbeam bench memory``: peak resident memory of a run against its step count (flat memory).

The heavy top (seed 004 §2.4) with herk4 at a fixed step, sparse output (10 frames) and checkpoints off, run
through ``lgbeam run`` in a fresh subprocess for 10⁴ and 10⁶ steps (quick: 10³ and 10⁵); the per-step
record streams to diagnostics.csv, so the peak RSS should not grow with the step count. Target (issue 12):
the long run's peak RSS within 10 % of the short one's.
"""

from __future__ import annotations

import csv
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path

logger = logging.getLogger(__name__)

_PROBE = """
import resource, sys
from lgbeam.cli.main import main
rc = main(sys.argv[1:])
print("MAXRSS_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss(n_steps: int, h: float = 1e-5) -> tuple[float, float, int]:
    """(peak RSS in MiB, wall seconds, exit code) of one heavy-top run of ``n_steps`` herk4 steps."""
    t_end = n_steps * h
    with tempfile.TemporaryDirectory() as d:
        cmd = [sys.executable, "-c", _PROBE, "run", "heavy-top", "--out", str(Path(d) / "run"), "--quiet",
               "--no-figures", "--set", "integrator.method=herk4", "--set", f"integrator.h={h!r}",
               "--set", f"time.t_end={t_end!r}", "--set", f"output.every={t_end / 10!r}",
               "--set", "output.vtk=false", "--set", "output.checkpoint_seconds=0",
               "--set", f"integrator.max_steps={n_steps + 10}"]
        w0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - w0
    line = [ln for ln in res.stdout.splitlines() if ln.startswith("MAXRSS_KB")]
    if not line:
        raise RuntimeError(f"memory probe failed: {res.stderr.strip()[-500:]}")
    return int(line[0].split()[1]) / 1024.0, wall, res.returncode


def run(out_dir: Path, quick: bool = False) -> list[dict[str, object]]:
    """Measure, print a table, write ``out_dir/memory.csv``; returns the rows."""
    counts = (200, 2_000) if quick else (10_000, 1_000_000)
    rows: list[dict[str, object]] = []
    for n in counts:
        rss, wall, rc = peak_rss(n)
        rows.append({"steps": n, "peak_rss_mib": round(rss, 1), "wall_s": round(wall, 1), "exit_code": rc})
    ratio = float(rows[1]["peak_rss_mib"]) / float(rows[0]["peak_rss_mib"])  # type: ignore[arg-type]
    for r in rows:
        r["ratio_to_short"] = round(float(r["peak_rss_mib"]) / float(rows[0]["peak_rss_mib"]), 3)  # type: ignore[arg-type]
    print(f"{'steps':>10} {'peak RSS (MiB)':>15} {'wall (s)':>9} {'ratio':>7}")
    for r in rows:
        print(f"{r['steps']:>10} {r['peak_rss_mib']:>15} {r['wall_s']:>9} {r['ratio_to_short']:>7}")
    print(f"long/short peak RSS: {ratio:.3f} (target ≤ 1.10)")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "memory.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows
