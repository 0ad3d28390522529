"""S³ ⋉ R³ (seed 004 eqs. (17)-(20)): elements ``[w, x, y, z, x1, x2, x3]`` ``(..., 7)``, tangent ``(Ω, U)``.

``(p₁, x₁)(p₂, x₂) = (p₁p₂, x₁ + R(p₁) x₂)`` (so ``x' = R U``, body-frame ``U``),
``exp(Ω, U) = (exp_S³(Ω), T_S³ᵀ(Ω) U)`` (eq. (18)), ``T`` as eq. (20) with ``C₁`` below it,
``T⁻¹`` in closed form (see ``lgbeam.groups.se3``). ``(p, x) ↦ (R(p), x)`` is a 2:1 homomorphism onto
SE(3) commuting with exp, so S3R3 and SE3 describe the same motion. ``log`` returns angles in ``[0, π]``
(``log(p, x) = log(−p, x)``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam import jit
from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import (
    GroupBase,
    as_array,
    check_finite,
    cross,
    matrix_to_quat,
    quat_conj,
    quat_mul,
    quat_rotate,
    quat_to_matrix,
)
from lgbeam.groups.s3 import check_unit_quaternion
from lgbeam.groups.se3 import (
    Ad_se3,
    SE3Algebra,
    hat_se3,
    vee_se3,
)
from lgbeam.groups.so3 import quat_log, tangent_inv_so3_apply

logger = logging.getLogger(__name__)


def _pack(p: FloatArray, x: FloatArray) -> FloatArray:
    out = np.empty(np.broadcast_shapes(p.shape[:-1], x.shape[:-1]) + (7,))
    out[..., :4] = p
    out[..., 4:] = x
    return out


class _Quat7(GroupBase):
    """Shared parts of S3R3 and S3xR3 (storage ``[p, x]``)."""

    @property
    def dim(self) -> int:
        return 6

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (7,)

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        out = np.zeros(tuple(batch) + (7,))
        out[..., 0] = 1.0
        return out

    def hat(self, xi: FloatArray) -> FloatArray:
        return hat_se3(self._tan(xi))

    def vee(self, X: FloatArray) -> FloatArray:
        return vee_se3(self.name, X)

    def rotation(self, a: FloatArray) -> FloatArray:
        if jit.ENABLED and (rows := jit.fast_rows(a, 7)) is not None:
            return jit.quat_to_matrix(rows).reshape(a.shape[:-1] + (3, 3))
        a = self._elem(a)
        if jit.ENABLED:
            return jit.quat_to_matrix(jit.as_rows(a, 7)).reshape(a.shape[:-1] + (3, 3))
        return quat_to_matrix(a[..., :4])

    def translation(self, a: FloatArray) -> FloatArray:
        return self._elem(a)[..., 4:].copy()

    def from_rotation(self, R: FloatArray, x: FloatArray) -> FloatArray:
        """Element ``(p, x)`` with ``w ≥ 0`` from a rotation matrix and a position."""
        from lgbeam.groups.so3 import SO3

        R = SO3().validate(R)
        x = as_array(self.name, "position x", x, (3,))
        check_finite(self.name, "position x", x)
        return _pack(matrix_to_quat(R), x)

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 7)``, finite, quaternion part unit within ``UNIT_NORM_TOL`` (= 1e-8)."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        check_unit_quaternion(self.name, arr[..., :4], "quaternion part [w, x, y, z]")
        return arr


_JIT_OPS: dict[str, Any] = {}  # filled on first use (lgbeam.jit imports this package)


@dataclass(frozen=True)
class S3R3(SE3Algebra, _Quat7):
    """Semidirect product S³ ⋉ R³ of seed 004; see the module docstring."""

    @property
    def name(self) -> str:
        return "S3R3"

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        a, b = self._elem(a, "a"), self._elem(b, "b")
        if jit.ENABLED and a.shape == b.shape:
            return jit.s3r3_compose(jit.as_rows(a, 7), jit.as_rows(b, 7)).reshape(a.shape)
        return _pack(quat_mul(a[..., :4], b[..., :4]), a[..., 4:] + quat_rotate(a[..., :4], b[..., 4:]))

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        pc = quat_conj(a[..., :4])
        return _pack(pc, -quat_rotate(pc, a[..., 4:]))

    def exp(self, xi: FloatArray) -> FloatArray:
        """Seed 004 eq. (18): ``(exp_S³(Ω), T_S³ᵀ(Ω) U)`` with ``Tᵀ(Ω) = T(−Ω)``."""
        xi = self._tan(xi)
        if jit.ENABLED:
            return jit.s3r3_exp(jit.as_rows(xi, 6)).reshape(xi.shape[:-1] + (7,))
        W, U = xi[..., :3], xi[..., 3:]
        n2 = np.sum(W * W, axis=-1)
        n = np.sqrt(n2)
        s, xs = sr.evaluate(("sinc_half", "x_sin_x3"), n)
        out = np.empty(xi.shape[:-1] + (7,))
        out[..., 0] = np.cos(0.5 * n)
        out[..., 1:4] = (0.5 * s)[..., None] * W
        # T(−Ω) U = U − (cos ω − 1)/ω² Ω×U + (ω − sin ω)/ω³ Ω×(Ω×U),  (cos ω − 1)/ω² = −sinc(ω/2)²/2
        wu = np.sum(W * U, axis=-1)
        out[..., 4:] = U + (0.5 * s * s)[..., None] * cross(W, U) + xs[..., None] * (
            wu[..., None] * W - n2[..., None] * U
        )
        return out

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        if jit.ENABLED:
            return jit.s3r3_log(jit.as_rows(a, 7)).reshape(a.shape[:-1] + (6,))
        W = quat_log(a[..., :4])
        return np.concatenate([W, tangent_inv_so3_apply(-W, a[..., 4:])], axis=-1)

    def Ad(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return Ad_se3(quat_to_matrix(a[..., :4]), a[..., 4:])

    @property
    def jit_ops(self) -> dict[str, Any] | None:
        """Compiled kernels on (K, 7)/(K, 6) C-contiguous float64 rows (``lgbeam.jit``), or None when disabled."""
        if not jit.ENABLED:
            return None
        if not _JIT_OPS:
            _JIT_OPS.update(retract=jit.s3r3_retract, tangent_inv_apply=jit.s3r3_tinv_apply)
        return _JIT_OPS

    def retract(self, a: FloatArray, xi: FloatArray) -> FloatArray:
        """``a ∘ exp(ξ)`` (the stage update of seed 004 eq. (12)), fused into one kernel when compiled."""
        if (jit.ENABLED and (ra := jit.fast_rows(a, 7)) is not None and (rx := jit.fast_rows(xi, 6)) is not None
                and a.shape[:-1] == xi.shape[:-1]):
            return jit.s3r3_retract(ra, rx).reshape(a.shape)
        a, xi = self._elem(a), self._tan(xi)
        if jit.ENABLED and a.shape[:-1] == xi.shape[:-1]:
            return jit.s3r3_retract(jit.as_rows(a, 7), jit.as_rows(xi, 6)).reshape(a.shape)
        return self.compose(a, self.exp(xi))

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        if (jit.ENABLED and (rx := jit.fast_rows(xi, 6)) is not None and (rv := jit.fast_rows(v, 6)) is not None
                and xi.shape == v.shape):
            return jit.s3r3_tinv_apply(rx, rv).reshape(xi.shape)
        xi, v = self._tan(xi), self._tan(v, "v")
        if jit.ENABLED and xi.shape == v.shape:
            return jit.s3r3_tinv_apply(jit.as_rows(xi, 6), jit.as_rows(v, 6)).reshape(xi.shape)
        return super().tangent_inv_apply(xi, v)
