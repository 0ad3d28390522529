"""lgbeam: geometric simulation of flexible beams and stiff Hamiltonian PDEs.

Spatial discretisations (Cosserat/Kirchhoff rods on (S³⋉R³)^(N+1), Fourier pseudospectral
semilinear Poisson systems) assemble operators; interchangeable time integrators (half-explicit
Runge–Kutta Lie group methods, exponential integrators) consume them.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
