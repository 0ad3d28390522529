"""Extending lgbeam from outside: a toy method and toy discretisations defined here only, run through
``lgbeam.solve.integrate`` with nothing in ``lgbeam`` edited, checked against exact solutions; the
contract check at the door (``IncompatibleSystem``); ``SaveAt`` rules and the step-size statistics.

Toys:

- ``LieEuler``: the explicit Lie–Euler method y_{n+1} = y_n ∘ exp(h ξ(t_n, y_n)) for any ``LieGroupODE``
  (order 1, no dense output, no error estimate);
- ``RampedSpin``: a body spinning about a fixed axis n at the rate a + b t, y' = y · ((a + b t) n)^ on
  SO(3); exact solution y(t) = y₀ exp((a t + b t²/2) n̂);
- ``Oscillator``: q'' = −ω² q as a semilinear Poisson system y = (q, p), S = J, A = I, U = ½ k q²
  (SA = AS; ω² = 1 + k), exact solution a rotation in the (q, p/ω) plane; ``OscillatorDG`` adds the
  discrete gradient ∇̄U(y₀, y₁) = ∇U((y₀ + y₁)/2) (exact for a quadratic U).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pytest

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.spectral import NLS, FourierGrid
from lgbeam.groups import SO3
from lgbeam.integrators import METHODS, Integrator, Step
from lgbeam.solve import (
    AdaptiveStep,
    ConstantStep,
    IncompatibleSystem,
    SaveAt,
    compatible_methods,
    integrate,
)
from lgbeam.systems import HasDiscreteGradient, LieGroupODE, SemilinearPoissonSystem

# --------------------------------------------------------------------------------------------------
# the toy method
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LieEuler:
    """Explicit Lie–Euler for y' = y · ξ(t, y)^: y_{n+1} = y_n ∘ exp(h ξ(t_n, y_n)); order 1."""

    name: str = "lie-euler"
    order: int = 1
    error_order: None = None
    system_type: ClassVar[type] = LieGroupODE
    requires: ClassVar[tuple[type, ...]] = ()
    dense_output: ClassVar[bool] = False

    def init(self, ode: Any, t0: float, y0: np.ndarray) -> tuple[np.ndarray, None]:
        y = np.array(y0, dtype=float)
        ode.group.validate(y)
        return y, None

    def step(self, ode: Any, t: float, h: float, y: np.ndarray, cache: None) -> Step[np.ndarray, None]:
        return Step(ode.group.retract(y, h * np.asarray(ode.generator(t, y), dtype=float)), None, evaluations=1)

    def diagnostics(self, ode: Any, t: float, y: np.ndarray, cache: None) -> dict[str, float]:
        return {}


# --------------------------------------------------------------------------------------------------
# the toy discretisations
# --------------------------------------------------------------------------------------------------

def _phi_scalar(k: int, z: complex) -> complex:
    """φ_k(z) = Σ_j z^j/(j + k)!: the series for |z| < 1, else φ_k = (φ_{k−1} − 1/(k−1)!)/z from e^z."""
    if abs(z) < 1.0:
        return sum(z**j / math.factorial(j + k) for j in range(25))
    val = complex(np.exp(z))
    for j in range(k):
        val = (val - 1.0 / math.factorial(j)) / z
    return val


AXIS = np.array([2.0, -1.0, 2.0]) / 3.0  # unit


@dataclass(frozen=True)
class RampedSpin:
    """y' = y · ((a + b t) n)^ on SO(3): a spin about the body axis n whose rate grows linearly."""

    a: float = 1.5
    b: float = -0.8
    group: SO3 = field(default_factory=SO3)

    def generator(self, t: float, y: np.ndarray) -> np.ndarray:
        return (self.a + self.b * t) * AXIS

    def initial_state(self) -> np.ndarray:
        return self.group.exp(np.array([0.3, -0.2, 0.5]))

    def exact(self, t: float) -> np.ndarray:
        return self.group.retract(self.initial_state(), (self.a * t + 0.5 * self.b * t * t) * AXIS)


@dataclass(frozen=True)
class Oscillator:
    """q'' = −(1 + k) q as y' = S(Ay + ∇U(y)), y = (q, p), S = [[0, 1], [−1, 0]], A = I, U = ½ k q²."""

    k: float = 3.0

    @property
    def omega(self) -> float:
        return float(np.sqrt(1.0 + self.k))

    def apply_S(self, y: np.ndarray) -> np.ndarray:
        return np.array([y[1], -y[0]])

    def apply_A(self, y: np.ndarray) -> np.ndarray:
        return np.array(y, dtype=float)

    def grad_potential(self, y: np.ndarray) -> np.ndarray:
        return np.array([self.k * y[0], 0.0])

    def hamiltonian(self, y: np.ndarray) -> float:
        return float(0.5 * (y[0] ** 2 + y[1] ** 2) + 0.5 * self.k * y[0] ** 2)

    def phi(self, k: int, h: float, y: np.ndarray) -> np.ndarray:
        """φ_k(hSA) y: on w = q + ip, SA = S acts as multiplication by −i, so φ_k(hSA) is φ_k(−ih)."""
        w = _phi_scalar(k, -1j * h) * complex(y[0], y[1])
        return np.array([w.real, w.imag])

    def exact(self, t: float, y0: np.ndarray) -> np.ndarray:
        """(q, p)(t) with q' = p, p' = −ω² q."""
        w, (q0, p0) = self.omega, y0
        c, s = np.cos(w * t), np.sin(w * t)
        return np.array([q0 * c + p0 / w * s, -q0 * w * s + p0 * c])


