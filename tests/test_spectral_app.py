"""The nls/kdv app: run folders, exact-solution accuracy through the case files, h_max criterion."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from lgbeam.apps import load_case, spectral
from lgbeam.studies import spectral_hmax


@pytest.mark.parametrize("name, overrides", [
    ("nls-soliton", ["grid.n=129", "grid.length=40.0", "initial.x0=20.0", "time.t_end=0.2", "integrator.h=0.05"]),
    ("nls-plane-wave", ["time.t_end=0.1"]),
    ("nls-table", ["grid.n=21", "time.t_end=0.5", "output.every=0.1"]),
    ("kdv-soliton", ["grid.n=129", "time.t_end=0.1", "integrator.h=0.05"]),
    ("kdv-zk", ["grid.n=41", "time.t_end=0.02", "output.every=0.01"]),
])
def test_case_runs_write_complete_run_folder(name, overrides, tmp_path):
    case, _ = load_case(name, overrides)
    summary = spectral.run(case, tmp_path)
    assert summary.status == "ok", summary.message
    sol = np.load(tmp_path / "solution.npz")
    field = "psi" if case["kind"] == "nls" else "u"
    assert {"t", "x", "length", field} <= set(sol.files)
    assert sol[field].shape == (sol["t"].size, case["grid"]["n"])
    assert np.iscomplexobj(sol[field]) == (case["kind"] == "nls")
    header = (tmp_path / "diagnostics.csv").read_text().splitlines()[0]
    assert header == "t,h,err,accepted,iterations,energy,mass,momentum"
    pvd = ET.parse(tmp_path / "paraview" / f"{case['name']}.pvd").getroot()
    assert len(pvd.findall(".//DataSet")) == sol["t"].size
    if "max_error_final" in summary.extra:  # exact solutions: time error O(h²) at these steps
        assert summary.extra["max_error_final"] <= 1e-2


def test_errors_against_reference(tmp_path):
    load_case("nls-plane-wave", ["time.t_end=0.1"])  # the case file loads
    ref = {"t": np.array([0.0, 0.1]), "psi": np.ones((2, 21), complex), "length": 2 * np.pi}
    sol = {"t": np.array([0.0, 0.1]), "psi": np.ones((2, 21), complex) + 1e-3}
    err = spectral.errors(sol, ref)
    assert err["max"] == pytest.approx(1e-3, rel=1e-9)  # a constant offset 1e-3 (round-off of 1 + 1e-3)
    assert err["l2"] == pytest.approx(1e-3 * np.sqrt(2 * np.pi), rel=1e-9)  # × √L


def test_bad_case_input(tmp_path):
    case, _ = load_case("nls-soliton", ["nls.kappa=1.0"])
    with pytest.raises(ValueError, match="focusing"):
        spectral.run(case, tmp_path)
    case, _ = load_case("kdv-zk", ["grid.n=40"])
    with pytest.raises(ValueError, match="odd number of nodes"):
        spectral.run(case, tmp_path)
    case, _ = load_case("kdv-zk", ["kdv.nu=-1e-3"])
    with pytest.raises(ValueError, match="nu > 0"):
        spectral.run(case, tmp_path)
    case, _ = load_case("nls-plane-wave", ["initial.wavenumber=1.5"])
    with pytest.warns(UserWarning, match="not periodic"):
        spectral.run(case, tmp_path)


def test_hmax_study_tiny(tmp_path):
    """Midpoint-FP h_max falls with n like ~2/k_max² (thesis Table 2.3); energy-exp's does not."""
    case, _ = load_case("nls-table", [])
    rows = spectral_hmax.hmax_study(case, [11, 21], ["midpoint", "energy-exp"], tmp_path, n_steps=50,
                               rel_precision=0.2, h_hi=0.2, confirm=2)
    h = {(r["method"], r["n"]): r["h_max"] for r in rows}
    for n, kmax in ((11, 5), (21, 10)):  # fixed-point contraction needs h ≲ 2/k_max² (notes §5.1)
        assert 0.5 * 2 / kmax**2 <= h[("midpoint", n)] <= 2.0 * 2 / kmax**2
    assert h[("energy-exp", 11)] == h[("energy-exp", 21)] == 0.2  # top of this test's bracket for both n
    assert (tmp_path / "hmax.csv").exists()
    md = (tmp_path / "hmax.md").read_text()
    assert "| 21 |" in md and "criterion" in md


