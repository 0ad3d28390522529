"""SE(2), homogeneous ``[[R(θ), x], [0, 1]]`` ``(..., 3, 3)``, tangent ``(θ, u₁, u₂)`` (rotation first).

With ``J = [[0, −1], [1, 0]]`` (``≅ i``), functions of ``θJ`` are complex numbers acting on ``R² ≅ C``:
``exp(θ, u) = (R(θ), φ₁(iθ) u)``, ``φ₁(z) = (eᶻ − 1)/z``; ``ad_ξ = [[0, 0], [−Ju, θJ]]``;
``T(ξ) = φ₁(−ad_ξ) = [[1, 0], [φ₂(−iθ) J u, φ₁(−iθ)]]`` with ``φ₂(z) = (eᶻ − 1 − z)/z²``
(block-triangular functional calculus), and ``T⁻¹ = [[1, 0], [−φ₁⁻¹φ₂ J u, φ₁⁻¹]]``. Same convention as
everywhere: ``log(exp(ξ)⁻¹ exp(ξ + εη)) = ε T(ξ) η + O(ε²)``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import (
    UNIT_NORM_TOL,
    GroupBase,
    MatrixGroupOps,
    _show,
    as_array,
    check_finite,
    check_orthonormal,
)

logger = logging.getLogger(__name__)


def _phi1(th: FloatArray) -> FloatArray:
    """φ₁(iθ) = sin θ/θ + i (1 − cos θ)/θ."""
    return sr.sinc(th) + 1j * th * sr.onem_cos_x2(th)


def _phi2(th: FloatArray) -> FloatArray:
    """φ₂(iθ) = (1 − cos θ)/θ² + i (θ − sin θ)/θ³."""
    return sr.onem_cos_x2(th) + 1j * th * sr.x_sin_x3(th)


def _cmat(c: np.ndarray) -> FloatArray:
    """2×2 real matrix ``Re(c) I + Im(c) J`` of a complex number."""
    out = np.empty(c.shape + (2, 2))
    out[..., 0, 0] = out[..., 1, 1] = c.real
    out[..., 0, 1] = -c.imag
    out[..., 1, 0] = c.imag
    return out


def _cvec(x: FloatArray) -> np.ndarray:
    return x[..., 0] + 1j * x[..., 1]


def _rvec(c: np.ndarray) -> FloatArray:
    return np.stack([c.real, c.imag], axis=-1)


def _elem3(R2: FloatArray, x: FloatArray) -> FloatArray:
    out = np.zeros(np.broadcast_shapes(R2.shape[:-2], x.shape[:-1]) + (3, 3))
    out[..., :2, :2] = R2
    out[..., :2, 2] = x
    out[..., 2, 2] = 1.0
    return out


def _rot2(th: FloatArray) -> FloatArray:
    return _cmat(np.exp(1j * th))


def _block(top_left: float, ll: FloatArray, br: FloatArray) -> FloatArray:
    out = np.zeros(br.shape[:-2] + (3, 3))
    out[..., 0, 0] = top_left
    out[..., 1:, 0] = ll
    out[..., 1:, 1:] = br
    return out


def _Ju(u: FloatArray) -> FloatArray:
    return np.stack([-u[..., 1], u[..., 0]], axis=-1)


@dataclass(frozen=True)
class SE2(MatrixGroupOps, GroupBase):
    """Planar rigid motions; see the module docstring."""

    @property
    def name(self) -> str:
        return "SE2"

    @property
    def dim(self) -> int:
        return 3

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (3, 3)

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        Rt = np.swapaxes(a[..., :2, :2], -1, -2)
        return _elem3(Rt, -np.einsum("...ij,...j->...i", Rt, a[..., :2, 2]))

    def exp(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        th = xi[..., 0]
        return _elem3(_rot2(th), _rvec(_phi1(th) * _cvec(xi[..., 1:])))

    def log(self, a: FloatArray) -> FloatArray:
        """Angle in ``(−π, π]``."""
        a = self._elem(a)
        th = np.arctan2(a[..., 1, 0], a[..., 0, 0])
        u = _rvec(_cvec(a[..., :2, 2]) / _phi1(th))
        return np.concatenate([th[..., None], u], axis=-1)

    def hat(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        out = np.zeros(xi.shape[:-1] + (3, 3))
        out[..., 0, 1] = -xi[..., 0]
        out[..., 1, 0] = xi[..., 0]
        out[..., :2, 2] = xi[..., 1:]
        return out

    def vee(self, X: FloatArray) -> FloatArray:
        X = as_array(self.name, "algebra matrix", X, (3, 3))
        return np.stack([0.5 * (X[..., 1, 0] - X[..., 0, 1]), X[..., 0, 2], X[..., 1, 2]], axis=-1)

    def Ad(self, a: FloatArray) -> FloatArray:
        """``Ad_(R,x) = [[1, 0], [−J x, R]]``."""
        a = self._elem(a)
        return _block(1.0, -_Ju(a[..., :2, 2]), a[..., :2, :2])

    def ad(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        return _block(0.0, -_Ju(xi[..., 1:]), _cmat(1j * xi[..., 0]))

    def tangent(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        th = xi[..., 0]
        p1, p2 = np.conj(_phi1(th)), np.conj(_phi2(th))  # φ(−iθ) = conj φ(iθ)
        return _block(1.0, _rvec(p2 * _cvec(_Ju(xi[..., 1:]))), _cmat(p1))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        th = xi[..., 0]
        inv1 = 1.0 / np.conj(_phi1(th))
        p2 = np.conj(_phi2(th))
        return _block(1.0, _rvec(-inv1 * p2 * _cvec(_Ju(xi[..., 1:]))), _cmat(inv1))

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 3, 3)``, finite, last row ``[0, 0, 1]``, orthonormal rotation block."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        dev = np.abs(arr[..., 2, :] - np.array([0.0, 0.0, 1.0])).max()
        if dev > UNIT_NORM_TOL:
            raise ValueError(f"SE2: last row must be [0, 0, 1] in the (..., 3, 3) layout [[R, x], [0, 1]]; "
                             f"got {_show(arr[..., 2, :])}.")
        check_orthonormal(self.name, arr[..., :2, :2])
        return arr
