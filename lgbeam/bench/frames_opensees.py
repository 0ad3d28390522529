"""``lgbeam bench frames --sections opensees``: lgbeam's frame elements against OpenSeesPy at equal accuracy.

Two problems, each code (lgbeam ``model.element = "cosserat"``, lgbeam ``"corotational"``, OpenSees
``elasticBeamColumn`` + ``geomTransf Corotational``) measured against its OWN fine reference, so a code is not
charged for the other's model error; CPU is ``time.process_time`` of the solve alone (model built, kernels
warmed), best of ``reps`` for the figures the summary quotes, one thread.

1. **Gust** (review t4 rods-perf §2): ``cases/steel-frame-2storey`` made transient, load case ``wind`` (10 kN
   per floor corner, 20 kN per roof corner along +x) times a triangular pulse 0 → 1 at 0.1 s → 0 at 0.2 s, from
   rest to ``t_end`` = 1 s, undamped. Quantity: the roof-corner sway u_x(r3)(t) every 10 ms; error
   e = max_t |u − u_ref| / max_t |u_ref|. lgbeam: generalized-α (ρ∞ = 0.9, the review's setting), lumped
   mass. OpenSees: the same section numbers and lumped masses (translational ρA·ds/2 per element end with
   ``-mass``, rotary ρJ·ds/2 with ``ops.mass``), Newmark γ = ½, β = ¼, Newton, ``NormDispIncr`` 1e-8 as the
   OpenSees Examples Manual's dynamic Example 1b (Mazzoni & McKenna 2006), BandGeneral with RCM numbering.
   Own reference: the finest grid mesh M_f with Richardson in time over its two finest steps (both schemes are
   second order), plus the space correction to the mesh 2M_f measured at the coarsest step (for the Cosserat
   rod, second order in space, Richardson's limit of M_f and 2M_f).
2. **Snap-through** (Williams' toggle frame, Williams 1964 Q. J. Mech. Appl. Math. 17 451): two members from
   clamped supports at x = ±0.328752 m to an apex 0.0098044 m high, rigid apex, aluminium E = 71.016 GPa,
   rectangle 19.126 × 6.172 mm; apex load down. Quantity: the limit load P_lim (the first maximum of the load
   along the path), located by the vertex of the parabola through the three converged states around it
   (load against apex deflection), the same rule for both codes. lgbeam: arc length (``solve_static``),
   OpenSees: ``DisplacementControl`` of the apex deflection, Newton, ``NormDispIncr`` 1e-8 (Example 1b's
   static options with displacement in place of load control). Timed runs stop at the first state past the limit. Own reference: the
   finest mesh at the finest step.

Optional peer: ``pip install lgbeam[bench]`` (openseespy); without it the section prints one line and skips.
"""

from __future__ import annotations

import csv
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PULSE = (0.0, 0.1, 0.2)  # the gust's triangle: 0 at 0, 1 at 0.1 s, 0 at 0.2 s
RHO_INF = 0.9
OUT_DT = 0.01
CODES = ("cosserat", "corotational", "opensees")


@dataclass(frozen=True)
class GustGrid:
    """The meshes (elements per member) and steps of the gust comparison, per code."""

    t_end: float
    steps: tuple[float, ...]  # coarse → fine, each half the last
    meshes: dict[str, tuple[int, ...]]
    reps: int


@dataclass(frozen=True)
class SnapGrid:
    """Meshes and path steps of the snap-through comparison (lgbeam arc length, OpenSees displacement steps)."""

    meshes: tuple[int, ...]
    ref_mesh: int
    arcs: tuple[float, ...]  # lgbeam arc-length steps, coarse → fine; the reference: the last
    dws: tuple[float, ...]  # OpenSees apex displacement steps as fractions of the rise, coarse → fine; idem
    reps: int


def gust_grid(quick: bool) -> GustGrid:
    if quick:
        return GustGrid(0.1, (2e-3, 1e-3), {"cosserat": (2,), "corotational": (1,), "opensees": (1,)}, 1)
    return GustGrid(1.0, (2e-3, 1e-3, 5e-4), {"cosserat": (8, 16, 32), "corotational": (2, 4, 8),
                                              "opensees": (2, 4, 8)}, 3)


