"""``lgbeam bench stiff``: the implicit Lie group backends on the steel cantilever (docs/implicit.md).

Case ``cases/steel-cantilever-dynamic.toml`` (steel flat bar 40 × 10 mm, 4 m, 2 N step tip load, 1 s).
Sections of the table (one CSV, ``stiff.csv``; ``cpu_s`` is process CPU time, ``err`` the relative tip error
max_t |x_tip − x_ref| / max_t |x_ref − x_ref(0)| on 101 output times):

- ``accuracy``: gen-alpha and rattle-lgvi at h = 2, 1, 0.5 ms for N = 16 and 64; the reference is the
  Richardson extrapolation of gen-alpha at 1 and 0.5 ms (x₀.₅ + (x₀.₅ − x₁)/3);
- ``hedop5``: the explicit HEDOP5 at its loosest useful tolerance (rtol 1e-4): its step is bounded by
  stability (ω_max h ≲ 3), not accuracy, so its CPU per simulated second is measured on a window of
  ``HEDOP5_STEPS`` accepted steps and scaled to t_end (``note`` says so); any tolerance costs at least this;
- ``stiffness``: E and G multiplied by k = 10⁰ … 10⁴ (N = 16, 0.1 s): CPU per simulated second of gen-alpha
  (h = 1 ms) and of HEDOP5 (window as above);
- ``newton``: CPU per Newton iteration of gen-alpha for N = 16 … 4096 (5 steps of 1 ms after one warm-up
  step; ``per_node_us`` = cost per iteration per node: flat means O(N));
- ``exudyn``: Exudyn's generalized-α (``ObjectBeamGeometricallyExact``, ``NodeRigidBodyRotVecLG``, ρ∞ = 0.9,
  one thread, Newton relative tolerance 1e-4: its default 1e-8 stalls at round-off on this beam) side by side
  with gen-alpha on the same beam, N = 16, h = 1 and 0.5 ms, on the first 0.05 s (Exudyn cuts its steps here, so
  a full second costs it minutes), each against its own run at a quarter of the smallest h; skipped when
  ``import exudyn`` fails (optional extra ``pip install lgbeam[bench]``). Exudyn's beam is shear-deformable
  (EA, GA finite) where the case imposes Kirchhoff + inextensibility, so gen-alpha runs both; the row
  ``accuracy-cosserat`` repeats the 1-s accuracy study without constraints.
"""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

CASE = "cases/steel-cantilever-dynamic.toml"
COLUMNS = ["section", "method", "N", "k", "h", "steps", "iterations", "cpu_s", "err", "per_node_us", "note"]
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
    sol = integrate(rod, method, y0, (0.0, t_end), controller=ConstantStep(h), save=SaveAt(times=ts), diagnostics=False)
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


def exudyn_cantilever(n_el: int, h: float, t_end: float, rho_inf: float = 0.9) -> tuple[np.ndarray, float, int, int]:
    """Tip history (101 times), CPU, steps and Newton iterations of Exudyn's generalized-α on the case's beam (module docstring)."""
    import exudyn as exu
    from exudyn.itemInterface import (
        CoordinateConstraint,
        Force,
        MarkerNodeCoordinate,
        MarkerNodePosition,
        NodePointGround,
        NodeRigidBodyRotVecLG,
        ObjectBeamGeometricallyExact,
        SensorNode,
    )

    L, E, G, rho, w, hh, F = 4.0, 210e9, 81e9, 7850.0, 0.01, 0.04, 2.0
    from lgbeam.discretisations.rods import Material

    mat = Material.from_section(E=E, G=G, rho=rho, section="rectangle", width=w, height=hh)
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    sec = exu.BeamSection()
    # Exudyn strains (Γ, K) with the beam axis along local x; lgbeam's d3 is the axis, (d1, d2) the section axes:
    # lgbeam C_Γ = (GA1, GA2, EA), C_K = (EI1, EI2, GJ) → Exudyn (EA, GA, GA, GJ, EI, EI) in the matching frame
    GA1, GA2, EA = mat.C_Gamma
    EI1, EI2, GJ = mat.C_K
    sec.stiffnessMatrix = np.diag([EA, GA2, GA1, GJ, EI2, EI1])
    sec.massPerLength = float(mat.rhoA)
    J1, J2, J3 = mat.rhoJ
    sec.inertia = np.diag([J3, J2, J1])
    ds = L / n_el
    nodes = [mbs.AddNode(NodeRigidBodyRotVecLG(referenceCoordinates=[i * ds, 0, 0, 0, 0, 0])) for i in range(n_el + 1)]
    for i in range(n_el):
        mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]], length=ds, sectionData=sec))
    ground = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=mbs.AddNode(NodePointGround()), coordinate=0))
    for c in range(6):
        mbs.AddObject(CoordinateConstraint(markerNumbers=[ground, mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0],
                                                                                                    coordinate=c))]))
    mbs.AddLoad(Force(markerNumber=mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[-1])), loadVector=[0, 0, -F]))
    sens = mbs.AddSensor(SensorNode(nodeNumber=nodes[-1], storeInternal=True, writeToFile=False,
                                    outputVariableType=exu.OutputVariableType.Position))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = round(t_end / h)
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = rho_inf
    ss.timeIntegration.newton.relativeTolerance = 1e-4  # 1e-8 (default) stalls at round-off on this steel beam
    ss.timeIntegration.newton.absoluteTolerance = 1e-6
    ss.timeIntegration.verboseMode = 0
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = t_end / 100
    ss.parallel.numberOfThreads = 1
    ss.show.statistics = False
    solver = exu.MainSolverImplicitSecondOrder()
    c0 = time.process_time()
    solver.SolveSystem(mbs, ss)
    cpu = time.process_time() - c0
    data = np.asarray(mbs.GetSensorStoredData(sens))
    ts = np.linspace(0.0, t_end, 101)
    x = np.stack([np.interp(ts, data[:, 0], data[:, 1 + j]) for j in range(3)], axis=1)
    return x, cpu, int(solver.it.currentStepIndex), int(solver.it.newtonStepsCount)


