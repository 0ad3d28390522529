"""SE(3) = SO(3) ⋉ R³ as homogeneous matrices ``[[R, x], [0, 1]]`` ``(..., 4, 4)``; tangent ``(Ω, U)``.

``(R₁, x₁)(R₂, x₂) = (R₁R₂, x₁ + R₁x₂)``, so ``x' = R U`` (body-frame ``U``).
``exp(Ω, U) = (exp_SO3(Ω), Tᵀ(Ω) U)`` (seed 004 eq. (18) with SO(3) in place of S³) and
``T(Ω, U) = [[T(Ω), 0], [C₁(Ω, U), T(Ω)]]`` (seed 004 eq. (20)); ``S3R3`` shares these formulas
(the covering S³⋉R³ → SE(3) is a local isomorphism). ``T⁻¹ = [[T⁻¹(Ω), 0], [D(Ω, U), T⁻¹(Ω)]]`` with
``D = −T⁻¹ C₁ T⁻¹ = Ũ/2 + c(ω)(ŨΩ̃ + Ω̃Ũ) + d(ω)(Ω·U) Ω̃²``, ``c = (2 − ω cot(ω/2))/(2ω²)``,
``d = (ω sin ω + 4 cos ω + ω² − 4)/(4 sin²(ω/2) ω⁴)`` (seed 004 Table 2, notes §3).
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
    cross,
    hat3,
    sq_hat3,
    table_matmul,
    vee3,
)
from lgbeam.groups.so3 import (
    exp_so3,
    matrix_to_quat,
    quat_log,
    tangent_inv_so3_apply,
    tangent_so3,
    tangent_so3_apply,
)

logger = logging.getLogger(__name__)


def _split(xi: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    W, U = xi[..., :3], xi[..., 3:]
    return W, U, np.sqrt(np.einsum("...i,...i->...", W, W))


def coupling_C1(W: FloatArray, U: FloatArray) -> FloatArray:
    """``C₁(Ω, U)`` of seed 004 eq. (20), ``(..., 3, 3)``."""
    n = np.sqrt(np.einsum("...i,...i->...", W, W))[..., None, None]
    Wt, Ut = hat3(W), hat3(U)
    wu = np.einsum("...i,...i->...", W, U)[..., None, None]
    return (
        sr.cosm1_x2(n) * Ut
        + sr.x_sin_x3(n) * (Ut @ Wt + Wt @ Ut)
        + wu * (sr.two_2cos_xsin_x4(n) * Wt - sr.x2cos_3sin_x5(n) * sq_hat3(W))
    )


def coupling_D(W: FloatArray, U: FloatArray) -> FloatArray:
    """Lower-left block of ``T⁻¹``: ``Ũ/2 + c (ŨΩ̃ + Ω̃Ũ) + d (Ω·U) Ω̃²``, ``(..., 3, 3)``."""
    n = np.sqrt(np.einsum("...i,...i->...", W, W))[..., None, None]
    Wt, Ut = hat3(W), hat3(U)
    wu = np.einsum("...i,...i->...", W, U)[..., None, None]
    return 0.5 * Ut + sr.tinv_c(n) * (Ut @ Wt + Wt @ Ut) + sr.tinv_d(n) * wu * sq_hat3(W)


def _blocks(A: FloatArray, C: FloatArray) -> FloatArray:
    out = np.zeros(A.shape[:-2] + (6, 6))
    out[..., :3, :3] = A
    out[..., 3:, 3:] = A
    out[..., 3:, :3] = C
    return out


def tangent_se3(xi: FloatArray) -> FloatArray:
    """``T(Ω, U)`` (seed 004 eq. (20)), ``(..., 6, 6)``."""
    W, U, _ = _split(xi)
    return _blocks(tangent_so3(W), coupling_C1(W, U))


def _tinv_pair_blocks(one, W, U, cWW, cWU, dWW):  # type: ignore[no-untyped-def]
    """[−T⁻¹(−ξ) | T⁻¹(ξ)] (6, 12) as a linear function of the features (1, Ω, U, c ΩΩᵀ, c ΩUᵀ,
    d (Ω·U) ΩΩᵀ); used once to tabulate ``_TINV_PAIR``. Uses Ω̃² = ΩΩᵀ − |Ω|² I and
    ŨΩ̃ + Ω̃Ũ = ΩUᵀ + UΩᵀ − 2 (Ω·U) I."""
    I3 = np.eye(3)
    Wt, Ut = hat3(W), hat3(U)
    Q = cWW - np.trace(cWW) * I3
    Z = cWU + cWU.T - 2.0 * np.trace(cWU) * I3 + dWW - np.trace(dWW) * I3
    A, Am = one * I3 + 0.5 * Wt + Q, one * I3 - 0.5 * Wt + Q
    D, Dm = 0.5 * Ut + Z, -0.5 * Ut + Z
    O = np.zeros((3, 3))
    Jp = np.block([[A, O], [D, A]])
    Jm = -np.block([[Am, O], [Dm, Am]])
    return np.concatenate([Jm, Jp], axis=1)


def _tinv_table() -> FloatArray:
    rows = []
    for k in range(34):
        e = np.zeros(34)
        e[k] = 1.0
        rows.append(_tinv_pair_blocks(e[0], e[1:4], e[4:7], e[7:16].reshape(3, 3), e[16:25].reshape(3, 3),
                                      e[25:34].reshape(3, 3)).ravel())
    return np.array(rows)


_TINV_PAIR = _tinv_table()  # (34, 72): features -> (6, 12) row-major
_TINV = _TINV_PAIR.reshape(34, 6, 12)[:, :, 6:].reshape(34, 36).copy()  # T⁻¹(ξ) alone


def _tinv_features(xi: FloatArray) -> FloatArray:
    """(1, Ω, U, c ΩΩᵀ, c ΩUᵀ, d (Ω·U) ΩΩᵀ), (..., 34), with c = tinv_c(|Ω|), d = tinv_d(|Ω|)."""
    W, U = xi[..., :3], xi[..., 3:]
    n = np.sqrt(np.sum(W * W, axis=-1))
    c, d = sr.evaluate(("tinv_c", "tinv_d"), n)
    WW = (W[..., :, None] * W[..., None, :]).reshape(W.shape[:-1] + (9,))
    WU = (W[..., :, None] * U[..., None, :]).reshape(W.shape[:-1] + (9,))
    dwu = d * np.sum(W * U, axis=-1)
    return np.concatenate(
        [np.ones(W.shape[:-1] + (1,)), xi, c[..., None] * WW, c[..., None] * WU, dwu[..., None] * WW], axis=-1
    )


def tangent_inv_se3(xi: FloatArray) -> FloatArray:
    """``T(Ω, U)⁻¹ = [[T⁻¹(Ω), 0], [D(Ω, U), T⁻¹(Ω)]]``, ``(..., 6, 6)`` (one table product)."""
    F = _tinv_features(xi)
    return table_matmul(F, _TINV).reshape(F.shape[:-1] + (6, 6))


def tangent_inv_pair(xi: FloatArray) -> FloatArray:
    """``[−T⁻¹(−ξ) | T⁻¹(ξ)]`` row by row, ``(..., 6, 12)``.

    For ``r = exp(ξ)``, ``T⁻¹(ξ) Ad(r⁻¹) = T⁻¹(−ξ)`` (from ``T(ξ) = Ad(exp(−ξ)) T(−ξ)``), so these are the
    derivatives of ``log(q_a⁻¹ q_b)`` along ``q_a ∘ exp(εη)`` and ``q_b ∘ exp(εη)`` (rod edge Jacobians).
    """
    F = _tinv_features(xi)
    return table_matmul(F, _TINV_PAIR).reshape(F.shape[:-1] + (6, 12))


def tangent_se3_apply(xi: FloatArray, v: FloatArray) -> FloatArray:
    """``T(ξ) v`` with cross products only (no 6×6 blocks): used once per stage on rods."""
    W, U, n = _split(xi)
    a, b = v[..., :3], v[..., 3:]
    n1 = n[..., None]
    wa = cross(W, a)
    wu = np.einsum("...i,...i->...", W, U)[..., None]
    c1a = (
        sr.cosm1_x2(n1) * cross(U, a)
        + sr.x_sin_x3(n1) * (cross(U, wa) + cross(W, cross(U, a)))
        + wu * (sr.two_2cos_xsin_x4(n1) * wa - sr.x2cos_3sin_x5(n1) * cross(W, wa))
    )
    return np.concatenate([tangent_so3_apply(W, a), c1a + tangent_so3_apply(W, b)], axis=-1)


def tangent_inv_se3_apply(xi: FloatArray, v: FloatArray) -> FloatArray:
    """``T(ξ)⁻¹ v`` (batched matrix-vector product with ``tangent_inv_se3``)."""
    return (tangent_inv_se3(xi) @ v[..., None])[..., 0]


def ad_se3(xi: FloatArray) -> FloatArray:
    """``ad_(Ω,U) = [[Ω̃, 0], [Ũ, Ω̃]]`` for the ordering ``(Ω, U)``."""
    return _blocks(hat3(xi[..., :3]), hat3(xi[..., 3:]))


def Ad_se3(R: FloatArray, x: FloatArray) -> FloatArray:
    """``Ad_(R,x) = [[R, 0], [x̃ R, R]]``."""
    return _blocks(R, hat3(x) @ R)


def hat_se3(xi: FloatArray) -> FloatArray:
    out = np.zeros(xi.shape[:-1] + (4, 4))
    out[..., :3, :3] = hat3(xi[..., :3])
    out[..., :3, 3] = xi[..., 3:]
    return out


def vee_se3(name: str, X: Any) -> FloatArray:
    X = as_array(name, "algebra matrix", X, (4, 4))
    return np.concatenate([vee3(X[..., :3, :3]), X[..., :3, 3]], axis=-1)


def homogeneous(R: FloatArray, x: FloatArray) -> FloatArray:
    shape = np.broadcast_shapes(R.shape[:-2], x.shape[:-1])
    out = np.zeros(shape + (4, 4))
    out[..., :3, :3] = R
    out[..., :3, 3] = x
    out[..., 3, 3] = 1.0
    return out


def validate_homogeneous(name: str, arr: FloatArray) -> None:
    check_finite(name, "element", arr)
    last = arr[..., 3, :]
    dev = np.abs(last - np.array([0.0, 0.0, 0.0, 1.0])).max(axis=-1)
    if np.any(dev > UNIT_NORM_TOL):
        idx = tuple(np.argwhere(np.atleast_1d(dev > UNIT_NORM_TOL))[0]) if dev.ndim else ()
        raise ValueError(f"{name}: element at batch index {idx} has last row {_show(last[idx])}, expected "
                         "[0, 0, 0, 1] in the homogeneous (..., 4, 4) layout [[R, x], [0, 1]].")
    check_orthonormal(name, arr[..., :3, :3])


class _Homogeneous(MatrixGroupOps, GroupBase):
    """Shared parts of SE3 and SO3xR3 (storage ``[[R, x], [0, 1]]``)."""

    @property
    def dim(self) -> int:
        return 6

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (4, 4)

    def hat(self, xi: FloatArray) -> FloatArray:
        return hat_se3(self._tan(xi))

    def vee(self, X: FloatArray) -> FloatArray:
        return vee_se3(self.name, X)

    def rotation(self, a: FloatArray) -> FloatArray:
        return self._elem(a)[..., :3, :3].copy()

    def translation(self, a: FloatArray) -> FloatArray:
        return self._elem(a)[..., :3, 3].copy()

    def from_rotation(self, R: FloatArray, x: FloatArray) -> FloatArray:
        from lgbeam.groups.so3 import SO3

        R = SO3().validate(R)
        x = as_array(self.name, "position x", x, (3,))
        check_finite(self.name, "position x", x)
        return homogeneous(R, x)

    def validate(self, a: Any) -> FloatArray:
        """Shape ``(..., 4, 4)``, finite, last row ``[0, 0, 0, 1]``, orthonormal ``R`` (tol 1e-8)."""
        arr = self._elem(a)
        validate_homogeneous(self.name, arr)
        return arr


class SE3Algebra(GroupBase):
    """ad, T, T⁻¹ of se(3) with the ordering (Ω, U), shared by SE3 and S3R3 (seed 004 eq. (20))."""

    def ad(self, xi: FloatArray) -> FloatArray:
        return ad_se3(self._tan(xi))

    def tangent(self, xi: FloatArray) -> FloatArray:
        """Seed 004 eq. (20)."""
        return tangent_se3(self._tan(xi))

    def tangent_inv(self, xi: FloatArray) -> FloatArray:
        return tangent_inv_se3(self._tan(xi))

    def tangent_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        return tangent_se3_apply(self._tan(xi), self._tan(v, "v"))

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        return tangent_inv_se3_apply(self._tan(xi), self._tan(v, "v"))


@dataclass(frozen=True)
class SE3(SE3Algebra, _Homogeneous):
    """Rigid motions ``SO(3) ⋉ R³``; see the module docstring."""

    @property
    def name(self) -> str:
        return "SE3"

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        Rt = np.swapaxes(a[..., :3, :3], -1, -2)
        return homogeneous(Rt, -np.einsum("...ij,...j->...i", Rt, a[..., :3, 3]))

    def exp(self, xi: FloatArray) -> FloatArray:
        xi = self._tan(xi)
        W, U = xi[..., :3], xi[..., 3:]
        return homogeneous(exp_so3(W), tangent_so3_apply(-W, U))  # Tᵀ(Ω) = T(−Ω)

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        W = quat_log(matrix_to_quat(a[..., :3, :3]))
        return np.concatenate([W, tangent_inv_so3_apply(-W, a[..., :3, 3])], axis=-1)

    def Ad(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return Ad_se3(a[..., :3, :3], a[..., :3, 3])
