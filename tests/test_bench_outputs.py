"""Benches and the heavy-top figure script write to a fresh, git-ignored folder unless asked (--update) to
rewrite the committed files (reliability review: `lgbeam bench herk` and heavy_top_figures dirtied the
checkout). Checked in a clone of this repository: `git status` says whether a tracked file changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lgbeam.cli.main import main
from lgbeam.studies import heavy_top_figures

REPO = Path(__file__).resolve().parents[1]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def clone(tmp_path, monkeypatch):
    """A clone of the committed tree (its .gitignore and committed outputs/), as the working folder."""
    dest = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{REPO}", str(dest)], check=True)
    monkeypatch.chdir(dest)
    assert _git(dest, "status", "--porcelain") == ""
    return dest


def test_bench_writes_a_fresh_folder_and_update_the_committed_csv(clone, capsys):
    assert main(["bench", "groups", "--quick"]) == 0
    fresh = list((clone / "outputs" / "bench").glob("groups-*/groups.csv"))
    assert len(fresh) == 1 and fresh[0].stat().st_size > 0
    assert f"written to {fresh[0].parent.relative_to(clone)}" in capsys.readouterr().out
    assert _git(clone, "status", "--porcelain", "--untracked-files=all") == ""  # nothing tracked or new in git
    assert main(["bench", "groups", "--quick", "--update"]) == 0
    assert _git(clone, "status", "--porcelain") == " M outputs/bench/groups.csv\n"  # the committed figure


def test_bench_out_and_update_together_is_one_line_exit_2(clone, capsys):
    assert main(["bench", "groups", "--quick", "--update", "--out", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--out DIR or --update, not both" in err


def test_heavy_top_figures_default_folder_is_fresh_and_ignored(clone):
    first = heavy_top_figures.output_dir(None, update=False)
    second = heavy_top_figures.output_dir(None, update=False)
    assert first != second and first.parent == second.parent == Path("outputs") / "heavy-top-figures"
    (first / "heavy-top-orders.csv").write_text("x\n")
    assert _git(clone, "status", "--porcelain", "--untracked-files=all") == ""
    assert heavy_top_figures.output_dir(None, update=True) == Path("outputs") / "summary"
    with pytest.raises(SystemExit) as exc:
        heavy_top_figures.main(["--update", "--out", "x"])
    assert exc.value.code == 2
