"""Nodal weights of the rod's lumped inertia (``CosseratRod(inertia=...)``; docs/rod.md "Spatial accuracy").

The lumped mass is M = diag(ρJ w_i, ρA w_i I₃) with quadrature weights w_i of ∫ · ds at the nodes:

    "lumped"          the trapezoidal rule, w = ℓ_i (half edges at the ends): seed 004 §4, the default.
    "end-corrected"   the trapezoidal rule with Gregory's first end correction,
                      w_0 = ℓ_0 − Δs_0/12, w_1 = ℓ_1 + Δs_0/12 (and mirrored at s = L), i.e. h·(5/12, 13/12, 1, …)
                      on a uniform mesh: a third-order rule instead of a second-order one.
    "end-corrected-3" Gregory's second end correction, h·(3/8, 7/6, 23/24, 1, …) on a uniform mesh
                      (exact for cubics); needs N ≥ 5.

Why: the trapezoidal weights overestimate the second moment of the mass, ∫ρA (s − c)² ds, by ρA Δs³/6 per
edge (ρA h² L/6 on a uniform mesh), so the rod's rigid-body inertia about its transverse axes is too large by
a relative 2/N² (plus ρJ's share). A free rod that spins (flying spaghetti) then turns too slowly, which is
the leading space error there. The Gregory weights cancel that term; they stay positive, diagonal and
constant (only the two or three nodes at each end change), so the mass matrix keeps its structure and the
explicit step limit is nearly unchanged. The corrections are dipoles (Σ δw_i = 0): total mass and the
centre of mass of a uniform mesh are unchanged. On a graded mesh the end corrections use the end edges'
lengths; the rule then stays second order (interior edges of different lengths carry their own Δs³ terms).
"""

from __future__ import annotations

import numpy as np

from lgbeam._typing import FloatArray

from .mesh import RodMesh

INERTIA = ("lumped", "end-corrected", "end-corrected-3")

_END = {
    "end-corrected": np.array([5 / 12 - 1 / 2, 13 / 12 - 1]),
    "end-corrected-3": np.array([3 / 8 - 1 / 2, 7 / 6 - 1, 23 / 24 - 1]),
}


def check_inertia(kind: str, n_elements: int) -> None:
    """Raise ValueError for an unknown ``inertia`` or a mesh too short for its end corrections."""
    if kind not in INERTIA:
        raise ValueError(f"unknown rod inertia {kind!r}; use one of {', '.join(INERTIA)}")
    need = 2 * len(_END[kind]) - 1 if kind in _END else 1
    if n_elements < need:
        raise ValueError(f"inertia = {kind!r} needs at least {need} edges (its end corrections at both ends must not "
                         f"overlap), got {n_elements}; refine the mesh or use inertia = 'lumped'")


def node_weights(mesh: RodMesh, kind: str = "lumped") -> FloatArray:
    """Quadrature weights w_i (N+1,) of the lumped inertia; ``mesh.node_weights`` itself for "lumped"."""
    check_inertia(kind, mesh.n_elements)
    if kind == "lumped":
        return mesh.node_weights
    d = _END[kind]
    k = d.size
    w = mesh.node_weights.copy()
    w[:k] += mesh.ds[0] * d
    w[::-1][:k] += mesh.ds[-1] * d
    return w
