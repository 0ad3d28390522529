"""Issue 18: stage solves that do not cap the step, Fourier-space compositions, the exact NLS stage, the
order-4 energy-preserving exponential method and the blow-up statuses.

Independent truths: the composition order conditions, the stage equations' residuals, the physical-space
DISEX composition (seed 003 Theorem 13) for the Fourier-space iteration, the Poisson-map identity
Φ'JΦ'ᵀ = J, conservation of H and of the mass, and the fixed point where it converges. Fitted orders of the
new methods against exact solitons are generated in tests/test_orders.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.discretisations.spectral import NLS, FourierGrid, KdV, nls_soliton
from lgbeam.integrators import Status, make_method
from lgbeam.integrators.poisson import Disex, FixedPoint
from lgbeam.integrators.poisson.compositions import COMPOSITIONS, SUZUKI4, composition
from lgbeam.integrators.poisson.spectral import SpectralComposition, SpectralEnergyComposition, phi1
from lgbeam.integrators.poisson.stage import NewtonKrylov, solve_stage
from lgbeam.solve import AdaptiveStep, ConstantStep, SaveAt, integrate

LAST = SaveAt(steps=10**6)


def _nls_table_data(g: FourierGrid):
    """notes/003-ch2.md §6 initial data: ψ₀ = 0.5 e^{ix}(1 + 0.2 cos x) + 0.3 e^{−2ix}."""
    return 0.5 * np.exp(1j * g.x) * (1 + 0.2 * np.cos(g.x)) + 0.3 * np.exp(-2j * g.x)


def _soliton(n=129, form="complex"):
    L = 60.0
    g = FourierGrid(n, L)
    sysm = NLS(g, kappa=-1.0, form=form)
    return sysm, sysm.from_field(nls_soliton(g.x, 0.0, eta=1.0, velocity=2 * np.pi / L * 4, x0=L / 2, length=L))


def _zk(n=401):
    g = FourierGrid(n)
    return KdV(g, nu=5e-4), np.cos(g.x)


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_composition_coefficients_satisfy_their_order_conditions(name):
    c = COMPOSITIONS[name]
    g = c.b_array
    assert abs(g.sum() - 1) < 1e-15  # consistency, to round-off
    np.testing.assert_array_equal(g, g[::-1])  # symmetric: order even, composition of a symmetric method
    for k in range(3, c.order, 2):  # Σγ^k = 0 for k = 3, 5, … < order (Hairer–Lubich–Wanner §V.3.2)
        assert abs(np.sum(g**k)) < 2e-13, (name, k)  # printed digits: Yoshida 15, Kahan–Li 20
    assert abs(np.sum(g ** c.order)) > 1e-3 or c.order == 8  # the next condition is not met (order exact)


def test_unknown_composition_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown composition 'yoshida4'; known compositions: triple-jump4, "
                                         r"suzuki4, yoshida6, kahan-li6, kahan-li8"):
        composition("yoshida4")
    with pytest.raises(ValueError, match="known compositions"):
        SpectralComposition(coefficients="ruth3")
    assert composition(SUZUKI4) is SUZUKI4


@pytest.mark.parametrize("form", ["complex", "real"])
@pytest.mark.parametrize("c", [1e-12, 0.01, 0.5, 20.0])
def test_exact_nls_stage_solves_the_stage_equation(form, c):
    sysm, _ = _soliton(33, form)
    rng = np.random.default_rng(3)
    base = sysm.from_field(2.0 * (rng.standard_normal(33) + 1j * rng.standard_normal(33)))
    Q = sysm.solve_stage(base, c)
    residual = np.abs(Q - base - c * sysm.nonlinear_field(Q)).max()
    assert residual <= 1e-14 * max(1.0, np.abs(base).max()) * max(1.0, c)  # round-off of the closed form
    # 2Q − base = base · (1 − iθ)/(1 + iθ): the sub-step keeps |ψ| node by node (mass exactly)
    assert abs(sysm.l2_mass(2 * Q - base) - sysm.l2_mass(base)) <= 1e-14 * sysm.l2_mass(base)


def test_phi1_series_and_closed_form_agree():
    z = np.array([0.0, 1e-8j, 0.3 - 0.2j, 0.999j, 1.001j, 5j, -40j])
    ref = np.array([1.0] + [(np.exp(x) - 1) / x for x in z[1:]])
    ref[1] = 1.0 + 0.5e-8j  # (e^z − 1)/z loses digits at |z| = 1e-8; its series is 1 + z/2 + O(z²)
    np.testing.assert_allclose(phi1(z), ref, rtol=1e-14, atol=1e-16)


@pytest.mark.parametrize("stage", ["fixed-point", "exact"])
def test_fourier_composition_equals_the_physical_composition(stage):
    """Iterating in Fourier coefficients changes where the work is done, not the method: Suzuki's
    composition of exponential midpoints equals DISEX with b = γ (seed 003 Theorem 13) in physical space."""
    sysm, y0 = _soliton()
    tol = 1e-14
    fourier = SpectralComposition(coefficients="suzuki4", solver=FixedPoint(tol=tol), stage=stage)
    physical = Disex(coefficients=SUZUKI4, solver=FixedPoint(tol=tol))
    a = integrate(sysm, fourier, y0, (0.0, 0.5), controller=ConstantStep(0.05), save=LAST)
    b = integrate(sysm, physical, y0, (0.0, 0.5), controller=ConstantStep(0.05), save=LAST)
    assert a.status == b.status == "ok"
    # 50 solves at tol 1e-14, contraction < 0.2; the Fourier solve tests coefficient increments, whose
    # grid values can be up to N = 129 times larger: 50 · 129 · 1.25e-14 ≈ 8e-11 (physical solves: 1e-12)
    assert np.abs(a.y[-1] - b.y[-1]).max() <= (1e-10 if stage == "fixed-point" else 1e-12)
    if stage == "exact":
        assert a.iterations.sum() == 5 * 10  # one pointwise solve per stage, no iteration


def test_exponential_compositions_are_poisson_maps():
    """Φ'JΦ'ᵀ = J for the exact-stage Suzuki and Kahan–Li 8 compositions (NLS N = 11, h = 0.1)."""
    g = FourierGrid(11)
    sysm = NLS(g)
    y = sysm.from_field(_nls_table_data(g))
    J = np.stack([sysm.apply_S(e) for e in np.eye(y.size)], axis=1)
    for name in ("exp-suzuki4", "exp-kahan-li8"):
        m = make_method(name)

        def step(z, m=m):
            z, cache = m.init(sysm, 0.0, z)
            return m.step(sysm, 0.0, 0.1, z, cache).y

        cols = [(step(y + 1e-6 * e) - step(y - 1e-6 * e)) / 2e-6 for e in np.eye(y.size)]
        P = np.stack(cols, axis=1)
        assert np.abs(P @ J @ P.T - J).max() <= 1e-8, name  # central FD: O(eps²) + round-off/eps


def test_energy_exp4_keeps_energy_and_is_more_accurate():
    """H to round-off over 200 steps (Theorem 14 per sub-step) and the mass to the method's error."""
    sysm, y0 = _soliton(257)  # spatial error e^{−πk_max/2} ≈ 7e-10, below both methods' time errors
    run = integrate(sysm, "energy-exp4", y0, (0.0, 10.0), controller=ConstantStep(0.05), save=SaveAt(steps=20))
    assert run.status == "ok"
    E = run.steps["energy"]
    assert np.abs(E - E[0]).max() <= 1e-12 * abs(E[0])  # solver tol 1e-14 × 1000 sub-steps, measured 2e-13
    exact = nls_soliton(sysm.grid.x, 10.0, eta=1.0, velocity=2 * np.pi / 60 * 4, x0=30.0, length=60.0)
    two = integrate(sysm, "energy-exp", y0, (0.0, 10.0), controller=ConstantStep(0.05), save=LAST)
    # order 4 vs 2 at h = 0.05: measured 1.5e-6 against 7.5e-4 (N = 1023); 5× margin on the ratio
    assert np.abs(run.y[-1] - exact).max() <= 1e-2 * np.abs(two.y[-1] - exact).max()
    assert isinstance(make_method("energy-exp4"), SpectralEnergyComposition)