def test_hmax_search_confirms_below(monkeypatch):
    """A pass set that is not an interval: an isolated passing window above h = 0.3 is rejected because
    the steps below it (down to h/2) fail; the search restarts below the smallest failing step."""
    calls = []

    def fake(system, method, y0, h, **crit):
        calls.append(h)
        return (h <= 0.3 or 0.9 <= h <= 1.0), 1.0

    monkeypatch.setattr(spectral_hmax, "passes_hmax_criterion", fake)
    h, its = spectral_hmax._largest_passing_h(None, None, None, 1.0, 0.05, confirm=8)
    assert 0.3 / 1.05 <= h <= 0.3 and its == 1.0
    assert 1.0 in calls  # the unconfirmed search would have stopped at h_hi = 1
    h0, _ = spectral_hmax._largest_passing_h(None, None, None, 1.0, 0.05, confirm=0)
    assert h0 == 1.0


def test_hmax_markdown_slopes_and_thesis_columns():
    rows = [{"method": m, "n": n, "h_max": h, "iter_avg": 3.0, "thesis_h_max": spectral_hmax.THESIS_HMAX["nls"][m][n],
             "thesis_iter_avg": spectral_hmax.THESIS_ITERS["nls"][m][n], "thesis_h_passes": True,
             "iter_avg_at_thesis_h": 2.0}
            for m, hs in (("energy-exp", (1.0, 1.0)), ("midpoint", (0.02, 0.005))) for n, h in zip((21, 41), hs)]
    md = spectral_hmax.hmax_markdown(rows, "nls")
    assert md.index("| midpoint |") < md.index("energy-exp")  # thesis column order
    slopes = spectral_hmax.hmax_slopes(rows)
    assert slopes["energy-exp"] == pytest.approx(0.0, abs=1e-12)
    assert slopes["midpoint"] == pytest.approx(np.log(0.25) / np.log(41 / 21))
    assert "0.02 (3.0) / 0.01 (12.9)" in md and "slope of log h_max" in md


def test_merge_hmax_tables(tmp_path):
    """Rows of several `lgbeam study --hmax` runs merge into one table in the thesis' column order."""
    from lgbeam.studies import spectral_figures as sf

    case, _ = load_case("nls-table", [])
    spectral_hmax.hmax_study(case, [11], ["energy-exp"], tmp_path / "a", n_steps=20, h_hi=0.1, rel_precision=0.5,
                        confirm=1)
    spectral_hmax.hmax_study(case, [11], ["midpoint"], tmp_path / "b", n_steps=20, h_hi=0.1, rel_precision=0.5,
                        confirm=1)
    rows = sf.merge_hmax("nls", [tmp_path / "a" / "hmax.csv", tmp_path / "b" / "hmax.csv"], tmp_path / "out")
    assert [r["method"] for r in rows] == ["midpoint", "energy-exp"]
    assert isinstance(rows[0]["n"], int) and isinstance(rows[0]["h_max"], float)
    md = (tmp_path / "out" / "spectral-hmax-nls.md").read_text()
    assert "| n | midpoint | energy-exp |" in md and "| 11 |" in md


def test_kdv_work_precision_sweeps():
    """Fig. 2.8's sweeps: classical methods from 0.8·2/ρ(SA); exp-midpoint at the thesis' 6e-4, at the
    resonant 4π/ρ, at non-resonant (m + ½)π/ρ and below π/ρ; DISEX at the thesis' 1e-4 and at 2·h_ref."""
    from lgbeam.studies import spectral_figures as sf

    rho = 5e-4 * 500**3
    sw = sf.sweeps("kdv", 1001, rho, 4, 1 / 80000)
    assert sw["midpoint"] == [pytest.approx(1.6 / rho), pytest.approx(0.8 / rho)]
    em = np.array(sw["exp-midpoint"]) * rho / np.pi  # in units of the resonance spacing π/ρ
    assert sw["exp-midpoint"][0] == 6e-4 and np.all(np.diff(em) < 0)
    assert np.allclose(em[1:], [6.5, 4.0, 3.5, 1.5, 0.8, 0.4, 0.2])
    assert 1e-4 in sw["disex"] and sw["disex"][-1] == 2 / 80000
    assert "midpoint-newton" not in sw and "midpoint-newton" in sf.sweeps("nls", 161, 80.0**2, 4, 1 / 2560)
    assert sf._on_grid(6e-4) == pytest.approx(0.1 / 167)


