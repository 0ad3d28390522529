"""Parameter studies and sweeps: a grid of case variations run as Dask tasks, gathered into one CSV.

``lgbeam study`` and ``lgbeam sweep`` are thin front ends of this module::

    plan = plan_study("heavy-top", overrides, [("integrator.h", [4e-3, 2e-3])], reference=["integrator.h=1e-4"])
    study_dir, reused = open_study_dir(plan, out, force=False)
    result = run_study(plan, study_dir, execute, scheduler=None, jobs=2)

The grid is the Cartesian product of the ``--vary`` keys (first key varies slowest). Every point is one
run in its own folder ``<study>/runs/<label>/`` (``label`` = ``key=value`` pairs joined by ``,``; the
reference run, when it is not a grid point, in ``runs/reference/``), written by ``execute(RunSpec)``
(the command line passes ``lgbeam run``'s ``run_case``). The runs are tasks of
``lgbeam.studies.parallel.run_tasks``: a local Dask cluster by default, or ``--scheduler``; a run that
raises or whose worker dies is tried once more (on a working worker: the killed one is restarted by its
nanny), and a run that fails twice is a row with status ``failed: ...``, never the end of the study. A
retried run's row says so in its ``note`` (``tried 2 times; try 1 failed: KilledWorker: its worker process
died while running it``), and provenance.json lists it under ``study.retried``.

An interrupt (SIGINT, or SIGTERM through ``lgbeam study``) stops the study promptly: the runs in flight are
stopped between two steps and their folders say ``interrupted``, no further run starts, provenance.json
says ``interrupted``; rerunning the same command does the runs that are not complete.

**Complete runs are not run again.** A run folder is *complete* (``is_complete``) when

1. its ``provenance.json`` reads as JSON and its ``status`` is a final status of the driver: any
   ``lgbeam.integrators.base.Status`` code except ``interrupted`` (so ``ok``, ``h_min``, ``nonfinite``, ...;
   not ``running``, ``interrupted`` or ``failed: ...``);
2. its ``solution.npz`` opens as an npz archive (a truncated file does not);
3. its ``case.toml`` equals the resolved case of the point (a rerun with another ``--set`` reruns it);
4. no live process holds its ``.lock``.

A rerun of a study into the same ``--out`` therefore does only the runs that are missing, incomplete
or changed (none for a finished study: no cluster is even started). Without ``--out`` every study
gets a fresh folder ``outputs/<case>/study-<YYYYmmdd-HHMMSS>/``.

Outputs in the study folder: ``study.json`` (the plan), ``study.csv`` (one row per grid point: the
varied keys, error norms against the reference when there is one, wall time, steps, status,
``attempts`` (0: complete from an earlier invocation) and ``note``), the order plot ``study.png``
(log-log errors against the first varied key with fitted slopes, ``lgbeam.io.plots.plot_study``; one
``study-<other keys>.png`` per combination of the other keys), the work–precision view ``study-work.png``
(errors against steps and wall time) and ``provenance.json``. ``--quantity`` values add ``refinement*.csv/png``
(``lgbeam.studies.study_refinement``).
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import APPS, get_app, load_case
from lgbeam.integrators.base import Status
from lgbeam.io.atomic import RunLock
from lgbeam.io.cases import dumps_toml, parse_value
from lgbeam.io.run import Stopwatch, make_run_dir, write_json, write_provenance
from lgbeam.io.schema import CaseError
from lgbeam.studies.parallel import TaskOutcome, run_tasks
from lgbeam.studies.plan import REFERENCE, StudyPlan, point_label, write_csv
from lgbeam.studies.quantities import columns as quantity_columns
from lgbeam.studies.quantities import evaluate, parse_quantity
from lgbeam.studies.study_refinement import analyse

logger = logging.getLogger(__name__)

__all__ = [
    "COMPLETE_STATUSES",
    "REFERENCE",
    "RunSpec",
    "StudyPlan",
    "StudyResult",
    "format_table",
    "is_complete",
    "open_study_dir",
    "parse_vary",
    "plan_study",
    "run_study",
    "write_csv",
]

COMPLETE_STATUSES = frozenset(str(s) for s in Status) - {str(Status.INTERRUPTED)}


def parse_vary(text: str, min_values: int = 2) -> tuple[str, list[Any]]:
    """``"integrator.h=1e-2,5e-3"`` → ``("integrator.h", [0.01, 0.005])`` (values as TOML literals)."""
    key, sep, vals = text.partition("=")
    values = [parse_value(v.strip()) for v in vals.split(",") if v.strip()]
    if not sep or not key.strip() or len(values) < min_values:
        need = "two values" if min_values == 2 else f"{min_values} value(s)"
        raise CaseError(f"--vary expects KEY=V1,V2,... with at least {need}, e.g. integrator.h=1e-2,5e-3; "
                        f"got {text!r}")
    return key.strip(), values


def _literal(value: Any) -> str:
    return dumps_toml({"v": value}).split("=", 1)[1].strip()


@dataclass(frozen=True)
class RunSpec:
    """One run of a study, as shipped to a worker: the resolved case and its run folder."""

    label: str
    kind: str
    app_module: str  # the parent's APPS entry (a test may have registered its own app)
    case: dict[str, Any]
    source: str
    run_dir: str

    def register_app(self) -> None:
        """Make the parent's app registry entry visible in this (worker) process."""
        APPS[self.kind] = self.app_module