def snap_grid(quick: bool) -> SnapGrid:
    if quick:
        return SnapGrid((2,), 4, (0.08, 0.04), (1 / 4, 1 / 8), 1)
    return SnapGrid((2, 4, 10, 20), 40, (0.16, 0.08, 0.04, 0.02, 0.01), (1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64), 3)


def rel_err(u: np.ndarray, ref: np.ndarray) -> float:
    """max_t |u − ref| / max_t |ref|."""
    return float(np.max(np.abs(u - ref)) / np.max(np.abs(ref)))


# --------------------------------------------------------------------------------------------------- lgbeam


def frame_case(name_or_path: str, element: str, n_el: int, sets: Sequence[str] = ()) -> dict[str, Any]:
    """A frame case with ``model.element``, ``model.n_elements`` (lumped mass for the corotational element)."""
    from lgbeam.apps import load_case

    extra = [f'model.element="{element}"', f"model.n_elements={n_el}"]
    if element == "corotational":
        extra.append('model.mass="lumped"')
    case, _ = load_case(name_or_path, [*sets, *extra])
    return case


def gust_case(element: str, n_el: int, h: float, t_end: float) -> dict[str, Any]:
    """steel-frame-2storey, dynamic, its wind case times the triangular gust (module docstring)."""
    sets = ['analysis.kind="dynamic"', 'analysis.load_case="wind"', 'integrator.method="gen-alpha"',
            f"integrator.h={h}", f"time.t_end={t_end}", f"integrator.rho_inf={RHO_INF}"]
    case = frame_case("steel-frame-2storey", element, n_el, sets)
    for c in case["loads"]["cases"]:
        if c["name"] == "wind":
            for ld in c["nodal"]:
                ld.update(time="table", times=[*PULSE, 1e3], values=[0.0, 1.0, 0.0, 0.0])
    return case


def lgbeam_gust(element: str, n_el: int, h: float, t_end: float, reps: int = 1) -> tuple[np.ndarray, float, int]:
    """Roof sway u_x(r3) every 10 ms, the best CPU seconds of ``reps`` solves, Newton iterations."""
    from lgbeam.apps import frame as F
    from lgbeam.integrators import make_method
    from lgbeam.solve import ConstantStep, SaveAt, integrate

    prob = F.problem(gust_case(element, n_el, h, t_end))
    S = prob.system
    node = F.node_ids(gust_case(element, n_el, h, t_end), S)["r3"]
    ts = np.linspace(0.0, t_end, round(t_end / OUT_DT) + 1)
    opts = dict(prob.method_options)
    integrate(S, make_method("gen-alpha", **opts), prob.y0, (0.0, 2 * h), controller=ConstantStep(h), diagnostics=False)
    best, sol = float("inf"), None
    for _ in range(reps):
        c0 = time.process_time()
        sol = integrate(S, make_method("gen-alpha", **opts), prob.y0, (0.0, t_end), controller=ConstantStep(h),
                        save=SaveAt(times=ts[1:]), diagnostics=False)
        best = min(best, time.process_time() - c0)
        if str(sol.status) != "ok":
            raise RuntimeError(f"lgbeam {element} gust N={n_el} h={h}: {sol.status}")
    assert sol is not None
    x = S.G.translation(np.asarray(sol.q)[:, node])[:, 0] - S.G.translation(S.q_ref[node])[0]
    return np.concatenate([[0.0], x]), best, int(sol.stats.get("n_iterations") or 0)


TOGGLE = '''kind = "frame"
name = "toggle-frame"
description = "Williams' toggle frame (bench frames, section opensees)"
supports = [ {{ node = "a", kind = "clamped" }}, {{ node = "b", kind = "clamped" }} ]
[model]
n_elements = 8
constraints = "kirchhoff"
nodes = [ {{ name = "a", at = [{mx}, 0.0, 0.0] }}, {{ name = "c", at = [0.0, 0.0, {rise}] }},
          {{ name = "b", at = [{x}, 0.0, 0.0] }} ]
members = [
  {{ name = "m1", nodes = ["a", "c"], section = {sec}, material = {mat} }},
  {{ name = "m2", nodes = ["c", "b"], section = {sec}, material = {mat} }},
]
[loads]
nodal = [ {{ node = "c", force = [0.0, 0.0, {mp}] }} ]
[analysis]
kind = "static"
method = "arc-length"
richardson = false
[time]
t_end = 1.0
'''
HALF_SPAN, RISE, WIDTH, DEPTH, E_AL = 0.328752, 0.0098044, 0.0191262, 0.0061722, 71.016e9
P_REF = 200.0  # N: above the limit load of every mesh (about 150-160 N), so the arc-length path passes it