def _slope(ns, hs):
    return float(np.polyfit(np.log(ns), np.log(hs), 1)[0])


@pytest.mark.slow
def test_table23_nls_hmax_scaling(tmp_path):
    """Table 2.3: classical midpoint and discrete-gradient h_max ~ n⁻² (fitted slopes); energy-exp's and
    the quasi-Newton midpoint's independent of n and at least the thesis' 0.1."""
    case, _ = load_case("nls-table", [])
    ns = [21, 41, 81, 161]
    rows = spectral_hmax.hmax_study(case, ns, ["midpoint", "discrete-gradient"], tmp_path / "fp")
    h = {(r["method"], r["n"]): r["h_max"] for r in rows}
    for name in ("midpoint", "discrete-gradient"):  # ρ(SA) = k_max² ∝ n² (notes §5.1); ±0.3 as the issue's
        p = _slope(ns, [h[(name, n)] for n in ns])  # order tolerance
        assert abs(p + 2.0) <= 0.3, (name, p)
    flat = spectral_hmax.hmax_study(case, [21, 161], ["energy-exp"], tmp_path / "ee")
    flat += spectral_hmax.hmax_study(case, [21, 41], ["midpoint-newton"], tmp_path / "newton")
    for name in ("energy-exp", "midpoint-newton"):
        hs = [r["h_max"] for r in flat if r["method"] == name]
        assert max(hs) / min(hs) <= 1.1, (name, hs)  # flat up to the 5 % bisection precision (twice)
        assert min(hs) >= 0.1, (name, hs)  # the thesis' 0.1 passes at every n


@pytest.mark.slow
def test_table24_kdv_hmax_scaling(tmp_path):
    """Table 2.4: classical midpoint and discrete-gradient h_max ~ n⁻³ (fitted slopes), energy-exp's
    independent of n; over the criterion's 1000 steps the exponential midpoint rule takes steps at least
    the thesis' and twice the classical ones (its resonances: docs/spectral.md)."""
    case, _ = load_case("kdv-zk", [])
    # The thesis' range (Table 2.4 starts at n = 401): there ν k_max³ (= 4000 at n = 401) dominates the
    # nonlinear term's u k_max (≈ 200); at n = 201 both are comparable and the slope is −2.35 (measured).
    ns = [401, 601, 801]
    rows = spectral_hmax.hmax_study(case, ns, ["midpoint", "discrete-gradient"], tmp_path / "fp")
    h = {(r["method"], r["n"]): r["h_max"] for r in rows}
    for name in ("midpoint", "discrete-gradient"):
        p = _slope(ns, [h[(name, n)] for n in ns])
        assert abs(p + 3.0) <= 0.3, (name, p)  # ρ(SA) = ν k_max³ ∝ n³ (notes §5.2)
    more = spectral_hmax.hmax_study(case, [401, 801], ["energy-exp"], tmp_path / "ee")
    more += spectral_hmax.hmax_study(case, [401, 601], ["exp-midpoint"], tmp_path / "em")
    he = [r["h_max"] for r in more if r["method"] == "energy-exp"]
    assert max(he) / min(he) <= 1.1, he  # flat up to the 5 % bisection precision (twice)
    assert min(he) >= 0.005  # the thesis' 0.005 passes at every n
    for r in (r for r in more if r["method"] == "exp-midpoint"):
        assert r["h_max"] >= r["thesis_h_max"], r  # 8e-4 (n = 401), 6e-4 (n = 601)
        assert r["h_max"] >= 2 * h[("midpoint", r["n"])], r  # 2.4× (n = 401), 6.2× (n = 601)


