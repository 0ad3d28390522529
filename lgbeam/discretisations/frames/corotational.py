"""The corotational cubic beam element (``model.element = "corotational"``): a two-node 3-D Euler–Bernoulli
beam, cubic (Hermite) in bending and linear in axial stretch and torsion, in a frame that moves with the element
(Crisfield 1990; Crisfield 1997 vol. 2 §17.4–17.6; Battini & Pacoste 2002 for the 3-D variations; the
formulation of OpenSees' ``Corotational`` transformation). Large displacements and rotations, small strains.

Nodes stay on the Lie group: node i carries q_i = (p_i, x_i) ∈ S³⋉R³ (unit quaternion, position), perturbed by
left translations q_i ∘ exp(ε w_i), w_i = (ω_i, u_i) in the node's body frame (δθ_spatial = R_i ω_i,
δx_i = R_i u_i), exactly as the Cosserat rods of ``lgbeam.discretisations.rods``; so the static path follower,
modes and buckling run a ``CorotationalStructure`` as they run a ``Structure`` of rods.

Element e = (a, b), reference length l₀, reference frame R_e⁰ (e₃ along the chord, e₁, e₂ the section axes of
the member = the directors d₁, d₂ of the reference nodes), node offsets c_a = p_e⁰* p_a⁰ (identity for a
straight member):

    corrected node rotations   p̂_a = p_a c_a*,  p̂_b = p_b c_b*           (both equal p_e⁰ at the reference)
    mean rotation              p_m = (p̂_a + p̂_b)/|p̂_a + p̂_b|           (the geodesic midpoint; Crisfield)
    element frame              p_e = s(m₃ → e₃) p_m,  e₃ = (x_b − x_a)/l,  l = |x_b − x_a|
                               (s: the smallest rotation taking the mean frame's third axis m₃ onto the chord)
    local deformations         d = (l − l₀, θ_a, θ_b),  θ_k = log(p_e* p̂_k) ∈ R³       (7 numbers)
    strain energy              V_e = ½ dᵀ K_l d,  K_l: EA/l₀ on l − l₀; GJ/l₀ [1 −1; −1 1] on (θ_a3, θ_b3);
                               EI_k/l₀ [4 2; 2 4] on (θ_ak, θ_bk), k = 1, 2
    nodal forces (body frame)  g_e = Bᵀ K_l d,  B = ∂d/∂(w_a, w_b)   (7 × 12)
    tangent                    K_e = Bᵀ K_l B + Σ_m (K_l d)_m ∂²d_m/∂w²

B and the tangent run in closed form, compiled, one pass over all elements (``_corot_compiled``: the variations of
the mean rotation, the smallest rotation onto the chord and the logs, stated there; the tangent is the complex step
of that closed form, exact to round-off). The numpy functions here are the reference: B by complex-step
differentiation of d (every operation above is complex-analytic; the rotation log uses its Taylor series near
zero), exact to round-off (Squire & Trapp 1998), and the geometric part Σ_m s_m ∂B_m/∂w by the central difference
of that B along q ∘ exp(±ε e_k), ε = 1e-5 rad (1e-5 l₀ for translations): truncation O(ε²) ≈ 1e-10 relative,
round-off 1e-16/ε ≈ 1e-11 (docs/frames.md, "The corotational element"). With nodal loads only,
``CorotationalStructure.newton_residual`` fuses the element pass with the mass's velocity terms, the loads, the
supports and the joints in one compiled call (``_compiled.corot_residual``).

Mass (``model.mass``): "lumped" = the rods' diagonal lumped mass; "consistent" (default) = the cubic Hermite
consistent mass of translations and bending rotary inertia (Rayleigh beam) plus the linear axial and torsional
ones, built at the reference by Gauss quadrature (Przemieniecki 1968 §11; Cook et al. 2002 §11.3) and turned
into the nodes' body frames, where it stays constant: T = ½ vᵀMv is exact for rigid motions of each element and
differs from the true kinetic energy by the relative rotation of an element's nodes (small strains: small).
Dynamics use its Euler–Poincaré velocity terms (``CorotationalStructure.gyroscopic``).

Consistent loads: distributed loads (spatial frame) and gravity add to the trapezoidal nodal forces the potential
V₂ of the cubic shape (``load_potential``), whose gradient is the fixed-end moments ±(l₀²/12) e₃ × w; the
member's section resultants are the free-body cuts at the element ends with each element's load share
(``CorotationalStructure.resultants``).

References
----------
Crisfield (1990) CMAME 81 131 "A consistent co-rotational formulation for non-linear, three-dimensional,
beam-elements"; Crisfield (1997) Non-linear FE analysis of solids and structures vol. 2 ch. 17; Battini &
Pacoste (2002) CMAME 191 1755 "Co-rotational beam elements with warping effects in instability problems";
de Souza (2000) PhD thesis, UC Berkeley (OpenSees ``CorotCrdTransf3d``); Squire & Trapp (1998) SIAM Rev. 40 110
(complex step).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from lgbeam._numba import resolve
from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods.loads import TimeFunction

from . import _corot_compiled as _cc
from .structure import Structure

MASS_KINDS = ("consistent", "lumped")
CS_STEP = 1e-30  # complex step: no subtractive cancellation, so any tiny step is exact to round-off
FD_EPS = 1e-5  # central step of the geometric part (rad; times l0 for translations)
_LOG_SERIES = 1e-8  # |v|² below this: the rotation log from its Taylor series (complex step runs through 0)


# ---------------------------------------------------------------------- complex-safe quaternion algebra
def qmul(p: Any, q: Any) -> Any:
    """Hamilton product of (..., 4) quaternions (scalar first), for real or complex entries."""
    pw, px, py, pz = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    qw, qx, qy, qz = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([pw * qw - px * qx - py * qy - pz * qz, pw * qx + px * qw + py * qz - pz * qy,
                     pw * qy - px * qz + py * qw + pz * qx, pw * qz + px * qy - py * qx + pz * qw], axis=-1)


def _cross(a: Any, b: Any) -> Any:
    """a × b over the last axis (broadcasting; real or complex; cheaper than np.cross on small batches)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def qconj(p: Any) -> Any:
    return p * np.array([1.0, -1.0, -1.0, -1.0])


def qrot(p: Any, v: Any) -> Any:
    """R(p) v = v + 2w (u × v) + 2 u × (u × v) for a unit quaternion p = (w, u)."""
    w, u = p[..., :1], p[..., 1:]
    uv = _cross(u, v)
    return v + 2.0 * w * uv + 2.0 * _cross(u, uv)


