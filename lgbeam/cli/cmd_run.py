"""``lgbeam run CASE``: validate a case, make a run folder, run the app, write provenance and figures.

Exit codes: 0 success; 1 the integration stopped early (status other than "ok"); 2 a user error or an
environment to fix (a refused value or resume, a read-only or full disk; one line on stderr); 130 interrupted by
SIGINT (Ctrl-C), 143 by SIGTERM (``timeout``, batch schedulers): the driver catches both between steps, every file
is written and valid, and ``lgbeam run --resume RUN_DIR`` continues the run from its last checkpoint (also after
SIGKILL); outside the step loop ``lgbeam.cli.main`` ends the command with the same codes in one line.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from lgbeam._version import __version__
from lgbeam.apps import CHECKPOINT, RunSummary, get_app, load_case
from lgbeam.cli.main import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated
from lgbeam.io.atomic import RunLock, atomic_write_bytes, check_no_links
from lgbeam.io.cases import write_toml
from lgbeam.io.run import Stopwatch, dumps_json, make_run_dir, provenance, write_provenance

logger = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run a case into a run folder (case.toml, provenance.json, solution.npz, paraview/, figures/)",
        description="Run a case (a name from `lgbeam list` or a path to a TOML file). Output goes to "
        "outputs/<case>/<YYYYmmdd-HHMMSS>/ or --out DIR.",
        epilog="example: lgbeam run flying-spaghetti --set integrator.method=hedop5 --set integrator.controller=pi --set integrator.rtol=1e-5 --out outputs/fs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_case_arguments(p, case_optional=True)
    p.add_argument("--no-figures", action="store_true", help="skip the matplotlib figures")
    p.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR",
                   help="continue a killed or interrupted run from its checkpoint.npz (appends to its files; refused when case.toml, the model or the lgbeam version changed)")
    p.set_defaults(func=_run_case_command)


def add_case_arguments(p: argparse.ArgumentParser, case_optional: bool = False) -> None:
    """Arguments shared by ``run`` and ``study``: CASE, --out, --set, --quiet, --force."""
    p.add_argument("case", metavar="CASE", nargs="?" if case_optional else None,
                   help="case name (see `lgbeam list`) or path to a .toml file")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="output folder (default: outputs/<case>/<YYYYmmdd-HHMMSS>)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a case key, e.g. --set integrator.h=1e-3 (repeatable; TOML literal)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--force", "--overwrite", dest="force", action="store_true",
                   help="replace an existing run folder given by --out")


def run_case(case: dict[str, Any], source: Path | str, run_dir: Path, *, progress: bool,
             figures: bool = True, resume: bool = False,
             report: Callable[[RunSummary], None] | None = None) -> RunSummary:
    """Write case.toml, run the app, write provenance.json (and figures); return the summary.

    The run folder is locked (``.lock``) while the run writes it; provenance.json says ``running`` from
    the start, so a killed run's folder says what it was. ``KeyboardInterrupt`` propagates after
    provenance.json records ``status = "interrupted"``. ``report(summary)`` is called once the run's own files
    are complete and before the figures, so the command line shows its summary line while they are drawn.
    """
    with RunLock(run_dir):
        summary = _run_locked(case, source, run_dir, progress=progress, resume=resume)
        if report is not None:
            report(summary)
        if figures:
            write_figures(case, run_dir)
        return summary


def write_figures(case: dict[str, Any], run_dir: Path) -> None:
    """figures/: ``lgbeam.io.plots.plot_run`` and the kind's own panels; a failure is one warning (pictures
    are a convenience, the run itself is complete)."""
    from lgbeam.io.plots import plot_run

    app = get_app(case["kind"])
    try:
        plot_run(run_dir)
        if hasattr(app, "figures"):  # the kind's own panels (the seed figure its defaults reproduce)
            app.figures(run_dir)
    except (ValueError, OSError, KeyError) as exc:
        logger.warning("figures not written: %s", exc)


_PLOTS_IMPORT = threading.Lock()


def _run_locked(case: dict[str, Any], source: Path | str, run_dir: Path, *, progress: bool,
                resume: bool) -> RunSummary:
    if resume:  # a shared folder may hold links: refused before anything is written (lgbeam.io.atomic)
        check_no_links(run_dir)
    else:
        write_toml(run_dir / "case.toml", case, header=f"resolved from {source} by lgbeam {__version__}")
    app = get_app(case["kind"])
    clock = Stopwatch()
    prov: dict[str, Any] = {"started": clock.started, "case_name": str(case.get("name", ""))}
    record = run_dir / "provenance.json"
    before = record.read_bytes() if resume and record.is_file() else None
    if before is not None:  # a resume keeps the run's first start and lists its own starts
        try:
            old = json.loads(before)
        except ValueError:
            old = {}
        if isinstance(old, dict) and isinstance(old.get("started"), str):
            prov["started"] = old["started"]
            resumed = old["resumed"] if isinstance(old.get("resumed"), list) else []
            prov["extra"] = {"resumed": [*resumed, clock.started]}
    checkpoint = _identity(run_dir / CHECKPOINT) if before is not None else None
    write_provenance(run_dir, status="running", wall_time_s=0.0, **prov)
    try:
        summary = app.run(case, run_dir, progress=progress, resume=True) if resume else \
            app.run(case, run_dir, progress=progress)
    except KeyboardInterrupt:
        _record_end(run_dir, status="interrupted", wall_time_s=clock.elapsed(), **prov)
        raise
    except ValueError:
        # a refused resume (a checkpoint that does not match, a static run) changed nothing: the folder's record
        # goes back to what it said before (a finished run stays "ok" and a study does not rerun it)
        if before is not None:
            atomic_write_bytes(record, before)
        else:
            _record_end(run_dir, status=f"failed: {sys.exc_info()[1]}", wall_time_s=clock.elapsed(), **prov)
        raise
    except Exception as exc:
        if before is not None and not isinstance(exc, OSError) and _identity(run_dir / CHECKPOINT) == checkpoint:
            # a resume that failed before its first new checkpoint committed nothing (whatever a forged
            # checkpoint raised): the record stays as it was, one line, exit 2
            atomic_write_bytes(record, before)
            detail = (str(exc).splitlines() or [""])[0][:300]
            raise ValueError(f"cannot resume {run_dir}: {type(exc).__name__}: {detail} (before its first new "
                             f"checkpoint; {CHECKPOINT} does not fit this run: rerun the case)") from exc
        _record_end(run_dir, status=f"failed: {exc}", wall_time_s=clock.elapsed(), **prov)
        raise
    except BaseException as exc:
        _record_end(run_dir, status=f"failed: {exc}", wall_time_s=clock.elapsed(), **prov)
        raise
    if not isinstance(summary, RunSummary):
        summary = RunSummary(status="ok")
    summary.extra.setdefault("wall_time_s", clock.elapsed())
    write_provenance(run_dir, status=summary.status, wall_time_s=clock.elapsed(),
                     **{**prov, "extra": {**prov.get("extra", {}), "summary": asdict(summary)}})
    return summary


def _identity(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, mtime) of a file, None when absent: a checkpoint rewritten (atomically) has another."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _record_end(run_dir: Path, **kwargs: Any) -> None:
    """provenance.json of a run that ends with an exception; when even that cannot be written (a full disk) the
    record keeps saying "running" and one warning says why (the exception itself is reported by the caller)."""
    try:
        write_provenance(run_dir, **kwargs)
    except OSError as exc:  # no room for the temporary file: overwrite in place (the old record's blocks are freed)
        try:
            text = dumps_json(provenance(**kwargs))
            with open(run_dir / "provenance.json", "r+", encoding="utf-8") as fh:
                fh.truncate(0)
                fh.write(text)
        except OSError:
            logger.warning("provenance.json not updated (%s); it still says 'running'", exc.strerror or exc)


def _resume_target(args: argparse.Namespace) -> tuple[dict[str, Any], Path, Path]:
    """(case, source, run_dir) of ``--resume RUN_DIR``: the run folder's resolved case.toml."""
    run_dir = Path(args.resume)
    if args.case or args.overrides or args.out or args.force:
        raise ValueError("--resume RUN_DIR takes no CASE, --set, --out or --force: it continues that run as it was")
    if not (run_dir / "case.toml").is_file():
        raise ValueError(f"--resume {run_dir}: no case.toml there; give the folder of a run to continue")
    if not (run_dir / CHECKPOINT).is_file():
        raise ValueError(f"--resume {run_dir}: no {CHECKPOINT} there (the run stopped before its first checkpoint, "
                         "was static, or was written by an older lgbeam): nothing to continue; rerun the case")
    case, source = load_case(str(run_dir / "case.toml"))
    return case, source, run_dir


