"""Static equilibrium paths of a rod: Newton with line search and load-step cut-back, arc-length
continuation through limit points, the stability of every converged state, bifurcation detection and
branch switching along the critical mode.

Equations, with the load factor μ scaling the external loads f (body frame) at time t:

    R(q, λ, μ) = g_int(q) − μ f(t, q) + B(q)ᵀ λ = 0,    Φ(q) = 0                       (equilibrium)
    K_t = ∂R/∂q = K_int − μ ∂f/∂q + Z(q, λ)                                        (``tangents.py``, exact)
    [[K_t, Bᵀ], [B, 0]] [δw; δλ] = −[R; Φ],   q ← q ∘ exp(α δw), λ ← λ + α δλ       (Newton, sparse LU)

* Line search: α = 1, ½, ¼, … until the merit m = ‖R/F‖² + ‖Φ/L‖² decreases by the Armijo factor
  (1 − 10⁻⁴ α) (the Newton direction is a descent direction of m because K_t is exact; Dennis & Schnabel
  1996 §6.3). F: the load scale (largest |f|, or EI/L when unloaded), L: the rod length.
* Load control (``method="newton"``): μ goes 0 → 1 in ``load_steps`` increments; a failed step is cut back
  (halved, at most ``max_cutbacks`` times in a row) and restarted from the last converged state, and the
  increment grows again (× 1.5, never above the initial one) after easy steps (≤ 4 iterations).
* Arc length (``method="arc-length"``, Riks 1979 with Ramm's updated normal plane): the predictor follows the
  tangent t = (δw_f, 1)/‖·‖ with K_t δw_f = f on ker B, oriented along the previous step; the corrector solves
  R = 0, Φ = 0 together with tᵀ(Δw, Δμ) = Δs (weighted norm: rotations in rad, translations / L), by the
  bordered two-solve scheme with one factorisation. Δs adapts like the load step.
* Stability: the number of negative eigenvalues of K_t on ker B (``stability.negative_count``: banded inertia
  of the saddle-point matrix); a state with any is "unstable" (never plain "ok").
* Bifurcation or limit point: the count changes between two states. The critical mode φ (eigenvector of K_t
  on ker B with the eigenvalue nearest zero) tells which: φ ⟂ f at a bifurcation, φ·f ≠ 0 at a limit point
  (Wriggers 2008 §7.4). A bifurcation is first bracketed by bisection on the load factor with converged states
  (a single big step may jump over several critical points); its load is then located by regula falsi on that
  eigenvalue inside the bracket.
  Branch switching (Riks 1984; Wagner & Wriggers 1988): the critical mode φ (the eigenvector of K_t on ker B
  with the eigenvalue nearest 0) at the bracket's lower state gives the predictor q ∘ exp(τ φ) there, corrected
  with the constraint φᵀΔw = τ (which excludes the fundamental branch); the path then continues on the new branch.

The path is a ``StaticPath``: every converged state with its load factor, iterations, residual, number of
negative eigenvalues and status, the events (bifurcations, limit points), and a table for CSV.

References
----------
Riks (1979) IJSS 15 529, eqs. (3.1)–(3.6); Ramm (1981), "Strategies for tracing the nonlinear response near
limit points"; Crisfield (1991) Non-linear FE analysis of solids and structures vol. 1, §9.3–9.5;
Wagner & Wriggers (1988) Eng. Comput. 5 103 (branch switching); Dennis & Schnabel (1996) §6.3 (line search).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lgbeam._typing import FloatArray

from . import stability, statics_core, tangents
from .modal import RodSystem
from .rod import CosseratRod

logger = logging.getLogger(__name__)

METHODS = ("newton", "arc-length")
BRACKET_RTOL = 1e-3  # bisection of a change of stability down to this relative width of the load-factor bracket
BRACKET_SOLVES = 20  # ... or this many Newton solves (each from the last state with the old stability count)
BIFURCATION_TOL = 1e-3  # |φ·f| / (|φ| |f|) below this: the critical mode is orthogonal to the loads (bifurcation)
LIMIT_XTOL = 1e-7  # a limit point's path parameter (a fraction of its step) located to this
LIMIT_SPREAD = 1e-3  # ... and the parabola's other two points at least this far from it on either side (Brent)
CRITICAL_ITERS = 60  # inverse iterations for the critical mode (compiled core) before ARPACK takes over
CRITICAL_RTOL = 1e-10  # ... converged when the eigenvalue estimate changes by less than this (relative)
LIMIT_SOLVES = 12  # regula falsi on the slope dμ/dθ: at most this many solves per limit point
STEP_TOL = 1e-11  # a Newton correction this small (rad, or length / L) is round-off: converged if R is near tol
COMPILED_CORE = True  # a compiled corotational frame runs the compiled statics core (frames.compiled_statics)


@dataclass(frozen=True)
class StaticState:
    """One converged equilibrium: configuration q (N+1, 7), multipliers λ, load factor μ, Newton iterations,
    scaled residual, the number of negative eigenvalues of the tangent on ker B (``n_negative``) and of
    (near-)zero ones (``n_zero``)."""

    q: FloatArray
    lam: FloatArray
    load_factor: float
    iterations: int
    residual: float
    n_negative: int
    n_zero: int = 0
    branch: int = 0

    @property
    def stable(self) -> bool:
        return self.n_negative == 0 and self.n_zero == 0

    @property
    def status(self) -> str:
        return "ok" if self.stable else ("unstable" if self.n_negative else "critical")


@dataclass(frozen=True)
class PathEvent:
    """A bifurcation or limit point between states ``after − 1`` and ``after`` of the path, at load factor
    ``load_factor``. A bifurcation is bracketed by converged states at ``lower`` (the stability count of state
    ``after − 1``) and ``upper`` (a different count): bisection on the load factor, then regula falsi on the
    critical eigenvalue inside the bracket (``lower`` = ``upper`` = nan where no bracket was refined: a
    bifurcation reached with the load falling). A limit point is located as the extremum of the load factor
    along the path inside the step (``_Path.limit``): ``converged`` is the load factor of the converged state
    there (state ``after − 1``, inserted into the path), ``load_factor`` the vertex of the parabola through it and
    its two neighbours, and [``lower``, ``upper``] the two (nan where the extremum was not found: the midpoint of
    the step)."""

    kind: str
    after: int
    load_factor: float
    mode: FloatArray | None = field(default=None, repr=False)
    lower: float = float("nan")
    upper: float = float("nan")
    converged: float = float("nan")  # a located limit point: the load factor of the converged state at it

    def describe(self) -> str:
        """``"bifurcation at load factor 0.285 (bracketed in [0.2849, 0.2852])"``: the status message's words."""
        if self.kind == "limit point" and np.isfinite(self.converged):
            return (f"limit point at load factor {self.load_factor:.8g} (the converged state at it: "
                    f"{self.converged:.8g})")
        text = f"{self.kind} at load factor {self.load_factor:.6g}"
        if np.isfinite(self.lower) and np.isfinite(self.upper):
            text += f" (bracketed in [{self.lower:.6g}, {self.upper:.6g}])"
        return text


