"""Time-integration methods: frozen configuration with pure ``init``/``step`` (``base.Integrator``),
consumed by the one driver ``lgbeam.solve.integrate``. ``METHODS`` (``registry.py``) is the one
registry of every family: half-explicit Runge–Kutta Lie group methods (constrained mechanical
systems), RKMK (Lie group ODEs), and the Poisson-system methods of ``lgbeam.integrators.poisson``.

The public names are resolved on first use (PEP 562 ``__getattr__``): importing a submodule for one
constant (``from lgbeam.integrators.controllers import PI_BETA``) neither builds the registry of every
method nor imports numba, so ``lgbeam --help`` stays light. ``make_method``/``method_entry`` import only the
family of the method asked for (a gen-alpha run imports neither the Poisson, rigid-body nor spheres methods);
``from lgbeam.integrators import METHODS`` imports every family then, once."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as mypy and editors see them; at run time they load on first use
    from lgbeam.integrators.base import HasInitialStep, Integrator, Status, Step
    from lgbeam.integrators.controllers import AdaptiveStep, ConstantStep
    from lgbeam.integrators.half_explicit import HalfExplicitRK
    from lgbeam.integrators.registry import METHODS, MethodEntry, make_method, method_entry, methods_for
    from lgbeam.integrators.rkmk import RKMK

_API: dict[str, str] = {
    "HasInitialStep": "base", "Integrator": "base", "Status": "base", "Step": "base",
    "AdaptiveStep": "controllers", "ConstantStep": "controllers", "HalfExplicitRK": "half_explicit",
    "METHODS": "registry", "MethodEntry": "registry", "make_method": "registry", "method_entry": "registry",
    "methods_for": "registry", "RKMK": "rkmk",
}

__all__ = ["METHODS", "RKMK", "AdaptiveStep", "ConstantStep", "HalfExplicitRK", "HasInitialStep", "Integrator",
           "MethodEntry", "Status", "Step", "make_method", "method_entry", "methods_for"]


def __getattr__(name: str) -> Any:
    """Load a public name from its defining submodule on first use (then cached in the package)."""
    if name not in _API:
        raise AttributeError(f"module 'lgbeam.integrators' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"lgbeam.integrators.{_API[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
