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


def plane_wave_growth(k: Array | float, h: Array | float, weights: Sequence[float] = (1.0,), *,
                      amplitude: float = 1.0, kappa: float = 1.0) -> Array:
    """Largest |μ| of one composition step γ_1 h, …, γ_s h of exponential midpoint rules, linearised about the
    NLS plane wave ψ = a (i ψ_t + ψ_xx − 2κ|ψ|²ψ = 0, complex form S = −i, A = −∂_xx) on the Fourier pair ±k,
    in the frame rotating with the wave; k and h broadcast. Closed form of what a finite-difference Jacobian
    of the step measures (tests/test_spectral_hmax_horizon.py), one 2 × 2 matrix per (k, h) instead of 2N × 2N.

    One sub-step of size τ = γh (stage form Q = E(τ/2)ψ₀ + (τ/2) f(Q), ψ₁ = E(τ/2)(2Q − E(τ/2)ψ₀)): the
    background stage Q̄ = a/(1 + iκτs) with s = |Q̄|² the root of s(1 + κ²τ²s²) = a², and ψ̄₁ = 2Q̄ − a =
    a e^{−iφ}. The perturbation u e^{ikx} + w e^{−ikx} in the coordinates (u, w̄), θ = k²τ/2:

        [1 + 2iκτs, iκτQ̄²; −iκτQ̄̄², 1 − 2iκτs] (X, Ȳ) = (e^{−iθ}u, e^{iθ}w̄),
        (u₁, w̄₁) = diag(e^{iφ}, e^{−iφ}) · diag(e^{−iθ}, e^{iθ}) · (2(X, Ȳ) − diag(e^{−iθ}, e^{iθ})(u, w̄)),

    the sub-steps multiply (the method commutes with a global phase). |μ| > 1 only in narrow bands near the
    resonances (``stable_step_bound``'s Krein collisions; exp-midpoint: 2k²h ≈ 2πm, peak rate ln|μ|/h ≈ 2κa²,
    whatever k and m; docs/spectral.md "Table 2.3")."""
    kk, hh = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(h, dtype=float))
    total = np.broadcast_to(np.eye(2, dtype=complex), (*kk.shape, 2, 2))
    for g in weights:
        total = _substep_matrix(kk, g * hh, amplitude, kappa) @ total
    return np.asarray(np.abs(np.linalg.eigvals(total)).max(axis=-1))


def _substep_matrix(k: Array, tau: Array, a: float, kappa: float) -> Array:
    """The 2 × 2 map of ``plane_wave_growth`` for one exponential midpoint sub-step of size τ (arrays)."""
    s = np.full(tau.shape, a * a)
    for _ in range(50):  # Newton on s + κ²τ²s³ − a² (increasing and convex for s ≥ 0: converges from a²)
        s = s - (s + (kappa * tau) ** 2 * s**3 - a * a) / (1.0 + 3.0 * (kappa * tau * s) ** 2)
    q = a / (1.0 + 1j * kappa * tau * s)
    rot = np.conj(2.0 * q - a) / a  # e^{iφ}: |ψ̄₁| = a (the stage is a Cayley transform)
    m = np.empty((*tau.shape, 2, 2), dtype=complex)
    m[..., 0, 0], m[..., 0, 1] = 1.0 + 2j * kappa * tau * s, 1j * kappa * tau * q**2
    m[..., 1, 0], m[..., 1, 1] = -1j * kappa * tau * np.conj(q) ** 2, 1.0 - 2j * kappa * tau * s
    e = np.exp(-0.5j * k**2 * tau)
    d = np.zeros_like(m)
    d[..., 0, 0], d[..., 1, 1] = e, np.conj(e)
    r = np.zeros_like(m)
    r[..., 0, 0], r[..., 1, 1] = rot, np.conj(rot)
    return np.asarray(r @ d @ (2.0 * np.linalg.inv(m) - np.eye(2)) @ d)


__all__ = ["plane_wave_growth", "stable_step_bound", "warn_above_stable_step"]