def test_newton_krylov_solves_where_the_fixed_point_cannot():
    """KdV (ν = 5e-4, u₀ = cos x, n = 401), stage c = h/2 = 0.02: contraction c k_max max|u| = 4."""
    kdv, u = _zk()
    c = 0.02
    base = kdv.phi(0, c, u)
    fp = FixedPoint().solve(lambda q: base + c * kdv.nonlinear_field(q), base)
    assert not fp.converged
    res = NewtonKrylov().solve(kdv, base, c, base)
    assert res.converged and res.iterations > 0
    assert np.abs(res.x - base - c * kdv.nonlinear_field(res.x)).max() <= 1e-13  # the stage equation itself
    small = 0.002  # where both converge they agree to the tolerance
    b2 = kdv.phi(0, small, u)
    a = solve_stage("fixed-point", FixedPoint(), kdv, b2, small, b2)
    n = solve_stage("newton", FixedPoint(), kdv, b2, small, b2)
    assert a.converged and n.converged and np.abs(a.x - n.x).max() <= 1e-13


def test_auto_stage_converges_at_every_step_where_energy_exp_does():
    """KdV n = 401 at h = 0.02 over 40 steps: the fixed point of exp-midpoint fails at step 1 with a status
    naming the step, the iterations and the residual; stage="auto" converges at every step, as energy-exp
    does, and DISEX with "auto" too (its sub-steps reach 2h·γ₃/2 ≈ 0.02)."""
    kdv, u = _zk()
    span, ctl = (0.0, 0.8), ConstantStep(0.02)
    failed = integrate(kdv, "exp-midpoint", u, span, controller=ctl)
    assert failed.status == Status.SOLVER_FAILED and failed.n_steps == 0
    assert "step 1" in failed.message and "iterations" in failed.message and "relative increment" in failed.message
    assert np.array_equal(failed.y[-1], u)  # the last good state is kept
    assert integrate(kdv, "energy-exp", u, span, controller=ctl).status == "ok"
    auto = integrate(kdv, make_method("exp-midpoint", stage="auto"), u, span, controller=ctl)
    assert auto.status == "ok" and auto.n_steps == 40 and auto.iterations.min() > 0
    disex = integrate(kdv, make_method("disex", stage="auto"), u, (0.0, 0.2), controller=ConstantStep(0.01))
    assert disex.status == "ok"
    assert integrate(kdv, "disex", u, (0.0, 0.2), controller=ConstantStep(0.01)).status == Status.SOLVER_FAILED


