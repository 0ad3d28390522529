"""Refinement analysis (issue 13 item 4) on manufactured sequences with a known error expansion, and on a real
rod study (cantilever under a tip load, static, N = 4 … 32)."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.studies.refinement import (
    gci,
    pairwise_orders,
    refinement_table,
    richardson,
    spacing,
    three_grid_order,
)


def test_n_refinement_gives_positive_orders_and_richardson_is_exact_for_a_pure_power():
    """f(N) = f* + C N⁻² exactly: every order 2 (positive, for N growing), Richardson returns f* to round-off."""
    N = [4, 8, 16, 32]
    f = [1.5 + 3.0 / n**2 for n in N]
    t = refinement_table("model.n_elements", N, f)
    assert np.allclose(t["pairwise_richardson"], 2.0, atol=1e-6) and abs(t["three_grid_order"] - 2.0) < 1e-12
    assert 2.1 < t["fitted_finest"] < 2.3  # against the finest run: biased upwards (2.20 here), as the review found
    assert abs(float(t["richardson"]) - 1.5) < 1e-13
    assert abs(t["asymptotic_ratio"] - 1.0) < 1e-2  # 0.994: the relative GCIs divide by different f


def test_h_refinement_with_a_higher_term_and_gci_bounds_the_true_error():
    """f(h) = f* + C h⁴ + D h⁵ (a fourth-order method): the three-grid order tends to 4, GCI ≥ the true error."""
    h = np.array([0.1, 0.05, 0.025, 0.0125])
    f = 2.0 + 5.0 * h**4 + 40.0 * h**5
    t = refinement_table("integrator.h", list(h), list(f), exact=2.0)
    assert abs(t["three_grid_order"] - 4.0) < 0.3  # 4.23: the h⁵ term (8h relative) still shows at h = 0.05
    p = pairwise_orders(h, np.abs(f - 2.0))
    assert np.all(np.diff(p) < 0) and abs(p[-1] - 4.0) < 0.15  # the h⁵ term fades: 4.36, 4.22, 4.13
    true_rel = abs(f[-1] - 2.0) / f[-1]
    assert t["gci_fine"] >= true_rel  # Roache's bound with F_s = 1.25
    assert abs(float(t["richardson"]) - 2.0) < abs(f[-1] - 2.0) / 5  # the extrapolation is much closer
    assert abs(t["fitted_exact"] - 4.0) < 0.4


def test_oscillatory_convergence_and_fields():
    """Alternating-sign errors (s = −1 in Celik's procedure) and whole fields (RMS norms)."""
    h = np.array([0.4, 0.2, 0.1])
    f = 1.0 + np.array([1.0, -1.0, 1.0]) * 0.3 * h**2
    assert abs(three_grid_order(h, f) - 2.0) < 1e-9
    x = np.linspace(0.0, 1.0, 11)
    fields = [np.sin(x) + hh**2 * np.cos(3 * x) for hh in h]
    t = refinement_table("integrator.h", list(h), fields)
    assert abs(t["three_grid_order"] - 2.0) < 1e-9
    assert np.abs(t["richardson"] - np.sin(x)).max() < 1e-12


def test_two_runs_need_a_formal_order_and_bad_input_is_refused():
    with pytest.raises(ValueError, match="formal_order"):
        refinement_table("integrator.h", [0.1, 0.05], [1.0, 1.1])
    t = refinement_table("integrator.h", [0.1, 0.05], [1.04, 1.01], formal_order=2)
    assert abs(float(t["richardson"]) - 1.0) < 1e-12 and t["gci_fine"] > 0
    # two runs observe no order: the assumed one is reported as such, F_s = 3 (GCI = 3·0.03/1.01/3), and the orders
    # against Richardson's estimate (built with that order, so it would only be returned) are not reported
    assert "three_grid_order" not in t and t["formal_order"] == 2.0 and t["fs"] == 3.0
    assert t["gci_fine"] == pytest.approx(0.03 / 1.01, rel=1e-12)
    assert "fitted_richardson" not in t and np.isnan(t["pairwise_richardson"]).all()
    with pytest.raises(ValueError, match="positive"):
        spacing("model.n_elements", [0, 4])
    with pytest.raises(ValueError, match="distinct"):
        refinement_table("model.n_elements", [8, 8, 16], [1.0, 1.0, 1.1])
    with pytest.raises(ValueError, match="zero"):
        gci(0.1, 0.05, 0.0, 0.0, 2.0)
    assert richardson(0.2, 0.1, 1.04, 1.01, 2.0) == pytest.approx(1.0)


def test_real_rod_study_order_two_and_richardson_near_the_closed_form():
    """Steel-like cantilever tip δ (static, linear regime) for N = 4 … 32: three-grid order 2.00, the Richardson
    estimate within 1e-6 of PL³/3EI while the finest run is 2.4e-4 off (error δ/(4N²), docs/rod.md)."""
    from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, straight
    from lgbeam.discretisations.rods.statics import solve_static
    from lgbeam.groups import S3R3

    G, P = S3R3(), 1e-4
    mat = Material.from_sectional(EA=1e4, GA=1e4, EI=1.0, GJ=1.0, rhoA=1.0, rhoJ=0.01)
    Ns, tips = [4, 8, 16, 32], []
    for n in Ns:
        mesh = RodMesh.uniform(1.0, n)
        rod = CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh), supports=(Support("start", "clamped"),),
                          loads=(NodalLoad(node="end", force=[0, 0, -P]),), inextensible=True)
        tips.append(-G.translation(solve_static(rod, load_steps=1).final.q[-1])[2])
    exact = P / 3.0
    t = refinement_table("model.n_elements", Ns, tips, exact=exact)
    assert abs(t["three_grid_order"] - 2.0) < 0.02 and np.allclose(t["pairwise_exact"], 2.0, atol=0.02)
    assert abs(float(t["richardson"]) / exact - 1.0) < 1e-6 < abs(tips[-1] / exact - 1.0)
    assert t["gci_fine"] >= abs(tips[-1] - exact) / tips[-1]
