"""Ground-motion records (``[[loads.ground]] record``, docs/dynamics.md): a PEER NGA ``.AT2`` file or two
columns t, a, read as untrusted input.

PEER NGA .AT2: four header lines (database, event and station, units, then ``NPTS= n, DT= dt SEC``), then the
n accelerations in rows of any width; the times are k·dt, k = 0…n−1. Two columns: ``t a`` per line (comma,
space or tab separated; ``#`` comments and one header line of text allowed), t strictly increasing from ≥ 0.

The path is taken relative to the case file's folder and must stay inside it (no ``..``, no absolute path, no
symbolic link that leads out); the file is at most ``MAX_BYTES`` and ``MAX_POINTS`` samples; every refusal is
one ValueError line naming the file and what to change.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from lgbeam._typing import FloatArray

MAX_BYTES = 20 * 1024**2  # 20 MiB: a 100 000-point record in text is ~1.5 MB
MAX_POINTS = 2_000_000
_NPTS = re.compile(r"NPTS\s*=?\s*(\d+)\s*,?\s*DT\s*=?\s*([0-9.eE+-]+)", re.IGNORECASE)


def resolve(record: str, folder: Path) -> Path:
    """The record's file: ``record`` relative to ``folder`` (the case file's), which it must not leave."""
    if not isinstance(record, str) or not record:
        raise ValueError(f"loads.ground.record must be a file name relative to the case file, got {record!r}")
    rel = Path(record)
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"loads.ground.record = {record!r} must be a path inside the case file's folder "
                         "(no absolute path, no '..'); copy the record beside the case")
    base = folder.resolve()
    path = (base / rel).resolve()
    if not path.is_relative_to(base):
        raise ValueError(f"loads.ground.record = {record!r} leads outside the case file's folder {base} (a "
                         "symbolic link?); copy the record beside the case")
    if not path.is_file():
        raise ValueError(f"loads.ground.record: no file {path}; give a PEER .AT2 or a two-column t, a file "
                         "relative to the case file")
    if path.stat().st_size > MAX_BYTES:
        raise ValueError(f"loads.ground.record {path.name} is {path.stat().st_size} bytes, more than "
                         f"{MAX_BYTES} allowed; shorten or decimate the record")
    return path


def read(path: Path) -> tuple[FloatArray, FloatArray]:
    """(t, a) of a record file, a in the file's units: .AT2 by its suffix or its NPTS/DT header, else two
    columns."""
    try:
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"record {path.name} is not UTF-8 text; give a PEER .AT2 or a two-column t, a file") from None
    lines = text.splitlines()
    at2 = path.suffix.lower() == ".at2" or any(_NPTS.search(ln) for ln in lines[:6])
    t, a = _at2(path.name, lines) if at2 else _columns(path.name, lines)
    if a.size < 2:
        raise ValueError(f"record {path.name} has {a.size} samples; it needs at least 2")
    if not np.all(np.isfinite(a)) or not np.all(np.isfinite(t)):
        raise ValueError(f"record {path.name} holds a non-finite value (NaN or inf) at sample "
                         f"{int(np.flatnonzero(~(np.isfinite(a) & np.isfinite(t)))[0]) + 1}; fix the file")
    return t, a


def _at2(name: str, lines: list[str]) -> tuple[FloatArray, FloatArray]:
    """A PEER NGA .AT2: the NPTS/DT line within the first six, the samples after it."""
    for k, ln in enumerate(lines[:6]):
        m = _NPTS.search(ln)
        if m:
            break
    else:
        raise ValueError(f"record {name}: no 'NPTS= n, DT= dt' line in its first 6 lines (a PEER NGA .AT2 header "
                         "has it on line 4); fix the header or give two columns t, a")
    n, dt = int(m.group(1)), _number(m.group(2), name, k + 1)
    if not 2 <= n <= MAX_POINTS or not (np.isfinite(dt) and dt > 0.0):
        raise ValueError(f"record {name}: header NPTS = {n}, DT = {m.group(2)}; NPTS must be in [2, {MAX_POINTS}] "
                         "and DT a positive number of seconds")
    body = " ".join(lines[k + 1:]).replace(",", " ").split()
    try:
        a = np.array(body, dtype=float)
    except ValueError:
        bad = next(w for w in body if not _is_number(w))
        raise ValueError(f"record {name}: {bad!r} after the header is not a number") from None
    if a.size != n:
        raise ValueError(f"record {name}: the header says NPTS = {n} but the file holds {a.size} samples; fix NPTS or "
                         "the data")
    return dt * np.arange(n, dtype=float), a


def _columns(name: str, lines: list[str]) -> tuple[FloatArray, FloatArray]:
    """Two columns t, a; comments (#) and one leading header line of text skipped."""
    rows: list[tuple[float, float]] = []
    header_seen = False
    for k, raw in enumerate(lines, 1):
        ln = raw.split("#", 1)[0].replace(",", " ").split()
        if not ln:
            continue
        if not rows and not header_seen and not all(_is_number(w) for w in ln):
            header_seen = True
            continue
        if len(ln) != 2:
            raise ValueError(f"record {name} line {k}: {len(ln)} values; a two-column record has t and a on each line")
        rows.append((_number(ln[0], name, k), _number(ln[1], name, k)))
        if len(rows) > MAX_POINTS:
            raise ValueError(f"record {name}: more than {MAX_POINTS} samples; decimate the record")
    if not rows:
        raise ValueError(f"record {name} holds no samples; give two columns t, a (or a PEER .AT2 with NPTS/DT)")
    data = np.array(rows)
    t = data[:, 0]
    if np.any(np.diff(t) <= 0.0) or t[0] < 0.0:
        k = int(np.flatnonzero(np.diff(t) <= 0.0)[0]) + 2 if np.any(np.diff(t) <= 0.0) else 1
        raise ValueError(f"record {name}: the times must start at t >= 0 and increase strictly (sample {k} does not)")
    return t, data[:, 1]


def _is_number(w: str) -> bool:
    try:
        float(w)
    except ValueError:
        return False
    return True


def _number(w: str, name: str, line: int) -> float:
    try:
        return float(w)
    except ValueError:
        raise ValueError(f"record {name} line {line}: {w!r} is not a number") from None