@dataclass(frozen=True)
class OscillatorDG(Oscillator):
    """The oscillator with the capability ``HasDiscreteGradient`` (exact for the quadratic U)."""

    def discrete_gradient(self, y0: np.ndarray, y1: np.ndarray) -> np.ndarray:
        return self.grad_potential(0.5 * (np.asarray(y0) + np.asarray(y1)))


Y0 = np.array([0.7, -0.4])


def _so3_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max())


# --------------------------------------------------------------------------------------------------
# toy method × toy system, registered method × toy system
# --------------------------------------------------------------------------------------------------


def test_the_toys_meet_the_protocols():
    assert isinstance(LieEuler(), Integrator) and isinstance(RampedSpin(), LieGroupODE)
    assert isinstance(Oscillator(), SemilinearPoissonSystem) and not isinstance(Oscillator(), HasDiscreteGradient)
    assert isinstance(OscillatorDG(), HasDiscreteGradient)


def test_toy_method_runs_the_toy_system_at_its_order():
    """Lie–Euler sums the rate a + b t by the left rectangle rule: the angle falls short by b h T/2."""
    spin, T = RampedSpin(), 1.0
    hs = np.array([1 / 10, 1 / 20, 1 / 40, 1 / 80])
    errs = []
    for h in hs:
        sol = integrate(spin, LieEuler(), spin.initial_state(), (0.0, T), controller=ConstantStep(h))
        assert sol.status == "ok" and sol.stats["method"] == "lie-euler" and sol.n_steps == round(T / h)
        np.testing.assert_allclose(sol.t, np.linspace(0.0, T, round(T / h) + 1), rtol=0, atol=1e-15)
        R = sol.y
        assert np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)).max() < 1e-14  # on the group
        errs.append(_so3_error(R[-1], spin.exact(T)))
        # the rates commute, so the only error is that angle: y_N = y(T) ∘ exp(−(b h T/2) n̂) to round-off
        assert _so3_error(R[-1], spin.group.retract(spin.exact(T), -0.5 * spin.b * h * T * AXIS)) < 1e-14
    assert abs(observed_order(hs, errs) - LieEuler().order) <= 0.2, errs


def test_registered_methods_run_the_toy_system():
    """RKMK4 integrates a rate linear in t exactly (Simpson's rule), so its error is round-off; the
    adaptive DOPRI5 RKMK meets its tolerance."""
    spin, T = RampedSpin(), 1.0
    assert "rkmk4" in compatible_methods(spin) and "hedop5" not in compatible_methods(spin)
    sol = integrate(spin, "rkmk4", spin.initial_state(), (0.0, T), controller=ConstantStep(0.1))
    assert sol.status == "ok" and _so3_error(sol.y[-1], spin.exact(T)) < 1e-14
    sol = integrate(spin, "rkmk5", spin.initial_state(), (0.0, T), controller=AdaptiveStep(rtol=1e-10, atol=1e-10,
                                                                                          h0=0.01))
    assert sol.status == "ok" and sol.t[-1] == T and _so3_error(sol.y[-1], spin.exact(T)) < 1e-12


def test_registered_poisson_methods_run_the_toy_oscillator_at_their_orders():
    """Every registered method the oscillator is compatible with, against the exact rotation."""
    osc, T = OscillatorDG(), 1.0
    names = compatible_methods(osc)
    assert {"exp-midpoint", "disex", "energy-exp", "exp-euler", "midpoint", "discrete-gradient"} <= set(names)
    assert "midpoint-newton" not in names  # no HasJacobian
    for name in names:
        # DISEX is pre-asymptotic here for h > 1/40 (local slopes 5.5, then 4.95 and 4.97)
        hs = np.array([1 / 40, 1 / 80, 1 / 160] if name == "disex" else [1 / 10, 1 / 20, 1 / 40])
        errs = []
        for h in hs:
            sol = integrate(osc, name, Y0, (0.0, T), controller=ConstantStep(h))
            assert sol.status == "ok", sol.message
            errs.append(np.abs(sol.y[-1] - osc.exact(T, Y0)).max())
        assert abs(observed_order(hs, errs) - METHODS[name].order) <= 0.2, (name, errs)
    sol = integrate(osc, "energy-exp", Y0, (0.0, 10.0), controller=ConstantStep(0.1))
    E = sol.steps["energy"]
    assert np.abs(E - E[0]).max() <= 1e-13 * E[0]  # seed 003 Thm 14, up to the solver tolerance 1e-14


# --------------------------------------------------------------------------------------------------
# contracts
# --------------------------------------------------------------------------------------------------


