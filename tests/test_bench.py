"""Every `lgbeam bench` target runs in its quick mode and writes a CSV of positive timings."""

from __future__ import annotations

import csv
import importlib.util
import sys

import pytest

from lgbeam.cli.cmd_bench import BENCHES
from lgbeam.cli.main import main

TIMING_COLUMN = {"groups": "ours_ms", "herk": "us_per_step", "lie": "hs-rkmk4_us", "rod": "us_per_step", "spectral": "wall_s",
                 "stiff": "cpu_s",
                 "study": "wall_s", "ep": "cpu_ms_per_step", "rigid": "us_per_step", "statics": "value",
                 "memory": "peak_rss_mib", "frames": "value", "core": "value"}
CSV_NAME = {"ep": "ep-accuracy"}  # benches that write several tables: the one checked here
TIMED_ROWS = {"statics": lambda r: r["unit"] == "s",  # statics and frames mix timings with counts (unit "count")
              "frames": lambda r: r["unit"] in ("s", "ms"),
              "core": lambda r: r["unit"] in ("us/step", "s", "ms/step")}


SLOW = {"study"}  # three study subprocesses and a Dask cluster: ~10 s idle, 30 s on a loaded 2-core machine


@pytest.mark.parametrize("target", [pytest.param(t, marks=pytest.mark.slow) if t in SLOW else t for t in sorted(BENCHES)])
def test_bench_quick_writes_its_csv(target, tmp_path, capsys):
    assert main(["bench", target, "--quick", "--out", str(tmp_path)]) == 0
    found = sorted(tmp_path.rglob(f"{CSV_NAME.get(target, target)}.csv"))  # some benches add a timestamped folder
    assert len(found) == 1, found
    with open(found[0], encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    keep = TIMED_ROWS.get(target, lambda r: True)
    timings = [float(r[TIMING_COLUMN[target]]) for r in rows if keep(r) and r[TIMING_COLUMN[target]] not in ("", "nan")]
    assert timings and min(timings) > 0, rows[:2]
    assert capsys.readouterr().out.strip()  # the table is printed


def _stiff_rows(tmp_path):
    with open(tmp_path / "stiff.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_bench_stiff_exudyn_section_alone_keeps_the_other_rows(tmp_path, capsys):
    """`--sections exudyn` runs the Exudyn comparison alone, and the rows of the other sections already in the CSV
    are kept. Exudyn is an optional peer (`pip install -e ".[bench]"`): with it, each Exudyn run takes exactly the
    steps asked (no silent step cutting) and both codes' errors and ratios are written; without it, the section is
    one row saying how to install it. No timing is asserted."""
    assert main(["bench", "stiff", "--quick", "--sections", "newton", "--out", str(tmp_path)]) == 0
    assert main(["bench", "stiff", "--quick", "--sections", "exudyn", "--out", str(tmp_path)]) == 0
    rows = _stiff_rows(tmp_path)
    assert {r["section"] for r in rows} == {"newton", "exudyn"}
    exu = [r for r in rows if r["method"] == "exudyn-gen-alpha"]
    if importlib.util.find_spec("exudyn") is None:  # the peer is not installed on this machine
        assert len(exu) == 1 and "pip install lgbeam[bench]" in exu[0]["note"], exu
        return
    ours = [r for r in rows if r["section"] == "exudyn" and r["method"] == "gen-alpha"]
    assert exu and len(exu) == len(ours)
    for r in exu:
        assert int(r["steps"]) == round(0.01 / float(r["h"])), r["note"]
        assert float(r["err"]) < 0.1, r
    assert all(r["ratio_equal_h"] not in ("", "nan") for r in ours)
    assert "exudyn" in capsys.readouterr().out


def test_bench_stiff_exudyn_section_without_the_peer_says_how_to_install_it(tmp_path, monkeypatch):
    """With `import exudyn` failing (the peer absent), the section writes one row naming the install command and
    nothing else; the bench exits 0."""
    monkeypatch.setitem(sys.modules, "exudyn", None)  # makes `import exudyn` raise ImportError
    assert main(["bench", "stiff", "--quick", "--sections", "exudyn", "--out", str(tmp_path)]) == 0
    rows = _stiff_rows(tmp_path)
    assert len(rows) == 1 and rows[0]["method"] == "exudyn-gen-alpha"
    assert "pip install lgbeam[bench]" in rows[0]["note"] and "skipped" in rows[0]["note"]


def test_bench_sections_is_refused_outside_stiff_and_for_unknown_sections(tmp_path, capsys):
    assert main(["bench", "rod", "--quick", "--sections", "exudyn", "--out", str(tmp_path)]) == 2
    assert main(["bench", "stiff", "--quick", "--sections", "nope", "--out", str(tmp_path)]) == 2
    assert not (tmp_path / "stiff.csv").exists()
