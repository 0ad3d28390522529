"""Runs a user can trust (issue #23; reviews/t3/reliability.md): one regression test per finding, with the review's
reproducer where it has one.

- blow-ups are never ``ok`` — also with ``diagnostics=False`` — and the energy budget (E − E₀ = work of the loads) holds
  to the method's accuracy on a loaded rod (a conservation law as the independent truth);
- checkpoints are data only: a pickle in a run folder is never loaded, a forged data file cannot name code;
- a refused ``--resume`` leaves the folder's provenance.json byte for byte as it was;
- ``--resume`` refuses an edited case.toml, another lgbeam version, naming the difference, and accepts a later t_end;
- one rule for names, with or without ``--out``; a resumed ParaView series deletes only its own frames;
- no duplicate output time at t_end.
"""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest

from lgbeam.apps import CHECKPOINT, load_case
from lgbeam.apps.heavy_top import problem as heavy_top_problem
from lgbeam.cli.main import main
from lgbeam.integrators.base import Status
from lgbeam.io.datafile import encode, read_data, write_data
from lgbeam.io.vtk import read_pvd
from lgbeam.solve import ConstantStep, SaveAt, integrate

QUICK = ["--quiet", "--no-figures"]
CKPT = ["--set", "output.checkpoint_steps=5"]


def _run(args: list[str]) -> int:
    return main(["run", *args, *QUICK])


# ---------------------------------------------------------------------------------------------- 1. blow-ups
@pytest.mark.parametrize(("h", "t_end"), [(0.05, 0.1), (0.1, 0.1), (0.02, 0.3)])
def test_review_blow_ups_exit_1_not_ok(tmp_path, capsys, h, t_end):
    """The three reproducers that ended `ok` (energy ×6.9e7 and |Φ| = 1247; ×9.7e4; ×16 and |Φ| = 0.43)."""
    out = tmp_path / "run"
    code = _run(["heavy-top", "--set", "integrator.method=herk4", "--set", f"integrator.h={h}", "--set",
                 f"time.t_end={t_end}", "--out", str(out)])
    assert code == 1
    status = json.loads((out / "provenance.json").read_text())["status"]
    assert status in ("energy_growth", "constraint_drift"), status
    with np.load(out / "solution.npz") as z:  # only good states were written: |Φ| ≤ 1 cm on the 1 m arm
        assert np.all(np.abs(z["t"]) <= t_end)
    rows = np.genfromtxt(out / "diagnostics.csv", delimiter=",", names=True)
    assert np.all(rows["phi"][rows["accepted"] == 1] <= 1e-2)


@pytest.mark.parametrize("h", [0.1, 0.05, 0.02])
def test_blow_ups_are_caught_without_diagnostics(h):
    """diagnostics=False (what benches use) cannot turn the checks off."""
    case, _ = load_case("heavy-top", ["integrator.method=herk4"])
    p = heavy_top_problem(case)
    sol = integrate(p.system, "herk4", p.y0, (0.0, 0.3), controller=ConstantStep(h), diagnostics=False)
    assert sol.status in (Status.ENERGY_GROWTH, Status.CONSTRAINT_DRIFT), sol.message
    good = integrate(p.system, "herk4", p.y0, (0.0, 0.3), controller=ConstantStep(1e-3), diagnostics=False)
    assert good.status is Status.OK


def test_energy_budget_holds_on_a_loaded_rod():
    """flying-spaghetti: a free rod pushed by a force and a moment (work-accounted loads). The energy defect the
    driver books, E − E₀ − W with W = ∫ f·v dt by the trapezoidal rule over the steps, is a small fraction of the
    energy put in and shrinks with the fitted order 2 of that quadrature (HERK4's own energy error is O(h⁴)): the
    budget is the energy balance, not a loose bound that holds anyway."""
    case, _ = load_case("flying-spaghetti", ["time.t_end=1.5"])
    from lgbeam.apps.rod import problem

    p = problem(case)
    hs, defects = np.array([4e-3, 2e-3, 1e-3]), []
    for h in hs:
        sol = integrate(p.system, "herk4", p.y0, (0.0, 1.5), controller=ConstantStep(h), save=SaveAt(every=1.5),
                        diagnostics=False)
        assert sol.status is Status.OK, sol.message
        s = sol.state
        assert s.work_abs > 1.0 and s.content0 < 1e-20  # at rest at t0: everything it has came through the loads
        energy = p.system.energy(1.5, s.y.q, s.y.v)
        defects.append(abs(energy - s.energy0 - s.work) / s.work_abs)
    assert defects[0] < 1e-5, defects
    slope = np.polyfit(np.log(hs), np.log(defects), 1)[0]
    assert 1.8 < slope < 2.3, (slope, defects)


