"""``lgbeam bench TARGET``: performance benchmarks that print a table and write CSV.

By default a bench writes into a fresh, git-ignored folder ``outputs/bench/<target>-<YYYYmmdd-HHMMSS>/``, so
running one never changes the committed figures; ``--update`` writes the committed
``outputs/bench/<target>.csv`` instead (then commit it with the docs that cite it), ``--out DIR`` any folder.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any

from lgbeam.io.run import make_run_dir

BENCHES = {
    "core": "lgbeam.bench.core",
    "ep": "lgbeam.bench.ep",
    "frames": "lgbeam.bench.frames",
    "groups": "lgbeam.bench.groups",
    "herk": "lgbeam.bench.herk",
    "lie": "lgbeam.bench.lie",
    "memory": "lgbeam.bench.memory",
    "rigid": "lgbeam.bench.rigid",
    "rod": "lgbeam.bench.rod",
    "spectral": "lgbeam.bench.spectral",
    "study": "lgbeam.bench.study",
    "statics": "lgbeam.bench.statics",
    "stiff": "lgbeam.bench.stiff",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run a performance benchmark (prints a table, writes CSV to a fresh outputs/bench/<target>-<time>/)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        epilog="example: lgbeam bench groups --quick   (lgbeam bench groups --update rewrites outputs/bench/groups.csv)",
    )
    p.add_argument("target", choices=sorted(BENCHES), help="what to benchmark")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="folder for the CSV (default: a fresh outputs/bench/<target>-<YYYYmmdd-HHMMSS>/)")
    p.add_argument("--update", action="store_true",
                   help="write the committed outputs/bench/<target>.csv (the figures docs/benchmarks.md cites)")
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats (for tests)")
    p.add_argument("--long", action="store_true",
                   help="spectral only: the long-run comparison with the peers (lgbeam.bench.spectral_long)")
    p.add_argument("--targets", action="store_true",
                   help="spectral only: cost at errors 1e-6/1e-8 against ETDRK4 and rkstiff's ETD35 (optional: pip install rkstiff) on NLS and KdV solitons, two NLS breathers, a KdV 3-soliton collision, Zabusky-Kruskal (lgbeam.bench.spectral_targets)")
    p.add_argument("--problems", default=None, metavar="LIST",
                   help="with --targets: comma-separated problems (nls-soliton, kdv-soliton, kdv-c4, kdv-two, "
                        "nls-breather, kdv-three, nls-bound2, kdv-zk; default all)")
    p.add_argument("--methods", default=None, metavar="LIST",
                   help="with --targets: comma-separated lgbeam methods to run besides the peers (default all)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="with --long: runs in N single-threaded processes (default: the CPU count)")
    p.add_argument("--sections", default=None, metavar="LIST",
                   help="comma-separated sections of a bench that declares them (stiff: accuracy, hedop5, "
                        "accuracy-cosserat, stiffness, newton, exudyn; frames: evaluation, tower, opensees; default: "
                        "the bench's default sections), e.g. 'lgbeam bench stiff --sections exudyn --update' "
                        "refreshes the Exudyn comparison alone, 'lgbeam bench frames --sections opensees' runs the "
                        "OpenSeesPy comparison")
    p.set_defaults(func=_run)


def output_dir(target: str, out: Path | None, update: bool) -> Path:
    """Where a bench writes: ``out``; the committed ``outputs/bench`` with ``update``; else a fresh folder."""
    if out is not None and update:
        raise ValueError("give --out DIR or --update, not both (--update writes the committed outputs/bench/)")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        return out
    if update:
        committed = Path("outputs") / "bench"
        committed.mkdir(parents=True, exist_ok=True)
        return committed
    return make_run_dir("bench", root="outputs", prefix=f"{target}-")


def chosen_sections(target: str, module: Any, sections: str | None) -> list[str] | None:
    """The sections of ``--sections LIST`` for a bench module that declares ``SECTIONS`` (None: the default);
    ValueError (one line) for a bench without sections, or an unknown or empty name."""
    if sections is None:
        return None
    declared = tuple(getattr(module, "SECTIONS", ()))
    if not declared:
        with_sections = sorted(k for k, v in BENCHES.items() if getattr(importlib.import_module(v), "SECTIONS", ()))
        raise ValueError(f"--sections: 'lgbeam bench {target}' has no sections; benches with sections: "
                         f"{', '.join(with_sections)}")
    chosen = [x.strip() for x in sections.split(",") if x.strip()]
    if not chosen or set(chosen) - set(declared):
        raise ValueError(f"--sections: unknown or empty {sections!r}; choose from {', '.join(declared)}")
    return chosen


def _run(args: argparse.Namespace) -> int:
    if getattr(args, "long", False):
        if args.target != "spectral":
            raise ValueError(f"--long is a mode of 'lgbeam bench spectral', not of {args.target!r}")
        out = output_dir("spectral-long", args.out, args.update)
        importlib.import_module("lgbeam.bench.spectral_long").run(out_dir=out, quick=args.quick, jobs=args.jobs)
        print(f"bench spectral --long written to {out}")
        return 0
    if getattr(args, "targets", False):
        if args.target != "spectral":
            raise ValueError(f"--targets is a mode of 'lgbeam bench spectral', not of {args.target!r}")
        module = importlib.import_module("lgbeam.bench.spectral_targets")
        names = None if args.problems is None else tuple(x.strip() for x in args.problems.split(",") if x.strip())
        if names is not None and (not names or set(names) - set(module.PROBLEMS)):
            raise ValueError(f"--problems: unknown or empty {args.problems!r}; choose from {', '.join(module.PROBLEMS)}")
        chosen = None if args.methods is None else tuple(x.strip() for x in args.methods.split(",") if x.strip())
        if chosen is not None and (not chosen or set(chosen) - set(module.METHODS)):
            raise ValueError(f"--methods: unknown or empty {args.methods!r}; choose from {', '.join(module.METHODS)}")
        out = output_dir("spectral-targets", args.out, args.update)
        module.run(out_dir=out, quick=args.quick, problems=names, methods=chosen)
        print(f"bench spectral --targets written to {out}")
        return 0
    if getattr(args, "problems", None) is not None or getattr(args, "methods", None) is not None:
        raise ValueError("--problems and --methods are options of 'lgbeam bench spectral --targets'")
    module = importlib.import_module(BENCHES[args.target])
    sections = chosen_sections(args.target, module, getattr(args, "sections", None))
    out = output_dir(args.target, args.out, args.update)
    module.run(out_dir=out, quick=args.quick, **({} if sections is None else {"sections": sections}))
    print(f"bench {args.target} written to {out}")
    return 0
