"""1-D rod meshes (arc-length nodes s_0 < … < s_N) built on scikit-fem's ``MeshLine``.

Symbols: N edges, N+1 nodes, Δs_{i−½} = s_i − s_{i−1} (seed 004 eq. (23)), lumped nodal lengths
ℓ_i = (Δs_{i−½} + Δs_{i+½})/2 with half weights at the ends (trapezoidal rule).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from lgbeam._typing import FloatArray, IntArray

if TYPE_CHECKING:  # scikit-fem is imported by the methods that build its meshes (start-up, #34)
    from skfem import MeshLine


@dataclass(frozen=True)
class RodMesh:
    """Arc-length nodes of a rod; non-uniform spacing allowed.

    Parameters
    ----------
    s : (N+1,) strictly increasing arc-length coordinates, s[0] is the end "s = 0".
    """

    s: FloatArray = field(repr=False)

    def __post_init__(self) -> None:
        s = np.asarray(self.s, dtype=float)
        if s.ndim != 1 or s.size < 2:
            raise ValueError(
                f"a rod mesh needs at least 1 edge (2 nodes), got nodes of shape {s.shape}; "
                "set model.n_elements >= 1"
            )
        if not np.all(np.isfinite(s)):
            raise ValueError("rod mesh nodes must be finite numbers")
        ds = np.diff(s)
        bad = np.flatnonzero(ds <= 0.0)
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"rod mesh edge {i} has non-positive length {ds[i]:.3g} (s[{i}]={s[i]:.6g}, "
                f"s[{i + 1}]={s[i + 1]:.6g}); give strictly increasing, distinct nodes"
            )
        object.__setattr__(self, "s", s)

    @classmethod
    def uniform(cls, length: float, n_elements: int) -> RodMesh:
        """N equal edges on [0, length] (the nodes of scikit-fem's ``MeshLine``: ``linspace``)."""
        if not isinstance(n_elements, (int, np.integer)) or n_elements < 1:
            raise ValueError(f"n_elements must be an integer >= 1, got {n_elements!r}")
        if not np.isfinite(length) or length <= 0.0:
            raise ValueError(f"rod length must be positive, got {length!r}")
        return cls(np.linspace(0.0, float(length), int(n_elements) + 1))

    @classmethod
    def from_skfem(cls, mesh: MeshLine) -> RodMesh:
        """Nodes of a scikit-fem ``MeshLine`` (sorted by coordinate)."""
        return cls(np.sort(np.asarray(mesh.p[0], dtype=float)))

    def to_skfem(self) -> MeshLine:
        """The same nodes as a scikit-fem ``MeshLine`` (for linear FE references)."""
        from skfem import MeshLine

        return MeshLine(self.s.copy())

    def refined(self, times: int = 1) -> RodMesh:
        """Bisect every edge ``times`` times (scikit-fem refinement)."""
        return RodMesh.from_skfem(self.to_skfem().refined(times))

    @property
    def n_elements(self) -> int:
        return int(self.s.size - 1)

    @property
    def n_nodes(self) -> int:
        return int(self.s.size)

    @property
    def length(self) -> float:
        return float(self.s[-1] - self.s[0])

    @cached_property
    def ds(self) -> FloatArray:
        """Edge lengths Δs_{i−½}, shape (N,)."""
        return np.diff(self.s)

    @cached_property
    def node_weights(self) -> FloatArray:
        """Trapezoidal lumped lengths ℓ_i (half edges at the ends), shape (N+1,); sum = L."""
        w = np.zeros(self.n_nodes)
        w[:-1] += 0.5 * self.ds
        w[1:] += 0.5 * self.ds
        return w

    @cached_property
    def edges(self) -> IntArray:
        """Edge connectivity (N, 2): node i−1 and node i."""
        i = np.arange(self.n_elements, dtype=np.int64)
        return np.stack([i, i + 1], axis=1)

    def node_index(self, where: int | str) -> int:
        """Resolve a node reference: an integer index (negative counts from the end), "start", "end"."""
        if isinstance(where, str):
            if where in ("start", "s0", "left"):
                return 0
            if where in ("end", "tip", "right"):
                return self.n_nodes - 1
            raise ValueError(f"unknown node name {where!r}; use an index, 'start' or 'end'")
        if isinstance(where, bool) or not isinstance(where, (int, np.integer)):
            raise ValueError(f"node reference must be an integer or 'start'/'end', got {where!r}")  # noqa: TRY004 - a user error: the CLI maps ValueError to exit 2
        n = self.n_nodes
        if not -n <= where < n:
            raise ValueError(
                f"node {where} does not exist: the rod has {n} nodes (0 … {n - 1}, or -1 for the end)"
            )
        return int(where) % n
