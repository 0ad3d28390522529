"""SO(3), rotation matrices ``(..., 3, 3)``, tangent ``Ω`` ``(..., 3)``.

exp is Rodrigues' formula (seed 004 eq. (16)); the tangent operator is seed 004 eq. (19),
``T(Ω) = I + (cos ω − 1)/ω² Ω̃ + (ω − sin ω)/ω³ Ω̃²`` with ``log(exp(Ω)⁻¹ exp(Ω + εη)) = ε T(Ω) η + O(ε²)``,
and ``T⁻¹(Ω) = I + Ω̃/2 + (2 − ω cot(ω/2))/(2ω²) Ω̃²``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import (
    GroupBase,
    MatrixGroupOps,
    check_finite,
    check_orthonormal,
    cross,
    hat3,
    matrix_to_quat,
    quat_to_matrix,
    sq_hat3,
    vee3,
)

logger = logging.getLogger(__name__)


def _norm(w: FloatArray) -> FloatArray:
    return np.sqrt(np.einsum("...i,...i->...", w, w))


def exp_so3(w: FloatArray) -> FloatArray:
    """Rodrigues: ``I + sin ω/ω Ω̃ + (1 − cos ω)/ω² Ω̃²`` (seed 004 eq. (16))."""
    n = _norm(w)[..., None, None]
    return np.eye(3) + sr.sinc(n) * hat3(w) + sr.onem_cos_x2(n) * sq_hat3(w)


def tangent_so3(w: FloatArray) -> FloatArray:
    """``T(Ω) = I + (cos ω − 1)/ω² Ω̃ + (ω − sin ω)/ω³ Ω̃²`` (seed 004 eq. (19))."""
    n = _norm(w)[..., None, None]
    return np.eye(3) + sr.cosm1_x2(n) * hat3(w) + sr.x_sin_x3(n) * sq_hat3(w)


def tangent_inv_so3(w: FloatArray) -> FloatArray:
    """``T⁻¹(Ω) = I + Ω̃/2 + (2 − ω cot(ω/2))/(2ω²) Ω̃²`` (Bernoulli series of ``ad/(1 − e^{−ad})``)."""
    n = _norm(w)[..., None, None]
    return np.eye(3) + 0.5 * hat3(w) + sr.tinv_c(n) * sq_hat3(w)


def tangent_so3_apply(w: FloatArray, v: FloatArray) -> FloatArray:
    """``T(Ω) v`` with cross products only."""
    n = _norm(w)[..., None]
    wv = cross(w, v)
    return v + sr.cosm1_x2(n) * wv + sr.x_sin_x3(n) * cross(w, wv)


def tangent_inv_so3_apply(w: FloatArray, v: FloatArray) -> FloatArray:
    """``T⁻¹(Ω) v`` with cross products only."""
    n = _norm(w)[..., None]
    wv = cross(w, v)
    return v + 0.5 * wv + sr.tinv_c(n) * cross(w, wv)


def quat_exp(w: FloatArray) -> FloatArray:
    """``exp_S³(Ω) = (cos(ω/2), sin(ω/2)/ω Ω)`` (seed 004 eq. (17))."""
    n = _norm(w)
    half = 0.5 * n
    out = np.empty(w.shape[:-1] + (4,))
    np.cos(half, out=out[..., 0])
    # sin(ω/2)/ω: closed form, and the Taylor branch of sinc (|ω/2| < 1e-2) only where it is needed
    small = half < 1e-2
    if np.any(small):
        coef = np.asarray(np.sin(half) / np.where(small, 1.0, n))
        coef[small] = sr.sin_half_over(n[small])
    else:
        coef = np.sin(half) / n
    np.multiply(w, np.asarray(coef)[..., None], out=out[..., 1:])
    return out


def quat_log(p: FloatArray) -> FloatArray:
    """Rotation vector of a unit quaternion, angle in ``[0, π]`` (``p`` and ``−p`` give the same).

    ``θ = 2 atan2(|v|, |w|)``, ``Ω = 2 sign(w) v / sinc(θ/2)``: accurate for every angle (no acos)."""
    w = p[..., 0]
    v = p[..., 1:]
    half = np.arctan2(_norm(v), np.abs(w))
    sgn = np.where(w < 0.0, -2.0, 2.0)
    return v * (sgn / sr.sinc(half))[..., None]


class SO3Algebra(GroupBase):
    """ad, T, T⁻¹ of so(3) ≅ R³, shared by SO3 and S3 (the same Lie algebra; seed 004 eq. (19))."""

    def ad(self, xi: FloatArray) -> FloatArray:
        return hat3(self._tan(xi))

    def tangent(self, xi: FloatArray) -> FloatArray:
        return tangent_so3(self._tan(xi))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        return tangent_inv_so3(self._tan(xi))

    def tangent_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        return tangent_so3_apply(self._tan(xi), self._tan(v, "v"))

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        return tangent_inv_so3_apply(self._tan(xi), self._tan(v, "v"))


@dataclass(frozen=True)
class SO3(SO3Algebra, MatrixGroupOps, GroupBase):
    """Rotation matrices; see the module docstring for the maps and their references."""

    @property
    def name(self) -> str:
        return "SO3"

    @property
    def dim(self) -> int:
        return 3

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (3, 3)

    def inverse(self, a: FloatArray) -> FloatArray:
        return np.swapaxes(self._elem(a), -1, -2).copy()

    def exp(self, xi: FloatArray) -> FloatArray:
        return exp_so3(self._tan(xi))

    def log(self, a: FloatArray) -> FloatArray:
        return quat_log(matrix_to_quat(self._elem(a)))

    def hat(self, xi: FloatArray) -> FloatArray:
        return hat3(self._tan(xi))

    def vee(self, X: FloatArray) -> FloatArray:
        return vee3(as_mat(self.name, X, 3))

    def Ad(self, a: FloatArray) -> FloatArray:
        return self._elem(a).copy()

    def rotation(self, a: FloatArray) -> FloatArray:
        return self._elem(a).copy()

    def translation(self, a: FloatArray) -> FloatArray:
        return np.zeros(self._elem(a).shape[:-2] + (3,))

    def from_rotation(self, R: FloatArray, x: FloatArray | None = None) -> FloatArray:
        """The element ``R`` (``x`` must be None: SO3 has no translation)."""
        if x is not None:
            raise ValueError("SO3: from_rotation takes no position; use SE3 or SO3xR3 for (R, x).")
        return self.validate(R).copy()

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 3, 3)``, finite, orthonormal with det +1 within ``UNIT_NORM_TOL``."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        check_orthonormal(self.name, arr, "element")
        return arr


def as_mat(name: str, X: Any, n: int) -> FloatArray:
    from lgbeam.groups.base import as_array

    return as_array(name, "algebra matrix", X, (n, n))


__all__ = ["SO3", "exp_so3", "quat_exp", "quat_log", "quat_to_matrix", "tangent_inv_so3", "tangent_so3"]
