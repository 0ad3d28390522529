"""Run folders (naming, never overwriting silently, unwritable targets), provenance.json and the
progress bar."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
import scipy

import lgbeam
from lgbeam.io.progress import Progress
from lgbeam.io.run import git_info, make_run_dir, write_provenance

_NOW = datetime(2026, 1, 2, 3, 4, 5)


def test_run_folder_names_and_collisions(tmp_path):
    a = make_run_dir("spaghetti", root=tmp_path, now=_NOW)
    b = make_run_dir("spaghetti", root=tmp_path, now=_NOW)
    c = make_run_dir("spaghetti", root=tmp_path, now=_NOW, prefix="study-")
    assert a == tmp_path / "spaghetti" / "20260102-030405"
    assert b == tmp_path / "spaghetti" / "20260102-030405-1"
    assert c == tmp_path / "spaghetti" / "study-20260102-030405"
    assert all(p.is_dir() for p in (a, b, c))


def test_out_folder_never_overwritten_silently(tmp_path):
    out = tmp_path / "run"
    assert make_run_dir("x", out) == out  # new folder
    assert make_run_dir("x", out) == out  # empty existing folder is fine
    (out / "case.toml").write_text("kind = 'rod'\n")
    with pytest.raises(FileExistsError, match="already exists and is not empty; pass --force"):
        make_run_dir("x", out)
    assert make_run_dir("x", out, force=True) == out and not any(out.iterdir())  # replaced
    precious = tmp_path / "thesis"
    precious.mkdir()
    (precious / "chapter1.tex").write_text("...")
    with pytest.raises(FileExistsError, match="not an lgbeam run folder"):
        make_run_dir("x", precious, force=True)
    assert (precious / "chapter1.tex").exists()
    with pytest.raises(FileExistsError, match="is a file"):
        make_run_dir("x", precious / "chapter1.tex")


@pytest.mark.parametrize("where", ["under-a-file", "/sys/lgbeam-test-run"])
def test_unwritable_output_folder(tmp_path, where):
    if where == "under-a-file":
        (tmp_path / "f").write_text("")
        target = tmp_path / "f" / "run"
    else:
        target = Path(where)  # sysfs refuses mkdir even for root (EPERM)
    with pytest.raises(PermissionError, match="cannot create output folder"):
        make_run_dir("x", target)


def test_provenance_record(tmp_path):
    rec = write_provenance(tmp_path, status="ok", wall_time_s=1.5, started="2026-01-02T03:04:05", case_name="c")
    back = json.loads((tmp_path / "provenance.json").read_text())
    assert back == json.loads(json.dumps(rec))
    assert back["lgbeam"] == lgbeam.__version__ and back["numpy"] == np.__version__
    assert back["scipy"] == scipy.__version__ and back["python"] == sys.version.split()[0]
    assert back["status"] == "ok" and back["wall_time_s"] == 1.5
    repo = Path(lgbeam.__file__).resolve().parents[1]
    if (repo / ".git").exists():  # an installed wheel has no checkout: then git is {}
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout
        assert back["git"]["commit"] == head.strip() and isinstance(back["git"]["dirty"], bool)
    assert git_info(tmp_path) == {}


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_silent_off_terminal_and_when_disabled(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    with Progress(0.0, 1.0, enabled=True) as bar:
        bar.update(0.5, 1e-3, 10, 1)
    assert buf.getvalue() == ""
    tty = _TTY()
    monkeypatch.setattr(sys, "stderr", tty)
    with Progress(0.0, 1.0, enabled=False) as bar:
        bar.update(0.5, 1e-3, 10, 1)
    assert tty.getvalue() == ""


def test_progress_on_terminal_shows_time_step_and_counts(monkeypatch):
    tty = _TTY()
    monkeypatch.setattr(sys, "stderr", tty)
    with Progress(0.0, 2.0, enabled=True, min_interval=0.0) as bar:
        bar.update(0.5, 1.25e-3, 400, 3)
        bar.update(2.0, 1e-3, 1500, 7)
    out = tty.getvalue()
    assert "h=0.00125 acc=400 rej=3" in out and "2/2" in out and "acc=1500 rej=7" in out
    with pytest.raises(ValueError, match="t_end > t0"):
        Progress(1.0, 1.0)
