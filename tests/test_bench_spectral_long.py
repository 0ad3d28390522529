"""``lgbeam bench spectral --long`` / ``--targets``: the peers are the methods they claim to be (fitted orders
against the exact NLS soliton), blow-ups are flagged, ours never report "ok" on one, and the target
interpolation is log–log."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from lgbeam.bench import spectral_long as long
from lgbeam.bench import spectral_targets as targets
from lgbeam.bench.spectral import _fourier_ops
from lgbeam.cli.main import main
from lgbeam.diagnostics import observed_order


@pytest.mark.parametrize("peer, order", [("strang", 2), ("yoshida4", 4), ("etdrk4", 4)])
def test_peers_have_their_order_on_the_exact_soliton(peer, order):
    system, y0, exact = long.problem("nls-soliton")
    fwd, inv, _, _ = _fourier_ops(system)
    hs = np.array([1 / 20, 1 / 40, 1 / 80])
    errs = []
    for h in hs:
        step, v = long._peer_stepper(system, peer, h), fwd(y0)
        for _ in range(round(1.0 / h)):
            v = step(v)
        errs.append(np.abs(inv(v) - exact(1.0)).max())
    assert abs(observed_order(hs, errs) - order) <= 0.3, errs  # the former per-family band


def test_blow_up_is_flagged_and_ours_stop_with_a_status():
    """NLS soliton, h = 0.2: Yoshida-4 blows up at t ≈ 28 and the order-6 composition at t ≈ 42 (measured,
    docs/spectral.md); ours end with energy_growth, never "ok" on the blown-up state."""
    peer = long.run_one("nls-soliton", 60.0, "yoshida4", 0.2)
    assert peer["status"] == "blow-up" and peer["blown_up"] and peer["t_end"] < 60.0
    ours = long.run_one("nls-soliton", 60.0, "exp-yoshida6", 0.2)
    assert ours["status"] == "energy_growth" and not ours["ok_on_blowup"] and ours["t_end"] < 60.0
    good = long.run_one("nls-soliton", 2.0, "energy-exp4", 0.1)
    assert good["status"] == "ok" and not good["blown_up"] and good["energy_error"] <= 1e-12


def test_long_bench_quick_run_writes_its_table(tmp_path, capsys):
    rows = long.run(tmp_path, quick=True, jobs=1)
    with open(tmp_path / "spectral-long.csv", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == len(rows) == len(long.tasks(quick=True))
    assert not any(r["ok_on_blowup"] for r in rows)
    assert "runs of ours reporting ok on a blown-up solution: 0 of" in capsys.readouterr().out


def test_long_and_targets_are_modes_of_the_spectral_bench_only(tmp_path, capsys):
    assert main(["bench", "groups", "--long", "--out", str(tmp_path)]) == 2
    assert "--long is a mode of 'lgbeam bench spectral', not of 'groups'" in capsys.readouterr().err
    assert main(["bench", "herk", "--targets", "--out", str(tmp_path)]) == 2
    with pytest.raises(ValueError, match="unknown long-run problem 'nls'"):
        long.problem("nls")


def test_target_interpolation_is_log_log():
    runs = [{"error": 1e-6, "cpu_s": 1.0}, {"error": 1e-10, "cpu_s": 100.0}]
    assert targets._interp(runs, "cpu_s", 1e-8) == pytest.approx(10.0)
    assert np.isnan(targets._interp(runs, "cpu_s", 1e-12))
