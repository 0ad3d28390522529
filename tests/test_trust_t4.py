"""Runs a user can trust, turn 4 (issue #33; reviews/t4/reliability.md §2 and item 7), with the review's forging
ideas (reviews/t4/scripts/reliability/forge_cli.py, forge_inproc.py, symlinks.py):

- no write outside a run folder through a symbolic link: the review's four links (``paraview/``, its series
  folder, ``figures/``, ``diagnostics.csv``) are refused in one line on ``--resume`` and every file outside is
  byte for byte what it was; each writer (ParaView series, streamed csv, pictures, atomic files) refuses a linked
  folder by itself too; a link at a file written whole is replaced and its target left alone;
- a forged checkpoint.npz is refused in one line, exit 2, provenance.json byte-identical, whatever it raises
  (the classes of the review: MemoryError, TypeError, AttributeError, RecursionError, OverflowError, zip errors,
  a hang in ``SOn(10¹²)``); arrays are read lazily and their declared sizes checked before anything is
  allocated (tracemalloc's peak stays small for a header declaring 10¹³ floats or an entry of 64 MiB of zeros);
- the rule gaps: a name ending in a newline, forces and node coordinates given as strings, bare NaN in
  provenance.json.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lgbeam.apps import CHECKPOINT, load_case
from lgbeam.apps._runner import load_checkpoint
from lgbeam.cli.main import main
from lgbeam.io.atomic import RunLock, atomic_write_text, checked_path, make_dirs, open_in_place, run_folder
from lgbeam.io.cases import write_toml
from lgbeam.io.datafile import META, read_data, write_data
from lgbeam.io.run import check_name, dumps_json

QUICK = ["--quiet", "--no-figures"]
MiB = 1024**2


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished heavy-top run (HERK4, h = 1e-3, t_end = 0.05) with a checkpoint and figures."""
    out = tmp_path_factory.mktemp("t4") / "run"
    assert main(["run", "heavy-top", "--set", "integrator.method=herk4", "--set", "integrator.h=1e-3", "--set",
                 "time.t_end=0.05", "--set", "output.checkpoint_steps=5", "--out", str(out), "--quiet"]) == 0
    return out


def _copy(finished: Path, tmp_path: Path, t_end: float | None = 0.08) -> Path:
    """A copy of the finished run; with ``t_end`` its case.toml asks for more (a resume then writes frames,
    csv rows and figures)."""
    d = tmp_path / "run"
    shutil.copytree(finished, d, symlinks=True)
    if t_end is not None:
        case, _ = load_case(str(d / "case.toml"), [f"time.t_end={t_end}"])
        write_toml(d / "case.toml", case)
    return d


