"""S³, unit quaternions ``(w, x, y, z)`` (scalar first), tangent ``Ω`` ``(..., 3)``.

``exp(Ω) = (cos(ω/2), sin(ω/2)/ω Ω)`` (seed 004 eq. (17)), so ``p' = p · (0, Ω/2)`` and
``R(exp_S³(Ω)) = exp_SO3(Ω)``: the double cover commutes with exp, and T, T⁻¹ are those of SO(3)
(seed 004 eq. (19)). ``log`` returns the rotation vector with angle in ``[0, π]``, hence
``log(p) = log(−p)`` and ``exp(log(p)) = sign(w) p``. ``hat`` maps to ``so(3)`` skew matrices
(``su(2) ≅ so(3)`` with the bracket of ``ad``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import (
    UNIT_NORM_TOL,
    GroupBase,
    _show,
    check_finite,
    hat3,
    matrix_to_quat,
    quat_conj,
    quat_mul,
    quat_to_matrix,
    vee3,
)
from lgbeam.groups.so3 import (
    SO3Algebra,
    as_mat,
    quat_exp,
    quat_log,
)

logger = logging.getLogger(__name__)


def check_unit_quaternion(name: str, p: FloatArray, what: str = "quaternion") -> None:
    """ValueError if some ``| |p| − 1 | > UNIT_NORM_TOL`` (no silent renormalisation)."""
    dev = np.abs(np.sqrt(np.einsum("...i,...i->...", p, p)) - 1.0)
    bad = dev > UNIT_NORM_TOL
    if np.any(bad):
        idx = tuple(np.argwhere(np.atleast_1d(bad))[0]) if bad.ndim else ()
        raise ValueError(
            f"{name}: {what} at batch index {idx} is not unit, | |p| - 1 | = {np.max(dev):.3e} > "
            f"{UNIT_NORM_TOL:g}: {_show(p[idx])}. Expected shape (..., 4) = (w, x, y, z) with |p| = 1; "
            "normalise it yourself if the deviation is expected."
        )


@dataclass(frozen=True)
class S3(SO3Algebra, GroupBase):
    """Unit quaternions; see the module docstring."""

    @property
    def name(self) -> str:
        return "S3"

    @property
    def dim(self) -> int:
        return 3

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (4,)

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        out = np.zeros(tuple(batch) + (4,))
        out[..., 0] = 1.0
        return out

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        return quat_mul(self._elem(a, "a"), self._elem(b, "b"))

    def inverse(self, a: FloatArray) -> FloatArray:
        return quat_conj(self._elem(a))

    def exp(self, xi: FloatArray) -> FloatArray:
        return quat_exp(self._tan(xi))

    def log(self, a: FloatArray) -> FloatArray:
        return quat_log(self._elem(a))

    def hat(self, xi: FloatArray) -> FloatArray:
        return hat3(self._tan(xi))

    def vee(self, X: FloatArray) -> FloatArray:
        return vee3(as_mat(self.name, X, 3))

    def Ad(self, a: FloatArray) -> FloatArray:
        return quat_to_matrix(self._elem(a))

    def rotation(self, a: FloatArray) -> FloatArray:
        return quat_to_matrix(self._elem(a))

    def translation(self, a: FloatArray) -> FloatArray:
        return np.zeros(self._elem(a).shape[:-1] + (3,))

    def from_rotation(self, R: FloatArray, x: FloatArray | None = None) -> FloatArray:
        """Quaternion with ``w ≥ 0`` of the rotation matrix ``R`` (``x`` must be None)."""
        from lgbeam.groups.so3 import SO3

        if x is not None:
            raise ValueError("S3: from_rotation takes no position; use S3R3 or S3xR3 for (R, x).")
        return matrix_to_quat(SO3().validate(R))

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 4)``, finite, ``| |p| − 1 | ≤ UNIT_NORM_TOL`` (= 1e-8)."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        check_unit_quaternion(self.name, arr)
        return arr
