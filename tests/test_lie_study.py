"""The seed 000 reproduction command (python -m lgbeam.studies.lie_figures): bad input exits 2 with the
choices; the quick run of one figure writes its CSV and PNG with the note's numbers (slow: every figure)."""

from __future__ import annotations

import csv

import pytest

from lgbeam.studies import lie_figures


def test_unknown_figure_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        lie_figures.main(["--quick", "--out", str(tmp_path), "--only", "fig99"])
    assert exc.value.code == 2
    assert "unknown figure(s) fig99; choose from fig2-3, fig5" in capsys.readouterr().err


def test_variable_step_figure_quick(tmp_path):
    """Figs 9/11 quick: 117/17 steps and the smallest step at t ≈ 2.286 (notes §8.4), files written."""
    rows = lie_figures.run(tmp_path, quick=True, only=["fig9-11"])
    values = {r[1]: r[2] for r in rows}
    assert values["N=2 accepted/rejected steps"] == "117/17"
    assert values["N=2 smallest RKMK(5,4) step and its time"] == "4.782e-03 at t=2.286"
    assert (tmp_path / "lie-fig9-11-double-pendulum.png").stat().st_size > 10_000
    with open(tmp_path / "lie-summary-fig9-11.csv", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == len(rows)


@pytest.mark.slow
def test_every_figure_quick(tmp_path):
    rows = lie_figures.run(tmp_path, quick=True)
    assert {r[0] for r in rows} >= {"Fig. 2", "Fig. 3", "Fig. 5", "Fig. 6", "Fig. 8", "Fig. 10", "Fig. 16"}
    assert (tmp_path / "lie-summary.csv").exists()
