"""The one driver: ``integrate(system, method, y0, t_span, controller=..., save=SaveAt(...))``.

Any discretisation runs on any method whose protocol it meets (``check_compatible`` says what is
missing before the first step); ``Solution`` and ``Status`` are the same for every family.
"""

from __future__ import annotations

from lgbeam.integrators.base import Status, Step
from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
from lgbeam.integrators.mechanics import consistent_multiplier, project
from lgbeam.solve.contracts import IncompatibleSystem, check_compatible, compatible_methods
from lgbeam.solve.driver import Interrupted, integrate
from lgbeam.solve.save import SaveAt
from lgbeam.solve.solution import Solution
from lgbeam.systems import MechanicalState

__all__ = ["AdaptiveStep", "ConstantStep", "IncompatibleSystem", "Interrupted", "MechanicalState", "SaveAt", "Solution", "Status",
           "Step", "check_compatible", "compatible_methods", "consistent_multiplier", "integrate", "project"]
