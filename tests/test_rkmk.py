"""RKMK methods (the unconstrained family sharing the stage machinery) on the free rigid body
y = (R, Ω) ∈ SO(3)×R³, y' = y · (Ω, J⁻¹(JΩ × Ω))^, against scipy's DOP853 on R' = RΩ̃.

The fitted orders of every registered RKMK method are in ``test_orders.py`` (generated from the
registry, same problem and step sizes as here before)."""

from __future__ import annotations

import numpy as np
import pytest
from reference_problems import OMEGA0, FreeRigidBody, rigid_body_error, rigid_body_reference

from lgbeam.solve import AdaptiveStep, ConstantStep, integrate


def test_rkmk_stays_on_the_group_and_rejects_bad_input():
    ode = FreeRigidBody()
    ys = integrate(ode, "rkmk4", ode.group.from_rotation(np.eye(3), OMEGA0), (0.0, 5.0),
                   controller=ConstantStep(0.05)).y
    R = ode.group.rotation(ys)
    assert np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)).max() < 1e-13  # exp keeps R orthogonal
    with pytest.raises(ValueError, match="unknown integrator method 'rk9'"):
        integrate(ode, "rk9", ys[0], (0.0, 1.0), controller=ConstantStep(0.1))
    with pytest.raises(ValueError, match="step size h must be a finite number > 0"):
        integrate(ode, "rkmk4", ys[0], (0.0, 1.0), controller=ConstantStep(0.0))


def test_rkmk5_runs_adaptively_with_its_embedded_pair():
    """DOPRI5 coefficients: the embedded estimate drives AdaptiveStep; the error follows the tolerance."""
    ode, T = FreeRigidBody(), 2.0
    R_ref, om_ref = rigid_body_reference(T)
    sol = integrate(ode, "rkmk5", ode.initial_state(), (0.0, T), controller=AdaptiveStep(rtol=1e-9, atol=1e-9, h0=0.01))
    assert sol.status == "ok" and sol.t[-1] == T
    assert rigid_body_error(ode, sol.y[-1], R_ref, om_ref) < 1e-7  # local tolerance 1e-9 over ~30 steps