def toggle_case(element: str, n_el: int) -> dict[str, Any]:
    """Williams' toggle frame as a nodes + members case (in-plane bending: I_y = b d³/12; out of plane d b³/12)."""
    sec = (f"{{ A = {WIDTH * DEPTH!r}, Iy = {WIDTH * DEPTH**3 / 12!r}, Iz = {DEPTH * WIDTH**3 / 12!r}, "
           f"It = {0.26 * WIDTH * DEPTH**3!r} }}")
    mat = f"{{ E = {E_AL!r}, G = {E_AL / 2.6!r}, rho = 2700.0 }}"
    text = TOGGLE.format(mx=-HALF_SPAN, x=HALF_SPAN, rise=RISE, sec=sec, mat=mat, mp=-P_REF)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "toggle-frame.toml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return frame_case(path, element, n_el)


def limit_of(w: np.ndarray, p: np.ndarray) -> tuple[float, int]:
    """The first maximum of the load ``p`` along the path and its state index k (p[k+1] < p[k]): the vertex of the
    parabola through the states k−1, k, k+1 (load against deflection ``w``); (nan, −1) when the path has none."""
    drop = np.nonzero(np.diff(p) < 0.0)[0]
    if drop.size == 0 or drop[0] < 1:
        return float("nan"), -1
    k = int(drop[0])
    a = np.polyfit(w[k - 1:k + 2] / RISE, p[k - 1:k + 2], 2)
    return float(a[2] - a[1] ** 2 / (4.0 * a[0])), k


def lgbeam_snap(element: str, n_el: int, arc: float, reps: int = 1) -> tuple[float, float, int]:
    """Limit load [N], best CPU seconds of ``reps`` runs from the start to the first state past it, states."""
    from lgbeam.apps import frame as F
    from lgbeam.discretisations.rods.statics import solve_static

    case = toggle_case(element, n_el)
    fr = F.build(case)
    apex = F.node_ids(case, fr)["c"]
    kw: dict[str, Any] = {"t": 1.0, "method": "arc-length", "arc_length": arc, "load_factor": 1.0,
                          "stability_check": False, "branch_switch": False}
    p_lim, k, m = float("nan"), -1, 16
    while k < 0:  # where the limit lies: paths of 16, 32, 64, ... steps until one passes it
        path = solve_static(fr, max_steps=m, **kw)
        w = np.array([fr.G.translation(s.q[apex])[2] for s in path.states]) - RISE
        p_lim, k = limit_of(w, P_REF * np.array([s.load_factor for s in path.states]))
        if k < 0 and (not path.message.startswith("max_steps") or m > 4096):  # ended short of the cap
            if path.status == "ok":  # reached the full load without a limit (too coarse a mesh)
                return float("nan"), float("nan"), len(path.states)
            raise RuntimeError(f"lgbeam {element} toggle N={n_el} arc={arc}: no limit point ({path.message})")
        m *= 2
    best = float("inf")
    for _ in range(reps):
        c0 = time.process_time()
        solve_static(fr, max_steps=k + 1, **kw)
        best = min(best, time.process_time() - c0)
    return p_lim, best, k + 2


# ------------------------------------------------------------------------------------------------- OpenSees


def opensees_available() -> str | None:
    """OpenSeesPy's version, or None when ``import openseespy.opensees`` fails (the optional peer)."""
    try:
        import openseespy.opensees as ops
    except Exception:  # noqa: BLE001 - any import failure means: not available
        return None
    try:
        return str(ops.version())
    except Exception:  # noqa: BLE001
        return "?"


