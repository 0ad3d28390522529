"""Direct products ``SO3xR3`` (storage ``[[R, x], [0, 1]]``), ``S3xR3`` (storage ``[p, x]``) and ``Rn``.

Direct products compose ``(R₁R₂, x₁ + x₂)``, so ``x' = U`` (spatial ``U``); tangent ``(Ω, U)``,
``exp(Ω, U) = (exp(Ω), U)``, ``T = diag(T_SO3(Ω), I)``, ``T⁻¹ = diag(T_SO3⁻¹(Ω), I)``,
``Ad = diag(R, I)``, ``ad = diag(Ω̃, 0)``. ``hat`` returns the 4×4 layout ``[[Ω̃, U], [0, 0]]`` (a storage
convention with ``vee(hat(ξ)) = ξ``; the bracket of a direct product is ``ad``, not the matrix
commutator). ``Rn`` is the additive group: ``exp = log = id``, ``T = I``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import GroupBase, hat3, quat_conj, quat_mul, quat_to_matrix
from lgbeam.groups.s3r3 import _pack, _Quat7
from lgbeam.groups.se3 import _Homogeneous, homogeneous
from lgbeam.groups.so3 import (
    exp_so3,
    matrix_to_quat,
    quat_exp,
    quat_log,
    tangent_inv_so3,
    tangent_inv_so3_apply,
    tangent_so3,
    tangent_so3_apply,
)

logger = logging.getLogger(__name__)


def _diag(A: FloatArray, B: FloatArray | None = None) -> FloatArray:
    out = np.zeros(A.shape[:-2] + (6, 6))
    out[..., :3, :3] = A
    out[..., 3:, 3:] = np.eye(3) if B is None else B
    return out


class _DirectMaps(GroupBase):
    """Tangent-side maps common to SO3xR3 and S3xR3."""


    def ad(self, xi: FloatArray) -> FloatArray:
        return _diag(hat3(self._tan(xi)[..., :3]), np.zeros((3, 3)))

    def tangent(self, xi: FloatArray) -> FloatArray:
        return _diag(tangent_so3(self._tan(xi)[..., :3]))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        return _diag(tangent_inv_so3(self._tan(xi)[..., :3]))

    def tangent_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        xi, v = self._tan(xi), self._tan(v, "v")
        return np.concatenate([tangent_so3_apply(xi[..., :3], v[..., :3]), v[..., 3:]], axis=-1)

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        xi, v = self._tan(xi), self._tan(v, "v")
        return np.concatenate([tangent_inv_so3_apply(xi[..., :3], v[..., :3]), v[..., 3:]], axis=-1)


@dataclass(frozen=True)
class SO3xR3(_DirectMaps, _Homogeneous):
    """Direct product SO(3) × R³ in homogeneous storage."""

    @property
    def name(self) -> str:
        return "SO3xR3"

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        a, b = self._elem(a, "a"), self._elem(b, "b")
        return homogeneous(a[..., :3, :3] @ b[..., :3, :3], a[..., :3, 3] + b[..., :3, 3])

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return homogeneous(np.swapaxes(a[..., :3, :3], -1, -2), -a[..., :3, 3])

    def exp(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        return homogeneous(exp_so3(xi[..., :3]), xi[..., 3:])

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return np.concatenate([quat_log(matrix_to_quat(a[..., :3, :3])), a[..., :3, 3]], axis=-1)

    def Ad(self, a: FloatArray) -> FloatArray:
        return _diag(self._elem(a)[..., :3, :3])


@dataclass(frozen=True)
class S3xR3(_DirectMaps, _Quat7):
    """Direct product S³ × R³, storage ``[w, x, y, z, x1, x2, x3]``."""

    @property
    def name(self) -> str:
        return "S3xR3"

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        a, b = self._elem(a, "a"), self._elem(b, "b")
        return _pack(quat_mul(a[..., :4], b[..., :4]), a[..., 4:] + b[..., 4:])

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return _pack(quat_conj(a[..., :4]), -a[..., 4:])

    def exp(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        return _pack(quat_exp(xi[..., :3]), xi[..., 3:])

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return np.concatenate([quat_log(a[..., :4]), a[..., 4:]], axis=-1)

    def Ad(self, a: FloatArray) -> FloatArray:
        return _diag(quat_to_matrix(self._elem(a)[..., :4]))


@dataclass(frozen=True)
class Rn(GroupBase):
    """The additive group ``Rⁿ`` (``n ≥ 1``)."""

    n: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise ValueError(f"Rn: n must be a positive integer; got {self.n!r}.")

    @property
    def name(self) -> str:
        return f"R{self.n}"

    @property
    def dim(self) -> int:
        return int(self.n)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (int(self.n),)

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        return np.zeros(tuple(batch) + (self.n,))

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        return self._elem(a, "a") + self._elem(b, "b")

    def inverse(self, a: FloatArray) -> FloatArray:
        return -self._elem(a)

    def exp(self, xi: FloatArray) -> FloatArray:
        return self._tan(xi).copy()

    def log(self, a: FloatArray) -> FloatArray:
        return self._elem(a).copy()

    def hat(self, xi: FloatArray) -> FloatArray:
        """``[[0, u], [0, 0]]`` of size ``(n+1, n+1)`` (translations of affine space)."""
        xi = self._tan(xi)
        out = np.zeros(xi.shape[:-1] + (self.n + 1, self.n + 1))
        out[..., : self.n, self.n] = xi
        return out

    def vee(self, X: FloatArray) -> FloatArray:
        from lgbeam.groups.base import as_array

        X = as_array(self.name, "algebra matrix", X, (self.n + 1, self.n + 1))
        return X[..., : self.n, self.n].copy()

    def Ad(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return np.broadcast_to(np.eye(self.n), a.shape[:-1] + (self.n, self.n)).copy()

    def ad(self, xi: FloatArray) -> FloatArray:
        return np.zeros(self._tan(xi).shape + (self.n,))

    def tangent(self, xi: FloatArray) -> FloatArray:
        return np.broadcast_to(np.eye(self.n), self._tan(xi).shape + (self.n,)).copy()

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        return self.tangent(xi)

    def tangent_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        self._tan(xi)
        return self._tan(v, "v").copy()

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        return self.tangent_apply(xi, v)
