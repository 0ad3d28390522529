"""Homogeneous spaces with a Lie algebra action: the manifolds of seed 000's Lie group integrators.

A homogeneous space M of a Lie group G carries a transitive action ψ: G × M → M, written g·m. Methods of
the RKMK, commutator-free and Crouch–Grossman families need only (seed 000 §2, eqs. (1)–(3), (6)–(8)):

    exp_act(ξ, m)   ψ(exp(ξ), m)                       the action of the exponential of ξ ∈ g
    generator(ξ, m) ψ_*(ξ)|_m = d/dt ψ(exp(tξ), m)|₀    (2)
    dexp_inv(σ, v)  dexp⁻¹_σ(v) = Σ_k B_k/k! ad_σ^k v    (8), right-trivialised: d/dt exp(σ) = dexp_σ(σ') exp(σ)
    bracket(x, y)   [x, y] = ad_x y

Points and algebra elements are flat float arrays (``size`` and ``dim`` entries), so the spaces compose
into direct products (``ProductSpace``) without reshaping. Every space validates points against its
defining equations (``validate``, tolerance ``MANIFOLD_TOL``) and reports their residuals (``deviation``).

Spaces (seed 000 §4 table; notes/000.md §4, §9):

``Translation(n)``     Rⁿ acting on itself by addition (the linear parts of the quadrotor state);
``CoadjointSO3``       SO(3) on so(3)* = R³, g·μ = g μ, generator ξ × μ (free rigid body, Example 1);
``CoadjointSE3``       SE(3) on se(3)* ∋ (Π, Γ), (g, u)·(Π, Γ) = (gΠ + u × gΓ, gΓ), generator
                       (ξ × Π + u × Γ, ξ × Γ) = −ad*_(ξ,u)(Π, Γ) (heavy top, Lie–Poisson form (23)–(24));
``TangentSpheres(n)``  SE(3)ⁿ on (TS²)ⁿ ∋ (q_i, w_i), (A, a)·(q, w) = (Aq, Aw + a × Aq), generator
                       (u × q, u × w + v × q) (the N-fold pendulum, §5.1); one vectorised call over links;
``LeftMultiplication`` a matrix group acting on itself, g·m = g m, generator ξ^ m (e.g. SO(3) attitudes);
``ProductSpace``       the direct product of any of these (the quadrotor space R⁶ × (SO(3) × R³)² × (TS²)²).

SE(3) elements are pairs (A, a) with (A₁, a₁)(A₂, a₂) = (A₁A₂, A₁a₂ + a₁); exp(u, v) = (exp(û), V(u) v),
V(u) = dexp_u on so(3) = T(−u) of lgbeam's left-trivialised tangent operator (notes/000.md §2.4). The
right-trivialised dexp⁻¹_σ is T(−σ)⁻¹ in lgbeam's convention; se(3) uses the φ(ad) template of seed 000
§2.3 (``dexp_inv_se3``), checked against the integral formula and against T(−σ)⁻¹ in tests/test_lie_spaces.py.

References
----------
Celledoni, Cokaj, Leone, Murari & Owren (2022), seed 000 §2–§5, eqs. (1)–(8) and the se(3) template of
§2.3; Munthe-Kaas (1998); Celledoni & Owren (2003) for the so(3) formula; notes/000.md §2–§4, §9.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.groups import _series as sr
from lgbeam.groups.base import cross
from lgbeam.groups.so3 import exp_so3, tangent_so3_apply

logger = logging.getLogger(__name__)

MANIFOLD_TOL = 1e-10
"""Accepted residual of a point's defining equations in ``validate``: | |q| − 1 | and |q·w| / (1 + |w|) on
TS², ‖RᵀR − I‖ on SO(3). Lie group methods keep them at round-off (≤ 1e-13 over 10³ steps, tests), so
1e-10 only rejects a state that is off the manifold, never drift; nothing is projected silently."""

# Bernoulli numbers B_k / k! of dexp⁻¹ = z/(eᶻ − 1) (seed 000 eq. (8)), k = 0 … 10
BERNOULLI_OVER_FACTORIAL = (1.0, -0.5, 1 / 12, 0.0, -1 / 720, 0.0, 1 / 30240, 0.0, -1 / 1209600, 0.0,
                            1 / 47900160)


def _flat(name: str, what: str, a: Any, n: int) -> FloatArray:
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: {what} must be a float array of {n} entries; got {type(a).__name__} ({exc})") from None
    if arr.shape != (n,):
        raise ValueError(f"{name}: {what} must be a flat array of {n} entries, got shape {arr.shape}; "
                         f"flatten it (points and algebra elements are stored flat, see the space's docstring)")
    return arr


def _finite(name: str, what: str, arr: FloatArray) -> None:
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: {what} has non-finite entries (index {int(np.argmin(np.isfinite(arr)))})")


# --- so(3) and se(3) maps -----------------------------------------------------------------------------


def dexp_inv_so3(u: FloatArray, v: FloatArray) -> FloatArray:
    """Exact ``dexp⁻¹_u v = v − ½ u × v + g₂(|u|) u × (u × v)``, g₂(α) = (1 − (α/2) cot(α/2))/α².

    Seed 000 §2.3 ([8] Celledoni & Owren 2003); α = |u| (undefined in the extraction, notes/000.md §7
    item 1). Vectorised over leading axes; g₂ through its Taylor branch near 0 (``_series.tinv_c``).
    """
    g2 = _coefficients(np.sqrt(np.einsum("...i,...i->...", u, u)))[..., 3:4]
    uv = cross(u, v)
    return v - 0.5 * uv + g2 * cross(u, uv)


def bracket_se3(x: FloatArray, y: FloatArray) -> FloatArray:
    """``[(A, a), (B, b)] = (A × B, A × b + a × B)`` on (..., 6) (rotation first; notes/000.md §2.3)."""
    A, a, B, b = x[..., :3], x[..., 3:], y[..., :3], y[..., 3:]
    return np.concatenate([cross(A, B), cross(A, b) + cross(a, B)], axis=-1)


def dexp_inv_se3(x: FloatArray, y: FloatArray) -> FloatArray:
    """Exact right-trivialised ``dexp⁻¹_x y`` on se(3) by the φ(ad) template of seed 000 §2.3.

    For x = (A, a), y = (B, b), φ(z) = z/(eᶻ − 1): φ(0) = 1, g₁ = −½, g̃₁ = 0, g₂(α) = (1 − (α/2)cot(α/2))/α²,
    g̃₂ = g₂'(α)/α, α = |A|, ρ = A·a, and

        C = B − ½ A × B + g₂ A × (A × B)
        c = b − ½ (a × B + A × b) + ρ g̃₂ A × (A × B) + g₂ (a × (A × B) + A × (a × B) + A × (A × b)).

    g₂ and g̃₂ are ``_series.tinv_c`` and ``_series.tinv_d`` (the same functions; g̃₂ = d checked
    symbolically), each with a Taylor branch near α = 0. Vectorised over leading axes.
    """
    A, a, B, b = x[..., :3], x[..., 3:], y[..., :3], y[..., 3:]
    k = _coefficients(np.sqrt(np.einsum("...i,...i->...", A, A)))
    rho = np.einsum("...i,...i->...", A, a)[..., None]
    g2, g2t = k[..., 3:4], k[..., 4:5]
    AB = cross(A, B)
    AAB = cross(A, AB)
    C = B - 0.5 * AB + g2 * AAB
    c = (b - 0.5 * (cross(a, B) + cross(A, b)) + rho * g2t * AAB
         + g2 * (cross(a, AB) + cross(A, cross(a, B)) + cross(A, cross(A, b))))
    return np.concatenate([C, c], axis=-1)


def exp_se3_pair(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``exp(u, v) = (exp(û), V(u) v)``, V(u) = I + (1 − cos t)/t² û + (t − sin t)/t³ û² (notes/000.md §2.4)."""
    u, v = x[..., :3], x[..., 3:]
    return exp_so3(u), tangent_so3_apply(-u, v)


