"""Homogeneous spaces: the sphere ``S2`` under SO(3) and its tangent bundle ``TS2`` under SE(3).

``S2``: points ``q`` ``(..., 3)``, ``|q| = 1``; action ``R·q = R q``, generator ``ψ_*(Ω)|_q = Ω × q``.
``TS2``: points ``m = (q, w)`` ``(..., 6)`` with ``|q| = 1``, ``q·w = 0`` (``q' = w × q``, angular-velocity
coordinates); SE(3) acts by ``(A, a)·(q, w) = (A q, A w + a × A q)`` — the adjoint action of SE(3)
restricted to the orbit ``TS²`` — with generator ``ψ_*(u, v)|_(q,w) = (u × q, u × w + v × q)``
(seed 000 §5.1; note 000 "TS^2 construction"). SE(3) elements are SE3's homogeneous ``(..., 4, 4)``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups.base import UNIT_NORM_TOL, _show, as_array, check_finite, mat_vec
from lgbeam.groups.se3 import SE3
from lgbeam.groups.so3 import SO3

logger = logging.getLogger(__name__)


def _check_unit(name: str, q: FloatArray) -> None:
    dev = np.abs(np.linalg.norm(q, axis=-1) - 1.0)
    if np.any(dev > UNIT_NORM_TOL):
        raise ValueError(f"{name}: point q must have |q| = 1 (tolerance {UNIT_NORM_TOL:g}); "
                         f"| |q| - 1 | = {dev.max():.3e} for {_show(q)}. Normalise it yourself.")


@dataclass(frozen=True)
class S2:
    """Unit sphere in R³ as a homogeneous space of SO(3)."""

    @property
    def name(self) -> str:
        return "S2"

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (3,)

    @property
    def group(self) -> SO3:
        """The acting group."""
        return SO3()

    def act(self, g: FloatArray, m: FloatArray) -> FloatArray:
        """``R q`` for ``g`` ``(..., 3, 3)`` and ``m`` ``(..., 3)``."""
        g = as_array(self.name, "group element (SO3 matrix)", g, (3, 3))
        return mat_vec(g, as_array(self.name, "point", m, (3,)))

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        """Infinitesimal generator ``Ω × q``."""
        return np.cross(as_array(self.name, "Ω", xi, (3,)), as_array(self.name, "point", m, (3,)))

    def lift(self, m: FloatArray, v: FloatArray) -> FloatArray:
        """``Ω = q × v``, the algebra element of least norm with ``Ω × q = v`` for ``v ⊥ q``."""
        return np.cross(as_array(self.name, "point", m, (3,)), as_array(self.name, "velocity", v, (3,)))

    def validate(self, m: Any) -> FloatArray:
        """Shape ``(..., 3)``, finite, ``| |q| − 1 | ≤ UNIT_NORM_TOL``."""
        arr = as_array(self.name, "point", m, (3,))
        check_finite(self.name, "point", arr)
        _check_unit(self.name, arr)
        return arr


@dataclass(frozen=True)
class TS2:
    """Tangent bundle of S² as an (adjoint) orbit of SE(3), points ``(q, w)`` ``(..., 6)``."""

    @property
    def name(self) -> str:
        return "TS2"

    @property
    def param_shape(self) -> tuple[int, ...]:
        return (6,)

    @property
    def group(self) -> SE3:
        """The acting group."""
        return SE3()

    def act(self, g: FloatArray, m: FloatArray) -> FloatArray:
        """``(A q, A w + a × A q)`` for ``g = [[A, a], [0, 1]]``."""
        g = as_array(self.name, "group element (SE3 4x4)", g, (4, 4))
        m = as_array(self.name, "point", m, (6,))
        A, a = g[..., :3, :3], g[..., :3, 3]
        Aq = mat_vec(A, m[..., :3])
        return np.concatenate([Aq, mat_vec(A, m[..., 3:]) + np.cross(a, Aq)], axis=-1)

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        """``(u × q, u × w + v × q)`` for ``ξ = (u, v)``."""
        xi = as_array(self.name, "ξ = (u, v)", xi, (6,))
        m = as_array(self.name, "point", m, (6,))
        u, v, q, w = xi[..., :3], xi[..., 3:], m[..., :3], m[..., 3:]
        return np.concatenate([np.cross(u, q), np.cross(u, w) + np.cross(v, q)], axis=-1)

    def validate(self, m: Any) -> FloatArray:
        """Shape ``(..., 6)``, finite, ``|q| = 1`` and ``|q·w| ≤ UNIT_NORM_TOL (1 + |w|)``."""
        arr = as_array(self.name, "point (q, w)", m, (6,))
        check_finite(self.name, "point", arr)
        _check_unit(self.name, arr[..., :3])
        qw = np.einsum("...i,...i->...", arr[..., :3], arr[..., 3:])
        bad = np.abs(qw) > UNIT_NORM_TOL * (1.0 + np.linalg.norm(arr[..., 3:], axis=-1))
        if np.any(bad):
            raise ValueError(f"TS2: w must be tangent, q·w = 0 (tolerance {UNIT_NORM_TOL:g}); got "
                             f"q·w = {np.abs(qw).max():.3e}. Use w − (q·w) q.")
        return arr