# ---------------------------------------------------------------------------------------------- 2. checkpoints
def _finished(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "run"
    assert _run(["heavy-top", "--set", "time.t_end=0.05", *CKPT, *extra, "--out", str(out)]) == 0
    return out


def test_a_pickle_in_a_run_folder_is_never_loaded(tmp_path, capsys):
    """Review S1: `--resume` ran the code of checkpoint.pkl before any check."""
    out = _finished(tmp_path)
    (out / CHECKPOINT).unlink()
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (out / "checkpoint.pkl").write_bytes(pickle.dumps(Payload()))
    record = (out / "provenance.json").read_bytes()
    assert main(["run", "--resume", str(out), *QUICK]) == 2
    assert "nothing to continue" in capsys.readouterr().err
    assert not marker.exists()
    assert (out / "provenance.json").read_bytes() == record


@pytest.mark.parametrize("tag", [["os", "system"], ["lgbeam.io.run", "make_run_dir"], ["lgbeam.nothing", "X"],
                                 ["builtins", "eval"]])
def test_a_forged_data_file_cannot_name_code(tmp_path, tag):
    """A checkpoint whose JSON names a callable or a module outside lgbeam is refused, nothing is called."""
    tree, arrays = encode({"x": 1})
    tree = {"dataclass": tag, "fields": {}}
    path = tmp_path / "forged.npz"
    np.savez(path, **arrays, **{"__data__.json": np.frombuffer(json.dumps(tree).encode(), dtype=np.uint8)})
    with pytest.raises(ValueError, match="cannot read"):
        read_data(path)


def test_data_file_round_trip_and_refusals(tmp_path):
    from lgbeam.solve.driver import LoopState
    from lgbeam.systems import MechanicalState

    value = {"s": LoopState("herk4", 0.5, MechanicalState(np.arange(7.0), np.ones(6), None), {"a": (1, 2.5)}, 1e-3,
                            err_prev=float("nan")), "z": np.array([1 + 2j]), "c": 3 - 1j, "inf": float("inf")}
    write_data(tmp_path / "v.npz", value)
    back = read_data(tmp_path / "v.npz")
    assert back["s"].y.q.tolist() == list(range(7)) and back["s"].cache == {"a": (1, 2.5)}
    assert np.isnan(back["s"].err_prev) and back["c"] == 3 - 1j and back["inf"] == float("inf")
    with pytest.raises(TypeError, match=r"value\.f: a builtins\.builtin_function_or_method is not plain data"):
        write_data(tmp_path / "w.npz", {"f": len})


def test_a_refused_resume_leaves_a_finished_runs_record(tmp_path, capsys):
    """Review R: a 0-byte checkpoint of a finished run turned its provenance `ok` into `failed: …`."""
    out = _finished(tmp_path)
    record = (out / "provenance.json").read_bytes()
    assert json.loads(record)["status"] == "ok"
    (out / CHECKPOINT).write_bytes(b"")
    assert main(["run", "--resume", str(out), *QUICK]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert (out / "provenance.json").read_bytes() == record


def test_resume_of_a_static_run_leaves_its_record(tmp_path, capsys):
    out = tmp_path / "static"
    assert _run(["cantilever-tip-load", "--out", str(out)]) == 0
    record = (out / "provenance.json").read_bytes()
    assert main(["run", "--resume", str(out), *QUICK]) == 2
    assert (out / "provenance.json").read_bytes() == record


@pytest.mark.parametrize(("key", "value"), [("integrator.h", "5e-4"), ("output.every", "0.02"), ("model.mass", "30.0"),
                                            ("model.group", '"SE3"')])
def test_resume_refuses_an_edited_case_naming_the_key(tmp_path, capsys, key, value):
    """Review R: an edited h resumed with a step of −0.2, output.every dropped output, a mass changed the physics."""
    out = _finished(tmp_path, "--set", "integrator.method=herk4", "--set", "integrator.h=1e-3")
    record = (out / "provenance.json").read_bytes()
    case, _ = load_case(str(out / "case.toml"), [f"{key}={value}"])
    from lgbeam.io.cases import write_toml

    write_toml(out / "case.toml", case)
    assert main(["run", "--resume", str(out), *QUICK]) == 2
    err = capsys.readouterr().err
    assert "differs from the checkpoint" in err and key in err and err.count("\n") == 1, err
    assert (out / "provenance.json").read_bytes() == record


def test_resume_continues_to_a_later_t_end(tmp_path, capsys):
    out = _finished(tmp_path, "--set", "integrator.method=herk4", "--set", "integrator.h=1e-3")
    case, _ = load_case(str(out / "case.toml"), ["time.t_end=0.08"])
    from lgbeam.io.cases import write_toml

    write_toml(out / "case.toml", case)
    assert main(["run", "--resume", str(out), *QUICK]) == 0
    with np.load(out / "solution.npz") as z:
        np.testing.assert_allclose(z["t"], np.linspace(0.0, 0.08, 9), rtol=0, atol=1e-12)


def test_resume_refuses_another_lgbeam_version(tmp_path, capsys):
    """Review V: a checkpoint of an older lgbeam resumed silently with an incomplete companion series."""
    out = _finished(tmp_path)
    data = read_data(out / CHECKPOINT)
    data["identity"]["lgbeam"] = "0.0.9"
    write_data(out / CHECKPOINT, data)
    assert main(["run", "--resume", str(out), *QUICK]) == 2
    assert "written by lgbeam 0.0.9" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- 3. names, series
@pytest.mark.parametrize("name", ["../../../../x", "a/b", ".hidden", "-rf", "..", "x\\y", ""])
@pytest.mark.parametrize("with_out", [True, False])
def test_one_rule_for_names(tmp_path, capsys, monkeypatch, name, with_out):
    """Review S2: `--set name=../../../../x --out T` wrote x.pvd four folders above the run folder."""
    monkeypatch.chdir(tmp_path)
    before = sorted(p for p in tmp_path.rglob("*"))
    args = ["heavy-top", "--set", f"name={json.dumps(name)}", "--set", "time.t_end=0.02"]
    code = _run([*args, "--out", "T/a/b/c/d"] if with_out else args)
    assert code == 2
    assert "cannot be a file name" in capsys.readouterr().err
    assert sorted(p for p in tmp_path.rglob("*")) == before


def test_resumed_series_deletes_only_its_own_frames(tmp_path):
    """Review S3: `--resume` unlinked `../../victim.txt` named in a .pvd after the checkpoint."""
    out = _finished(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    pvd = out / "paraview" / "heavy-top.pvd"
    text = pvd.read_text().replace("  </Collection>", '    <DataSet timestep="99" file="../../victim.txt"/>\n'
                                   "  </Collection>")
    pvd.write_text(text)
    assert main(["run", "--resume", str(out), *QUICK]) == 0
    assert victim.read_text() == "precious"
    assert all("victim" not in str(p) for _, p in read_pvd(pvd))


# ---------------------------------------------------------------------------------------------- 4. output times
def test_no_duplicate_last_frame(tmp_path):
    """Review L: `time.t_end = 0.07` wrote two frames at t = 0.07 (34 of 1000 t_end values)."""
    out = tmp_path / "run"
    assert _run(["heavy-top", "--set", "time.t_end=0.07", "--out", str(out)]) == 0
    with np.load(out / "solution.npz") as z:
        assert np.all(np.diff(z["t"]) > 1e-3) and z["t"][-1] == 0.07 and len(z["t"]) == 8
    times = [t for t, _ in read_pvd(out / "paraview" / "heavy-top.pvd")]
    assert len(times) == len(set(times)) == 8


def test_output_plan_has_no_near_duplicates():
    bad = []
    for every in (0.01, 1e-3, 0.1, 1 / 3, 0.07):
        for i in range(1, 1001):
            t_end = i * 0.01
            plan = SaveAt(every=every).plan(0.0, t_end)
            if plan[-1] != t_end or np.any(np.diff(np.r_[0.0, plan]) < 1e-6 * every):
                bad.append((every, t_end))
    assert not bad, bad[:5]


# ---------------------------------------------------------------------------------------------- 5. disk full, signals
def test_disk_full_mid_run_is_one_line_and_a_true_record(tmp_path, capsys, monkeypatch):
    """Review E: a full disk gave 94 lines of chained tracebacks and left provenance at `running`. Here every write
    after the 5th frame fails with ENOSPC, the temporary file of provenance.json too."""
    import errno

    from lgbeam.io import atomic, vtk

    real, frames = vtk._write_atomic, []

    def full(target, *a, **k):
        frames.append(target)
        if len(frames) > 5:
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return real(target, *a, **k)

    out = tmp_path / "run"
    monkeypatch.setattr(vtk, "_write_atomic", full)
    real_text = atomic.atomic_write_text

    def full_text(path, text):  # the disk fills up: from then on no temporary file fits either
        if len(frames) > 5:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_text(path, text)

    import lgbeam.io.run as run_mod

    monkeypatch.setattr(run_mod, "atomic_write_text", full_text)
    code = _run(["heavy-top", "--set", "time.t_end=0.2", *CKPT, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "No space left on device" in err and "--resume" in err, err
    assert json.loads((out / "provenance.json").read_text())["status"].startswith("failed: [Errno 28]")


def test_sigterm_while_the_case_loads_is_one_line_143(tmp_path, capsys, monkeypatch):
    """Review G: SIGTERM while the case loads gave a traceback and exit 1."""
    import signal

    from lgbeam.cli import cmd_run

    real = cmd_run.load_case

    def load_and_terminate(*a, **k):
        os.kill(os.getpid(), signal.SIGTERM)
        return real(*a, **k)

    monkeypatch.setattr(cmd_run, "load_case", load_and_terminate)
    assert _run(["heavy-top", "--out", str(tmp_path / "x")]) == 143
    assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_sigint_during_the_model_build_does_not_promise_a_resume(tmp_path, capsys, monkeypatch):
    """Review G: SIGINT during the model build said "continue with --resume", which then failed."""
    import lgbeam.apps.heavy_top as app

    def interrupted(case):
        raise KeyboardInterrupt

    monkeypatch.setattr(app, "problem", interrupted)
    assert _run(["heavy-top", "--out", str(tmp_path / "x")]) == 130
    err = capsys.readouterr().err
    assert "nothing to resume" in err and "--resume" not in err, err
    assert json.loads((tmp_path / "x" / "provenance.json").read_text())["status"] == "interrupted"


def _top():
    case, _ = load_case("heavy-top", ["integrator.method=herk4"])
    return heavy_top_problem(case)


def test_integrate_gives_sigint_back_to_a_script():
    """Review G: in a script, integrate() swallowed the signal and the script carried on. Now SIGINT raises
    Interrupted (a KeyboardInterrupt) after the loop stopped cleanly, holding the solution up to the last step."""
    import signal

    from lgbeam.solve import Interrupted

    p = _top()
    hits = []

    def observer(t, y):
        hits.append(t)
        if len(hits) == 3:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(Interrupted) as info:
        integrate(p.system, "herk4", p.y0, (0.0, 1.0), controller=ConstantStep(1e-3), save=SaveAt(every=0.01,
                  observers=(observer,)))
    sol = info.value.solution
    assert sol.status is Status.INTERRUPTED and 0.02 <= sol.stats["t_final"] < 0.05
    back = integrate(p.system, "herk4", p.y0, (0.0, 1.0), controller=ConstantStep(1e-3), on_signal="return",
                     save=SaveAt(every=0.01, observers=(lambda t, y: os.kill(os.getpid(), signal.SIGINT),)))
    assert back.status is Status.INTERRUPTED


def test_integrate_gives_sigterm_to_the_default_action(tmp_path):
    """A script whose integrate() gets SIGTERM ends as killed by SIGTERM (exit −15), after the checkpoint that the
    stop wrote: what a batch scheduler expects."""
    import subprocess
    import sys

    script = tmp_path / "s.py"
    script.write_text(
        "import os, signal, sys\n"
        "from lgbeam.apps import load_case\n"
        "from lgbeam.apps.heavy_top import problem\n"
        "from lgbeam.solve import ConstantStep, SaveAt, integrate\n"
        "from lgbeam.solve.driver import Checkpointing\n"
        "p = problem(load_case('heavy-top', ['integrator.method=herk4'])[0])\n"
        "def obs(t, y):\n"
        "    if t > 0.015: os.kill(os.getpid(), signal.SIGTERM)\n"
        "ck = Checkpointing(lambda s: open(sys.argv[1], 'w').write(repr(s.t)), steps=1000)\n"
        "integrate(p.system, 'herk4', p.y0, (0.0, 1.0), controller=ConstantStep(1e-3), checkpoint=ck,\n"
        "          save=SaveAt(every=0.01, observers=(obs,)))\n"
        "print('carried on')\n")
    marker = tmp_path / "saved"
    res = subprocess.run([sys.executable, str(script), str(marker)], capture_output=True, text=True, timeout=600,
                         check=False, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert res.returncode == -15, (res.returncode, res.stderr[-500:])
    assert "carried on" not in res.stdout
    assert marker.exists()


# ---------------------------------------------------------------------------------------------- 6. output counts
def test_a_million_output_frames_are_refused_up_front(tmp_path, capsys):
    """Review M: 10⁶ steps with output at every step was accepted (10⁶ VTU files, the .pvd rewritten per frame)."""
    out = tmp_path / "big"
    code = _run(["heavy-top", "--set", "integrator.method=herk4", "--set", "integrator.h=1e-3", "--set",
                 "time.t_end=1000", "--set", "output.every=1e-3", "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "1000002 output times" in err and "output.max_frames" in err and err.count("\n") == 1
    assert not out.exists()


def test_the_collection_is_rewritten_o_n_times_not_per_frame(tmp_path, monkeypatch):
    """A long series rewrites its .pvd at most every pvd_seconds (and on flush/close), so n frames cost O(n) bytes of
    collection rewrites, not O(n²); after close it lists every frame."""
    from lgbeam.io.vtk import PVDSeries

    writes = []
    real = PVDSeries._write_pvd

    def counted(self):
        writes.append(len(self.entries))
        real(self)

    monkeypatch.setattr(PVDSeries, "_write_pvd", counted)
    pts = np.zeros((3, 3))
    with PVDSeries(tmp_path / "s.pvd", pvd_seconds=3600.0) as s:
        for k in range(200):
            s.write(0.01 * k, pts)
            if k == 99:
                s.flush()
                assert len(read_pvd(tmp_path / "s.pvd")) == 100
    assert len(read_pvd(tmp_path / "s.pvd")) == 200
    assert len(writes) <= 5, writes


# ---------------------------------------------------------------------------------------------- 7. records
def test_resuming_a_finished_run_keeps_its_first_start(tmp_path):
    """Review R: a resume of a finished run replaced provenance's start time and command (the original lost)."""
    out = _finished(tmp_path)
    first = json.loads((out / "provenance.json").read_text())
    assert main(["run", "--resume", str(out), *QUICK]) == 0
    after = json.loads((out / "provenance.json").read_text())
    assert after["started"] == first["started"] and len(after["resumed"]) == 1 and after["status"] == "ok"


def test_a_garbage_diagnostics_row_is_refused_on_resume(tmp_path, capsys):
    """Review R: a diagnostics.csv row replaced by `garbage,not,a,row` was kept in the final file."""
    out = _finished(tmp_path)
    lines = (out / "diagnostics.csv").read_text().splitlines(keepends=True)
    lines[3] = "garbage,not,a,row\n"
    (out / "diagnostics.csv").write_text("".join(lines))
    record = (out / "provenance.json").read_bytes()
    assert main(["run", "--resume", str(out), *QUICK]) == 2
    assert "row 3 is not" in capsys.readouterr().err
    assert (out / "provenance.json").read_bytes() == record
