"""S³ ⋉ R³ (seed 004 eqs. (17)-(20)): elements ``[w, x, y, z, x1, x2, x3]`` ``(..., 7)``, tangent ``(Ω, U)``.

``(p₁, x₁)(p₂, x₂) = (p₁p₂, x₁ + R(p₁) x₂)`` (so ``x' = R U``, body-frame ``U``),
``exp(Ω, U) = (exp_S³(Ω), T_S³ᵀ(Ω) U)`` (eq. (18)), ``T`` as eq. (20) with ``C₁`` below it,
``T⁻¹`` in closed form (see ``lgbeam.groups.se3``). ``(p, x) ↦ (R(p), x)`` is a 2:1 homomorphism onto
SE(3) commuting with exp, so S3R3 and SE3 describe the same motion. ``log`` returns angles in ``[0, π]``
(``log(p, x) = log(−p, x)``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from lgbeam._numba import Twin, as_rows, fast_rows, resolve
from lgbeam._typing import FloatArray
from lgbeam.groups import _compiled
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
    tangent_inv_se3_apply,
    vee_se3,
)
from lgbeam.groups.so3 import quat_log, tangent_inv_so3_apply

logger = logging.getLogger(__name__)


def _pack(p: FloatArray, x: FloatArray) -> FloatArray:
    out = np.empty(np.broadcast_shapes(p.shape[:-1], x.shape[:-1]) + (7,))
    out[..., :4] = p
    out[..., 4:] = x
    return out


def exp_s3r3(xi: FloatArray) -> FloatArray:
    """Seed 004 eq. (18): ``(exp_S³(Ω), T_S³ᵀ(Ω) U)`` with ``Tᵀ(Ω) = T(−Ω)``, ``(..., 6) -> (..., 7)``."""
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


def compose_s3r3(a: FloatArray, b: FloatArray) -> FloatArray:
    """``(p_a p_b, x_a + R(p_a) x_b)`` (broadcasting over the batch axes)."""
    return _pack(quat_mul(a[..., :4], b[..., :4]), a[..., 4:] + quat_rotate(a[..., :4], b[..., 4:]))


def retract_s3r3(a: FloatArray, xi: FloatArray) -> FloatArray:
    """``a ∘ exp(ξ)`` (the stage update of seed 004 eq. (12))."""
    return compose_s3r3(a, exp_s3r3(xi))


def log_s3r3(a: FloatArray) -> FloatArray:
    """``(Ω, T⁻¹(−Ω) x)`` with ``Ω = log_S³(p)``, angle in ``[0, π]``."""
    W = quat_log(a[..., :4])
    return np.concatenate([W, tangent_inv_so3_apply(-W, a[..., 4:])], axis=-1)


def rotation_s3r3(a: FloatArray) -> FloatArray:
    """``R(p)`` of ``(..., ≥4)`` rows ``[p, ...]``, ``(..., 3, 3)``."""
    return quat_to_matrix(a[..., :4])


class S3R3Maps(NamedTuple):
    """The maps of S³⋉R³ on ``(K, 7)`` elements and ``(K, 6)`` tangents of equal ``K``: the numpy formulas
    above or their compiled twins (``_compiled``), chosen once when a group is built."""

    exp: Callable[[FloatArray], FloatArray]
    compose: Callable[[FloatArray, FloatArray], FloatArray]
    retract: Callable[[FloatArray, FloatArray], FloatArray]
    log: Callable[[FloatArray], FloatArray]
    tangent_inv_apply: Callable[[FloatArray, FloatArray], FloatArray]
    rotation: Callable[[FloatArray], FloatArray]


NUMPY_MAPS = S3R3Maps(exp_s3r3, compose_s3r3, retract_s3r3, log_s3r3, tangent_inv_se3_apply, rotation_s3r3)
COMPILED_MAPS = S3R3Maps(_compiled.s3r3_exp, _compiled.s3r3_compose, _compiled.s3r3_retract, _compiled.s3r3_log,
                         _compiled.s3r3_tinv_apply, _compiled.quat_to_matrix)


@dataclass(frozen=True)
class _Quat7(GroupBase):
    """Shared parts of S3R3 and S3xR3 (storage ``[p, x]``).

    ``compiled``: use the compiled kernels (``_compiled``) on rows; None takes ``lgbeam._numba.ENABLED``.
    Resolved to a bool, and the kernels chosen, when the group is built."""

    compiled: bool | None = None
    _rotation: Callable[[FloatArray], FloatArray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", resolve(self.compiled))
        object.__setattr__(self, "_rotation", (COMPILED_MAPS if self.compiled else NUMPY_MAPS).rotation)

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
        if (rows := fast_rows(a, 7)) is None:
            a = self._elem(a)
            rows = as_rows(a, 7)
        return self._rotation(rows).reshape(a.shape[:-1] + (3, 3))

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


@dataclass(frozen=True)
class S3R3(SE3Algebra, _Quat7):
    """Semidirect product S³ ⋉ R³ of seed 004; see the module docstring.

    ``S3R3(compiled=None)``: ``maps`` is ``COMPILED_MAPS`` or ``NUMPY_MAPS``, chosen when the group is built
    (``compiled`` as in ``_Quat7``). Operands of one batch shape go through ``maps``; broadcasting ones take
    the numpy formulas. Hot-path operands (C-contiguous float64) skip the checked conversion."""

    maps: S3R3Maps = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "maps", COMPILED_MAPS if self.compiled else NUMPY_MAPS)

    @property
    def name(self) -> str:
        return "S3R3"

    def compose(self, a: FloatArray, b: FloatArray) -> FloatArray:
        a, b = self._elem(a, "a"), self._elem(b, "b")
        if a.shape != b.shape:
            return compose_s3r3(a, b)
        return self.maps.compose(as_rows(a, 7), as_rows(b, 7)).reshape(a.shape)

    def inverse(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        pc = quat_conj(a[..., :4])
        return _pack(pc, -quat_rotate(pc, a[..., 4:]))

    def exp(self, xi: FloatArray) -> FloatArray:
        """Seed 004 eq. (18) (``exp_s3r3``)."""
        xi = self._tan(xi)
        return self.maps.exp(as_rows(xi, 6)).reshape(xi.shape[:-1] + (7,))

    def log(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return self.maps.log(as_rows(a, 7)).reshape(a.shape[:-1] + (6,))

    def Ad(self, a: FloatArray) -> FloatArray:
        a = self._elem(a)
        return Ad_se3(quat_to_matrix(a[..., :4]), a[..., 4:])

    def retract(self, a: FloatArray, xi: FloatArray) -> FloatArray:
        """``a ∘ exp(ξ)`` (the stage update of seed 004 eq. (12)), one fused map."""
        if (ra := fast_rows(a, 7)) is None or (rx := fast_rows(xi, 6)) is None or a.shape[:-1] != xi.shape[:-1]:
            a, xi = self._elem(a), self._tan(xi)
            if a.shape[:-1] != xi.shape[:-1]:
                return self.compose(a, self.exp(xi))
            ra, rx = as_rows(a, 7), as_rows(xi, 6)
        return self.maps.retract(ra, rx).reshape(a.shape)

    def tangent_inv_apply(self, xi: FloatArray, v: FloatArray) -> FloatArray:
        if (rx := fast_rows(xi, 6)) is None or (rv := fast_rows(v, 6)) is None or xi.shape != v.shape:
            xi, v = self._tan(xi), self._tan(v, "v")
            if xi.shape != v.shape:
                return tangent_inv_se3_apply(xi, v)
            rx, rv = as_rows(xi, 6), as_rows(v, 6)
        return self.maps.tangent_inv_apply(rx, rv).reshape(xi.shape)


def _elements(rng: np.random.Generator) -> np.ndarray:
    return exp_s3r3(rng.normal(size=(40, 6)))


COMPILED_TWINS: tuple[Twin, ...] = (
    *_compiled.TWINS,
    Twin("s3r3_exp", _compiled.s3r3_exp, exp_s3r3, lambda rng: (_compiled.tangents(rng),)),
    Twin("s3r3_compose", _compiled.s3r3_compose, compose_s3r3, lambda rng: (_elements(rng), _elements(rng))),
    Twin("s3r3_retract", _compiled.s3r3_retract, retract_s3r3,
         lambda rng: (_elements(rng), _compiled.tangents(rng))),
    Twin("s3r3_log", _compiled.s3r3_log, log_s3r3, lambda rng: (exp_s3r3(_compiled.tangents(rng)),)),
    Twin("s3r3_tinv_apply", _compiled.s3r3_tinv_apply, tangent_inv_se3_apply,
         lambda rng: (_compiled.tangents(rng), rng.normal(size=(40, 6)))),
)
"""Every compiled kernel of the groups with its numpy reference and a sample (``tests/test_jit.py``)."""
