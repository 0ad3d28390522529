"""Run folders and provenance.

A run folder is ``outputs/<case>/<YYYYmmdd-HHMMSS[-n]>/`` (or an explicit ``--out DIR``) holding::

    case.toml          the resolved case (defaults filled in, overrides applied)
    provenance.json    lgbeam version, git commit + dirty flag, numpy/scipy/python versions,
                       platform, command line, start time, wall time, status
    solution.npz       written by the app
    diagnostics.csv    written by the app
    paraview/          <name>.pvd + <name>/<name>_000123.vtu
    figures/           PNG pictures (lgbeam.io.plots, lgbeam.io.render)

An existing non-empty folder is never overwritten silently: ``make_run_dir`` raises
``FileExistsError`` unless ``force=True``, and even then only deletes a folder that looks like an
lgbeam run folder (it holds ``case.toml`` or ``provenance.json``).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import scipy

from lgbeam._version import PACKAGE_DIR, __version__
from lgbeam.io.atomic import RunLock, atomic_write_text

logger = logging.getLogger(__name__)

__all__ = ["check_name", "dumps_json", "git_info", "make_run_dir", "provenance", "write_json", "write_provenance"]

_RUN_MARKERS = ("case.toml", "provenance.json")


def _crashed_start(folder: Path) -> bool:
    """A run killed before its first file was whole: the folder holds only its lock (stale: checked by the caller)
    and unfinished atomic writes (``.<name>.<random>.tmp`` of ``io.atomic``), all plain files. A study retrying a
    run whose worker died finds this; anything else in the folder makes it someone else's."""
    entries = list(folder.iterdir())
    return (folder / RunLock.NAME).is_file() and all(
        p.is_file() and not p.is_symlink()
        and (p.name == RunLock.NAME or (p.name.startswith(".") and p.name.endswith(".tmp")))
        for p in entries)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}")  # fullmatch: "$" would pass a final newline


