"""Integrators for semilinear Poisson systems y' = S(Ay + ∇U(y)) (seed 003 ch. 2).

``POISSON_INTEGRATORS`` maps a method name to a factory accepting ``solver=FixedPoint(tol, max_iter)``
(``exp-euler`` takes no solver). Each integrator has ``name``, ``order`` and
``step(system, h, y) -> PoissonStep``; ``integrate_poisson`` is the fixed-step driver.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lgbeam.integrators.poisson.base import PoissonStep
from lgbeam.integrators.poisson.baselines import (
    DiscreteGradientMethod,
    ImplicitMidpoint,
    ImplicitMidpointNewton,
)
from lgbeam.integrators.poisson.coefficients import DISEX1, DISEX6, DisexCoefficients
from lgbeam.integrators.poisson.driver import PoissonRun, integrate_poisson
from lgbeam.integrators.poisson.exponential import (
    PREDICTORS,
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

PREDICTING = ("exp-midpoint", "disex", "energy-exp")  # integrators with the opt-in ``predictor``


def make_poisson_integrator(method: str, *, tol: float = 1e-14, max_iter: int = 100, predictor: str = "none") -> Any:
    """Build a registered integrator; unknown names list the valid ones.

    ``predictor`` (exp-midpoint, disex, energy-exp only; see ``PREDICTORS``) is an opt-in initial
    guess for the fixed-point solves; the default ``"none"`` is the starting point of Tables 2.3/2.4.
    """
    if method not in POISSON_INTEGRATORS:
        raise ValueError(f"unknown Poisson integrator {method!r}; choose one of {', '.join(POISSON_INTEGRATORS)}")
    if predictor != "none" and method not in PREDICTING:
        raise ValueError(f"predictor={predictor!r} is available for {', '.join(PREDICTING)} only, not {method!r}")
    if method == "exp-euler":
        return ExponentialEuler()
    solver = FixedPoint(tol=tol, max_iter=max_iter)
    if method in PREDICTING:
        return POISSON_INTEGRATORS[method](solver=solver, predictor=predictor)
    return POISSON_INTEGRATORS[method](solver=solver)


__all__ = [
    "DISEX1",
    "DISEX6",
    "POISSON_INTEGRATORS",
    "PREDICTING",
    "PREDICTORS",
    "DiscreteGradientMethod",
    "Disex",
    "DisexCoefficients",
    "EnergyPreservingExponential",
    "ExponentialEuler",
    "ExponentialMidpoint",
    "FixedPoint",
    "FixedPointResult",
    "ImplicitMidpoint",
    "ImplicitMidpointNewton",
    "PoissonRun",
    "PoissonStep",
    "disex_tableau_step",
    "integrate_poisson",
    "lawson4_step",
    "make_poisson_integrator",
]
