"""``lgbeam bench stiff``: the implicit Lie group backends on the steel cantilever (docs/implicit.md).

Case ``cases/steel-cantilever-dynamic.toml`` (steel flat bar 40 × 10 mm, 4 m, 2 N step tip load, 1 s).
Sections of the table (one CSV, ``stiff.csv``; ``cpu_s`` is process CPU time, ``err`` the relative tip error
max_t |x_tip − x_ref| / max_t |x_ref − x_ref(0)| on 101 output times):

- ``accuracy``: gen-alpha and rattle-lgvi at h = 2, 1, 0.5 ms for N = 16 and 64; the reference is the
  Richardson extrapolation of gen-alpha at 1 and 0.5 ms (x₀.₅ + (x₀.₅ − x₁)/3);
- ``accuracy-cosserat``: gen-alpha as ``accuracy`` at N = 16 without the case's constraints
  (``model.constraints=none``: the shear-deformable, extensible rod);
- ``hedop5``: the explicit HEDOP5 at its loosest useful tolerance (rtol 1e-4): its step is bounded by
  stability (ω_max h ≲ 3), not accuracy, so its CPU per simulated second is measured on a window of
  ``HEDOP5_STEPS`` accepted steps and scaled to t_end (``note`` says so); any tolerance costs at least this;
- ``stiffness``: E and G multiplied by k = 10⁰ … 10⁴ (N = 16, 0.1 s): CPU per simulated second of gen-alpha
  (h = 1 ms) and of HEDOP5 (window as above);
- ``newton``: CPU per Newton iteration of gen-alpha for N = 16 … 4096 (5 steps of 1 ms after one warm-up
  step; ``per_node_us`` = cost per iteration per node: flat means O(N));
- ``exudyn``: lgbeam's gen-alpha and Exudyn's generalized-α side by side on the same beam, N = 16 and 64, the full
  1 s, h = 5, 2, 1, 0.5 ms, the two codes' runs interleaved, best of 3 process-CPU times each. Exudyn is set up as
  its own beam test model (``TestModels/geometricallyExactBeamTest.py`` in jgerstmayr/EXUDYN): ``EXUDYN_SETUP``
  (``ObjectBeamGeometricallyExact`` on ``NodeRigidBodyEP`` nodes, ``GenericJoint`` clamp, modified Newton,
  ``EigenSparse``, Newton relative tolerance 1e-6, ρ∞ = 0.9 as the case, one thread). Exudyn's step reduction
  after a failed Newton iteration is off, so each run takes exactly the steps asked (``steps``, ``iterations``
  are Exudyn's counts) or stops; where its Newton iteration fails at rtol 1e-6 the run is repeated at 1e-5
  (``EXUDYN_RTOLS``; ``note`` says so). Each code's error is against its OWN reference at the same N: its run at
  h = 0.125 ms, or for Exudyn, if that fails at every rtol, the Richardson extrapolation of its two finest
  completed runs (``note`` says which). Error: max_t |z_tip − z_ref| / max_t |z_ref − z_ref(0)| on 101 times.
  On the gen-alpha rows ``ratio_equal_h`` = lgbeam CPU / Exudyn CPU at the same h and ``ratio_equal_err`` =
  lgbeam CPU / Exudyn's CPU at lgbeam's error (log-log interpolation along Exudyn's sweep, NaN outside it).
  Not like for like in the model: Exudyn's element is shear-deformable and extensible (GA, EA finite) where the
  case imposes Kirchhoff + inextensibility (shear flexibility EI/(GA L²) ≈ 1.6e-6 here). Skipped (one row
  says so) when ``import exudyn`` fails (optional extra ``pip install lgbeam[bench]``, never a runtime
  dependency). ``--sections exudyn`` runs this section alone.
- ``exudyn-targets`` (issue 34): the two target runs, N = 16 at h = 5 ms (the full 1 s) and N = 4096 at h = 1 ms
  (20 steps), each code in its own fresh process (``python -c``, run ``TARGET_REPS`` times in it after one
  warm-up run; the two codes' processes alternate): ``cpu_s`` = best process CPU of the solve, ``peak_mb`` = the
  process's peak resident memory (``ru_maxrss``: interpreter, imports and the run; ``note`` gives the resident
  memory after the imports, before the model is built), ``ratio_equal_h`` = lgbeam / Exudyn (CPU, and in ``note``
  memory) at the same N and h. Both processes import numpy, exudyn and lgbeam (Exudyn's model takes its section
  data from the case through lgbeam), so their memory differs by the runs alone. Same Exudyn setup as ``exudyn``.
- ``exudyn-grid`` (issue 34): does each code end ok on the first ``GRID_STEPS`` steps (the hardest: right after the
  step load) at N = 16 … 4096 and h = 0.5 … 5 ms? One run each, ``note`` = ok / the failure (Exudyn's step
  reduction off, Newton rtol 1e-6 then 1e-5 as in ``exudyn``).
"""

