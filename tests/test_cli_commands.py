"""`lgbeam list/run/study/render` end to end on the fake app: files in the run folder, fitted orders
of a study, one-line errors with exit code 2, and Ctrl-C (SIGINT) leaving valid files (exit 130)."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import fake_app
import meshio
import pytest
from waiting import finish, wait_for

from lgbeam.apps import load_case
from lgbeam.cli.main import main
from lgbeam.io.cases import list_cases
from lgbeam.io.vtk import read_pvd


@pytest.fixture
def cases(monkeypatch, tmp_path):
    return fake_app.install(monkeypatch, tmp_path)


def _one_line_error(capsys, code: int, *parts: str) -> None:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("lgbeam "), err
    for p in parts:
        assert p in err, err


def test_list_shows_cases_with_descriptions(cases, capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ["pend", "fake", "a", "swinging", "polyline", "(test", "app)"] in [ln.split() for ln in lines]
    assert len(lines) == len(list_cases())  # one line per case, the repository's cases included


def test_run_writes_a_complete_run_folder(cases, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "pend", "--out", str(out), "--set", "integrator.h=0.02", "--quiet"]) == 0
    assert f"output in {out}" in capsys.readouterr().out
    resolved, _ = load_case("pend", ["integrator.h=0.02"])
    assert tomllib.loads((out / "case.toml").read_text()) == resolved  # re-loadable resolved case
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["status"] == "ok" and prov["summary"]["n_steps"] == 50 and prov["wall_time_s"] > 0
    assert {p.name for p in (out / "figures").iterdir()} == {"energy.png", "constraint.png",
                                                            "step_size.png", "tip_trajectory.png"}
    entries = read_pvd(out / "paraview" / "pend.pvd")
    assert [t for t, _ in entries] == pytest.approx([0.1 * k for k in range(11)], abs=1e-12)  # k * 5 * h
    assert meshio.read(entries[-1][1]).point_data["d1"].shape == (6, 3)


def test_run_bad_input_is_one_line_exit_2(cases, tmp_path, capsys):
    _one_line_error(capsys, main(["run", "nope"]), "unknown case 'nope'", "pend")
    (cases / "broken.toml").write_text("kind = \n")
    _one_line_error(capsys, main(["run", "broken", "--out", str(tmp_path / "b")]), "malformed case file")
    _one_line_error(capsys, main(["run", "pend", "--set", "integrator.step=1"]), "valid keys: h, method")
    (tmp_path / "file").write_text("")
    _one_line_error(capsys, main(["run", "pend", "--out", str(tmp_path / "file" / "run")]), "cannot create")
    out = tmp_path / "r"
    assert main(["run", "pend", "--out", str(out), "--quiet", "--no-figures"]) == 0
    capsys.readouterr()
    _one_line_error(capsys, main(["run", "pend", "--out", str(out)]), "already exists", "--force")
    assert main(["run", "pend", "--out", str(out), "--quiet", "--force"]) == 0


def test_render_command(cases, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["run", "pend", "--out", str(out), "--quiet", "--no-figures"]) == 0
    capsys.readouterr()
    assert main(["render", str(out), "--frames", "0,-1", "--size", "160x120"]) == 0
    printed = capsys.readouterr().out.split()
    assert [Path(p).name for p in printed] == ["pend_frame000000.png", "pend_frame000010.png"]
    _one_line_error(capsys, main(["render", str(tmp_path / "missing")]), "does not exist")
    _one_line_error(capsys, main(["render", str(out), "--frames", "99"]), "out of range")
    _one_line_error(capsys, main(["render", str(out), "--size", "big"]), "WIDTHxHEIGHT")


@pytest.mark.parametrize("method, order", [("euler", 1.0), ("midpoint", 2.0)])
def test_study_fits_the_order_of_the_method(cases, tmp_path, capsys, method, order):
    out = tmp_path / "study"
    code = main(["study", "pend", "--set", f"integrator.method={method}", "--vary",
                 "integrator.h=0.02,0.01,0.005", "--reference", "integrator.h=2.5e-4", "--jobs", "2",
                 "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    with open(out / "study.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [float(r["integrator.h"]) for r in rows] == [0.02, 0.01, 0.005]
    assert [int(r["steps"]) for r in rows] == [50, 100, 200]
    assert set(rows[0]) >= {"position", "rotation", "wall_time_s", "status"}
    orders = json.loads((out / "provenance.json").read_text())["study"]["orders"]
    # smooth pendulum, h ≤ 0.02 is in the asymptotic range: fitted slope within 0.1 of the order
    assert orders["position"] == pytest.approx(order, abs=0.1)
    assert (out / "study.png").is_file() and (out / "runs" / "reference" / "solution.npz").is_file()
    assert "fitted orders" in capsys.readouterr().out


def test_study_bad_input(cases, tmp_path, capsys):
    _one_line_error(capsys, main(["study", "pend", "--vary", "integrator.h=0.01"]), "at least two values")
    _one_line_error(capsys, main(["study", "pend", "--vary", "integrator.h=0.01,fast"]), "integrator.h")
    _one_line_error(capsys, main(["study", "pend", "--vary", "grid.n=8,16", "--hmax", "--methods", "a"]),
                    "has no hmax study")


@pytest.mark.parametrize("command", ["list", "run", "study", "render"])
def test_help_has_an_example(command):
    proc = subprocess.run([sys.executable, "-m", "lgbeam", command, "--help"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "example: lgbeam " + command in proc.stdout


_DRIVER = """
import sys
sys.path.insert(0, sys.argv[1])
import lgbeam.apps
lgbeam.apps.APPS["fake"] = "fake_app"
from lgbeam.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("catch", ["false", "true"])  # app re-raises / app returns status "interrupted"
def test_ctrl_c_stops_cleanly(cases, tmp_path, catch):
    out = tmp_path / "run"
    args = [sys.executable, "-c", _DRIVER, str(Path(fake_app.__file__).parent), "run", "pend", "--out", str(out),
            "--set", f"debug.catch_interrupt={catch}", "--set", "debug.sleep=0.01", "--set", "output.every=0.01", "--set", "time.t_end=100.0"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=os.environ | {"LGBEAM_CASES": str(cases)})
    pvd = out / "paraview" / "pend.pvd"
    wait_for(lambda: pvd.exists() and len(read_pvd(pvd)) >= 5, "five frames written", proc=proc)  # an event
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = finish(proc)  # no time limit but a hang guard: a loaded machine is slow, not wrong
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and str(out) in stderr and "Traceback" not in stderr
    entries = read_pvd(pvd)
    assert len(entries) >= 5 and all(meshio.read(p).points.shape == (6, 3) for _, p in entries)
    assert json.loads((out / "provenance.json").read_text())["status"] == "interrupted"
    assert tomllib.loads((out / "case.toml").read_text())["time"]["t_end"] == 100.0