def _unit(v: Any) -> Any:
    return v / np.sqrt(np.sum(v * v, axis=-1, keepdims=True))


def qlog(p: Any) -> Any:
    """Rotation vector θ of a unit quaternion p = (w, v), Re w > 0: θ = 2 atan(|v|/w) v/|v| (series near 0)."""
    w, v = p[..., 0], p[..., 1:]
    s2 = np.sum(v * v, axis=-1)
    small = np.abs(s2) < _LOG_SERIES
    s = np.sqrt(np.where(small, 1.0, s2))
    r = s2 / (w * w)
    f = np.where(small, (1.0 - r / 3.0 + r * r / 5.0 - r * r * r / 7.0) / w, np.arctan(s / w) / s)
    return 2.0 * f[..., None] * v


def qexp(theta: FloatArray) -> FloatArray:
    """Unit quaternion of a real rotation vector (..., 3)."""
    n = np.linalg.norm(theta, axis=-1, keepdims=True)
    half = 0.5 * n
    sinc = np.where(n > 1e-12, np.sin(half) / np.where(n > 1e-12, n, 1.0), 0.5 - n * n / 48.0)
    return np.concatenate([np.cos(half), sinc * theta], axis=-1)


# ---------------------------------------------------------------------- element kinematics
def element_frame(pa: Any, xa: Any, pb: Any, xb: Any) -> tuple[Any, Any]:
    """(p_e, l): the element frame (the mean rotation turned onto the chord) and the chord length."""
    sign = np.where(np.real(np.sum(pa * pb, axis=-1)) < 0.0, -1.0, 1.0)[..., None]
    pm = _unit(pa + sign * pb)
    dx = xb - xa
    length = np.sqrt(np.sum(dx * dx, axis=-1))
    e3 = dx / length[..., None]
    w, x, y, z = pm[..., 0], pm[..., 1], pm[..., 2], pm[..., 3]
    m3 = np.stack([2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)], axis=-1)
    s = _unit(np.concatenate([(1.0 + np.sum(m3 * e3, axis=-1))[..., None], _cross(m3, e3)], axis=-1))
    return qmul(s, pm), length


def local_deformations(pa: Any, xa: Any, pb: Any, xb: Any, ca: Any, cb: Any, l0: Any) -> Any:
    """d = (l − l₀, θ_a, θ_b) (..., 7) of elements with nodes (p, x) and reference offsets c (module docstring)."""
    ha, hb = qmul(pa, qconj(ca)), qmul(pb, qconj(cb))
    hb = hb * np.where(np.real(np.sum(ha * hb, axis=-1)) < 0.0, -1.0, 1.0)[..., None]
    pe, length = element_frame(ha, xa, hb, xb)
    ra, rb = qmul(qconj(pe), ha), qmul(qconj(pe), hb)
    ra = ra * np.where(np.real(ra[..., :1]) < 0.0, -1.0, 1.0)
    rb = rb * np.where(np.real(rb[..., :1]) < 0.0, -1.0, 1.0)
    return np.concatenate([(length - l0)[..., None], qlog(ra), qlog(rb)], axis=-1)


def _perturbed(pa: Any, xa: Any, pb: Any, xb: Any, eps: Any, scale: Any) -> tuple[Any, Any, Any, Any]:
    """The 12 configurations q ∘ exp(ε e_k) of each element, k = (ω_a, u_a, ω_b, u_b): (..., 12, 4/3) arrays.

    Rotations by the quaternion (1, ε ω/2)/√(1 + ε²/4) (= exp to first order; complex-analytic in ε), translations
    x + ε l₀ R(p) u (``scale`` = l₀ per element): only the first order matters for a complex step or a central
    difference."""
    E = np.eye(3)
    nrm = np.sqrt(1.0 + 0.25 * eps * eps)
    dq = np.concatenate([np.ones((3, 1)), 0.5 * eps * E], axis=1) / nrm  # (3, 4)

    def node(p: Any, x: Any) -> tuple[Any, Any]:
        pr = qmul(p[..., None, :], dq)  # (..., 3, 4)
        xt = x[..., None, :] + eps * scale[..., None, None] * qrot(p[..., None, :], np.broadcast_to(E, p.shape[:-1]
                                                                                                   + (3, 3)))
        P = np.concatenate([pr, np.broadcast_to(p[..., None, :], pr.shape)], axis=-2)  # rot dirs, then trans
        X = np.concatenate([np.broadcast_to(x[..., None, :], xt.shape), xt], axis=-2)
        return P, X

    Pa, Xa = node(pa, xa)
    Pb, Xb = node(pb, xb)
    rep = Pa.shape[:-2]
    pa6, xa6 = np.broadcast_to(pa[..., None, :], rep + (6, 4)), np.broadcast_to(xa[..., None, :], rep + (6, 3))
    pb6, xb6 = np.broadcast_to(pb[..., None, :], rep + (6, 4)), np.broadcast_to(xb[..., None, :], rep + (6, 3))
    return (np.concatenate([Pa, pa6], axis=-2), np.concatenate([Xa, xa6], axis=-2),
            np.concatenate([pb6, Pb], axis=-2), np.concatenate([xb6, Xb], axis=-2))


def _jacobian(pa: Any, xa: Any, pb: Any, xb: Any, l0: Any, ca: Any, cb: Any) -> FloatArray:
    """B = ∂d/∂(ω_a, u_a, ω_b, u_b) (..., 7, 12) by complex step (exact to round-off; translations per length)."""
    h = CS_STEP
    Pa, Xa, Pb, Xb = _perturbed(np.asarray(pa, dtype=complex), np.asarray(xa, dtype=complex),
                                np.asarray(pb, dtype=complex), np.asarray(xb, dtype=complex), 1j * h,
                                np.ones(np.shape(pa)[:-1]))
    d = local_deformations(Pa, Xa, Pb, Xb, np.asarray(ca)[..., None, :], np.asarray(cb)[..., None, :],
                           np.asarray(l0)[..., None])  # (..., 12, 7)
    return np.swapaxes(np.imag(d) / h, -1, -2)


class ElementState(NamedTuple):
    """The elements at one configuration: nodal forces g (n_nodes, 6), element forces g_e (E, 12), local forces
    s = K_l d (E, 7), B (E, 7, 12), tangents K_e (E, 12, 12) or None, strain energy V."""

    g: FloatArray
    g_e: FloatArray
    s: FloatArray
    B: FloatArray
    K_e: FloatArray | None
    V: float


