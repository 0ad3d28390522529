"""`lgbeam study` / `lgbeam sweep` on Dask (issue 12 item 6), on the fake pendulum app of tests/fake_app.py:
the grid of several --vary keys, a 2-worker LocalCluster giving the serial results, a worker killed
mid-study (the run is tried again and the study completes), a rerun that does no work, what counts as a
complete run, failed runs as rows, and bad input (one line, exit 2)."""

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
import numpy as np
import pytest
from waiting import finish, wait_for

from lgbeam.cli.main import main
from lgbeam.io.atomic import RunLock
from lgbeam.studies import parallel
from lgbeam.studies.parallel import RunFailed, map_runs, run_tasks
from lgbeam.studies.runner import is_complete

H8 = "integrator.h=0.04,0.02,0.0125,0.01,0.008,0.005,0.004,0.0025"  # 8 runs (25 … 400 steps to t = 1)


@pytest.fixture
def cases(monkeypatch, tmp_path):
    return fake_app.install(monkeypatch, tmp_path)


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "study.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _one_line_error(capsys, code: int, *parts: str) -> None:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("lgbeam "), err
    for p in parts:
        assert p in err, err


def _same_results(a: list[dict[str, str]], b: list[dict[str, str]]) -> None:
    """Same grid, statuses, step counts and errors (the same code on the same machine: equal to round-off)."""
    assert [r["integrator.h"] for r in a] == [r["integrator.h"] for r in b]
    assert [(r["status"], r["steps"]) for r in a] == [(r["status"], r["steps"]) for r in b]
    for k in ("position", "rotation"):
        np.testing.assert_allclose([float(r[k]) for r in a], [float(r[k]) for r in b], rtol=1e-12, atol=0)


# --- the parallel engine ---------------------------------------------------------------------------------


def _fail_on_negative(x: float) -> float:
    if x < 0:
        raise ValueError(f"negative {x}")
    return x * x


def test_map_runs_keeps_order_and_raises_after_retries():
    assert map_runs(_fail_on_negative, [3.0, 1.0, 2.0], scheduler="synchronous") == [9.0, 1.0, 4.0]
    assert map_runs(_fail_on_negative, [3.0, 1.0, 2.0], scheduler="threads", jobs=2) == [9.0, 1.0, 4.0]
    out = run_tasks(_fail_on_negative, [1.0, -1.0], scheduler="synchronous", retries=1)
    assert [o.ok for o in out] == [True, False] and [o.attempts for o in out] == [1, 2]
    assert out[1].error == "ValueError: negative -1.0"
    with pytest.raises(RunFailed, match="item 1 failed after 2 tries: ValueError: negative -1.0"):
        map_runs(_fail_on_negative, [1.0, -1.0], scheduler="synchronous")
    with pytest.raises(ValueError, match="--jobs must be at least 1, got 0"):
        map_runs(_fail_on_negative, [1.0], jobs=0)


# --- grids ----------------------------------------------------------------------------------------------


