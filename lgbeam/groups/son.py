"""SO(n), any ``n ≥ 2``: orthogonal matrices ``(..., n, n)``, tangent ``(..., n(n−1)/2)``.

Basis of ``so(n)``: for pair ``k = (i, j)``, ``i < j`` in lexicographic order, ``E_k`` has ``+1`` at
``(j, i)`` and ``−1`` at ``(i, j)``; for ``n = 3`` the basis is SO3's (``hat`` agrees with ``SO3.hat``).
exp is ``scipy.linalg.expm`` (batched); log uses ``R = e^{X}`` normal: with ``S = (R + Rᵀ)/2`` and
``K = (R − Rᵀ)/2`` (commuting), ``log R = f(S) K`` with ``f(cos θ) = θ/sin θ`` applied through
``eigh(S)`` (angles in ``[0, π)``; ill-conditioned as ``θ → π`` like every matrix log).
``T(ξ) = Σ (−ad_ξ)ᵏ/(k+1)! = φ₁(−ad_ξ)`` from the top-right block of ``expm([[−ad, I], [0, 0]])``;
``T⁻¹`` by a batched solve. The polar-decomposition retraction of seed 003 ch. 4 is not implemented.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg as sla

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import GroupBase, MatrixGroupOps, as_array, check_finite, check_orthonormal

logger = logging.getLogger(__name__)

MAX_N = 128  # the basis of so(n) is n(n−1)/2 matrices n × n: 1.1 GB at n = 128 (a size read from a file is capped)


@dataclass(frozen=True)
class SOn(MatrixGroupOps, GroupBase):
    """Special orthogonal group of dimension ``n``; see the module docstring."""

    n: int = 3
    _pairs: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.n, (int, np.integer)) or isinstance(self.n, bool) or not 2 <= self.n <= MAX_N:
            raise ValueError(f"SOn: n must be an integer from 2 to {MAX_N}; got {self.n!r}.")
        n = int(self.n)
        # (row, col) of the +1 entry of each basis matrix
        pairs = ((2, 1), (0, 2), (1, 0)) if n == 3 else tuple((j, i) for i in range(n) for j in range(i + 1, n))
        object.__setattr__(self, "_pairs", pairs)

    @property
    def name(self) -> str:
        return f"SO{self.n}"

    @property
    def dim(self) -> int:
        return int(self.n) * (int(self.n) - 1) // 2

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (int(self.n), int(self.n))

    @property
    def basis(self) -> FloatArray:
        E = np.zeros((self.dim, self.n, self.n))
        for k, (r, c) in enumerate(self._pairs):
            E[k, r, c], E[k, c, r] = 1.0, -1.0
        return E

    def inverse(self, a: FloatArray) -> FloatArray:
        return np.swapaxes(self._elem(a), -1, -2).copy()

    def hat(self, xi: FloatArray) -> FloatArray:
        return np.einsum("...k,kij->...ij", self._tan(xi), self.basis)

    def vee(self, X: FloatArray) -> FloatArray:
        X = as_array(self.name, "algebra matrix", X, self.param_shape)
        r = np.array([p[0] for p in self._pairs])
        c = np.array([p[1] for p in self._pairs])
        return 0.5 * (X[..., r, c] - X[..., c, r])

    def exp(self, xi: FloatArray) -> FloatArray:
        return sla.expm(self.hat(xi))

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        S = 0.5 * (a + np.swapaxes(a, -1, -2))
        K = 0.5 * (a - np.swapaxes(a, -1, -2))
        lam, V = np.linalg.eigh(S)
        theta = np.arccos(np.clip(lam, -1.0, 1.0))
        f = 1.0 / sr.sinc(theta)  # θ / sin θ
        fS = np.einsum("...ik,...k,...jk->...ij", V, f, V)
        return self.vee(fS @ K)

    def Ad(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        conj = np.einsum("...ij,kjl,...ml->...kim", a, self.basis, a)  # g E_k gᵀ
        return np.swapaxes(self.vee(conj), -1, -2)

    def ad(self, xi: FloatArray) -> FloatArray:
        X = self.hat(xi)[..., None, :, :]
        E = self.basis
        return np.swapaxes(self.vee(X @ E - E @ X), -1, -2)

    def tangent(self, xi: FloatArray) -> FloatArray:
        ad = self.ad(xi)
        m = self.dim
        big = np.zeros(ad.shape[:-2] + (2 * m, 2 * m))
        big[..., :m, :m] = -ad
        big[..., :m, m:] = np.eye(m)
        return sla.expm(big)[..., :m, m:]

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        T = self.tangent(xi)
        return np.asarray(np.linalg.solve(T, np.broadcast_to(np.eye(self.dim), T.shape)), dtype=np.float64)

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., n, n)``, finite, orthonormal with det +1 within ``UNIT_NORM_TOL``."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        check_orthonormal(self.name, arr, "element")
        return arr