def plan_study(case: str | Path, overrides: list[str], varies: list[tuple[str, list[Any]]],
               reference: list[str] | None, default_reference: bool, *, quantities: list[str] | None = None,
               against: str = "reference", formal_order: float | None = None,
               exact: list[str] | None = None) -> StudyPlan:
    """Validate every run of the grid before anything runs; ``CaseError``/``ValueError`` on bad input.

    ``reference``: ``KEY=VALUE`` overrides of a separate reference run; none and ``default_reference``:
    the last value of the (single) varied key is the reference. ``quantities``: ``--quantity`` texts
    (``lgbeam.studies.quantities``), analysed along the first varied key; ``against="richardson"`` measures
    their errors against Richardson's estimate and needs no reference run; ``exact``: ``Q=VALUE`` texts (a number
    or a TOML array) giving a quantity's exact value (errors against it too; ``against="exact"`` plots them).
    """
    if not varies:
        raise ValueError("give at least one --vary KEY=V1,V2,...")
    if against not in ("reference", "richardson", "exact"):
        raise ValueError(f"--against must be reference, richardson or exact, got {against!r}")
    parsed = tuple(parse_quantity(q) for q in quantities or [])
    texts = [q.text for q in parsed]
    if len(set(texts)) < len(texts):
        raise ValueError(f"--quantity {next(t for t in texts if texts.count(t) > 1)} given twice")
    exact_values = _exact_values(exact or [], texts)
    if against == "exact" and (not parsed or set(exact_values) != set(texts)):
        missing = [t for t in texts if t not in exact_values]
        raise ValueError("--against exact needs --exact Q=VALUE for every --quantity"
                         + (f"; missing: {', '.join(missing)}" if missing else ""))
    if against in ("richardson", "exact"):
        if not parsed:
            raise ValueError(f"--against {against} measures the --quantity values; give at least one --quantity")
        key0, vals0 = varies[0]
        if against == "richardson" and len(vals0) < 3 and formal_order is None:
            raise ValueError(f"Richardson's estimate needs three {key0} values for an observed order (or two and "
                             "--formal-order P)")
        default_reference = False
    if formal_order is not None and not (math.isfinite(formal_order) and formal_order > 0):
        raise ValueError(f"--formal-order must be a positive number, got {formal_order}")
    keys = [k for k, _ in varies]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        raise ValueError(f"--vary {dup[0]} given twice; give each key once with all its values")
    base, source = load_case(case, overrides)
    name = str(base.get("name") or Path(source).stem)
    points = []
    for values in itertools.product(*(vals for _, vals in varies)):
        point = dict(zip(keys, values))
        ovs = [*overrides, *(f"{k}={_literal(v)}" for k, v in point.items())]
        points.append((point_label(point), point, load_case(source, ovs)[0]))
    if len({p[0] for p in points}) < len(points):
        raise ValueError("two grid points have the same label; give distinct --vary values")
    ref_label, ref_case = None, None
    for r in reference or []:
        if "=" not in r:
            raise CaseError(f"--reference expects KEY=VALUE, e.g. integrator.h=1e-5; got {r!r}")
    if reference:
        ref_label, ref_case = REFERENCE, load_case(source, [*overrides, *reference])[0]
    elif default_reference:
        if len(varies) > 1:
            raise ValueError("with several --vary keys give the reference run: --reference KEY=VALUE "
                             "(or `lgbeam sweep` for a grid without errors)")
        ref_label = points[-1][0]
    return StudyPlan(name, Path(source), list(overrides), varies, points, ref_label, ref_case, list(reference or []),
                     parsed, against, formal_order, exact_values)