def test_sweep_grid_over_two_keys(cases, tmp_path, capsys):
    out = tmp_path / "sw"
    code = main(["sweep", "pend", "--vary", "integrator.h=0.02,0.01", "--vary", "integrator.method=euler,midpoint",
                 "--scheduler", "synchronous", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    rows = _rows(out)
    grid = [(r["integrator.h"], r["integrator.method"]) for r in rows]
    assert grid == [("0.02", "euler"), ("0.02", "midpoint"), ("0.01", "euler"), ("0.01", "midpoint")]
    assert [int(r["steps"]) for r in rows] == [50, 50, 100, 100]  # t_end / h
    for r in rows:  # each run folder holds the case of its own grid point (the second --vary did not win)
        case = tomllib.loads((out / "runs" / f"integrator.h={r['integrator.h']},integrator.method="
                              f"{r['integrator.method']}" / "case.toml").read_text())
        assert (case["integrator"]["h"], case["integrator"]["method"]) == (float(r["integrator.h"]),
                                                                            r["integrator.method"])


def test_study_with_two_keys_fits_orders_per_method(cases, tmp_path, capsys):
    out = tmp_path / "st"
    code = main(["study", "pend", "--vary", "integrator.h=0.02,0.01,0.005", "--vary",
                 "integrator.method=euler,midpoint", "--reference", "integrator.h=2.5e-4",
                 "--reference", "integrator.method=midpoint", "--scheduler", "synchronous", "--out", str(out),
                 "--quiet"])
    assert code == 0, capsys.readouterr().err
    orders = json.loads((out / "provenance.json").read_text())["study"]["orders"]
    # smooth pendulum, h ≤ 0.02 in the asymptotic range: fitted slope within 0.1 of the order
    assert orders["integrator.method=euler"]["position"] == pytest.approx(1.0, abs=0.1)
    assert orders["integrator.method=midpoint"]["position"] == pytest.approx(2.0, abs=0.1)
    assert (out / "study-integrator.method=euler.png").is_file()


# --- Dask -----------------------------------------------------------------------------------------------


def test_eight_runs_on_two_workers_match_the_serial_study(cases, tmp_path, capsys):
    common = ["study", "pend", "--set", "integrator.method=midpoint", "--set", "output.vtk=false", "--vary", H8,
              "--reference", "integrator.h=5e-4", "--quiet"]
    assert main([*common, "--scheduler", "synchronous", "--out", str(tmp_path / "serial")]) == 0
    assert main([*common, "--jobs", "2", "--out", str(tmp_path / "dask")]) == 0, capsys.readouterr().err
    serial, dask = _rows(tmp_path / "serial"), _rows(tmp_path / "dask")
    assert len(dask) == 8 and all(r["status"] == "ok" and r["attempts"] == "1" for r in dask)
    _same_results(serial, dask)
    # and the errors are the method's: ≈ C h² (midpoint), checked by the fitted slope
    assert json.loads((tmp_path / "dask" / "provenance.json").read_text())["study"]["orders"]["position"] == \
        pytest.approx(2.0, abs=0.1)


_DRIVER = """
import sys
sys.path.insert(0, sys.argv[1])
import lgbeam.apps
lgbeam.apps.APPS["fake"] = "fake_app"
from lgbeam.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _worker_running_a_run(out: Path, study_pid: int, *, skip: str = "") -> tuple[str, int] | None:
    """(run label, pid) of a worker process holding a run's lock, or None yet."""
    for lock in (out / "runs").glob(f"*/{RunLock.NAME}") if (out / "runs").is_dir() else []:
        own = RunLock.owner(lock.parent)
        if own is not None and own[0] != study_pid and lock.parent.name != skip:
            return lock.parent.name, own[0]
    return None


def test_killed_worker_run_is_retried_and_the_study_completes(cases, tmp_path, capsys):
    """Review t3 §D: one SIGKILL to the worker process holding a run's .lock; the run is tried again on a working
    worker, the study exits 0 and says what was retried (row note, stderr, provenance)."""
    out = tmp_path / "killed"
    # 4 runs of 0.25-1 s each (25-100 steps with a 10 ms sleep) and a reference, on two workers
    args = ["study", "pend", "--vary", "integrator.h=0.04,0.02,0.0125,0.01", "--set", "debug.sleep=0.01",
            "--set", "output.vtk=false", "--reference", "integrator.h=0.005"]
    proc = subprocess.Popen([sys.executable, "-c", _DRIVER, str(Path(fake_app.__file__).parent), *args, "--jobs", "2",
                             "--out", str(out), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=os.environ | {"LGBEAM_CASES": str(cases)})
    victim = wait_for(lambda: _worker_running_a_run(out, proc.pid, skip="reference"), "a run started", proc=proc)
    os.kill(victim[1], signal.SIGKILL)  # the worker process running that run dies mid-run
    _, stderr = finish(proc)
    assert proc.returncode == 0, stderr
    rows = {r["integrator.h"]: r for r in _rows(out)}
    killed = rows[victim[0].split("=", 1)[1]]
    assert killed["status"].startswith("ok") and killed["attempts"] == "2", killed
    assert killed["note"].startswith("tried 2 times; try 1 failed: KilledWorker: its worker process died"), killed
    assert f"run {victim[0]} was retried (KilledWorker: its worker process died" in stderr, stderr
    assert "Traceback" not in stderr and "distributed." not in stderr, stderr  # t4: 33 lines of Dask's own
    assert all(r["status"] == "ok" for r in rows.values()), rows
    assert [r["attempts"] for h, r in rows.items() if h != killed["integrator.h"]] == ["1", "1", "1"]  # no other
    assert [int(r["steps"]) for r in rows.values()] == [25, 50, 80, 100]
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["status"] == "ok" and prov["study"]["failed"] == []
    assert list(prov["study"]["retried"]) == [victim[0]]


def test_rerun_of_a_finished_study_does_no_work(cases, tmp_path, capsys):
    out = tmp_path / "again"
    args = ["study", "pend", "--vary", "integrator.h=0.02,0.01,0.005", "--reference", "integrator.h=1e-3",
            "--scheduler", "synchronous", "--out", str(out), "--quiet"]
    assert main(args) == 0
    first = _rows(out)
    stamps = {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(args) == 0
    assert "(0 runs done now, 4 kept)" in capsys.readouterr().out
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").rglob("*") if p.is_file()} == stamps  # untouched
    again = _rows(out)
    _same_results(first, again)
    assert all(r["attempts"] == "0" for r in again)
    # a truncated solution.npz makes exactly that run incomplete: the next rerun does it and nothing else
    npz = out / "runs" / "integrator.h=0.01" / "solution.npz"
    npz.write_bytes(npz.read_bytes()[:100])
    assert main(args) == 0
    assert "(1 runs done now, 3 kept)" in capsys.readouterr().out
    assert [r["attempts"] for r in _rows(out)] == ["0", "1", "0"]
    _same_results(first, _rows(out))


def test_what_counts_as_a_complete_run(cases, tmp_path):
    from lgbeam.apps import load_case

    out = tmp_path / "r"
    assert main(["run", "pend", "--out", str(out), "--quiet", "--no-figures"]) == 0
    case = load_case("pend")[0]
    assert is_complete(out, case)
    assert not is_complete(out, load_case("pend", ["integrator.h=0.02"])[0])  # another case
    prov = json.loads((out / "provenance.json").read_text())
    for status, complete in (("h_min", True), ("nonfinite", True), ("interrupted", False), ("running", False),
                             ("failed: boom", False)):
        (out / "provenance.json").write_text(json.dumps({**prov, "status": status}))
        assert is_complete(out, case) is complete, status
    (out / "provenance.json").write_text("{")  # torn write
    assert not is_complete(out, case)
    (out / "provenance.json").write_text(json.dumps(prov))
    (out / RunLock.NAME).write_text(f"{os.getpid()} {os.uname().nodename}\n")  # a live writer
    assert not is_complete(out, case)
    (out / RunLock.NAME).unlink()
    (out / "solution.npz").unlink()
    assert not is_complete(out, case)


def test_a_failing_run_is_retried_once_and_reported(cases, tmp_path, capsys):
    out = tmp_path / "f"
    # debug.sleep = -1 makes time.sleep raise ValueError after the first step (an app crash)
    code = main(["sweep", "pend", "--vary", "debug.sleep=0.0,-1.0", "--scheduler", "synchronous", "--out", str(out),
                 "--quiet"])
    assert code == 1
    assert "1 of 2 runs did not end ok" in capsys.readouterr().err
    ok, bad = _rows(out)
    assert ok["status"] == "ok" and ok["attempts"] == "1"
    assert bad["status"].startswith("failed: ValueError") and bad["attempts"] == "2"
    assert bad["note"] == "tried 2 times; try 1 failed: ValueError: sleep length must be non-negative"
    assert json.loads((out / "provenance.json").read_text())["study"]["failed"] == ["debug.sleep=-1.0"]


def test_bad_grid_input_is_one_line_exit_2(cases, tmp_path, capsys, monkeypatch):
    _one_line_error(capsys, main(["sweep", "pend", "--vary", "integrator.hh=0.1,0.2"]), "integrator.hh")
    _one_line_error(capsys, main(["sweep", "pend", "--vary", "integrator.h="]), "at least 1 value")
    _one_line_error(capsys, main(["study", "pend", "--vary", "integrator.h=0.1,0.2", "--jobs", "0"]),
                    "--jobs must be at least 1, got 0")
    _one_line_error(capsys, main(["sweep", "pend", "--vary", "integrator.h=0.1", "--vary", "integrator.h=0.2"]),
                    "given twice")
    _one_line_error(capsys, main(["study", "pend", "--vary", "integrator.h=0.1,0.2", "--vary",
                                  "integrator.method=euler,midpoint"]), "--reference")
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT_S", 1.0)
    _one_line_error(capsys, main(["sweep", "pend", "--vary", "integrator.h=0.1", "--scheduler", "tcp://127.0.0.1:9",
                                  "--out", str(tmp_path / "x"), "--quiet"]), "cannot reach the Dask scheduler")


def test_sweep_help_has_an_example():
    proc = subprocess.run([sys.executable, "-m", "lgbeam", "sweep", "--help"], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and "example: lgbeam sweep" in proc.stdout
