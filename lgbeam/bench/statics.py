"""``lgbeam bench statics``: the cost of one static Newton iteration of the rod for N = 64 … 4096 (target:
linear in N; the parts: exact tangent assembled into band storage, banded LU of the KKT matrix and solve,
residual, stability count from the same band — the statics core, rods/statics_core.py), and the load-step counts of the curl and column cases (issue 11).

Writes ``statics.csv`` (columns: part, case, N, value, unit) in the output folder.
"""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.bench import best_of

logger = logging.getLogger(__name__)


def iteration_cost(n: int, repeats: int) -> dict[str, float]:
    """Seconds of the parts of one Newton iteration on the column case with N edges, at load factor 0.5."""
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.discretisations.rods.statics import StaticEquations, newton
    from lgbeam.discretisations.rods.statics_core import KKTFactor

    case, _ = load_case("column-pinned-roller", [f"model.n_elements={n}"])
    rod, q0, _ = build(case)
    eq = StaticEquations(rod, 1.0)
    nw = newton(eq, q0, np.zeros(eq.m), 0.5, tol=1e-10, max_iter=25, line_search=True)
    q, lam = nw.q, nw.lam
    parts, B = eq.parts(q, lam, 0.5)
    lu = eq.system(q, lam, 0.5)
    rhs = np.ones(eq.n + eq.m)
    assert lu is not None
    out = {  # the statics core (rods/statics_core.py): band assembly, banded LU, inertia from the same band
        "tangent": best_of(lambda: eq.kkt.assemble(*eq.parts(q, lam, 0.5)), repeats),
        "lu_and_solve": best_of(lambda: KKTFactor(eq.kkt, *eq.kkt.assemble(parts, B)).solve(rhs), repeats),
        "residual": best_of(lambda: eq.residual(q, lam, 0.5), repeats),
        "stability_count": best_of(lambda: lu.inertia(lambda: rod.mass(q), lambda: eq.tangent(q, lam, 0.5)),
                                   max(1, repeats // 2)),
    }
    out["iteration"] = out["tangent"] + out["lu_and_solve"] + 2 * out["residual"]  # + line-search trial point
    return out


def path_counts(name: str, overrides: list[str]) -> dict[str, Any]:
    """Steps, Newton iterations, cut-backs, events and wall time of a static case's path."""
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.apps.rod_static import settings
    from lgbeam.discretisations.rods.statics import solve_static

    case, _ = load_case(name, overrides)
    rod, _, _ = build(case)
    t0 = time.perf_counter()
    path = solve_static(rod, t=float(case["time"]["t_end"]), **settings(case))
    wall = time.perf_counter() - t0
    return {"status": path.status, "steps": path.n_steps, "iterations": sum(s.iterations for s in path.states),
            "cutbacks": path.cutbacks, "events": len(path.events), "wall_s": wall}


def run(out_dir: Path, quick: bool) -> None:
    """Print the tables and write ``out_dir/statics.csv``."""
    sizes = [64, 256] if quick else [64, 256, 1024, 4096]
    repeats = 2 if quick else 5
    rows: list[tuple[str, str, int, float, str]] = []
    print(f"{'N':>6}{'tangent ms':>12}{'LU+solve ms':>13}{'residual ms':>13}{'iteration ms':>14}"
          f"{'us/node/it':>12}{'stability ms':>14}")
    for n in sizes:
        c = iteration_cost(n, repeats)
        per_node = c["iteration"] / (n + 1) * 1e6
        print(f"{n:>6}{1e3 * c['tangent']:>12.2f}{1e3 * c['lu_and_solve']:>13.2f}{1e3 * c['residual']:>13.2f}"
              f"{1e3 * c['iteration']:>14.2f}{per_node:>12.2f}{1e3 * c['stability_count']:>14.2f}")
        rows += [(part, "column-pinned-roller", n, v, "s") for part, v in c.items()]
    cases = [("curl-end-moment", ["analysis.method='newton'"]), ("column-pinned-roller", ["analysis.method='newton'"]),
             ("column-pinned-roller", ["analysis.method='arc-length'"])]
    print(f"\n{'case':<24}{'method':>12}{'status':>9}{'steps':>7}{'Newton its':>12}{'cut-backs':>11}{'events':>8}{'wall s':>9}")
    for name, ov in cases:
        p = path_counts(name, ov)
        method = ov[0].split("=")[1].strip("'")
        print(f"{name:<24}{method:>12}{p['status']:>9}{p['steps']:>7}{p['iterations']:>12}{p['cutbacks']:>11}"
              f"{p['events']:>8}{p['wall_s']:>9.2f}")
        rows += [(f"path-{k}-{method}", name, 0, float(p[k]), "count" if k != "wall_s" else "s")
                 for k in ("steps", "iterations", "cutbacks", "events", "wall_s")]
    with open(out_dir / "statics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["part", "case", "N", "value", "unit"])
        w.writerows(rows)
    print(f"\nwrote {out_dir / 'statics.csv'}")