@dataclass(frozen=True)
class Elements:
    """The corotational elements of a structure: global nodes a, b (E,), reference offsets c_a, c_b (E, 4),
    reference lengths l₀ (E,) and stiffness (EA, GJ, EI₁, EI₂) (E, 4)."""

    a: np.ndarray
    b: np.ndarray
    ca: FloatArray
    cb: FloatArray
    l0: FloatArray
    stiff: FloatArray
    compiled: bool = field(default_factory=lambda: resolve(None))

    @cached_property
    def K_local(self) -> FloatArray:
        """K_l (E, 7, 7) on d = (l − l₀, θ_a, θ_b) (module docstring)."""
        EA, GJ, EI1, EI2 = (self.stiff[:, k] / self.l0 for k in range(4))
        K = np.zeros((self.l0.size, 7, 7))
        K[:, 0, 0] = EA
        K[:, 3, 3] = K[:, 6, 6] = GJ
        K[:, 3, 6] = K[:, 6, 3] = -GJ
        for ax, EI in ((0, EI1), (1, EI2)):
            i, j = 1 + ax, 4 + ax
            K[:, i, i] = K[:, j, j] = 4.0 * EI
            K[:, i, j] = K[:, j, i] = 2.0 * EI
        return K

    def nodes(self, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        return q[self.a, :4], q[self.a, 4:], q[self.b, :4], q[self.b, 4:]

    def deformations(self, q: FloatArray) -> FloatArray:
        """d (E, 7) at configuration q (n_nodes, 7)."""
        if self.compiled:
            return _cc.deformations(*self._compiled_args(q))  # type: ignore[no-any-return]
        return np.real(local_deformations(*self.nodes(q), self.ca, self.cb, self.l0))

    def _compiled_args(self, q: FloatArray) -> tuple[FloatArray, np.ndarray, np.ndarray, FloatArray, FloatArray,
                                                      FloatArray]:
        return (np.ascontiguousarray(q, dtype=float), self.a, self.b, self._c["ca"], self._c["cb"], self._c["l0"])

    @cached_property
    def _c(self) -> dict[str, Any]:
        """The constant arrays of the compiled pass, contiguous (built once)."""
        c = np.ascontiguousarray
        return {"ca": c(self.ca, dtype=float), "cb": c(self.cb, dtype=float), "l0": c(self.l0, dtype=float),
                "K": c(self.K_local)}

    def state(self, q: FloatArray, tangent: bool = False) -> ElementState:
        """Forces (and with ``tangent`` the element tangents) at q (n_nodes, 7) in one pass: the compiled closed form
        (``_corot_compiled.element_pass``) or the numpy complex-step reference."""
        if self.compiled:
            g, g_e, s, B, Ke, V = _cc.run_pass(*self._compiled_args(q), self._c["K"], tangent)
            return ElementState(g, g_e, s, B, Ke, V)
        g_e, s, B = self.forces(q)
        g = np.zeros((q.shape[0], 6))
        np.add.at(g, self.a, g_e[:, :6])
        np.add.at(g, self.b, g_e[:, 6:])
        Ke = np.swapaxes(B, 1, 2) @ self.K_local @ B + self.geometric(q, s) if tangent else None
        return ElementState(g, g_e, s, B, Ke, self.energy(q))

    def jacobian(self, q: FloatArray) -> FloatArray:
        """B (E, 7, 12) at q (compiled closed form when numba is on, else the batched numpy complex step)."""
        if self.compiled:
            return self.state(q).B
        return _jacobian(*self.nodes(q), self.l0, self.ca, self.cb)

    def forces(self, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(g_e (E, 12), local forces s = K_l d (E, 7), B (E, 7, 12)) at q."""
        if self.compiled:
            st = self.state(q)
            return st.g_e, st.s, st.B
        B = self.jacobian(q)
        s = (self.K_local @ self.deformations(q)[:, :, None])[:, :, 0]
        return (np.swapaxes(B, 1, 2) @ s[:, :, None])[:, :, 0], s, B

    def geometric(self, q: FloatArray, s: FloatArray) -> FloatArray:
        """K_σ (E, 12, 12) = Σ_m s_m ∂B_m/∂w: compiled, the complex step of the closed-form B (exact to round-off);
        numpy reference: the central difference of the complex-step B along ±e_k (ε = 1e-5)."""
        if self.compiled:
            return _cc.geometric(*self._compiled_args(q), np.ascontiguousarray(s, dtype=float))  # type: ignore[no-any-return]
        pa, xa, pb, xb = self.nodes(q)
        eps = FD_EPS
        n = self.l0.size
        l0 = np.broadcast_to(self.l0[:, None], (n, 12))
        ca, cb = np.broadcast_to(self.ca[:, None, :], (n, 12, 4)), np.broadcast_to(self.cb[:, None, :], (n, 12, 4))
        plus, minus = _perturbed(pa, xa, pb, xb, eps, self.l0), _perturbed(pa, xa, pb, xb, -eps, self.l0)
        Pa, Xa, Pb, Xb = (np.concatenate([u, w], axis=1) for u, w in zip(plus, minus, strict=True))  # (E, 24, ·)
        B2 = _jacobian(Pa, Xa, Pb, Xb, np.concatenate([l0, l0], axis=1), np.concatenate([ca, ca], axis=1),
                       np.concatenate([cb, cb], axis=1))  # (E, 24 dirs, 7, 12)
        dB = (B2[:, :12] - B2[:, 12:]) / (2.0 * eps)  # per unit of ε: rotations per rad, translations per l0
        dB[:, 3:6] /= self.l0[:, None, None, None]
        dB[:, 9:12] /= self.l0[:, None, None, None]
        return np.einsum("em,ekmj->ejk", s, dB)  # K[j, k] = Σ_m s_m ∂B[m, j]/∂w_k

    def tangent(self, q: FloatArray) -> FloatArray:
        """K_e (E, 12, 12) = Bᵀ K_l B + K_σ(s) at q."""
        Ke = self.state(q, tangent=True).K_e
        assert Ke is not None
        return Ke

    def energy(self, q: FloatArray) -> float:
        """½ Σ_e dᵀ K_l d."""
        d = self.deformations(q)
        return float(0.5 * np.einsum("ei,eij,ej->", d, self.K_local, d))


def hermite_mass(l0: Any, rhoA: Any, rhoJ: FloatArray, n_gauss: int = 4) -> FloatArray:
    """Consistent mass (12, 12) of one element in its local frame, dofs (θ_a, u_a, θ_b, u_b) (axis 3 along it):
    T = ½∫ ρA |u̇|² + ρI₁ θ̇₁² + ρI₂ θ̇₂² + ρJ₃ θ̇₃² ds with u₃, θ₃ linear and u₁ (slope θ₂), u₂ (slope −θ₁)
    cubic Hermite; Gauss quadrature (exact: degree ≤ 6 integrands). Batched: ``l0``, ``rhoA`` (n,) and ``rhoJ``
    (n, 3) give (n, 12, 12)."""
    batch = np.ndim(l0) > 0
    l = np.atleast_1d(np.asarray(l0, dtype=float))[:, None]  # (n, 1)
    xg, wg = np.polynomial.legendre.leggauss(n_gauss)
    xi = 0.5 * (xg + 1.0)
    w = 0.5 * wg * l  # (n, g)
    one = np.ones_like(l)
    H = np.stack([one * (1 - 3 * xi**2 + 2 * xi**3), l * (xi - 2 * xi**2 + xi**3), one * (3 * xi**2 - 2 * xi**3),
                  l * (-xi**2 + xi**3)], axis=2)  # (n, g, 4): w = H·(w_a, w'_a, w_b, w'_b)
    dH = np.stack([one * (-6 * xi + 6 * xi**2), l * (1 - 4 * xi + 3 * xi**2), one * (6 * xi - 6 * xi**2),
                   l * (-2 * xi + 3 * xi**2)], axis=2) / l[:, :, None]
    L = np.stack([1 - xi, xi], axis=1)
    n, g = l.shape[0], xi.size
    U, TH = np.zeros((n, g, 3, 12)), np.zeros((n, g, 3, 12))  # displacement and rotation fields per dof
    c1, c2, sg = [3, 1, 9, 7], [4, 0, 10, 6], np.array([1.0, -1.0, 1.0, -1.0])  # dofs: θ at 0..2, u at 3..5 (+6)
    U[:, :, 0, c1] = H  # u₁ from (u_a1, θ_a2, u_b1, θ_b2): slope u₁' = θ₂
    U[:, :, 1, c2] = H * sg  # u₂ from (u_a2, −θ_a1, u_b2, −θ_b1): slope u₂' = −θ₁
    TH[:, :, 1, c1] = dH
    TH[:, :, 0, c2] = -dH * sg
    U[:, :, 2, [5, 11]] = L
    TH[:, :, 2, [2, 8]] = L
    rj = np.asarray(rhoJ, dtype=float).reshape(n, 3)
    ra = np.broadcast_to(np.asarray(rhoA, dtype=float), (n,))
    M = (ra[:, None, None] * np.einsum("ng,ngij,ngik->njk", w, U, U)
         + np.einsum("ng,ni,ngij,ngik->njk", w, rj, TH, TH))
    return M if batch else M[0]


def load_potential(pa: Any, xa: Any, pb: Any, xb: Any, ca: Any, cb: Any, l0: Any, w: Any) -> Any:
    """V₂ (...): the part of the dead-load potential −w·∫x ds of a uniform load w (spatial, per length) that the
    cubic shape adds to the trapezoidal nodal loads: with the local transverse displacements u₁ (slope θ₂) and u₂
    (slope −θ₁) cubic Hermite, ∫u₁ ds = (l₀²/12)(θ_a2 − θ_b2), ∫u₂ ds = −(l₀²/12)(θ_a1 − θ_b1), so
    V₂ = −(l₀²/12) [w̄₁(θ_a2 − θ_b2) − w̄₂(θ_a1 − θ_b1)], w̄ = R_eᵀ w. Its gradient is the consistent end moments,
    ±(l₀²/12) e₃ × w to first order (Przemieniecki 1968 §5.6); being a potential, the tangent stays symmetric at
    equilibrium."""
    d = local_deformations(pa, xa, pb, xb, ca, cb, l0)
    pe = element_frame(qmul(pa, qconj(ca)), xa, qmul(pb, qconj(cb)), xb)[0]
    wl = qrot(qconj(pe), w)
    return -(l0 * l0 / 12.0) * (wl[..., 0] * (d[..., 2] - d[..., 5]) - wl[..., 1] * (d[..., 1] - d[..., 4]))


def _load_gradient(pa: Any, xa: Any, pb: Any, xb: Any, ca: Any, cb: Any, l0: Any, w: Any) -> FloatArray:
    """∂V₂/∂(ω_a, u_a, ω_b, u_b) (..., 12) by complex step (translations per metre)."""
    h = CS_STEP
    Pa, Xa, Pb, Xb = _perturbed(np.asarray(pa, dtype=complex), np.asarray(xa, dtype=complex),
                                np.asarray(pb, dtype=complex), np.asarray(xb, dtype=complex), 1j * h,
                                np.ones(np.shape(pa)[:-1]))
    V = load_potential(Pa, Xa, Pb, Xb, np.asarray(ca)[..., None, :], np.asarray(cb)[..., None, :],
                       np.asarray(l0)[..., None], np.asarray(w)[..., None, :])  # (..., 12)
    return np.imag(V) / h


def consistent_load_blocks(pa: FloatArray, xa: FloatArray, pb: FloatArray, xb: FloatArray, ca: FloatArray,
                           cb: FloatArray, l0: FloatArray, w: FloatArray,
                           tangent: bool = True) -> tuple[FloatArray, FloatArray | None]:
    """(f (E, 12), ∂f/∂w (E, 12, 12)) of the consistent end moments f = −∂V₂/∂w (``load_potential``), body frames:
    f exact by complex step, its derivative the central difference (ε = 1e-5) of that exact f along q ∘ exp(±εe_k)
    (as the geometric part of the element tangent); ``tangent`` False: f only."""
    f = -_load_gradient(pa, xa, pb, xb, ca, cb, l0, w)
    if not tangent:
        return f, None
    n, eps = l0.size, FD_EPS
    plus, minus = _perturbed(pa, xa, pb, xb, eps, l0), _perturbed(pa, xa, pb, xb, -eps, l0)
    Pa, Xa, Pb, Xb = (np.concatenate([u, v], axis=1) for u, v in zip(plus, minus, strict=True))  # (E, 24, ·)
    rep = (n, 24)
    F2 = -_load_gradient(Pa, Xa, Pb, Xb, np.broadcast_to(ca[:, None, :], rep + (4,)),
                         np.broadcast_to(cb[:, None, :], rep + (4,)), np.broadcast_to(l0[:, None], rep),
                         np.broadcast_to(w[:, None, :], rep + (3,)))  # (E, 24, 12)
    dF = (F2[:, :12] - F2[:, 12:]) / (2.0 * eps)  # (E, k, j): along direction k, per unit of ε
    dF[:, 3:6] /= l0[:, None, None]
    dF[:, 9:12] /= l0[:, None, None]
    return f, np.swapaxes(dF, 1, 2)  # K[j, k] = ∂f_j/∂w_k


def check_members(rods: Any) -> None:
    """ValueError (one line) for rods the corotational element cannot take: internal constraints, material damping,
    nodal load weights other than the trapezoidal ones (the element's load shares are w l₀/2 at either end)."""
    for name, r in rods.items():
        if getattr(r, "inertia", "lumped") != "lumped":
            raise ValueError(f"rod {name!r}: the corotational element takes the trapezoidal (inertia = \"lumped\") "
                             f"nodal weights, got inertia = {r.inertia!r}")
        if r.n_internal:
            raise ValueError(f"rod {name!r}: the corotational element carries no internal constraints; build its "
                             "rods with kirchhoff = inextensible = False")
        if r.material.has_damping:
            raise ValueError(f"rod {name!r}: material damping is not supported by the corotational element yet; "
                             "set model.material.damping = 0 (or use model.element = \"cosserat\")")


@dataclass(frozen=True, kw_only=True)
class CorotationalStructure(Structure):
    """A ``Structure`` whose rods are meshes of corotational cubic beam elements (module docstring): the rods give
    the nodes, sections, supports, loads, point masses and joints; their edges become elements. The rods must be
    built without internal constraints (``kirchhoff = inextensible = False``) and without material damping.

    Python API::

        frame = CorotationalStructure(rods={...}, joints=(...), mass_kind="consistent")
    """

    mass_kind: str = "consistent"
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mass_kind not in MASS_KINDS:
            raise ValueError(f"model.mass = {self.mass_kind!r} is not one of {', '.join(MASS_KINDS)}")
        check_members(dict(self.rods))

    # ------------------------------------------------------------------ elements
    @cached_property
    def elements(self) -> Elements:
        o = self.node_offsets
        a = np.concatenate([o[k] + np.arange(r.n_nodes - 1) for k, r in enumerate(self.members)]).astype(np.int64)
        q0 = self._q(self.q_ref)
        pa, xa, pb, xb = q0[a, :4], q0[a, 4:], q0[a + 1, :4], q0[a + 1, 4:]
        pe, l0 = element_frame(pa, xa, pb, xb)
        pe = np.real(pe)
        l0 = np.real(l0)
        ca, cb = qmul(qconj(pe), pa), qmul(qconj(pe), pb)
        stiff = np.concatenate([np.repeat([[r.material.C_Gamma[2], r.material.C_K[2], r.material.C_K[0],
                                            r.material.C_K[1]]], r.n_nodes - 1, axis=0) for r in self.members])
        return Elements(a=a, b=a + 1, ca=ca, cb=cb, l0=l0, stiff=stiff, compiled=self.compiled)

    @property
    def _fused(self) -> None:  # type: ignore[override]
        return None  # no fused Cosserat kernel (``_corot_fused`` is this element's)

    @cached_property
    def _corot_fused(self) -> dict[str, Any] | None:
        """The constant arguments of ``_compiled.corot_residual``, or None where the reference path is needed (numpy
        kernels, loads other than nodal ones: distributed loads and gravity carry consistent end moments)."""
        base = Structure._fused.func(self)  # type: ignore[attr-defined]  # the rods' supports, joints, nodal loads
        if base is None or any(r.n_internal for r in self.members):
            return None
        el = self.elements
        M = sp.csr_array(self.mass(self.q_ref))
        funcs: list[Any] = []  # the loads' distinct time functions (equal tables evaluated once per time)
        inv = []
        for ld in base["loads_list"]:
            f = ld.time
            same = [k for k, g in enumerate(funcs) if isinstance(f, TimeFunction) and f.kind != "callable"
                    and isinstance(g, TimeFunction) and g == f]
            if not same:
                funcs.append(f)
            inv.append(same[0] if same else len(funcs) - 1)
        moving = any(r.support_rows.has_springs and r.support_rows.rheonomic for r in self.members)
        return {**base, "moving_springs": moving, "time_functions": (tuple(funcs), np.array(inv, dtype=np.intp)),
                "elements": (el.a, el.b, el._c["ca"], el._c["cb"], el._c["l0"], el._c["K"]),
                "mass": (M.indptr.astype(np.int64), M.indices.astype(np.int64), np.ascontiguousarray(M.data, dtype=float))}

    @property
    def rheonomic(self) -> bool:
        """Whether a support row follows a prescribed motion (the rods', read once: it is asked every iteration)."""
        hit = self._cache.get("rheonomic")
        if hit is None:
            hit = self._cache["rheonomic"] = Structure.rheonomic.fget(self)  # type: ignore[attr-defined]
        return bool(hit)

    def _load_scale(self, t: float, fused: dict[str, Any]) -> FloatArray:
        """−(time factor) of every nodal load at t, memoised on t (a step's Newton iterations share it)."""
        hit = self._cache.get("scale")
        if hit is None or hit[0] != t:
            funcs, inv = fused["time_functions"]
            hit = (t, -np.array([f(t) for f in funcs])[inv] if inv.size else fused["no_scale"])
            self._cache["scale"] = hit
        return hit[1]  # type: ignore[no-any-return]

    def newton_residual(self, t: float, q: FloatArray, v: FloatArray,
                        lam: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """(g, Bᵀλ, Φ, B v + Φ_t) at (t, q, v, λ) (``HasNewtonResidual``): with compiled kernels and nodal loads only,
        one compiled pass over the elements, the mass's velocity terms, the loads, supports and joints
        (``frames._compiled.corot_residual``; springs added after; the elements' state memoised for the tangent and
        the energy); otherwise the protocol methods (the numpy reference)."""
        fused = self._corot_fused
        if fused is None:
            return super().newton_residual(t, q, v, lam)
        from ._compiled import corot_residual

        qa = self._q(q)
        V = np.ascontiguousarray(v, dtype=float).reshape(self.n_nodes, 6)
        lam = np.ascontiguousarray(lam, dtype=float)
        sup, jr = fused["supports"], self.joint_rows
        base = sup.base(t) if sup is not None else fused["no_base"]
        scale = self._load_scale(t, fused)
        n_el = self.elements.l0.size
        g_el, g_e, s_e, B_e = np.zeros((self.n_nodes, 6)), np.empty((n_el, 12)), np.empty((n_el, 7)), np.empty((n_el, 7, 12))
        g, f, phi, bv, energy = corot_residual(
            qa, V, lam, *fused["elements"], *fused["mass"], *fused["support_nodes"], base.p, base.R, base.x,
            *fused["support_rows"], jr.ia, jr.ib, jr.c0, jr.row_entry, jr.row_rot, jr.row_dir, fused["joint_row"],
            *fused["loads"], scale, g_el, g_e, s_e, B_e)
        self._cache["state"] = (qa.tobytes(), ElementState(g_el, g_e, s_e, B_e, None, float(energy)))
        return self._residual_rest(t, qa, v, sup, g, f, phi, bv)

    def _element_state(self, q: FloatArray, tangent: bool = False) -> ElementState:
        """The elements' forces (and tangents) at q, memoised on the last configuration (forces and tangents at the
        same q: one pass)."""
        qa = self._q(q)
        key = qa.tobytes()
        hit = self._cache.get("state")
        if hit is None or hit[0] != key or (tangent and hit[1].K_e is None):
            hit = (key, self.elements.state(qa, tangent))
            self._cache["state"] = hit
        return hit[1]  # type: ignore[no-any-return]

    def elastic_forces(self, q: FloatArray) -> FloatArray:
        """∂V/∂w of all elements, flat (6 n_nodes,)."""
        return self._element_state(q).g.ravel()

    def element_tangents(self, q: FloatArray) -> FloatArray:
        Ke = self._element_state(q, tangent=True).K_e
        assert Ke is not None
        return Ke

    # ------------------------------------------------------------------ protocol
    @cached_property
    def _consistent_mass(self) -> sp.csr_array:
        el = self.elements
        rhoA = np.concatenate([np.full(r.n_nodes - 1, r.material.rhoA) for r in self.members])
        rhoJ = np.concatenate([np.repeat(r.material.rhoJ[None, :], r.n_nodes - 1, axis=0) for r in self.members])
        Me = hermite_mass(el.l0, rhoA, rhoJ)  # (n_el, 12, 12)
        # local dofs = R(c)ᵀ... : local = R_e0ᵀ R_a0 (body) = R(c_a) (body)
        Ta, Tb = _qmat(el.ca), _qmat(el.cb)
        T = np.zeros((el.l0.size, 12, 12))
        for blk, R in ((0, Ta), (1, Ta), (2, Tb), (3, Tb)):
            T[:, 3 * blk:3 * blk + 3, 3 * blk:3 * blk + 3] = R
        Me = np.swapaxes(T, 1, 2) @ Me @ T
        pm = np.zeros((self.n_nodes, 6))
        for k, r in enumerate(self.members):  # point masses and inertia (lumped, body frame)
            for p in r.point_masses:
                i = int(self.node_offsets[k]) + r.mesh.node_index(p.node)
                pm[i, :3] += p.inertia
                pm[i, 3:] += p.mass
        return sp.csr_array(self._assemble(Me, np.einsum("ni,ij->nij", pm, np.eye(6))))

    # ------------------------------------------------------------------ loads on the elements
    def load_density(self, t: float, which: str = "all") -> tuple[FloatArray, FloatArray] | None:
        """(w_s, w_b) (E, 3): the uniform load per length on every element at t, spatial (distributed loads in the
        spatial frame, and ρA g) and body-frame (follower distributed loads); None without such loads. ``which``:
        "all", "gravity" or "distributed" (the loads counted)."""
        from lgbeam.discretisations.rods import DistributedLoad, Gravity

        ws, wb, e0, any_load = np.zeros((self.elements.l0.size, 3)), np.zeros((self.elements.l0.size, 3)), 0, False
        for r in self.members:  # a loop over members and their load objects
            e1 = e0 + r.n_nodes - 1
            for load in r.loads:
                if isinstance(load, DistributedLoad) and which != "gravity":
                    (ws if load.frame == "spatial" else wb)[e0:e1] += load.time(t) * load.force
                    any_load = True
                elif isinstance(load, Gravity) and which != "distributed":
                    ws[e0:e1] += r.material.rhoA * load.acceleration
                    any_load = True
            e0 = e1
        return (ws, wb) if any_load else None

    def _consistent_loads(self, t: float, q: FloatArray, tangent: bool = True,
                          which: str = "all") -> tuple[FloatArray, Any] | None:
        """(f_e (E, 12), ∂f_e/∂w (E, 12, 12) or None without ``tangent``): the elements' consistent end moments of
        the spatial loads (``which``, as ``load_density``), body frame (``consistent_load_blocks``), or None."""
        dens = self.load_density(t, which)
        if dens is None or not np.any(dens[0]):
            return None
        el = self.elements
        return consistent_load_blocks(*el.nodes(self._q(q)), el.ca, el.cb, el.l0, dens[0], tangent)

    def external_forces(self, t: float, q: FloatArray) -> FloatArray:
        """The rods' nodal loads (trapezoidal forces of distributed loads and gravity) plus the consistent end
        moments ±(l₀²/12) e₃ × w of every element: the cubic element's consistent load vector."""
        f = super().external_forces(t, q)
        cl = self._consistent_loads(t, q, tangent=False)
        if cl is None:
            return f
        out = f.reshape(self.n_nodes, 6).copy()
        el = self.elements
        np.add.at(out, el.a, cl[0][:, :6])
        np.add.at(out, el.b, cl[0][:, 6:])
        return out.ravel()

    def load_stiffness(self, t: float, q: FloatArray) -> sp.csr_array:
        """∂f/∂w of the nodal loads and of the consistent end moments (f enters g as −f)."""
        cl = self._consistent_loads(t, q)
        return self._assemble(None if cl is None else cl[1], self._load_blocks(t, q))

    def end_load_shares(self, t: float, q: FloatArray) -> FloatArray:
        """The loads each element carries to its end nodes (E, 12), body frames: (M_a, w l₀/2, M_b, w l₀/2) with the
        consistent end moments M and the spatial/follower load densities w; zero without distributed loads."""
        el = self.elements
        out = np.zeros((el.l0.size, 12))
        dens = self.load_density(t)
        if dens is None:
            return out
        qa = self._q(q)
        R = self.G.rotation(qa)
        half = 0.5 * el.l0[:, None]
        out[:, 3:6] = half * (np.einsum("eji,ej->ei", R[el.a], dens[0]) + dens[1])
        out[:, 9:12] = half * (np.einsum("eji,ej->ei", R[el.b], dens[0]) + dens[1])
        cl = self._consistent_loads(t, q, tangent=False)
        if cl is not None:
            out += cl[0]
        return out

    def mass(self, q: FloatArray) -> sp.csr_array:
        """The lumped (diagonal, the rods') or consistent (constant, at the reference) mass (``mass_kind``)."""
        return self._mass if self.mass_kind == "lumped" else self._consistent_mass

    def forces(self, t: float, q: FloatArray, v: FloatArray) -> FloatArray:
        """g(t, q, v) = ∂V/∂w (elements) + velocity terms of the mass + springs − loads (+ C v of damping by ratio,
        + the ground's effective loads, as ``Structure.forces``)."""
        qa = self._q(q)
        g = self.elastic_forces(qa)
        vv = np.asarray(v, dtype=float).ravel()
        if np.any(vv):
            g = g + self.gyroscopic(vv)
        if self.loads:
            g = g - self.external_forces(t, qa)
        if (sup := self._rows_batch["supports"]) is not None and sup.has_springs:
            g = g + sup.spring_forces(t, qa).ravel()
        if self.joint_rows.has_springs:
            g = g + self.joint_rows.spring_forces(qa).ravel()
        if self.viscous is not None:
            g = g + self.viscous.force(vv)
        if self.ground is not None:
            g = g + self.ground.force(t, self.G.rotation(qa)).ravel()
        return g

    def _element_blocks(self, q: FloatArray, v: FloatArray | None) -> FloatArray:
        return self.element_tangents(q)

    def gyroscopic(self, v: FloatArray) -> FloatArray:
        """The velocity terms of T = ½ vᵀMv with M constant in the nodes' body frames (flat, 6n): the
        Euler–Poincaré equations on the nodes' S³⋉R³, μ̇ − ad*_v μ = f with μ = M v = (π_i, p_i) per node, give
        (W×π + U×p, W×p) at node i (Holm, Marsden & Ratiu 1998; Simo & Vu-Quoc 1988 for the rod). With the lumped
        (diagonal) M this is the rods' (W×JW, m W×U); M couples the nodes of an element, and T is exact for rigid
        motions of the element (its frames turn together), up to the relative rotations of its nodes otherwise."""
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        P = np.asarray(self.mass(self.q_ref) @ V.ravel()).reshape(self.n_nodes, 6)
        W, U, pi, p = V[:, :3], V[:, 3:], P[:, :3], P[:, 3:]
        return np.concatenate([_cross(W, pi) + _cross(U, p), _cross(W, p)], axis=1).ravel()

    def damping(self, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """D = ∂/∂v of the gyroscopic terms (``gyroscopic``; no material damping; plus C of damping by ratio): per node
        [[−π̂, −p̂], [−p̂, 0]] + [[Ŵ, Û], [0, Ŵ]] (M v)' (the second a block row times M)."""
        from lgbeam.groups.base import hat3

        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        M = self.mass(self.q_ref)
        P = np.asarray(M @ V.ravel()).reshape(self.n_nodes, 6)
        A, H = np.zeros((self.n_nodes, 6, 6)), np.zeros((self.n_nodes, 6, 6))
        hp = hat3(P[:, 3:])
        A[:, :3, :3], A[:, :3, 3:], A[:, 3:, :3] = -hat3(P[:, :3]), -hp, -hp
        hw = hat3(V[:, :3])
        H[:, :3, :3], H[:, :3, 3:], H[:, 3:, 3:] = hw, hat3(V[:, 3:]), hw
        n = self.n_nodes
        Hb = sp.bsr_array((H, np.arange(n), np.arange(n + 1)), shape=(6 * n, 6 * n)).tocsr()
        D = self._assemble(None, A) + Hb @ M
        return sp.csr_array(D if self.viscous is None else D + self.viscous.matrix())

    def stiffness(self, t: float, q: FloatArray, v: FloatArray) -> sp.csr_array:
        """K = element tangents − ∂f/∂q + springs (the gyroscopic terms do not depend on q)."""
        loads, cl = self._load_blocks(t, q), self._consistent_loads(t, q)
        Ke = self.element_tangents(q)
        K = self._assemble(Ke if cl is None else Ke - cl[1], None if loads is None else -loads)
        return self._with_joint_springs(self._with_support_springs(K, t, q), q)

    def stress_stiffness(self, t: float, q: FloatArray, dq: FloatArray) -> sp.csr_array:
        """K_σ of the first-order local forces s₁ = K_l B dq (linear buckling, ``rods.modal``): the geometric part of
        the element tangent at q with s = s₁ (the material part's change along dq is left out, as for the rods)."""
        qa = self._q(q)
        el = self.elements
        B = el.jacobian(qa)
        W = np.asarray(dq, dtype=float).reshape(self.n_nodes, 6)
        de = (B @ np.concatenate([W[el.a], W[el.b]], axis=1)[:, :, None])[:, :, 0]
        s1 = (el.K_local @ de[:, :, None])[:, :, 0]
        K = self._assemble(el.geometric(qa, s1), None)
        jr = self.joint_rows
        if not jr.has_springs:
            return K
        from lgbeam.discretisations.rods import tangents as rod_tangents

        dK = rod_tangents.directional_derivative(lambda qq: jr.assemble(jr.spring_stiffness_blocks(self._q(qq))),
                                                 self.G, self._q(q), dq, self.length_scale)
        return sp.csr_array(K + dK)

    def static_retraction(self, q: FloatArray, dw: FloatArray) -> FloatArray:
        """q "∘" δw for the static path: rotations p_i ∘ exp(ω_i); every chord c = x_b − x_a is stretched by
        ε = c·δc/|c|² and turned by φ = c × δc/|c|² (δc = R_b u_b − R_a u_a), and the positions follow from each
        rod's anchor node (moved by R u) by sums of the new chords. Agrees with q_i ∘ exp(δw_i) to first order (so
        Newton stays quadratic) but turns the elements along arcs: a large rotation increment does not stretch the
        stiff chords by O(θ²) (the role ``rods.statics.strain_update`` plays for the rods)."""
        G = self.G
        qa = self._q(q)
        W = np.asarray(dw, dtype=float).reshape(self.n_nodes, 6)
        x = G.translation(qa)
        dx = np.einsum("nij,nj->ni", G.rotation(qa), W[:, 3:])
        out = np.empty_like(qa)
        out[:, :4] = G.compose(qa, G.exp(np.concatenate([W[:, :3], np.zeros((self.n_nodes, 3))], axis=1)))[:, :4]
        el = self.elements
        c, dc = x[el.b] - x[el.a], dx[el.b] - dx[el.a]
        c2 = np.sum(c * c, axis=1, keepdims=True)
        eps, phi = np.sum(c * dc, axis=1, keepdims=True) / c2, np.cross(c, dc) / c2
        c_new = (1.0 + eps) * (_qmat(qexp(phi)) @ c[:, :, None])[:, :, 0]
        e0 = 0
        for k, r in enumerate(self.members):  # a loop over members (their chords summed vectorised)
            o, n = int(self.node_offsets[k]), r.n_nodes
            P = np.concatenate([np.zeros((1, 3)), np.cumsum(c_new[e0:e0 + n - 1], axis=0)])
            a = self._anchors[k]
            out[o:o + n, 4:] = (x[o + a] + dx[o + a]) + P - P[a]
            e0 += n - 1
        return out

    def resultants(self, q: FloatArray, lam: FloatArray | None, v: FloatArray | None = None, *, t: float = 0.0,
                   load_factor: float = 1.0) -> list[Any]:
        """Section resultants of every rod, the free-body cuts at the element ends: element e (internal forces g_e,
        its loads' shares s_e = ``end_load_shares``) gets −(g − s) from its nodes, so the section wrench at its ends
        (the part beyond the cut on the part before it, body frame, about the node) is W_a = −(g_a − s_a),
        W_b = g_b − s_b (``rods.resultants.from_end_wrenches``; the rods' convention). The member's end row is then
        the cut at its end, with the load on the element next to it: a statically determinate beam gives qL/2 to
        round-off. λ and v are not needed (no constraint forces or damping in the elements); t and ``load_factor``: the
        loads' time and the static path's factor on them."""
        from lgbeam.discretisations.rods.resultants import from_end_wrenches

        qa = self._q(q)
        g_e = self._element_state(qa).g_e - load_factor * self.end_load_shares(t, qa)
        out, e0 = [], 0
        for r, qr in zip(self.members, self.split_q(qa), strict=True):
            ge = g_e[e0:e0 + r.n_nodes - 1]
            out.append(from_end_wrenches(self.G, qr, -ge[:, :6], ge[:, 6:]))
            e0 += r.n_nodes - 1
        return out

    def potential_energy(self, q: FloatArray, t: float = 0.0) -> float:
        """Strain energy of the elements + support and joint springs + gravity (the nodal masses' −m g·x and the
        consistent part V₂ of ``load_potential``); other loads do work through ``external_power``."""
        qa = self._q(q)
        from lgbeam.discretisations.rods import Gravity

        V = self._element_state(qa).V if self.compiled else self.elements.energy(qa)
        total = V + self.joint_rows.spring_energy(qa)
        fused = self._corot_fused
        if fused is not None:  # nodal loads only: no gravity; springs through the merged support rows
            sup = fused["supports"]
            return float(total + (sup.spring_energy(t, qa) if sup is not None and sup.has_springs else 0.0))
        grav = self.load_density(t, "gravity")
        if grav is not None:
            el = self.elements
            total += float(np.sum(np.real(load_potential(*el.nodes(qa), el.ca, el.cb, el.l0, grav[0]))))
        for r, qr in zip(self.members, self.split_q(qa), strict=True):
            total += r.support_rows.spring_energy(t, qr)
            for load in r.loads:
                if isinstance(load, Gravity):
                    total -= float(np.sum(r.node_mass * (self.G.translation(qr) @ load.acceleration)))
        return float(total)

    def external_power(self, t: float, q: FloatArray, v: FloatArray) -> float | None:
        """The rods' load power plus that of the consistent end moments of the distributed loads (gravity's are in
        ``potential_energy``)."""
        fused = self._corot_fused
        if fused is not None and not fused["moving_springs"]:
            return self._nodal_power(t, q, v, fused)
        p = super().external_power(t, q, v)
        cl = self._consistent_loads(t, q, tangent=False, which="distributed")
        if p is None or cl is None:
            return p
        el, V = self.elements, np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        return p + float(np.sum(cl[0][:, :6] * V[el.a]) + np.sum(cl[0][:, 6:] * V[el.b]))

    def _nodal_power(self, t: float, q: FloatArray, v: FloatArray, fused: dict[str, Any]) -> float:
        """Σ f·v of the nodal loads (body frame, compiled; the rods' ``external_power`` with nodal loads only) plus
        the ground's power."""
        from lgbeam.discretisations.rods import compiled_kernels as rk

        qa = self._q(q)
        V = np.asarray(v, dtype=float).reshape(self.n_nodes, 6)
        f = np.zeros((self.n_nodes, 6))
        if fused["loads_list"]:
            idx, vec, spatial = fused["loads"]
            rk.add_nodal_loads(f, qa, idx, vec, spatial, -self._load_scale(t, fused))
        p = float(np.einsum("ij,ij->", f, V))
        if self.ground is not None:
            p += self.ground.power(t, self.G.rotation(qa), v)
        return p

    def momenta(self, q: FloatArray, v: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(linear, angular about the origin) spatial momentum of T = ½vᵀMv: Σ R_i p_i and Σ R_i π_i + x_i × R_i p_i
        with (π_i, p_i) = (Mv)_i (the conserved Noether momenta of the Euler–Poincaré equations, any M)."""
        qa = self._q(q)
        R, x = self.G.rotation(qa), self.G.translation(qa)
        P = np.asarray(self.mass(qa) @ np.asarray(v, dtype=float).ravel()).reshape(self.n_nodes, 6)
        lin = np.einsum("nij,nj->ni", R, P[:, 3:])
        return lin.sum(axis=0), (np.einsum("nij,nj->ni", R, P[:, :3]) + np.cross(x, lin)).sum(axis=0)

    def linear_momentum(self, q: FloatArray, v: FloatArray) -> FloatArray:
        return self.momenta(q, v)[0]

    def angular_momentum(self, q: FloatArray, v: FloatArray) -> FloatArray:
        return self.momenta(q, v)[1]

    def kinetic_energy(self, v: FloatArray) -> float:
        vv = np.asarray(v, dtype=float).ravel()
        return float(0.5 * vv @ (self.mass(self.q_ref) @ vv))


def _qmat(p: FloatArray) -> FloatArray:
    """Rotation matrices (..., 3, 3) of real unit quaternions."""
    from lgbeam.groups.base import quat_to_matrix

    return quat_to_matrix(np.ascontiguousarray(p, dtype=float))
