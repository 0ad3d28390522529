"""Why seed 003's Table 2.3 exp-midpoint/DISEX columns fall like ~1/n and the 1000-step h_max does not
(docs/spectral.md "Table 2.3"; ``lgbeam.studies.spectral_hmax.HORIZON_NOTE``).

Mechanism, checked here against independent truths: above the resonance-free step the linearised exponential
midpoint step is unstable in narrow bands (``plane_wave_growth``, checked against a finite-difference Jacobian
of the real step); the bands of the k_max mode pairs cover a fraction of the steps that grows like k_max·h, so
the largest step that avoids them falls like 1/k_max ~ 1/n; inside a band the growth rate per unit time is
2κa² whatever k_max, so a round-off seed needs a fixed *time* to show, which 1000 steps of a small h do not
reach.
"""

import logging

import numpy as np
import pytest
from test_spectral_methods import _linear_growth

from lgbeam.apps import load_case
from lgbeam.apps.spectral import build
from lgbeam.discretisations.spectral import NLS, FourierGrid
from lgbeam.integrators.poisson.coefficients import DISEX6
from lgbeam.integrators.poisson.stability import plane_wave_growth, stable_step_bound
from lgbeam.integrators.registry import make_method
from lgbeam.studies import spectral_hmax


def _fd_growth(name, h, n=33):
    """Largest |eigenvalue| of the real one-step map about ψ = 1 (rotating frame), central differences."""
    return _linear_growth(name, NLS(FourierGrid(n), kappa=1.0, form="complex"), np.full(n, 1.0, complex), h)


@pytest.mark.parametrize(("name", "weights", "steps"), [
    ("exp-midpoint", (1.0,), (0.0122, 0.02, 0.0245, 0.0611)),  # bands at 0.0122, 0.0245, 0.0611; 0.02 stable
    ("disex", DISEX6.b, (0.02, 0.0475)),  # 0.0475 in a band (|μ| = 1.90)
])
def test_plane_wave_growth_is_the_linearised_step(name, weights, steps, caplog):
    """The closed-form 2 × 2 per Fourier pair equals the finite-difference Jacobian of lgbeam's real step
    (N = 33, k_max = 16, a = 1) inside and outside the resonance bands (FD noise ≤ 1e-5 on double eigenvalues)."""
    with caplog.at_level(logging.ERROR):
        for h in steps:
            closed = float(plane_wave_growth(np.arange(1, 17), h, weights).max())
            assert closed == pytest.approx(_fd_growth(name, h), abs=2e-5), h
    assert float(plane_wave_growth(np.arange(1, 17), 0.0611).max()) > 1.1  # a band: it is not all 1's
    assert float(plane_wave_growth(np.arange(1, 17), 0.02).max()) < 1 + 1e-12


def test_resonance_bands_cover_a_fraction_of_steps_growing_like_kmax():
    """Exp-midpoint about ψ = 1: the fraction f of steps h in [0.01, 0.02] whose linearised step is unstable
    obeys −ln(1 − f) ∝ k_max (fitted slope 0.97 over k_max = 40…320; measured f = 0.42, 0.69, 0.89, 0.98), so
    the step that avoids every band falls like 1/k_max ~ 1/n (Table 2.3's ~n⁻¹), not like the resonance-free
    bound π/(k_max² + L) ~ n⁻²; and the peak growth rate ln|μ|/h is 2κa² at every k_max, so a round-off seed
    needs the same *time* on every grid (ln 1e16 / 2 ≈ 18) to show."""
    hs = np.geomspace(0.01, 0.02, 2001)
    y = np.full(21, 1.0, complex)
    assert stable_step_bound(NLS(FourierGrid(21), form="complex"), y, (1.0,)) > 0.02  # k_max = 10: the window is below it
    assert (plane_wave_growth(np.arange(1, 11)[:, None], hs).max(axis=0) <= 1 + 1e-12).all()
    kmax = np.array([40, 80, 160, 320])
    spread, rate = [], []
    for km in kmax:
        g = plane_wave_growth(np.arange(1, km + 1)[:, None], hs[None, :]).max(axis=0)
        spread.append(-np.log(np.mean(g <= 1 + 1e-12)))
        rate.append(float((np.log(g) / hs).max()))
    slope = np.polyfit(np.log(kmax), np.log(spread), 1)[0]
    assert 0.8 <= slope <= 1.2, (slope, spread)
    assert rate == pytest.approx([2.0] * 4, rel=2e-3)


def test_a_1000_step_test_misses_a_band_that_a_fixed_horizon_sees(caplog):
    """On the table case: h = 0.03 at n = 81 sits in a band the n = 41 grid (modes ≤ 20) lacks — it passes the tables'
    1000-step test (fixed-point stage, t = 30) and fails with the horizon t = 60 (the energy grows from round-off
    by t ≈ 36; exact stage, the same steps to round-off); at n = 41 (modes ≤ 20) the same step passes t = 60.
    The mean fixed-point iterations of the first 100 steps are the same on both grids: the stage contraction does
    not depend on n, so no iteration cap could make h_max fall with n."""
    systems = {}
    for n in (41, 81):
        case, _ = load_case("nls-table", [f"grid.n={n}"])
        systems[n] = build(case)[:2]
    fixed = make_method("exp-midpoint", tol=1e-14, max_iter=100, stage="fixed-point")
    exact = make_method("exp-midpoint", stage="exact")

    def crit(n, method, **kw):
        system, y0 = systems[n]
        return spectral_hmax.passes_hmax_criterion(system, method, y0, 0.03, **kw)

    with caplog.at_level(logging.ERROR):
        assert crit(81, fixed)[0]  # 1000 steps
        assert not crit(81, exact, horizon=60.0)[0]
        assert crit(41, exact, horizon=60.0)[0]
        its = [crit(n, fixed, n_steps=100)[1] for n in (41, 81)]
    assert its[0] == its[1] == pytest.approx(10.0, abs=0.5)