from __future__ import annotations

import csv
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

CASE = "cases/steel-cantilever-dynamic.toml"
COLUMNS = ["section", "method", "N", "k", "h", "steps", "iterations", "cpu_s", "err", "per_node_us", "note",
           "ratio_equal_h", "ratio_equal_err", "peak_mb"]
SECTIONS = ("accuracy", "hedop5", "accuracy-cosserat", "stiffness", "newton", "exudyn", "exudyn-targets",
            "exudyn-grid")
TARGET_REPS = 3  # timed runs per process after the warm-up (section exudyn-targets)
GRID_STEPS = 20  # steps per run of section exudyn-grid
HEDOP5_STEPS = 200


def _rod(sets: list[str]) -> tuple[Any, Any]:
    from lgbeam.apps import load_case
    from lgbeam.apps.rod import build
    from lgbeam.solve import MechanicalState

    case, _ = load_case(CASE, sets)
    rod, q0, v0 = build(case)
    return rod, MechanicalState(q0, v0)


def _tip_run(rod: Any, y0: Any, method: Any, h: float, t_end: float) -> tuple[np.ndarray, float, Any]:
    from lgbeam.solve import ConstantStep, SaveAt, integrate

    ts = np.linspace(0.0, t_end, 101)
    c0 = time.process_time()
    sol = integrate(rod, method, y0, (0.0, t_end), controller=ConstantStep(h), save=SaveAt(times=ts),
                    diagnostics=False)
    cpu = time.process_time() - c0
    if sol.status != "ok":
        raise RuntimeError(f"bench stiff: {sol.message}")
    return rod.G.translation(np.asarray(sol.q)[:, -1]), cpu, sol


def _rel(x: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(x - ref).max() / np.abs(ref - ref[0]).max())


def _accuracy(rows: list[list[Any]], n: int, t_end: float, hs: list[float], section: str = "accuracy",
              extra: tuple[str, ...] = ()) -> dict[str, Any]:
    rod, y0 = _rod([f"model.n_elements={n}", *extra])
    runs: dict[tuple[str, float], tuple[np.ndarray, float, Any]] = {}
    methods = ("gen-alpha",) if extra else ("gen-alpha", "rattle-lgvi")
    failed: dict[tuple[str, float], str] = {}
    for method in methods:
        for h in hs:
            try:
                runs[method, h] = _tip_run(rod, y0, method, h, t_end)
            except RuntimeError as exc:  # a step the method could not take: recorded, not fatal
                failed[method, h] = str(exc)
    x1, x2 = runs["gen-alpha", hs[-2]][0], runs["gen-alpha", hs[-1]][0]
    ref = x2 + (x2 - x1) / 3.0  # Richardson, order 2
    for (method, h), (x, cpu, sol) in runs.items():
        rows.append([section, method, n, 1, h, sol.stats["n_steps"], sol.stats["n_iterations"], cpu, _rel(x, ref), "",
                     "Richardson reference from gen-alpha at the two smallest h" + (f"; {' '.join(extra)}" if extra else "")])
    for (method, h), why in failed.items():
        rows.append([section, method, n, 1, h, 0, 0, float("nan"), float("nan"), "", f"FAILED: {why[:160]}"])
    return {"ref": ref, "rod": rod}


