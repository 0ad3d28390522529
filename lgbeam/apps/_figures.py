"""What the seed-system apps' own figures share: reading a run folder back and writing one PNG (Agg canvas,
no display). Each app's ``figures(run_dir)`` draws its seed figure from ``solution.npz`` and
``diagnostics.csv`` into ``run_dir/figures/`` (``lgbeam run`` calls it after the generic pictures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.io.atomic import make_dirs, write_via
from lgbeam.io.plots import read_diagnostics


def load_run(run_dir: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(solution arrays, accepted diagnostics rows) of a run folder; ValueError when either file is missing."""
    run_dir = Path(run_dir)
    if not (run_dir / "solution.npz").is_file() or not (run_dir / "diagnostics.csv").is_file():
        raise ValueError(f"{run_dir} has no solution.npz and diagnostics.csv to draw from")
    with np.load(run_dir / "solution.npz", allow_pickle=False) as z:
        sol = {k: z[k] for k in z.files}
    diag = read_diagnostics(run_dir / "diagnostics.csv")
    if "accepted" in diag:
        keep = diag["accepted"] > 0.5
        diag = {k: v[keep] for k, v in diag.items()}
    return sol, diag


def save(fig: Figure, run_dir: Path, name: str) -> Path:
    """Write ``fig`` to ``run_dir/figures/name`` with a tight layout."""
    out = make_dirs(Path(run_dir) / "figures")
    FigureCanvasAgg(fig)
    fig.tight_layout()
    return write_via(out / name, lambda p: fig.savefig(p, dpi=110))


def new_figure(width: float, height: float) -> Any:
    """A matplotlib ``Figure`` (object API; no pyplot state)."""
    return Figure(figsize=(width, height))
