"""Integrators for semilinear Poisson systems y' = S(Ay + ∇U(y)) (seed 003 ch. 2).

Each method is a frozen dataclass with ``name``, ``order``, ``init`` and ``step(system, t, h, y, cache) ->
Step`` (``lgbeam.integrators.base``); they are registered in ``lgbeam.integrators.registry.METHODS``
(family "poisson") and run by the one driver ``lgbeam.solve.integrate``.
"""

from __future__ import annotations

from lgbeam.integrators.poisson.base import PoissonMethod
from lgbeam.integrators.poisson.baselines import (
    DiscreteGradientMethod,
    ImplicitMidpoint,
    ImplicitMidpointNewton,
)
from lgbeam.integrators.poisson.coefficients import DISEX1, DISEX6, DisexCoefficients
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

__all__ = [
    "DISEX1",
    "DISEX6",
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
    "PoissonMethod",
    "disex_tableau_step",
    "lawson4_step",
]
