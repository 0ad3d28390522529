"""Order reference problems of issue 15's protocols for ``tests/test_orders.py`` (same shape as
``reference_first_integrals.py``): protocol → entry → {problem: (runner, slow)}; a runner returns checks.

- ``RigidBodySO3``: seed 001's test problem (§4.2) at T = 2 against DOP853 in R⁹ × R³;
- ``ProductOfSpheres``: the spherical pendulum (seed 001 §7.2.1) at T = 1 against DOP853 on (q, ω);
- ``RigidBodyInField``: the three balls in a central field (seed 003 §3.6) at T = 10 against DOP853.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from lgbeam.groups.base import quat_to_matrix
from lgbeam.models import orbit_attitude, rigid_body, spheres
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.systems import ProductOfSpheres, RigidBodyInField, RigidBodySO3

LAST = SaveAt(steps=10**6)


@dataclass(frozen=True)
class RigidOrderCheck:
    what: str
    hs: np.ndarray
    errs: list[float]
    expected: float
    band: float = 0.2


@functools.cache
def _refs(problem: str) -> tuple[Any, Any, Any]:
    if problem == "ortolan":
        body, y0 = rigid_body.ortolan_problem()
        return body, y0, rigid_body.reference_solution(body, y0, [2.0])
    if problem == "pendulum":
        model, y0 = spheres.spherical_pendulum()
        return model, y0, spheres.reference_solution(model, y0, [1.0])
    model = orbit_attitude.BallsInCentralField()
    y0 = model.initial_state()
    return model, y0, orbit_attitude.reference_solution(model, y0, [10.0])


def _final(system: Any, entry: Any, y0: Any, T: float, h: float) -> Any:
    sol = integrate(system, entry.name, y0, (0.0, T), controller=ConstantStep(h), save=LAST, diagnostics=False)
    assert sol.status == "ok", sol.message
    return sol.final


def _ortolan(entry: Any) -> list[RigidOrderCheck]:
    body, y0, (R, w) = _refs("ortolan")
    hs = np.array([0.1, 0.05, 0.025])
    errs = [max(np.abs(y.q - R[-1]).max(), np.abs(y.v - w[-1]).max())
            for y in (_final(body, entry, y0, 2.0, h) for h in hs)]
    return [RigidOrderCheck("state", hs, errs, entry.order)]


def _pendulum(entry: Any) -> list[RigidOrderCheck]:
    model, y0, (q, w) = _refs("pendulum")
    hs = np.array([2.0**-4, 2.0**-5, 2.0**-6])
    errs = [max(np.abs(y.q - q[-1]).max(), np.abs(y.v - w[-1]).max())
            for y in (_final(model, entry, y0, 1.0, h) for h in hs)]
    return [RigidOrderCheck("state", hs, errs, entry.order)]


def _three_balls(entry: Any) -> list[RigidOrderCheck]:
    model, y0, ref = _refs("three-balls")
    hs = np.array([0.2, 0.1, 0.05])
    idx = [0, 1, 2, 7, 8, 9, 10, 11, 12]
    errs = []
    for h in hs:
        y = _final(model, entry, y0, 10.0, h)
        errs.append(max(np.abs(y[idx] - ref[-1][idx]).max(),
                        np.abs(quat_to_matrix(y[3:7]) - quat_to_matrix(ref[-1][3:7])).max()))
    return [RigidOrderCheck("state", hs, errs, entry.order)]


RIGID_PROBLEMS: dict[type, Callable[[Any], dict[str, tuple[Callable[[Any], list[RigidOrderCheck]], bool]]]] = {
    RigidBodySO3: lambda entry: {"ortolan-rigid-body": (_ortolan, False)},
    ProductOfSpheres: lambda entry: {"spherical-pendulum": (_pendulum, False)},
    RigidBodyInField: lambda entry: {"three-balls": (_three_balls, False)},
}