def test_default_stage_solver_is_unchanged_and_bad_stage_input_is_refused():
    kdv, u = _zk(41)
    assert make_method("exp-midpoint").stage == "fixed-point" and make_method("disex").stage == "fixed-point"
    with pytest.raises(ValueError, match="unknown stage solver 'broyden'; choose one of fixed-point, newton"):
        make_method("exp-midpoint", stage="broyden")
    with pytest.raises(ValueError, match="stage='exact' needs a system with solve_stage"):
        integrate(kdv, make_method("disex", stage="exact"), u, (0.0, 0.1), controller=ConstantStep(0.01))
    with pytest.raises(ValueError, match="has no option 'stage'"):
        make_method("energy-exp4", stage="newton")
    with pytest.raises(ValueError, match=r"odd number of nodes >= 3, got n_nodes=256; use 255 or 257"):
        FourierGrid(256)


def test_blow_up_is_never_ok_energy_and_mass():
    """The driver's growth check against the initial value (Poisson methods, factor 10), through a method's
    diagnostics (energy) and a diagnostics function (mass): a growth spread over many steps is caught."""
    sysm, y0 = _soliton(65)

    def growing(t, y):  # energy conserved, mass growing 2 % a step: exceeds 10× after ≈ 117 steps
        return {"energy": 1.0, "mass": 1.02 ** round(t / 0.01)}

    run = integrate(sysm, "exp-suzuki4", y0, (0.0, 2.0), controller=ConstantStep(0.01), diagnostics=growing)
    assert run.status == Status.MASS_GROWTH and 100 < run.n_steps < 130
    assert "mass" in run.message and "initial" in run.message
    ok = integrate(sysm, "exp-suzuki4", y0, (0.0, 2.0), controller=ConstantStep(0.01), diagnostics=growing,
                   energy_growth=None)
    assert ok.status == "ok"  # the check can be switched off


