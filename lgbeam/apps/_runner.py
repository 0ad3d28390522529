"""The one runner of every case kind: a case's ``problem(case)`` gives a ``Problem`` (system, initial state,
ParaView frame, solution arrays); ``run_problem`` integrates it through ``lgbeam.solve.integrate`` with the
case's integrator, time and output sections, and writes the run folder:

    solution.npz        what ``Problem.arrays(sol)`` returns (the app's own keys), written atomically
    diagnostics.csv     one row per attempted step, streamed (memory does not grow with the step count)
    paraview/<name>.pvd (+ frames)   every output time, valid at any moment (``PVDSeries``); rods and frames
                        also paraview/<name>-edges.pvd (per-edge cells, ``output.edge_data``)
    checkpoint.npz      the driver's full loop state and the saved frames, rewritten atomically every
                        ``output.checkpoint_seconds`` of wall time or ``output.checkpoint_steps`` steps: data
                        only (``lgbeam.io.datafile``: arrays + one JSON document, never a pickle), with the
                        checkpoint format, the lgbeam version and commit, the resolved case and a digest of
                        the initial state (the mesh)

``resume=True`` continues a killed or interrupted run from its checkpoint: the ParaView series, the
diagnostics and the solution are truncated to the checkpoint and appended to, and the run ends on the
same state as an uninterrupted one, bit for bit. A checkpoint is refused, in one line naming the first
difference, when its format, lgbeam version or commit, its case (except ``RESUMABLE_KEYS``: ``time.t_end``
may grow, the step cap, checkpoint and size limits may change) or its initial state differ from the run
folder's case.toml as rebuilt now. The checkpoint is read lazily within ``output.max_memory_gb``
(``lgbeam.io.datafile``) and its loop state checked field by field (types, finite times, a positive step, the
state's shapes against the model's) before any file of the folder is touched; whatever a damaged or forged
checkpoint raises is refused in one line. SIGINT/SIGTERM end the run between steps with every
file written (status "interrupted", ``extra["signal"]``).

Before anything is integrated the memory and disk the output will need are estimated and refused above
``output.max_memory_gb`` / ``output.max_disk_gb`` (the message gives the estimate and the keys to change).
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from lgbeam._version import __version__
from lgbeam.apps import CHECKPOINT, RunSummary
from lgbeam.integrators.controllers import PI_BETA, AdaptiveStep, ConstantStep
from lgbeam.integrators.registry import make_method, method_entry
from lgbeam.io.atomic import atomic_write, open_in_place
from lgbeam.io.datafile import read_data, write_data
from lgbeam.io.progress import Progress
from lgbeam.io.run import git_info
from lgbeam.io.vtk import Frame, PVDSeries
from lgbeam.solve import SaveAt, Solution, check_compatible, integrate
from lgbeam.solve.driver import Checkpointing, LoopState
from lgbeam.solve.driver import stack_states as _stack
from lgbeam.solve.record import CSVRecord
from lgbeam.systems import MechanicalState

logger = logging.getLogger(__name__)

CHECKPOINT_FORMAT = 2  # 1: checkpoint.pkl (a pickle; never read now)
LEGACY_CHECKPOINT = "checkpoint.pkl"
RESUMABLE_KEYS = (
    "time.t_end",
    "integrator.max_steps",
    "output.checkpoint_seconds",
    "output.checkpoint_steps",
    "output.max_memory_gb",
    "output.max_disk_gb",
    "output.max_frames",
)  # may differ on a resume
GIB = 1024**3
SystemT = TypeVar("SystemT")  # the app's system (CosseratRod, Structure, NLS, ...); ``Problem`` alone: any


@dataclass(frozen=True)
class Problem(Generic[SystemT]):
    """What an app's ``problem(case)`` hands the runner.

    ``frame(y)`` is the ParaView frame of a state; ``arrays(sol)`` the arrays of solution.npz;
    ``summary(sol)`` extra figures for provenance.json (``sol.summary`` holds the per-column statistics of
    the diagnostics); ``diagnostics`` True (the method's own), False or ``fn(t, y) -> dict``;
    ``method_options`` extra options for ``make_method`` (e.g. projections); ``work_bytes`` the working
    memory the integration needs besides the saved frames (for the up-front estimate).
    """

    system: SystemT  # the method's protocols are checked at the door (``check_compatible``)
    y0: Any
    frame: Callable[[Any], Frame]
    arrays: Callable[[Solution], dict[str, Any]]
    summary: Callable[[Solution], dict[str, Any]] = lambda sol: {}
    diagnostics: Any = True
    method_options: dict[str, Any] = field(default_factory=dict)
    work_bytes: float = 0.0


def controller_of(
    integ: dict[str, Any], span: tuple[float, float] | None = None
) -> ConstantStep | AdaptiveStep:
    """The step-size controller of a case's ``integrator`` table, by ``integrator.controller``:

    ``auto`` (default): ConstantStep(integrator.h) when h is given, else the plain adaptive rule; ``constant``:
    ConstantStep(h) (h required); ``i``: AdaptiveStep(integrator.rtol, integrator.atol); ``pi``: the same with
    the PI rule, β = integrator.beta; ``seed``: seed 000's controller (33), absolute tolerance integrator.atol
    on the 2-norm of the embedded difference, θ = 0.85, α = 1/4, first step (t_end − t0)/100 of the ``span``
    (``lgbeam.integrators.lie.seed_controller``). ``i``, ``pi`` and ``seed`` ignore h, so
    ``--set integrator.controller=pi`` makes a fixed-step case adaptive.
    """
    rule = integ.get("controller", "auto")
    if rule not in ("auto", "constant", "i", "pi", "seed"):
        raise ValueError(
            f"integrator.controller must be 'auto', 'constant', 'i', 'pi' or 'seed', got {rule!r}"
        )
    if rule == "seed":
        from lgbeam.integrators.lie import seed_controller

        if integ.get("atol") is None:
            raise ValueError(
                "integrator.controller = 'seed' needs an absolute tolerance integrator.atol (e.g. 1e-6)"
            )
        return seed_controller(float(integ["atol"]), h0=None if span is None else (span[1] - span[0]) / 100)
    h = integ.get("h")
    if rule == "constant" or (rule == "auto" and h is not None):
        if h is None:
            raise ValueError("integrator.controller = 'constant' needs a step size integrator.h (e.g. 1e-3)")
        return ConstantStep(h)
    if integ.get("rtol") is None or integ.get("atol") is None:
        raise ValueError("adaptive stepping needs integrator.rtol and integrator.atol (e.g. 1e-6, 1e-8), "
                         "or give a fixed step integrator.h")
    if h is not None:
        logger.info("integrator.controller = %r: adaptive steps, integrator.h = %g is not used", rule, h)
    beta = float(integ.get("beta", PI_BETA)) if rule == "pi" else 0.0
    return AdaptiveStep(rtol=integ["rtol"], atol=integ["atol"], beta=beta)


def fixed_if_no_estimate(controller: ConstantStep | AdaptiveStep, method: Any,
                         integ: dict[str, Any]) -> ConstantStep | AdaptiveStep:
    """A case whose controller adapts the step (e.g. ``controller = "seed"``) run with a method that has no
    error estimate: the constant step ``integrator.h`` when it is given (one warning naming the keys);
    without h the driver refuses the run."""
    if not controller.adaptive or method.error_order is not None or integ.get("h") is None:
        return controller
    logger.warning(
        "method %r has no error estimate, so integrator.controller = %r cannot adapt its step: it runs "
        "with the constant step integrator.h = %g",
        method.name,
        integ.get("controller", "auto"),
        integ["h"],
    )
    return ConstantStep(integ["h"])


def _nbytes(y: Any) -> int:
    arrays = y.arrays() if isinstance(y, MechanicalState) else (y,)
    return int(sum(np.asarray(a).nbytes for a in arrays))


def frame_bytes(frame: Any, edges: bool = True) -> float:
    """Upper estimate of a frame's file size: 1.4 × its raw arrays (points, cells, point, cell and field
    data; zlib and then base64 give at most 4/3 of them) plus the XML, 1 kB a file and 256 B an array
    (measured about 190); with ``edges``, a ``PolyFrame``'s edges file too."""
    def raw(a: Any) -> int:
        if isinstance(a, (list, tuple)):
            return sum(len(x) if isinstance(x, str) else raw(x) for x in a)
        return int(np.asarray(a).nbytes)

    arrays = [
        frame.points,
        *(c for _, c in frame.cells),
        *frame.point_data.values(),
        *frame.cell_data.values(),
        *getattr(frame, "field_data", {}).values(),
    ]
    size = 1.4 * sum(map(raw, arrays)) + 1024.0 + 256.0 * (len(arrays) + 1)
    sub = getattr(frame, "edges", None)
    return size + (frame_bytes(sub) if edges and sub is not None else 0.0)


