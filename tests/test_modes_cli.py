"""``lgbeam modes``: the table/CSV against closed-form beam values, and one-line errors (exit 2).

The case loader and ``lgbeam.apps.rod.linear_beam_data`` are replaced by stand-ins with their
documented signatures, so that these tests check this command's own logic.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
from numpy.testing import assert_allclose

from lgbeam.cli import cmd_modes
from lgbeam.cli.main import main

BEAM = {"length": 10.0, "EI": 500.0, "rhoA": 2.0, "n_elements": 24, "left": "clamped", "right": "free", "tip_force": 3.0}


@pytest.fixture
def fake_case(monkeypatch):
    cases = {"cantilever": {"kind": "rod", "name": "cantilever"}, "wave": {"kind": "nls", "name": "wave"}}
    seen = {}

    def load_case(name, overrides):
        if name not in cases:
            raise FileNotFoundError(f"no case named {name!r}; see `lgbeam list`")
        seen["overrides"] = overrides
        return dict(cases[name]), f"cases/{name}.toml"

    monkeypatch.setattr(cmd_modes, "load_case", load_case)
    monkeypatch.setattr(cmd_modes, "linear_beam_data", lambda case: dict(BEAM))
    return seen


def test_compute_modes_matches_closed_form_and_static_tip():
    rep = cmd_modes.compute_modes(BEAM, 4)
    scale = np.sqrt(BEAM["EI"] / (BEAM["rhoA"] * BEAM["length"] ** 4))
    bl = np.array([1.87510407, 4.69409113, 7.85475744, 10.99554073])  # Blevins Table 8-1
    assert_allclose(rep.omega_exact, bl**2 * scale, rtol=1e-8)  # 8-digit table
    assert_allclose(rep.omega, rep.omega_exact, rtol=1e-4)  # O(h⁴) at 24 elements: measured ≤ 3e-5
    assert_allclose(rep.tip_deflection, 3.0 * 10.0**3 / (3 * 500.0), rtol=1e-10)  # PL³/3EI, nodally exact


def test_modes_command_prints_table_and_writes_csv(fake_case, tmp_path, capsys):
    rc = main(["modes", "cantilever", "--euler-bernoulli", "--n", "3", "--elements", "16", "--set", "rod.EI=500",
               "--out", str(tmp_path)])
    assert rc == 0
    assert fake_case["overrides"] == ["rod.EI=500"]
    out = capsys.readouterr().out
    assert "16 cubic Hermite elements" in out and "static tip deflection" in out
    with open(tmp_path / "modes.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["mode"]) for r in rows] == [1, 2, 3]
    omega = np.array([float(r["omega_rad_s"]) for r in rows])
    exact = np.array([float(r["omega_exact_rad_s"]) for r in rows])
    assert_allclose(omega, exact, rtol=2e-4)  # O(h⁴) at 16 elements: measured ≤ 8e-5
    assert_allclose([float(r["freq_hz"]) for r in rows], omega / (2 * np.pi), rtol=1e-15)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["modes", "wave"], "works on rod and frame cases"),
        (["modes", "nowhere"], "no case named"),
        (["modes", "cantilever", "--euler-bernoulli", "--n", "0"], "--n must be a positive"),
        (["modes", "cantilever", "--euler-bernoulli", "--elements", "0"], "--elements must be a positive"),
        (["modes", "cantilever", "--euler-bernoulli", "--n", "200", "--elements", "4"], "increase n_elements"),
    ],
)
def test_bad_input_is_one_line_exit_2(fake_case, tmp_path, capsys, argv, message):
    rc = main(argv + ["--out", str(tmp_path)])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err


def test_missing_beam_keys_are_reported(monkeypatch):
    with pytest.raises(ValueError, match="lacks EI, rhoA"):
        cmd_modes.compute_modes({"length": 1.0, "n_elements": 4, "left": "clamped", "right": "free"}, 2)


def test_modes_on_a_shipped_rod_case_end_to_end(tmp_path, capsys):
    # real loader + rod app: the FE frequencies must match the closed form of the same beam data
    rc = main(["modes", "cantilever-elastica", "--euler-bernoulli", "--n", "3", "--elements", "24", "--out", str(tmp_path)])
    assert rc == 0, capsys.readouterr().err
    with open(tmp_path / "modes.csv") as fh:
        rows = list(csv.DictReader(fh))
    omega = np.array([float(r["omega_rad_s"]) for r in rows])
    exact = np.array([float(r["omega_exact_rad_s"]) for r in rows])
    assert_allclose(omega, exact, rtol=5e-5)  # O(h⁴) at 24 elements: measured ≤ 3e-5 for 3 modes


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_rod_modes_of_a_curved_case_write_csv_and_paraview_shapes(tmp_path, capsys):
    """The actual rod (here the helix of a shipped case is replaced by an arc: curved, clamped) and its shapes."""
    from lgbeam.io.vtk import read_pvd

    rc = main(["modes", "roll-up", "--n", "3", "--set", "model.geometry='arc'", "--set", "model.radius=5.0",
               "--out", str(tmp_path)])
    assert rc == 0, capsys.readouterr().err
    assert "arc rod" in capsys.readouterr().out
    rows = _rows(tmp_path / "modes.csv")
    w = np.array([float(r["omega_rad_s"]) for r in rows])
    assert np.all(np.diff(w) >= 0) and w[0] > 0
    frames = read_pvd(tmp_path / "paraview" / "modes.pvd")
    assert [t for t, _ in frames] == [0.0, 1.0, 2.0, 3.0]  # the reference, then one frame per mode


def test_prestressed_case_first_frequency_follows_one_minus_p_over_pcr(tmp_path, capsys):
    rc = main(["modes", "prestressed-beam", "--about", "static", "--n", "1", "--out", str(tmp_path / "m")])
    assert rc == 0, capsys.readouterr().err
    ratio = float(_rows(tmp_path / "m" / "modes.csv")[0]["ratio"])
    rc = main(["modes", "prestressed-beam", "--buckling", "--n", "1", "--out", str(tmp_path / "b")])
    assert rc == 0, capsys.readouterr().err
    mu_cr = float(_rows(tmp_path / "b" / "modes.csv")[0]["load_factor"])
    assert ratio == pytest.approx(1.0 - 1.0 / mu_cr, abs=1e-8)  # ω² = ω₀²(1 − P/P_cr), the case's load P


def test_rod_modes_of_a_free_rod_name_the_rigid_motions(tmp_path, capsys):
    rc = main(["modes", "flying-spaghetti", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and "translation along x" in err and "are free" in err


def test_about_static_with_buckling_gives_the_loaded_modes_and_the_buckling_factors(tmp_path, capsys):
    """ux review t3 §1 row 1: `--about static --buckling` (README) used to print the buckling factors only. Now the
    modes of the loaded state (ω² below the unloaded ones under compression: the ratio < 1) and the buckling factors,
    each in its own folder; the buckling factor equals the one of `--buckling` alone (to ARPACK's round-off)."""
    from lgbeam.cli.main import main

    assert main(["modes", "prestressed-beam", "--about", "static", "--buckling", "--n", "2", "--out", str(tmp_path / "a")]) == 0
    text = capsys.readouterr().out
    assert "about its static state" in text and "linear buckling" in text
    with open(tmp_path / "a" / "modes-static" / "modes.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 and all(0.0 < float(r["ratio"]) < 1.0 for r in rows)
    assert main(["modes", "prestressed-beam", "--buckling", "--n", "1", "--out", str(tmp_path / "b")]) == 0
    with open(tmp_path / "a" / "buckling" / "modes.csv") as fa, open(tmp_path / "b" / "modes.csv") as fb:
        a, b = (float(next(csv.DictReader(f))["load_factor"]) for f in (fa, fb))
    assert a == pytest.approx(b, rel=1e-9)  # the same problem; ARPACK's random start vector: 1.6e-12 apart
