"""Time-integration methods: frozen configuration with pure ``init``/``step`` (``base.Integrator``),
consumed by the one driver ``lgbeam.solve.integrate``. ``METHODS`` (``registry.py``) is the one
registry of every family: half-explicit Runge–Kutta Lie group methods (constrained mechanical
systems), RKMK (Lie group ODEs), and the Poisson-system methods of ``lgbeam.integrators.poisson``."""

from __future__ import annotations

from lgbeam.integrators.base import HasInitialStep, Integrator, Status, Step
from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
from lgbeam.integrators.half_explicit import HalfExplicitRK
from lgbeam.integrators.registry import METHODS, MethodEntry, make_method, method_entry, methods_for
from lgbeam.integrators.rkmk import RKMK

__all__ = ["METHODS", "RKMK", "AdaptiveStep", "ConstantStep", "HalfExplicitRK", "HasInitialStep", "Integrator",
           "MethodEntry", "Status", "Step", "make_method", "method_entry", "methods_for"]
