"""The compiled statics core of a corotational frame, as the static path follower calls it (``rods.statics``;
kernels and equations in ``_statics_compiled``): one object per (frame, time) holding the constant arrays of the
kernels in one tuple, so a Newton solve, a factorisation with its stability count, a residual or a retraction is
one compiled call with no per-iteration Python, scipy.sparse or validation.

It applies to a compiled ``CorotationalStructure`` with nodal loads only, no support or joint springs and no
ground motion (``CompiledStatics.build`` returns None otherwise, and ``rods.statics`` runs the numpy core, which
stays the reference: ``tests/test_statics_compiled.py`` compares the two)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as la

from lgbeam._typing import FloatArray

from . import _statics_compiled as sc

THETA_MAX = 0.25  # the Newton matrix is kept while each correction is at most this fraction of the last
REASONS = {sc.SINGULAR: "singular tangent", sc.ARC_TANGENT: "arc-length constraint tangent to the path",
           sc.DAMPING: "damped Newton failed (the correction does not shrink)", sc.NONFINITE: "non-finite residual"}


def _bandwidth(pos: np.ndarray, n: int, S: tuple[Any, ...]) -> int:
    """The half-bandwidth of every entry the kernels write (elements, loads, support and joint rows and blocks)."""
    ea, eb = S[0], S[1]
    s_nodes, s_entry, s_row = S[6], S[10], S[13]
    j_ia, j_ib, j_entry, j_row = S[14], S[15], S[17], S[20]
    six = np.arange(6)

    def spread(*groups: np.ndarray) -> int:
        idx = np.concatenate([g.reshape(g.shape[0], -1) for g in groups], axis=1)
        p = pos[idx]
        return int(np.max(p.max(axis=1) - p.min(axis=1), initial=0))

    dof = lambda nodes: 6 * nodes[:, None] + six
    bw = spread(dof(ea), dof(eb)) if ea.size else 0
    if s_row.size:
        bw = max(bw, spread(dof(s_nodes[s_entry]), (n + s_row)[:, None]))
    if j_row.size:
        bw = max(bw, spread(dof(j_ia[j_entry]), dof(j_ib[j_entry]), (n + j_row)[:, None]),
                 spread(dof(j_ia), dof(j_ib)))
    return bw


class CompiledFactor:
    """The equilibrated band of A at one (q, λ, μ) and its LU (``_statics_compiled.factor``): ``solve`` and the
    stability count ``inertia`` as ``statics_core.KKTFactor``."""

    def __init__(self, core: CompiledStatics, q: FloatArray, lam: FloatArray, mu: float) -> None:
        N, S = core.N, core.S
        self.core, self.m = core, core.m
        self.ab, self.lu = np.empty((S[33], N)), np.empty((S[33], N))
        self.s, self.piv = np.empty(N), np.empty(N, np.int64)
        self.ok = sc.factor(q, lam, float(mu), S, self.ab, self.lu, self.s, self.piv) == 0

    def solve(self, rhs: FloatArray) -> FloatArray:
        """A⁻¹ rhs in the original order (rhs: (n + m,) or (n + m, k))."""
        b = np.asarray(rhs, dtype=float)
        if b.ndim == 2:
            return np.stack([self.solve(b[:, k]) for k in range(b.shape[1])], axis=1)  # a few columns
        out = np.empty(self.core.N)
        sc.solve(self.lu, self.s, self.piv, self.core.S, np.ascontiguousarray(b), out)
        return out

    def inertia(self, mass: Callable[[], Any], K: Callable[[], tuple[Any, Any]]) -> tuple[int, int]:
        """(negative, zero) eigenvalues of K_t on ker B: Sylvester's law on the LDLᵀ pivots of the symmetric part of
        the equilibrated band (``statics_core.KKTFactor.inertia``, its fallbacks included)."""
        from lgbeam.discretisations.rods import stability

        d, skew, big = sc.symmetric_pivots(self.ab, self.core.bw)
        if skew > stability.SYM_TOL * big:
            Kt, B = K()
            return stability.nonsymmetric_count(Kt, mass(), B)
        if np.all(np.isfinite(d)) and np.min(np.abs(d)) > 64 * np.finfo(float).eps * float(np.max(np.abs(d))):
            return int(np.sum(d < 0)) - self.m, 0
        low = self.lower()
        neg = la.eigvals_banded(low, lower=True, select="v", select_range=(-np.inf, -stability.ZERO_TOL))
        near = la.eigvals_banded(low, lower=True, select="v", select_range=(-stability.ZERO_TOL, stability.ZERO_TOL))
        return int(neg.size) - self.m, int(near.size)

    def lower(self) -> FloatArray:
        """The lower band (b + 1, n + m) of the symmetric part of the equilibrated A."""
        bw, a, N = self.core.bw, self.ab, self.core.N
        low = np.zeros((bw + 1, N))
        low[0] = a[2 * bw]
        for k in range(1, bw + 1):  # one slice per band offset
            low[k, : N - k] = 0.5 * (a[2 * bw + k, : N - k] + a[2 * bw - k, k:])
        return low


class CompiledStatics:
    """The compiled statics core of one corotational frame at time t (module docstring)."""

    def __init__(self, S: tuple[Any, ...], n_nodes: int, m: int) -> None:
        self.S, self.nn, self.m = S, n_nodes, m
        self.n = 6 * n_nodes
        self.N = self.n + m
        self.bw = int(S[26])
        self._zero = np.zeros(self.n)
        self._no_seed = (np.empty((0, 0)), np.empty(0), np.empty(0, np.int64))
        self.factorisations = 0  # in Newton solves (profiling)

    @classmethod
    def build(cls, frame: Any, t: float, pos: np.ndarray, w: FloatArray, L: float, F: float) -> CompiledStatics | None:
        """The core of ``frame`` at time t in the KKT order ``pos`` (``statics_core.BandedKKT``), with the norm
        weights w and the scales L, F of ``rods.statics._Equations``; None where it does not apply."""
        fused = getattr(frame, "_corot_fused", None)
        if fused is None or getattr(frame, "ground", None) is not None:
            return None
        sup, jr = fused["supports"], frame.joint_rows
        if (sup is not None and sup.has_springs) or jr.has_springs:
            return None
        c = np.ascontiguousarray
        base = sup.base(t) if sup is not None else fused["no_base"]
        el = fused["elements"]
        idx, vec, spatial = fused["loads"]
        time = -np.asarray(frame._load_scale(t, fused), dtype=float) if idx.size else np.zeros(0)
        i64 = lambda a: c(a, dtype=np.int64)
        S0 = (i64(el[0]), i64(el[1]), c(el[2]), c(el[3]), c(el[4]), c(el[5]),
              i64(fused["support_nodes"][0]), c(base.p, dtype=float), c(base.R, dtype=float), c(base.x, dtype=float),
              i64(fused["support_rows"][0]), c(fused["support_rows"][1], dtype=np.bool_),
              c(fused["support_rows"][2], dtype=float), i64(fused["support_rows"][3]),
              i64(jr.ia), i64(jr.ib), c(jr.c0, dtype=float), i64(jr.row_entry), c(jr.row_rot, dtype=np.bool_),
              c(jr.row_dir, dtype=float), i64(fused["joint_row"]),
              i64(idx), c(vec, dtype=float), c(spatial, dtype=np.bool_), c(time, dtype=float))
        n = 6 * frame.n_nodes
        pos = i64(pos)
        bw = _bandwidth(pos, n, S0)
        S = (*S0, pos, int(bw), float(frame.length_scale), i64(frame.node_offsets), i64(frame._anchors),
             c(w, dtype=float), float(L), float(F), int(3 * bw + 1))
        return cls(S, frame.n_nodes, frame.n_constraints)

    def _q(self, q: FloatArray) -> FloatArray:
        return np.ascontiguousarray(q, dtype=float).reshape(self.nn, 7)

    def residual(self, q: FloatArray, lam: FloatArray, mu: float) -> tuple[FloatArray, FloatArray]:
        """(R (n,), Φ (m,)) at (q, λ, μ)."""
        r, phi = np.empty((self.nn, 6)), np.empty(self.m)
        sc.residual(self._q(q), np.ascontiguousarray(lam, dtype=float), float(mu), self.S, r, phi)
        return r.ravel(), phi

    def load(self, q: FloatArray) -> FloatArray:
        """f (n,) at q (body frames)."""
        f = np.empty((self.nn, 6))
        sc.load_vector(self._q(q), self.S, f)
        return f.ravel()

    def perturb(self, q: FloatArray, dw: FloatArray) -> FloatArray:
        """q "∘" δw (the static retraction)."""
        out = np.empty((self.nn, 7))
        sc.retract(self._q(q), np.ascontiguousarray(dw, dtype=float).reshape(self.nn, 6), self.S, out)
        return out

    def factor(self, q: FloatArray, lam: FloatArray, mu: float) -> CompiledFactor:
        return CompiledFactor(self, self._q(q), np.ascontiguousarray(lam, dtype=float), mu)

    def newton(self, q: FloatArray, lam: FloatArray, mu: float, tol: float, max_iter: int, line_search: bool,
               arc: tuple[FloatArray, float, float] | None,
               seed: CompiledFactor | None = None) -> tuple[FloatArray, FloatArray, float, int, int, float, FloatArray,
                                                            str, int]:
        """``_statics_compiled.newton`` (the matrix kept while the corrections contract by THETA_MAX, seeded with
        ``seed``'s): (q, λ, μ, status, iterations, residual, d, reason,
        factorisations)."""
        c, c_mu, mu0 = (self._zero, 0.0, 0.0) if arc is None else arc
        lu, s, piv = (seed.lu, seed.s, seed.piv) if seed is not None and seed.ok else self._no_seed
        out = sc.newton(self._q(q), np.ascontiguousarray(lam, dtype=float), float(mu), self.S, float(tol),
                        int(max_iter), bool(line_search), arc is not None, np.ascontiguousarray(c, dtype=float),
                        float(c_mu), float(mu0), THETA_MAX, lu, s, piv)
        qn, lam_n, mu_n, status, it, res, d, n_fact = out
        self.factorisations += int(n_fact)
        reason = "" if status == sc.CONVERGED else REASONS.get(status, f"no convergence in {max_iter} iterations")
        return qn, lam_n, float(mu_n), int(status), int(it), float(res), d, reason, int(n_fact)