def test_a_mechanical_method_on_nls_is_refused_naming_what_is_missing():
    nls = NLS(FourierGrid(17))
    with pytest.raises(IncompatibleSystem) as info:
        integrate(nls, "hedop5", np.zeros(nls.n_state), (0.0, 1.0), controller=ConstantStep(0.1))
    msg = str(info.value)
    assert "\n" not in msg and "'hedop5'" in msg and "ConstrainedMechanicalSystem" in msg and "NLS lacks" in msg
    for member in ("group", "n_constraints", "mass", "forces", "constraints", "constraint_jacobian"):
        assert member in msg, member
    assert "exp-midpoint" in msg  # and what can run it
    assert isinstance(info.value, ValueError)


def test_energy_exp_needs_the_discrete_gradient():
    with pytest.raises(IncompatibleSystem, match=r"'energy-exp' needs HasDiscreteGradient.*Oscillator lacks "
                                                 r"discrete_gradient"):
        integrate(Oscillator(), "energy-exp", Y0, (0.0, 1.0), controller=ConstantStep(0.1))
    assert "energy-exp" not in compatible_methods(Oscillator())
    assert "energy-exp" in compatible_methods(OscillatorDG())


def test_a_toy_method_is_checked_at_the_door_too():
    with pytest.raises(IncompatibleSystem, match=r"'lie-euler' needs LieGroupODE.*Oscillator lacks group, generator"):
        integrate(Oscillator(), LieEuler(), Y0, (0.0, 1.0), controller=ConstantStep(0.1))


# --------------------------------------------------------------------------------------------------
# SaveAt and step statistics
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Counting(LieEuler):
    """Lie–Euler that counts its steps (to show that a refused run took none)."""

    calls: list = field(default_factory=list, compare=False)

    def step(self, ode, t, h, y, cache):
        self.calls.append(t)
        return super().step(ode, t, h, y, cache)


@pytest.mark.parametrize("kwargs", [{"times": [0.5, 1.0], "every": 0.1}, {"every": 0.1, "steps": 2},
                                    {"times": [0.5], "steps": 3}])
def test_contradicting_save_options_are_refused(kwargs):
    with pytest.raises(ValueError, match="give only one of times=, every=, steps="):
        SaveAt(**kwargs)


def test_output_times_outside_the_span_are_refused_before_the_first_step():
    spin, method, seen = RampedSpin(), _Counting(), []
    with pytest.raises(ValueError, match=r"output times must lie in \[t0, t_end\]"):
        integrate(spin, method, spin.initial_state(), (0.0, 1.0), controller=ConstantStep(0.1),
                  save=SaveAt(times=[0.5, 1.5], observers=(lambda t, y: seen.append(t),)))
    assert method.calls == [] and seen == []


@pytest.mark.parametrize("method, controller", [
    (LieEuler(), ConstantStep(0.03)),  # the grid 0.03 k does not contain the output times
    ("rkmk4", ConstantStep(0.03)),
    ("rkmk5", AdaptiveStep(rtol=1e-9, atol=1e-9, h0=0.01)),
])
def test_every_without_dense_output_lands_steps_on_the_output_times(method, controller):
    spin, T, every = RampedSpin(), 1.0, 0.1
    seen: list[float] = []
    save = SaveAt(every=every, observers=(lambda t, y: seen.append(t),))
    sol = integrate(spin, method, spin.initial_state(), (0.0, T), controller=controller, save=save)
    assert sol.status == "ok"
    expected = np.concatenate([[0.0], save.plan(0.0, T)])
    assert np.array_equal(sol.t, expected) and np.array_equal(np.asarray(seen), expected)  # exactly
    accepted = sol.steps["t"][sol.accepted]
    # a step ended at every output time (to 1e-15: 0.3 on the grid 0.03 k is the output time 3 · 0.1)
    assert np.abs(accepted[:, None] - expected[None, :]).min(axis=0).max() <= 1e-15
    # the saved states are the step ends there, as accurate as the method (Lie–Euler: angle defect ≤ |b| h T/2)
    tol = abs(spin.b) * 0.03 * T if isinstance(method, LieEuler) else 1e-8
    for t, y in zip(sol.t, sol.y):
        assert _so3_error(y, spin.exact(t)) < tol


def test_constant_steps_report_the_steps_taken():
    spin = RampedSpin()
    sol = integrate(spin, "rkmk4", spin.initial_state(), (0.0, 1.0), controller=ConstantStep(0.3))
    assert sol.n_steps == 4 and np.allclose(sol.t, [0.0, 0.3, 0.6, 0.9, 1.0], rtol=0, atol=1e-15)
    assert sol.stats["h_first"] == 0.3 and sol.stats["h_largest"] == 0.3
    assert sol.stats["h_last"] == pytest.approx(0.1, abs=1e-15) == sol.stats["h_smallest"]
    assert "the last step was 0.1" in sol.stats["note"]
    sol = integrate(spin, "rkmk4", spin.initial_state(), (0.0, 1.0), controller=ConstantStep(0.25))
    assert sol.stats["h_last"] == sol.stats["h_first"] == 0.25 and "note" not in sol.stats