def _exact_values(texts: list[str], quantities: list[str]) -> dict[str, Any]:
    """``["position(s=1.0)[z]=-2.021e-3"]`` → {quantity text: value}: the value follows the last ``=``."""
    out: dict[str, Any] = {}
    for text in texts:
        q, sep, v = text.rpartition("=")
        if not sep or not q.strip() or not v.strip():
            raise CaseError(f"--exact expects Q=VALUE, e.g. 'position(s=1.0)[z]=-2.021e-3'; got {text!r}")
        name = parse_quantity(q).text
        if name not in quantities:
            raise CaseError(f"--exact {text!r}: {name} is not one of the --quantity values ({', '.join(quantities)})")
        value = parse_value(v.strip())
        arr = np.asarray(value, dtype=float) if not isinstance(value, str) else np.array(np.nan)
        if not np.all(np.isfinite(arr)):
            raise CaseError(f"--exact {text!r}: the value must be a number or an array of numbers, got {v.strip()!r}")
        out[name] = arr
    return out


def open_study_dir(plan: StudyPlan, out: Path | None, *, force: bool) -> tuple[Path, bool]:
    """(study folder, reused): an existing study folder given as ``--out`` is reused (its complete runs are
    kept) unless ``force``; anything else goes through ``make_run_dir`` (fresh folder or ``--force``)."""
    if out is not None and not force and (Path(out) / "study.json").is_file():
        return Path(out), True
    folder = make_run_dir(plan.name, out, force=force, prefix="study-")
    return folder, False