def check_budget(case: dict[str, Any], problem: Problem) -> dict[str, float]:
    """Estimate the memory and disk of the run; ValueError above ``output.max_memory_gb``/``max_disk_gb``."""
    tm, out = case["time"], case["output"]
    if not out["every"] >= 0:
        raise ValueError(
            f"output.every must be a time interval > 0 (or 0: every accepted step), got {out['every']!r}"
        )
    integ = case["integrator"]
    fixed = integ.get("h") is not None and integ.get("controller", "auto") in ("auto", "constant")
    if out["every"] > 0:
        n_frames = math.floor((tm["t_end"] - tm["t0"]) / out["every"]) + 2
    elif fixed:  # every step of a constant step size
        n_frames = math.ceil((tm["t_end"] - tm["t0"]) / integ["h"] * (1 - 1e-12)) + 1
    else:  # every step of an adaptive run: at most max_steps
        n_frames = int(integ.get("max_steps", 10**6)) + 1
    state = _nbytes(problem.y0)
    frame = problem.frame(problem.y0) if out["vtk"] else None
    vtu = 0.0 if frame is None else frame_bytes(frame, edges=out.get("edge_data", True))
    memory = n_frames * state + problem.work_bytes
    disk = n_frames * (
        vtu + 3 * state
    )  # solution.npz: states, positions, rotations, reactions, resultants (2.3×)
    est = {"frames": float(n_frames), "memory_gb": memory / GIB, "disk_gb": disk / GIB}
    if n_frames > out.get("max_frames", math.inf):
        if out["every"] == 0 and not fixed:
            raise ValueError(
                f"output.every = 0 saves every accepted step: up to integrator.max_steps + 1 = {n_frames} output "
                f"times, above output.max_frames = {out['max_frames']}; lower integrator.max_steps, give an "
                "output interval output.every > 0, or raise output.max_frames"
            )
        raise ValueError(
            f"this run would save {n_frames} output times (every {out['every']:g} from {tm['t0']:g} to "
            f"{tm['t_end']:g}), above output.max_frames = {out['max_frames']}; raise output.every or "
            "output.max_frames")
    if memory > out["max_memory_gb"] * GIB:
        raise ValueError(
            f"this run would need about {memory / GIB:.3g} GiB of memory ({n_frames} saved frames of "
            f"{state / 1024**2:.3g} MiB plus {problem.work_bytes / GIB:.3g} GiB to integrate), above "
            f"output.max_memory_gb = {out['max_memory_gb']:g}; raise output.every, reduce the mesh, or raise "
            "output.max_memory_gb")
    if disk > out["max_disk_gb"] * GIB:
        raise ValueError(
            f"this run would write about {disk / GIB:.3g} GiB ({n_frames} frames), above output.max_disk_gb = "
            f"{out['max_disk_gb']:g}; raise output.every, set output.vtk = false, or raise output.max_disk_gb"
        )
    return est


