"""``lgbeam bench spectral --targets`` (issue 26): problems, peers (with and without the optional rkstiff), the
Pareto-front interpolation of the cost at a target."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lgbeam.bench import spectral_targets as targets


def test_pareto_front_and_cost_at_target():
    runs = [{"error": 1e-4, "cpu_s": 1.0}, {"error": 1e-6, "cpu_s": 4.0}, {"error": 1e-5, "cpu_s": 5.0},  # off
            {"error": 1e-8, "cpu_s": 16.0}]
    front = targets.pareto(runs)
    assert [r["cpu_s"] for r in front] == [1.0, 4.0, 16.0]  # the run beaten in CPU and error is left out
    assert targets.at_target(runs, 1e-7) == (pytest.approx(8.0), "")  # log–log between 4 s and 16 s
    assert targets.at_target(runs, 1e-3) == (1.0, "<=")
    assert math.isnan(targets.at_target(runs, 1e-10)[0])


def test_problems_and_reference():
    """The c = 4 soliton is exact (amplitude 3c = 12); the two-soliton reference (ETDRK4, h = T/20000) agrees
    with a run at twice the step to far below the bench's targets."""
    system, y0, ref = targets.problem("kdv-c4", 255, 2.0)
    assert np.max(y0) == pytest.approx(12.0, rel=5e-3) and system.grid.length == 40.0  # peak between nodes: 11.96
    assert np.linalg.norm(ref() - y0) > 1.0  # it moved (c·T = 8)
    system, y0, ref = targets.problem("kdv-two", 255, 0.05)
    assert targets.REF_STEPS == 20000
    with pytest.MonkeyPatch.context() as mp:  # the reference rule at fewer steps (the full one takes seconds)
        mp.setattr(targets, "REF_STEPS", 200)
        fine = ref()
    coarse = targets._etdrk4(system, y0, 0.05, 0.05 / 100)
    assert np.linalg.norm(coarse - fine) / np.linalg.norm(fine) < 1e-8  # ETDRK4 at h = 2.5e-4 vs 5e-4
    with pytest.raises(ValueError, match="unknown targets problem 'kdv'"):
        targets.problem("kdv", 65, 1.0)


def test_etd35_peer_converges_to_the_exact_soliton():
    """Against ETDRK4 at a small step on the same semi-discrete system (an independent method; the exact soliton
    carries the grid's spatial error, 3e-5 at N = 129)."""
    system, y0, _ = targets.problem("nls-soliton", 129, 1.0)
    truth = targets._etdrk4(system, y0, 1.0, 1e-3)
    errs = [targets._one(system, y0, truth, "etd35", eps, None, 1.0)["error"] for eps in (1e-5, 1e-9)]
    assert errs[1] < 1e-8 and errs[1] < 1e-2 * errs[0], errs


def test_quick_rows_without_the_optional_peer(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(targets, "has_rkstiff", lambda: False)
    monkeypatch.setattr(targets, "PROBLEMS", {"kdv-c4": targets.PROBLEMS["kdv-c4"]})
    rows = targets.run(tmp_path, quick=True)
    assert "rkstiff is not installed (pip install rkstiff)" in capsys.readouterr().out
    assert (tmp_path / "spectral-targets.csv").is_file()
    assert not any(r["method"] == "etd35" for r in rows)
    summary = [r for r in rows if str(r["param"]).startswith("t@")]
    assert {r["param"] for r in summary} == {"t@1e-06", "t@1e-08"}
    assert all(r["ratio_etdrk4"] == pytest.approx(1.0) for r in summary if r["method"] == "etdrk4"
               and math.isfinite(r["cpu_s"]))


def test_targets_problems_and_methods_options_refuse_bad_input(tmp_path, capsys):
    from lgbeam.cli.main import main

    assert main(["bench", "spectral", "--targets", "--quick", "--problems", "nls-nope", "--out", str(tmp_path)]) == 2
    assert "--problems: unknown or empty 'nls-nope'; choose from" in capsys.readouterr().err
    assert main(["bench", "spectral", "--targets", "--quick", "--methods", "rk4", "--out", str(tmp_path)]) == 2
    assert main(["bench", "rod", "--quick", "--problems", "kdv-c4", "--out", str(tmp_path)]) == 2
    assert not (tmp_path / "spectral-targets.csv").exists()


def test_new_problems_are_exact_and_lg_etd35_runs(tmp_path):
    """The breather and three-soliton problems start from and end at their exact solutions; one lg-etd35 row."""
    system, y0, ref = targets.problem("nls-breather", 63, 1.0)
    assert system.grid.length == pytest.approx(4 * np.pi) and np.abs(y0).max() < np.abs(ref()).max() + 1.0
    r = targets._one(system, y0, ref(), "lg-etd35", 1e-8, None, 1.0)
    assert r["status"] == "ok" and r["error"] < 1e-6
    system, y0, ref = targets.problem("kdv-three", 255, 0.1)
    assert system.grid.length == 100.0 and y0.max() == pytest.approx(12.0, rel=5e-2)