def opensees_model(frame: Any, fixed: Sequence[np.ndarray], *, mass: bool, transf: str = "Corotational") -> dict:
    """The OpenSees model of a built lgbeam frame of straight rods, rigidly joined (nodes at equal positions are
    one node), with lgbeam's own section numbers: one ``elasticBeamColumn`` per rod element (A = EA/E, I_y =
    EI₁/E about d₁, I_z = EI₂/E about d₂ (vecxz = d₂), J = GJ/G with E = 1, G = 1), ``geomTransf transf``;
    with ``mass`` the lumped mass of lgbeam (``-mass ρA``, OpenSees' lumped default, and ρJ·ds/2 rotary inertia
    per element end in global axes with ``ops.mass``, which takes the diagonal: the members must lie along
    global axes). Nodes at ``fixed`` positions are clamped. Returns {rounded position: node tag}."""
    import openseespy.opensees as ops

    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    G = frame.G
    tags: dict[tuple[float, ...], int] = {}
    rot: dict[int, np.ndarray] = {}

    def node(x: np.ndarray) -> int:
        key = tuple(np.round(x, 9) + 0.0)
        if key not in tags:
            tags[key] = len(tags) + 1
            ops.node(tags[key], *map(float, x))
            rot[tags[key]] = np.zeros(3)
        return tags[key]

    for k, (_, rod) in enumerate(frame.rods, start=1):
        X = G.translation(rod.q_ref)
        R = G.rotation(rod.q_ref[0])  # columns d1, d2, d3 (d3 along the member)
        ops.geomTransf(transf, k, *map(float, R[:, 1]))
        m = rod.material
        EI1, EI2, GJ = (float(v) for v in m.C_K)  # bending about d1, d2; torsion
        EA = float(m.C_Gamma[2])
        ids = [node(x) for x in X]
        ds = np.diff(rod.mesh.s)
        Jg = R @ np.diag(np.asarray(m.rhoJ, dtype=float)) @ R.T
        if mass and np.max(np.abs(Jg - np.diag(np.diag(Jg)))) > 1e-9 * np.max(np.abs(Jg)):
            raise ValueError("opensees_model: rotary inertia of a member off the global axes")
        for i in range(len(X) - 1):
            args: list[Any] = [ids[i], ids[i + 1], EA, 1.0, 1.0, GJ, EI1, EI2, k]
            if mass:
                args += ["-mass", float(m.rhoA)]
                rot[ids[i]] += 0.5 * ds[i] * np.diag(Jg)
                rot[ids[i + 1]] += 0.5 * ds[i] * np.diag(Jg)
            ops.element("elasticBeamColumn", 1000 * k + i, *args)
    for x in fixed:
        ops.fix(tags[tuple(np.round(x, 9) + 0.0)], 1, 1, 1, 1, 1, 1)
    if mass:
        for nd, J in rot.items():
            ops.mass(nd, 0.0, 0.0, 0.0, *map(float, J))
    return tags


def _named(case: dict[str, Any]) -> dict[str, np.ndarray]:
    return {n["name"]: np.asarray(n["at"], dtype=float) for n in case["model"]["nodes"]}


def _tag(tags: dict, x: np.ndarray) -> int:
    return int(tags[tuple(np.round(x, 9) + 0.0)])


def opensees_gust(n_el: int, h: float, t_end: float, reps: int = 1) -> tuple[np.ndarray, float, int]:
    """The gust in OpenSees (module docstring): roof sway u_x(r3) every 10 ms, best CPU of ``reps``, iterations."""
    import openseespy.opensees as ops

    from lgbeam.apps import frame as F

    case = gust_case("cosserat", n_el, h, t_end)
    fr = F.build(case)
    at = _named(case)
    wind = next(c for c in case["loads"]["cases"] if c["name"] == "wind")
    nout = round(t_end / OUT_DT)
    nsub = round(OUT_DT / h)
    best, u, its = float("inf"), np.zeros(nout + 1), 0
    for _ in range(reps):
        tags = opensees_model(fr, [at[s["node"]] for s in case["supports"]], mass=True)
        ops.timeSeries("Path", 1, "-time", *PULSE, 1e3, "-values", 0.0, 1.0, 0.0, 0.0)
        ops.pattern("Plain", 1, 1)
        for ld in wind["nodal"]:
            ops.load(_tag(tags, at[ld["node"]]), *map(float, ld["force"]), 0.0, 0.0, 0.0)
        ops.constraints("Plain")
        ops.numberer("RCM")
        ops.system("BandGeneral")
        ops.test("NormDispIncr", 1e-8, 10)
        ops.algorithm("Newton")
        ops.integrator("Newmark", 0.5, 0.25)
        ops.analysis("Transient")
        r3, its = _tag(tags, at["r3"]), 0
        c0 = time.process_time()
        for j in range(1, nout + 1):
            for _ in range(nsub):
                if ops.analyze(1, h) != 0:
                    raise RuntimeError(f"OpenSees gust N={n_el} h={h}: analyze failed at t = {ops.getTime():.4g}")
                its += ops.testIter()
            u[j] = ops.nodeDisp(r3, 1)
        best = min(best, time.process_time() - c0)
    ops.wipe()
    return u.copy(), best, its


