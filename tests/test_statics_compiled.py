"""The compiled statics core of a corotational frame (issue 34 item 3; lgbeam/discretisations/frames/
_statics_compiled.py, compiled_statics.py; docs/statics.md "Compiled statics core"). Truths: the numpy statics core
(``rods.statics_core.BandedKKT`` over the protocol's CSR tangent terms, ``static_retraction``, the Python Newton),
central differences of the compiled residual (the tangent), ARPACK (the critical mode)."""

from __future__ import annotations

import numpy as np
import pytest
from test_statics_core import _toggle  # the snap-through toggle, corotational elements (the default)

from lgbeam.discretisations.frames import _statics_compiled as sc
from lgbeam.discretisations.rods import statics
from lgbeam.discretisations.rods.statics import _ArcLength, _Equations, critical_mode, solve_static


def _dense(ab: np.ndarray, bw: int, perm: np.ndarray) -> np.ndarray:
    """The matrix of a band in dgbtrf storage (fill rows ignored), back in the original order."""
    N = ab.shape[1]
    A = np.zeros((N, N))
    for k in range(-bw, bw + 1):  # one diagonal per offset
        i = np.arange(max(0, -k), min(N, N - k))
        A[i, i + k] = ab[2 * bw - k, i + k]
    out = np.empty_like(A)
    out[np.ix_(perm, perm)] = A
    return out


@pytest.fixture(scope="module")
def loaded() -> tuple:
    """The 4-element-per-member toggle frame off equilibrium: a deformed state, multipliers of 1e5 N, μ = 0.4."""
    frame = _toggle(4)
    eq = _Equations(frame, 0.0)
    rng = np.random.default_rng(5)
    q = eq.perturb(frame.q_ref, 3e-2 * rng.standard_normal(eq.n))
    return frame, eq, q, 1e5 * rng.standard_normal(eq.m), 0.4


def test_the_compiled_kkt_band_is_the_numpy_cores(loaded):
    """The band assembled in one compiled pass equals BandedKKT's band of the protocol's CSR terms (K_e, −μ∂f/∂w,
    Z(λ) of supports and joints, B) to 1e-9 of its largest entry (Z by central differences: 1e-10)."""
    _, eq, q, lam, mu = loaded
    fast = eq.fast
    assert fast is not None
    ab = np.empty((fast.S[33], fast.N))
    sc.assemble(q, lam, mu, fast.S, ab)
    ref_ab, _ = eq.kkt.assemble(*eq.parts(q, lam, mu))
    A, ref = _dense(ab, fast.bw, eq.kkt.perm), _dense(ref_ab, eq.kkt.bw, eq.kkt.perm)
    assert np.max(np.abs(A - ref)) <= 1e-9 * np.max(np.abs(ref))
    z = ref[: eq.n, : eq.n] - _dense_without_constraints(eq, q, mu)  # the Z(λ) part is checked, not only K_e
    assert np.max(np.abs(z)) > 1e3 * np.max(np.abs(A - ref))


def _dense_without_constraints(eq: _Equations, q: np.ndarray, mu: float) -> np.ndarray:
    ref_ab, _ = eq.kkt.assemble(*eq.parts(q, np.zeros(eq.m), mu))
    return _dense(ref_ab, eq.kkt.bw, eq.kkt.perm)[: eq.n, : eq.n]


def test_the_compiled_tangent_is_the_central_difference_of_the_compiled_residual(loaded):
    """K_t e_k = (R(q ∘ exp(h e_k)) − R(q ∘ exp(−h e_k)))/2h (h = 1e-6 rad, 1e-6 m) for every dof of the frame,
    and B likewise from Φ, at the state off equilibrium (a non-symmetric K_t): within 1e-6 of max|K_t|."""
    frame, eq, q, lam, mu = loaded
    fast, G = eq.fast, frame.G
    ab = np.empty((fast.S[33], fast.N))
    sc.assemble(q, lam, mu, fast.S, ab)
    A = _dense(ab, fast.bw, eq.kkt.perm)
    n, h = eq.n, 1e-6
    fd = np.empty((n + eq.m, n))
    for k in range(n):
        w = np.zeros(n)
        w[k] = h
        plus = fast.residual(G.compose(q, G.exp(w.reshape(-1, 6))), lam, mu)
        minus = fast.residual(G.compose(q, G.exp(-w.reshape(-1, 6))), lam, mu)
        fd[:, k] = np.concatenate([plus[0] - minus[0], plus[1] - minus[1]]) / (2 * h)
    K = A[:n, :n]
    assert np.max(np.abs(K - fd[:n])) <= 1e-6 * np.max(np.abs(K))
    assert np.max(np.abs(A[n:, :n] - fd[n:])) <= 1e-6
    assert np.max(np.abs(K - K.T)) > 1e3 * np.max(np.abs(K - fd[:n]))  # off equilibrium: a non-symmetric K_t