def _exudyn(rows: list[list[Any]], hs: list[float], t_win: float) -> None:
    """Side by side on [0, t_win] (Exudyn cuts its steps on this beam, so a full second costs it minutes):
    Exudyn and gen-alpha (with the case's constraints and without, the shear-deformable beam Exudyn solves),
    each against its own reference (Exudyn at min(hs)/4; gen-alpha at min(hs)/4 too)."""
    try:
        import exudyn  # noqa: F401
    except ImportError:
        rows.append(["exudyn", "exudyn-gen-alpha", 16, 1, float("nan"), 0, 0, float("nan"), float("nan"), "",
                     "exudyn not installed (pip install lgbeam[bench])"])
        return
    h_ref = min(hs) / 4
    ref = exudyn_cantilever(16, h_ref, t_win)[0]
    for h in hs:
        x, cpu, steps, iters = exudyn_cantilever(16, h, t_win)
        rows.append(["exudyn", "exudyn-gen-alpha", 16, 1, h, steps, iters, cpu, _rel(x, ref), "",
                     f"t = {t_win} s; reference Exudyn at h = {h_ref:g}; Newton rtol 1e-4, one thread; shear-deformable"])
    for extra in ((), ("model.constraints=none",)):
        rod, y0 = _rod(["model.n_elements=16", *extra])
        ours_ref = _tip_run(rod, y0, "gen-alpha", h_ref, t_win)[0]
        for h in hs:
            x, cpu, sol = _tip_run(rod, y0, "gen-alpha", h, t_win)
            rows.append(["exudyn", "gen-alpha", 16, 1, h, sol.stats["n_steps"], sol.stats["n_iterations"], cpu,
                         _rel(x, ours_ref), "", f"t = {t_win} s; reference gen-alpha at h = {h_ref:g}; "
                         + ("constraints none (shear-deformable)" if extra else "kirchhoff+inextensible")])


def run(out_dir: Path, quick: bool) -> None:
    """Print the table and write ``out_dir/stiff.csv`` (columns ``COLUMNS``)."""
    rows: list[list[Any]] = []
    if quick:
        _accuracy(rows, 4, 0.01, [2e-3, 1e-3])
        _hedop5(rows, 4, 1, 0.01, "hedop5", [])
        _newton(rows, [4, 16])
    else:
        t_end, hs = 1.0, [2e-3, 1e-3, 5e-4]
        for n in (16, 64):
            _accuracy(rows, n, t_end, hs)
            _hedop5(rows, n, 1, t_end, "hedop5", [])
        _accuracy(rows, 16, t_end, hs, section="accuracy-cosserat", extra=("model.constraints=none",))
        _stiffness(rows, [1.0, 1e1, 1e2, 1e3, 1e4], 0.1)
        _newton(rows, [16, 64, 256, 1024, 4096])
        _exudyn(rows, [1e-3, 5e-4], 0.05)
    print(f"{'section':<18}{'method':<18}{'N':>6}{'k':>8}{'h':>10}{'steps':>9}{'iter':>7}{'cpu [s]':>10}{'err':>10}"
          f"{'us/it/node':>11}")
    for r in rows:
        print(f"{r[0]:<18}{r[1]:<18}{r[2]:>6}{r[3]:>8.0e}{r[4]:>10.2e}{r[5]:>9}{r[6]:>7}{r[7]:>10.3f}{r[8]:>10.2e}"
              f"{r[9] if r[9] == '' else format(r[9], '.2f'):>11}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "stiff.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)
    logger.info("bench stiff written to %s", out_dir)