def _hedop5(rows: list[list[Any]], n: int, k: float, t_end: float, section: str, sets: list[str]) -> None:
    from lgbeam.solve import AdaptiveStep, SaveAt, integrate

    rod, y0 = _rod([f"model.n_elements={n}", *sets])
    c0 = time.process_time()
    sol = integrate(rod, "hedop5", y0, (0.0, t_end), controller=AdaptiveStep(rtol=1e-4, atol=1e-7),
                    save=SaveAt(steps=10**9), diagnostics=False, max_steps=HEDOP5_STEPS)
    cpu = time.process_time() - c0
    t_reached = float(sol.stats["t_final"])
    scale = t_end / t_reached
    rows.append([section, "hedop5", n, k, t_reached / max(sol.stats["n_steps"], 1), int(sol.stats["n_steps"] * scale), 0,
                 cpu * scale, float("nan"), "",
                 f"{sol.stats['n_steps']} steps to t = {t_reached:.3g} s scaled to {t_end} s (stability-bound steps, rtol 1e-4)"])


def _stiffness(rows: list[list[Any]], factors: list[float], t_end: float) -> None:
    for k in factors:
        sets = [f"model.material.E={210e9 * k}", f"model.material.G={81e9 * k}"]
        rod, y0 = _rod(sets)
        _, cpu, sol = _tip_run(rod, y0, "gen-alpha", 1e-3, t_end)
        rows.append(["stiffness", "gen-alpha", 16, k, 1e-3, sol.stats["n_steps"], sol.stats["n_iterations"], cpu / t_end,
                     float("nan"), "", "cpu_s per simulated second"])
        _hedop5(rows, 16, k, t_end, "stiffness", sets)
        rows[-1][7] = rows[-1][7] / t_end
        rows[-1][-1] += "; cpu_s per simulated second"


def _newton(rows: list[list[Any]], sizes: list[int]) -> None:
    from lgbeam.solve import ConstantStep, integrate

    for n in sizes:
        rod, y0 = _rod([f"model.n_elements={n}"])
        integrate(rod, "gen-alpha", y0, (0.0, 1e-3), controller=ConstantStep(1e-3), diagnostics=False)  # warm-up
        for reuse in (True, False):
            from lgbeam.integrators.generalized_alpha import GeneralizedAlpha

            c0 = time.process_time()
            sol = integrate(rod, GeneralizedAlpha(reuse=reuse), y0, (0.0, 5e-3), controller=ConstantStep(1e-3),
                            diagnostics=False)
            cpu = time.process_time() - c0
            it = max(int(sol.stats["n_iterations"]), 1)
            rows.append(["newton", "gen-alpha", n, 1, 1e-3, sol.stats["n_steps"], it, cpu, float("nan"),
                         cpu / it / (n + 1) * 1e6, "matrix reused across steps" if reuse else "matrix refactorised each step"])


EXUDYN_SETUP = ("Exudyn gen-alpha as its TestModels/geometricallyExactBeamTest.py: ObjectBeamGeometricallyExact on "
                "NodeRigidBodyEP nodes (Euler-parameter constraint from the node), GenericJoint clamp, modified Newton, "
                "EigenSparse, Newton rtol 1e-6, rho_inf 0.9, one thread")


EXUDYN_RTOLS = (1e-6, 1e-5)  # Exudyn's beam-test Newton tolerance; the next one where its Newton iteration fails