def check_work(case: dict[str, Any], work_bytes: float, what: str,
               advice: str = "use a coarser mesh (model.n_elements)") -> None:
    """Refuse, before anything is built, a model whose working memory alone exceeds output.max_memory_gb."""
    limit = case["output"]["max_memory_gb"]
    if work_bytes > limit * GIB:
        raise ValueError(f"{what} needs about {work_bytes / GIB:.3g} GiB of memory, above "
                         f"output.max_memory_gb = {limit:g}; {advice} or raise output.max_memory_gb")


def load_checkpoint(run_dir: Path, max_bytes: float = 8 * GIB) -> dict[str, Any]:
    """The checkpoint of a run folder (``--resume``); ValueError when there is none, it is unreadable, its
    arrays declare more than ``max_bytes`` or its loop state is not one the driver wrote
    (``check_loop_state``). Only data is read (``lgbeam.io.datafile``); a legacy ``checkpoint.pkl`` is
    refused without being opened."""
    path = Path(run_dir) / CHECKPOINT
    if not path.is_file():
        if (Path(run_dir) / LEGACY_CHECKPOINT).exists():
            raise ValueError(
                f"{run_dir} holds a {LEGACY_CHECKPOINT} of an older lgbeam (a pickle, which is never "
                "loaded: it could run code); rerun the case"
            )
        raise ValueError(
            f"{run_dir} has no {CHECKPOINT}: it was not written by a run that can be resumed (or it "
            "stopped before its first checkpoint); rerun the case"
        )
    try:
        data = read_data(path, max_bytes=max_bytes)
    except ValueError as exc:
        raise ValueError(
            f"{exc}; the checkpoint is damaged or was not written by lgbeam: rerun the case"
        ) from None
    if not (isinstance(data, dict) and isinstance(data.get("identity"), dict)
            and isinstance(data.get("state"), LoopState)):
        raise ValueError(f"{path} is not an lgbeam checkpoint; rerun the case")  # noqa: TRY004 - a user error: exit 2
    try:
        check_loop_state(data["state"], data.get("times"))
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}; the file is damaged or was edited: rerun the case") from None
    return data


