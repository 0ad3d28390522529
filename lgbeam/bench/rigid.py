"""``lgbeam bench rigid``: cost per step of every rigid-body, (S²)ⁿ and LGVI method, as ratios beside the
theses' (seed 001 Fig. 4.3 and Tables 7.1–7.3, seed 003 Table 3.1); the measurement is
``lgbeam.studies.rigid_costs.measure``. Prints a table; the CSV goes to a fresh folder
``<out>/rigid-<timestamp>/rigid.csv``, never over a committed file.
"""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path

from lgbeam.studies.rigid_costs import measure

logger = logging.getLogger(__name__)


def run(out_dir: Path, quick: bool = False) -> list[dict[str, object]]:
    """Measure, print a table, write ``out_dir/rigid-<timestamp>/rigid.csv``; returns the rows."""
    rows = measure(quick)
    print("lgbeam bench rigid: cost per step through integrate (best of repeats); ratio to ELN / spheres-ELN / LGVI")
    print(f"{'problem':28s} {'method':18s} {'µs/step':>9s} {'ratio':>6s} {'thesis':>10s}")
    for r in rows:
        print(f"{r['problem']!s:28s} {r['method']!s:18s} {r['us_per_step']!s:>9s} {r['ratio']!s:>6s} "
              f"{str(r['thesis_ratio'])[:10]:>10s}")
    folder = Path(out_dir) / f"rigid-{time.strftime('%Y%m%d-%H%M%S')}"
    folder.mkdir(parents=True, exist_ok=False)
    with open(folder / "rigid.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"written {folder / 'rigid.csv'}")
    return rows