@dataclass(frozen=True)
class StaticPath:
    """The states of a load path (``states[0]`` is the start), its status and message, and its events."""

    states: tuple[StaticState, ...]
    status: str
    message: str
    events: tuple[PathEvent, ...] = ()
    cutbacks: int = 0

    @property
    def final(self) -> StaticState:
        return self.states[-1]

    @property
    def n_steps(self) -> int:
        return len(self.states) - 1

    def table(self, G: Any, node: int = -1) -> dict[str, FloatArray]:
        """Columns for path.csv: step, load factor, position of ``node``, iterations, residual, n_negative, branch."""
        x = np.array([G.translation(s.q[node]) for s in self.states])
        return {
            "step": np.arange(len(self.states), dtype=float),
            "load_factor": np.array([s.load_factor for s in self.states]),
            "x": x[:, 0], "y": x[:, 1], "z": x[:, 2],
            "iterations": np.array([s.iterations for s in self.states], dtype=float),
            "residual": np.array([s.residual for s in self.states]),
            "n_negative": np.array([s.n_negative for s in self.states], dtype=float),
            "branch": np.array([s.branch for s in self.states], dtype=float),
        }


HUGE_DEFLECTION = 1e3  # a load whose linear deflection exceeds this many sizes of the structure is a wrong input