_REALS = (
    "err_prev",
    "h_first",
    "h_last",
    "h_smallest",
    "h_largest",
    "energy_ref",
    "mass_ref",
    "energy0",
    "content0",
    "work",
    "work_abs",
    "power",
)  # LoopState's float fields (NaN/inf allowed: "not measured yet")
_COUNTS = ("k_grid", "k_save", "n_acc", "n_rej", "n_eval", "n_iter")


def _is_real(x: Any) -> bool:
    """A float, or an int a float holds exactly (a forged 10⁴⁰⁰ would overflow in the driver's arithmetic)."""
    return isinstance(x, float) or (isinstance(x, int) and not isinstance(x, bool) and abs(x) < 2**53)


def check_loop_state(state: LoopState, times: Any, y0: Any = None) -> None:
    """ValueError naming the field unless ``state`` (and the saved ``times``) is what the driver checkpoints:
    ``t`` finite, ``h`` finite > 0, counters integers >= 0, the other scalars real numbers, ``y`` a state of
    finite numbers (with ``y0``'s shapes when given), the record's columns, row count and statistics consistent,
    ``times`` a non-decreasing 1-D array of finite times not after ``t``."""
    if not isinstance(state.method, str):
        raise ValueError(f"state.method must be a method name, got {state.method!r}")  # noqa: TRY004 - a file's content
    if not (_is_real(state.t) and math.isfinite(state.t)):
        raise ValueError(f"state.t must be a finite time, got {state.t!r}")
    if not (_is_real(state.h) and math.isfinite(state.h) and state.h > 0):
        raise ValueError(f"state.h must be a finite step > 0, got {state.h!r}")
    if not isinstance(state.after_reject, bool):
        raise ValueError(f"state.after_reject must be true or false, got {state.after_reject!r}")  # noqa: TRY004 - a file's content
    for name in _REALS:
        if not _is_real(getattr(state, name)):
            raise ValueError(f"state.{name} must be a number, got {getattr(state, name)!r}")
    for name in _COUNTS:
        v = getattr(state, name)
        if not (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**53):
            raise ValueError(f"state.{name} must be a count (an integer >= 0), got {v!r}")
    _check_y(state.y, y0, "state.y", stacked=None)
    _check_record(state.record)
    if not (isinstance(times, np.ndarray) and times.ndim == 1 and times.dtype.kind in "fi"
            and bool(np.all(np.isfinite(times))) and bool(np.all(np.diff(times) >= 0))
            and (times.size == 0 or times[-1] <= state.t)):
        raise ValueError("times must be the non-decreasing output times up to state.t")