def test_adaptive_composition_follows_its_tolerance_and_keeps_the_mass():
    """exp-suzuki4-adaptive on the soliton: the error falls with the tolerance (order-4 estimate against the
    exact solution), every step keeps the mass to round-off (a Poisson map with the exact stage)."""
    sysm, y0 = _soliton(257)
    exact = nls_soliton(sysm.grid.x, 2.0, eta=1.0, velocity=2 * np.pi / 60 * 4, x0=30.0, length=60.0)
    errs, steps = [], []
    for tol in (1e-5, 1e-7):
        run = integrate(sysm, "exp-suzuki4-adaptive", y0, (0.0, 2.0), controller=AdaptiveStep(rtol=tol, atol=tol),
                        save=LAST)
        assert run.status == "ok"
        M = run.steps["mass"][run.steps["accepted"].astype(bool)]
        assert np.abs(M - M[0]).max() <= 1e-13 * M[0]  # |2Q − base| = |base| node by node, to round-off
        errs.append(np.abs(run.y[-1] - exact).max())
        steps.append(run.n_steps)
    assert steps[1] > steps[0] and errs[1] < 0.1 * errs[0]  # 100× tighter: (100)^(4/5) ≈ 40× smaller, measured 43×
    with pytest.raises(ValueError, match="no embedded error estimate"):
        integrate(sysm, "exp-suzuki4", y0, (0.0, 1.0), controller=AdaptiveStep(rtol=1e-6, atol=1e-6))


@pytest.mark.slow
def test_fig24_disex_blow_up_ends_with_a_status():
    """Seed 003 Fig. 2.4's setting (NLS n = 161, h = 0.01): DISEX blows up after t ≈ 11 (docs/spectral.md);
    the run used to report "ok" at a relative energy error of 1.8e2, and now stops with energy_growth."""
    g = FourierGrid(161)
    sysm = NLS(g)
    run = integrate(sysm, "disex", sysm.from_field(_nls_table_data(g)), (0.0, 20.0), controller=ConstantStep(0.01))
    assert run.status == Status.ENERGY_GROWTH and 10.0 < run.t[-1] < 15.0


def test_fixed_point_stops_at_round_off_stagnation():
    """A tolerance no iterate can meet (1e-20): the fixed point stops where its increments stop shrinking at
    the round-off floor (≤ 100 ε·|Q|), converged, long before max_iter, at a Q whose stage residual is
    round-off (the stage equation is the independent truth)."""
    from lgbeam.discretisations.spectral import kdv_soliton
    from lgbeam.integrators.poisson.base import stage_map

    g = FourierGrid(255, 40.0)
    kdv = KdV(g, nu=1.0)
    u = kdv_soliton(g.x, 0.0, c=4.0, nu=1.0, x0=15.0, length=40.0)  # amplitude 12
    for h in (0.002, 0.004):  # contraction |h/2|·k_max·max|u| ≈ 0.24, 0.48
        base = kdv.phi(0, 0.5 * h, u)
        G = stage_map(kdv, base, 0.5 * h)
        res = FixedPoint(tol=1e-20).solve(G, base)
        assert res.converged and res.iterations < 40 and res.residual <= 100 * np.finfo(float).eps
        assert np.abs(G(res.x) - res.x).max() <= 20 * np.finfo(float).eps * np.abs(res.x).max()


def _linear_growth(name, system, y0, h):
    """Largest |eigenvalue| of the one-step map linearised about the uniform defocusing background (in the
    frame rotating with it), by central differences in the real coordinates (Re ψ, Im ψ)."""
    m = make_method(name, stage="exact")

    def step(y):
        return m.step(system, 0.0, h, y, m.init(system, 0.0, y0)[1]).y

    base = step(y0)
    rot = np.conj(base[0] / abs(base[0]))
    n, eps = y0.size, 1e-6
    J = np.zeros((2 * n, 2 * n))
    for j in range(2 * n):
        d = np.zeros(n, complex)
        d[j % n] = eps if j < n else 1j * eps
        col = (step(y0 + d) - step(y0 - d)) * rot / (2 * eps)
        J[:n, j], J[n:, j] = col.real, col.imag
    return float(np.abs(np.linalg.eigvals(J)).max())