def _exudyn_beam(n_el: int) -> tuple[Any, Any, Any]:
    """Exudyn's model of the case's beam (module docstring): ``(SystemContainer, mbs, tip sensor)``.

    Section data from the case through lgbeam's ``Material.from_section`` (shear factor 5/6, Roark torsion), so
    both codes see the same EA, GA, EI, GJ, ρA, ρJ. lgbeam's d₃ = e_x is the axis and d₁ = −e_z, d₂ = e_y are the
    section axes; Exudyn's beam axis is the local x, so its strain order (Γ_x, Γ_y, Γ_z, K_x, K_y, K_z) takes
    (EA, GA₂, GA₁, GJ, EI₂, EI₁) and its section inertia about (x, y, z) is (ρJ₃, ρJ₂, ρJ₁); the 2 N load along −z
    bends about y (EI₂ = 700 N m², the weak axis).
    """
    import exudyn as exu
    from exudyn.itemInterface import (
        Force,
        GenericJoint,
        MarkerNodePosition,
        MarkerNodeRigid,
        NodePointGround,
        NodeRigidBodyEP,
        ObjectBeamGeometricallyExact,
        SensorNode,
    )

    from lgbeam.apps import load_case
    from lgbeam.discretisations.rods import Material

    case, _ = load_case(CASE, [])
    m, load = case["model"], case["loads"]["nodal"][0]
    if m["direction"] != [1.0, 0.0, 0.0] or load["node"] != "end" or load["frame"] != "spatial" or load["time"] != "step":
        raise ValueError(f"bench stiff: Exudyn's model assumes the beam along e_x with a spatial step tip load ({CASE})")
    mat = Material.from_section(**{k: v for k, v in m["material"].items() if k != "damping"})
    GA1, GA2, EA = mat.C_Gamma
    EI1, EI2, GJ = mat.C_K
    J1, J2, J3 = mat.rhoJ
    sec = exu.BeamSection()
    sec.stiffnessMatrix = np.diag([EA, GA2, GA1, GJ, EI2, EI1])
    sec.massPerLength = float(mat.rhoA)
    sec.inertia = np.diag([J3, J2, J1])
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ds = float(m["length"]) / n_el
    ep0 = [1.0, 0.0, 0.0, 0.0]  # Euler parameters of the identity
    nodes = [mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[i * ds, 0.0, 0.0, *ep0], addConstraintEquation=True))
             for i in range(n_el + 1)]
    for i in range(n_el):
        mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]], length=ds, sectionData=sec))
    ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    mbs.AddObject(GenericJoint(markerNumbers=[mbs.AddMarker(MarkerNodeRigid(nodeNumber=ground)),
                                              mbs.AddMarker(MarkerNodeRigid(nodeNumber=nodes[0]))]))
    mbs.AddLoad(Force(markerNumber=mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1])),
                      loadVector=[float(f) for f in load["force"]]))
    sens = mbs.AddSensor(SensorNode(nodeNumber=nodes[-1], storeInternal=True, writeToFile=False,
                                    outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    return SC, mbs, sens


def exudyn_cantilever(n_el: int, h: float, t_end: float, rho_inf: float = 0.9, rtol: float = 1e-6,
                      adaptive: bool = False) -> tuple[np.ndarray, float, int, int]:
    """Tip position (101 times, 3 columns; NaN after a failed step), CPU of the solve, steps taken and Newton
    iterations of Exudyn's generalized-α on the case's beam, set up as ``EXUDYN_SETUP`` says. ``adaptive=False``
    (default) turns off Exudyn's step reduction after a failed Newton iteration, so a run takes exactly the steps
    asked or stops at the failure (seen in the step count) instead of silently cutting its step."""
    import exudyn as exu

    _, mbs, sens = _exudyn_beam(n_el)
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = round(t_end / h)
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = rho_inf
    ss.timeIntegration.newton.useModifiedNewton = True
    ss.timeIntegration.newton.relativeTolerance = rtol  # 1e-6 as Exudyn's beam test models (default 1e-8)
    ss.timeIntegration.adaptiveStep = adaptive
    ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    ss.timeIntegration.verboseMode = 0
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = t_end / 100
    ss.parallel.numberOfThreads = 1
    ss.show.statistics = False
    solver = exu.MainSolverImplicitSecondOrder()
    c0 = time.process_time()
    solver.SolveSystem(mbs, ss)  # type: ignore[call-arg, misc]  # exudyn's .pyi omits the method's self
    cpu = time.process_time() - c0
    data = np.asarray(mbs.GetSensorStoredData(sens))
    ts = np.linspace(0.0, t_end, 101)
    x = np.stack([np.interp(ts, data[:, 0], data[:, 1 + j]) for j in range(3)], axis=1)
    if data[-1, 0] < t_end * (1 - 1e-9):
        x[ts > data[-1, 0]] = np.nan
    return x, cpu, int(solver.it.currentStepIndex) - 1, int(solver.it.newtonStepsCount)  # the index starts at 1


def _rel_z(z: np.ndarray, ref: np.ndarray) -> float:
    """max_t |z − z_ref| / max_t |z_ref − z_ref(0)| (NaN where z is)."""
    return float(np.abs(z - ref).max() / np.abs(ref - ref[0]).max())


def _at_error(err: float, sweep: list[tuple[float, float]]) -> float:
    """CPU of a sweep [(err, cpu), ...] at the error ``err``: log-log interpolation between neighbouring runs;
    NaN outside the sweep's error range (no extrapolation)."""
    pts = sorted((e, c) for e, c in sweep if np.isfinite(e) and e > 0 and np.isfinite(c))
    if len(pts) < 2 or not pts[0][0] <= err <= pts[-1][0]:
        return float("nan")
    le, lc = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.exp(np.interp(np.log(err), le, lc)))


def _exudyn_run(n: int, h: float, t_end: float, rtols: tuple[float, ...]) -> tuple[np.ndarray, float, int, int, float, str]:
    """Exudyn at Newton rtol ``rtols[0]``; after a failed Newton iteration (run stopped short) at the next rtol.
    Returns tip z, CPU, steps, Newton iterations, the rtol used and a note on the failures on the way."""
    failed: list[str] = []
    for rtol in rtols:
        x, cpu, steps, its = exudyn_cantilever(n, h, t_end, rtol=rtol)
        if steps == round(t_end / h) and np.all(np.isfinite(x)):
            return x[:, 2], cpu, steps, its, rtol, "".join(failed)
        failed.append(f"Newton rtol {rtol:g} failed after {steps} of {round(t_end / h)} steps; ")
    return x[:, 2], float("nan"), steps, its, rtol, "".join(failed)


def _exudyn(rows: list[list[Any]], sizes: list[int], hs: list[float], h_ref: float, t_end: float, reps: int) -> None:
    """lgbeam gen-alpha and Exudyn's gen-α side by side (module docstring, section ``exudyn``)."""
    try:
        import exudyn
    except ImportError:
        rows.append(["exudyn", "exudyn-gen-alpha", 0, 1, float("nan"), 0, 0, float("nan"), float("nan"), "",
                     "exudyn not installed (pip install lgbeam[bench]): comparison skipped"])
        return
    version = exudyn.__version__
    for n in sizes:
        rod, y0 = _rod([f"model.n_elements={n}"])
        lg: dict[float, tuple[np.ndarray, float, int, int]] = {}
        ex: dict[float, tuple[np.ndarray, float, int, int, float, str]] = {}
        for h in hs:  # the two codes interleaved, best of ``reps`` process-CPU times each
            rtols: tuple[float, ...] = EXUDYN_RTOLS
            why = ""
            for _ in range(reps):
                x, cpu, sol = _tip_run(rod, y0, "gen-alpha", h, t_end)
                if h not in lg or cpu < lg[h][1]:
                    lg[h] = (x[:, 2], cpu, int(sol.stats["n_steps"]), int(sol.stats["n_iterations"]))
                run = _exudyn_run(n, h, t_end, rtols)
                rtols = EXUDYN_RTOLS[EXUDYN_RTOLS.index(run[4]):]  # the repeats start at the rtol that worked
                why = why or run[5]
                if h not in ex or not np.isfinite(ex[h][1]) or run[1] < ex[h][1]:
                    ex[h] = run
            ex[h] = (*ex[h][:5], why)
        # own references at the same N: each code at h_ref; Exudyn, if its Newton iteration fails there at every
        # rtol, by the Richardson extrapolation (order 2) of its two finest completed sweep runs
        x, _, _ = _tip_run(rod, y0, "gen-alpha", h_ref, t_end)
        refs = {"gen-alpha": (x[:, 2], f"reference gen-alpha h = {h_ref:g}")}
        ze, cpu_ref, steps, _, rtol, why = _exudyn_run(n, h_ref, t_end, EXUDYN_RTOLS)
        if np.isfinite(cpu_ref):
            refs["exudyn"] = (ze, f"reference Exudyn h = {h_ref:g} (Newton rtol {rtol:g})")
        else:
            h2, h1 = sorted(h for h in hs if np.isfinite(ex[h][1]))[:2]
            z1, z2 = ex[h1][0], ex[h2][0]
            refs["exudyn"] = (z2 + (z2 - z1) / ((h1 / h2) ** 2 - 1.0),
                              f"reference Richardson of Exudyn h = {h1:g}, {h2:g} (at h = {h_ref:g}: {why.strip('; ')})")
        err_lg = {h: _rel_z(v[0], refs["gen-alpha"][0]) for h, v in lg.items()}
        err_ex = {h: _rel_z(v[0], refs["exudyn"][0]) if np.isfinite(v[1]) else float("nan") for h, v in ex.items()}
        sweep = [(err_ex[h], ex[h][1]) for h in hs]
        for h in hs:
            _, cpu, steps, its = lg[h]
            rows.append(["exudyn", "gen-alpha", n, 1, h, steps, its, cpu, err_lg[h], "",
                         f"lgbeam kirchhoff+inextensible; {refs['gen-alpha'][1]}; best of {reps} CPU; {t_end:g} s",
                         cpu / ex[h][1], cpu / _at_error(err_lg[h], sweep)])
        for h in hs:
            _, cpu, steps, its, rtol, why = ex[h]
            asked = round(t_end / h)
            rows.append(["exudyn", "exudyn-gen-alpha", n, 1, h, steps, its, cpu, err_ex[h], "",
                         f"exudyn {version} EP nodes, shear-deformable; {refs['exudyn'][1]}; best of {reps} CPU; "
                         f"{t_end:g} s; " + (f"{why}took the {asked} steps asked with Newton rtol {rtol:g}"
                                             if steps == asked else f"{why}FAILED")])


def _rss_mb() -> float:
    """Peak resident memory of this process so far [MB] (``ru_maxrss`` is in kB on Linux)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def target_child(code: str, n: int, h: float, t_end: float, reps: int) -> dict[str, Any]:
    """Run in a fresh process by ``exudyn-targets``: one warm-up and ``reps`` timed runs of ``code`` ("gen-alpha" or
    "exudyn") on the cantilever; best CPU, steps, iterations, status, peak and post-import memory."""
    import_mb = _rss_mb()
    cpus, steps, its, status = [], 0, 0, "ok"
    if code == "gen-alpha":
        rod, y0 = _rod([f"model.n_elements={n}"])
        for _ in range(reps + 1):
            from lgbeam.solve import ConstantStep, integrate

            c0 = time.process_time()
            sol = integrate(rod, "gen-alpha", y0, (0.0, t_end), controller=ConstantStep(h), diagnostics=False)
            cpus.append(time.process_time() - c0)
            steps, its, status = int(sol.stats["n_steps"]), int(sol.stats["n_iterations"]), str(sol.status)
    else:
        for _ in range(reps + 1):
            x, cpu, steps, its = exudyn_cantilever(n, h, t_end, rtol=EXUDYN_RTOLS[0])
            cpus.append(cpu)
            status = "ok" if steps == round(t_end / h) and np.all(np.isfinite(x)) else "failed"
    return {"cpu": min(cpus[1:]), "steps": steps, "its": its, "status": status, "peak_mb": _rss_mb(),
            "import_mb": import_mb}


def _in_child(code: str, n: int, h: float, t_end: float, reps: int) -> dict[str, Any]:
    """``target_child`` in a fresh interpreter (its own peak memory), lgbeam imported from this checkout."""
    root = str(Path(__file__).resolve().parents[2])  # the checkout holding lgbeam/
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    prog = ("import json, numpy, exudyn; import lgbeam.apps, lgbeam.solve; "  # the same imports in both processes
            "from lgbeam.bench.stiff import target_child; "
            f"print('RESULT ' + json.dumps(target_child({code!r}, {n}, {h!r}, {t_end!r}, {reps})))")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, cwd=root, check=False)
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"bench stiff: the {code} process failed: {out.stderr.strip().splitlines()[-1:]}")
    return dict(json.loads(line[7:]))


def _exudyn_targets(rows: list[list[Any]], cases: list[tuple[int, float, float]], reps: int) -> None:
    """Section ``exudyn-targets`` (module docstring): CPU and peak memory, each code in its own process."""
    try:
        import exudyn
    except ImportError:
        rows.append(["exudyn-targets", "exudyn-gen-alpha", 0, 1, float("nan"), 0, 0, float("nan"), float("nan"), "",
                     "exudyn not installed (pip install lgbeam[bench]): comparison skipped"])
        return
    for n, h, t_end in cases:
        lg, ex = _in_child("gen-alpha", n, h, t_end, reps), _in_child("exudyn", n, h, t_end, reps)
        for name, r, other in (("gen-alpha", lg, ex), (f"exudyn-gen-alpha {exudyn.__version__}", ex, lg)):
            note = (f"{r['status']}; {t_end:g} s; best of {reps} after a warm-up, own process; {r['import_mb']:.0f} MB "
                    f"after imports (both), {r['peak_mb'] - r['import_mb']:.0f} MB more at the peak; memory ratio "
                    f"{r['peak_mb'] / other['peak_mb']:.2f}")
            rows.append(["exudyn-targets", name.split()[0], n, 1, h, r["steps"], r["its"], r["cpu"], float("nan"), "",
                         note, r["cpu"] / other["cpu"], float("nan"), r["peak_mb"]])


def _exudyn_grid(rows: list[list[Any]], sizes: list[int], hs: list[float], steps: int) -> None:
    """Section ``exudyn-grid`` (module docstring): ok / failed on the first ``steps`` steps, both codes."""
    try:
        import exudyn  # noqa: F401
    except ImportError:
        rows.append(["exudyn-grid", "exudyn-gen-alpha", 0, 1, float("nan"), 0, 0, float("nan"), float("nan"), "",
                     "exudyn not installed (pip install lgbeam[bench]): comparison skipped"])
        return
    from lgbeam.solve import ConstantStep, integrate

    for n in sizes:
        rod, y0 = _rod([f"model.n_elements={n}"])
        for h in hs:
            c0 = time.process_time()
            sol = integrate(rod, "gen-alpha", y0, (0.0, steps * h), controller=ConstantStep(h), diagnostics=False)
            cpu = time.process_time() - c0
            note = "ok" if sol.status == "ok" else f"FAILED: {sol.message}"
            rows.append(["exudyn-grid", "gen-alpha", n, 1, h, int(sol.stats["n_steps"]),
                         int(sol.stats["n_iterations"]), cpu, float("nan"), "", note])
            _, cpu, done, its, rtol, why = _exudyn_run(n, h, steps * h, EXUDYN_RTOLS)
            note = f"{why}ok at Newton rtol {rtol:g}" if np.isfinite(cpu) else f"{why}FAILED"
            rows.append(["exudyn-grid", "exudyn-gen-alpha", n, 1, h, done, its, cpu, float("nan"), "", note])


def run(out_dir: Path, quick: bool, sections: list[str] | None = None) -> None:
    """Print the table and write ``out_dir/stiff.csv`` (columns ``COLUMNS``).

    ``sections`` (default: all of ``SECTIONS``) selects what runs; the rows of the other sections already in
    ``out_dir/stiff.csv`` are kept, so ``lgbeam bench stiff --sections exudyn --update`` refreshes the Exudyn
    comparison in the committed CSV alone.
    """
    chosen = list(SECTIONS) if not sections else list(sections)
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        raise ValueError(f"bench stiff: unknown section(s) {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
    rows: list[list[Any]] = []
    if quick:
        if "accuracy" in chosen:
            _accuracy(rows, 4, 0.01, [2e-3, 1e-3])
        if "hedop5" in chosen:
            _hedop5(rows, 4, 1, 0.01, "hedop5", [])
        if "newton" in chosen:
            _newton(rows, [4, 16])
        if "exudyn" in chosen:
            _exudyn(rows, [4], [2e-3, 1e-3], 2.5e-4, 0.01, reps=1)
        if "exudyn-targets" in chosen:
            _exudyn_targets(rows, [(4, 2e-3, 0.01)], reps=1)
        if "exudyn-grid" in chosen:
            _exudyn_grid(rows, [4], [2e-3], 3)
    else:
        t_end, hs = 1.0, [2e-3, 1e-3, 5e-4]
        for n in (16, 64):
            if "accuracy" in chosen:
                _accuracy(rows, n, t_end, hs)
            if "hedop5" in chosen:
                _hedop5(rows, n, 1, t_end, "hedop5", [])
        if "accuracy-cosserat" in chosen:
            _accuracy(rows, 16, t_end, hs, section="accuracy-cosserat", extra=("model.constraints=none",))
        if "stiffness" in chosen:
            _stiffness(rows, [1.0, 1e1, 1e2, 1e3, 1e4], 0.1)
        if "newton" in chosen:
            _newton(rows, [16, 64, 256, 1024, 4096])
        if "exudyn" in chosen:
            _exudyn(rows, [16, 64], [5e-3, 2e-3, 1e-3, 5e-4], 1.25e-4, t_end, reps=3)
        if "exudyn-targets" in chosen:
            _exudyn_targets(rows, [(16, 5e-3, 1.0), (4096, 1e-3, 0.02)], reps=TARGET_REPS)
        if "exudyn-grid" in chosen:
            _exudyn_grid(rows, [16, 64, 128, 256, 1024, 4096], [5e-3, 2e-3, 1e-3, 5e-4], GRID_STEPS)
    for r in rows:
        r.extend([""] * (len(COLUMNS) - len(r)))
    print(f"{'section':<18}{'method':<18}{'N':>6}{'k':>8}{'h':>10}{'steps':>9}{'iter':>7}{'cpu [s]':>10}{'err':>10}"
          f"{'us/it/node':>11}{'/exu eq.h':>10}{'/exu eq.err':>12}")
    for r in rows:
        print(f"{r[0]:<18}{r[1]:<18}{r[2]:>6}{r[3]:>8.0e}{r[4]:>10.2e}{r[5]:>9}{r[6]:>7}{r[7]:>10.3f}{r[8]:>10.2e}"
              + "".join(f"{v if v == '' else format(v, '.2f'):>{w}}" for v, w in ((r[9], 11), (r[11], 10), (r[12], 12))))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "stiff.csv"
    kept: list[list[str]] = []
    if len(chosen) < len(SECTIONS) and path.exists():
        with open(path, newline="", encoding="utf-8") as fh:
            old = list(csv.reader(fh))
        kept = [r + [""] * (len(COLUMNS) - len(r)) for r in old[1:] if r and r[0] not in chosen]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(kept + rows)
    logger.info("bench stiff written to %s", out_dir)