def dexp_inv_series(bracket: Any, sigma: FloatArray, v: FloatArray, degree: int) -> FloatArray:
    """Truncated ``dexp⁻¹_σ v ≈ Σ_{k=0}^{degree} B_k/k! ad_σ^k v`` for any algebra with a bracket (eq. (8)).

    ``degree`` is the highest power of ad kept (0: v; 1: v − ½[σ, v]; 2: + 1/12 [σ, [σ, v]]; …, ≤ 10). For
    an RKMK method of order p the terms up to degree p − 2 suffice (σ = O(h); Munthe-Kaas 1999).
    """
    if not (isinstance(degree, (int, np.integer)) and 0 <= degree < len(BERNOULLI_OVER_FACTORIAL)):
        raise ValueError(f"dexp_inv_series: degree must be an integer in 0..{len(BERNOULLI_OVER_FACTORIAL) - 1} "
                         f"(highest power of ad kept), got {degree!r}")
    out = np.array(v, dtype=float)
    term = out
    for k in range(1, degree + 1):
        term = bracket(sigma, term)
        if BERNOULLI_OVER_FACTORIAL[k]:
            out = out + BERNOULLI_OVER_FACTORIAL[k] * term
    return out


# --- the spaces ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Translation:
    """Rⁿ acting on itself by translation: exp_act(ξ, m) = m + ξ, dexp⁻¹ = identity, abelian."""

    n: int

    def __post_init__(self) -> None:
        if not isinstance(self.n, (int, np.integer)) or isinstance(self.n, bool) or self.n < 1:
            raise ValueError(f"Translation: n must be a positive integer (the dimension), got {self.n!r}")

    @property
    def name(self) -> str:
        return f"R{self.n}"

    @property
    def dim(self) -> int:
        return int(self.n)

    @property
    def size(self) -> int:
        return int(self.n)

    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return m + xi

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return np.array(xi, dtype=float)

    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray:
        return np.array(v, dtype=float)

    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray:
        return np.zeros(np.broadcast_shapes(np.shape(x), np.shape(y)))

    def validate(self, m: Any) -> FloatArray:
        arr = _flat(self.name, "point", m, self.size)
        _finite(self.name, "point", arr)
        return arr

    def deviation(self, m: FloatArray) -> dict[str, float]:
        return {}


