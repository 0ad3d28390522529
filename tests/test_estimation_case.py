"""The ``ekf`` case kind through the command line: both shipped cases run on a short horizon into a
complete run folder; bad input is one line on stderr and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from lgbeam.apps import get_app
from lgbeam.cli.main import main
from lgbeam.io.vtk import read_pvd

CASES = Path(__file__).resolve().parents[1] / "cases"


@pytest.mark.parametrize("name", ["ekf-circle", "ekf-line"])
def test_ekf_case_runs_end_to_end(name, tmp_path):
    out = tmp_path / name
    rc = main(["run", str(CASES / f"{name}.toml"), "--out", str(out), "--quiet", "--no-figures",
               "--set", "time.t_end=3.0", "--set", "output.every=1.0"])
    assert rc == 0
    sol = np.load(out / "solution.npz")
    assert np.allclose(sol["t"], [0.0, 1.0, 2.0, 3.0])
    assert sol["positions"].shape == (4, 4, 3)  # times × (truth, ekf, fej, reduced) × xyz
    for f in ("ekf", "fej", "reduced"):
        assert sol[f"pose_{f}"].shape == (4, 3)
        err = np.linalg.norm(sol[f"pose_{f}"][:, :2] - sol["pose_true"][:, :2], axis=1)
        assert np.allclose(err, sol[f"dp_{f}"]) and err[0] == 0.0  # the initial pose is known exactly
    frames = read_pvd(out / "paraview" / f"{name}.pvd")
    assert [t for t, _ in frames] == pytest.approx([0.0, 1.0, 2.0, 3.0])
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["status"] == "ok"
    errs = get_app("ekf").errors(dict(sol), dict(sol))
    assert set(errs) == {f"{k}_{f}" for f in ("ekf", "fej", "reduced") for k in ("dp", "dth")}
    assert all(np.isfinite(v) and v >= 0 for v in errs.values())


@pytest.mark.parametrize("override, words", [
    ("trajectory.kind=\"helix\"", "choose one of line, circle, spline"),
    ("landmarks.features_per_step=0.0", "landmark density must be > 0"),
    ("sensor.range=0.0", "sensor range must be > 0"),
    ("sensor.q_z=-1e-4", "Q_z must be > 0"),
    ("filters=[\"ukf\"]", "filters"),
])
def test_bad_ekf_case_is_exit_2_with_the_fix(override, words, tmp_path, capsys):
    rc = main(["run", str(CASES / "ekf-circle.toml"), "--out", str(tmp_path / "x"), "--quiet", "--no-figures",
               "--set", override, "--set", "time.t_end=1.0"])
    err = capsys.readouterr().err
    assert rc == 2 and words in err
