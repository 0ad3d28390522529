"""Every `lgbeam bench` target runs in its quick mode and writes a CSV of positive timings."""

from __future__ import annotations

import csv

import pytest

from lgbeam.cli.cmd_bench import BENCHES
from lgbeam.cli.main import main

TIMING_COLUMN = {"groups": "ours_ms", "herk": "us_per_step", "lie": "hs-rkmk4_us", "rod": "us_per_step", "spectral": "wall_s",
                 "study": "wall_s"}


SLOW = {"study"}  # three study subprocesses and a Dask cluster: ~10 s idle, 30 s on a loaded 2-core machine


@pytest.mark.parametrize("target", [pytest.param(t, marks=pytest.mark.slow) if t in SLOW else t for t in sorted(BENCHES)])
def test_bench_quick_writes_its_csv(target, tmp_path, capsys):
    assert main(["bench", target, "--quick", "--out", str(tmp_path)]) == 0
    with open(tmp_path / f"{target}.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    timings = [float(r[TIMING_COLUMN[target]]) for r in rows if r[TIMING_COLUMN[target]] not in ("", "nan")]
    assert timings and min(timings) > 0, rows[:2]
    assert capsys.readouterr().out.strip()  # the table is printed
