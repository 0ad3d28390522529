"""The ParaView frames of rods and frames: one owner for the ``.vtp`` polyline a run writes per saved state.

``poly_frame(structure, name, q, v, lam, t)`` is the ``PolyFrame`` of ``lgbeam.discretisations.frames.output``'s
``engineering_frame`` (section resultants with the multipliers, units and frames of every array; docs/output.md);
``rod_frames(rod, name)`` builds it for a single rod, wrapped as a structure of one. The rod app (dynamic and
static), the frame app and ``lgbeam modes`` write their series through these two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lgbeam.discretisations.frames import Structure
from lgbeam.discretisations.frames.output import EngineeringFrame, engineering_frame
from lgbeam.io.vtk import PolyFrame

__all__ = ["poly_frame", "rod_frames"]


def poly_frame(structure: Any, name: str, q: np.ndarray, v: np.ndarray | None, lam: np.ndarray | None,
               t: float) -> PolyFrame:
    """The ``.vtp`` frame of ``structure`` at state (q, v, λ) and time t (v, λ None: zero velocities, no
    constraint forces in the resultants)."""
    return _poly(engineering_frame(structure, q, v, lam, t, name=name))


def _poly(ef: EngineeringFrame) -> PolyFrame:
    """The ``PolyFrame`` of an ``EngineeringFrame`` (its edges frame too)."""
    edges = None if ef.edges is None else _poly(ef.edges)
    return PolyFrame(ef.points, ef.lines, ef.point_data, ef.cell_data, ef.field_data, edges)


def rod_frames(rod: Any, name: str) -> Callable[..., PolyFrame]:
    """``frame(q, v, lam, t=0.0)``: the ``.vtp`` frame of one rod (a structure of one rod named ``name``)."""
    one = Structure(rods={name: rod})
    return lambda q, v, lam, t=0.0: poly_frame(one, name, q, v, lam, t)
