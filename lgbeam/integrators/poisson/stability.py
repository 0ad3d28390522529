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
    kk, hh = np.asarray(k, dtype=float), np.asarray(h, dtype=float)  # broadcast in the products only
    shape = np.broadcast_shapes(kk.shape, hh.shape)
    one, zero = np.ones(shape, dtype=complex), np.zeros(shape, dtype=complex)
    t = (one, zero, zero, one)  # the product so far, entries (t00, t01, t10, t11)
    for g in weights:
        m = _substep_matrix(kk, g * hh, amplitude, kappa)
        t = (m[0] * t[0] + m[1] * t[2], m[0] * t[1] + m[1] * t[3],
             m[2] * t[0] + m[3] * t[2], m[2] * t[1] + m[3] * t[3])
    half_tr = 0.5 * (t[0] + t[3])
    root = np.sqrt(half_tr**2 - (t[0] * t[3] - t[1] * t[2]))
    return np.asarray(np.maximum(np.abs(half_tr + root), np.abs(half_tr - root)))


def _substep_matrix(k: Array, tau: Array, a: float, kappa: float) -> tuple[Array, Array, Array, Array]:
    """The 2 × 2 map of ``plane_wave_growth`` for one exponential midpoint sub-step of size τ, as its four
    entries (m00, m01, m10, m11), each an array (closed-form 2 × 2 algebra, no batched LAPACK)."""
    s = np.full(tau.shape, a * a)
    for _ in range(100):  # Newton on s + κ²τ²s³ − a² (increasing and convex for s ≥ 0: converges from a²)
        step = (s + (kappa * tau) ** 2 * s**3 - a * a) / (1.0 + 3.0 * (kappa * tau * s) ** 2)
        s = s - step
        if not np.any(np.abs(step) > 1e-15 * a * a):
            break
    q = a / (1.0 + 1j * kappa * tau * s)
    rot = np.conj(2.0 * q - a) / a  # e^{iφ}: |ψ̄₁| = a (the stage is a Cayley transform)
    m00, m01 = 1.0 + 2j * kappa * tau * s, 1j * kappa * tau * q**2
    m10, m11 = -1j * kappa * tau * np.conj(q) ** 2, 1.0 - 2j * kappa * tau * s
    det = m00 * m11 - m01 * m10
    e = np.exp(-0.5j * k**2 * tau)
    ec = np.conj(e)
    # R D (2 M⁻¹ − I) D with D = diag(e, ē), R = diag(e^{iφ}, e^{−iφ}), M⁻¹ = [m11, −m01; −m10, m00]/det
    return (rot * e * e * (2.0 * m11 / det - 1.0), rot * e * ec * (-2.0 * m01 / det),
            np.conj(rot) * ec * e * (-2.0 * m10 / det), np.conj(rot) * ec * ec * (2.0 * m00 / det - 1.0))


__all__ = ["plane_wave_growth", "stable_step_bound", "warn_above_stable_step"]
