"""What the reproduction scripts share: a CSV writer and a figure writer (one home, one style)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A header row and the rows, comma-separated."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def save_figure(fig: Figure, path: Path, dpi: int = 110) -> None:
    """Render an off-screen (Agg) figure to ``path`` with a tight layout."""
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