def test_stiff_kdv_soliton_from_the_command_line_runs_and_converges_at_order_2(tmp_path):
    """Issue 26: the c = 4 soliton (amplitude 12, L = 40, k_max ≈ 20) with exp-midpoint at h = 0.01 failed at
    step 1 with the fixed-point stage (its contraction |c|·k_max·max|u| ≈ 1.2); with the cases' default stage
    "auto" (Newton–Krylov there) it runs, and the error against the exact soliton falls at order 2 (fitted)."""
    base = ["initial.amplitude=4", "grid.length=40", "initial.x0=-5", "integrator.method=exp-midpoint"]
    case, _ = load_case("kdv-soliton", [*base, "integrator.h=0.01"])
    assert case["integrator"]["stage"] == "auto"
    summary = spectral.run(case, tmp_path / "h0.01")
    assert summary.status == "ok", summary.message
    errs = [summary.extra["max_error_final"]]
    for h in (0.005, 0.0025):
        case, _ = load_case("kdv-soliton", [*base, f"integrator.h={h}", "output.vtk=false"])
        (tmp_path / f"h{h}").mkdir()
        run = spectral.run(case, tmp_path / f"h{h}")
        assert run.status == "ok", run.message
        errs.append(run.extra["max_error_final"])
    slope = np.polyfit(np.log([0.01, 0.005, 0.0025]), np.log(errs), 1)[0]
    assert 1.9 < slope < 2.1, (errs, slope)  # measured 1.97 (0.154, 0.040, 0.0100)
    assert errs[-1] < 0.02 * 12  # 0.1 % of the amplitude at h = 0.0025

    case, _ = load_case("kdv-soliton", [*base, "integrator.h=0.01", "integrator.stage=fixed-point",
                                        "output.vtk=false"])
    (tmp_path / "fp").mkdir()
    failed = spectral.run(case, tmp_path / "fp")
    assert failed.status == "solver_failed" and "integrator.stage = 'auto' or 'newton'" in failed.message


def test_stage_key_reaches_the_method_and_is_refused_where_it_cannot(tmp_path):
    case, _ = load_case("kdv-soliton", ["integrator.method=energy-exp", "integrator.stage=newton"])
    with pytest.raises(ValueError, match="integrator.stage = 'newton' needs a method with a stage solver choice"):
        spectral.run(case, tmp_path)
    with pytest.raises(ValueError, match="integrator.stage"):
        load_case("kdv-soliton", ["integrator.stage=broyden"])
    for method, stage in (("exp-midpoint", "newton"), ("exp-suzuki4", "fixed-point"), ("disex", "auto")):
        case, _ = load_case("nls-soliton", [f"integrator.method={method}", f"integrator.stage={stage}"])
        assert spectral.method_options(case["integrator"])["stage"] == stage
    case, _ = load_case("kdv-soliton", ["integrator.method=exp-euler", "time.t_end=0.05"])
    assert spectral.method_options(case["integrator"]) == {}  # explicit: no solver keys (used to be refused)
    (tmp_path / "euler").mkdir()
    assert spectral.run(case, tmp_path / "euler").status == "ok"


def test_fig21_runs_outside_the_checkout_root(tmp_path, monkeypatch):
    """Seed audit defect: ``python -m lgbeam.studies.spectral_panels --fig21`` read a path relative to the
    working directory; it now finds the checkout's Table 2.3 CSV from anywhere, and a missing --source is a
    one-line error with exit code 2 and nothing written."""
    from lgbeam.studies import spectral_panels

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "figs"
    assert spectral_panels.main(["--fig21", "--out", str(out)]) == 0
    assert (out / "spectral-fig2.1.png").stat().st_size > 1000
    assert spectral_panels.hmax_source(tmp_path / "none") == spectral_panels.CHECKOUT / "outputs" / "summary" / \
        "spectral-hmax-nls.csv"
    assert spectral_panels.main(["--fig21", "--source", str(tmp_path / "no.csv"), "--out", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()
