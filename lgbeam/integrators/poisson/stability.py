"""Resonance-free step bound of the exponential-midpoint compositions (issue 26 item 4; docs/spectral.md
"Stable steps").

Linearise a composition of exponential midpoint steps γ_1 h, …, γ_s h about a state of amplitude a: the map
is Poisson (symplectic on the Fourier modes) and, without the nonlinear coupling B = S∇²U, it is the exact
linear flow e^{hSA}, whose eigenvalues e^{±ihω_k} (ω_k = |λ_k|, NLS k², KdV νk³) lie on the unit circle. A
symplectic map becomes unstable only where two eigenvalues of opposite Krein signature collide (MacKay 1986),
and e^{ihω_k}, e^{−ihω_j} collide only where h(ω_k + ω_j) ∈ 2πℤ\\{0}: the numerical resonances (for
split-step NLS the same argument gives Weideman & Herbst's h k_max² < π, SIAM J. Numer. Anal. 23 (1986)).
With h ω_max < π no pair can collide; the coupling moves each eigenvalue's angle by at most
Σ|γ_i| · h · ‖B‖ (each sub-step's midpoint treats it as a Cayley transform of size |γ_i| h ‖B‖), so

    h · (ω_max + Σ_i |γ_i| · L(y)) < π,   ω_max = ρ(SA) (``spectral_radius_SA``),
                                           L(y) ≥ ‖∇f(y)‖ (``field_lipschitz``: NLS 6|κ| max|ψ|², KdV k_max
                                           max|u|)

keeps every eigenvalue pair apart: a sufficient condition, grid by grid. Above it the resonant bands
h(ω_k + ω_j) ≈ 2πm are narrow (width ∝ h·L) and a grid's modes may miss them, so larger steps may or may not
stay bounded (the stable set is not an interval; the review's measured blow-ups all lie above the bound, see
docs/spectral.md). The energy-preserving methods (energy-exp, energy-exp4) keep H instead and get no bound.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from lgbeam._typing import Array
from lgbeam.systems import HasSpectralRadius, HasStageLinearisation, SemilinearPoissonSystem, supports

logger = logging.getLogger(__name__)


def _lipschitz(system: SemilinearPoissonSystem, y: Array) -> float:
    """L(y), the bound of ‖S∇²U(y)‖ (``HasStageLinearisation``), or 0 where the system gives none."""
    return float(system.field_lipschitz(y)) if supports(system, HasStageLinearisation) else 0.0


def stable_step_bound(system: SemilinearPoissonSystem, y: Array, weights: Sequence[float]) -> float | None:
    """π / (ρ(SA) + Σ|γ_i| · L(y)) for the composition with sub-step weights γ (module docstring), or None
    where the system gives no ``spectral_radius_SA`` (``HasSpectralRadius``: no bound known)."""
    if not supports(system, HasSpectralRadius):
        return None
    total = float(system.spectral_radius_SA()) + float(np.sum(np.abs(weights))) * _lipschitz(system, y)
    return math.pi / total if total > 0 else math.inf


def warn_above_stable_step(name: str, system: SemilinearPoissonSystem, y: Array, h: float,
                           weights: Sequence[float]) -> bool:
    """Log one warning line when |h| exceeds ``stable_step_bound``; True when it did."""
    bound = stable_step_bound(system, y, weights)
    if bound is None or abs(h) <= bound or not supports(system, HasSpectralRadius):
        return False
    logger.warning("%s: h = %.4g exceeds this grid's resonance-free step %.4g = pi/(rho(SA) %.4g + %.3g x "
                   "nonlinear Lipschitz %.4g); long runs may blow up (docs/spectral.md 'Stable steps'): use "
                   "h <= %.3g, or etd35 (explicit, no resonance bound), energy-exp/energy-exp4",
                   name, h, bound, system.spectral_radius_SA(),
                   float(np.sum(np.abs(weights))),
                   _lipschitz(system, y), bound)
    return True


__all__ = ["stable_step_bound", "warn_above_stable_step"]