class _Equations:
    """R, Φ and the Newton matrix of one rod at time t, with the scales of the merit and norms."""

    def __init__(self, rod: RodSystem, t: float) -> None:
        self.rod, self.t = rod, t
        self.n, self.m = 6 * rod.n_nodes, rod.n_constraints
        self.zero = np.zeros(self.n)
        if isinstance(rod, tangents.SplitTangents):  # a structure of several rods (lgbeam.discretisations.frames)
            self.L, self.F = float(rod.length_scale), float(rod.force_scale(t))
        else:
            self.L = float(rod.mesh.length)
            f = rod.external_forces(t, rod.q_ref)
            self.F = max(float(np.max(np.abs(f), initial=0.0)), float(np.max(rod.material.C_K)) / self.L)
        # norm weights: rotations in rad, translations / L, root mean square over the nodes (N-independent)
        self.w = np.tile(np.concatenate([np.ones(3), np.full(3, 1.0 / self.L)]), rod.n_nodes) / np.sqrt(rod.n_nodes)
        self.kkt = statics_core.BandedKKT(self.n, self.m)
        self._last: dict[str, tuple[FloatArray, FloatArray, float, Any]] = {}
        self.fast: Any = None  # the compiled core (frames.compiled_statics.CompiledStatics), where it applies
        if COMPILED_CORE and getattr(rod, "_corot_fused", None) is not None:
            cache: dict[Any, Any] = getattr(rod, "_cache")  # noqa: B009  # a CorotationalStructure's memo: one order and
            # core per frame and time (critical_mode builds the equations again)
            hit = cache.get(("statics core", t))
            if hit is None:
                from lgbeam.discretisations.frames.compiled_statics import CompiledStatics

                q0 = np.asarray(rod.q_ref, dtype=float).reshape(rod.n_nodes, 7)
                self.kkt.assemble(*self.parts(q0, np.zeros(self.m), 0.0))  # fixes the bandwidth-reducing order
                assert self.kkt.pos is not None
                hit = cache[("statics core", t)] = (self.kkt, CompiledStatics.build(rod, t, self.kkt.pos, self.w,
                                                                                    self.L, self.F))
            self.kkt, self.fast = hit

    def load(self, q: FloatArray) -> FloatArray:
        if self.fast is not None:
            return self.fast.load(q)  # type: ignore[no-any-return]
        return self.rod.external_forces(self.t, q)

    def residual(self, q: FloatArray, lam: FloatArray, mu: float) -> tuple[FloatArray, FloatArray]:
        if self.fast is not None:
            return self.fast.residual(q, lam, mu)  # type: ignore[no-any-return]
        rod = self.rod
        r = rod.forces(self.t, q, self.zero)  # g_int − f
        if rod.loads and mu != 1.0:
            r = r + (1.0 - mu) * self.load(q)
        if self.m:
            r = r + rod.constraint_jacobian_t(self.t, q).T @ lam
            return r, rod.constraints_t(self.t, q)
        return r, np.zeros(0)

    def merit(self, r: FloatArray, phi: FloatArray) -> float:
        return float(np.sum((r / self.F) ** 2) + np.sum((phi / self.L) ** 2))

    def size(self, r: FloatArray, phi: FloatArray) -> float:
        """Scaled residual max(|R|/F, |Φ|/L)."""
        return max(float(np.max(np.abs(r))) / self.F, float(np.max(np.abs(phi), initial=0.0)) / self.L)

    def parts(self, q: FloatArray, lam: FloatArray, mu: float) -> tuple[list[tuple[float, sp.csr_array]], sp.csr_array]:
        """The terms (coefficient, CSR) of K_t = K_int − μ ∂f/∂q + Z(λ), and B, at (q, λ, μ)."""
        rod = self.rod
        fused = getattr(rod, "static_tangent_parts", None)
        if fused is not None:  # a structure: its terms in few fixed-pattern CSR matrices
            return fused(self.t, q, lam, mu), sp.csr_array(rod.constraint_jacobian_t(self.t, q))
        parts = [(1.0, sp.csr_array(tangents.internal_stiffness(rod, q, t=self.t)))]
        if rod.loads:
            parts.append((-mu, sp.csr_array(tangents.load_stiffness(rod, self.t, q))))
        if self.m:
            parts.append((1.0, sp.csr_array(tangents.constraint_stiffness(rod, self.t, q, lam))))
            return parts, sp.csr_array(rod.constraint_jacobian_t(self.t, q))
        return parts, sp.csr_array((0, self.n))

    def tangent(self, q: FloatArray, lam: FloatArray, mu: float) -> tuple[sp.csr_array, sp.csr_array]:
        """(K_t, B) at (q, λ, μ)."""
        parts, B = self.parts(q, lam, mu)
        K = parts[0][1]
        for c, P in parts[1:]:
            K = K + c * P
        return sp.csr_array(K).tocsr(), B

    def system(self, q: FloatArray, lam: FloatArray, mu: float, pin: bool = False) -> Any:
        """The banded LU of the KKT matrix at (q, λ, μ) (``statics_core``), None when singular; the last one is
        kept, and the last ``pin``ned one (a converged state's), so its stability count and the next step's
        predictor share one assembly, also after a failed (cut-back) step."""
        for last in self._last.values():
            if last[2] == mu and np.array_equal(last[0], q) and np.array_equal(last[1], lam):
                return last[3]
        if self.fast is not None:
            f = self.fast.factor(q, lam, mu)
        else:
            parts, B = self.parts(q, lam, mu)
            f = statics_core.KKTFactor(self.kkt, *self.kkt.assemble(parts, B))
        out = f if f.ok else None
        self._last["pinned" if pin else "recent"] = (np.array(q, copy=True), np.array(lam, copy=True), mu, out)
        return out

    def count(self, q: FloatArray, lam: FloatArray, mu: float) -> tuple[int, int]:
        """(negative, zero) eigenvalues of K_t on ker B at (q, λ, μ) from the factorisation's band."""
        f = self.system(q, lam, mu, pin=True)
        if f is None:  # an exactly singular KKT matrix: the sparse route, which says how many are zero
            K, B = self.tangent(q, lam, mu)
            return stability.negative_count(K, B, self.rod.mass(q))
        return f.inertia(lambda: self.rod.mass(q), lambda: self.tangent(q, lam, mu))

    def factor(self, K: sp.csr_array, B: sp.csr_array) -> Any:
        A = sp.block_array([[K, B.T], [B, None]], format="csc") if self.m else K.tocsc()
        try:
            lu = spla.splu(A)
        except RuntimeError:
            return None
        return lu

    def perturb(self, q: FloatArray, dw: FloatArray) -> FloatArray:
        """The strain retraction (``strain_update``) anchored at the first supported node."""
        if self.fast is not None:
            return self.fast.perturb(q, dw)  # type: ignore[no-any-return]
        if isinstance(self.rod, tangents.SplitTangents):
            return self.rod.static_retraction(q, dw)
        return strain_update(self.rod, q, dw, self.anchor(self.rod))

    def anchor(self, rod: CosseratRod) -> int:
        if rod.n_constraints == rod.n_internal:
            return 0
        B = sp.csr_array(rod.constraint_jacobian_t(self.t, rod.q_ref))
        return int(B[[rod.n_internal]].indices.min() // 6)

    def wnorm(self, dw: FloatArray) -> float:
        """Weighted 2-norm of a displacement (rotations in rad, translations / L)."""
        return float(np.sqrt(np.sum((dw * self.w) ** 2)))

    def norm(self, dw: FloatArray) -> float:
        """Largest rotation (rad) or translation / L of an increment."""
        return float(np.max(np.abs(dw * self.w), initial=0.0)) * np.sqrt(self.rod.n_nodes)


@dataclass(frozen=True)
class _Newton:
    q: FloatArray
    lam: FloatArray
    mu: float
    converged: bool
    iterations: int
    residual: float
    reason: str = ""
    d: FloatArray | None = None  # the accumulated correction (arc-length steps)
    factorisations: int = -1  # Newton matrices factorised (the compiled core's kept-matrix iteration; -1: Newton's)

    @property
    def easy(self) -> bool:
        """An easy step (the load or arc-length step may grow): at most 4 Newton iterations, or with the compiled
        core's kept matrix at most one factorisation (its corrections contracted by THETA_MAX throughout)."""
        return self.factorisations <= 1 if self.factorisations >= 0 else self.iterations <= 4


def _prefix_products(G: Any, r: FloatArray) -> FloatArray:
    """P_k = r_0 r_1 … r_k for group elements r (k, 7), by doubling (Hillis & Steele 1986): log₂ k vectorised
    compositions instead of a loop over nodes."""
    out = r.copy()
    shift = 1
    while shift < out.shape[0]:
        out[shift:] = G.compose(out[:-shift], out[shift:])
        shift *= 2
    return out


def strain_update(rod: CosseratRod, q: FloatArray, dw: FloatArray, anchor: int = 0) -> FloatArray:
    """q "∘" δw through the strains: node ``anchor`` moves to q_a ∘ exp(δw_a) and every edge keeps its
    updated strain ξ_e + JJ_e [δw_{e−1}; δw_e], the other nodes following by q_i = q_{i−1} exp(ξ_e + δξ_e).

    A retraction of (S³⋉R³)^(N+1) that agrees with q_i ∘ exp(δw_i) to first order (so Newton stays
    quadratic), but moves a rod along arcs rather than tangent lines: a large rotation increment does not
    stretch the edges by O(θ²), which for a stiff (steel) rod is what makes a plain update diverge."""
    G = rod.G
    n = rod.n_nodes
    W = np.asarray(dw, dtype=float).reshape(n, 6)
    xi, JJ = rod._edges(rod._q(q))
    r = G.exp(xi + (JJ @ np.concatenate([W[:-1], W[1:]], axis=1)[:, :, None])[:, :, 0])
    out = np.empty((n, 7))
    qa = G.compose(q[anchor], G.exp(W[anchor]))
    out[anchor] = qa
    if anchor < n - 1:
        out[anchor + 1:] = G.compose(np.broadcast_to(qa, (n - 1 - anchor, 7)), _prefix_products(G, r[anchor:]))
    if anchor > 0:
        back = G.inverse(r[:anchor][::-1])
        out[:anchor] = G.compose(np.broadcast_to(qa, (anchor, 7)), _prefix_products(G, back))[::-1]
    return out


def _bordered(x1: FloatArray, x2: FloatArray | None, a: float, arc: Any, n: int) -> tuple[FloatArray, FloatArray, float]:
    """(δw, δλ, δμ) of the bordered system: x1 = KKT⁻¹(−[R; Φ]), x2 = KKT⁻¹[f; 0], constraint c·δw + c_μ δμ = −a."""
    if arc is None or x2 is None:
        return x1[:n], x1[n:], 0.0
    dmu = (-a - float(arc[0] @ x1[:n])) / (float(arc[0] @ x2[:n]) + arc[1])
    x = x1 + dmu * x2
    return x[:n], x[n:], dmu


def _solve(lu: Any, rhs: FloatArray) -> FloatArray | None:
    x = lu.solve(rhs)
    return x if np.all(np.isfinite(x)) else None


def _newton(eq: _Equations, q: FloatArray, lam: FloatArray, mu: float, *, tol: float, max_iter: int,
            line_search: bool, arc: tuple[FloatArray, float, float] | None = None, seed: Any = None) -> _Newton:
    """Newton on R = Φ = 0 at load factor μ (``arc`` None), or with μ free and the hyperplane constraint
    c·d + c_μ (μ − μ₀) = 0 through the predictor, d the accumulated correction (``arc`` = (c, c_μ, μ₀)). A frame
    with the compiled core runs it in one compiled call (``frames._statics_compiled.newton``), keeping the matrix
    (first ``seed``'s, a converged state's factorisation) while the corrections contract."""
    if eq.fast is not None:
        qn, lam_n, mu_n, status, it, res, d, reason, n_fact = eq.fast.newton(q, lam, mu, tol, max_iter, line_search,
                                                                             arc, seed)
        return _Newton(qn, lam_n, mu_n, status == 0, it, res, reason, d=d if status == 0 else None,
                       factorisations=n_fact)
    n = eq.n
    r, phi = eq.residual(q, lam, mu)
    res = eq.size(r, phi)
    d = np.zeros(n)
    for it in range(max_iter + 1):
        a = 0.0 if arc is None else float(arc[0] @ d + arc[1] * (mu - arc[2]))
        if res <= tol and abs(a) <= tol:
            return _Newton(q, lam, mu, True, it, res, d=d)
        if it == max_iter:
            break
        lu = eq.system(q, lam, mu)
        if lu is None:
            return _Newton(q, lam, mu, False, it, res, "singular tangent")
        x1 = _solve(lu, -np.concatenate([r, phi]))
        if x1 is None:
            return _Newton(q, lam, mu, False, it, res, "singular tangent")
        x2 = None
        if arc is not None:
            x2 = _solve(lu, np.concatenate([eq.load(q), np.zeros(eq.m)]))
            if x2 is None:
                return _Newton(q, lam, mu, False, it, res, "singular tangent")
            denom = float(arc[0] @ x2[:n]) + arc[1]
            if denom == 0.0:
                return _Newton(q, lam, mu, False, it, res, "arc-length constraint tangent to the path")
        dw, dlam, dmu = _bordered(x1, x2, a, arc, n)
        size0 = eq.wnorm(dw)
        alpha = 1.0
        while True:  # affine-covariant damping: the simplified Newton correction must shrink (Deuflhard 2004)
            q1, lam1, mu1 = eq.perturb(q, alpha * dw), lam + alpha * dlam, mu + alpha * dmu
            r1, phi1 = eq.residual(q1, lam1, mu1)
            a1 = 0.0 if arc is None else float(arc[0] @ (d + alpha * dw) + arc[1] * (mu1 - arc[2]))
            ok = bool(np.all(np.isfinite(r1)) and np.all(np.isfinite(phi1)))
            if ok and line_search and size0 > 1e-6 and res > 1e2 * tol:  # else: quadratic regime or round-off floor
                xb = _solve(lu, -np.concatenate([r1, phi1]))
                ok = xb is not None and eq.wnorm(_bordered(xb, x2, a1, arc, n)[0]) <= (1.0 - 0.25 * alpha) * size0
            if ok or (not line_search and np.all(np.isfinite(r1))):
                break
            alpha *= 0.5
            if alpha < 1.0 / 64:
                return _Newton(q, lam, mu, False, it + 1, res, "damped Newton failed (the correction does not shrink)")
        m1 = eq.merit(r1, phi1)
        if not np.isfinite(m1):
            return _Newton(q, lam, mu, False, it + 1, res, "non-finite residual")
        q, lam, mu, r, phi = q1, lam1, mu1, r1, phi1
        d = d + alpha * dw
        res = eq.size(r, phi)
        if eq.norm(alpha * dw) < STEP_TOL and res <= 1e2 * tol:  # the round-off floor of a stiff rod reached
            return _Newton(q, lam, mu, True, it + 1, res, d=d)
    return _Newton(q, lam, mu, False, max_iter, res, f"no convergence in {max_iter} iterations")


def _state(eq: _Equations, nw: _Newton, branch: int, check: bool) -> StaticState:
    neg = zero = 0
    if check:
        neg, zero = eq.count(nw.q, nw.lam, nw.mu)
    return StaticState(nw.q, nw.lam, float(nw.mu), nw.iterations, nw.residual, neg, zero, branch)


def critical_mode(rod: RodSystem, state: StaticState, t: float = 0.0) -> tuple[float, FloatArray]:
    """(eigenvalue, mode) of K_t on ker B nearest zero at ``state`` (mass metric; mode (6(N+1),), max |·| = 1)."""
    eq = _Equations(rod, t)
    K, B = eq.tangent(state.q, state.lam, state.load_factor)
    M = rod.mass(state.q)
    scale = float(np.max(np.abs(K.diagonal()))) / float(np.max(M.diagonal()))
    modes = stability.constrained_eigs(K, M, B, k=min(3, eq.n - eq.m - 1), sigma=-1e-6 * scale)
    j = int(np.argmin(np.abs(modes.values)))
    phi = modes.vectors[j]
    return float(modes.values[j]), phi / np.max(np.abs(phi * eq.w))


def _initial(rod: RodSystem, t: float, q0: FloatArray | None, check_rigid: bool) -> tuple[_Equations, FloatArray, FloatArray]:
    eq = _Equations(rod, t)
    q = np.array(rod.q_ref if q0 is None else q0, dtype=float).reshape(rod.n_nodes, 7)
    if check_rigid:
        B = rod.constraint_jacobian_t(t, q) if eq.m else sp.csr_array((0, eq.n))
        stability.check_no_rigid_motion(rod.G, q, B, "a static analysis", springs=rod.support_springs(t, q),
                                        parts=rod.parts() if hasattr(rod, "parts") else None)
    return eq, q, np.zeros(eq.m)


def _check(name: str, value: float, low: float, integer: bool = False) -> None:
    ok = np.isfinite(value) and value >= low and (not integer or float(value).is_integer())
    if not ok:
        raise ValueError(f"{name} must be {'an integer' if integer else 'a number'} >= {low:g}, got {value!r}")


def solve_static(
    rod: RodSystem, *, t: float = 0.0, method: str = "newton", load_steps: int = 10, max_cutbacks: int = 8,
    arc_length: float | None = None, max_steps: int = 200, load_factor: float = 1.0, tol: float = 1e-10,
    max_iter: int = 25, line_search: bool = True, stability_check: bool = True, branch_switch: bool = True,
    q0: FloatArray | None = None, check_rigid: bool = True,
) -> StaticPath:
    """The static path of ``rod`` from μ = 0 (reference or ``q0``) to the load factor ``load_factor``.

    Parameters
    ----------
    method : "newton" (load control, ``load_steps`` initial increments) or "arc-length" (``arc_length``: the
        first step in the weighted norm, default 1/``load_steps`` of the way; ``max_steps`` steps at most).
    max_cutbacks : halvings of a failed step in a row before giving up (status "failed").
    tol : scaled residual max(|R|/F, |Φ|/L) at convergence.
    stability_check : count the negative eigenvalues of every converged state (banded inertia).
    branch_switch : at a detected bifurcation, switch to the branch along the critical mode.
    check_rigid : refuse supports that leave a rigid motion (ValueError naming it).

    Returns
    -------
    StaticPath with status "ok" (reached, stable), "unstable" (reached, negative eigenvalues), "critical",
    or "failed" (the message names the load factor and residual; the last converged state is kept).
    """
    if method not in METHODS:
        raise ValueError(f"unknown static method {method!r}; use one of {', '.join(METHODS)}")
    _check("load_steps", load_steps, 1, integer=True)
    _check("max_cutbacks", max_cutbacks, 0, integer=True)
    _check("max_steps", max_steps, 1, integer=True)
    _check("tol", tol, 1e-300)
    if not (np.isfinite(load_factor) and load_factor > 0.0):
        raise ValueError(f"load_factor must be a positive number (the target multiple of the loads), got {load_factor!r}")
    if arc_length is not None:
        _check("arc_length", arc_length, 1e-300)
    eq, q, lam = _initial(rod, t, q0, check_rigid)
    kw: dict[str, Any] = {"tol": tol, "max_iter": max_iter, "line_search": line_search}
    start = _newton(eq, q, lam, 0.0, **kw)  # equilibrium without load (settlements, pre-strain); usually q_ref
    if not start.converged:
        st = StaticState(q, lam, 0.0, start.iterations, start.residual, 0)
        return StaticPath((st,), "failed", f"no equilibrium at load factor 0 ({start.reason}, residual {start.residual:.3g})")
    states = [_state(eq, start, 0, stability_check)]
    runner = _LoadControl if method == "newton" else _ArcLength
    return runner(eq, states, kw, load_steps=int(load_steps), max_cutbacks=int(max_cutbacks), target=float(load_factor),
                  arc_length=arc_length, max_steps=int(max_steps), check=stability_check, switch=branch_switch).run()


class _Path:
    """Shared bookkeeping of the two path followers: states, events, cut-backs, stability checks."""

    def __init__(self, eq: _Equations, states: list[StaticState], kw: dict[str, Any], *, load_steps: int,
                 max_cutbacks: int, target: float, arc_length: float | None, max_steps: int, check: bool,
                 switch: bool) -> None:
        self.eq, self.states, self.kw = eq, states, kw
        self.load_steps, self.max_cutbacks, self.target = load_steps, max_cutbacks, target
        self.arc_length, self.max_steps, self.check, self.switch = arc_length, max_steps, check, switch
        self.events: list[PathEvent] = []
        self.below: dict[int, StaticState] = {}  # event index → the bracket's lower converged state
        self.cutbacks = 0
        self.branch = 0

    def finish(self, status: str | None = None, message: str = "") -> StaticPath:
        last = self.states[-1]
        if status is None:
            status = last.status
            if status == "ok":
                message = f"equilibrium at load factor {last.load_factor:.6g} (stable)"
            else:
                message = (f"equilibrium at load factor {last.load_factor:.6g} is {status}: {last.n_negative} negative "
                           f"and {last.n_zero} zero eigenvalue(s) of the tangent on ker B")
        ev = "; ".join(e.describe() for e in self.events)
        if ev:
            message += f" ({ev})"
        return StaticPath(tuple(self.states), status, message, tuple(self.events), self.cutbacks)

    def linear_deflection(self) -> float:
        """The largest nodal displacement of the linear response to the target loads at the start, in units of
        the structure's size (nan when the start tangent is singular)."""
        eq, st = self.eq, self.states[0]
        lu = eq.system(st.q, st.lam, 0.0)
        x = None if lu is None else _solve(lu, np.concatenate([eq.load(st.q), np.zeros(eq.m)]))
        if x is None:
            return float("nan")
        u = np.abs(x[: eq.n].reshape(-1, 6)[:, 3:])
        return float(self.target * np.max(u, initial=0.0) / eq.L)  # max-norm: no overflow for absurd loads

    def failed(self, mu_try: float, nw: _Newton) -> StaticPath:
        last = self.states[-1]
        ratio = self.linear_deflection()
        if ratio > HUGE_DEFLECTION:
            return self.finish("failed", (
                f"static Newton failed at load factor {mu_try:.6g} ({nw.reason}); the loads are far beyond what this "
                f"structure carries: their linear deflection is {ratio:.3g} times its size ({self.eq.L:.4g}), so check "
                "the loads' magnitude and units (a limit point is not the likely cause)"))
        return self.finish("failed", (
            f"static Newton failed at load factor {mu_try:.6g} with the smallest allowed load step "
            f"(initial step / 2^{self.max_cutbacks}) "
            f"({nw.reason}; scaled residual {nw.residual:.3g}); the last converged state is at load factor "
            f"{last.load_factor:.6g}: the load may exceed a limit point (use analysis.method = \"arc-length\") "
            "or raise analysis.max_cutbacks"))

    def add(self, nw: _Newton, detect: bool = True) -> StaticState:
        prev = self.states[-1]
        st = _state(self.eq, nw, self.branch, self.check)
        self.states.append(st)
        if detect and self.check and (st.n_negative != prev.n_negative):
            lo, hi, lower, upper = prev, st, float("nan"), float("nan")
            mu = 0.5 * (prev.load_factor + st.load_factor)
            kind, mode = "limit point", None
            try:
                _, mode = self.critical(st)
                f = self.eq.load(st.q)
                # at a bifurcation the critical mode is orthogonal to the loads; at a limit point it is not
                if abs(float(mode @ f)) <= BIFURCATION_TOL * float(np.linalg.norm(mode) * np.linalg.norm(f)):
                    kind = "bifurcation"
                    if st.load_factor > prev.load_factor:  # load rising over the step: bracket the first change
                        lo, hi = self.bracket(prev, st)
                        lower, upper = lo.load_factor, hi.load_factor
                        self.below[len(self.events)] = lo
                    mu = 0.5 * (lo.load_factor + hi.load_factor)
                    mu_rf = self.locate(lo, hi)
                    if lo.load_factor <= mu_rf <= hi.load_factor:
                        mu = mu_rf
            except (ValueError, RuntimeError) as exc:  # ARPACK trouble: keep the midpoint (of the bracket)
                logger.warning("critical mode at load factor %.6g not found: %s", st.load_factor, exc)
            top = float("nan")
            if kind == "limit point" and mode is not None:
                found = self.limit(prev, st)
                if found is not None:
                    mu, at = found
                    top = at.load_factor
                    lower, upper = min(mu, top), max(mu, top)
                    self.states.insert(len(self.states) - 1, at)
            self.events.append(PathEvent(kind, len(self.states) - 1, float(mu), mode, lower, upper, top))
            logger.info("%s between load factors %.6g and %.6g", kind, lo.load_factor, hi.load_factor)
        return st

    def critical(self, st: StaticState) -> tuple[float, FloatArray]:
        """(eigenvalue, mode) of K_t on ker B nearest zero at a converged state (``critical_mode``). With the compiled
        core: inverse iteration on the state's KKT factorisation, [[K_t, Bᵀ], [B, 0]] [y; ·] = [M x; 0] (y ∈ ker B),
        to a relative change of the Rayleigh estimate xᵀMx / yᵀMx below CRITICAL_RTOL (Golub & Van Loan 2013
        §8.2.2) — no eigen-solve; ARPACK (``critical_mode``) where it does not converge in CRITICAL_ITERS."""
        eq = self.eq
        lu = eq.system(st.q, st.lam, st.load_factor) if eq.fast is not None else None
        if lu is None:
            return critical_mode(eq.rod, st, eq.t)
        M = eq.rod.mass(st.q)
        x, zero, prev = np.ones(eq.n), np.zeros(eq.m), np.nan
        for _ in range(CRITICAL_ITERS):
            mx = M @ x
            y = lu.solve(np.concatenate([mx, zero]))[: eq.n]
            value = float(x @ mx) / float(y @ mx)
            x = y / float(np.max(np.abs(y)))
            if abs(value - prev) <= CRITICAL_RTOL * abs(value):
                return value, x / float(np.max(np.abs(x * eq.w)))
            prev = value
        return critical_mode(eq.rod, st, eq.t)

    def limit(self, a: StaticState, b: StaticState) -> tuple[float, StaticState] | None:
        """The limit point between converged states a and b: the extremum of the load factor along the path
        (issue 31 item 3). The path inside the step is parametrised by θ ∈ [0, 1]: the equilibrium (q, μ) with
        q = q_a ∘ exp(θ d + δ), d = log(q_a⁻¹ q_b) per node, and c·δ = 0 (c = d weighted as the arc length's
        norm, c·d = 1: the corrector of the normal plane, regular at a limit point, as in the arc-length steps).
        Differentiating K_t q' = f μ' with c·q' = 1 gives the slope

            g(θ) = dμ/dθ = 1 / (c·K_t⁻¹f)          (at the converged state at θ; zero at the limit point)

        from the factorisation the state's stability count needs anyway. Its root is bracketed by the signs at
        a and b and found by regula falsi with the Illinois modification (issue 34 item 3: 4–6 solves, where
        Brent's search on μ took about 12); it stops when the secant's next correction of θ is below LIMIT_XTOL.
        The limit load is then the vertex μ_k − g_k²/(2g') of the best state k (g' the secant slope of g there),
        μ to O(XTOL²). Returns (that vertex, the best state), or None (no sign change of g: the step holds no
        single extremum); a failed solve falls back to Brent's search (``limit_brent``)."""
        eq, G = self.eq, self.eq.rod.G
        qa = np.asarray(a.q).reshape(-1, 7)
        d = G.log(G.compose(G.inverse(qa), np.asarray(b.q).reshape(-1, 7)))
        c = d.ravel() * eq.w**2
        cd = float(c @ d.ravel())
        if not cd > 0.0:
            return None
        c = c / cd
        slopes = []
        for st in (a, b):
            x = self._load_solve(st.q, st.lam, st.load_factor)
            if x is None:
                return None
            slopes.append(float(c @ x[: eq.n]))
        if not slopes[0] * slopes[1] < 0.0:
            return None
        sense = 1.0 if slopes[0] > 0.0 else -1.0  # +1: a maximum of the load factor
        seed = eq.system(a.q, a.lam, a.load_factor)  # the compiled core's first matrix: the last converged state's
        lo, hi = [0.0, 1.0 / slopes[0]], [1.0, 1.0 / slopes[1]]  # (θ, g for the secant): sense·g > 0 at lo
        pts: list[tuple[float, float, _Newton]] = []  # (θ, g, the solve there)
        side = 0
        for _ in range(LIMIT_SOLVES):
            theta = (lo[0] * hi[1] - hi[0] * lo[1]) / (hi[1] - lo[1])
            nw = self._theta_solve(a, qa, d, c, b, theta, seed)
            x = self._load_solve(nw.q, nw.lam, nw.mu) if nw.converged else None
            if x is None:
                return self.limit_brent(a, b, qa, d, c, sense)
            seed = eq.system(nw.q, nw.lam, nw.mu)
            g = 1.0 / float(c @ x[: eq.n])
            pts.append((theta, g, nw))
            if g * sense > 0.0:
                lo = [theta, g]
                if side == 1:
                    hi[1] *= 0.5
                side = 1
            else:
                hi = [theta, g]
                if side == -1:
                    lo[1] *= 0.5
                side = -1
            if len(pts) >= 2:
                (t0, g0, _), (t1, g1, _) = sorted(pts, key=lambda p: abs(p[1]))[:2]
                slope = (g1 - g0) / (t1 - t0) if t1 != t0 else 0.0
                if slope * sense < 0.0 and abs(g0 / slope) < LIMIT_XTOL:
                    break
        t0, g0, best_nw = min(pts, key=lambda p: abs(p[1]))
        best = _state(eq, best_nw, self.branch, self.check)
        mu = best.load_factor
        others = [p for p in pts if p[0] != t0] or [(0.0, 1.0 / slopes[0], best_nw)]
        t1, g1, _ = min(others, key=lambda p: abs(p[0] - t0))
        slope = (g1 - g0) / (t1 - t0)
        if slope * sense < 0.0:
            mu = float(mu - g0 * g0 / (2.0 * slope))
        logger.info("limit point at load factor %.10g (converged state at %.10g, %d solves)", mu, best.load_factor,
                    len(pts))
        return mu, best

    def _load_solve(self, q: FloatArray, lam: FloatArray, mu: float) -> FloatArray | None:
        """K_t⁻¹f on ker B (the KKT solve with [f; 0]) at a converged state, None when singular."""
        eq = self.eq
        lu = eq.system(q, lam, mu)
        return None if lu is None else _solve(lu, np.concatenate([eq.load(q), np.zeros(eq.m)]))

    def _theta_solve(self, a: StaticState, qa: FloatArray, d: FloatArray, c: FloatArray, b: StaticState,
                     theta: float, seed: Any = None) -> _Newton:
        """The equilibrium at θ inside the step a → b (``limit``): q_a ∘ exp(θ d) corrected with c·δ = 0 (``seed``:
        the compiled core's first matrix)."""
        G = self.eq.rod.G
        mu0 = a.load_factor + theta * (b.load_factor - a.load_factor)
        return _newton(self.eq, G.compose(qa, G.exp(theta * d)), a.lam + theta * (b.lam - a.lam), mu0, **self.kw,
                       arc=(c, 0.0, mu0), seed=seed)

    def limit_brent(self, a: StaticState, b: StaticState, qa: FloatArray, d: FloatArray, c: FloatArray,
                    sense: float) -> tuple[float, StaticState] | None:
        """``limit`` by Brent's bounded search on −sense·μ(θ) (scipy ``minimize_scalar``, to LIMIT_XTOL in θ) and the
        vertex of the parabola through the extreme state and a tried state on either side (at least LIMIT_SPREAD
        apart): the fallback where a regula-falsi solve fails (a failed trial counts as worse than both ends)."""
        from scipy.optimize import minimize_scalar

        tried: dict[float, _Newton] = {}

        def minus_mu(theta: float) -> float:
            nw = self._theta_solve(a, qa, d, c, b, theta)
            if not nw.converged:
                return -sense * min(a.load_factor, b.load_factor, key=lambda m: sense * m)  # worse than both ends
            tried[theta] = nw
            return -sense * nw.mu

        minimize_scalar(minus_mu, bounds=(0.0, 1.0), method="bounded", options={"xatol": LIMIT_XTOL})
        if not tried:
            return None
        th = np.array(sorted(tried))
        mus = np.array([tried[t].mu for t in th])
        k = int(np.argmax(sense * mus))
        best = _state(self.eq, tried[th[k]], self.branch, self.check)
        mu = best.load_factor
        left, right = th[th <= th[k] - LIMIT_SPREAD], th[th >= th[k] + LIMIT_SPREAD]
        if left.size and right.size:  # the parabola through it and a tried state on each side, far enough apart
            t0, t1, t2 = left[-1], th[k], right[0]   # that their load factors differ by more than round-off
            m0, m1, m2 = (tried[t].mu for t in (t0, t1, t2))
            den = (t0 - t1) * (t0 - t2) * (t1 - t2)
            A = (t2 * (m1 - m0) + t1 * (m0 - m2) + t0 * (m2 - m1)) / den
            Bc = (t2**2 * (m0 - m1) + t1**2 * (m2 - m0) + t0**2 * (m1 - m2)) / den
            C = m1 - A * t1**2 - Bc * t1
            if sense * A < 0.0 and t0 <= -Bc / (2.0 * A) <= t2:
                mu = float(C - Bc**2 / (4.0 * A))
        logger.info("limit point at load factor %.10g (converged state at %.10g, %d solves, Brent)", mu,
                    best.load_factor, len(tried))
        return mu, best

    def bracket(self, a: StaticState, b: StaticState) -> tuple[StaticState, StaticState]:
        """Converged states (lo, hi) with a's stability count at lo and another at hi, lo.μ < hi.μ: bisection on
        the load factor between a and b (each trial a Newton solve from lo) to the relative width BRACKET_RTOL or
        BRACKET_SOLVES solves; a trial that does not converge ends it. A big load step that jumps over several
        critical points thus brackets the first one, not a point between them."""
        eq, lo, hi = self.eq, a, b
        for _ in range(BRACKET_SOLVES):
            if hi.load_factor - lo.load_factor <= BRACKET_RTOL * abs(hi.load_factor):
                break
            nw = _newton(eq, lo.q, lo.lam, 0.5 * (lo.load_factor + hi.load_factor), **self.kw)
            if not nw.converged:
                logger.info("bracketing a change of stability: no equilibrium found at load factor %.6g (%s); "
                            "bracket kept at [%.6g, %.6g]", nw.mu, nw.reason, lo.load_factor, hi.load_factor)
                break
            s = _state(eq, nw, lo.branch, True)
            if s.n_negative == a.n_negative:
                lo = s
            else:
                hi = s
        return lo, hi

    def locate(self, a: StaticState, b: StaticState, iters: int = 8) -> float:
        """Load factor where the critical eigenvalue crosses zero between states a and b of one branch:
        regula falsi (Illinois) on the eigenvalue nearest zero, each trial point a Newton solve from a."""
        eq = self.eq
        (mu_a, f_a), (mu_b, f_b) = ((s.load_factor, critical_mode(eq.rod, s, eq.t)[0]) for s in (a, b))
        side = 0
        for _ in range(iters):
            if f_a == f_b or not f_a * f_b < 0.0:
                break
            mu = (mu_a * f_b - mu_b * f_a) / (f_b - f_a)
            if abs(mu_b - mu_a) < 1e-10 * max(1.0, abs(mu)):
                break
            nw = _newton(eq, a.q, a.lam, mu, **self.kw)
            if not nw.converged:
                break
            f = critical_mode(eq.rod, _state(eq, nw, 0, False), eq.t)[0]
            if f * f_b < 0.0:
                mu_a, f_a = mu_b, f_b
                side = 0
            elif side == -1:
                f_a *= 0.5
            else:
                side = -1
            mu_b, f_b = mu, f
        return float(mu_b if abs(f_b) < abs(f_a) else mu_a)

    def switch_branch(self, tau: float) -> bool:
        """Branch switching at the last event (a bifurcation): predictor q ∘ exp(τ φ), corrector with φᵀΔw = τ,
        from the bracket's lower state with its critical mode φ (the end of the step only where no bracket was
        refined: there a step over several critical points has a later mode nearest zero)."""
        ev = self.events[-1]
        if ev.kind != "bifurcation" or ev.mode is None or self.states[-1].n_negative == 0:
            return False
        eq = self.eq
        st, phi = self.states[-1], ev.mode
        lo = self.below.get(len(self.events) - 1)
        if lo is not None:
            try:
                st, phi = lo, critical_mode(eq.rod, lo, eq.t)[1]
            except (ValueError, RuntimeError) as exc:  # ARPACK trouble: switch from the end of the step
                logger.warning("critical mode at load factor %.6g not found: %s", lo.load_factor, exc)
        c = phi * eq.w ** 2
        c = c / float(c @ phi)
        for amp in (tau, 0.2 * tau, 0.04 * tau):
            for sign in (1.0, -1.0):
                q1 = eq.perturb(st.q, sign * amp * phi)
                nw = _newton(eq, q1, st.lam, st.load_factor, **self.kw, arc=(c, 0.0, st.load_factor))
                near = abs(nw.mu - ev.load_factor) <= 0.1 * abs(ev.load_factor) + 0.5 * amp
                if nw.converged and near:
                    self.branch += 1
                    new = self.add(nw, detect=False)
                    logger.info("switched to branch %d at load factor %.6g (%d negative eigenvalues)", self.branch,
                                new.load_factor, new.n_negative)
                    return True
        logger.warning("branch switching at load factor %.6g found no nearby branch along the critical mode",
                       ev.load_factor)
        return False


class _LoadControl(_Path):
    def run(self) -> StaticPath:
        eq, target = self.eq, self.target
        d0 = target / self.load_steps
        dmu = d0
        switched = False
        while self.states[-1].load_factor < target * (1.0 - 1e-14):
            if len(self.states) > self.max_steps + 1:
                return self.finish("failed", f"max_steps = {self.max_steps} load steps reached at load factor "
                                   f"{self.states[-1].load_factor:.6g}; raise analysis.max_steps")
            last = self.states[-1]
            mu = min(last.load_factor + dmu, target)
            nw = _newton(eq, last.q, last.lam, mu, **self.kw)
            if not nw.converged:
                self.cutbacks += 1
                dmu *= 0.5
                if dmu < d0 * 0.5**self.max_cutbacks * (1.0 - 1e-12):  # below the smallest allowed load step
                    return self.failed(mu, nw)
                continue
            self.add(nw)
            if self.events and self.switch and not switched and self.events[-1].kind == "bifurcation":
                switched = self.switch_branch(0.05)
                if switched and self.states[-1].load_factor > target:  # back down to the target on the new branch
                    nt = _newton(eq, self.states[-1].q, self.states[-1].lam, target, **self.kw)
                    if nt.converged:
                        self.add(nt, detect=False)
            if nw.easy:
                dmu = min(1.5 * dmu, d0)
        return self.finish()


class _ArcLength(_Path):
    def tangent(self, st: StaticState, prev: FloatArray | None) -> tuple[FloatArray, float] | None:
        eq = self.eq
        lu = eq.system(st.q, st.lam, st.load_factor)
        if lu is None:
            return None
        x = _solve(lu, np.concatenate([eq.load(st.q), np.zeros(eq.m)]))
        if x is None:
            return None
        dw = x[: eq.n]
        nrm = np.sqrt(float(np.sum((dw * eq.w) ** 2)) + 1.0)
        t_w, t_mu = dw / nrm, 1.0 / nrm
        if prev is not None and float(np.sum(prev[:-1] * t_w * eq.w**2)) + prev[-1] * t_mu < 0.0:
            t_w, t_mu = -t_w, -t_mu
        return t_w, t_mu

    def run(self) -> StaticPath:
        eq, target = self.eq, self.target
        ds0 = self.arc_length if self.arc_length is not None else target / self.load_steps
        ds, cuts, prev = ds0, 0, None
        switched = False
        for _ in range(self.max_steps):
            st = self.states[-1]
            tg = self.tangent(st, prev)
            if tg is None:
                return self.finish("failed", f"singular tangent at load factor {st.load_factor:.6g}")
            t_w, t_mu = tg
            c = t_w * eq.w**2
            nw = _newton(eq, eq.perturb(st.q, ds * t_w), st.lam, st.load_factor + ds * t_mu, **self.kw,
                         arc=(c, t_mu, st.load_factor + ds * t_mu), seed=eq.system(st.q, st.lam, st.load_factor))
            if not nw.converged:
                cuts += 1
                self.cutbacks += 1
                if cuts > self.max_cutbacks:
                    return self.failed(st.load_factor + ds * t_mu, nw)
                ds *= 0.5
                continue
            assert nw.d is not None
            step = np.concatenate([ds * t_w + nw.d, [nw.mu - st.load_factor]])
            length = np.sqrt(float(np.sum((step[:-1] * eq.w) ** 2)) + step[-1] ** 2)
            if length > 2.0 * ds or float(np.sum(step[:-1] * t_w * eq.w**2)) + step[-1] * t_mu < 0.5 * length:
                # the corrector left the neighbourhood of the predictor (jumped to another branch): cut back
                cuts += 1
                self.cutbacks += 1
                if cuts > self.max_cutbacks:
                    return self.finish("failed", f"arc-length corrector keeps leaving the path at load factor "
                                       f"{st.load_factor:.6g}; reduce analysis.arc_length")
                ds *= 0.5
                continue
            cuts = 0
            crossing = (st.load_factor - target) * (nw.mu - target) <= 0.0 and nw.mu != st.load_factor
            if crossing:  # land on the target load factor with load control from the last state
                nt = _newton(eq, st.q, st.lam, target, **self.kw, seed=eq.system(st.q, st.lam, st.load_factor))
                if nt.converged and st.load_factor < target:
                    self.add(nt)
                    return self.finish()
            self.add(nw)
            prev = step  # orient the next tangent along the secant of this step
            if self.events and self.switch and not switched and self.events[-1].kind == "bifurcation":
                switched = self.switch_branch(0.05)
                if switched:
                    prev = None
            if nw.easy:
                ds = min(1.5 * ds, ds0)
        return self.finish("failed", f"max_steps = {self.max_steps} arc-length steps reached at load factor "
                           f"{self.states[-1].load_factor:.6g} before the target {target:g}; raise analysis.max_steps "
                           "or analysis.arc_length")


def static_equilibrium(
    rod: RodSystem, *, t: float = 0.0, q0: FloatArray | None = None, n_load_steps: int = 1, tol: float = 1e-10,
    max_iter: int = 25, eps: float | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Equilibrium (q, λ) under the loads at time ``t`` by load control (``solve_static``, method "newton").

    Kept for callers that want the state only: raises ValueError with the path's message when it fails;
    an unstable end state is returned with a logged warning (``solve_static`` reports it as a status).
    ``eps`` is accepted for compatibility and ignored (the tangent is exact)."""
    path = solve_static(rod, t=t, q0=q0, load_steps=n_load_steps, tol=tol, max_iter=max_iter,
                        stability_check=False, branch_switch=False, check_rigid=False)
    if path.status == "failed":
        raise ValueError(path.message)
    return path.final.q, path.final.lam


# The Newton pieces under public names: ``lgbeam.bench.statics`` times one iteration's parts (tangent, factor,
# residual) on them, so a renamed internal breaks a library import rather than the bench alone.
StaticEquations = _Equations
newton = _newton
