"""Quantities a refinement study measures, chosen by the user (``lgbeam study --quantity TEXT``, repeatable).

A quantity is evaluated on one finished run folder (its ``solution.npz``, ``diagnostics.csv`` and ``case.toml``)
and gives a number or a small array (a field: refinement errors are then RMS norms). The text is

    NAME [ "(" KEY "=" VALUE {"," KEY "=" VALUE} ")" ] [ "[" ITEM {"," ITEM} "]" ]      ITEM: int | ":" | x | y | z

with the built-in names

=========================================  =====================================================================
``position(s=S[, rod=R][, t=T])``          centreline position at arc length S of rod R (frames; the rod's start
                                           is s = 0) at the saved time T (default: the last), linear between
                                           nodes (exact when S is a node of every mesh: nested meshes, the ends)
``displacement(s=S[, rod=R][, t=T])``      the same minus the position at the first saved time
``position(node=NAME[, t=T])``, ``displacement(node=NAME[, t=T])``   at a named node of a frame case given by
                                           nodes and members (``node_names`` of the run)
``reaction(support=NAME[, t=T])``          a support's reaction (M_x, M_y, M_z, F_x, F_y, F_z), spatial, on the
                                           rod, moment about the support node (``support_names`` of the run)
``joint_reaction(joint=NAME[, t=T])``      a frame joint's wrench on its rod b (``joint_names``)
``energy([t=T])``                          the ``energy`` column of diagnostics.csv at T (default: its last row)
``frequency(mode=K)``                      the K-th natural frequency in Hz of the case's structure about its
                                           reference (the app's ``frequencies(case, n)``; rod and frame cases)
``KEY``                                    any array of solution.npz, literally (``positions[-1, 16, 2]``)
=========================================  =====================================================================

``x``, ``y``, ``z`` in an index are 0, 1, 2 (``position(s=1.0)[z]``, ``reaction(support=clamp)[x]`` is M_x).
Node indices change under mesh refinement, so mesh studies measure by arc length (``position(s=...)``).
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.io.schema import CaseError

__all__ = ["BUILTINS", "Quantity", "columns", "evaluate", "parse_quantity"]

BUILTINS: dict[str, tuple[str, ...]] = {  # name -> its parameters (all optional ones included)
    "position": ("s", "rod", "t", "node"),
    "displacement": ("s", "rod", "t", "node"),
    "reaction": ("support", "t"),
    "joint_reaction": ("joint", "t"),
    "energy": ("t",),
    "frequency": ("mode",),
}
REQUIRED: dict[str, tuple[str, ...]] = {"position": ("s",), "displacement": ("s",), "reaction": ("support",),
                                        "joint_reaction": ("joint",), "frequency": ("mode",)}
_AXES = {"x": 0, "y": 1, "z": 2}
_SYNTAX = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\((.*)\))?\s*(?:\[(.*)\])?\s*$")
EXAMPLE = "e.g. position(s=1.0)[z], reaction(support=clamp)[5], energy, frequency(mode=1), positions[-1, 4, 0]"


@dataclass(frozen=True)
class Quantity:
    """A parsed quantity (``parse_quantity``); ``text`` is what the user wrote, normalised (the column name)."""

    text: str
    name: str
    params: tuple[tuple[str, Any], ...]
    index: tuple[int | slice, ...]

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)


def _value(text: str) -> Any:
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        pass
    try:
        v = float(t)
    except ValueError:
        return t.strip("\"'")
    return v


def _item(text: str, quantity: str) -> int | slice:
    t = text.strip()
    if t == ":":
        return slice(None)
    if t in _AXES:
        return _AXES[t]
    try:
        return int(t)
    except ValueError:
        raise CaseError(f"--quantity {quantity!r}: index item {t!r} is not an integer, ':' or x/y/z ({EXAMPLE})") from None


def parse_quantity(text: str) -> Quantity:
    """Parse ``--quantity TEXT`` (module docstring); CaseError (one line) naming what is wrong."""
    m = _SYNTAX.match(text)
    if not m:
        raise CaseError(f"--quantity {text!r} is not NAME(KEY=VALUE, ...)[INDEX] ({EXAMPLE})")
    name, args, idx = m.group(1), m.group(2), m.group(3)
    params: list[tuple[str, Any]] = []
    for part in (args or "").split(","):
        if not part.strip():
            continue
        key, sep, val = part.partition("=")
        if not sep or not key.strip() or not val.strip():
            raise CaseError(f"--quantity {text!r}: {part.strip()!r} is not KEY=VALUE ({EXAMPLE})")
        params.append((key.strip(), _value(val)))
    if name in BUILTINS:
        allowed, keys = BUILTINS[name], [k for k, _ in params]
        bad = [k for k in keys if k not in allowed]
        if bad:
            raise CaseError(f"--quantity {text!r}: {name} has no parameter {bad[0]!r}; its parameters: "
                            f"{', '.join(allowed)}")
        missing = [k for k in REQUIRED.get(name, ()) if k not in keys and not (k == "s" and "node" in keys)]
        if "node" in keys and ("s" in keys or "rod" in keys):
            raise CaseError(f"--quantity {text!r}: give node=NAME or s=... (+ rod=...), not both")
        if missing:
            raise CaseError(f"--quantity {text!r}: {name} needs {missing[0]}=..., e.g. "
                            + {"s": "position(s=1.0)", "support": "reaction(support=start)",
                               "joint": "joint_reaction(joint=corner)", "mode": "frequency(mode=1)"}[missing[0]])
        for k, v in params:
            if k in ("s", "t") and not isinstance(v, (int, float)):
                raise CaseError(f"--quantity {text!r}: {k} must be a number, got {v!r}")
            if k == "mode" and not (isinstance(v, int) and v >= 1):
                raise CaseError(f"--quantity {text!r}: mode must be a positive integer, got {v!r}")
    elif params:
        raise CaseError(f"--quantity {text!r}: only the built-in quantities take parameters "
                        f"({', '.join(BUILTINS)}); an array of solution.npz is indexed with [...]")
    index = tuple(_item(i, text) for i in idx.split(",")) if idx is not None and idx.strip() else ()
    norm = name + (f"({', '.join(f'{k}={v}' for k, v in params)})" if params else "")
    if idx is not None and idx.strip():
        norm += "[" + ", ".join(i.strip() for i in idx.split(",")) + "]"
    return Quantity(norm, name, tuple(params), index)


# --- evaluation ---------------------------------------------------------------------------------------------


def _time_index(npz: dict[str, np.ndarray], q: Quantity) -> int:
    t = np.asarray(npz["t"], dtype=float).ravel()
    want = q.param("t")
    if want is None:
        return t.size - 1
    j = int(np.argmin(np.abs(t - float(want))))
    if abs(t[j] - float(want)) > 1e-9 * max(1.0, abs(float(want))):
        raise CaseError(f"--quantity {q.text}: t = {want} is not a saved time of the run (nearest {t[j]:.6g}); "
                        "choose a multiple of output.every")
    return j


def _rod_slice(npz: dict[str, np.ndarray], q: Quantity) -> slice:
    if "rod_names" not in npz:
        if q.param("rod") is not None:
            raise CaseError(f"--quantity {q.text}: rod=... is for frame cases; this run has one rod")
        return slice(None)
    names = [str(n) for n in np.asarray(npz["rod_names"])]
    rod = q.param("rod")
    if rod is None:
        if len(names) != 1:
            raise CaseError(f"--quantity {q.text}: this frame has rods {', '.join(names)}; name one with rod=...")
        rod = names[0]
    if str(rod) not in names:
        raise CaseError(f"--quantity {q.text}: no rod {rod!r}; the rods are {', '.join(names)}")
    o = np.asarray(npz["rod_offsets"])
    j = names.index(str(rod))
    return slice(int(o[j]), int(o[j + 1]))


def _at_arclength(npz: dict[str, np.ndarray], q: Quantity, j: int) -> np.ndarray:
    for key in ("positions", "s"):
        if key not in npz:
            raise CaseError(f"--quantity {q.text}: the run has no {key!r} array (position(s=...) is for rod and "
                            "frame runs)")
    sl = _rod_slice(npz, q)
    s = np.asarray(npz["s"], dtype=float)[sl]
    x = np.asarray(npz["positions"], dtype=float)[j, sl]
    want = float(q.param("s"))
    tol = 1e-9 * max(float(s[-1]), 1.0)
    if not (s[0] - tol <= want <= s[-1] + tol):
        raise CaseError(f"--quantity {q.text}: s = {want} is outside the rod [{s[0]:g}, {s[-1]:g}]")
    k = int(np.clip(np.searchsorted(s, want), 1, s.size - 1))
    if abs(s[k - 1] - want) <= tol:
        return x[k - 1].copy()
    if abs(s[k] - want) <= tol:
        return x[k].copy()
    w = (want - s[k - 1]) / (s[k] - s[k - 1])
    return (1.0 - w) * x[k - 1] + w * x[k]


def _at_node(npz: dict[str, np.ndarray], q: Quantity, j: int) -> np.ndarray:
    if "node_names" not in npz:
        raise CaseError(f"--quantity {q.text}: the run has no named nodes (node=... is for frame cases given by "
                        "[[model.nodes]] and [[model.members]]); use s=... and rod=...")
    names = [str(n) for n in np.asarray(npz["node_names"])]
    want = str(q.param("node"))
    if want not in names:
        raise CaseError(f"--quantity {q.text}: no node {want!r}; the run's nodes: {', '.join(names)}")
    return np.asarray(npz["positions"], dtype=float)[j, int(np.asarray(npz["node_ids"])[names.index(want)])].copy()


def _named_row(npz: dict[str, np.ndarray], q: Quantity, what: str, names_key: str, values_key: str) -> np.ndarray:
    if names_key not in npz or values_key not in npz:
        raise CaseError(f"--quantity {q.text}: the run has no {what}s ({names_key} missing from solution.npz)")
    names = [str(n) for n in np.asarray(npz[names_key])]
    want = str(q.param(what))
    if want not in names:
        raise CaseError(f"--quantity {q.text}: no {what} {want!r}; the run's {what}s: {', '.join(names) or 'none'}")
    return np.asarray(npz[values_key], dtype=float)[_time_index(npz, q), names.index(want)]


def _energy(run_dir: Path, q: Quantity) -> float:
    path = run_dir / "diagnostics.csv"
    with open(path, encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r.get("energy") not in (None, "")]
    if not rows:
        raise CaseError(f"--quantity {q.text}: {path} has no energy column")
    if "accepted" in rows[0]:
        rows = [r for r in rows if float(r["accepted"]) != 0.0] or rows
    want = q.param("t")
    if want is None:
        return float(rows[-1]["energy"])
    t = np.array([float(r["t"]) for r in rows])
    j = int(np.argmin(np.abs(t - float(want))))
    if abs(t[j] - float(want)) > 1e-9 * max(1.0, abs(float(want))):
        raise CaseError(f"--quantity {q.text}: no diagnostics row at t = {want} (nearest {t[j]:.6g})")
    return float(rows[j]["energy"])


def _frequency(run_dir: Path, q: Quantity) -> float:
    from lgbeam.apps import get_app, load_case

    case, _ = load_case(run_dir / "case.toml")  # validated again: keys left out of the TOML (None) get defaults
    app = get_app(str(case["kind"]))
    if not hasattr(app, "frequencies"):
        raise CaseError(f"--quantity {q.text}: case kind {case['kind']!r} has no modal analysis; frequency(...) "
                        "works for rod and frame cases")
    mode = int(q.param("mode"))
    return float(np.asarray(app.frequencies(case, mode))[mode - 1])


def _raw(npz: dict[str, np.ndarray], q: Quantity) -> np.ndarray:
    if q.name not in npz:
        raise CaseError(f"--quantity {q.text}: {q.name!r} is neither a built-in quantity ({', '.join(BUILTINS)}) "
                        f"nor an array of solution.npz ({', '.join(sorted(npz))})")
    return np.asarray(npz[q.name])


def evaluate(q: Quantity, run_dir: Path, npz: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The value of ``q`` on the finished run in ``run_dir`` (a float array, 0-d for a number)."""
    run_dir = Path(run_dir)
    if npz is None:
        with np.load(run_dir / "solution.npz", allow_pickle=False) as z:
            npz = {k: z[k] for k in z.files}
    at = _at_node if q.name in ("position", "displacement") and q.param("node") is not None else _at_arclength
    if q.name == "position":
        v = at(npz, q, _time_index(npz, q))
    elif q.name == "displacement":
        v = at(npz, q, _time_index(npz, q)) - at(npz, q, 0)
    elif q.name == "reaction":
        v = _named_row(npz, q, "support", "support_names", "reactions")
    elif q.name == "joint_reaction":
        v = _named_row(npz, q, "joint", "joint_names", "joint_reactions")
    elif q.name == "energy":
        v = np.asarray(_energy(run_dir, q))
    elif q.name == "frequency":
        v = np.asarray(_frequency(run_dir, q))
    else:
        v = _raw(npz, q)
    if q.index:
        try:
            v = np.asarray(v)[q.index]
        except IndexError as exc:
            raise CaseError(f"--quantity {q.text}: index out of range for a value of shape {np.shape(v)} ({exc})") from None
    out = np.asarray(v, dtype=float)
    if not np.all(np.isfinite(out)):
        raise CaseError(f"--quantity {q.text}: the run gave a non-finite value ({json.dumps(out.tolist())[:80]})")
    return out


def columns(q: Quantity, value: np.ndarray) -> dict[str, float]:
    """study.csv columns of one value: ``text`` for a number, ``text[i]`` per component of an array."""
    v = np.asarray(value, dtype=float)
    if v.ndim == 0:
        return {q.text: float(v)}
    return {f"{q.text}[{','.join(map(str, i))}]": float(v[i]) for i in np.ndindex(v.shape)}
