"""What the seed 001/002 body cases share (``rigid-body``, ``spheres``, ``attitude``, ``pseudo-rigid``): checked
vectors from case keys, the method options a case may pass, and the run folder's own figures.

Each of these apps defines ``figures(run_dir)``, which ``lgbeam run`` calls after the generic pictures of
``lgbeam.io.plots.plot_run``; it draws the panel of the seed figure its defaults reproduce.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.integrators.registry import method_entry
from lgbeam.io.atomic import make_dirs, write_via
from lgbeam.io.plots import read_diagnostics


def content(energy: float, potential: float = 0.0) -> float:
    """The energy content T + |V| of a state with energy E = T + V and potential V: the scale of the driver's energy
    check (``lgbeam.solve.driver``, diagnostics key ``energy_scale``), positive in a state of zero energy."""
    return float(energy - potential + abs(potential))


def vector(value: Any, key: str, n: int = 3) -> np.ndarray:
    """``n`` finite numbers from a case key; ValueError naming the key otherwise."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = np.empty(0)
    if arr.shape != (n,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"case key '{key}' must be {n} finite numbers, got {value!r}")
    return arr


def positive(value: Any, key: str, n: int = 3) -> np.ndarray:
    """``n`` finite numbers > 0 (inertias, masses); ValueError naming the key otherwise."""
    arr = vector(value, key, n)
    if np.any(arr <= 0):
        raise ValueError(f"case key '{key}' must be {n} numbers > 0, got {value!r}")
    return arr


def matrix(value: Any, key: str) -> np.ndarray:
    """A finite 3 × 3 matrix from a case key (a list of three rows)."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = np.empty(0)
    if arr.shape != (3, 3) or not np.all(np.isfinite(arr)):
        raise ValueError(f"case key '{key}' must be a 3 × 3 list of finite numbers (three rows), got {value!r}")
    return arr


def method_options(integ: dict[str, Any], **wanted: Any) -> dict[str, Any]:
    """The options in ``wanted`` that the case's method accepts (e.g. ``quadrature`` only for ep4 / *-avf)."""
    accepted = set(method_entry(integ["method"]).options)
    return {k: v for k, v in wanted.items() if k in accepted and v is not None}


def read_run(run_dir: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(solution.npz, accepted rows of diagnostics.csv) of a run folder, as dicts of arrays."""
    with np.load(Path(run_dir) / "solution.npz", allow_pickle=False) as z:
        sol = {k: z[k] for k in z.files}
    diag = read_diagnostics(Path(run_dir) / "diagnostics.csv")
    if "accepted" in diag:
        keep = diag["accepted"] > 0.5
        diag = {k: v[keep] for k, v in diag.items()}
    return sol, diag


def save(fig: Figure, run_dir: Path, name: str) -> Path:
    """Render ``fig`` into ``run_dir/figures/<name>``."""
    path = Path(run_dir) / "figures" / name
    make_dirs(path.parent)
    FigureCanvasAgg(fig)
    fig.tight_layout()
    return write_via(path, lambda p: fig.savefig(p, dpi=110))


def drift_slope(t: np.ndarray, e: np.ndarray) -> float:
    """Least-squares slope of e(t) (seed 001 Fig. 4.1's drift measure)."""
    ok = np.isfinite(e)
    return float(np.polyfit(t[ok], e[ok], 1)[0]) if np.count_nonzero(ok) >= 2 else float("nan")


def energy_summary(sol: Any, *monitors: str) -> dict[str, float]:
    """provenance.json figures of a run from its streamed diagnostics: the energy's change over the accepted steps
    (max − min, first → last) and the maximum of each monitor column."""
    out: dict[str, float] = {}
    e = sol.summary.get("energy")
    if e:
        out["energy_range"] = float(e["max"] - e["min"])
        out["energy_change"] = float(e["last"] - e["first"])
    for m in monitors:
        if m in sol.summary:
            out[f"{m}_max"] = float(sol.summary[m]["max"])
    return out
