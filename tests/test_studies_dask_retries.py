"""A killed Dask worker on a study's own cluster prints lgbeam's one line, not Dask's tracebacks, and a run that an
external scheduler ran again after its worker died is recorded with its true number of attempts (issue #33 item 7;
reviews/t4/reliability.md §5: 33 lines of `distributed` tracebacks, `attempts 1` on an external cluster).

The task kills its own worker process on its first try (a marker file says whether it ran before), so the truth
is known: item 2 ran twice, the others once."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import pytest

from lgbeam.studies.parallel import LOST_WORKER, run_tasks

distributed = pytest.importorskip("distributed", reason="the Dask cluster paths need dask.distributed")
cloudpickle = pytest.importorskip("cloudpickle", reason="Dask pickles the task with cloudpickle")
cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers need not import the tests folder


def _die_once(item: tuple[str, int]) -> int:
    folder, x = item
    marker = Path(folder) / f"ran-{x}"
    if x == 2 and not marker.exists():
        marker.write_text("first try")
        time.sleep(0.3)
        os._exit(9)  # the worker process dies mid-run (what SIGKILL does)
    time.sleep(0.3)
    return x * x


def test_a_killed_worker_of_the_own_cluster_is_one_line(tmp_path, capfd, caplog):
    with caplog.at_level(logging.INFO):
        out = run_tasks(_die_once, [(str(tmp_path), x) for x in (1, 2, 3)], jobs=2, retries=1)
    assert [o.value for o in out] == [1, 4, 9] and [o.attempts for o in out] == [1, 2, 1]
    said = [(r.name, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and said[0][0].startswith("lgbeam"), said  # nothing from distributed, tornado, asyncio
    assert "failed (KilledWorker" in said[0][1] and "trying again" in said[0][1]
    err = capfd.readouterr().err  # the worker processes' own stderr
    assert "Traceback" not in err and "distributed" not in err, err


def test_an_external_schedulers_retry_is_counted(tmp_path, capfd):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as cluster:  # default allowed-failures: 3
        out = run_tasks(_die_once, [(str(tmp_path), x) for x in (1, 2, 3)], scheduler=cluster.scheduler_address,
                        retries=1)
    assert [o.value for o in out] == [1, 4, 9]
    assert [o.attempts for o in out] == [1, 2, 1], out
    assert out[1].history == (LOST_WORKER,)
    assert "Traceback" not in capfd.readouterr().err
