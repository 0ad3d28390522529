"""Where the driver's per-step rows go: in memory (``MemoryRecord``, the default) or streamed to a CSV file
(``CSVRecord``, constant memory whatever the step count; what ``lgbeam run`` uses for diagnostics.csv).

A row is t, h, err, accepted (0/1), iterations, then the method's diagnostics (and ``err_raw`` when a
constant-step run measures the embedded estimate). Both keep running statistics of every column over
the accepted rows (``summary()``: first, last, min, max, sum, n), so a run's summary never needs the rows.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import IO, Any

import numpy as np

FIXED = ("t", "h", "err", "accepted", "iterations")


class _Stats:
    __slots__ = ("first", "last", "max", "min", "n", "sum")

    def __init__(self) -> None:
        self.first = self.last = math.nan
        self.min, self.max, self.sum, self.n = math.inf, -math.inf, 0.0, 0

    def add(self, x: float) -> None:
        if math.isnan(x):
            return
        if self.n == 0:
            self.first = x
        self.last, self.n, self.sum = x, self.n + 1, self.sum + x
        self.min, self.max = min(self.min, x), max(self.max, x)

    def as_dict(self) -> dict[str, float]:
        return {"first": self.first, "last": self.last, "min": self.min, "max": self.max, "sum": self.sum,
                "n": float(self.n)}


class MemoryRecord:
    """Rows kept in memory (``arrays()``: one float array per column)."""

    def __init__(self) -> None:
        self.keys: tuple[str, ...] = ()
        self.rows: dict[str, list[float]] = {}
        self.stats: dict[str, _Stats] = {}
        self.n_rows = 0

    def start(self, diag_keys: tuple[str, ...]) -> None:
        """Fix the columns (called once, before the first row)."""
        self.keys = FIXED + tuple(k for k in diag_keys if k not in FIXED)
        self.rows = {k: [] for k in self.keys}
        self.stats = {k: _Stats() for k in self.keys}

    def add(self, t: float, h: float, err: float, accepted: bool, iterations: int, diag: dict[str, float]) -> None:
        row = (t, h, err, float(accepted), float(iterations), *(diag.get(k, math.nan) for k in self.keys[5:]))
        self._write(row)
        self.n_rows += 1
        if accepted:
            for k, x in zip(self.keys, row):
                self.stats[k].add(float(x))

    def _write(self, row: tuple[float, ...]) -> None:
        for k, x in zip(self.keys, row):
            self.rows[k].append(float(x))

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, dtype=float) for k, v in self.rows.items()}

    def summary(self) -> dict[str, dict[str, float]]:
        """Running statistics of every column over the accepted rows."""
        return {k: s.as_dict() for k, s in self.stats.items()}

    def flush(self) -> None:
        """Make every row written so far durable (nothing to do in memory)."""

    def close(self) -> None:
        """Release the record's resources."""

    def state(self) -> dict[str, Any]:
        """What a checkpoint needs to continue the record (columns, row count, statistics)."""
        return {"keys": self.keys, "n_rows": self.n_rows,
                "stats": {k: (s.first, s.last, s.min, s.max, s.sum, s.n) for k, s in self.stats.items()}}

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a checkpoint's ``state()`` (the rows before it are not reloaded into memory)."""
        MemoryRecord.start(self, tuple(state["keys"])[5:])
        self.n_rows = int(state["n_rows"])
        for k, (first, last, lo, hi, total, n) in state["stats"].items():
            s = self.stats[k]
            s.first, s.last, s.min, s.max, s.sum, s.n = first, last, lo, hi, total, n


class CSVRecord(MemoryRecord):
    """Rows streamed to a CSV file (header + one line per attempted step); memory stays flat.

    ``flush()`` makes the rows durable (called at checkpoints and at the end); on ``restore`` the file is
    truncated to the checkpoint's row count (a kill may have left rows written after it) and appended to.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self._fh: IO[str] | None = None
        self._writer: Any = None

    def start(self, diag_keys: tuple[str, ...]) -> None:
        super().start(diag_keys)
        self.rows = {}
        self._fh = open(self.path, "w", newline="", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._writer = csv.writer(self._fh)
        self._writer.writerow(self.keys)

    def _write(self, row: tuple[float, ...]) -> None:
        assert self._writer is not None
        self._writer.writerow([repr(float(x)) for x in row])

    def arrays(self) -> dict[str, np.ndarray]:
        return {}

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self.flush()
            self._fh.close()
            self._fh = None

    def restore(self, state: dict[str, Any]) -> None:
        keys, n_rows = tuple(state["keys"]), int(state["n_rows"])
        MemoryRecord.restore(self, state)
        self.rows = {}
        with open(self.path, "r+", newline="", encoding="utf-8") as fh:
            header = fh.readline()
            if tuple(header.strip().split(",")) != keys:
                raise ValueError(f"{self.path} does not match the checkpoint's columns; the run folder was modified")
            for i in range(n_rows):
                if not fh.readline():
                    raise ValueError(f"{self.path} has {i} rows, fewer than the checkpoint's {n_rows}")
            fh.truncate(fh.tell())
        self._fh = open(self.path, "a", newline="", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self._writer = csv.writer(self._fh)


__all__ = ["CSVRecord", "MemoryRecord"]
