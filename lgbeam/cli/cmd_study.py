"""``lgbeam study CASE --vary KEY=V1,V2,...``: parameter studies in parallel processes.

Each value of the varied key runs in its own sub run folder ``<study>/runs/<key>=<value>/``
(a ``ProcessPoolExecutor`` with ``--jobs`` workers). Errors are measured against a reference run
(``--reference KEY=V``, run in ``<study>/runs/reference/``; default: the last ``--vary`` value) with
the app's ``errors(solution, reference)``. The study folder receives ``study.csv`` (parameter,
error norms, wall time, steps, status), ``study.png`` (log-log errors with fitted orders, the
slope of ``np.polyfit`` on log-log data) and ``provenance.json`` (with the fitted orders).

``--hmax`` runs ``lgbeam.studies.spectral_hmax.hmax_study(case, ns, methods, out_dir)`` (nls and kdv cases:
largest stable step per grid size ``grid.n`` and method; one or more sizes) and writes its rows to
``hmax.csv``.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import APPS, get_app, load_case
from lgbeam.cli.cmd_run import EXIT_INTERRUPTED, add_case_arguments, run_case
from lgbeam.io.cases import dumps_toml, parse_value
from lgbeam.io.run import Stopwatch, make_run_dir, write_provenance
from lgbeam.io.schema import CaseError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "study",
        help="run a parameter study in parallel; errors against a reference, fitted orders",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        epilog="example: lgbeam study flying-spaghetti --vary integrator.h=4e-3,2e-3,1e-3 "
        "--reference integrator.h=1e-4 --jobs 2\n"
        "         lgbeam study nls-table --hmax --vary grid.n=11,21,41 --methods disex,exp-midpoint",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_case_arguments(p)
    p.add_argument("--vary", required=True, metavar="KEY=V1,V2,...", help="the key and its values")
    p.add_argument("--reference", default=None, metavar="KEY=V",
                   help="settings of the reference run (default: the last --vary value)")
    p.add_argument("--jobs", type=int, default=1, metavar="K", help="parallel processes (default 1)")
    p.add_argument("--hmax", action="store_true", help="largest-stable-step study (Tables 2.3/2.4; nls and kdv cases)")
    p.add_argument("--methods", default="", metavar="A,B", help="methods for --hmax")
    p.set_defaults(func=_run)


def parse_vary(text: str, min_values: int = 2) -> tuple[str, list[Any]]:
    """``"integrator.h=1e-2,5e-3"`` → ``("integrator.h", [0.01, 0.005])`` (values as TOML literals)."""
    key, sep, vals = text.partition("=")
    values = [parse_value(v.strip()) for v in vals.split(",") if v.strip()]
    if not sep or not key.strip() or len(values) < min_values:
        raise CaseError(f"--vary expects KEY=V1,V2,... with at least {min_values} value(s), e.g. "
                        f"integrator.h=1e-2,5e-3; got {text!r}")
    return key.strip(), values


def _toml_literal(value: Any) -> str:
    return dumps_toml({"v": value}).split("=", 1)[1].strip()


def _label(key: str, value: Any) -> str:
    return f"{key}={value}".replace("/", "_")


def _worker(app_module: str, kind: str, case: dict[str, Any], source: str, run_dir: str) -> dict[str, Any]:
    """Run one variation in a worker process (top level, so it pickles)."""
    APPS[kind] = app_module  # the parent's registry (a test may have registered a fake app)
    clock = Stopwatch()
    try:
        summary = run_case(case, source, Path(run_dir), progress=False, figures=False)
        return {"status": summary.status, "steps": summary.n_steps, "rejected": summary.n_rejected,
                "wall_time_s": clock.elapsed()}
    except KeyboardInterrupt:
        return {"status": "interrupted", "steps": 0, "rejected": 0, "wall_time_s": clock.elapsed()}
    except Exception as exc:  # a failed variation is a row of the study, not the end of it
        return {"status": f"failed: {type(exc).__name__}: {exc}", "steps": 0, "rejected": 0,
                "wall_time_s": clock.elapsed()}


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def format_table(rows: list[dict[str, Any]]) -> str:
    """Rows of dicts as an aligned text table (floats in ``.4g``)."""
    if not rows:
        return "(no rows)"
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]

    def fmt(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    cells = [[fmt(r.get(c, "")) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(cols, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    key, values = parse_vary(args.vary, min_values=1 if args.hmax else 2)
    base, source = load_case(args.case, args.overrides)
    name = str(base.get("name") or source.stem)
    if args.hmax:
        return _run_hmax(args, base, name, key, values)
    variations = [(_label(key, v), [*args.overrides, f"{key}={_toml_literal(v)}"]) for v in values]
    if args.reference is not None:
        rkey, sep, rval = args.reference.partition("=")
        if not sep:
            raise CaseError(f"--reference expects KEY=VALUE, e.g. integrator.h=1e-5; got {args.reference!r}")
        variations.append(("reference", [*args.overrides, args.reference]))
    cases = {label: load_case(source, ovs)[0] for label, ovs in variations}  # validate all before running
    study_dir = make_run_dir(name, args.out, force=args.force, prefix="study-")
    (study_dir / "runs").mkdir()
    app_module = APPS[base["kind"]]
    clock = Stopwatch()
    results: dict[str, dict[str, Any]] = {}
    for label in cases:
        (study_dir / "runs" / label).mkdir()
    pool = ProcessPoolExecutor(max_workers=args.jobs)
    try:
        futures = {label: pool.submit(_worker, app_module, base["kind"], case, str(source),
                                      str(study_dir / "runs" / label)) for label, case in cases.items()}
        for label, fut in futures.items():
            results[label] = fut.result()
            if not args.quiet:
                print(f"  {label}: {results[label]['status']} ({results[label]['wall_time_s']:.2f} s)", file=sys.stderr)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        print(f"lgbeam study: interrupted; finished runs are in {study_dir / 'runs'}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return _report(args, study_dir, source, key, values, results, clock)


def _report(args, study_dir: Path, source: Path, key: str, values: list[Any],
            results: dict[str, dict[str, Any]], clock: Stopwatch) -> int:
    base = load_case(source, args.overrides)[0]
    app = get_app(base["kind"])
    ref_label = "reference" if "reference" in results else _label(key, values[-1])
    ref_npz = study_dir / "runs" / ref_label / "solution.npz"
    ref = _load_npz(ref_npz) if results[ref_label]["status"] == "ok" and ref_npz.is_file() else None
    rows, err_keys = [], []
    for v in values:
        label = _label(key, v)
        res = results[label]
        row: dict[str, Any] = {key: v}
        if ref is not None and res["status"] == "ok":
            errs = app.errors(_load_npz(study_dir / "runs" / label / "solution.npz"), ref)
            row.update({k: float(e) for k, e in errs.items()})
            err_keys += [k for k in errs if k not in err_keys]
        row.update({"wall_time_s": res["wall_time_s"], "steps": res["steps"], "status": res["status"]})
        if label == ref_label:
            row["status"] += " (reference)"
        rows.append(row)
    _write_csv(study_dir / "study.csv", rows)
    orders: dict[str, float] = {}
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    if err_keys and numeric:
        from lgbeam.io.plots import plot_study

        fit_rows = [r for r, v in zip(rows, values) if _label(key, v) != ref_label]
        orders = plot_study(fit_rows, key, err_keys, study_dir / "study.png")
    print(format_table(rows))
    if orders:
        print("fitted orders (slope of log error vs log " + key + "): "
              + ", ".join(f"{k} {o:.2f}" for k, o in orders.items()))
    if ref is None:
        print(f"lgbeam study: reference run {ref_label} did not finish ({results[ref_label]['status']}); "
              "no errors computed", file=sys.stderr)
    write_provenance(study_dir, status="ok" if ref is not None else "no reference", wall_time_s=clock.elapsed(),
                     started=clock.started, case_name=str(base.get("name", "")),
                     extra={"study": {"vary": key, "values": values, "reference": ref_label,
                                      "orders": {k: (o if math.isfinite(o) else None) for k, o in orders.items()}}})
    print(f"study written to {study_dir}")
    return 0 if ref is not None and all(r["status"] == "ok" for r in results.values()) else 1


def _run_hmax(args, base: dict[str, Any], name: str, key: str, values: list[Any]) -> int:
    if base["kind"] not in ("nls", "kdv"):
        raise ValueError(f"case kind {base['kind']!r} has no hmax study; --hmax works for nls and kdv cases")
    from lgbeam.studies.spectral_hmax import hmax_study as study
    if key != "grid.n" or not all(isinstance(v, int) and v > 0 for v in values):
        raise ValueError(f"--hmax expects --vary grid.n=N1,N2,... with positive integers, got {key}={values}")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise ValueError("--hmax needs --methods A,B,... (integrator names)")
    study_dir = make_run_dir(name, args.out, force=args.force, prefix="hmax-")
    clock = Stopwatch()
    try:
        rows = list(study(base, values, methods, study_dir))
    except KeyboardInterrupt:
        print(f"lgbeam study: interrupted; partial output is in {study_dir}", file=sys.stderr)
        return EXIT_INTERRUPTED
    _write_csv(study_dir / "hmax.csv", rows)
    write_provenance(study_dir, status="ok", wall_time_s=clock.elapsed(), started=clock.started,
                     case_name=name, extra={"hmax": {"ns": values, "methods": methods}})
    print(format_table(rows))
    print(f"hmax study written to {study_dir}")
    return 0