@dataclass(frozen=True)
class CoadjointSO3:
    """SO(3) on so(3)* = R³ by g·μ = g μ (= Ad*_{g⁻¹} μ); generator ξ × μ; orbits are spheres |μ| = const.

    Seed 000 Example 1. The free rigid body μ' = μ × I⁻¹μ has f(μ) = −I⁻¹μ in this action (the printed
    ψ_*(I⁻¹μ) has the opposite sign; notes/000.md §2.2, §7 item 2).
    """

    @property
    def name(self) -> str:
        return "so3*"

    @property
    def dim(self) -> int:
        return 3

    @property
    def size(self) -> int:
        return 3

    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return exp_so3(xi) @ m

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return cross(xi, m)

    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray:
        return dexp_inv_so3(sigma, v)

    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray:
        return cross(x, y)

    def validate(self, m: Any) -> FloatArray:
        arr = _flat(self.name, "point μ", m, 3)
        _finite(self.name, "point μ", arr)
        return arr

    def deviation(self, m: FloatArray) -> dict[str, float]:
        return {}


_SWITCH = 1.5
"""|u| below which the five scalar functions of ``_coefficients`` come from their Taylor polynomials (14 terms
in t²; the closed forms lose ≤ 3e-14 relative at t = 1.5, the polynomials ≤ 1e-15; tests/test_lie_spaces.py)."""
_N_TERMS = 14
_NAMES = ("sinc", "cosm1_x2", "x_sin_x3", "tinv_c", "tinv_d")
_SIGNS = (1.0, -1.0, 1.0, 1.0, 1.0)  # (1 − cos t)/t² = −cosm1_x2
_TABLE = np.array([[sg * float(sr.EXACT_SERIES[nm][2 * k]) for nm, sg in zip(_NAMES, _SIGNS)]
                   for k in range(_N_TERMS)])
_POWERS = np.arange(_N_TERMS)


def _closed(t: FloatArray) -> FloatArray:
    """The five functions of ``_coefficients`` by their closed forms (t ≥ ``_SWITCH``)."""
    st, ct, sh, ch = np.sin(t), np.cos(t), np.sin(0.5 * t), np.cos(0.5 * t)
    t2 = t * t
    return np.stack([st / t, 2 * sh * sh / t2, (t - st) / (t2 * t), (1 - 0.5 * t * ch / sh) / t2,
                     (t * st + 4 * ct + t2 - 4) / (4 * sh * sh * t2 * t2)], axis=-1)


