"""Declarative case-file schemas: each app declares its valid keys, types and defaults.

A schema is a nested ``dict``: a section name maps to a dict of ``Key`` objects (or to a nested
section). ``validate(case, schema)`` returns the fully resolved case (defaults filled in) or raises
``CaseError`` naming the offending dotted key, the expected type and the valid keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam.integrators.controllers import PI_BETA

REQUIRED: Any = object()


class CaseError(ValueError):
    """A case file or a ``--set`` override is invalid; the message says what to change."""


@dataclass(frozen=True)
class Key:
    """One case-file key: its type(s), default (``REQUIRED`` if none), a one-line doc and its SI unit where it has
    one (``unit``: "m", "N m", "kg/m³"; "" when dimensionless or not stated; ``lgbeam keys KIND`` prints it)."""

    type: type | tuple[type, ...]
    default: Any = REQUIRED
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    unit: str = ""

    def type_name(self) -> str:
        types = self.type if isinstance(self.type, tuple) else (self.type,)
        return " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)


_TYPE_NAMES = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "table"}


def _check_value(dotted: str, key: Key, value: Any) -> Any:
    types = key.type if isinstance(key.type, tuple) else (key.type,)
    if float in types and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        raise CaseError(f"case key '{dotted}' must be a {key.type_name()}, got {value!r} ({type(value).__name__})")
    bad = _nonfinite(value, dotted)
    if bad is not None:
        raise CaseError(f"case key '{bad[0]}' must be a finite number, got {bad[1]!r}")
    if isinstance(value, list) and _numeric_list(key):
        size = len(key.default) if isinstance(key.default, list) and key.default else None
        if not all(_is_number(v) for v in value) or (size is not None and len(value) != size):
            what = f"{size} numbers" if size is not None else "a number or an array of numbers"
            raise CaseError(f"case key '{dotted}' must be {what}, got {value!r}")
    if key.choices is not None and value not in key.choices:
        raise CaseError(f"case key '{dotted}' = {value!r} is not one of {', '.join(map(str, key.choices))}")
    return value


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_real(v: Any) -> bool:
    """A number (Python or numpy, not a boolean, not a string: TOML's "10e3" is text, never read as 10 000)."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def vector3(where: str, value: Any) -> list[float]:
    """``value`` as 3 floats; CaseError naming the key ``where`` unless it is 3 finite numbers (a list, or an
    array of numbers from a script): ``force = ["10e3", 0, 0]`` is refused, not converted."""
    items = value.tolist() if isinstance(value, np.ndarray) and value.dtype.kind in "iuf" else value
    if not (isinstance(items, (list, tuple)) and len(items) == 3 and all(is_real(v) and math.isfinite(v) for v in items)):
        raise CaseError(f"case key '{where}' must be 3 finite numbers [x, y, z], got {value!r}")
    return [float(v) for v in items]


def _numeric_list(key: Key) -> bool:
    """A list key that holds numbers: one that also takes a single number, or whose default is numbers."""
    types = key.type if isinstance(key.type, tuple) else (key.type,)
    default = key.default
    return (float in types and list in types) or (
        isinstance(default, list) and bool(default) and all(_is_number(v) for v in default))


def _nonfinite(value: Any, where: str) -> tuple[str, Any] | None:
    """(dotted path, value) of the first nan/inf anywhere in ``value``, descending into arrays and tables
    (``loads.nodal[0].scale``); None when every number is finite."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (where, value)
    if isinstance(value, list):
        for i, v in enumerate(value):
            if (bad := _nonfinite(v, f"{where}[{i}]")) is not None:
                return bad
    elif isinstance(value, dict):
        for k, v in value.items():
            if (bad := _nonfinite(v, f"{where}.{k}")) is not None:
                return bad
    return None


def validate(case: dict[str, Any], schema: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Return ``case`` with defaults filled in; raise ``CaseError`` on unknown/missing/mistyped keys."""
    if not isinstance(case, dict):
        raise CaseError(f"case section '{prefix.rstrip('.') or '<top>'}' must be a table")
    unknown = sorted(set(case) - set(schema))
    if unknown:
        where = prefix.rstrip(".") or "the top level"
        raise CaseError(
            f"unknown case key '{prefix}{unknown[0]}' in {where}; valid keys: {', '.join(sorted(schema))}"
        )
    out: dict[str, Any] = {}
    for name, spec in schema.items():
        dotted = f"{prefix}{name}"
        if isinstance(spec, dict):
            out[name] = validate(case.get(name, {}), spec, dotted + ".")
        elif name in case:
            out[name] = _check_value(dotted, spec, case[name])
        elif spec.default is REQUIRED:
            raise CaseError(f"missing required case key '{dotted}' (a {spec.type_name()}): {spec.doc}")
        elif spec.default is not None:
            out[name] = spec.default
    return out


def integrator_section(methods: tuple[str, ...], default: str, *, h: float | None = None,
                       rtol: float | None = 1e-6, atol: float | None = 1e-8, time_unit: str = "",
                       **extra: Key) -> dict[str, Key]:
    """The ``integrator`` section every case kind shares: method (any registered name; ``methods`` are the ones
    that fit the kind, named in the doc — a method that does not fit is refused by the driver's contract
    check with what the system lacks), h (fixed step; None: adaptive; its unit ``time_unit``), rtol/atol (adaptive),
    max_steps, the adaptive step-size rule (controller, beta) and the kind's own ``extra`` keys."""
    return {
        "method": Key(str, default, doc=f"integration method: {', '.join(methods)} (`lgbeam list --methods`)"),
        "h": Key(float, h, doc="fixed step size; omit for adaptive stepping (methods with an error estimate)",
                 unit=time_unit),
        "rtol": Key(float, rtol, doc="relative tolerance (adaptive)"),
        "atol": Key(float, atol, doc="absolute tolerance (adaptive)"),
        "max_steps": Key(int, 1_000_000, doc="step cap (accepted + rejected)"),
        "controller": Key(str, "auto", choices=("auto", "constant", "i", "pi", "seed"),
                          doc="step-size control: 'auto' (constant steps h when h is given, else 'i'), 'constant' "
                          "(needs h), 'i' (adaptive, the plain rule of seed 004 (22)) or 'pi' (adaptive, PI control: "
                          "fewer rejected steps at a stability-bound step); 'i'/'pi' ignore h (docs/half-explicit.md); "
                          "'seed': seed 000's controller (33), absolute tolerance atol, first step T/100"),
        "beta": Key(float, PI_BETA, doc="the PI rule's β (controller = 'pi'; DOPRI5's 0.04, 0.04–0.08 usual; "
                    "β < 1/(1.75 (p̂ + 1)))"),
        **extra,
    }


def time_section(t_end: Any = REQUIRED, *, unit: str = "") -> dict[str, Key]:
    """The ``time`` section: t0 and t_end (``unit``: "s" for the SI kinds, "" for the nondimensional ones)."""
    return {"t0": Key(float, 0.0, doc="start time", unit=unit), "t_end": Key(float, t_end, doc="end time", unit=unit)}


def output_section(every: float, *, edge_data: bool = False, time_unit: str = "") -> dict[str, Key]:
    """The ``output`` section: the save interval (a time), the ParaView series, checkpoints and the size limits
    a run is checked against before it starts; ``edge_data``: the key ``output.edge_data`` of the kinds whose
    frames carry per-edge cells (rods, frames)."""
    edges = {"edge_data": Key(bool, True, doc="also write paraview/<name>-edges.pvd: each edge a line cell with "
                              "its section resultants, strains and curvature as cell data (exact edge values)")}
    return {"every": Key(float, every, doc="output interval in time units (also the ParaView frames); 0: every "
                         "accepted step (the steps are then the controller's alone: a method without dense output "
                         "otherwise shortens steps to land on the output times)", unit=time_unit),
            "vtk": Key(bool, True, doc="write the ParaView series"), **(edges if edge_data else {}),
            "checkpoint_seconds": Key(float, 60.0, doc="write checkpoint.npz every this many wall seconds "
                                      "(for lgbeam run --resume); 0 disables"),
            "checkpoint_steps": Key(int, 0, doc="also write it every this many accepted steps (0: by time only)"),
            "max_memory_gb": Key(float, 8.0, doc="refuse a run whose estimated memory exceeds this (GiB)"),
            "max_disk_gb": Key(float, 20.0, doc="refuse a run whose estimated output exceeds this (GiB)"),
            "max_frames": Key(int, 100_000, doc="refuse a run that would save more output times than this (each is "
                              "a row of solution.npz and, with vtk, a file of the ParaView series)")}