def _check_y(y: Any, y0: Any, what: str, stacked: int | None) -> None:
    """``y`` a state the driver carries (an array or a MechanicalState of finite numbers), shaped like ``y0``
    (with a leading axis of ``stacked`` saved states when given)."""
    lead = () if stacked is None else (stacked,)
    if isinstance(y, MechanicalState):
        parts = {"q": y.q, "v": y.v} | ({} if y.lam is None else {"lam": y.lam})
        ref = ({"q": y0.q, "v": y0.v} | ({} if y0.lam is None else {"lam": y0.lam})
               if isinstance(y0, MechanicalState) else {})
    elif isinstance(y, np.ndarray):
        parts, ref = {"": y}, ({"": y0} if isinstance(y0, np.ndarray) else {})
    else:
        raise ValueError(f"{what} must be a state (an array or q, v, λ), got a {type(y).__name__}")  # noqa: TRY004 - a file's content
    for key, a in parts.items():
        name = f"{what}.{key}" if key else what
        if not (
            isinstance(a, np.ndarray)
            and a.dtype.kind in "fc"
            and (key == "lam" or bool(np.all(np.isfinite(a))))
        ):
            raise ValueError(f"{name} must be an array of finite numbers")
        if key in ref and a.shape != lead + np.shape(ref[key]):
            raise ValueError(f"{name} has shape {a.shape}, the model's is {lead + np.shape(ref[key])}")
        if stacked is not None and a.shape[:1] != lead:
            raise ValueError(f"{name} holds {a.shape[:1]} saved states for {stacked} saved times")


def _check_record(rec: Any) -> None:
    """The diagnostics record's checkpoint (``MemoryRecord.state``): columns, row count, statistics per
    column."""
    if not isinstance(rec, dict):
        raise ValueError("state.record must be the diagnostics record's state")  # noqa: TRY004 - a file's content
    keys, n_rows, stats = rec.get("keys"), rec.get("n_rows"), rec.get("stats")
    if not (isinstance(keys, (tuple, list)) and keys and all(isinstance(k, str) and k for k in keys)):
        raise ValueError("state.record.keys must be the diagnostics' column names")
    if not (isinstance(n_rows, int) and not isinstance(n_rows, bool) and 0 <= n_rows < 2**53):
        raise ValueError(f"state.record.n_rows must be a row count, got {n_rows!r}")
    names = ("first", "last", "min", "max", "sum", "n")
    if not (isinstance(stats, dict) and set(stats) == set(names)
            and all(isinstance(v, np.ndarray) and v.shape == (len(keys),) and v.dtype.kind in "fi"
                    for v in stats.values())):
        raise ValueError("state.record.stats must hold first, last, min, max, sum and n of every column")


def _digest(*arrays: Any) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def checkpoint_identity(case: dict[str, Any], problem: Problem) -> dict[str, Any]:
    """What a checkpoint must share with the run that resumes it: format, lgbeam version and commit, the
    resolved case and a digest of the initial state (the mesh and its initial configuration)."""
    y0 = problem.y0
    arrays = y0.arrays() if isinstance(y0, MechanicalState) else (y0,)
    return {"format": CHECKPOINT_FORMAT, "lgbeam": __version__, "commit": git_info().get("commit", ""),
            "case": case, "mesh": _digest(*arrays)}


def _flat(d: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(d, dict):
        return {prefix: d}
    out: dict[str, Any] = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else k))
    return out