def _series_table(y: FloatArray) -> FloatArray:
    """Σ_k _TABLE[k] yᵏ for the five functions: one power table and a matrix product for a few links,
    Horner on (n, 5) rows for many (where 14 elementwise powers per link would dominate)."""
    if y.size <= 256:
        return (y[..., None] ** _POWERS) @ _TABLE
    out = np.broadcast_to(_TABLE[-1], y.shape + (5,)).copy()
    yy = y[..., None]
    for row in _TABLE[-2::-1]:
        out *= yy
        out += row
    return out


def _coefficients(t: FloatArray) -> FloatArray:
    """(..., 5): sin t/t, (1 − cos t)/t², (t − sin t)/t³, g₂(t), g̃₂(t) of t = |u| ≥ 0 (t < 2π).

    g₂ = (1 − (t/2)cot(t/2))/t² and g̃₂ = g₂'(t)/t are the functions of the se(3) dexp⁻¹ template; the
    first three those of Rodrigues' formula and of V(u) = dexp_u. One power table and one matrix product
    below ``_SWITCH``, the closed forms above it.
    """
    t = np.asarray(t, dtype=float)
    small = t < _SWITCH
    series = _series_table(t * t) if small.any() else None
    if series is not None and small.all():
        return series
    closed = _closed(np.where(small, _SWITCH, t))
    return closed if series is None else np.where(small[..., None], series, closed)


