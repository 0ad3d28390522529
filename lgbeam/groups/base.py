"""Shared machinery of the Lie groups: shape checks, ``so(3)`` hat/vee, quaternion kernels.

All groups act on plain float arrays with leading batch axes and a trailing parameter shape
(``param_shape``); tangent vectors have shape ``(..., dim)``. Conventions (docs/conventions.md):
left trivialisation ``q' = q · v^``, tangent operator ``log(exp(ξ)⁻¹ exp(ξ + εη)) = ε T(ξ) η + O(ε²)``
(seed 004 eq. (11)).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray

logger = logging.getLogger(__name__)

UNIT_NORM_TOL = 1e-8
"""Tolerance on ``| |p| − 1 |`` for unit quaternions and ``‖RᵀR − I‖`` for rotation matrices in
``validate``. Integrators keep quaternions unit to round-off (~1e-15 per step), so 1e-8 only rejects
garbage, never drift; nothing is renormalised silently."""


def _show(value: Any) -> str:
    """Short printable form of an offending value for error messages."""
    arr = np.asarray(value)
    return np.array2string(arr.ravel()[:8], precision=6, threshold=8) + (" ..." if arr.size > 8 else "")


def as_array(name: str, what: str, a: Any, trailing: tuple[int, ...]) -> FloatArray:
    """Convert ``a`` to a float array and check its trailing shape; ValueError otherwise."""
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: {what} must be a float array of shape (..., {_shp(trailing)}); "
                         f"got {type(a).__name__} ({exc})") from None
    k = len(trailing)
    if arr.ndim < k or arr.shape[arr.ndim - k:] != trailing:
        raise ValueError(
            f"{name}: {what} must have shape (..., {_shp(trailing)}) with the components in the last "
            f"axis/axes; got shape {arr.shape}. Reshape (or transpose a (k, n) array) to (n, {_shp(trailing)})."
        )
    return arr


def _shp(t: tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in t)


def check_finite(name: str, what: str, arr: FloatArray) -> None:
    """ValueError naming the first non-finite entry."""
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.argwhere(bad)[0]
        raise ValueError(f"{name}: {what} has a non-finite entry {arr[tuple(idx)]} at index {tuple(idx)}; "
                         "check the state that produced it (e.g. a diverged step).")


def hat3(w: FloatArray) -> FloatArray:
    """Skew matrix ``w̃`` with ``w̃ v = w × v``; ``(..., 3) -> (..., 3, 3)``."""
    w = np.asarray(w, dtype=float)
    out = np.zeros(w.shape + (3,))
    out[..., 0, 1] = -w[..., 2]
    out[..., 0, 2] = w[..., 1]
    out[..., 1, 0] = w[..., 2]
    out[..., 1, 2] = -w[..., 0]
    out[..., 2, 0] = -w[..., 1]
    out[..., 2, 1] = w[..., 0]
    return out


def vee3(W: FloatArray) -> FloatArray:
    """Inverse of ``hat3`` (uses the skew part): ``(..., 3, 3) -> (..., 3)``."""
    W = np.asarray(W, dtype=float)
    return 0.5 * np.stack(
        [W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]], axis=-1
    )


def sq_hat3(w: FloatArray) -> FloatArray:
    """``w̃² = w wᵀ − |w|² I`` without a matrix product."""
    ww = w[..., :, None] * w[..., None, :]
    n2 = np.einsum("...i,...i->...", w, w)
    return ww - n2[..., None, None] * np.eye(3)


def mat_vec(A: FloatArray, v: FloatArray) -> FloatArray:
    """Batched ``A v`` for ``(..., n, m) @ (..., m)``."""
    return np.einsum("...ij,...j->...i", A, v)


def check_orthonormal(name: str, R: FloatArray, what: str = "rotation part") -> None:
    """ValueError if ``RᵀR ≠ I`` or ``det R ≠ 1`` beyond ``UNIT_NORM_TOL``."""
    n = R.shape[-1]
    dev = np.abs(np.einsum("...ki,...kj->...ij", R, R) - np.eye(n)).max(axis=(-2, -1))
    det = np.linalg.det(R) if R.size else np.ones(R.shape[:-2])
    bad = (dev > UNIT_NORM_TOL) | (np.abs(det - 1.0) > UNIT_NORM_TOL)
    if np.any(bad):
        idx = tuple(np.argwhere(np.atleast_1d(bad))[0]) if bad.ndim else ()
        raise ValueError(
            f"{name}: {what} at batch index {idx} is not a rotation (|RᵀR − I| = {np.max(dev):.3e}, "
            f"det = {np.atleast_1d(det).ravel()[0]:.6g}; tolerance {UNIT_NORM_TOL:g}): {_show(R[idx])}. "
            "Pass an orthonormal matrix with det +1 (e.g. from scipy Rotation.as_matrix())."
        )


# --- unit quaternions, scalar first (w, x, y, z) ---------------------------------------------------


def _quat_mul_components(p: FloatArray, q: FloatArray) -> FloatArray:
    """Hamilton product written out component-wise (used once to tabulate ``_QMUL``)."""
    pw, px, py, pz = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    qw, qx, qy, qz = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        pw * qw - px * qx - py * qy - pz * qz,
        pw * qx + px * qw + py * qz - pz * qy,
        pw * qy - px * qz + py * qw + pz * qx,
        pw * qz + px * qy - py * qx + pz * qw,
    ], axis=-1)


def _quat_matrix_components(p: FloatArray) -> FloatArray:
    """``R(p) − I`` of a unit quaternion, flat ``(..., 9)`` (quadratic in p; tabulates ``_QROT``)."""
    w, x, y, z = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
    return np.stack([
        -2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy),
        2.0 * (xy + wz), -2.0 * (xx + zz), 2.0 * (yz - wx),
        2.0 * (xz - wy), 2.0 * (yz + wx), -2.0 * (xx + yy),
    ], axis=-1)


def _bilinear_table(f, n: int, m: int) -> FloatArray:  # type: ignore[no-untyped-def]
    """(n·m, k) table T with f(p, q) = (p ⊗ q).ravel() @ T for a bilinear f (exact: entries 0, ±1, ±2)."""
    E = np.eye(n)
    F = np.eye(m)
    return np.stack([f(E[i], F[j]) for i in range(n) for j in range(m)])


_GEMM_SINGLE_THREAD = 1 << 18  # OpenBLAS threads a gemm above m·n·k ≈ 2¹⁸: slow on a busy 2-core box
_SPARSE_T: dict[int, tuple[FloatArray, Any]] = {}


def table_matmul(F: FloatArray, K: FloatArray) -> FloatArray:
    """``F @ K`` for a batch of feature rows ``F`` (..., f) and a constant, mostly-zero table ``K`` (f, k).

    Small products go to BLAS (single-threaded there); large ones through the sparse transpose of
    ``K`` (cost ∝ rows · nnz(K), no thread start-up), which is what keeps big rods linear in N.
    """
    rows = F.size // F.shape[-1] if F.shape[-1] else 0
    if rows * K.size < _GEMM_SINGLE_THREAD:
        return F @ K
    ent = _SPARSE_T.get(id(K))
    if ent is None or ent[0] is not K:
        import scipy.sparse as sp

        ent = (K, sp.csr_array(K.T))
        _SPARSE_T[id(K)] = ent
    out = (ent[1] @ F.reshape(rows, F.shape[-1]).T).T
    return out.reshape(F.shape[:-1] + (K.shape[1],))


_QMUL = _bilinear_table(_quat_mul_components, 4, 4)  # (16, 4)
# R(p) − I = B(p, p) for the symmetric bilinear form B of the quadratic components
_QROT = _bilinear_table(
    lambda a, b: 0.5 * (_quat_matrix_components(a + b) - _quat_matrix_components(a) - _quat_matrix_components(b)),
    4, 4,
)  # (16, 9)
_EYE9 = np.eye(3).ravel()


def quat_mul(p: FloatArray, q: FloatArray) -> FloatArray:
    """Hamilton product ``p q`` of ``(..., 4)`` quaternions (scalar first).

    Evaluated as ``(p ⊗ q) @ _QMUL`` (the product's bilinear table): two numpy calls for any batch."""
    outer = p[..., :, None] * q[..., None, :]
    return table_matmul(outer.reshape(outer.shape[:-2] + (16,)), _QMUL)


def quat_conj(p: FloatArray) -> FloatArray:
    out = -p
    out[..., 0] = p[..., 0]
    return out


def quat_to_matrix(p: FloatArray) -> FloatArray:
    """Rotation matrix ``R(p)`` of a unit quaternion, ``(..., 4) -> (..., 3, 3)``:
    ``R = I + 2 [−(y² + z²), xy − wz, …]`` evaluated as ``I + (p ⊗ p) @ _QROT``."""
    outer = p[..., :, None] * p[..., None, :]
    flat = table_matmul(outer.reshape(outer.shape[:-2] + (16,)), _QROT) + _EYE9
    return flat.reshape(flat.shape[:-1] + (3, 3))


def quat_rotate(p: FloatArray, v: FloatArray) -> FloatArray:
    """``R(p) v`` for unit quaternions ``p`` ``(..., 4)`` and vectors ``v`` ``(..., 3)``."""
    R = quat_to_matrix(p)
    return (R @ v[..., None])[..., 0]


def matrix_to_quat(R: FloatArray) -> FloatArray:
    """Unit quaternion with ``w ≥ 0`` from a rotation matrix (Shepperd's method, branch by the
    largest of ``w², x², y², z²`` so that no component is recovered from a small square root).

    References: Shepperd (1978), J. Guidance Control 1(3), 223-224."""
    R = np.asarray(R, dtype=float)
    tr = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    diag = np.stack([tr, R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]], axis=-1)
    # 4 * (component)^2 - 1 + ... ; candidates: 1 + tr, 1 + 2 R_ii - tr
    cand = np.stack([1.0 + tr, 1.0 + 2 * diag[..., 1] - tr, 1.0 + 2 * diag[..., 2] - tr,
                     1.0 + 2 * diag[..., 3] - tr], axis=-1)
    k = np.argmax(cand, axis=-1)
    big = np.sqrt(np.take_along_axis(cand, k[..., None], axis=-1)[..., 0])  # = 2 |component k|
    s = 0.5 / big
    r01, r10 = R[..., 0, 1], R[..., 1, 0]
    r02, r20 = R[..., 0, 2], R[..., 2, 0]
    r12, r21 = R[..., 1, 2], R[..., 2, 1]
    q0 = np.stack([0.5 * big, (r21 - r12) * s, (r02 - r20) * s, (r10 - r01) * s], axis=-1)
    q1 = np.stack([(r21 - r12) * s, 0.5 * big, (r01 + r10) * s, (r02 + r20) * s], axis=-1)
    q2 = np.stack([(r02 - r20) * s, (r01 + r10) * s, 0.5 * big, (r12 + r21) * s], axis=-1)
    q3 = np.stack([(r10 - r01) * s, (r02 + r20) * s, (r12 + r21) * s, 0.5 * big], axis=-1)
    q = np.choose(k[..., None], [q0, q1, q2, q3])
    q = q * np.where(q[..., 0:1] < 0.0, -1.0, 1.0)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


