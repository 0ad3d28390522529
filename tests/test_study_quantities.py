"""`lgbeam study --quantity` (issue 13 item 4): user-chosen quantities, pairwise and three-grid orders, Richardson's
estimate and the grid-convergence index, checked on problems with a known error expansion — the fake pendulum app
(explicit Euler: error C₁h + O(h²); explicit midpoint: C₂h² + O(h³); truth by scipy's DOP853 at 1e-13) and a steel
cantilever under N-refinement (tip δ = PL³/3EI·(1 + c/N²), first frequency → the rod's own limit); parsing and
bad input (one line, exit 2; the runs are kept when only the quantity was wrong)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import fake_app
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lgbeam.cli.main import main
from lgbeam.io.schema import CaseError
from lgbeam.studies.quantities import evaluate, parse_quantity

H4 = "integrator.h=0.04,0.02,0.01,0.005"


@pytest.fixture
def cases(monkeypatch, tmp_path):
    return fake_app.install(monkeypatch, tmp_path)


def _csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _theta_exact(t_end: float = 1.0, theta0: float = 1.0) -> float:
    sol = solve_ivp(lambda t, y: [y[1], -np.sin(y[0])], (0.0, t_end), [theta0, 0.0], method="DOP853",
                    rtol=1e-13, atol=1e-14)
    return float(sol.y[0, -1])


def _one_line_error(capsys, code: int, *parts: str) -> None:
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2, err
    assert err.startswith("lgbeam "), err
    for p in parts:
        assert p in err, err


def test_parse_quantities():
    q = parse_quantity(" position( s = 1.0 , rod=beam )[ z ]")
    assert q.text == "position(s=1.0, rod=beam)[z]" and q.param("s") == 1.0 and q.param("rod") == "beam"
    assert q.index == (2,)
    assert parse_quantity("positions[-1, 4, :]").index == (-1, 4, slice(None))
    assert parse_quantity("frequency(mode=2)").param("mode") == 2
    for text, msg in [("position[z]", "needs s="), ("position(s=1, nod=3)", "no parameter 'nod'"),
                      ("position(s=1, node=3)", "not both"),
                      ("frequency(mode=0)", "positive integer"), ("positions(t=1)", "only the built-in"),
                      ("position(s=a)", "must be a number"), ("q[1.5]", "not an integer"), ("1q", "is not NAME")]:
        with pytest.raises(CaseError, match=msg.replace("(", r"\(").replace("[", r"\[")):
            parse_quantity(text)


def test_midpoint_time_step_study_against_richardson(cases, tmp_path, capsys):
    """Midpoint rule, θ(1) for h = 0.04 … 0.005: observed order 2 (three grids, pairwise, fitted), the Richardson
    estimate 40× closer to the truth than the finest run, the GCI bounds the finest run's true error, asymptotic
    ratio ≈ 1; no reference run is made."""
    out = tmp_path / "study"
    code = main(["study", "pend", "--vary", H4, "--set", "integrator.method=midpoint", "--set", "output.vtk=false",
                 "--quantity", "q[-1, 0]", "--quantity", "position(s=1.0, t=1.0)", "--against", "richardson",
                 "--scheduler", "synchronous", "--out", str(out)])
    printed, err = capsys.readouterr()
    assert code == 0, err
    assert "refinement along integrator.h" in printed and "three_grid_order" in printed
    assert not (out / "runs" / "reference").exists()
    exact = _theta_exact()
    summary = {r["quantity"]: r for r in _csv(out / "refinement-summary.csv")}
    s = summary["q[-1, 0]"]
    assert abs(float(s["three_grid_order"]) - 2.0) < 0.05 and abs(float(s["fitted_richardson"]) - 2.0) < 0.05
    finest = float(s["finest"])
    assert abs(float(s["richardson"]) - exact) < abs(finest - exact) / 40
    assert float(s["gci_fine"]) * abs(finest) >= abs(finest - exact)
    assert abs(float(s["asymptotic_ratio"]) - 1.0) < 0.05
    per_run = [r for r in _csv(out / "refinement.csv") if r["quantity"] == "q[-1, 0]"]
    assert [float(r["integrator.h"]) for r in per_run] == [0.04, 0.02, 0.01, 0.005]
    assert np.allclose([float(r["order_vs_richardson"]) for r in per_run[1:]], 2.0, atol=0.1)
    # the tip position (a 3-vector field) converges at the same order; its x equals cos θ of the npz value
    assert abs(float(summary["position(s=1.0, t=1.0)"]["three_grid_order"]) - 2.0) < 0.1
    rows = _csv(out / "study.csv")
    assert np.allclose([float(r["position(s=1.0, t=1.0)[0]"]) for r in rows], np.cos([float(r["q[-1, 0]"]) for r in rows]))
    assert (out / "refinement.png").stat().st_size > 1000
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["study"]["against"] == "richardson" and len(prov["study"]["refinement"]) == 2


def test_two_methods_and_a_reference_run(cases, tmp_path, capsys):
    """Two --vary keys: orders per method (Euler 1, midpoint 2) against a reference run h = 1e-4 and against
    Richardson; the reference-run errors equal the true errors to 1e-5 (the reference is 8.3e-10 off)."""
    out = tmp_path / "study"
    code = main(["study", "pend", "--vary", H4, "--vary", "integrator.method=euler,midpoint",
                 "--reference", "integrator.h=1e-4", "--reference", "integrator.method=midpoint",
                 "--set", "output.vtk=false", "--quantity", "q[-1,0]", "--scheduler", "synchronous",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr()
    summary = {r["group"]: r for r in _csv(out / "refinement-summary.csv")}
    assert set(summary) == {"integrator.method=euler", "integrator.method=midpoint"}
    for method, p in (("euler", 1.0), ("midpoint", 2.0)):
        s = summary[f"integrator.method={method}"]
        assert abs(float(s["fitted_reference"]) - p) < 0.1 and abs(float(s["three_grid_order"]) - p) < 0.1
    exact = _theta_exact()
    per_run = [r for r in _csv(out / "refinement.csv") if r["integrator.method"] == "euler"]
    true = np.array([abs(float(r["value"]) - exact) for r in per_run])
    # the reference (midpoint, h = 1e-4) is 8.3e-10 off; the Euler errors are ≥ 1.5e-3: relative 6e-7
    np.testing.assert_allclose([float(r["error_vs_reference"]) for r in per_run], true, rtol=1e-5)
    assert (out / "refinement-integrator.method=euler.png").exists()


def test_cantilever_mesh_study_richardson_meets_the_closed_form(tmp_path, capsys):
    """N = 4, 8, 16 of the steel cantilever (static): tip order 2 (positive for N-refinement), Richardson within
    1e-5 of PL³/3EI (measured 4.2e-6: the O(N⁻⁴) remainder and the geometric nonlinearity, (δ/L)² = 4e-6) while
    the finest run is 9.8e-4 off (δ/(4N²)); the clamp reaction balances the 10 N load; the first
    frequency converges at order 2 to within 1e-3 of Euler–Bernoulli's 1.8751² √(EI/ρAL⁴)/2π."""
    out = tmp_path / "cant"
    code = main(["study", "cantilever-tip-load", "--vary", "model.n_elements=4,8,16", "--set", "output.vtk=false",
                 "--quantity", "position(s=1.0)[z]", "--quantity", "reaction(support=clamped@0)[5]",
                 "--quantity", "frequency(mode=1)", "--against", "richardson", "--scheduler", "synchronous",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr()
    E, r, P, L, rho = 210e9, 0.01, 10.0, 1.0, 7850.0
    EI, rhoA = E * np.pi * r**4 / 4, rho * np.pi * r**2
    summary = {s["quantity"]: s for s in _csv(out / "refinement-summary.csv")}
    tip = summary["position(s=1.0)[z]"]
    exact = -P * L**3 / (3 * EI)
    assert abs(float(tip["three_grid_order"]) - 2.0) < 0.01
    assert abs(float(tip["richardson"]) / exact - 1.0) < 1e-5
    assert abs(float(tip["finest"]) / exact - 1.0) > 9e-4
    assert abs(float(summary["reaction(support=clamped@0)[5]"]["finest"]) - P) < 1e-9
    f = summary["frequency(mode=1)"]
    assert abs(float(f["three_grid_order"]) - 2.0) < 0.05
    f_eb = 1.875104068711961**2 * np.sqrt(EI / (rhoA * L**4)) / (2 * np.pi)
    assert abs(float(f["richardson"]) / f_eb - 1.0) < 1e-3


def test_bad_quantities_are_one_line_and_keep_the_runs(cases, tmp_path, capsys):
    out = tmp_path / "study"
    base = ["study", "pend", "--vary", "integrator.h=0.04,0.02,0.01", "--set", "output.vtk=false",
            "--scheduler", "synchronous"]
    _one_line_error(capsys, main([*base, "--quantity", "position[z]"]), "needs s=")
    _one_line_error(capsys, main([*base, "--quantity", "q", "--quantity", "q"]), "given twice")
    _one_line_error(capsys, main(["study", "pend", "--vary", "integrator.h=0.04,0.02", "--quantity", "q[-1,0]",
                                  "--against", "richardson"]), "three integrator.h values")
    _one_line_error(capsys, main([*base, "--against", "richardson"]), "give at least one --quantity")
    _one_line_error(capsys, main([*base, "--quantity", "q", "--against", "richardson", "--reference",
                                  "integrator.h=1e-3"]), "needs no --reference")
    code = main([*base, "--quantity", "nosuch[0]", "--out", str(out)])
    _one_line_error(capsys, code, "'nosuch'", "q, rotations", "the runs are kept")
    assert len(list((out / "runs").iterdir())) == 3 and (out / "study.csv").exists()
    assert json.loads((out / "provenance.json").read_text())["status"] == "quantity error"
    code = main([*base, "--quantity", "position(s=2.0)", "--out", str(out)])
    _one_line_error(capsys, code, "outside the rod [0, 1]")
    assert main([*base, "--quantity", "q[-1,0]", "--formal-order", "2", "--out", str(out)]) == 0
    assert "0 runs done now, 3 kept" in capsys.readouterr().out


def test_evaluate_by_arc_length_on_a_frame_solution(tmp_path):
    """position(s=..., rod=...) on a frame's solution.npz: by arc length along the named rod, linear between
    nodes; a rod that does not exist or a missing rod= on a frame of several rods is refused."""
    s = np.array([0.0, 0.5, 1.0, 0.0, 1.0])
    pos = np.zeros((2, 5, 3))
    pos[1, :3, 2] = [0.0, 1.0, 3.0]
    pos[1, 3:, 0] = [5.0, 7.0]
    np.savez(tmp_path / "solution.npz", t=np.array([0.0, 1.0]), s=s, positions=pos,
             rod_names=np.array(["col", "beam"]), rod_offsets=np.array([0, 3, 5]))
    assert float(evaluate(parse_quantity("position(s=0.75, rod=col)[z]"), tmp_path)) == pytest.approx(2.0)
    assert float(evaluate(parse_quantity("position(s=0.5, rod=beam)[x]"), tmp_path)) == pytest.approx(6.0)
    assert float(evaluate(parse_quantity("displacement(s=1.0, rod=col)[z]"), tmp_path)) == pytest.approx(3.0)
    assert float(evaluate(parse_quantity("position(s=1.0, rod=col, t=0)[z]"), tmp_path)) == 0.0
    for text, msg in [("position(s=1.0)", "name one with rod="), ("position(s=1.0, rod=top)", "no rod 'top'"),
                      ("position(s=1.0, rod=col, t=0.5)", "not a saved time")]:
        with pytest.raises(CaseError, match=msg):
            evaluate(parse_quantity(text), tmp_path)


def test_exact_values_and_the_work_precision_view(cases, tmp_path, capsys):
    """--exact gives errors against the truth (DOP853) with order 1 for Euler; --against exact plots them; the
    default reference (the finest run) is flagged; study-work.png is written with the error norms."""
    exact = _theta_exact()
    out = tmp_path / "study"
    code = main(["study", "pend", "--vary", "integrator.h=0.02,0.01,0.005,0.0025", "--set", "output.vtk=false",
                 "--quantity", "q[-1, 0]", "--exact", f"q[-1,0]={exact!r}", "--against", "exact",
                 "--scheduler", "synchronous", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    s = _csv(out / "refinement-summary.csv")[0]
    assert abs(float(s["fitted_exact"]) - 1.0) < 0.05 and float(s["exact"]) == exact
    per_run = _csv(out / "refinement.csv")
    np.testing.assert_allclose([float(r["error_vs_exact"]) for r in per_run],
                               [abs(float(r["value"]) - exact) for r in per_run], rtol=1e-12)
    out2 = tmp_path / "study2"
    assert main(["study", "pend", "--vary", "integrator.h=0.02,0.01,0.005", "--set", "output.vtk=false",
                 "--scheduler", "synchronous", "--out", str(out2)]) == 0
    assert "the reference is the finest run" in capsys.readouterr().err
    assert (out2 / "study-work.png").stat().st_size > 1000
    base = ["study", "pend", "--vary", "integrator.h=0.02,0.01,0.005", "--quantity", "q[-1,0]"]
    _one_line_error(capsys, main([*base, "--against", "exact"]), "needs --exact Q=VALUE for every --quantity")
    _one_line_error(capsys, main([*base, "--exact", "q[-1,1]=1.0"]), "not one of the --quantity values")
    _one_line_error(capsys, main([*base, "--exact", "q[-1,0]=abc"]), "must be a number")


def test_portal_frame_study_by_rod_and_arc_length(tmp_path, capsys):
    """The portal-frame case at a 10 N lateral load (linear regime) for N = 8, 16, 32 per member: the sway at the
    left column's top (rod=left, s = 4) converges at order 2 and Richardson meets slope-deflection
    Hh³(2+3k)/(12EI_c(1+6k)) to 1e-6 (measured 2.3e-7; at the case's 10 kN the geometrically exact frame sways
    7.7e-5 more); the base shears sum to −H; the frame's first frequency converges at order 2."""
    H = 10.0
    out = tmp_path / "portal"
    code = main(["study", "portal-frame", "--vary", "model.n_elements=8,16,32", "--set", "output.vtk=false",
                 "--set", f'loads.nodal=[{{ rod = "left", node = "end", force = [{H}, 0.0, 0.0] }}]',
                 "--quantity", "position(s=4.0, rod=left)[x]", "--quantity", "reaction(support=left:clamped@0)[3]",
                 "--quantity", "reaction(support=right:clamped@0)[3]", "--quantity", "frequency(mode=1)",
                 "--against", "richardson", "--scheduler", "synchronous", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    s = {r["quantity"]: r for r in _csv(out / "refinement-summary.csv")}
    k, h, EI = (1.0 / 6.0) / (1.0 / 4.0), 4.0, 1.76e7
    exact = H * h**3 * (2 + 3 * k) / (12 * EI * (1 + 6 * k))
    sway = s["position(s=4.0, rod=left)[x]"]
    assert abs(float(sway["three_grid_order"]) - 2.0) < 0.02
    assert abs(float(sway["richardson"]) / exact - 1.0) < 1e-6 < abs(float(sway["finest"]) / exact - 1.0)
    shears = float(s["reaction(support=left:clamped@0)[3]"]["finest"]) + float(s["reaction(support=right:clamped@0)[3]"]["finest"])
    assert abs(shears + H) < 1e-9 * H
    assert abs(float(s["frequency(mode=1)"]["three_grid_order"]) - 2.0) < 0.1


def test_two_grids_report_the_assumed_order_not_an_observed_one(cases, tmp_path, capsys):
    """Two runs (h = 0.02, 0.01) cannot give an observed order: the summary has no three_grid_order, only the
    assumed formal_order 2 (printed as such, F_s = 3), and Richardson with p = 2 lands closer to the truth than the
    finest run; three runs still observe order 2 (and report no formal_order)."""
    for vals, out in (("0.02,0.01", tmp_path / "two"), ("0.04,0.02,0.01", tmp_path / "three")):
        code = main(["study", "pend", "--vary", f"integrator.h={vals}", "--set", "integrator.method=midpoint",
                     "--set", "output.vtk=false", "--quantity", "q[-1, 0]", "--against", "richardson",
                     "--formal-order", "2", "--scheduler", "synchronous", "--out", str(out)])
        printed, err = capsys.readouterr()
        assert code == 0, err
        (s,) = _csv(out / "refinement-summary.csv")
        summary = json.loads((out / "provenance.json").read_text())["study"]["refinement"][0]
        if out.name == "two":
            assert "three_grid_order" not in s and "three_grid_order" not in summary and "three_grid_order" not in printed
            assert float(s["formal_order"]) == 2.0 and summary["formal_order"] == 2.0
            assert "2 (assumed: two grids)" in printed and "F_s = 3 with two grids" in printed
            assert "assumed" in s["note"] and "fitted_richardson" not in s
            assert all(r["order_vs_richardson"] == "nan" for r in _csv(out / "refinement.csv"))
            exact = _theta_exact()
            assert abs(float(s["richardson"]) - exact) < abs(float(s["finest"]) - exact) / 10
        else:
            assert abs(float(s["three_grid_order"]) - 2.0) < 0.05 and "formal_order" not in s
            assert "assumed" not in printed and "F_s = 1.25" in printed
