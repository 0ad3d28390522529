"""Reference problems of the integral-preserving and polar methods for ``test_orders.py`` (issue 16).

Each protocol maps a registry entry to {problem: (runner, slow)}; a runner returns ``OrderCheck``s (the
fields ``test_orders.test_observed_order`` reads). Every reference is independent of the methods under
test: scipy's DOP853 at rtol 1e-13 on the equations in the embedding space (R⁴ for quaternions, R³ on the
sphere, R^{2n²} for (g, μ), R¹⁸ for (F, P)), errors ≥ 1e-12 at the tested steps.

- ``LieGroupFirstIntegral``: the free rigid body in quaternions on the benign data of notes/002.md §8.2
  (I = diag(1, 2, 3), m₀ = 2(0.3, −0.8, 0.5), q₀ = exp(0.2, −0.4, 0.3) in the seed's v-coordinates), T = 1,
  h = 1/4, 1/8, 1/16 (asymptotic there: slopes within 0.03); the pseudo-rigid body (non-diagonal data of
  notes §8.3, T = 2, h = 1/8 … 1/32) in the slow suite.
- ``SphereFirstIntegral``: the free rigid body on S² (I = diag(1, 2, 3), p₀ = (1, 1, 1)/√3), T = 2.
- ``HamiltonianSOn``: the heavy top on SO(3) (notes/003-ch3plus.md §C.8: χ = (0.3, 0.2, 1), μ₀ = (0.5, −0.5,
  0.5)), T = 2, h = 0.2, 0.1, 0.05.
- ``LiePoissonSOn``: the free rigid body on SO(3) (seed 003 §4.5), T = 2, h = 0.4, 0.2, 0.1.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla

from lgbeam.groups import S3
from lgbeam.models.attitude import RigidBodyQuaternion, RigidBodySphere
from lgbeam.models.pseudo_rigid import PseudoRigidBody
from lgbeam.models.son_bodies import FreeRigidBodySOn, HeavyTopSOn
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.systems import HamiltonianSOn, LieGroupFirstIntegral, LiePoissonSOn, SphereFirstIntegral

LAST = SaveAt(steps=10**6)
BAND = 0.2  # as test_orders.BAND; measured slopes lie within 0.03 of the order on these problems


@dataclass(frozen=True)
class OrderCheck:
    what: str
    hs: np.ndarray
    errs: list[float]
    expected: float
    band: float = BAND


def benign_quaternion() -> tuple[RigidBodyQuaternion, np.ndarray]:
    body = RigidBodyQuaternion(inertia=(1.0, 2.0, 3.0), m0=(0.6, -1.6, 1.0))
    return body, S3().exp(2.0 * np.array([0.2, -0.4, 0.3]))


def nondiagonal_pseudo_rigid() -> tuple[PseudoRigidBody, np.ndarray]:
    """Non-diagonal data of notes/002.md §8.3 (H₀ = 0.346342811598948)."""
    body = PseudoRigidBody()
    F0 = sla.expm(0.1 * np.array([[0.0, 1, 2], [-1, 0.5, 0], [0.3, -0.2, -0.5]]))
    P0 = np.array([[0.2575, 0.1, -0.05], [0.02, 0.8407, 0.1], [-0.1, 0.05, 0.2543]])
    return body, body.initial_state(F0, P0)


@functools.cache
def _reference(problem: str, T: float) -> tuple[Any, np.ndarray, np.ndarray]:
    if problem == "quaternion":
        body, x0 = benign_quaternion()
        return body, x0, body.reference([T], x0)[-1]
    if problem == "pseudo-rigid":
        body, x0 = nondiagonal_pseudo_rigid()
        return body, x0, body.reference([T], x0)[-1]
    if problem == "sphere":
        body = RigidBodySphere()
        p0 = np.ones(3) / np.sqrt(3.0)
        return body, p0, body.reference(p0, [T])[-1]
    body = HeavyTopSOn() if problem == "heavy-top-so3" else FreeRigidBodySOn()
    y0 = body.initial_state()
    return body, y0, body.reference([T], y0)[-1]


def _runner(problem: str, T: float, hs: list[float]) -> Callable[[Any], list[OrderCheck]]:
    def run(entry: Any) -> list[OrderCheck]:
        body, x0, ref = _reference(problem, T)
        errs = []
        for h in hs:
            sol = integrate(body, entry.name, x0, (0.0, T), controller=ConstantStep(h), save=LAST, diagnostics=False)
            assert sol.status == "ok", sol.message
            errs.append(float(np.abs(sol.y[-1] - ref).max()))
        return [OrderCheck("state", np.array(hs), errs, entry.order)]

    return run


FIRST_INTEGRAL_PROBLEMS: dict[type, Callable[[Any], dict[str, tuple[Callable[[Any], list[OrderCheck]], bool]]]] = {
    LieGroupFirstIntegral: lambda entry: {
        "rigid-body-quaternion": (_runner("quaternion", 1.0, [1 / 4, 1 / 8, 1 / 16]), False),
        # EP4 on GL+(3)⋉gl(3)* needs 36×36 φ₁ blocks per quadrature point: the quaternion problem suffices
        **({} if entry.order > 2 else {"pseudo-rigid-body": (_runner("pseudo-rigid", 2.0, [1 / 8, 1 / 16, 1 / 32]),
                                                              True)}),
    },
    SphereFirstIntegral: lambda entry: {"rigid-body-sphere": (_runner("sphere", 2.0, [1 / 4, 1 / 8, 1 / 16]), False)},
    HamiltonianSOn: lambda entry: {"heavy-top-so3": (_runner("heavy-top-so3", 2.0, [0.2, 0.1, 0.05]), False)},
    LiePoissonSOn: lambda entry: {"free-rigid-body-so3": (_runner("free-rigid-body-so3", 2.0, [0.4, 0.2, 0.1]), False)},
}