def _run_case_command(args: argparse.Namespace) -> int:
    if args.resume is not None:
        case, source, run_dir = _resume_target(args)
    else:
        if not args.case:
            raise ValueError("lgbeam run needs a CASE (see `lgbeam list`) or --resume RUN_DIR")
        case, source = load_case(args.case, args.overrides)
        fresh = args.out is None or not Path(args.out).exists()
        run_dir = make_run_dir(str(case.get("name") or source.stem), args.out, force=args.force)
    def report(summary: RunSummary) -> None:  # a run that ends ok says so before its figures are drawn
        if summary.status == "ok":
            print(_summary_line(case, source, run_dir, summary))
            for more in summary.extra.get("lines", []):  # what the analysis adds (a frame's Richardson correction)
                print(more)
            sys.stdout.flush()

    try:
        summary = run_case(case, source, run_dir, progress=not args.quiet, figures=not args.no_figures,
                           resume=args.resume is not None, report=report)
    except KeyboardInterrupt as exc:
        summary = RunSummary(status="interrupted",
                             extra={"signal": signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT})
    except ValueError:
        # a user error found once the model is built (a bad value, a refused size): a folder this command
        # created holds nothing of value, so it goes; an existing or resumed folder is left as it was
        if args.resume is None and fresh:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if summary.status == "interrupted":  # the driver catches SIGINT/SIGTERM between steps and returns this
        sig = summary.extra.get("signal", signal.SIGINT)
        then = (f"continue with `lgbeam run --resume {run_dir}`" if (run_dir / CHECKPOINT).is_file() else
                "it stopped before its first checkpoint, so there is nothing to resume: run the case again")
        print(f"lgbeam run: interrupted by {signal.Signals(sig).name}; everything written so far is valid and is in "
              f"{run_dir}; {then}", file=sys.stderr)
        return EXIT_TERMINATED if sig == signal.SIGTERM else EXIT_INTERRUPTED
    if summary.status != "ok":
        line = _summary_line(case, source, run_dir, summary)
        print(f"lgbeam run: {line}{': ' + summary.message if summary.message else ''}", file=sys.stderr)
        return 1
    return 0


def _summary_line(case: dict[str, Any], source: Path, run_dir: Path, summary: RunSummary) -> str:
    return (f"{case.get('name', source.stem)}: {summary.status}; t = {summary.t_final:.6g}, "
            f"{summary.n_steps} steps ({summary.n_rejected} rejected); output in {run_dir}")
