"""RKMK methods (the unconstrained family sharing the stage machinery) on the free rigid body
y = (R, Ω) ∈ SO(3)×R³, y' = y · (Ω, J⁻¹(JΩ × Ω))^, against scipy's DOP853 on R' = RΩ̃."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lgbeam.groups import SO3xR3
from lgbeam.integrators.rkmk import integrate_ode

J = np.array([1.0, 2.0, 3.5])
OMEGA0 = np.array([0.3, 1.2, -0.7])


@dataclass(frozen=True)
class FreeRigidBody:
    group: SO3xR3 = field(default_factory=SO3xR3)

    def generator(self, t, y):
        om = self.group.translation(y)
        return np.concatenate([om, np.cross(J * om, om) / J])


def _reference(T):
    def rhs(t, z):
        R, om = z[:9].reshape(3, 3), z[9:]
        W = np.array([[0, -om[2], om[1]], [om[2], 0, -om[0]], [-om[1], om[0], 0]])
        return np.concatenate([(R @ W).ravel(), np.cross(J * om, om) / J])

    z = solve_ivp(rhs, (0, T), np.concatenate([np.eye(3).ravel(), OMEGA0]), method="DOP853", rtol=1e-13, atol=1e-14).y[:, -1]
    return z[:9].reshape(3, 3), z[9:]


@pytest.mark.parametrize("method, order", [("rkmk4", 4), ("rkmk5", 5), ("rkmk-herk3", 3)])
def test_rkmk_order_on_the_free_rigid_body(method, order):
    ode, T = FreeRigidBody(), 2.0
    R_ref, om_ref = _reference(T)
    y0 = ode.group.from_rotation(np.eye(3), OMEGA0)
    hs = np.array([0.1, 0.05, 0.025, 0.0125])
    errs = []
    for h in hs:
        _, ys = integrate_ode(ode, y0, (0.0, T), method, h=h)
        errs.append(max(np.abs(ode.group.rotation(ys[-1]) - R_ref).max(), np.abs(ode.group.translation(ys[-1]) - om_ref).max()))
    slope = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert abs(slope - order) <= 0.3, (errs, slope)


def test_rkmk_stays_on_the_group_and_rejects_bad_input():
    ode = FreeRigidBody()
    _, ys = integrate_ode(ode, ode.group.from_rotation(np.eye(3), OMEGA0), (0.0, 5.0), "rkmk4", h=0.05)
    R = ode.group.rotation(ys)
    assert np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)).max() < 1e-13  # exp keeps R orthogonal
    with pytest.raises(ValueError, match="unknown RKMK method 'rk9'"):
        integrate_ode(ode, ys[0], (0.0, 1.0), "rk9", h=0.1)
    with pytest.raises(ValueError, match="need h > 0"):
        integrate_ode(ode, ys[0], (0.0, 1.0), "rkmk4", h=0.0)
