"""``lgbeam spectrum CASE --spectrum FILE|ec8:... --direction x``: response-spectrum analysis of a rod or frame case
(``lgbeam.apps.spectrum``: the case's own modes, SRSS and CQC combinations; spectrum.csv, displacements.csv;
docs/dynamics.md)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "spectrum",
        help="response-spectrum analysis of a rod or frame case (SRSS, CQC; writes spectrum.csv, displacements.csv)",
        description="Response-spectrum analysis: the case's modes about its reference, each excited by the spectral "
        "acceleration at its period along one axis; peak base shears and node displacements per mode and combined "
        "by SRSS and CQC. By default the modes until 90 % of the mass along the direction takes part.",
        epilog="examples: lgbeam spectrum steel-frame-2storey --spectrum ec8:type=1,ground=B,ag=0.25,q=1.5 "
        "--direction x;  lgbeam spectrum my-frame.toml --spectrum sa.csv --direction y --n 6 --combination cqc",
    )
    p.add_argument("case", metavar="CASE", help="rod or frame case name (see `lgbeam list`) or path to a .toml file")
    p.add_argument("--spectrum", required=True, metavar="FILE|ec8:...",
                   help="a table of two columns T [s], Sa [m/s²] (comma or blank separated, header allowed; linear "
                   "interpolation), or the EN 1998-1 design spectrum ec8:type=1|2,ground=A..E,ag=<in g>,q=<behaviour "
                   "factor>[,beta=0.2]")
    p.add_argument("--direction", required=True, choices=("x", "y", "z"), help="the global axis of the excitation")
    p.add_argument("--n", type=int, default=None, metavar="K",
                   help="number of modes (default: until 90%% of the mass along the direction)")
    p.add_argument("--combination", choices=("srss", "cqc"), default="cqc",
                   help="the combination printed as the result (both are written; default cqc)")
    p.add_argument("--ratio", type=float, default=0.05, metavar="ZETA",
                   help="modal damping ratio of the CQC correlation coefficients (default 0.05)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a case key, e.g. --set model.n_elements=16 (repeatable; TOML literal)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="folder for spectrum.csv and displacements.csv (default: outputs/<case name>/spectrum-<dir>)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from lgbeam.apps import load_case
    from lgbeam.apps.spectrum import report
    from lgbeam.discretisations.rods import spectra

    case, source = load_case(args.case, list(args.overrides))
    if case.get("kind") not in ("rod", "frame"):
        raise ValueError(f"lgbeam spectrum works on rod and frame cases; {source} has kind {case.get('kind')!r}")
    name = str(case.get("name") or Path(str(source)).stem)
    spectrum = spectra.parse(args.spectrum, Path(str(source)).parent if source else None)
    out = args.out if args.out is not None else Path("outputs") / name / f"spectrum-{args.direction}"
    print(report(case, name, spectrum, direction=args.direction, n=args.n, ratio=args.ratio,
                 combination=args.combination, out=out))
    return 0