def _tree(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` (links not followed): what a resume must leave alone."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ---------------------------------------------------------------------------------------------- 1. symlinks
def _link_paraview(d: Path, o: Path) -> Path:
    shutil.move(d / "paraview", o / "pv")
    os.symlink(o / "pv", d / "paraview")
    return d / "paraview"


def _link_series(d: Path, o: Path) -> Path:
    shutil.move(d / "paraview" / "heavy-top", o / "frames")
    (o / "frames" / "heavy-top_000007.vtu").write_text("a precious file with the name of the next frame")
    os.symlink(o / "frames", d / "paraview" / "heavy-top")
    return d / "paraview" / "heavy-top"


def _link_figures(d: Path, o: Path) -> Path:
    shutil.rmtree(d / "figures")
    (o / "figs").mkdir()
    (o / "figs" / "energy.png").write_text("precious")
    os.symlink(o / "figs", d / "figures")
    return d / "figures"


def _link_csv(d: Path, o: Path) -> Path:
    shutil.copy(d / "diagnostics.csv", o / "victim.csv")  # a csv with the run's header: it would be truncated
    (d / "diagnostics.csv").unlink()
    os.symlink(o / "victim.csv", d / "diagnostics.csv")
    return d / "diagnostics.csv"


@pytest.mark.parametrize("mutate", [_link_paraview, _link_series, _link_figures, _link_csv],
                         ids=["paraview", "series-folder", "figures", "diagnostics.csv"])
def test_a_resume_never_writes_through_a_link(finished, tmp_path, capsys, mutate):
    """Review §2c: 156 frames + the .pvd, 155 frames (one overwritten), 4 PNGs and a truncated csv outside."""
    d = _copy(finished, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    link = mutate(d, outside)
    before, record = _tree(outside), (d / "provenance.json").read_bytes()
    assert main(["run", "--resume", str(d), "--quiet"]) == 2  # figures on
    line = _one_line(capsys.readouterr().err)
    assert str(link) in line and "symbolic link" in line and "replace it by a real" in line, line
    assert _tree(outside) == before
    assert (d / "provenance.json").read_bytes() == record


def test_a_link_at_a_file_written_whole_is_replaced_not_followed(finished, tmp_path):
    """checkpoint.npz and provenance.json as links: the resume writes real files there, the targets stay."""
    d = _copy(finished, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in (CHECKPOINT, "provenance.json"):
        shutil.copy(d / name, outside / name)
        (d / name).unlink()
        os.symlink(outside / name, d / name)
    before = _tree(outside)
    assert main(["run", "--resume", str(d), *QUICK]) == 0
    assert _tree(outside) == before
    assert not (d / CHECKPOINT).is_symlink() and not (d / "provenance.json").is_symlink()
    with np.load(d / "solution.npz") as z:
        np.testing.assert_allclose(z["t"], np.linspace(0.0, 0.08, 9), rtol=0, atol=1e-12)


def test_series_frames_never_follow_a_link_and_are_whole_files(tmp_path):
    """The VTP frames (``FolderWriter``: the series folder checked once and held open): a link planted at a
    frame's name or at its temporary name is replaced, not written through; the series folder swapped for a link
    after the series started is not followed (the frames go to the folder that was checked); every frame is a
    plain file with 0666 minus the umask that reads back, and no temporary file is left."""
    from lgbeam.io.vtk import PolyFrame, PVDSeries, read_pvd, read_vtp

    run, outside = tmp_path / "run", tmp_path / "outside"
    (run / "paraview" / "s").mkdir(parents=True)
    outside.mkdir()
    for name in ("victim0", "victim1"):
        (outside / name).write_text("precious")
    os.symlink(outside / "victim0", run / "paraview" / "s" / "s_000000.vtp")
    os.symlink(outside / "victim1", run / "paraview" / "s" / ".s_000001.vtp.tmp")
    pts = np.arange(12.0).reshape(4, 3)
    before = _tree(outside)
    with RunLock(run):
        series = PVDSeries(run / "paraview" / "s.pvd")
        for k in range(3):
            series.write_frame(0.1 * k, PolyFrame(pts + k, [np.arange(4)], {"k": np.full(4, float(k))}))
        os.rename(run / "paraview" / "s", run / "paraview" / "moved")
        os.symlink(outside, run / "paraview" / "s")
        series.write_frame(0.3, PolyFrame(pts + 3, [np.arange(4)], {"k": np.full(4, 3.0)}))
        series.close()
    assert _tree(outside) == before and sorted(os.listdir(outside)) == ["victim0", "victim1"]
    frames = run / "paraview" / "moved"
    assert sorted(os.listdir(frames)) == [f"s_{k:06d}.vtp" for k in range(4)]
    mask = os.umask(0)
    os.umask(mask)
    for k in range(4):
        f = frames / f"s_{k:06d}.vtp"
        assert f.is_file() and not f.is_symlink() and (f.stat().st_mode & 0o777) == 0o666 & ~mask
        x, data = read_vtp(f)
        np.testing.assert_array_equal(x, pts + k)
        np.testing.assert_array_equal(data["k"], np.full(4, float(k)))
    assert [t for t, _ in read_pvd(run / "paraview" / "s.pvd")] == [0.0, 0.1, 0.2, 0.3]


def test_every_writer_checks_its_path_below_the_run_folder(tmp_path):
    """The helper itself (no up-front scan): a linked folder below the run folder is refused by the atomic
    writer, make_dirs, the ParaView series, the pictures and the streamed csv; links above it are allowed."""
    from lgbeam.io.plots import plot_run
    from lgbeam.io.vtk import PVDSeries
    from lgbeam.solve.record import CSVRecord

    real = tmp_path / "real"
    run = real / "run"
    run.mkdir(parents=True)
    outside = tmp_path / "outside"
    (outside / "f").mkdir(parents=True)
    os.symlink(outside / "f", run / "figures")
    os.symlink(outside / "f", run / "paraview")
    (outside / "victim.csv").write_text("t,h,err,accepted,iterations\n1,2,3,1,0\n")
    os.symlink(outside / "victim.csv", run / "diagnostics.csv")
    before = _tree(outside)
    with RunLock(run):
        with pytest.raises(ValueError, match=r"figures is a symbolic link"):
            atomic_write_text(run / "figures" / "x.txt", "no")
        with pytest.raises(ValueError, match=r"figures is a symbolic link"):
            make_dirs(run / "figures" / "sub")
        with pytest.raises(ValueError, match=r"paraview is a symbolic link"):
            PVDSeries(run / "paraview" / "s.pvd")
        with pytest.raises(ValueError, match=r"figures is a symbolic link"):
            plot_run(run)
        atomic_write_text(run / "ok" / "x.txt", "yes")  # a real folder below the run folder: written
    with pytest.raises(ValueError, match=r"diagnostics.csv is a symbolic link"):  # O_NOFOLLOW, no root needed
        CSVRecord(run / "diagnostics.csv", opener=open_in_place).restore({"keys": ("t", "h", "err", "accepted", "iterations"),
                                                                          "n_rows": 1, "stats": {}})
    assert _tree(outside) == before
    assert (run / "ok" / "x.txt").read_text() == "yes"
    os.symlink(real, tmp_path / "via")  # the run folder reached through a link above it (outputs -> scratch)
    with run_folder(tmp_path / "via" / "run"):
        assert checked_path(tmp_path / "via" / "run" / "ok" / "y.txt") == tmp_path / "via" / "run" / "ok" / "y.txt"
        atomic_write_text(tmp_path / "via" / "run" / "ok" / "y.txt", "fine")
    assert (run / "ok" / "y.txt").read_text() == "fine"


# ---------------------------------------------------------------------------------------------- 2. forged checkpoints
def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _save(path: Path, arrays: dict[str, Any], tree: Any = None, extra: dict[str, bytes] | None = None,
          deflate: dict[str, tuple[bytes, int]] | None = None) -> None:
    """Write a forged npz: the arrays (the document replaced by ``tree``), raw ``extra`` entries, and ``deflate``
    entries (an .npy header and that many zero bytes, compressed: a zip bomb)."""
    a = dict(arrays)
    if tree is not None:
        a[META] = np.frombuffer(tree if isinstance(tree, bytes) else json.dumps(tree).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **a)
    with zipfile.ZipFile(buf, "a") as zf:
        for name, payload in (extra or {}).items():
            zf.writestr(name, payload)
        for name, (header, n) in (deflate or {}).items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w", force_zip64=True) as fh:
                fh.write(header)
                for _ in range(n // MiB):
                    fh.write(bytes(MiB))
    path.write_bytes(buf.getvalue())


def _header(shape: tuple[int, ...], descr: str = "<f8") -> bytes:
    h = io.BytesIO()
    np.lib.format.write_array_header_1_0(h, {"descr": descr, "fortran_order": False, "shape": shape})
    return h.getvalue()


def _tree_of(arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    return json.loads(arrays[META].tobytes())


def _with(tree: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    t = json.loads(json.dumps(tree))
    node = t
    keys = path.split("/")
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return t


S = "dict/state/fields"


def _q_key(tree: dict[str, Any]) -> str:
    return tree["dict"]["state"]["fields"]["y"]["fields"]["q"]["array"]


FORGED = {
    # the review's MemoryError: a referenced array whose header declares 10¹³ float64 (80 TB) / 10⁹ × 10⁹
    "q-header-1e13": lambda a, t: _save_raw(a, {_q_key(t) + ".npy": _header((10**13,)) + bytes(64)}),
    "q-header-1e9x1e9": lambda a, t: _save_raw(a, {_q_key(t) + ".npy": _header((10**9, 10**9)) + bytes(64)}),
    "extra-entry-1e13": lambda a, t: _save_raw(a, {"junk.npy": _header((10**13,)) + bytes(64)}),
    # a zip bomb nobody refers to (read_data loaded every entry: 1 GiB from 1 MiB)
    "zip-bomb-unreferenced": lambda a, t: (a, None, None, {"junk.npy": (_header((8 * MiB,)), 64 * MiB)}),
    "q-object-array": lambda a, t: _save_raw(a, {_q_key(t) + ".npy": _header((3,), "|O") + bytes(24)}),
    "q-unicode": lambda a, t: ({**a, _q_key(t): np.array(["x"] * 7)}, None, None, None),
    # LoopState fields of the wrong type or value (TypeError / AttributeError / OverflowError before)
    "state-t-string": lambda a, t: (a, _with(t, f"{S}/t", "abc"), None, None),
    "state-t-10^400": lambda a, t: (a, _with(t, f"{S}/t", 10**400), None, None),
    "state-y-string": lambda a, t: (a, _with(t, f"{S}/y", "q"), None, None),
    "state-h-negative": lambda a, t: (a, _with(t, f"{S}/h", -1e-3), None, None),
    "state-k_grid-negative": lambda a, t: (a, _with(t, f"{S}/k_grid", -50), None, None),
    "record-keys-wrong": lambda a, t: (a, _with(t, f"{S}/record/dict/keys", {"tuple": ["t", "x"]}), None, None),
    "record-null": lambda a, t: (a, _with(t, f"{S}/record", None), None, None),
    # RecursionError, a hang, a MemoryError and a ValueError from lgbeam dataclasses built from the file
    "json-depth-1e5": lambda a, t: (a, ('{"dict":{"identity":{"dict":{}},"state":' + "[" * 10**5 + "]" * 10**5
                                        + "}}").encode(), None, None),
    "SOn-1e12": lambda a, t: (a, _with(t, "dict/identity/dict/x",
                                       {"dataclass": ["lgbeam.groups.son", "SOn"], "fields": {"n": 10**12}}), None, None),
    "doc-not-utf8": lambda a, t: (a, b"\xff\xfe" * 10, None, None),
}


def _save_raw(a: dict[str, np.ndarray], replace: dict[str, bytes]) -> tuple[Any, Any, Any, Any]:
    """Arrays without the entries named in ``replace`` (those are written raw instead)."""
    keep = {k: v for k, v in a.items() if k + ".npy" not in replace}
    return keep, None, replace, None


def _forge(path: Path, tag: str) -> None:
    a = _arrays(path)
    arrays, tree, extra, deflate = {**FORGED, **LATER}[tag](a, _tree_of(a))
    _save(path, arrays, tree, extra, deflate)


@pytest.mark.parametrize("tag", list(FORGED))
def test_a_forged_checkpoint_is_refused_in_one_line_quickly_and_small(finished, tmp_path, tag):
    """Read in-process (``load_checkpoint``: the first thing ``--resume`` does): ValueError, one line, in well
    under a second of work, with a tracemalloc peak far below the declared sizes (10¹³ floats, 64 MiB)."""
    d = tmp_path / "f"
    d.mkdir()
    shutil.copy(finished / CHECKPOINT, d / CHECKPOINT)
    _forge(d / CHECKPOINT, tag)
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(ValueError) as err:
            load_checkpoint(d)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - t0 < 20  # SOn(10¹²) ran for > 20 s before (this machine is shared and slow)
    assert "\n" not in str(err.value) and str(d / CHECKPOINT) in str(err.value), str(err.value)
    assert peak < 32 * MiB, (tag, peak)


@pytest.mark.parametrize("error", [MemoryError, OverflowError, AttributeError, ZeroDivisionError, IndexError,
                                   zipfile.BadZipFile, RecursionError])
def test_whatever_a_dataclass_of_the_file_raises_is_one_valueerror(finished, tmp_path, monkeypatch, error):
    """The review's 40 other exceptions from lgbeam dataclasses built with forged fields (MemoryError of
    `_Colouring(10¹²)`, AttributeError of CosseratRod, ZeroDivisionError, IndexError): raised here by SOn's
    constructor (no real 8 TB allocation on a shared machine), each becomes one ValueError naming the file."""
    from lgbeam.groups.son import SOn

    def boom(self: Any) -> None:
        raise error("from the constructor")

    monkeypatch.setattr(SOn, "__post_init__", boom)
    p = tmp_path / "c.npz"
    a = _arrays(finished / CHECKPOINT)
    _save(p, a, _with(_tree_of(a), "dict/identity/dict/x", {"dataclass": ["lgbeam.groups.son", "SOn"],
                                                             "fields": {"n": 5}}))
    with pytest.raises(ValueError, match=rf"cannot read {p}: {error.__name__}: from the constructor$"):
        read_data(p)


def test_unreferenced_bomb_and_huge_header_are_refused_unread(finished, tmp_path):
    """The two DoS shapes read through read_data: the message says why, not an allocation failure."""
    for tag, words in (("zip-bomb-unreferenced", "not referred to"), ("q-header-1e13", "declares an array of shape")):
        p = tmp_path / f"{tag}.npz"
        shutil.copy(finished / CHECKPOINT, p)
        _forge(p, tag)
        with pytest.raises(ValueError, match=words):
            read_data(p)


def test_arrays_are_capped_by_max_bytes_before_allocation(tmp_path):
    """A real 64 MiB array (not forged) is refused under a 1 MiB cap from its declared sizes, read under 128 MiB."""
    p = tmp_path / "big.npz"
    write_data(p, {"x": np.zeros(8 * MiB)})
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"declares .* above the"):
            read_data(p, max_bytes=MiB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MiB
    assert read_data(p, max_bytes=128 * MiB)["x"].shape == (8 * MiB,)


def test_truncated_or_garbage_checkpoint_is_one_valueerror(finished, tmp_path):
    data = (finished / CHECKPOINT).read_bytes()
    for name, payload in (("half", data[: len(data) // 2]), ("garbage", os.urandom(4096)), ("zip-of-text",
                                                                                        b"PK\x05\x06" + bytes(18))):
        p = tmp_path / f"{name}.npz"
        p.write_bytes(payload)
        with pytest.raises(ValueError, match="cannot read"):
            read_data(p)


def _cache_null(a: dict[str, np.ndarray], t: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    return a, _with(t, f"{S}/cache", None), None, None


def _q_shape(a: dict[str, np.ndarray], t: dict[str, Any]) -> tuple[Any, Any, Any, Any]:
    return {**a, _q_key(t): np.zeros(3)}, None, None, None


LATER = {"cache-null": _cache_null,  # caught when lgbeam run restores the method's cache (before its first step)
         "q-wrong-shape": _q_shape}  # caught against the model's initial state


@pytest.mark.parametrize("tag", ["q-header-1e13", "zip-bomb-unreferenced", "state-t-string", "state-y-string",
                                 "cache-null", "q-wrong-shape"])
def test_a_forged_checkpoint_keeps_a_finished_runs_record(finished, tmp_path, capsys, tag):
    """Review §2b: MemoryError (38-line traceback), TypeError, AttributeError turned `ok` into `failed: …`."""
    d = _copy(finished, tmp_path, t_end=None)
    _forge(d / CHECKPOINT, tag)
    record = (d / "provenance.json").read_bytes()
    assert main(["run", "--resume", str(d), *QUICK]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "rerun the case" in line, line
    assert (d / "provenance.json").read_bytes() == record


# ---------------------------------------------------------------------------------------------- 3. rule gaps
@pytest.mark.parametrize("name", ["x\n", "x\r\n", "heavy-top\n"])
def test_a_name_ending_in_a_newline_fails_the_rule(tmp_path, capsys, monkeypatch, name):
    """Review item 7: `$` matched before a final newline, so `name = "x\\n"` wrote `x⏎.pvd`."""
    with pytest.raises(ValueError, match="cannot be a file name"):
        check_name(name)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "heavy-top", "--set", f"name={json.dumps(name)}", "--set", "time.t_end=0.02", *QUICK]) == 2
    assert "cannot be a file name" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


FRAME = Path(__file__).resolve().parents[1] / "cases" / "steel-frame-2storey.toml"


@pytest.mark.parametrize(("old", "new", "key"), [
    ('{ node = "f1", force = [10e3, 0.0, 0.0] }', '{ node = "f1", force = ["10e3", 0.0, 0.0] }', ".force"),
    ('{ name = "b1", at = [0.0, 0.0, 0.0] }', '{ name = "b1", at = ["a", "b", "c"] }', "model.nodes[0].at"),
    ('{ name = "b1", at = [0.0, 0.0, 0.0] }', '{ name = "b1", at = ["0", "0", "0"] }', "model.nodes[0].at"),
])
def test_strings_where_numbers_go_are_refused_naming_the_key(tmp_path, capsys, old, new, key):
    """Review item 7: force = ["10e3", …] ran with 10 kN; at = ["a","b","c"] said only `could not convert`."""
    text = FRAME.read_text()
    assert old in text
    case = tmp_path / "frame.toml"
    case.write_text(text.replace(old, new, 1))
    assert main(["run", str(case), "--out", str(tmp_path / "out"), *QUICK]) == 2
    line = _one_line(capsys.readouterr().err)
    assert key in line and "finite numbers" in line, line
    assert not (tmp_path / "out").exists()


def test_rod_loads_given_as_strings_are_refused_naming_the_key():
    from lgbeam.apps.rod import _loads

    case, _ = load_case("flying-spaghetti")
    case["loads"]["nodal"] = [{"node": "start", "force": ["1", 0.0, 0.0]}]
    with pytest.raises(ValueError, match=r"loads\.nodal\[0\]\.force' must be 3 finite numbers"):
        _loads(case)
    case["loads"]["nodal"] = [{"node": "start", "force": [1, 0.0, 0.0], "moment": [0.0, True, 0.0]}]
    with pytest.raises(ValueError, match=r"loads\.nodal\[0\]\.moment'"):
        _loads(case)


def _strict(text: str) -> Any:
    def refuse(c: str) -> None:
        raise AssertionError(f"bare {c} in strict JSON")

    return json.loads(text, parse_constant=refuse)


def test_provenance_is_strict_json(tmp_path):
    """Review item 7: `"h_last": NaN` after a step-1 failure; strict readers (jq, JavaScript) reject it."""
    out = tmp_path / "run"
    assert main(["run", "heavy-top", "--set", "integrator.method=herk4", "--set", "integrator.h=0.05", "--set",
                 "time.t_end=0.1", "--out", str(out), *QUICK]) == 1
    rec = _strict((out / "provenance.json").read_text())
    assert rec["status"] == "energy_growth" and rec["summary"]["extra"]["h_last"] == "nan"
    back = _strict(dumps_json({"a": float("nan"), "b": [np.inf, np.float32(-np.inf)], "c": np.array([1.5, np.nan])}))
    assert back == {"a": "nan", "b": ["inf", "-inf"], "c": [1.5, "nan"]}
    assert float(back["b"][1]) == -np.inf  # float() reads them back
