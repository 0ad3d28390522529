"""Geometric exponential integrators and baselines on NLS/KdV: invariants, Poisson-map property,
Theorem 13, the classical baselines' order against a DISEX reference, solver failure handling.

The fitted orders of every registered Poisson method against the exact NLS and KdV solitons are in
``test_orders.py`` (generated from the method registry)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.spectral import NLS, FourierGrid, KdV, nls_soliton
from lgbeam.integrators import METHODS, Status, make_method, methods_for
from lgbeam.integrators.poisson import (
    DISEX1,
    DISEX6,
    Disex,
    DisexCoefficients,
    ExponentialMidpoint,
    FixedPoint,
    disex_tableau_step,
)
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.systems import SemilinearPoissonSystem

LAST = SaveAt(steps=10**6)  # keep the initial and the final state only


def _step(method, system, h, y):
    """One step from y of a fresh run (``init``: no predictor history)."""
    y, cache = method.init(system, 0.0, y)
    return method.step(system, 0.0, h, y, cache)


def _run(system, method, y0, h, t_end, save=None, **kwargs):
    """Fixed steps h over [0, t_end] (the last one shortened to land on t_end)."""
    return integrate(system, method, y0, (0.0, t_end), controller=ConstantStep(h), save=save, **kwargs)


def _nls_table_data(g: FourierGrid):
    """notes/003-ch2.md §6 initial data: ψ₀ = 0.5 e^{ix}(1 + 0.2 cos x) + 0.3 e^{−2ix}."""
    x = g.x
    return 0.5 * np.exp(1j * x) * (1 + 0.2 * np.cos(x)) + 0.3 * np.exp(-2j * x)


def _rel_energy_error(system, run):
    """max_k |H_k − H_0| / (|½⟨y,Ay⟩| + |U|) at t = 0 (the scale of H's two parts; for KdV H itself is
    a near-cancellation, H₀ ≈ −0.05 against parts of size ~30 at t = 5)."""
    E = run.steps["energy"]
    y0 = run.y[0]
    scale = abs(0.5 * system.inner(y0, system.apply_A(y0))) + abs(system.potential(y0))
    ys = run.y
    scale = max(scale, max(abs(0.5 * system.inner(y, system.apply_A(y))) + abs(system.potential(y)) for y in ys))
    return float(np.max(np.abs(E - E[0])) / scale)


def test_fixed_point_solver_converges_and_detects_failure():
    res = FixedPoint(tol=1e-15).solve(np.cos, np.array([1.0]))
    assert res.converged and abs(res.x[0] - 0.7390851332151607) < 4e-15  # Dottie number; error ≤ q/(1−q)·tol, q = 0.67
    slow = FixedPoint(tol=1e-15, max_iter=5).solve(np.cos, np.array([1.0]))
    assert not slow.converged and slow.reason == "max_iter" and slow.iterations == 5
    div = FixedPoint().solve(lambda x: 3.0 * x + 1.0, np.array([1.0]))
    assert not div.converged and div.reason == "diverged"
    over = FixedPoint(divergence_factor=1e300).solve(lambda x: x * x + 1e200, np.array([1e200]))
    assert not over.converged and over.reason == "diverged"  # overflow caught, not raised
    with pytest.raises(ValueError, match="tol"):
        FixedPoint(tol=0.0)


def test_disex6_coefficient_conditions():
    b = DISEX6.b_array
    assert abs(b.sum() - 1) < 1e-15  # consistency (printed digits sum to 1 − 9e−16)
    assert abs(np.sum(b**3)) < 2e-14  # composition order-3 condition, to the printed 16 digits
    assert abs(np.sum(b**5)) < 2e-13  # order-5 condition Σb⁵ = 0 (notes: −6e−14)
    assert_allclose(DISEX6.c, [0.25400, 1.18806, 2.87776, 4.17169, 3.72605, 1.99806], atol=5e-6)  # notes §2.2
    assert_allclose(DISEX6.a.sum(axis=1), DISEX6.c, rtol=1e-15)  # row sums = nodes
    with pytest.raises(ValueError, match="sum"):
        DisexCoefficients("bad", (0.5, 0.6), 2)


@pytest.mark.parametrize("form", ["real", "complex"])
def test_theorem13_composition_equals_tableau(form):
    g = FourierGrid(21)
    sysm = NLS(g, form=form)
    y = sysm.from_field(_nls_table_data(g))
    solver = FixedPoint(tol=1e-15)
    comp = _step(Disex(solver=solver), sysm, 0.01, y)
    tab = disex_tableau_step(sysm, 0.01, y, solver=solver)
    assert comp.status is Status.OK and tab.status is Status.OK
    assert_allclose(tab.y, comp.y, atol=1e-13)  # both solved to 1e-15; 6 stages of round-off
    one = _step(Disex(coefficients=DISEX1, solver=solver), sysm, 0.05, y)
    assert_allclose(one.y, _step(ExponentialMidpoint(solver), sysm, 0.05, y).y, atol=0)  # s = 1 is exp-midpoint


def _fd_jacobian(step, y, eps=1e-6):
    cols = [(step(y + eps * e) - step(y - eps * e)) / (2 * eps) for e in np.eye(y.size)]
    return np.stack(cols, axis=1)


def test_exponential_midpoint_is_a_poisson_map():
    """Theorem 12: Φ' J Φ'ᵀ = J (finite-difference Jacobian, NLS N = 11, h = 0.3); energy-exp is not."""
    g = FourierGrid(11)
    sysm = NLS(g)
    y = sysm.from_field(_nls_table_data(g))
    J = np.stack([sysm.apply_S(e) for e in np.eye(y.size)], axis=1)
    defects = {}
    for name in ("exp-midpoint", "disex", "energy-exp"):
        m = make_method(name, tol=1e-15)
        P = _fd_jacobian(lambda z, m=m, name=name: _step(m, sysm, 0.3 if name != "disex" else 0.05, z).y, y)
        defects[name] = np.abs(P @ J @ P.T - J).max()
    assert defects["exp-midpoint"] <= 1e-9  # issue 6 bound; central FD error O(eps²) + 1e-15/eps
    assert defects["disex"] <= 1e-9  # composition of Poisson maps (Theorem 13)
    assert defects["energy-exp"] >= 1e-4  # negative control (notes §6: 4.8e-2)


def test_energy_exp_preserves_nls_energy_fig23():
    g = FourierGrid(161)
    sysm = NLS(g, form="complex")
    run = _run(sysm, "energy-exp", sysm.from_field(_nls_table_data(g)), 0.1, 100.0, SaveAt(steps=100))
    assert run.status == "ok" and run.n_steps == 1000
    assert _rel_energy_error(sysm, run) <= 1e-12  # issue 6 / Fig. 2.3 (solver tol 1e-14)
    assert 8 <= run.iterations.mean() <= 24  # thesis Table 2.3: 12 (within a factor 2)


def test_energy_exp_preserves_kdv_energy_fig27():
    g = FourierGrid(401)
    kdv = KdV(g, nu=5e-4)
    run = _run(kdv, "energy-exp", np.cos(g.x), 0.005, 5.0, SaveAt(steps=50))
    assert run.status == "ok" and run.n_steps == 1000
    assert _rel_energy_error(kdv, run) <= 1e-12  # Fig. 2.7, relative to the scale of H's parts
    E = np.array([kdv.hamiltonian(u) for u in run.y])
    # relative to |H₀| itself: H₀ = −0.050 is a difference of parts of size ≈ 38.5 late in the run, so
    # 1e-12·|H₀| = 5e-14 is below one step's rounding; measured floor 1.3e-10 for tol 1e-14…1e-16
    # (docs/exponential-integrators.md "KdV energy"), bound ×5 for platform round-off differences
    assert np.abs(E - E[0]).max() / abs(E[0]) <= 7e-10
    mass = np.array([np.sum(u) for u in run.y]) * g.dx
    assert np.abs(mass - mass[0]).max() <= 1e-12  # Casimir Σu (J = −D1 kills the zero mode)
    assert 7 <= run.iterations.mean() <= 30  # thesis Table 2.4: 14.9 (within a factor 2)


def test_discrete_gradient_method_conserves_energy():
    g = FourierGrid(21)
    sysm = NLS(g)
    run = _run(sysm, "discrete-gradient", sysm.from_field(_nls_table_data(g)), 0.005, 2.0)
    assert _rel_energy_error(sysm, run) <= 1e-13  # (2.13): exact up to the solver tolerance


def test_exp_midpoint_energy_bounded_without_drift():
    """Exp-midpoint on the Table 2.3 NLS at n = 41, h = 0.05 (the kind of run behind Fig. 2.2, not its data;
    Fig. 2.4's DISEX is not run here): bounded energy error, the error envelope does not grow from the first to
    the last quarter of a long run (a drift would grow linearly)."""
    g = FourierGrid(41)
    sysm = NLS(g, form="complex")
    run = _run(sysm, "exp-midpoint", sysm.from_field(_nls_table_data(g)), 0.05, 100.0, SaveAt(steps=4000))
    err = np.abs(run.steps["energy"] - run.steps["energy"][0])
    q = err.size // 4
    assert err.max() <= 1e-2 * abs(run.steps["energy"][0])  # bounded: O(h²) relative
    assert err[-q:].max() <= 1.5 * err[:q].max()  # no drift over 2000 steps (linear drift: ×4)


def test_classical_baselines_order_against_disex_reference():
    """Midpoint (fixed point and quasi-Newton) and discrete gradient: order 2 against a second method
    (DISEX, h = 1/1000, error ~1e−13) on the same semi-discrete NLS (N = 21, thesis-like data)."""
    g = FourierGrid(21)
    sysm = NLS(g)
    y0 = sysm.from_field(_nls_table_data(g))
    ref = _run(sysm, "disex", y0, 1 / 1000, 0.5, LAST).y[-1]
    hs = [1 / 100, 1 / 200, 1 / 400]
    for name in ("midpoint", "midpoint-newton", "discrete-gradient"):
        errs = [np.abs(_run(sysm, name, y0, h, 0.5, LAST).y[-1] - ref).max() for h in hs]
        assert abs(observed_order(hs, errs) - 2) <= 0.3, (name, errs)  # order 2


def test_solver_failure_reports_step_residual_and_remedy():
    g = FourierGrid(161)
    sysm = NLS(g)
    run = _run(sysm, "midpoint", sysm.from_field(_nls_table_data(g)), 0.1, 1.0)
    assert run.status == "solver_failed" and run.n_steps == 0
    assert "step 1" in run.message and "relative increment" in run.message and "smaller integrator.h" in run.message
    with pytest.raises(ValueError, match="unknown integrator method 'rk4'"):
        make_method("rk4")
    with pytest.raises(ValueError, match="real stacked form"):
        _step(make_method("midpoint-newton"), NLS(g, form="complex"), 0.1, np.zeros(161, complex))


def test_registry_names_and_orders():
    names = methods_for(SemilinearPoissonSystem)
    assert set(names) == {"exp-midpoint", "disex", "energy-exp", "midpoint", "midpoint-newton",
                          "discrete-gradient", "exp-euler"}
    assert {name: METHODS[name].family for name in names} == dict.fromkeys(names, "poisson")
    orders = {name: make_method(name).order for name in names}
    assert orders == {"exp-midpoint": 2, "disex": 5, "energy-exp": 2, "midpoint": 2, "midpoint-newton": 2,
                      "discrete-gradient": 2, "exp-euler": 1}


def _reference_fixed_point(G, x, tol, max_iter=100):
    """The documented stopping rule, evaluated literally (scale computed at every iteration)."""
    previous = np.inf
    for m in range(1, max_iter + 1):
        x_new = G(x)
        r = np.max(np.abs(x_new - x))
        scale = max(1.0, np.max(np.abs(x_new)))
        x = x_new
        if r <= tol * scale or (r <= 100 * np.finfo(float).eps * scale and r >= previous):
            return x, m
        previous = r
    return x, max_iter


@pytest.mark.parametrize("tol", [1e-15, 1e-14, 1e-10])
@pytest.mark.parametrize("size", [1e-3, 1.0, 1e3])
def test_fixed_point_stopping_decisions_match_the_literal_rule(tol, size, rng):
    """The solver skips the scale reduction where no stopping test can pass: same iterates, same counts."""
    for _ in range(5):
        c = size * (rng.standard_normal(40) + 1j * rng.standard_normal(40))
        q = rng.uniform(0.05, 0.3)  # Lipschitz constant ≤ 2q < 1
        G = lambda x, c=c, q=q: c + q * size * np.cos(np.abs(x) / size + x.real / size)
        ref_x, ref_m = _reference_fixed_point(G, c, tol)
        res = FixedPoint(tol=tol).solve(G, c)
        assert res.iterations == ref_m and np.array_equal(res.x, ref_x)


def _soliton_run(name, predictor, h, tol=1e-12, t_end=0.25):
    L = 60.0
    g = FourierGrid(129, L)
    sysm = NLS(g, kappa=-1.0, form="complex")
    y0 = nls_soliton(g.x, 0.0, eta=1.0, velocity=2 * np.pi / L * 4, x0=L / 2, length=L)
    return _run(sysm, make_method(name, tol=tol, predictor=predictor), y0, h, t_end, LAST)


@pytest.mark.parametrize("name, h, stages", [("exp-midpoint", 1 / 160, 1), ("disex", 1 / 40, 6),
                                             ("energy-exp", 1 / 80, 1)])
def test_predictors_move_only_the_starting_point(name, h, stages):
    """Opt-in predictors: the same fixed points (to the solver tolerance), fewer iterations; the
    default start is unchanged (``"none"``)."""
    ref = _soliton_run(name, "none", h)
    its = {"none": ref.iterations.mean() / stages}
    for predictor in ("previous", "linear", "quadratic", "cubic"):
        run = _soliton_run(name, predictor, h)
        assert run.status == "ok"
        assert np.abs(run.y[-1] - ref.y[-1]).max() <= 1e-10  # tol 1e-12, contraction ρ < 1, ≤ 60 solves
        its[predictor] = run.iterations.mean() / stages
    assert its["cubic"] < its["linear"] < its["previous"] < its["none"], its
    assert its["none"] == _soliton_run(name, "none", h).iterations.mean() / stages  # stateless default


def test_predictor_uses_history_only_when_the_step_continues():
    L = 60.0
    g = FourierGrid(65, L)
    sysm = NLS(g, kappa=-1.0, form="complex")
    y0 = nls_soliton(g.x, 0.0, eta=1.0, velocity=0.4, x0=L / 2, length=L)
    plain = Disex(solver=FixedPoint(tol=1e-12))
    pred = Disex(solver=FixedPoint(tol=1e-12), predictor="linear")
    y0, memory = pred.init(sysm, 0.0, y0)  # the run's predictor history (empty)
    y1 = pred.step(sysm, 0.0, 0.02, y0, memory).y  # no history: the default start
    _, fresh = pred.init(sysm, 0.0, y0)  # a fresh run has no history
    assert pred.step(sysm, 0.0, 0.02, y0, fresh).iterations == _step(plain, sysm, 0.02, y0).iterations
    # the history of a run is used only for the state its last step returned (y1), not for another one
    assert pred.step(sysm, 0.0, 0.02, y0, memory).iterations == _step(plain, sysm, 0.02, y0).iterations
    _, memory = pred.init(sysm, 0.0, y0)
    first = pred.step(sysm, 0.0, 0.02, y0, memory)
    cont = pred.step(sysm, 0.02, 0.02, first.y, first.cache)
    assert cont.iterations < _step(plain, sysm, 0.02, first.y).iterations  # continuing: predicted
    new_h = pred.step(sysm, 0.04, 0.01, cont.y, cont.cache).y
    assert np.abs(new_h - _step(plain, sysm, 0.01, cont.y).y).max() <= 1e-11  # new h
    assert np.abs(y1 - _step(plain, sysm, 0.02, y0).y).max() == 0.0
    with pytest.raises(ValueError, match="unknown predictor"):
        Disex(predictor="quartic")
    with pytest.raises(ValueError, match="predictor"):
        make_method("midpoint", predictor="linear")
