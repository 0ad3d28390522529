"""What the reproduction scripts share: a CSV writer, a figure writer (one home, one style) and the command line of
the scripts that write one folder plus a summary copy."""

from __future__ import annotations

import argparse
import csv
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from lgbeam.io.atomic import atomic_write, write_via


def write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A header row and the rows, comma-separated."""
    with atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def save_figure(fig: Figure, path: Path, dpi: int = 110) -> None:
    """Render an off-screen (Agg) figure to ``path`` with a tight layout."""
    FigureCanvasAgg(fig)
    fig.tight_layout()
    write_via(path, lambda p: fig.savefig(p, dpi=dpi))


def figures_main(argv: list[str] | None, doc: str | None, run: Callable[[Path, Path, bool], object], out: str,
                 source: str) -> int:
    """``python -m lgbeam.studies.<script> [--out DIR] [--summary DIR] [--quick]``: ``run(out, summary, quick)``
    with logging to stdout; ``source`` names whose settings ``--quick`` departs from ("the paper's")."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(out))
    ap.add_argument("--summary", type=Path, default=Path("outputs/summary"))
    ap.add_argument("--quick", action="store_true", help=f"short intervals (for tests; not {source} settings)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    run(args.out, args.summary, args.quick)
    return 0
