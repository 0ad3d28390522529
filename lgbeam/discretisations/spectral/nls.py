"""Cubic nonlinear Schrödinger equation as a semilinear Poisson system (Fourier pseudospectral).

    i ψ_t + ψ_xx − 2κ |ψ|² ψ = 0       κ = 1: defocusing (seed 003 eq. (2.16)); κ = −1: focusing

Symbols (seed 003 eqs. (2.20)–(2.24)):
    real form     y = (q; p) ∈ R^{2N}, ψ = q + i p;  S = J = [[0, I], [−I, 0]],  A = D = diag(−D2, −D2)
                  U = κ/2 Σ (q² + p²)²,  ∇U = 2κ (q² + p²) (q; p)
    complex form  y = ψ ∈ C^N, inner product ⟨a, b⟩ = Re Σ conj(a) b;  S = −i,  A = −D2,
                  U = κ/2 Σ |ψ|⁴,  ∇U = 2κ |ψ|² ψ
    S A           has Fourier symbol −i k² (acting on ψ̂), so e^{hSA} ψ̂_k = e^{−ik²h} ψ̂_k  (2.22)
    H             = ½⟨y, A y⟩ + U(y)  (plain sums, no quadrature weight, as in the thesis)

The two forms are the same system; ``to_field``/``from_field`` convert.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from lgbeam._typing import Array, FloatArray
from lgbeam.discretisations.spectral.fourier import FourierGrid, fft, ifft, sech

logger = logging.getLogger(__name__)

_FORMS = ("real", "complex")


@dataclass(frozen=True)
class NLS:
    """Semi-discrete NLS, y' = S (A y + ∇U(y)), implementing ``SemilinearPoissonSystem``.

    Parameters
    ----------
    grid : FourierGrid
    kappa : float
        Nonlinearity: +1 defocusing (the thesis), −1 focusing (solitons). Any nonzero real.
    form : "real" | "complex"
        State layout: stacked (q; p) of length 2N, or complex ψ of length N.

    References
    ----------
    Shen & Leok 2019 (seed 003), eqs. (2.16)–(2.24).
    """

    grid: FourierGrid
    kappa: float = 1.0
    form: str = "real"

    def __post_init__(self) -> None:
        if self.form not in _FORMS:
            raise ValueError(f"NLS form must be one of {_FORMS}, got {self.form!r}")
        if not np.isfinite(self.kappa) or self.kappa == 0.0:
            raise ValueError(
                f"NLS kappa must be a nonzero finite number (1 defocusing, -1 focusing), got {self.kappa!r}"
            )

    # -------------------------------------------------------------- conversions
    @property
    def n_state(self) -> int:
        return 2 * self.grid.n_nodes if self.form == "real" else self.grid.n_nodes

    def from_field(self, psi: Array) -> Array:
        psi = np.asarray(psi, dtype=complex)
        return np.concatenate([psi.real, psi.imag]) if self.form == "real" else psi

    def to_field(self, y: Array) -> Array:
        if self.form == "complex":
            return np.asarray(y, dtype=complex)
        n = self.grid.n_nodes
        return y[..., :n] + 1j * y[..., n:]

    def _check(self, y: Array) -> None:
        if y.shape[-1] != self.n_state:
            raise ValueError(f"NLS ({self.form} form, N={self.grid.n_nodes}) expects states of length "
                             f"{self.n_state}, got shape {y.shape}")

    @property
    def sa_symbol(self) -> Array:
        """Fourier symbol of SA acting on ψ̂ (−ik²), numpy FFT order; public for Fourier-space solvers."""
        return self._lambda

    @cached_property
    def _lambda(self) -> Array:
        """Fourier symbol of SA acting on ψ̂: −i k²."""
        return -1j * self.grid.k**2

    # -------------------------------------------------------------- protocol
    def apply_S(self, y: Array) -> Array:
        if self.form == "complex":
            return -1j * y
        n = self.grid.n_nodes
        return np.concatenate([y[..., n:], -y[..., :n]], axis=-1)

    def apply_A(self, y: Array) -> Array:
        if self.form == "complex":
            return self.grid.apply(self.grid.k**2, y)
        n = self.grid.n_nodes
        k2 = self.grid.k**2
        return np.concatenate([self.grid.apply(k2, y[..., :n]), self.grid.apply(k2, y[..., n:])], axis=-1)

    def potential(self, y: Array) -> float:
        psi = self.to_field(y)
        a = psi.real**2 + psi.imag**2  # |ψ|² without the square root of abs and the pow of **4
        return float(0.5 * self.kappa * np.sum(a * a))

    def grad_potential(self, y: Array) -> Array:
        if self.form == "complex":
            return 2.0 * self.kappa * np.abs(y) ** 2 * y
        n = self.grid.n_nodes
        a = y[..., :n] ** 2 + y[..., n:] ** 2
        return 2.0 * self.kappa * np.concatenate([a, a], axis=-1) * y

    def nonlinear_field(self, y: Array, scale: float = 1.0) -> Array:
        """scale · S∇U(y), fused (optional capability of the integrators): complex form
        −2iκ|ψ|²ψ, real form 2κ(q² + p²)(p; −q).

        Bitwise ``scale * apply_S(grad_potential(y))``, with fewer temporaries: in the complex form
        the factors −i and scale are one complex factor (multiplying by ±i only swaps and negates).
        """
        c = 2.0 * self.kappa
        if self.form == "complex":
            a = np.abs(y)
            a *= a
            a *= c
            out = a * y
            # out *= −i·scale (numpy's stubs type no in-place op)
            return np.multiply(out, -1j * scale, out=out)
        n = self.grid.n_nodes
        q, p = y[..., :n], y[..., n:]
        a = q**2 + p**2
        a *= c
        out = np.empty_like(y)
        np.multiply(a, p, out=out[..., :n])
        np.multiply(a, q, out=out[..., n:])
        np.negative(out[..., n:], out=out[..., n:])
        if scale != 1.0:
            out *= scale
        return out

    def inner(self, a: Array, b: Array) -> float:
        """The real inner product in which S is skew and A symmetric."""
        return float(np.real(np.vdot(a, b)))

    def hamiltonian(self, y: Array) -> float:
        return 0.5 * self.inner(y, self.apply_A(y)) + self.potential(y)

    def _apply_complex(self, mult: Array, y: Array) -> Array:
        if self.form == "complex":
            return ifft(mult * fft(y))
        out = ifft(mult * fft(self.to_field(y)))
        return np.concatenate([out.real, out.imag], axis=-1)

    def phi(self, k: int, h: float, y: Array) -> Array:
        """φ_k(h S A) y exactly, mode by mode (φ₀ = exp; zero mode φ_k(0) = 1/k!)."""
        self._check(y)
        return self._apply_complex(self.grid.phi_multiplier(k, h, self._lambda, "nls"), y)

    def discrete_gradient(self, y0: Array, y1: Array) -> Array:
        """Symmetric discrete gradient of U (seed 003 eqs. (2.23)–(2.24)).

        ∇̄U = 2κ (q̄² + p̄²) (q_m; p_m), q̄² = (q₀² + q₁²)/2, q_m = (q₀ + q₁)/2; satisfies
        ⟨∇̄U, y₁ − y₀⟩ = U(y₁) − U(y₀) exactly.
        """
        if self.form == "complex":
            sbar = 0.5 * (np.abs(y0) ** 2 + np.abs(y1) ** 2)
            return self.kappa * sbar * (y0 + y1)
        n = self.grid.n_nodes
        sq = 0.5 * (y0**2 + y1**2)
        sbar = sq[..., :n] + sq[..., n:]
        return self.kappa * np.concatenate([sbar, sbar], axis=-1) * (y0 + y1)

    # -------------------------------------------------------------- spectral form and stage solves (issue 18)
    def to_spectral(self, y: Array) -> Array:
        """Normalised Fourier coefficients of ψ (``norm="forward"``), numpy FFT order."""
        return fft(self.to_field(y), True)

    def from_spectral(self, v: Array) -> Array:
        psi = ifft(v, True)
        return psi if self.form == "complex" else np.concatenate([psi.real, psi.imag], axis=-1)

    def spectral_symbols(self) -> tuple[Array, Array]:
        """(λ of SA, σ of S) on ψ̂: (−ik², −i)."""
        return self._lambda, self._sigma

    @cached_property
    def _sigma(self) -> Array:
        return np.full(self.grid.n_nodes, -1j)

    def spectral_nonlinear(self, v: Array) -> Array:
        """N̂(v) = σ · F[∇U(F⁻¹v)] (the ``etd35`` capability; the generic form, one transform pair)."""
        return self.spectral_nonlinear_nodal(self.from_spectral(v))

    def spectral_nonlinear_nodal(self, y: Array) -> Array:
        """N̂ of the state y: σ · F[∇U(y)] (one transform)."""
        return self._sigma * self.to_spectral(self.grad_potential(y))

    def spectral_quadratic(self, v: Array) -> float:
        """½⟨y, A y⟩ = ½ Σ_j conj(ψ_j)(−D2 ψ)_j from v = ``to_spectral(y)`` by Parseval: (N/2) Σ_k k²|v_k|² (both
        forms; no transform: the blow-up check's H of ``etd35``; equal to the nodal form to round-off)."""
        return float(np.dot(self._quad_weights, v.real**2 + v.imag**2))

    @cached_property
    def _quad_weights(self) -> FloatArray:
        return np.asarray(0.5 * self.grid.n_nodes * self.grid.k**2, dtype=float)

    def solve_stage(self, base: Array, c: float) -> Array:
        """Exact solution of Q = base + c S∇U(Q), i.e. Q (1 + 2iκc|Q|²) = base, node by node.

        s = |Q|² solves the cubic a² s³ + s = |base|² (a = 2κc), increasing in s ≥ 0, so it has one real
        root, s = 2/(√3|a|) sinh(asinh((3√3/2)|a| |base|²)/3) (trigonometric Cardano form, no cancellation
        for small |a|); then Q = base / (1 + i a s). Round-off accurate, no iteration.
        """
        return base + self.stage_increment(base, c)

    def stage_increment(self, base: Array, c: float) -> Array:
        """Q − base of ``solve_stage`` without cancellation: Q − base = −i a s Q = −i a s base/(1 + i a s).

        Its round-off is relative to the increment (O(c)), not to the state: a composition that adds it to
        its Fourier coefficients keeps them to round-off per step instead of re-rounding the whole state
        through a transform pair at every stage (the accuracy floor of issue 35 item 2).
        """
        psi = self.to_field(base) if self.form == "real" else base
        a = 2.0 * self.kappa * c
        if a == 0.0:
            return np.zeros_like(base)
        b = psi.real**2 + psi.imag**2
        aa = abs(a)
        s = (2.0 / (np.sqrt(3.0) * aa)) * np.sinh(np.arcsinh((1.5 * np.sqrt(3.0) * aa) * b) / 3.0)
        ias = 1j * a * s
        d = -ias * psi / (1.0 + ias)
        return d if self.form == "complex" else np.concatenate([d.real, d.imag], axis=-1)

    def field_jvp(self, y: Array, v: Array) -> Array:
        """S∇²U(y) v = −2iκ(2|ψ|² v + ψ² v̄) (pointwise)."""
        psi, w = self.to_field(y), self.to_field(v)
        out = -2j * self.kappa * (2.0 * (psi.real**2 + psi.imag**2) * w + psi**2 * np.conj(w))
        return out if self.form == "complex" else np.concatenate([out.real, out.imag], axis=-1)

    def field_lipschitz(self, y: Array) -> float:
        """‖S∇²U(y)‖ ≤ 6|κ| max|ψ|²."""
        psi = self.to_field(y)
        return float(6.0 * abs(self.kappa) * np.max(psi.real**2 + psi.imag**2))

    def frozen_stage_solve(self, c: float, y: Array, r: Array) -> Array:
        """(I − c S∇²U(y)) x = r solved exactly: the linearisation is pointwise here (nothing is frozen),
        (1 + α)x + β x̄ = r with α = 4iκc|ψ|², β = 2iκcψ², so x = (r(1 + ᾱ) − β r̄)/(|1 + α|² − |β|²)."""
        psi, rr = self.to_field(y), self.to_field(r)
        m = psi.real**2 + psi.imag**2
        alpha = 4j * self.kappa * c * m
        beta = 2j * self.kappa * c * psi**2
        x = (rr * (1.0 + np.conj(alpha)) - beta * np.conj(rr)) / (
            np.abs(1.0 + alpha) ** 2 - np.abs(beta) ** 2
        )
        return x if self.form == "complex" else np.concatenate([x.real, x.imag], axis=-1)

    def l2_mass(self, y: Array) -> float:
        """The mass ∫|ψ|² dx (conserved by NLS)."""
        psi = self.to_field(y)
        return float(self.grid.dx * np.sum(psi.real**2 + psi.imag**2))

    # -------------------------------------------------------------- extras
    def jacobian(self, y: Array) -> FloatArray:
        """Dense Jacobian of F(y) = S(Ay + ∇U(y)) (real form only; quasi-Newton baseline)."""
        if self.form != "real":
            raise ValueError("the NLS Jacobian (quasi-Newton midpoint) needs the real stacked form; "
                             "set nls.form = 'real'")
        n = self.grid.n_nodes
        q, p = y[:n], y[n:]
        a = q**2 + p**2
        mD2 = -self.grid.dense_D2()
        c = 2.0 * self.kappa
        Hqq, Hpp, Hqp = np.diag(c * (a + 2 * q**2)), np.diag(c * (a + 2 * p**2)), np.diag(2 * c * q * p)
        HA = np.block([[mD2 + Hqq, Hqp], [Hqp, mD2 + Hpp]])
        return np.concatenate([HA[n:], -HA[:n]], axis=0)

    def spectral_radius_SA(self) -> float:
        return float(self.grid.k_max**2)

    def invariants(self, y: Array) -> dict[str, float]:
        """Energy H (thesis convention), mass ∫|ψ|² dx and momentum ∫ Im(conj ψ ψ_x) dx."""
        psi = self.to_field(y)
        dx = self.grid.dx
        psi_x = self.grid.diff(psi, 1)
        return {
            "energy": self.hamiltonian(y),
            "mass": float(dx * np.sum(np.abs(psi) ** 2)),
            "momentum": float(dx * np.sum(np.imag(np.conj(psi) * psi_x))),
        }

    def spectral_invariants(self, y: Array, v: Array) -> dict[str, float]:
        """``invariants`` from y and v = ``to_spectral(y)`` without a transform (Parseval, ψ = Σ v_k e^{ikx}):
        mass = dx N Σ|v_k|², momentum = dx N Σ k|v_k|², H = ``spectral_quadratic(v)`` + U(y)."""
        p2 = v.real**2 + v.imag**2
        w = self.grid.dx * self.grid.n_nodes
        return {"energy": self.spectral_quadratic(v) + self.potential(y), "mass": float(w * np.sum(p2)),
                "momentum": float(w * np.dot(self.grid.k, p2))}

    def spectral_invariant_gradients(self, y: Array, v: Array) -> dict[str, tuple[Array, Array]]:
        """Gradients of ``invariants`` in ``inner`` (complex form: dI[δ] = Re Σ conj(∇I) δ; real form the
        stacked (Re; Im)) and their coefficients: ∇H = Ay + ∇U(y), ∇mass = 2 dx ψ, ∇momentum = −2i dx ψ_x
        (D₁ is skew); three transforms."""
        k, dx = self.grid.k, self.grid.dx
        dU = self.grad_potential(y)
        g_hat = {"energy": k**2 * v + self.to_spectral(dU), "mass": 2.0 * dx * v,
                 "momentum": 2.0 * dx * k * v}
        g = {"energy": self.from_spectral(k**2 * v) + dU, "mass": 2.0 * dx * y,
             "momentum": self.from_spectral(g_hat["momentum"])}
        return {name: (g[name], g_hat[name]) for name in g}


def nls_soliton(x: FloatArray, t: float, *, eta: float = 1.0, velocity: float = 0.0, x0: float = 0.0,
                length: float | None = None) -> Array:
    """Bright soliton of the focusing NLS i ψ_t + ψ_xx + 2|ψ|²ψ = 0 (κ = −1).

    ψ = η sech(η(x − x₀ − v t)) exp(i(v x/2 + (η² − v²/4) t)); on a periodic domain of length L the
    profile is wrapped to the nearest image of x₀ + v t (exact up to the sech tail e^{−ηL/2}).
    """
    xi = x - x0 - velocity * t
    if length is not None:
        xi = (xi + 0.5 * length) % length - 0.5 * length
    return eta * sech(eta * xi) * np.exp(1j * (0.5 * velocity * x + (eta**2 - 0.25 * velocity**2) * t))


def nls_plane_wave(x: FloatArray, t: float, *, amplitude: float = 1.0, wavenumber: float = 1.0,
                   kappa: float = 1.0) -> Array:
    """Exact plane wave ψ = a exp(i(m x − (m² + 2κa²) t)) of i ψ_t + ψ_xx − 2κ|ψ|²ψ = 0."""
    omega = wavenumber**2 + 2.0 * kappa * amplitude**2
    return amplitude * np.exp(1j * (wavenumber * x - omega * t))


def nls_akhmediev(x: FloatArray, t: float, *, a: float = 0.25) -> Array:
    """Akhmediev breather of the focusing NLS i ψ_t + ψ_xx + 2|ψ|²ψ = 0 (κ = −1), 0 < a < ½.

    In the normalisation i u_t + ½u_xx + |u|²u = 0 (Akhmediev, Eleonskii & Kulagin, Theor. Math. Phys. 72
    (1987); Dudley et al., Opt. Express 17 (2009) eq. (2)):
        u(X, t) = e^{it} [1 + (2(1 − 2a) cosh(bt) + i b sinh(bt)) / (√(2a) cos(ΩX) − cosh(bt))],
    Ω = 2√(1 − 2a), b = √(8a(1 − 2a)); ψ(x, t) = u(x/√2, t)/√2. Periodic in x with period
    L = 2π√2/Ω (2π for a = ¼); it grows from the unstable background |ψ| = 1/√2 (t → −∞), peaks at t = 0 and
    returns: a breathing solution that amplifies every error in its unstable modes.
    """
    if not 0.0 < a < 0.5:
        raise ValueError(f"the Akhmediev parameter a must lie in (0, 1/2), got {a!r}")
    b = np.sqrt(8.0 * a * (1.0 - 2.0 * a))
    omega = 2.0 * np.sqrt(1.0 - 2.0 * a)
    num = 2.0 * (1.0 - 2.0 * a) * np.cosh(b * t) + 1j * b * np.sinh(b * t)
    u = np.exp(1j * t) * (1.0 + num / (np.sqrt(2.0 * a) * np.cos(omega * np.asarray(x) / np.sqrt(2.0))
                                      - np.cosh(b * t)))
    return u / np.sqrt(2.0)


def nls_bound_state(x: FloatArray, t: float) -> Array:
    """The Satsuma–Yajima bound state of two solitons, ψ(x, 0) = √2 sech(x/√2), of the focusing NLS
    i ψ_t + ψ_xx + 2|ψ|²ψ = 0 (κ = −1): a breather centred at x = 0.

    In the normalisation i u_t + ½u_xx + |u|²u = 0 with u(X, 0) = 2 sech X (Satsuma & Yajima, Prog. Theor.
    Phys. Suppl. 55 (1974)):
        u(X, t) = 4 e^{it/2} (cosh 3X + 3 e^{4it} cosh X) / (cosh 4X + 4 cosh 2X + 3 cos 4t),
    ψ(x, t) = u(x/√2, t)/√2 as for ``nls_akhmediev``. |ψ| breathes with period π/2: at t = π/4 (mod π/2) the
    pulse narrows to a peak twice its initial height with a phase dip either side, then returns. The tails
    decay as e^{−|x|/√2}: a periodic domain of length L is exact up to ≈ e^{−L/(2√2)}.
    """
    X = np.asarray(x) / np.sqrt(2.0)
    num = np.cosh(3.0 * X) + 3.0 * np.exp(4j * t) * np.cosh(X)
    den = np.cosh(4.0 * X) + 4.0 * np.cosh(2.0 * X) + 3.0 * np.cos(4.0 * t)
    return 4.0 * np.exp(0.5j * t) * num / den / np.sqrt(2.0)


def akhmediev_period(a: float = 0.25) -> float:
    """The spatial period L = 2π√2/Ω = π√2/√(1 − 2a) of ``nls_akhmediev``."""
    return float(np.pi * np.sqrt(2.0) / np.sqrt(1.0 - 2.0 * a))


if TYPE_CHECKING:  # mypy checks NLS against the protocols the driver and the methods check at run time
    from lgbeam.systems import (
        HasDiscreteGradient,
        HasEnergyParts,
        HasExactStage,
        HasFusedField,
        HasJacobian,
        HasL2Mass,
        HasSpectralInvariants,
        HasSpectralRadius,
        HasStageLinearisation,
        SpectralPoissonSystem,
    )

    def _meets_protocols(s: NLS) -> tuple[SpectralPoissonSystem, HasDiscreteGradient, HasJacobian,
                                          HasFusedField, HasExactStage, HasStageLinearisation, HasL2Mass,
                                          HasEnergyParts, HasSpectralRadius, HasSpectralInvariants]:
        return (s, s, s, s, s, s, s, s, s, s)