def check_resumable(saved: dict[str, Any], now: dict[str, Any], t: float) -> None:
    """ValueError, in one line naming the first difference, unless a checkpoint with identity ``saved`` (at
    time ``t``) may continue under the identity ``now`` (``checkpoint_identity``)."""
    advice = "; rerun the case (or undo the change)"
    if saved.get("format") != now["format"]:
        raise ValueError(
            f"the checkpoint has format {saved.get('format')!r}, this lgbeam writes {now['format']}{advice}"
        )
    if saved.get("lgbeam") != now["lgbeam"] or (saved.get("commit") and now["commit"]
                                               and saved.get("commit") != now["commit"]):
        raise ValueError(
            f"the checkpoint was written by lgbeam {saved.get('lgbeam')} "
            f"({str(saved.get('commit'))[:12] or 'unknown commit'}), this is {now['lgbeam']} "
            f"({now['commit'][:12] or 'unknown commit'}); resume with that lgbeam or rerun the case"
        )
    a, b = _flat(saved.get("case", {})), _flat(now["case"])
    for key in sorted(set(a) | set(b)):
        if key in RESUMABLE_KEYS or a.get(key, "<absent>") == b.get(key, "<absent>"):
            continue
        raise ValueError(f"case.toml differs from the checkpoint: {key} = {b.get(key, '<absent>')!r} now, "
                         f"{a.get(key, '<absent>')!r} when the run started{advice}")
    if now["case"]["time"]["t_end"] < t:
        raise ValueError(
            f"time.t_end = {now['case']['time']['t_end']:g} is before the checkpoint's t = {t:g}; "
            "set a later t_end to continue the run"
        )
    if saved.get("mesh") != now["mesh"]:
        raise ValueError(
            "the model built from case.toml now has another initial state (mesh) than the checkpoint's"
            f"{advice}"
        )


def _restore(case: dict[str, Any], run_dir: Path, problem: Problem,
             identity: dict[str, Any]) -> tuple[LoopState, list[float], list[Any]]:
    """(state, times, states) of the run folder's checkpoint, checked against this run; ValueError in one line
    for anything a damaged or forged checkpoint raises (nothing of the folder is written before)."""
    ck = load_checkpoint(run_dir, max_bytes=case["output"]["max_memory_gb"] * GIB)
    state = ck["state"]
    check_resumable(ck["identity"], identity, state.t)
    try:
        _check_y(state.y, problem.y0, "state.y", stacked=None)
        n = len(ck["times"])
        if n:
            _check_y(ck["states"], problem.y0, "states", stacked=n)
        return state, [float(t) for t in ck["times"]], _unstack(ck["states"], n)
    except ValueError as exc:
        raise ValueError(f"{Path(run_dir) / CHECKPOINT}: {exc}; the file is damaged or was edited: rerun the "
                         "case") from None


def _unstack(stacked: Any, n: int) -> list[Any]:
    """The list of states that ``_stack`` stacked (a checkpoint's saved frames)."""
    if n == 0:
        return []
    if isinstance(stacked, MechanicalState):
        lam = stacked.lam
        return [
            MechanicalState(stacked.q[i], stacked.v[i], None if lam is None else lam[i]) for i in range(n)
        ]
    if not (isinstance(stacked, np.ndarray) and len(stacked) == n):
        raise ValueError("the checkpoint's saved states do not match its saved times; rerun the case")
    return list(stacked)


def _write_solution(
    run_dir: Path, problem: Problem, sol: Solution, times: list[float], states: list[Any]
) -> None:
    full = replace(sol, t=np.asarray(times), y=_stack(states))
    buf = io.BytesIO()
    np.savez(buf, **problem.arrays(full))
    with atomic_write(run_dir / "solution.npz") as fh:
        fh.write(buf.getvalue())