@pytest.mark.parametrize("name", ["exp-midpoint", "exp-suzuki4", "disex"])
def test_stable_step_bound_holds_and_is_sharp_for_the_midpoint(name, caplog):
    """The resonance-free bound h(ρ(SA) + Σ|γ|·L) < π (stability.py): below it the linearised step map about
    a defocusing plane-wave background (a Bogoliubov-stable state) has no eigenvalue off the unit circle
    (|μ| ≤ 1 + 1e-4: FD noise on the double eigenvalues of ±k is ~1e-5); for exp-midpoint the first
    resonance h(k_max² + 2a²) = π sits 1.6 % above the bound and is unstable there (|μ| ≈ 1.02 a step).
    Measured scan 0.3…3 × bound: first unstable band exp-midpoint 1.01×, exp-suzuki4 1.19×, disex 1.16×."""
    import logging

    from lgbeam.integrators.poisson.stability import stable_step_bound

    g = FourierGrid(33)  # k_max = 16
    sysm = NLS(g, kappa=1.0, form="complex")
    y0 = np.full(33, 1.0, complex)
    weights = (1.0,) if name == "exp-midpoint" else make_method(name).coefficients.b
    bound = stable_step_bound(sysm, y0, weights)
    assert bound == pytest.approx(np.pi / (256.0 + 6.0 * np.sum(np.abs(weights))), rel=1e-12)
    for f in (0.5, 0.9, 0.99):
        assert _linear_growth(name, sysm, y0, f * bound) <= 1 + 1e-4, f
    if name == "exp-midpoint":
        assert _linear_growth(name, sysm, y0, 1.01 * bound) >= 1.01
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="lgbeam.integrators.poisson.stability"):
        integrate(sysm, make_method(name, stage="exact"), y0, (0.0, 3 * 0.99 * bound),
                  controller=ConstantStep(0.99 * bound), diagnostics=False)
        assert not caplog.records
        integrate(sysm, make_method(name, stage="exact"), y0, (0.0, 3 * 1.5 * bound),
                  controller=ConstantStep(1.5 * bound), diagnostics=False)
    assert len(caplog.records) == 1 and "resonance-free step" in caplog.records[0].getMessage()


def test_diagnostics_false_still_stops_a_blow_up():
    """The review's Peregrine datum (N = 511, L = 40): DISEX (exact stage) at h = 0.01 blows up by t = 1.1. With
    diagnostics=False the driver's always-on check (the method's ``blowup_invariants``) stops it with
    ``energy_growth`` at the last good state; with every check switched off the same run ends "ok" on a state whose
    H grew > 10× |H₀| while the mass, a quadratic invariant every exponential-midpoint composition keeps, is
    unchanged to round-off (so the energy, not the mass, is the check that catches it)."""
    L = 40.0
    g = FourierGrid(511, L)
    sysm = NLS(g, kappa=-1.0, form="complex")
    xp, t0 = g.x - L / 2, -1.0
    y0 = (1.0 - 4.0 * (1 + 4j * t0) / (1 + 4 * xp**2 + 16 * t0**2)).astype(complex)
    m = make_method("disex", stage="auto", tol=1e-10)
    stopped = integrate(sysm, m, y0, (0.0, 2.0), controller=ConstantStep(0.01), diagnostics=False, save=LAST)
    assert stopped.status is Status.ENERGY_GROWTH and 0.5 < stopped.stats["t_final"] < 2.0, stopped.message
    run = integrate(sysm, m, y0, (0.0, 2.0), controller=ConstantStep(0.01), diagnostics=False, save=LAST,
                    energy_growth=None, drift_factor=None)  # both energy checks off (growth factor, |H − H₀|)
    assert run.status is Status.OK
    first, last = m.blowup_invariants(sysm, 0.0, y0, None), m.blowup_invariants(sysm, 2.0, run.y[-1], None)
    assert set(first) == {"energy", "energy_scale", "mass"}
    assert first["energy"] == pytest.approx(sysm.hamiltonian(y0), rel=1e-14)
    assert abs(last["energy"]) > 10 * abs(first["energy"])  # measured 1.4e5 against −258
    assert last["mass"] == pytest.approx(first["mass"], rel=1e-10)
    held = m.blowup_invariants(sysm, 0.0, stopped.y[-1], None)  # the last good state is not blown up
    assert abs(held["energy"]) <= 10 * abs(first["energy"])