def opensees_snap(n_el: int, dw: float, reps: int = 1) -> tuple[float, float, int]:
    """Limit load [N] of the toggle frame in OpenSees by displacement control of the apex (step ``dw`` × rise),
    best CPU of ``reps`` runs to the first state past the limit, states."""
    import openseespy.opensees as ops

    from lgbeam.apps import frame as F

    case = toggle_case("cosserat", n_el)
    fr = F.build(case)
    at = _named(case)
    best, p_lim, n = float("inf"), float("nan"), 0
    for _ in range(reps):
        tags = opensees_model(fr, [at["a"], at["b"]], mass=False)
        apex = _tag(tags, at["c"])
        ops.timeSeries("Linear", 1)
        ops.pattern("Plain", 1, 1)
        ops.load(apex, 0.0, 0.0, -P_REF, 0.0, 0.0, 0.0)
        ops.constraints("Plain")
        ops.numberer("RCM")
        ops.system("BandGeneral")
        ops.test("NormDispIncr", 1e-8, 10)
        ops.algorithm("Newton")
        ops.integrator("DisplacementControl", apex, 3, -dw * RISE)
        ops.analysis("Static")
        w, p = [0.0], [0.0]
        c0 = time.process_time()
        while len(p) < 100000:
            if ops.analyze(1) != 0:
                raise RuntimeError(f"OpenSees toggle N={n_el} dw={dw}: analyze failed at w = {w[-1]:.4g}")
            w.append(ops.nodeDisp(apex, 3))
            p.append(P_REF * ops.getLoadFactor(1))
            if p[-1] < p[-2] or w[-1] < -3.0 * RISE:  # past the limit, or none (too coarse a mesh)
                break
        best = min(best, time.process_time() - c0)
        p_lim, _ = limit_of(np.array(w), np.array(p))
        n = len(p)
    ops.wipe()
    return p_lim, best, n


# --------------------------------------------------------------------------------------------------- tables


Row = list[Any]
HEADER = ["problem", "code", "n_el", "step", "cpu_s", "reps", "iterations_or_states", "value", "error", "note"]


def _gust_runner(code: str) -> Callable[..., tuple[np.ndarray, float, int]]:
    if code == "opensees":
        return opensees_gust
    return lambda n, h, t, reps=1: lgbeam_gust(code, n, h, t, reps)


def gust_reference(runs: dict[tuple[int, float], np.ndarray], extra: np.ndarray, code: str,
                   grid: GustGrid) -> tuple[np.ndarray, float, float]:
    """Own reference (module docstring): finest mesh, Richardson in time over the two finest steps, plus the space
    correction to 2M_f at the coarsest step. Returns it with the sizes of the time and space corrections."""
    mf = grid.meshes[code][-1]
    h1, h2 = grid.steps[-2], grid.steps[-1]
    hs = grid.steps[0]
    t_part = runs[(mf, h2)] + (runs[(mf, h2)] - runs[(mf, h1)]) / 3.0
    cont = extra + (extra - runs[(mf, hs)]) / 3.0 if code == "cosserat" else extra
    s_part = cont - runs[(mf, hs)]
    ref = t_part + s_part
    scale = float(np.max(np.abs(ref)))
    return ref, float(np.max(np.abs(t_part - runs[(mf, h2)]))) / scale, float(np.max(np.abs(s_part))) / scale