def _act_pairs(u: FloatArray, v: FloatArray, p: FloatArray, r: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(A p, A r + a × A p) for (A, a) = exp(u, v), over leading axes: TS² and the se(3)* coadjoint action.

    Vector Rodrigues A x = x + s u × x + c u × (u × x) and a = V(u) v = v + c u × v + d u × (u × v)
    (notes/000.md §2.4), no 3 × 3 matrices.
    """
    k = _coefficients(np.sqrt(np.einsum("...i,...i->...", u, u)))
    s, c, d = k[..., None, 0:1], k[..., None, 1:2], k[..., None, 2:3]
    X = np.stack([p, r, v], axis=-2)  # three vectors, one cross product per level
    U = u[..., None, :]
    UX = cross(U, X)
    UUX = cross(U, UX)
    AX = X[..., :2, :] + s * UX[..., :2, :] + c * UUX[..., :2, :]
    Ap, Ar = AX[..., 0, :], AX[..., 1, :]
    a = v + c[..., 0, :] * UX[..., 2, :] + d[..., 0, :] * UUX[..., 2, :]
    return Ap, Ar + cross(a, Ap)


@dataclass(frozen=True)
class CoadjointSE3:
    """SE(3) on se(3)* ∋ (Π, Γ) by (g, u)·(Π, Γ) = (gΠ + u × gΓ, gΓ) = Ad*_{(g,u)⁻¹}(Π, Γ).

    Generator ψ_*(ξ, u)|_(Π,Γ) = (ξ × Π + u × Γ, ξ × Γ) = −ad*_(ξ,u)(Π, Γ); the Casimirs |Γ| and Π·Γ are
    invariant under the action (seed 000 §3.4.2; notes/000.md §4 table). The heavy top (23)–(24) takes
    f(Π, Γ) = −(I⁻¹Π, M g l X) (notes §5.2: the sign of (18) with this action, §7 item 3).
    """

    @property
    def name(self) -> str:
        return "se3*"

    @property
    def dim(self) -> int:
        return 6

    @property
    def size(self) -> int:
        return 6

    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        gG, gPi = _act_pairs(xi[:3], xi[3:], m[3:], m[:3])
        return np.concatenate([gPi, gG])

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        w, u, Pi, G = xi[:3], xi[3:], m[:3], m[3:]
        return np.concatenate([cross(w, Pi) + cross(u, G), cross(w, G)])

    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray:
        return dexp_inv_se3(sigma, v)

    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray:
        return bracket_se3(x, y)

    def validate(self, m: Any) -> FloatArray:
        arr = _flat(self.name, "point (Π, Γ)", m, 6)
        _finite(self.name, "point (Π, Γ)", arr)
        return arr

    def deviation(self, m: FloatArray) -> dict[str, float]:
        return {}


@dataclass(frozen=True)
class TangentSpheres:
    """(TS²)ⁿ under SE(3)ⁿ: points [q₁, w₁, …, qₙ, wₙ] (6n,), |q_i| = 1, q_i·w_i = 0, q_i' = w_i × q_i.

    Action per link (A, a)·(q, w) = (Aq, Aw + a × Aq) (the adjoint action of SE(3) restricted to TS²,
    seed 000 §5.1), generator ψ_*(u, v)|_(q,w) = (u × q, u × w + v × q); algebra [u₁, v₁, …] (6n,).
    Every map is one vectorised call over the n links.
    """

    n: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.n, (int, np.integer)) or isinstance(self.n, bool) or self.n < 1:
            raise ValueError(f"TangentSpheres: n must be a positive integer (number of spheres), got {self.n!r}")

    @property
    def name(self) -> str:
        return f"(TS2)^{self.n}"

    @property
    def dim(self) -> int:
        return 6 * int(self.n)

    @property
    def size(self) -> int:
        return 6 * int(self.n)

    def _pairs(self, x: FloatArray) -> FloatArray:
        return x.reshape(x.shape[:-1] + (int(self.n), 2, 3))

    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        X, P = self._pairs(xi), self._pairs(m)
        q, w = _act_pairs(X[..., 0, :], X[..., 1, :], P[..., 0, :], P[..., 1, :])
        return np.stack([q, w], axis=-2).reshape(m.shape)

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        X, P = self._pairs(xi), self._pairs(m)
        u, v, q, w = X[..., 0, :], X[..., 1, :], P[..., 0, :], P[..., 1, :]
        return np.stack([cross(u, q), cross(u, w) + cross(v, q)], axis=-2).reshape(m.shape)

    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray:
        return dexp_inv_se3(sigma.reshape(-1, 6), v.reshape(-1, 6)).reshape(v.shape)

    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray:
        return bracket_se3(x.reshape(-1, 6), y.reshape(-1, 6)).reshape(np.shape(y))

    def residuals(self, m: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(|q_i| − 1, q_i·w_i) per link, (n,) each: the defining equations of TS²."""
        P = self._pairs(np.asarray(m, dtype=float))
        q, w = P[..., 0, :], P[..., 1, :]
        return np.linalg.norm(q, axis=-1) - 1.0, np.einsum("...i,...i->...", q, w)

    def validate(self, m: Any) -> FloatArray:
        """Flat (6n,), finite, | |q_i| − 1 | ≤ MANIFOLD_TOL and |q_i·w_i| ≤ MANIFOLD_TOL (1 + |w_i|)."""
        arr = _flat(self.name, "point [q1, w1, ..., qn, wn]", m, self.size)
        _finite(self.name, "point", arr)
        dq, qw = self.residuals(arr)
        w = self._pairs(arr)[..., 1, :]
        if np.any(np.abs(dq) > MANIFOLD_TOL):
            i = int(np.argmax(np.abs(dq)))
            raise ValueError(f"{self.name}: q_{i + 1} is not a unit vector (| |q| − 1 | = {abs(dq[i]):.3e} > "
                             f"{MANIFOLD_TOL:g}); normalise every q_i (q / |q|)")
        bad = np.abs(qw) > MANIFOLD_TOL * (1.0 + np.linalg.norm(w, axis=-1))
        if np.any(bad):
            i = int(np.argmax(bad))
            raise ValueError(f"{self.name}: w_{i + 1} is not tangent to q_{i + 1} (q·w = {qw[i]:.3e}, tolerance "
                             f"{MANIFOLD_TOL:g}·(1 + |w|)); use w − (q·w) q")
        return arr

    def deviation(self, m: FloatArray) -> dict[str, float]:
        dq, qw = self.residuals(m)
        return {"unit_q": float(np.abs(dq).max()), "q_dot_w": float(np.abs(qw).max())}


@dataclass(frozen=True)
class LeftMultiplication:
    """A matrix Lie group acting on itself from the left, g·m = g m; points flat (row-major) matrices.

    ``group`` is an lgbeam matrix group with ``hat`` (SO3, SE3, …). Generator ξ^ m; right-trivialised
    dexp⁻¹_σ = T(−σ)⁻¹ and [x, y] = ad_x y from the group's own maps (lgbeam's left-trivialised T,
    docs/conventions.md: T(ξ) = dexp_{−ξ}).
    """

    group: Any

    def __post_init__(self) -> None:
        for attr in ("hat", "exp", "compose", "tangent_inv_apply", "ad", "validate"):
            if not hasattr(self.group, attr):
                raise ValueError(f"LeftMultiplication: group must be an lgbeam matrix group (missing {attr!r}), "
                                 f"got {type(self.group).__name__}")

    @property
    def name(self) -> str:
        return f"{self.group.name}(left)"

    @property
    def dim(self) -> int:
        return int(self.group.dim)

    @cached_property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.group.param_shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return (self.group.exp(xi) @ m.reshape(self.shape)).ravel()

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return (self.group.hat(xi) @ m.reshape(self.shape)).ravel()

    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray:
        return self.group.tangent_inv_apply(-sigma, v)

    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray:
        return self.group.ad(x) @ y

    def validate(self, m: Any) -> FloatArray:
        arr = _flat(self.name, "point (flattened group element)", m, self.size)
        _finite(self.name, "point", arr)
        self.group.validate(arr.reshape(self.shape))
        return arr

    def deviation(self, m: FloatArray) -> dict[str, float]:
        R = m.reshape(self.shape)
        k = 3 if self.shape[-1] in (3, 4) else self.shape[-1]
        Q = R[:k, :k]
        return {f"orthogonality_{self.group.name}": float(np.abs(Q.T @ Q - np.eye(k)).max())}


@dataclass(frozen=True)
class ProductSpace:
    """The direct product M₁ × … × M_k under G₁ × … × G_k, acting factor by factor (seed 000 §4, §5.4).

    Points are the concatenated flat points, algebra elements the concatenated algebra elements.
    """

    factors: tuple[Any, ...]
    _cuts: tuple[tuple[slice, slice], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.factors:
            raise ValueError("ProductSpace: give at least one factor space")
        cuts, i, j = [], 0, 0
        for f in self.factors:
            for attr in ("exp_act", "generator", "dexp_inv", "bracket", "validate", "dim", "size"):
                if not hasattr(f, attr):
                    raise ValueError(f"ProductSpace: factor {f!r} is not a homogeneous space (missing {attr!r})")
            cuts.append((slice(i, i + f.dim), slice(j, j + f.size)))
            i, j = i + f.dim, j + f.size
        object.__setattr__(self, "factors", tuple(self.factors))
        object.__setattr__(self, "_cuts", tuple(cuts))

    @property
    def name(self) -> str:
        return " × ".join(f.name for f in self.factors)

    @cached_property
    def dim(self) -> int:
        return int(sum(f.dim for f in self.factors))

    @cached_property
    def size(self) -> int:
        return int(sum(f.size for f in self.factors))

    def _map_points(self, fn: str, xi: FloatArray, m: FloatArray) -> FloatArray:
        return np.concatenate([getattr(f, fn)(xi[a], m[p]) for f, (a, p) in zip(self.factors, self._cuts)])

    def _map_algebra(self, fn: str, x: FloatArray, y: FloatArray) -> FloatArray:
        return np.concatenate([getattr(f, fn)(x[a], y[a]) for f, (a, _) in zip(self.factors, self._cuts)])

    def exp_act(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return self._map_points("exp_act", xi, m)

    def generator(self, xi: FloatArray, m: FloatArray) -> FloatArray:
        return self._map_points("generator", xi, m)

    def dexp_inv(self, sigma: FloatArray, v: FloatArray) -> FloatArray:
        return self._map_algebra("dexp_inv", sigma, v)

    def bracket(self, x: FloatArray, y: FloatArray) -> FloatArray:
        return self._map_algebra("bracket", x, y)

    def validate(self, m: Any) -> FloatArray:
        arr = _flat(self.name, "point", m, self.size)
        for f, (_, p) in zip(self.factors, self._cuts):
            f.validate(arr[p])
        return arr

    def deviation(self, m: FloatArray) -> dict[str, float]:
        out: dict[str, float] = {}
        for k, (f, (_, p)) in enumerate(zip(self.factors, self._cuts)):
            for key, val in f.deviation(m[p]).items():
                out[key if key not in out else f"{key}_{k}"] = val
        return out

    def part(self, k: int, m: FloatArray) -> FloatArray:
        """The point of factor k inside the product point m."""
        return m[self._cuts[k][1]]


__all__ = [
    "BERNOULLI_OVER_FACTORIAL",
    "MANIFOLD_TOL",
    "CoadjointSE3",
    "CoadjointSO3",
    "LeftMultiplication",
    "ProductSpace",
    "TangentSpheres",
    "Translation",
    "bracket_se3",
    "cross",
    "dexp_inv_se3",
    "dexp_inv_series",
    "dexp_inv_so3",
    "exp_se3_pair",
]