class GroupBase:
    """Defaults shared by every group: ``tangent_apply``/``tangent_inv_apply`` by einsum, a
    generic ``validate`` (shape and finiteness), and ``dexp``-style helpers.

    Subclasses are frozen dataclasses defining ``name``, ``dim``, ``param_shape`` and the maps."""

    @property
    def name(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def dim(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def param_shape(self) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def tangent(self, xi: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def tangent_inv(self, xi: FloatArray) -> FloatArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _elem(self, a: Any, what: str = "element") -> FloatArray:
        return as_array(self.name, what, a, self.param_shape)

    def _tan(self, xi: Any, what: str = "tangent vector") -> FloatArray:
        return as_array(self.name, what, xi, (self.dim,))

    def tangent_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        """``T(ξ) v``, batched, ``(..., dim)``."""
        return mat_vec(self.tangent(xi), self._tan(v, "v"))

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        """``T(ξ)⁻¹ v``, batched, ``(..., dim)``."""
        return mat_vec(self.tangent_inv(xi), self._tan(v, "v"))

    def retract(self, a: FloatArray, xi: FloatArray) -> FloatArray:
        """``a ∘ exp(ξ)`` (groups with a fused map override this)."""
        return self.compose(a, self.exp(xi))  # type: ignore[attr-defined]

    def validate(self, a: Any) -> FloatArray:
        """Return ``a`` as a float array after checking shape and finiteness; ValueError otherwise."""
        arr = self._elem(a)
        check_finite(self.name, "element", arr)
        return arr


def cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a × b`` over the last axis, component-wise (a few times faster than ``np.cross``)."""
    if a.ndim == 1 and b.ndim == 1:  # single vectors (rigid bodies): plain floats, no view overhead
        a0, a1, a2 = a.tolist()
        b0, b1, b2 = b.tolist()
        return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


class MatrixGroupOps:
    """``identity`` and ``compose`` of groups stored as square matrices (SO3, SOn, SE2, SE3):
    the identity matrix and the matrix product."""

    def identity(self, batch: tuple[int, ...] = ()) -> FloatArray:
        k = self.param_shape[-1]  # type: ignore[attr-defined]
        return np.broadcast_to(np.eye(k), tuple(batch) + (k, k)).copy()

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        return np.matmul(self._elem(a, "a"), self._elem(b, "b"))  # type: ignore[attr-defined]
