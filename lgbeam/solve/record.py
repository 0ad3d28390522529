"""Where the driver's per-step rows go: in memory (``MemoryRecord``, the default) or streamed to a CSV file
(``CSVRecord``, constant memory whatever the step count; what ``lgbeam run`` uses for diagnostics.csv).

A row is t, h, err, accepted (0/1), iterations, then the method's diagnostics (and ``err_raw`` when a
constant-step run measures the embedded estimate). Both give running statistics of every column over the
accepted rows (``summary()``: first, last, min, max, sum, n), so a run's summary never needs the rows.
Rows are buffered in blocks of ``BLOCK`` and handled with array operations (a row costs one list append).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np

FIXED = ("t", "h", "err", "accepted", "iterations")
BLOCK = 1024


class _Stats:
    """first, last, min, max, sum, n of every column over accepted rows, updated a block at a time."""

    def __init__(self, n_cols: int) -> None:
        self.first = np.full(n_cols, np.nan)
        self.last = np.full(n_cols, np.nan)
        self.min = np.full(n_cols, np.inf)
        self.max = np.full(n_cols, -np.inf)
        self.sum = np.zeros(n_cols)
        self.n = np.zeros(n_cols, dtype=np.int64)

    def update(self, block: np.ndarray) -> None:
        acc = block[block[:, 3] > 0]
        if not acc.size:
            return
        valid = ~np.isnan(acc)
        any_valid = valid.any(axis=0)
        first_idx = np.argmax(valid, axis=0)
        last_idx = acc.shape[0] - 1 - np.argmax(valid[::-1], axis=0)
        cols = np.arange(acc.shape[1])
        new_first = any_valid & (self.n == 0)
        self.first[new_first] = acc[first_idx, cols][new_first]
        self.last[any_valid] = acc[last_idx, cols][any_valid]
        with np.errstate(invalid="ignore"):
            self.min = np.fmin(self.min, np.nanmin(np.where(valid, acc, np.inf), axis=0))
            self.max = np.fmax(self.max, np.nanmax(np.where(valid, acc, -np.inf), axis=0))
        self.sum += np.where(valid, acc, 0.0).sum(axis=0)
        self.n += valid.sum(axis=0)

    def as_dict(self, keys: tuple[str, ...]) -> dict[str, dict[str, float]]:
        return {k: {"first": float(self.first[i]), "last": float(self.last[i]), "min": float(self.min[i]),
                    "max": float(self.max[i]), "sum": float(self.sum[i]), "n": float(self.n[i])}
                for i, k in enumerate(keys)}


class MemoryRecord:
    """Rows kept in memory (``arrays()``: one float array per column)."""

    def __init__(self) -> None:
        self.keys: tuple[str, ...] = ()
        self._diag: tuple[str, ...] = ()
        self.buffer: list[tuple[float, ...]] = []
        self.blocks: list[np.ndarray] = []
        self.stats = _Stats(0)
        self.n_rows = 0

    def start(self, diag_keys: tuple[str, ...]) -> None:
        """Fix the columns (called once, before the first row)."""
        self._diag = tuple(k for k in diag_keys if k not in FIXED)
        self.keys = FIXED + self._diag
        self.stats = _Stats(len(self.keys))

    def add(self, t: float, h: float, err: float, accepted: bool, iterations: int, diag: dict[str, float]) -> None:
        self.buffer.append((t, h, err, float(accepted), float(iterations), *(diag.get(k, math.nan) for k in self._diag)))
        self.n_rows += 1
        if len(self.buffer) >= BLOCK:
            self._drain()

    def _drain(self) -> None:
        if not self.buffer:
            return
        block = np.asarray(self.buffer, dtype=float).reshape(len(self.buffer), len(self.keys))
        self.buffer = []
        self.stats.update(block)
        self._store(block)

    def _store(self, block: np.ndarray) -> None:
        self.blocks.append(block)

    def arrays(self) -> dict[str, np.ndarray]:
        self._drain()
        data = np.concatenate(self.blocks) if self.blocks else np.zeros((0, len(self.keys)))
        return {k: data[:, i].copy() for i, k in enumerate(self.keys)}

    def summary(self) -> dict[str, dict[str, float]]:
        """Running statistics of every column over the accepted rows."""
        self._drain()
        return self.stats.as_dict(self.keys)

    def flush(self) -> None:
        """Make every row added so far durable (and counted in ``summary``)."""
        self._drain()

    def close(self) -> None:
        """Release the record's resources."""
        self._drain()

    def state(self) -> dict[str, Any]:
        """What a checkpoint needs to continue the record (columns, row count, statistics)."""
        self._drain()
        st = self.stats
        return {"keys": self.keys, "n_rows": self.n_rows,
                "stats": {name: getattr(st, name).copy() for name in ("first", "last", "min", "max", "sum", "n")}}

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a checkpoint's ``state()`` (the rows before it are not reloaded into memory)."""
        MemoryRecord.start(self, tuple(state["keys"])[len(FIXED):])
        self.n_rows = int(state["n_rows"])
        for name, value in state["stats"].items():
            setattr(self.stats, name, np.array(value))


class CSVRecord(MemoryRecord):
    """Rows streamed to a CSV file (header + one line per attempted step, every value exact: ``%.17g``);
    memory stays flat. ``flush()`` makes the rows durable (at checkpoints and at the end); on ``restore``
    the file is truncated to the checkpoint's row count (a kill may have left rows written after it).
    ``opener(path, mode, **kwargs)`` opens the file (the run folder's ``io.atomic.open_in_place``, which writes
    through no symbolic link; the solve layer does not import io)."""

    def __init__(self, path: str | os.PathLike[str], opener: Callable[..., IO[Any]] = open) -> None:
        super().__init__()
        self.path = Path(path)
        self._open = opener
        self._fh: IO[str] | None = None

    def start(self, diag_keys: tuple[str, ...]) -> None:
        super().start(diag_keys)
        self._fh = self._open(self.path, "w", newline="", encoding="utf-8")  # closed in close()
        self._fh.write(",".join(self.keys) + "\n")

    def _store(self, block: np.ndarray) -> None:
        assert self._fh is not None
        np.savetxt(self._fh, block, fmt="%.17g", delimiter=",")

    def arrays(self) -> dict[str, np.ndarray]:
        self._drain()
        return {}

    def flush(self) -> None:
        self._drain()
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
        fh = self._open(self.path, "r+", newline="", encoding="utf-8")  # no link written through (§2c)
        try:
            header = fh.readline()
            if tuple(header.strip().split(",")) != keys:
                raise ValueError(f"{self.path} does not match the checkpoint's columns; the run folder was modified")
            for i in range(n_rows):
                line = fh.readline()
                if not line:
                    raise ValueError(f"{self.path} has {i} rows, fewer than the checkpoint's {n_rows}")
                if not _is_row(line, len(keys)):
                    raise ValueError(f"{self.path}: row {i + 1} is not {len(keys)} numbers; the run folder was "
                                     "modified: rerun the case")
            fh.truncate(fh.tell())
            fh.seek(0, os.SEEK_END)  # the text layer read ahead: the next rows go right after the kept ones
        except BaseException:
            fh.close()
            raise
        self._fh = fh


def _is_row(line: str, n: int) -> bool:
    """Whether ``line`` is a row this record wrote: n comma-separated numbers."""
    parts = line.rstrip("\r\n").split(",")
    if len(parts) != n:
        return False
    try:
        for p in parts:
            float(p)
    except ValueError:
        return False
    return True


__all__ = ["CSVRecord", "MemoryRecord"]
