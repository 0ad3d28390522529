"""``Product(G, n)``: the direct product ``Gⁿ`` (e.g. ``(S³⋉R³)^(N+1)`` for a rod of N elements).

Elements ``(..., n, *G.param_shape)``; tangents flat ``(..., n·dim)`` (node-major: node ``i`` owns
entries ``[i·dim, (i+1)·dim)``), because mass and constraint matrices act on flat vectors.
``tangent``, ``tangent_inv``, ``Ad``, ``ad`` return stacked blocks ``(..., n, dim, dim)``;
``tangent_apply``/``tangent_inv_apply`` return flat vectors without forming blocks where ``G``
has cross-product formulas; ``block_diag(blocks)`` gives a CSR matrix. Never a dense ``(n·dim)²`` matrix
(seed 004 §2.3: exp and T on ``(S³⋉R³)^(N+1)`` are block diagonal).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from lgbeam._numba import fast_rows
from lgbeam._typing import FloatArray
from lgbeam.groups.base import GroupBase, as_array

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Product(GroupBase):
    """``G × … × G`` (``n`` copies), vectorised: one call of ``G``'s map on all ``n`` blocks."""

    G: Any
    n: int
    _maps: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.n, (int, np.integer)) or isinstance(self.n, bool) or self.n < 1:
            raise ValueError(f"Product: n must be a positive integer (number of copies); got {self.n!r}.")
        for attr in ("exp", "log", "compose", "tangent_inv", "dim", "param_shape"):
            if not hasattr(self.G, attr):
                raise ValueError(f"Product: G must be a Lie group of lgbeam.groups (missing {attr!r}); "
                                 f"got {type(self.G).__name__}.")
        # G's maps on rows (S3R3: numpy or compiled, as G was built), for unbatched float64 operands
        object.__setattr__(self, "_maps", getattr(self.G, "maps", None))

    @property
    def name(self) -> str:
        return f"{self.G.name}^{self.n}"

    @cached_property
    def dim(self) -> int:
        return int(self.n) * self.G.dim

    @cached_property
    def param_shape(self) -> tuple[int, ...]:
        return (int(self.n), *self.G.param_shape)

    def _blocks(self, xi: Any, what: str = "tangent vector") -> FloatArray:
        arr = as_array(self.name, what, xi, (self.dim,))
        return arr.reshape(arr.shape[:-1] + (self.n, self.G.dim))

    def _flat(self, blocks: FloatArray) -> FloatArray:
        return blocks.reshape(blocks.shape[:-2] + (self.dim,))

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        return self.G.identity(tuple(batch) + (self.n,))

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        return self.G.compose(self._elem(a, "a"), self._elem(b, "b"))

    def inverse(self, a: FloatArray) -> FloatArray:
        return self.G.inverse(self._elem(a))

    def exp(self, xi: FloatArray) -> FloatArray:
        return self.G.exp(self._blocks(xi))

    def log(self, a: FloatArray) -> FloatArray:
        return self._flat(self.G.log(self._elem(a)))

    def retract(self, a: FloatArray, xi: FloatArray) -> FloatArray:
        """``a ∘ exp(ξ)`` blockwise (``G.retract`` when ``G`` has a fused one)."""
        if self._rows_apply(a, xi, self.param_shape):  # the integrator's hot path: one call of G's row map
            return self._maps.retract(a, xi.reshape(self.n, self.G.dim))
        a, blocks = self._elem(a, "a"), self._blocks(xi)
        if hasattr(self.G, "retract"):
            return self.G.retract(a, blocks)
        return self.G.compose(a, self.G.exp(blocks))

    def _rows_apply(self, a: Any, b: Any, a_shape: tuple[int, ...]) -> bool:
        """True when ``G`` has maps on rows (``G.maps``) and the operands are unbatched float64 C-contiguous
        arrays: ``a`` of shape ``a_shape`` and ``b`` a flat tangent (else the checked path)."""
        return (self._maps is not None and getattr(a, "shape", None) == a_shape
                and getattr(b, "shape", None) == (self.dim,) and fast_rows(a, a_shape[-1]) is not None
                and fast_rows(b, self.dim) is not None)

    def hat(self, xi: FloatArray) -> FloatArray:
        """Stacked algebra matrices ``(..., n, *G.hat shape)``."""
        return self.G.hat(self._blocks(xi))

    def vee(self, X: FloatArray) -> FloatArray:
        return self._flat(self.G.vee(X))

    def Ad(self, a: FloatArray) -> FloatArray:
        return self.G.Ad(self._elem(a))

    def ad(self, xi: FloatArray) -> FloatArray:
        return self.G.ad(self._blocks(xi))

    def tangent(self, xi: FloatArray) -> FloatArray:
        """Stacked blocks ``(..., n, dim, dim)`` of the block-diagonal ``T(ξ)``."""
        return self.G.tangent(self._blocks(xi))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        """Stacked blocks ``(..., n, dim, dim)`` of the block-diagonal ``T(ξ)⁻¹``."""
        return self.G.tangent_inv(self._blocks(xi))

    def tangent_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        """``T(ξ) v`` for flat ``ξ, v`` ``(..., n·dim)``; flat result."""
        return self._flat(self.G.tangent_apply(self._blocks(xi), self._blocks(v, "v")))

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        """``T(ξ)⁻¹ v`` for flat ``ξ, v`` ``(..., n·dim)``; flat result."""
        if self._rows_apply(xi, v, (self.dim,)):
            d = self.G.dim
            return self._maps.tangent_inv_apply(xi.reshape(self.n, d), v.reshape(self.n, d)).reshape(self.dim)
        return self._flat(self.G.tangent_inv_apply(self._blocks(xi), self._blocks(v, "v")))

    def block_diag(self, blocks: FloatArray) -> sp.csr_array:
        """CSR matrix ``(n·dim, n·dim)`` with the ``(n, dim, dim)`` blocks on the diagonal."""
        d = self.G.dim
        blocks = np.asarray(blocks, dtype=float)
        if blocks.shape != (self.n, d, d):
            raise ValueError(f"{self.name}: block_diag needs blocks of shape ({self.n}, {d}, {d}) (one "
                             f"unbatched stack, e.g. tangent_inv(xi) for a single xi); got {blocks.shape}.")
        rows = np.arange(self.dim)
        indptr = np.arange(self.dim + 1) * d
        indices = ((rows // d) * d)[:, None] + np.arange(d)[None, :]
        return sp.csr_array((blocks.reshape(-1), indices.reshape(-1), indptr), shape=(self.dim, self.dim))

    def rotation(self, a: FloatArray) -> FloatArray:
        return self.G.rotation(self._elem(a))

    def translation(self, a: FloatArray) -> FloatArray:
        return self.G.translation(self._elem(a))

    def from_rotation(self, R: FloatArray, x: FloatArray | None = None) -> FloatArray:
        """Element from ``R`` ``(..., n, 3, 3)`` and ``x`` ``(..., n, 3)``."""
        return self.G.from_rotation(R, x) if x is not None else self.G.from_rotation(R)

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., n, *G.param_shape)`` and every block valid for ``G``."""
        arr = self._elem(a)
        self.G.validate(arr)
        return arr
