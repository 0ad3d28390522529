"""lgbeam: geometric simulation of flexible beams and stiff Hamiltonian PDEs.

Spatial discretisations (Cosserat/Kirchhoff rods on (S³⋉R³)^(N+1), Fourier pseudospectral
semilinear Poisson systems) assemble operators; interchangeable time-integration methods (half-explicit
Runge–Kutta Lie group methods, RKMK, exponential integrators) consume them through one driver::

    from lgbeam import ConstantStep, MechanicalState, SaveAt, integrate
    sol = integrate(system, "hedop5", MechanicalState(q0, v0), (0.0, 1.0), controller=ConstantStep(1e-3))

The names below are loaded on first use (``import lgbeam`` stays light for the command line).
"""

from __future__ import annotations

import importlib
from typing import Any

from lgbeam._version import __version__

_API: dict[str, str] = {
    "integrate": "lgbeam.solve", "SaveAt": "lgbeam.solve", "Solution": "lgbeam.solve", "Status": "lgbeam.solve",
    "ConstantStep": "lgbeam.solve", "AdaptiveStep": "lgbeam.solve", "IncompatibleSystem": "lgbeam.solve",
    "MechanicalState": "lgbeam.systems", "METHODS": "lgbeam.integrators", "make_method": "lgbeam.integrators",
    "CosseratRod": "lgbeam.discretisations.rods", "RodMesh": "lgbeam.discretisations.rods",
    "Material": "lgbeam.discretisations.rods", "Support": "lgbeam.discretisations.rods",
    "NodalLoad": "lgbeam.discretisations.rods", "FourierGrid": "lgbeam.discretisations.spectral",
    "NLS": "lgbeam.discretisations.spectral", "KdV": "lgbeam.discretisations.spectral",
    "HeavyTop": "lgbeam.models.heavy_top", "observed_order": "lgbeam.diagnostics",
}

__all__ = [
    "METHODS",
    "NLS",
    "AdaptiveStep",
    "ConstantStep",
    "CosseratRod",
    "FourierGrid",
    "HeavyTop",
    "IncompatibleSystem",
    "KdV",
    "Material",
    "MechanicalState",
    "NodalLoad",
    "RodMesh",
    "SaveAt",
    "Solution",
    "Status",
    "Support",
    "__version__",
    "integrate",
    "make_method",
    "observed_order",
]
assert set(__all__) == {"__version__", *_API}


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'lgbeam' has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
