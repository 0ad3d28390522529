"""Reference problems of the homogeneous-space Lie group methods for ``test_orders.py`` (issue 14, seed 000).

- ``HomogeneousSpaceODE``: the double spherical pendulum of seed 000 §5 (m = L = (1, 1), g = 9.81, the paper's
  initial state q_i = (√2/2, 0, √2/2), w_i = (0, 1, 0)) against scipy's DOP853 at rtol = atol = 1e-13 on the
  ambient equations in R¹² (agrees with notes/000.md §8.2 to 1e-10, tests/test_lie_methods.py). Orders ≤ 4 on
  T = 0.5 with h = 1/50, 1/100, 1/200 (measured fits: Lie–Euler 1.05, Heun 1.98, RKMK3 3.09, RKMK4 3.95,
  Casas–Owren 3.97, CF4 3.96, CF3A 3.03, CF3B 3.13, CG3 2.90, ambient RK4 3.93); order 5 on T = 1 with
  h = 1/50, 1/100, 1/200 (RKMK5 5.12, ambient DOPRI5 5.16; on T = 0.5 their errors reach 3e-11, where the
  reference's own error bends the fit). Errors ≥ 2.5e-9 everywhere.
- ``CotangentHamiltonian``: a heavy top on T*SO(3) (spatial form (21)–(22)) with M = 1, l = 0.5, body spin
  (1, 3, −0.5), T = 1, h = 0.04, 0.02, 0.01, against DOP853 at 1e-13 on (Q, π) ∈ R¹². The seed's data (spin
  150) is pre-asymptotic for θ = 0, 1 at any affordable h (notes/000.md §8.3: rates 2.04 → 1.70); here the
  fits are 0.99 (θ = 0), 2.00 (θ = ½), 1.01 (θ = 1). The seed's numbers are checked in test_lie_slgi.py.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam.models.heavy_top_lie import HeavyTopCotangent
from lgbeam.models.pendulum_chain import SphericalPendulumChain
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.systems import CotangentHamiltonian, HomogeneousSpaceODE

LAST = SaveAt(steps=10**6)
BAND = 0.2  # as test_orders.BAND
PENDULUM_HS = np.array([1 / 50, 1 / 100, 1 / 200])


def pendulum_horizon(order: int) -> float:
    return 1.0 if order >= 5 else 0.5


@dataclass(frozen=True)
class OrderCheck:
    what: str
    hs: np.ndarray
    errs: list[float]
    expected: float
    band: float = BAND


@functools.cache
def double_pendulum_reference(T: float) -> tuple[SphericalPendulumChain, np.ndarray, np.ndarray]:
    """(system, y0, y(T)) for the double pendulum with the paper's initial state (DOP853, 1e-13)."""
    chain = SphericalPendulumChain.uniform(2)
    y0 = chain.paper_state()
    sol = solve_ivp(chain.vector_field, (0.0, T), y0, method="DOP853", rtol=1e-13, atol=1e-13)
    return chain, y0, sol.y[:, -1]


def _double_pendulum(entry: Any) -> list[OrderCheck]:
    T = pendulum_horizon(entry.order)
    chain, y0, ref = double_pendulum_reference(T)
    errs = []
    for h in PENDULUM_HS:
        sol = integrate(chain, entry.name, y0, (0.0, T), controller=ConstantStep(h), save=LAST,
                        diagnostics=False)
        assert sol.status == "ok", sol.message
        errs.append(float(np.linalg.norm(sol.y[-1] - ref)))
    return [OrderCheck("state", PENDULUM_HS, errs, entry.order)]


SLGI_HS = np.array([0.04, 0.02, 0.01])


@functools.cache
def gentle_heavy_top() -> tuple[HeavyTopCotangent, np.ndarray, np.ndarray]:
    top = HeavyTopCotangent(mass=1.0, length=0.5, spin=(1.0, 3.0, -0.5))
    return top, top.initial_state(), top.reference_solution([1.0])[-1]


def _heavy_top_cotangent(entry: Any) -> list[OrderCheck]:
    top, y0, ref = gentle_heavy_top()
    errs = []
    for h in SLGI_HS:
        sol = integrate(top, entry.name, y0, (0.0, 1.0), controller=ConstantStep(h), save=LAST, diagnostics=False)
        assert sol.status == "ok", sol.message
        errs.append(float(np.linalg.norm(sol.y[-1] - ref)))
    return [OrderCheck("state", SLGI_HS, errs, entry.order)]


LIE_PROBLEMS: dict[type, Callable[[Any], dict[str, tuple[Callable[[Any], list[OrderCheck]], bool]]]] = {
    HomogeneousSpaceODE: lambda entry: {"double-spherical-pendulum": (_double_pendulum, False)},
    CotangentHamiltonian: lambda entry: {"heavy-top-cotangent": (_heavy_top_cotangent, False)},
}
