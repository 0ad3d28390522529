"""Integrators for semilinear Poisson systems y' = S(Ay + ∇U(y)) (seed 003 ch. 2).

``POISSON_INTEGRATORS`` maps a method name to a factory accepting ``solver=FixedPoint(tol, max_iter)``
(``exp-euler`` takes no solver). Each integrator has ``name``, ``order`` and
``step(system, h, y) -> PoissonStep``; ``integrate_poisson`` is the fixed-step driver.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lgbeam.integrators.poisson.base import PoissonStep
from lgbeam.integrators.poisson.baselines import DiscreteGradientMethod, ImplicitMidpoint, ImplicitMidpointNewton
from lgbeam.integrators.poisson.coefficients import DISEX1, DISEX6, DisexCoefficients
from lgbeam.integrators.poisson.driver import PoissonRun, integrate_poisson
from lgbeam.integrators.poisson.exponential import (
    Disex,
    EnergyPreservingExponential,
    ExponentialEuler,
    ExponentialMidpoint,
    disex_tableau_step,
    lawson4_step,
)
from lgbeam.integrators.poisson.solver import FixedPoint, FixedPointResult

POISSON_INTEGRATORS: dict[str, Callable[..., Any]] = {
    "exp-midpoint": ExponentialMidpoint,
    "disex": Disex,
    "energy-exp": EnergyPreservingExponential,
    "midpoint": ImplicitMidpoint,
    "midpoint-newton": ImplicitMidpointNewton,
    "discrete-gradient": DiscreteGradientMethod,
    "exp-euler": ExponentialEuler,
}


def make_poisson_integrator(method: str, *, tol: float = 1e-14, max_iter: int = 100) -> Any:
    """Build a registered integrator; unknown names list the valid ones."""
    if method not in POISSON_INTEGRATORS:
        raise ValueError(f"unknown Poisson integrator {method!r}; choose one of {', '.join(POISSON_INTEGRATORS)}")
    if method == "exp-euler":
        return ExponentialEuler()
    return POISSON_INTEGRATORS[method](solver=FixedPoint(tol=tol, max_iter=max_iter))


__all__ = [
    "DISEX1", "DISEX6", "Disex", "DisexCoefficients", "DiscreteGradientMethod", "EnergyPreservingExponential",
    "ExponentialEuler", "ExponentialMidpoint", "FixedPoint", "FixedPointResult", "ImplicitMidpoint",
    "ImplicitMidpointNewton", "POISSON_INTEGRATORS", "PoissonRun", "PoissonStep", "disex_tableau_step",
    "integrate_poisson", "lawson4_step", "make_poisson_integrator",
]