def is_complete(run_dir: Path, case: dict[str, Any]) -> bool:
    """True when ``run_dir`` holds a finished run of ``case`` (the four conditions of the module docstring)."""
    run_dir = Path(run_dir)
    try:
        status = json.loads((run_dir / "provenance.json").read_text(encoding="utf-8")).get("status")
        with np.load(run_dir / "solution.npz", allow_pickle=False) as z:
            z.files  # noqa: B018 - reads the archive's directory: a truncated file raises
        written = tomllib.loads((run_dir / "case.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, tomllib.TOMLDecodeError, AttributeError):
        return False
    locked = (run_dir / RunLock.NAME).exists() and not RunLock.is_stale(run_dir)
    return status in COMPLETE_STATUSES and written == case and not locked


def _previous(run_dir: Path) -> dict[str, Any]:
    """The row values of a complete run from its provenance.json."""
    prov = json.loads((run_dir / "provenance.json").read_text(encoding="utf-8"))
    summ = prov.get("summary", {})
    return {"status": prov["status"], "steps": summ.get("n_steps", 0), "rejected": summ.get("n_rejected", 0),
            "wall_time_s": float(prov.get("wall_time_s", 0.0))}


@dataclass
class StudyResult:
    rows: list[dict[str, Any]]
    orders: dict[str, Any]
    reference_ok: bool
    all_ok: bool
    n_ran: int
    reference_status: str | None = None
    refinement: list[dict[str, Any]] = field(default_factory=list)  # the quantities' summaries
    retried: dict[str, list[str]] = field(default_factory=dict)  # label -> why each earlier try failed


def run_study(plan: StudyPlan, study_dir: Path, execute: Callable[[RunSpec], dict[str, Any]], *,
              scheduler: str | None = None, jobs: int | None = None, progress: bool = False,
              client: Any = None) -> StudyResult:
    """Run the plan's missing runs as tasks, then write study.csv, the order plot and provenance.json.

    ``execute(spec)`` runs one case into ``spec.run_dir`` and returns ``{"status", "steps", "rejected",
    "wall_time_s"}``; it runs in the workers, so it must be a module-level function.
    """
    clock = Stopwatch()
    runs_dir = study_dir / "runs"
    with RunLock(study_dir):
        runs_dir.mkdir(exist_ok=True)
        write_json(study_dir / "study.json", {"case": plan.name, "source": str(plan.source),
                                              "overrides": plan.overrides, "vary": plan.varies,
                                              "reference": plan.reference_overrides})
        write_provenance(study_dir, status="running", wall_time_s=0.0, started=clock.started, case_name=plan.name)
        kind = plan.points[0][2]["kind"]
        results: dict[str, dict[str, Any]] = {}
        todo: list[RunSpec] = []
        for label, case in plan.runs():
            if is_complete(runs_dir / label, case):
                results[label] = {**_previous(runs_dir / label), "attempts": 0, "note": "complete before; not rerun"}
            else:
                todo.append(RunSpec(label, kind, APPS[kind], case, str(plan.source), str(runs_dir / label)))
        if results:
            logger.info("%d of %d runs are complete from before; running %d", len(results), len(plan.runs()),
                        len(todo))
        try:
            outcomes = run_tasks(execute, todo, scheduler=scheduler, jobs=jobs, retries=1, progress=progress,
                                 desc=f"{plan.name} runs", client=client, label=lambda spec: spec.label) if todo else []
        except KeyboardInterrupt:
            write_provenance(study_dir, status="interrupted", wall_time_s=clock.elapsed(), started=clock.started,
                             case_name=plan.name)
            raise
        for spec, o in zip(todo, outcomes):
            results[spec.label] = _row_values(o)
        return _report(plan, study_dir, results, clock, n_ran=len(todo))


def _row_values(o: TaskOutcome) -> dict[str, Any]:
    """A run's row values; a retried run's note says why each earlier try failed."""
    note = "" if o.attempts == 1 else "; ".join([f"tried {o.attempts} times",
                                                  *(f"try {k} failed: {e}" for k, e in enumerate(o.history, 1))])
    retried = {"retried": list(o.history)} if o.history else {}
    if o.ok:
        return {**o.value, "attempts": o.attempts, "note": note, **retried}
    return {"status": f"failed: {o.error}", "steps": 0, "rejected": 0, "wall_time_s": float("nan"),
            "attempts": o.attempts, "note": note, **retried}


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _report(plan: StudyPlan, study_dir: Path, results: dict[str, dict[str, Any]], clock: Stopwatch,
            n_ran: int) -> StudyResult:
    runs_dir = study_dir / "runs"
    ref = None
    if plan.reference is not None and results[plan.reference]["status"] == "ok":
        ref = _load_npz(runs_dir / plan.reference / "solution.npz")
    app = get_app(plan.points[0][2]["kind"])
    values: dict[str, dict[str, np.ndarray]] = {}
    bad: CaseError | None = None
    for label, _ in plan.runs():
        if plan.quantities and results[label]["status"] == "ok" and bad is None:
            try:
                values[label] = {q.text: evaluate(q, runs_dir / label) for q in plan.quantities}
            except (ValueError, OSError, KeyError) as exc:  # a quantity the runs do not have (CaseError is a
                # ValueError), a free structure's frequency, a missing file: the runs are kept, study.csv written
                bad = CaseError(f"{exc} (run {label}); the runs are kept: rerun with --out {study_dir} and a "
                                "corrected --quantity")
    rows, err_keys = [], []
    for label, point, _ in plan.points:
        res = results[label]
        row: dict[str, Any] = dict(point)
        if ref is not None and res["status"] == "ok":
            errs = app.errors(_load_npz(runs_dir / label / "solution.npz"), ref)
            row.update({k: float(e) for k, e in errs.items()})
            err_keys += [k for k in errs if k not in err_keys]
        if label in values:
            for q in plan.quantities:
                row.update(quantity_columns(q, values[label][q.text]))
        row.update({k: res[k] for k in ("wall_time_s", "steps", "status", "attempts", "note")})
        if label == plan.reference:
            row["status"] += " (reference)"
        rows.append(row)
    if plan.reference == REFERENCE and REFERENCE in values:
        rows.append({"run": REFERENCE, **{c: v for q in plan.quantities
                                          for c, v in quantity_columns(q, values[REFERENCE][q.text]).items()},
                     "status": results[REFERENCE]["status"] + " (reference)"})
    write_csv(study_dir / "study.csv", rows)
    if bad is not None:
        write_provenance(study_dir, status="quantity error", wall_time_s=clock.elapsed(), started=clock.started,
                         case_name=plan.name, extra={"study": {"error": str(bad)}})
        raise bad
    orders = _orders(plan, rows, err_keys, study_dir) if ref is not None else {}
    refinement = analyse(plan, study_dir, values) if plan.quantities else []
    ref_ok = plan.reference is None or ref is not None
    all_ok = all(r["status"] == "ok" for r in results.values())
    retried = {k: r["retried"] for k, r in results.items() if r.get("retried")}
    write_provenance(study_dir, status="ok" if ref_ok else "no reference", wall_time_s=clock.elapsed(),
                     started=clock.started, case_name=plan.name,
                     extra={"study": {"vary": plan.varies, "reference": plan.reference, "orders": orders,
                                      "quantities": [q.text for q in plan.quantities], "against": plan.against,
                                      "refinement": refinement, "runs": len(results), "ran": n_ran,
                                      "failed": sorted(k for k, r in results.items() if r["status"] != "ok"),
                                      "retried": retried}})
    ref_status = results[plan.reference]["status"] if plan.reference is not None else None
    return StudyResult(rows, orders, ref_ok, all_ok, n_ran, ref_status, refinement, retried)


def _orders(plan: StudyPlan, rows: list[dict[str, Any]], err_keys: list[str], study_dir: Path) -> dict[str, Any]:
    """Fitted slopes along the first varied key, one fit (and picture) per combination of the other keys."""
    from lgbeam.io.plots import plot_study, plot_work_precision

    key, values = plan.varies[0]
    if not err_keys or len(values) < 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                  for v in values):
        return {}
    others = [k for k, _ in plan.varies[1:]]
    groups: dict[str, list[dict[str, Any]]] = {}
    for (label, point, _), row in zip(plan.points, rows):
        if label != plan.reference:
            groups.setdefault(point_label({k: point[k] for k in others}), []).append(row)
    out: dict[str, Any] = {}
    for combo, grp in groups.items():
        png = study_dir / ("study.png" if not combo else f"study-{combo}.png")
        case0 = plan.points[0][2]
        title = f"{plan.name}: {case0.get('integrator', {}).get('method', '')}" + (f" ({combo})" if combo else "")
        fitted = plot_study(grp, key, err_keys, png, title=title)
        plot_work_precision(grp, err_keys, png.with_name(png.stem + "-work.png"), title=title)
        out[combo] = {k: (o if math.isfinite(o) else None) for k, o in fitted.items()}
    return out[""] if list(out) == [""] else out


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
