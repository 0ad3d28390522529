"""``lgbeam bench TARGET``: performance benchmarks that print a table and write CSV under outputs/bench."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

BENCHES = {
    "groups": "lgbeam.bench.groups",
    "herk": "lgbeam.bench.herk",
    "memory": "lgbeam.bench.memory",
    "rigid": "lgbeam.bench.rigid",
    "rod": "lgbeam.bench.rod",
    "spectral": "lgbeam.bench.spectral",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run a performance benchmark (prints a table, writes outputs/bench/<target>.csv)",
        description="Run a benchmark; each prints a table and writes outputs/bench/<target>.csv.",
        epilog="example: lgbeam bench groups --quick",
    )
    p.add_argument("target", choices=sorted(BENCHES), help="what to benchmark")
    p.add_argument("--out", type=Path, default=Path("outputs/bench"), help="folder for the CSV")
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats (for tests)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    module = importlib.import_module(BENCHES[args.target])
    args.out.mkdir(parents=True, exist_ok=True)
    module.run(out_dir=args.out, quick=args.quick)
    return 0