def test_round_steps_horizon_steps_and_bad_input(tmp_path, capsys):
    steps = spectral_hmax.round_steps(0.1, 1e-3)
    assert steps[:9] == [0.1, 0.08, 0.06, 0.05, 0.04, 0.03, 0.025, 0.02, 0.01] and steps[-1] == 1e-3
    thesis = spectral_hmax.THESIS_HMAX
    every = {h for kind in thesis.values() for col in kind.values() for h in col.values()}
    assert every <= set(spectral_hmax.round_steps(4.0))  # every tabulated h_max is a round step
    assert spectral_hmax.horizon_steps(0.01, 1000, 0.0) == 1000
    assert spectral_hmax.horizon_steps(0.01, 1000, 100.0) == 10000
    assert spectral_hmax.horizon_steps(0.5, 1000, 100.0) == 1000
    case, _ = load_case("nls-table", [])
    with pytest.raises(ValueError, match="search must be"):
        spectral_hmax.hmax_study(case, [11], ["exp-midpoint"], tmp_path, search="bisect")
    with pytest.raises(ValueError, match="horizon must be"):
        spectral_hmax.hmax_study(case, [11], ["exp-midpoint"], tmp_path, horizon=-1.0)
    before = logging.getLogger("lgbeam").level
    assert spectral_hmax.main(["nls-table", "--n", "11", "--methods", "exp-midpoint", "--search", "x",
                               "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert logging.getLogger("lgbeam").level == before  # the command's quieting does not leak into the caller


def test_round_search_with_horizon_writes_its_criterion(tmp_path, caplog):
    """The thesis-like search returns a round step that passes and says so in the table's header."""
    case, _ = load_case("nls-table", [])
    with caplog.at_level(logging.ERROR):
        rows = spectral_hmax.hmax_study(case, [11], ["exp-midpoint"], tmp_path, n_steps=50, horizon=5.0,
                                        search="round", h_hi=0.2, stage="exact")
    r = rows[0]
    assert r["h_max"] in spectral_hmax.round_steps(0.2) and r["search"] == "round" and r["horizon"] == 5.0
    md = (tmp_path / "hmax.md").read_text()
    assert "CHANGED" in md and "T = 5" in md and "search 'round'" in md and "stage solver exact" in md


@pytest.mark.slow
def test_fixed_horizon_makes_the_exp_midpoint_column_fall_like_one_over_n(tmp_path, caplog):
    """Table 2.3's exp-midpoint column with the thesis-like search (largest passing round step): with the
    stability checked to t = 100 it falls, 0.1, 0.1, 0.04, 0.008 at n = 11, 41, 161, 401 (fitted slope −0.67;
    thesis 0.1, 0.06, 0.01, 5e-3, −0.88); with the 1000-step test it stays at 0.04 from n = 161 to 401.
    Exact stage (the same steps as the fixed point to round-off, 3× cheaper); ≈ 1 min CPU."""
    case, _ = load_case("nls-table", [])
    ns = [11, 41, 161, 401]
    with caplog.at_level(logging.ERROR):
        long = spectral_hmax.hmax_study(case, ns, ["exp-midpoint"], tmp_path / "T100", horizon=100.0,
                                        search="round", stage="exact")
        short = spectral_hmax.hmax_study(case, [161, 401], ["exp-midpoint"], tmp_path / "T0", search="round",
                                         stage="exact")
    slope = spectral_hmax.hmax_slopes(long)["exp-midpoint"]
    assert slope <= -0.6, [r["h_max"] for r in long]
    h_long = {r["n"]: r["h_max"] for r in long}
    h_short = {r["n"]: r["h_max"] for r in short}
    assert h_short[161] == h_short[401]  # flat with 1000 steps
    assert h_long[401] <= h_short[401] / 4


def test_fig21_draws_horizon_rows_to_their_own_file(tmp_path):
    """``--fig21 --source`` with rows of a horizon search writes spectral-fig2.1-horizon.png (the 1000-step
    figure spectral-fig2.1.png is left alone)."""
    import csv

    from lgbeam.studies import spectral_panels

    src = tmp_path / "hmax.csv"
    with open(src, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["method", "n", "h_max", "thesis_h_max", "horizon", "search"])
        w.writeheader()
        for n, h, t in ((11, 0.1, 0.1), (41, 0.1, 0.06), (161, 0.04, 0.01)):
            w.writerow({"method": "exp-midpoint", "n": n, "h_max": h, "thesis_h_max": t, "horizon": 100.0,
                        "search": "round"})
    assert spectral_panels.main(["--fig21", "--source", str(src), "--out", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o" / "spectral-fig2.1-horizon.png").stat().st_size > 0
    assert not (tmp_path / "o" / "spectral-fig2.1.png").exists()