def gust(rows: list[Row], grid: GustGrid, codes: Sequence[str]) -> dict[str, Any]:
    """The gust comparison (module docstring, problem 1): grid runs, own references, errors, equal accuracy."""
    summary: dict[str, Any] = {}
    print(f"\ngust on steel-frame-2storey, {grid.t_end:g} s: roof sway u_x(r3), error vs each code's own reference")
    print(f"{'code':>13}{'el/mem':>7}{'h ms':>7}{'CPU s':>9}{'its':>7}{'error':>10}")
    for code in codes:
        run = _gust_runner(code)
        runs: dict[tuple[int, float], np.ndarray] = {}
        cpu: dict[tuple[int, float], float] = {}
        its: dict[tuple[int, float], int] = {}
        for n in grid.meshes[code]:
            for h in grid.steps:
                runs[(n, h)], cpu[(n, h)], its[(n, h)] = run(n, h, grid.t_end)
        mx = 2 * grid.meshes[code][-1]
        extra, _, _ = run(mx, grid.steps[0], grid.t_end)
        ref, e_t, e_s = gust_reference(runs, extra, code, grid)
        err = {k: rel_err(u, ref) for k, u in runs.items()}
        for (n, h), e in sorted(err.items()):
            print(f"{code:>13}{n:>7}{1e3 * h:>7g}{cpu[(n, h)]:>9.3f}{its[(n, h)]:>7}{e:>10.2e}")
            rows.append(["gust", code, n, h, cpu[(n, h)], 1, its[(n, h)], float(np.max(np.abs(runs[(n, h)]))), e, "grid run"])
        # space error of a mesh: its time-Richardson history against the reference
        n8 = 8 if 8 in grid.meshes[code] else grid.meshes[code][-1]
        h1, h2 = grid.steps[-2], grid.steps[-1]
        e_space = rel_err(runs[(n8, h2)] + (runs[(n8, h2)] - runs[(n8, h1)]) / 3.0, ref)
        rows.append(["gust", code, n8, 0.0, float("nan"), 0, 0, float(np.max(np.abs(ref))), e_space,
                     (f"space error at {n8} el/member (time-Richardson {1e3 * h1:g}/{1e3 * h2:g} ms) vs own reference; "
                      f"reference: time correction {e_t:.1e}, space correction {e_s:.1e}")])
        print(f"{code:>13}: reference peak sway {1e3 * np.max(np.abs(ref)):.3f} mm (time correction {e_t:.1e}, space "
              f"correction {e_s:.1e}); space error at {n8} el/member {e_space:.2e}")
        summary[code] = {"ref": ref, "space": (n8, e_space), "best": {}}
        for target in (1e-2, 1e-3):
            ok = [(cpu[k], k) for k, e in err.items() if e <= target]
            if not ok:
                rows.append(["gust", code, 0, 0.0, float("nan"), 0, 0, target, float("nan"), f"no grid run within {target:g}"])
                print(f"{code:>13}: no grid run within {target:g}")
                continue
            _, (n, h) = min(ok)
            _, c, _ = run(n, h, grid.t_end, grid.reps)
            c = min(c, cpu[(n, h)])
            summary[code]["best"][target] = (c, n, h, err[(n, h)])
            rows.append(["gust", code, n, h, c, grid.reps + 1, its[(n, h)], target, err[(n, h)],
                         f"cheapest grid run within {target:g} (best of {grid.reps + 1})"])
    return summary


