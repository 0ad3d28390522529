"""The issue-16 reproductions and bench run end to end in their quick modes (slow: minutes on one core)."""

from __future__ import annotations

import csv

import pytest

from lgbeam.bench import ep as bench_ep
from lgbeam.studies import ep_figures, polar_figures


def _rows(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
def test_seed002_figures_quick(tmp_path):
    rows = ep_figures.run(tmp_path, None, quick=True)
    for name in ("fig1-sphere", "fig2-orders", "fig2-momentum", "fig3-energy"):
        assert (tmp_path / f"{name}.png").stat().st_size > 0 and (tmp_path / f"{name}.csv").exists()
    got = {r[0]: r[1] for r in rows}
    assert got["fig1 max |dH| over the curves"] < 1e-14
    assert abs(got["fig2 slope ep4 (h <= 2^-6)"] - 4) < 0.2
    assert got["fig3 EP max |dH| on [0, 20]"] < 1e-12 < got["fig3 symmetric max |dH| on [0, 20]"]


@pytest.mark.slow
def test_seed003_figures_quick(tmp_path):
    polar_figures.run(tmp_path, None, quick=True)
    rows = _rows(tmp_path / "fig4-3-orders.csv")
    assert {r["method"] for r in rows} == {"polar-lp-gl1", "polar-lp-gl2", "polar-lp-gl3"}
    assert max(float(r["max_casimir_error"]) for r in rows) < 1e-13
    assert (tmp_path / "fig4-1-energy.png").exists() and (tmp_path / "heavy-top.csv").exists()
    e41 = _rows(tmp_path / "fig4-1-energy.csv")  # Fig. 4.1's rows: t = 0 (ΔH = 0), h, …, T (was shifted by h)
    assert float(e41[0]["t"]) == 0.0 and float(e41[0]["energy_error"]) == 0.0
    assert float(e41[1]["t"]) == pytest.approx(0.2) and float(e41[-1]["t"]) == pytest.approx(20.0)


@pytest.mark.slow
def test_bench_ep_quick(tmp_path):
    out = bench_ep.run(tmp_path, quick=True)
    assert {r["method"] for r in out["accuracy"]} == {"ep2-gonzalez", "ep2-avf", "ep4", "lie-midpoint", "lie-heun"}
    assert all(r["status"] == "ok" for r in out["polar"])
    folder = next(tmp_path.glob("ep-*"))
    assert (folder / "ep-accuracy.csv").exists() and (folder / "ep-polar.csv").exists()