def check_name(name: Any, what: str = "case name") -> str:
    """The one rule for the names that become file and folder names (a case's ``name``, a ParaView series):
    1–128 letters, digits, ``_``, ``-`` and ``.``, not starting with ``-`` or ``.``, no ``..``; ValueError
    naming the rule otherwise (with or without ``--out``, so a name can never leave its folder)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        raise ValueError(f"{what} {name!r} cannot be a file name: use 1-128 letters, digits, '_', '-' or '.', "
                         "not starting with '-' or '.' and without '..' (set name = \"...\" in the case)")
    return name


def _ensure_writable(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PermissionError(
            f"cannot create output folder {folder}: {exc.strerror or exc}; choose another --out"
        ) from exc
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"output folder {folder} is not writable; choose another --out")


def make_run_dir(
    case_name: str,
    out: str | os.PathLike[str] | None = None,
    *,
    root: str | os.PathLike[str] = "outputs",
    force: bool = False,
    now: datetime | None = None,
    prefix: str = "",
) -> Path:
    """Create and return a fresh run folder.

    Parameters
    ----------
    case_name
        The case's name (folder under ``root``).
    out
        Explicit folder (``--out``); it must not exist or be empty unless ``force``.
    root
        Parent of the per-case folders when ``out`` is not given.
    force
        Replace an existing run folder given as ``out`` (only if it holds ``case.toml`` or
        ``provenance.json``; anything else is refused, so a typo cannot delete a user's folder).
    now
        Timestamp of the run id (default: the current local time).
    prefix
        Put before the run id, e.g. ``"study-"``.

    Raises
    ------
    FileExistsError
        ``out`` exists and is not empty (and ``force`` is false), or it is not a run folder.
    PermissionError
        The folder cannot be created or written.
    """
    if out is not None:
        folder = Path(out)
        if folder.exists() and not folder.is_dir():
            raise FileExistsError(f"--out {folder} is a file; choose a folder path")
        if folder.is_dir() and any(folder.iterdir()):
            if not force:
                raise FileExistsError(
                    f"output folder {folder} already exists and is not empty; pass --force to replace it "
                    "or choose another --out"
                )
            if (folder / RunLock.NAME).exists() and not RunLock.is_stale(folder):
                own = RunLock.owner(folder)
                raise FileExistsError(
                    f"refusing to replace {folder}: a run ({'process ' + str(own[0]) if own else 'another process'}) "
                    "is still writing it; wait for it to finish or choose another --out")
            if not any((folder / m).exists() for m in _RUN_MARKERS) and not _crashed_start(folder):
                raise FileExistsError(
                    f"refusing to replace {folder}: it is not an lgbeam run folder (no case.toml or "
                    "provenance.json); choose another --out"
                )
            logger.warning("replacing existing run folder %s (--force)", folder)
            shutil.rmtree(folder)
        _ensure_writable(folder)
        return folder
    parent = Path(root) / check_name(case_name)
    _ensure_writable(parent)
    stamp = prefix + (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        folder = parent / (stamp if n == 0 else f"{stamp}-{n}")
        try:
            folder.mkdir()  # exist_ok=False: atomic claim, safe for parallel study workers
            return folder
        except FileExistsError:
            continue
        except OSError as exc:
            raise PermissionError(f"cannot create run folder {folder}: {exc.strerror or exc}") from exc
    raise FileExistsError(f"more than 1000 runs of {case_name!r} in the same second under {parent}")


def git_info(repo: Path | None = None) -> dict[str, Any]:
    """``{"commit": sha, "dirty": bool}`` of the checkout holding lgbeam, or ``{}`` outside git.

    Without ``repo`` (lgbeam's own checkout) the answer is asked of git once per process and then reused: the code
    a process runs is what it imported, and a run asks at its start, its end and for its checkpoint (6 git
    processes, ≈ 0.07 s of CPU, #34)."""
    if repo is None:
        return dict(_own_checkout())
    return _ask_git(repo)


@functools.cache
def _own_checkout() -> dict[str, Any]:
    return _ask_git(PACKAGE_DIR.parent)


def _ask_git(repo: Path) -> dict[str, Any]:
    if not (repo / ".git").exists():
        return {}
    try:
        sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        st = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True,
                            text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"commit": sha, "dirty": bool(st.strip())}


def provenance(*, status: str, wall_time_s: float, started: str, case_name: str = "",
               extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The provenance record of a run (see module docstring)."""
    rec: dict[str, Any] = {
        "case": case_name,
        "status": status,
        "started": started,
        "wall_time_s": wall_time_s,
        "lgbeam": __version__,
        "git": git_info(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "platform": platform.platform(),
        "command": sys.argv,
    }
    rec.update(extra or {})
    return rec


def _jsonable(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    return repr(o)


def _strict(o: Any) -> Any:
    """``o`` with every non-finite float as the string "nan", "inf" or "-inf" (``float()`` reads them back)."""
    if isinstance(o, dict):
        return {k: _strict(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_strict(v) for v in o]
    if isinstance(o, np.ndarray):
        return _strict(o.tolist())
    if isinstance(o, np.generic):
        return _strict(o.item())
    if isinstance(o, float) and not math.isfinite(o):
        return repr(o)
    return o


def dumps_json(data: Any) -> str:
    """Strict JSON text of ``data`` (indented, one final newline): NaN and ±inf as strings, never the bare
    ``NaN``/``Infinity`` that strict readers (``jq``, JavaScript, Go) reject; numpy values as plain ones."""
    return json.dumps(_strict(data), indent=2, default=_jsonable, allow_nan=False) + "\n"


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write strict JSON (``dumps_json``) atomically (temporary file + ``os.replace``)."""
    atomic_write_text(path, dumps_json(data))


def write_provenance(run_dir: Path, **kwargs: Any) -> dict[str, Any]:
    """Write ``run_dir/provenance.json`` (arguments as for ``provenance``) and return the record."""
    rec = provenance(**kwargs)
    write_json(Path(run_dir) / "provenance.json", rec)
    return rec


class Stopwatch:
    """Wall-clock timer with the ISO start time, for provenance records."""

    def __init__(self) -> None:
        self.started = datetime.now().isoformat(timespec="seconds")
        self._t0 = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0
