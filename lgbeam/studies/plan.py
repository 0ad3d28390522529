"""What a study is, shared by the runner and its refinement analysis: the plan, the label of a grid point and the
CSV writer (``lgbeam.studies.runner`` plans and runs studies; ``lgbeam.studies.study_refinement`` analyses their
quantities; both import this module, neither imports the other's internals).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lgbeam.io.atomic import atomic_write_text
from lgbeam.studies.quantities import Quantity

__all__ = ["REFERENCE", "StudyPlan", "point_label", "write_csv"]

REFERENCE = "reference"


def point_label(point: dict[str, Any]) -> str:
    """The folder-safe label of a grid point: ``key=value`` pairs joined by ``,`` ("/" as "_", no spaces)."""
    return ",".join(f"{k}={v}" for k, v in point.items()).replace("/", "_").replace(" ", "")


@dataclass(frozen=True)
class StudyPlan:
    """A validated study: grid points (label, values, resolved case) and the optional reference run."""

    name: str
    source: Path
    overrides: list[str]
    varies: list[tuple[str, list[Any]]]
    points: list[tuple[str, dict[str, Any], dict[str, Any]]]
    reference: str | None  # label of the reference run (a grid point's or REFERENCE), None: no errors
    reference_case: dict[str, Any] | None = None  # when the reference is not a grid point
    reference_overrides: list[str] = field(default_factory=list)
    quantities: tuple[Quantity, ...] = ()  # measured on every run (``--quantity``), refinement-analysed
    against: str = "reference"  # the target of the quantities' errors: "reference", "richardson" or "exact"
    formal_order: float | None = None  # the order assumed with two runs (no observed order)
    exact: dict[str, Any] = field(default_factory=dict)  # quantity text -> its exact value (``--exact Q=V``)

    def runs(self) -> list[tuple[str, dict[str, Any]]]:
        extra = [(REFERENCE, self.reference_case)] if self.reference_case is not None else []
        return [(label, case) for label, _, case in self.points] + extra  # type: ignore[list-item]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows of dicts as CSV (atomically), columns in order of first appearance."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    atomic_write_text(path, buf.getvalue())
