"""Reference problems shared by the order tests (``test_orders.py``) and the family tests.

The free rigid body y = (R, Ω) ∈ SO(3)×R³, y' = y · (Ω, J⁻¹(JΩ × Ω))^, a ``LieGroupODE``, with an
independent reference: scipy's DOP853 on R' = RΩ̃ and Euler's equations in the embedding R⁹ × R³.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam.groups import SO3xR3

J = np.array([1.0, 2.0, 3.5])
OMEGA0 = np.array([0.3, 1.2, -0.7])


@dataclass(frozen=True)
class FreeRigidBody:
    """The torque-free rigid body with principal moments ``J`` as a Lie group ODE on SO(3)×R³."""

    group: SO3xR3 = field(default_factory=SO3xR3)

    def generator(self, t, y):
        om = self.group.translation(y)
        return np.concatenate([om, np.cross(J * om, om) / J])

    def initial_state(self):
        return self.group.from_rotation(np.eye(3), OMEGA0)


def rigid_body_reference(T):
    """(R(T), Ω(T)) from scipy's DOP853 at rtol 1e-13 (error ~1e-13, far below the tested errors)."""

    def rhs(t, z):
        R, om = z[:9].reshape(3, 3), z[9:]
        W = np.array([[0, -om[2], om[1]], [om[2], 0, -om[0]], [-om[1], om[0], 0]])
        return np.concatenate([(R @ W).ravel(), np.cross(J * om, om) / J])

    z = solve_ivp(rhs, (0, T), np.concatenate([np.eye(3).ravel(), OMEGA0]), method="DOP853", rtol=1e-13,
                  atol=1e-14).y[:, -1]
    return z[:9].reshape(3, 3), z[9:]


def rigid_body_error(ode, y, R_ref, om_ref):
    """Max-norm error of a state y ∈ SO(3)×R³ against (R_ref, Ω_ref)."""
    return max(np.abs(ode.group.rotation(y) - R_ref).max(), np.abs(ode.group.translation(y) - om_ref).max())