def run_problem(case: dict[str, Any], run_dir: Path, problem: Problem, *, progress: bool,
                resume: bool = False) -> RunSummary:
    """Integrate ``problem`` over ``case['time']`` with ``case['integrator']``; write the run folder."""
    integ, tm, out = case["integrator"], case["time"], case["output"]
    run_dir = Path(run_dir)
    check_compatible(method_entry(integ["method"]).make(), problem.system)  # before the method's options
    method = make_method(integ["method"], **problem.method_options)
    controller = fixed_if_no_estimate(controller_of(integ, (tm["t0"], tm["t_end"])), method, integ)
    budget = check_budget(case, problem)
    times: list[float] = []
    states: list[Any] = []
    state: LoopState | None = None
    identity = checkpoint_identity(case, problem)
    if resume:  # every check before a file of the folder is touched (the series and the record truncate)
        state, times, states = _restore(case, run_dir, problem, identity)
    series = None
    if out["vtk"]:
        series = PVDSeries(run_dir / "paraview" / f"{case['name']}.pvd", keep=len(times) if resume else None,
                           edges=out.get("edge_data", True))

    def collect(t: float, y: Any) -> None:
        times.append(t)
        states.append(y)
        if series is not None:
            series.write_frame(t, problem.frame(y))

    def save_checkpoint(s: LoopState) -> None:
        if series is not None:
            series.flush()  # the .pvd lists every frame the checkpoint keeps
        write_data(
            run_dir / CHECKPOINT,
            {
                "identity": identity,
                "state": s,
                "times": np.asarray(times, dtype=float),
                "states": _stack(states) if states else None,
            },
        )

    steps, seconds = out.get("checkpoint_steps") or None, out.get("checkpoint_seconds") or None
    ckpt = Checkpointing(save_checkpoint, steps=steps, seconds=seconds) if (steps or seconds) else None
    if resume and ckpt is None:
        raise ValueError(
            "--resume needs checkpoints: set output.checkpoint_seconds or output.checkpoint_steps > 0"
        )
    record = CSVRecord(run_dir / "diagnostics.csv", opener=open_in_place)
    bar = Progress(tm["t0"], tm["t_end"], enabled=progress)
    try:
        sol = integrate(problem.system, method, problem.y0, (tm["t0"], tm["t_end"]), controller=controller,
                        save=SaveAt(every=out["every"] or None, observers=(collect,), store=False),
                        diagnostics=problem.diagnostics, progress=bar.update if progress else None,
                        max_steps=int(integ["max_steps"]), record=record, checkpoint=ckpt, resume=state,
                        on_signal="return")
    finally:
        bar.close()
        record.close()
        if series is not None:
            series.close()
    _write_solution(run_dir, problem, sol, times, states)
    if ckpt is not None and sol.state is not None:
        save_checkpoint(replace(sol.state, cache=_checkpoint_form(method, sol.state.cache),
                                record=record.state()))
    extra = {"h_last": sol.stats["h_last"], "estimate": budget, **problem.summary(sol)}
    if "energy_check" in sol.stats:  # the largest energy defect accepted, relative to the content (driver)
        extra["energy_check"] = sol.stats["energy_check"]
    if "signal" in sol.stats:
        extra["signal"] = sol.stats["signal"]
    return RunSummary(
        status=str(sol.status),
        message=sol.message,
        n_steps=sol.n_steps,
        n_rejected=int(sol.stats["n_rejected"]),
        t_final=float(sol.stats["t_final"]),
        extra=extra,
    )


def _checkpoint_form(method: Any, cache: Any) -> Any:
    from lgbeam.integrators.base import HasCheckpoint

    return method.checkpoint(cache) if isinstance(method, HasCheckpoint) else cache


def write_diagnostics(path: Path, steps: dict[str, Any]) -> None:
    """diagnostics.csv from in-memory columns (static analyses; dynamic runs stream it through
    ``CSVRecord``)."""
    import csv

    keys = list(steps)
    data = [np.asarray(steps[k], dtype=float) for k in keys]
    with atomic_write(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(keys)
        for row in zip(*data):
            w.writerow([repr(float(x)) for x in row])


def index_at_reference_end(solution: dict[str, Any], reference: dict[str, Any]) -> int:
    """Index of the solution's saved time equal to the reference's final time (for study errors)."""
    t_ref = float(np.asarray(reference["t"])[-1])
    t = np.asarray(solution["t"])
    k = int(np.argmin(np.abs(t - t_ref)))
    if abs(t[k] - t_ref) > 1e-9 * max(1.0, abs(t_ref)):
        raise ValueError(
            f"solution has no saved time at the reference's final time {t_ref}; align output.every"
        )
    return k
