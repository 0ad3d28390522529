"""``lgbeam sweep CASE --vary KEY=V1,V2 --vary KEY2=A,B``: a grid of runs over several case keys, on Dask.

Every combination of the ``--vary`` values (the first key varies slowest) is one run in its own folder
``<sweep>/runs/<key>=<value>,<key2>=<value>/``, run as a Dask task (a local cluster of ``--jobs`` worker
processes by default, ``--scheduler ADDRESS`` for an existing cluster). A run that raises or whose worker
dies is tried once more and then reported as a row, never fatal; rerunning into the same ``--out`` skips
the complete runs. ``study.csv`` gathers one row per run (the keys, wall time, steps, status, attempts);
with ``--reference KEY=V`` it also holds error norms against that run and ``study.png`` their fitted orders
against the first key (as ``lgbeam study``).
"""

from __future__ import annotations

import argparse

from lgbeam.cli.cmd_run import add_case_arguments
from lgbeam.cli.cmd_study import add_grid_arguments, run_grid


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="run a grid of case variations on Dask (one run folder each, one CSV)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        epilog="example: lgbeam sweep heavy-top --vary model.group=S3R3,SE3 --vary integrator.rtol=1e-6,1e-8 "
        "--jobs 2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_case_arguments(p)
    add_grid_arguments(p)
    p.add_argument("--reference", action="append", default=None, metavar="KEY=V",
                   help="also measure errors against a run with these settings (repeatable)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    return run_grid(args, default_reference=False, command="sweep")