def snap(rows: list[Row], grid: SnapGrid, codes: Sequence[str]) -> dict[str, Any]:
    """The snap-through comparison (module docstring, problem 2)."""
    summary: dict[str, Any] = {}
    print("\nWilliams' toggle frame: limit load, error vs each code's own reference "
          f"({grid.ref_mesh} el/member, the finest step, half the grid's)")
    print(f"{'code':>13}{'el/mem':>7}{'step':>8}{'P_lim N':>12}{'CPU s':>9}{'states':>7}{'error':>10}")
    for code in codes:
        steps = grid.dws if code == "opensees" else grid.arcs
        run: Callable[..., tuple[float, float, int]] = opensees_snap if code == "opensees" else \
            (lambda n, s, reps=1, c=code: lgbeam_snap(c, n, s, reps))
        ref, _, _ = run(grid.ref_mesh, steps[-1])
        res = {(n, s): run(n, s) for n in grid.meshes for s in steps[:-1]}
        err = {k: abs(v[0] - ref) / ref for k, v in res.items()}  # nan: no limit point on that mesh
        for (n, s), (p, c, m) in sorted(res.items()):
            print(f"{code:>13}{n:>7}{s:>8.4g}{p:>12.5f}{c:>9.3f}{m:>7}{err[(n, s)]:>10.2e}")
            rows.append(["snap", code, n, s, c, 1, m, p, err[(n, s)], "grid run"])
        n10 = 10 if 10 in grid.meshes else grid.meshes[-1]
        e10 = err[(n10, steps[-2])]
        rows.append(["snap", code, grid.ref_mesh, steps[-1], float("nan"), 0, 0, ref, 0.0, "own reference"])
        print(f"{code:>13}: reference P_lim = {ref:.5f} N; error at {n10} el/member (step {steps[-2]:g}) {e10:.2e}")
        summary[code] = {"ref": ref, "e10": (n10, e10), "best": None}
        ok = [(v[1], k) for k, v in res.items() if err[k] <= 1e-3]
        if not ok:
            rows.append(["snap", code, 0, 0.0, float("nan"), 0, 0, 1e-3, float("nan"), "no grid run within 0.001"])
            continue
        _, (n, s) = min(ok)
        _, c, m = run(n, s, grid.reps)
        c = min(c, res[(n, s)][1])
        summary[code]["best"] = (c, n, s, err[(n, s)], m)
        rows.append(["snap", code, n, s, c, grid.reps + 1, m, res[(n, s)][0], err[(n, s)],
                     f"cheapest grid run within 0.001 (best of {grid.reps + 1})"])
    return summary


def _cell(best: tuple[Any, ...] | None, unit: str) -> str:
    """``"0.84 s (8, 2 ms)"``: CPU, elements per member and step (ms) or states; ``-`` where none reached it."""
    if best is None:
        return "-"
    if unit == "ms":
        return f"{best[0]:.2f} s ({best[1]}, {1e3 * best[2]:g} ms)"
    return f"{best[0]:.2f} s ({best[1]}, {best[4]} st.)"


def _pair(n_err: tuple[int, float]) -> str:
    """``"1.23e-03 (8 el.)"``: an error and the elements per member it belongs to."""
    return f"{n_err[1]:.2e} ({n_err[0]} el.)"


def print_summary(g: dict[str, Any], s: dict[str, Any]) -> None:
    """The side-by-side table of the figures docs/benchmarks.md quotes."""
    print("\nsummary (CPU s, one thread; each code against its own reference)")
    print(f"{'':>34}" + "".join(f"{c:>22}" for c in g))
    n8 = "".join(f"{_pair(g[c]['space']):>22}" for c in g)
    print(f"{'gust: space error at 8 el/member':>34}{n8}")
    for t in (1e-2, 1e-3):
        cells = "".join(f"{_cell(g[c]['best'].get(t), 'ms'):>22}" for c in g)
        print(f"{f'gust: CPU to error <= {t:g}':>34}{cells}")
    if s:
        print(f"{'snap: P_lim error at 10 el/member':>34}"
              + "".join(f"{_pair(s[c]['e10']):>22}" for c in s))
        cells = "".join(f"{_cell(s[c]['best'], 'st.'):>22}" for c in s)
        print(f"{'snap: CPU to P_lim within 1e-3':>34}{cells}")


def run(out_dir: Path, quick: bool, rows_out: list[Row] | None = None) -> None:
    """Both comparisons; writes ``out_dir/frames_opensees.csv``. Without OpenSeesPy one line and no rows."""
    version = opensees_available()
    if version is None:
        print("opensees: openseespy not installed (pip install lgbeam[bench]): comparison skipped")
        return
    rows: list[Row] = []
    g = gust(rows, gust_grid(quick), CODES)
    s = snap(rows, snap_grid(quick), CODES)
    print_summary(g, s)
    rows.append(["machine", f"openseespy {version}", 0, 0.0, float("nan"), 0, 0, os.cpu_count(), float("nan"),
                 "quick" if quick else "full"])
    with open(out_dir / "frames_opensees.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        w.writerows(rows)
    print(f"wrote {out_dir / 'frames_opensees.csv'}")
    if rows_out is not None:
        rows_out.extend(rows)
