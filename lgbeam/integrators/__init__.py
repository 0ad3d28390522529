"""Time integrators. ``INTEGRATORS`` maps method names to factories of mechanical-system integrators
(half-explicit Runge–Kutta Lie group methods); the Poisson-system integrators live in
``lgbeam.integrators.poisson``."""

from __future__ import annotations

from functools import partial
from typing import Callable

from lgbeam.integrators.half_explicit import HalfExplicitRK
from lgbeam.integrators.tableaux import HALF_EXPLICIT_TABLEAUX

INTEGRATORS: dict[str, Callable[[], HalfExplicitRK]] = {
    name: partial(HalfExplicitRK, tableau=tab) for name, tab in HALF_EXPLICIT_TABLEAUX.items()
}


def get_integrator(name: str) -> HalfExplicitRK:
    """The integrator registered under ``name``; an unknown name lists the known ones."""
    try:
        return INTEGRATORS[name]()
    except KeyError:
        raise ValueError(
            f"unknown integrator method {name!r}; known methods: {', '.join(INTEGRATORS)}"
        ) from None


__all__ = ["INTEGRATORS", "HalfExplicitRK", "get_integrator"]
