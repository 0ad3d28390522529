"""Supports in rod case files (``[[supports.at]]``) end to end through the CLI: reactions in solution.npz and
provenance.json (equilibrium with the loads: exact for the statically determinate beam), a load on a fixed
degree of freedom reported, bad support tables refused with one line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lgbeam.cli.main import main

BEAM = """
kind = "rod"
name = "beam"
[model]
n_elements = 8
length = 2.0
constraints = "kirchhoff"
[model.material]
EA = 1e4
GA = 1e4
EI = 10.0
GJ = 10.0
rhoA = 1.0
rhoJ = 0.01
{supports}
[loads]
nodal = [{{ node = 4, force = [0.0, 0.0, -3.0] }}{extra_load}]
[integrator]
method = "hedop5"
h = 2e-4                  # explicit HEDOP5: |h ω| ≈ 0.2 for the axial mode ω ≈ 2/Δs √(EA/ρA) = 800
[time]
t_end = {t_end}
[output]
every = {t_end}
vtk = false
[analysis]
kind = "{analysis}"
"""

PIN_ROLLER = """
[[supports.at]]
name = "pin"
s = 0.0
fix = ["x", "y", "z", "rz"]
frame = "local"
[[supports.at]]
name = "roller"
node = -1
kind = "roller"
axis = "x"
"""


def _write(tmp_path: Path, supports: str, analysis: str = "static", t_end: float = 1.0, extra_load: str = "") -> Path:
    path = tmp_path / "beam.toml"
    path.write_text(BEAM.format(supports=supports, analysis=analysis, t_end=t_end, extra_load=extra_load))
    return path


def _one_line_error(capsys, code: int, *parts: str) -> None:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("lgbeam "), err
    for p in parts:
        assert p in err, err


@pytest.mark.parametrize("analysis", ["static", "dynamic"])
def test_reactions_are_written_and_balance_the_load(tmp_path, analysis):
    out = tmp_path / "run"
    t_end = 1.0 if analysis == "static" else 0.01
    assert main(["run", str(_write(tmp_path, PIN_ROLLER, analysis, t_end)), "--out", str(out), "--quiet"]) == 0
    sol = np.load(out / "solution.npz")
    R = sol["reactions"]
    assert R.shape == (len(sol["t"]), 2, 6)
    assert list(sol["support_names"]) == ["pin", "roller"] and list(sol["support_nodes"]) == [0, 8]
    prov = json.loads((out / "provenance.json").read_text())["summary"]["extra"]
    assert set(prov["reactions"]) == {"pin", "roller"}
    if analysis == "static":  # statically determinate: P/2 at each support, exactly
        np.testing.assert_allclose(R[-1, :, 5], [1.5, 1.5], rtol=1e-9)
        np.testing.assert_allclose(prov["reactions_plus_loads"]["force"], 0.0, atol=1e-8)  # Newton tolerance
        np.testing.assert_allclose(prov["reactions_plus_loads"]["moment_about_origin"], 0.0, atol=1e-8)
    else:  # dynamic: the consistent λ at t0 already carries part of the load; finite reactions at every save
        assert np.all(np.isfinite(R)) and np.abs(R[-1, :, 5]).max() > 0.0


def test_start_end_keys_still_work_and_a_load_into_a_support_is_reported(tmp_path):
    """The review's pinned column: an axial end load on a pinned end goes into the support; the run says so.

    The start is clamped: with two pins the rotation about the rod's axis would be free, which a static
    analysis refuses (test_rod_static_paths)."""
    sup = '[supports]\nstart = "clamped"\nend = "pinned"\n'
    path = _write(tmp_path, sup, extra_load=', { node = "end", force = [-5.0, 0.0, 0.0] }')
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    prov = json.loads((out / "provenance.json").read_text())["summary"]["extra"]
    assert any("node 8" in n and "reaction" in n for n in prov["support_notes"])
    axial = sum(r["force"][0] for r in prov["reactions"].values())
    np.testing.assert_allclose(axial, 5.0, rtol=1e-9)  # the reactions carry the axial load (static equilibrium)


@pytest.mark.parametrize("table, parts", [
    ('[[supports.at]]\nnode = 12\nkind = "pinned"\n', ("supports.at[0]", "node 12 does not exist")),
    ('[[supports.at]]\nnode = 0\nkind = "fixed"\n', ("supports.at[0]", "unknown support kind 'fixed'")),
    ('[[supports.at]]\nnode = 0\nfix = ["x", "q"]\n', ("supports.at[0]", "'q'")),
    ('[[supports.at]]\nnode = 0\nstiffness = [1.0, -1.0, 0.0]\n', ("supports.at[0]", "stiffness must be >= 0")),
    ('[[supports.at]]\nnode = 0\nkind = "pinned"\nframe = "body"\n', ("supports.at[0]", "frame = 'body'")),
    ('[[supports.at]]\nnode = 0\nknd = "pinned"\n', ("supports.at[0]", "unknown key 'knd'", "valid keys")),
    ('[[supports.at]]\ns = 0.3\nkind = "pinned"\n', ("no node at s = 0.3",)),
    ('[supports]\nstart = "clamped"\n[[supports.at]]\nnode = 0\nkind = "roller"\naxis = "x"\n',
     ("contradictory supports at node 0",)),
])
def test_bad_support_tables_exit_2_with_one_line(tmp_path, capsys, table, parts):
    rc = main(["run", str(_write(tmp_path, table)), "--out", str(tmp_path / "run"), "--quiet"])
    _one_line_error(capsys, rc, *parts)


def test_dynamic_settlement_without_a_ramp_is_refused(tmp_path, capsys):
    sup = PIN_ROLLER.replace('kind = "roller"\naxis = "x"',
                             'kind = "prescribed"\nfix = ["y", "z"]\nmotion = { displacement = [0.0, 0.0, -0.01] }')
    rc = main(["run", str(_write(tmp_path, sup, "dynamic", 0.01)), "--out", str(tmp_path / "run"), "--quiet"])
    _one_line_error(capsys, rc, "support 'roller'", "motion.ramp > 0")
