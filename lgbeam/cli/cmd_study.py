"""``lgbeam study CASE --vary KEY=V1,V2,...``: errors against a reference run and fitted orders, on Dask.

Every grid point (the product of the ``--vary`` keys) runs in its own folder ``<study>/runs/<key>=<value>/``
as a Dask task: a local cluster of ``--jobs`` worker processes by default, ``--scheduler ADDRESS`` for an
existing cluster (or ``synchronous``/``threads``/``processes``). Errors are measured against a reference
run (``--reference KEY=V``, repeatable, run in ``<study>/runs/reference/``; default with one ``--vary``: its
last value) with the app's ``errors(solution, reference)``. A run that raises or whose worker dies is tried
once more and then reported as a row, never fatal; a retried run's row says why in its note. Rerunning into
the same ``--out`` skips the complete runs (``lgbeam.studies.runner.is_complete``). SIGINT (Ctrl-C) or
SIGTERM stops the study promptly: the runs in flight end ``interrupted``, exit code 130 or 143. The study
folder receives ``study.csv`` (parameters, error norms, wall time, steps, status, attempts, note),
``study.png`` (log-log errors against the first ``--vary`` key with fitted orders) and ``provenance.json``
(with the fitted orders).

``--quantity Q`` (repeatable; ``lgbeam.studies.quantities``: a position at an arc length, a displacement, a
reaction, the energy, a natural frequency or any array of solution.npz) is measured on every run and analysed
along the first ``--vary`` key (``lgbeam.studies.study_refinement``): errors against the reference run or, with
``--against richardson``, against Richardson's estimate (no reference run needed), pairwise and fitted orders
(positive for step and for element refinement), the three-grid observed order, the grid-convergence index;
written to ``refinement.csv``, ``refinement-summary.csv`` and ``refinement.png``.

``--hmax`` runs ``lgbeam.studies.spectral_hmax.hmax_study(case, ns, methods, out_dir)`` (nls and kdv cases:
largest stable step per grid size ``grid.n`` and method; one or more sizes) and writes its rows to
``hmax.csv``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from lgbeam.apps import load_case
from lgbeam.cli.cmd_run import add_case_arguments, run_case
from lgbeam.cli.main import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated
from lgbeam.io.run import Stopwatch, make_run_dir, write_provenance
from lgbeam.studies.parallel import deferred_interrupts, signals_recorded
from lgbeam.studies.runner import (
    REFERENCE,
    RunSpec,
    format_table,
    open_study_dir,
    parse_vary,
    plan_study,
    run_study,
    write_csv,
)

logger = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "study",
        help="run a parameter study on Dask; errors against a reference, fitted orders",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        epilog="example: lgbeam study flying-spaghetti --vary integrator.h=4e-3,2e-3,1e-3 "
        "--reference integrator.h=1e-4 --jobs 2\n"
        "         lgbeam study cantilever-tip-load --vary model.n_elements=4,8,16,32 --quantity 'position(s=1.0)[z]' "
        "--against richardson\n"
        "         lgbeam study nls-table --hmax --vary grid.n=11,21,41 --methods disex,exp-midpoint",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_case_arguments(p)
    add_grid_arguments(p)
    p.add_argument("--reference", action="append", default=None, metavar="KEY=V",
                   help="settings of the reference run (repeatable; default with one --vary: its last value)")
    p.add_argument("--quantity", action="append", default=None, metavar="Q",
                   help="a quantity to measure on every run and analyse along the first --vary key: pairwise and "
                   "three-grid orders, Richardson's estimate, the grid-convergence index (repeatable; "
                   "position(s=S[,rod=R][,t=T])[x|y|z], displacement(...), reaction(support=NAME), "
                   "joint_reaction(joint=NAME), energy, frequency(mode=K), or any solution.npz array[i,...])")
    p.add_argument("--against", choices=("reference", "richardson", "exact"), default=None,
                   help="the target of the quantities' errors in refinement.png (default: the reference run; "
                   "richardson and exact need no reference run)")
    p.add_argument("--exact", action="append", default=None, metavar="Q=VALUE",
                   help="the exact value of a --quantity (a number or [a, b, c]); errors against it are added")
    p.add_argument("--formal-order", type=float, default=None, metavar="P",
                   help="the order assumed for Richardson/GCI when only two --vary values are given")
    p.add_argument("--hmax", action="store_true", help="largest-stable-step study (Tables 2.3/2.4; nls and kdv cases)")
    p.add_argument("--methods", default="", metavar="A,B", help="methods for --hmax")
    p.set_defaults(func=_run)


def add_grid_arguments(p: argparse.ArgumentParser) -> None:
    """``--vary`` (repeatable: a grid), ``--jobs`` and ``--scheduler``, shared by ``study`` and ``sweep``."""
    p.add_argument("--vary", action="append", required=True, metavar="KEY=V1,V2,...",
                   help="a key and its values; repeat for a grid over several keys")
    p.add_argument("--jobs", type=int, default=None, metavar="K",
                   help="worker processes of the local Dask cluster (default: the CPUs, at most one per run)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="an existing Dask scheduler (tcp://host:8786), or synchronous (no Dask), threads, processes")


def execute_run(spec: RunSpec) -> dict[str, Any]:
    """Run one grid point into its folder with ``lgbeam run``'s ``run_case`` (in a Dask worker).

    An interrupt (``lgbeam.studies.parallel.interrupt_running``) never cuts the replacement of an earlier try's
    folder in two, and a run stopped before ``run_case`` recorded it still ends ``interrupted``.
    """
    spec.register_app()
    clock = Stopwatch()
    with deferred_interrupts():
        run_dir = make_run_dir(spec.label, spec.run_dir, force=True)  # an incomplete earlier try is replaced
    try:
        summary = run_case(spec.case, spec.source, run_dir, progress=False, figures=False)
    except KeyboardInterrupt:
        # the interrupt may land before run_case wrote its provenance or between that and its own handler
        # (seen once in 20 SIGINTs: `running` left behind); a status the run wrote itself is kept
        try:
            status = json.loads((run_dir / "provenance.json").read_text(encoding="utf-8"))["status"]
        except (OSError, ValueError, KeyError, TypeError):
            status = None
        if status in (None, "running"):
            write_provenance(run_dir, status="interrupted", wall_time_s=clock.elapsed(), started=clock.started,
                             case_name=str(spec.case.get("name", "")))
        raise
    if summary.status == "interrupted" and threading.current_thread() is threading.main_thread():
        # --scheduler synchronous: the driver caught SIGINT/SIGTERM and ended this run; the study stops too
        raise Terminated if summary.extra.get("signal") == signal.SIGTERM else KeyboardInterrupt
    return {"status": summary.status, "steps": summary.n_steps, "rejected": summary.n_rejected,
            "wall_time_s": clock.elapsed()}


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raised as ``Terminated`` (a ``KeyboardInterrupt``) in the main thread: a study stops on it as on
    Ctrl-C (the runs in flight end ``interrupted``) and exits 143."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_grid(args: argparse.Namespace, *, default_reference: bool, command: str) -> int:
    """The common body of ``lgbeam study`` and ``lgbeam sweep``."""
    # SIGINT and SIGTERM are recorded and acted on by the loop over the runs (never raised just anywhere)
    with signals_recorded(signal.SIGINT, signal.SIGTERM) as received:
        try:
            return _run_grid(args, default_reference=default_reference, command=command, received=received)
        except KeyboardInterrupt as exc:  # while the grid was being checked: nothing ran yet
            term = isinstance(exc, Terminated) or received() == signal.SIGTERM
            print(f"lgbeam {command}: interrupted by {'SIGTERM' if term else 'SIGINT'} before any run started",
                  file=sys.stderr)
            return EXIT_TERMINATED if term else EXIT_INTERRUPTED


def _refinement_cell(key: str, v: Any) -> Any:
    """A refinement-summary cell as printed: values in full, the two-grid order marked as assumed."""
    if key == "formal_order" and isinstance(v, float):
        return f"{v:g} (assumed: two grids)"
    return f"{v:.10g}" if key in ("richardson", "finest", "reference") and isinstance(v, float) else v


def _run_grid(args: argparse.Namespace, *, default_reference: bool, command: str,
              received: Callable[[], int | None]) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {args.jobs}")
    varies = [parse_vary(v, min_values=2 if command == "study" and len(args.vary) == 1 else 1) for v in args.vary]
    quantities = getattr(args, "quantity", None)
    against = getattr(args, "against", None) or "reference"
    if against != "reference" and args.reference:
        raise ValueError(f"--against {against} needs no --reference run; drop one of them")
    plan = plan_study(args.case, args.overrides, varies, args.reference, default_reference, quantities=quantities,
                      against=against, formal_order=getattr(args, "formal_order", None),
                      exact=getattr(args, "exact", None))
    if plan.reference is not None and plan.reference != REFERENCE and not args.quiet:
        print(f"lgbeam {command}: the reference is the finest run ({plan.reference}): its own error biases the "
              "fitted orders and they rest on one run fewer; give a finer --reference KEY=V or measure a "
              "--quantity --against richardson", file=sys.stderr)
    study_dir, reused = open_study_dir(plan, args.out, force=args.force)
    if reused and not args.quiet:
        print(f"lgbeam {command}: continuing the study in {study_dir} (complete runs are kept)", file=sys.stderr)
    try:
        res = run_study(plan, study_dir, execute_run, scheduler=args.scheduler, jobs=args.jobs,
                        progress=not args.quiet)
    except KeyboardInterrupt as exc:
        term = isinstance(exc, Terminated) or received() == signal.SIGTERM
        print(f"lgbeam {command}: interrupted by {'SIGTERM' if term else 'SIGINT'}; the runs in flight were stopped, "
              f"finished runs are in {study_dir / 'runs'}; run the same command with --out {study_dir} to continue",
              file=sys.stderr)
        return EXIT_TERMINATED if term else EXIT_INTERRUPTED
    print(format_table(res.rows))
    if res.orders:
        key = plan.varies[0][0]
        flat = res.orders if all(not isinstance(v, dict) for v in res.orders.values()) else None
        groups = {"": flat} if flat is not None else res.orders
        for combo, fitted in groups.items():
            print(f"fitted orders (slope of log error vs log {key}{', ' + combo if combo else ''}): "
                  + ", ".join(f"{k} {o:.2f}" if o is not None else f"{k} nan" for k, o in fitted.items()))
    if res.refinement:
        two = any("formal_order" in r for r in res.refinement)
        print(f"refinement along {plan.varies[0][0]} (errors against {plan.against}; GCI relative, F_s = "
              f"{'3 with two grids' if two else '1.25'}):")
        print(format_table([{k: _refinement_cell(k, v) for k, v in r.items()} for r in res.refinement]))
    if not res.reference_ok:
        print(f"lgbeam {command}: reference run {plan.reference} did not finish ({res.reference_status}); "
              "no errors computed", file=sys.stderr)
    for label, why in res.retried.items():
        print(f"lgbeam {command}: run {label} was retried ({'; '.join(why)})", file=sys.stderr)
    failed = [r for r in res.rows if not str(r["status"]).startswith("ok")]
    if failed:
        print(f"lgbeam {command}: {len(failed)} of {len(res.rows)} runs did not end ok; see study.csv", file=sys.stderr)
    print(f"{command} written to {study_dir} ({res.n_ran} runs done now, {len(plan.runs()) - res.n_ran} kept)")
    return 0 if res.reference_ok and res.all_ok else 1


def _run(args: argparse.Namespace) -> int:
    if args.hmax:
        if len(args.vary) != 1:
            raise ValueError("--hmax takes one --vary grid.n=N1,N2,...")
        key, values = parse_vary(args.vary[0], min_values=1)
        base, source = load_case(args.case, args.overrides)
        return _run_hmax(args, base, str(base.get("name") or source.stem), key, values)
    return run_grid(args, default_reference=True, command="study")


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
        with sigterm_interrupts():
            rows = list(study(base, values, methods, study_dir))
    except KeyboardInterrupt as exc:
        print(f"lgbeam study: interrupted; partial output is in {study_dir}", file=sys.stderr)
        return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
    write_csv(study_dir / "hmax.csv", rows)
    write_provenance(study_dir, status="ok", wall_time_s=clock.elapsed(), started=clock.started,
                     case_name=name, extra={"hmax": {"ns": values, "methods": methods}})
    print(format_table(rows))
    print(f"hmax study written to {study_dir}")
    return 0