def test_the_compiled_retraction_residual_and_load_are_the_numpy_ones(loaded):
    frame, eq, q, lam, mu = loaded
    fast = eq.fast
    dw = 1e-2 * np.random.default_rng(2).standard_normal(eq.n)
    np.testing.assert_allclose(fast.perturb(q, dw), frame.static_retraction(q, dw), rtol=0, atol=1e-14)
    r, phi = fast.residual(q, lam, mu)
    r_ref = frame.forces(0.0, q, np.zeros(eq.n)) + (1 - mu) * frame.external_forces(0.0, q)
    r_ref = r_ref + frame.constraint_jacobian_t(0.0, q).T @ lam
    np.testing.assert_allclose(r, r_ref, rtol=0, atol=1e-8 * np.max(np.abs(r_ref)))
    np.testing.assert_allclose(phi, frame.constraints_t(0.0, q), rtol=0, atol=1e-15)
    np.testing.assert_allclose(fast.load(q), frame.external_forces(0.0, q), rtol=0, atol=1e-9)


def test_compiled_newton_with_a_matrix_per_iterate_is_the_python_newton(loaded, monkeypatch):
    """θ_max = 0 (a matrix at every iterate): the compiled corrector takes the Python Newton's iterations, arc-length
    constraint and damping included, to the same state (the Python one on the numpy core)."""
    frame, eq, _, _, mu = loaded
    rng = np.random.default_rng(1)
    q = eq.perturb(frame.q_ref, 1e-3 * rng.standard_normal(eq.n))
    t = rng.standard_normal(eq.n) * eq.w**2
    kw = {"tol": 1e-10, "max_iter": 25, "line_search": True, "arc": (t, 0.3, mu)}
    monkeypatch.setattr("lgbeam.discretisations.frames.compiled_statics.THETA_MAX", 0.0)
    fast = statics._newton(eq, q, np.zeros(eq.m), mu, **kw)
    monkeypatch.setattr(statics, "COMPILED_CORE", False)
    frame._cache.clear()
    ref = statics._newton(_Equations(frame, 0.0), q, np.zeros(eq.m), mu, **kw)
    assert fast.converged and ref.converged and fast.iterations == ref.iterations >= 3
    assert fast.mu == pytest.approx(ref.mu, rel=1e-9)
    np.testing.assert_allclose(fast.q, ref.q, atol=1e-9)


def test_the_compiled_path_is_the_numpy_cores_path(monkeypatch):
    """The snap-through path of the toggle frame: both limit loads, the end state and the stability counts are the
    numpy core's (the kept-matrix Newton takes other iterations and steps: equal to the tolerance)."""
    def run():
        frame = _toggle(4)
        return solve_static(frame, method="arc-length", arc_length=0.2, max_steps=200, load_factor=1.0)

    fast = run()
    monkeypatch.setattr(statics, "COMPILED_CORE", False)
    ref = run()
    assert fast.status == ref.status == "ok"
    lim = [[e.load_factor for e in p.events if e.kind == "limit point"] for p in (fast, ref)]
    assert len(lim[0]) == len(lim[1]) == 2
    np.testing.assert_allclose(lim[0], lim[1], rtol=1e-8)
    assert fast.final.load_factor == pytest.approx(1.0) and ref.final.load_factor == pytest.approx(1.0)
    np.testing.assert_allclose(fast.final.q, ref.final.q, atol=1e-8)
    assert {s.n_negative for s in fast.states} == {s.n_negative for s in ref.states} == {0, 1}


def test_the_critical_mode_by_inverse_iteration_is_arpacks():
    """At the state after each limit point the inverse iteration on the compiled factorisation gives ARPACK's
    eigenvalue nearest zero (1e-8) and mode (1e-6, up to sign)."""
    frame = _toggle(4)
    path = solve_static(frame, method="arc-length", arc_length=0.2, max_steps=200, load_factor=1.0)
    eq = _Equations(frame, 0.0)
    runner = _ArcLength(eq, [path.states[0]], {}, load_steps=1, max_cutbacks=1, target=1.0, arc_length=0.2,
                        max_steps=1, check=True, switch=False)
    for ev in path.events:
        st = path.states[ev.after]
        value, mode = runner.critical(st)
        ref_value, ref_mode = critical_mode(frame, st, 0.0)
        assert value == pytest.approx(ref_value, rel=1e-8)
        assert min(np.max(np.abs(mode - ref_mode)), np.max(np.abs(mode + ref_mode))) <= 1e-6
