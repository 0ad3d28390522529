"""App for case kinds ``nls`` and ``kdv``: Fourier pseudospectral NLS/KdV with the Poisson integrators.

Writes ``solution.npz`` (t, x, length, psi complex or u), ``diagnostics.csv`` (t, h, energy, mass,
momentum, iterations; one row per step) and ``paraview/<name>.pvd`` (1-D line meshes). ``hmax_study``
implements the written h_max criterion of Tables 2.3/2.4 (docs/exponential-integrators.md).

Initial data (the thesis states none; notes/003-ch2.md §5.0): ``soliton`` (exact, NLS focusing
κ = −1 / KdV), ``plane-wave`` (exact NLS), ``table`` (NLS ψ₀ = 0.5e^{ix}(1 + 0.2cos x) + 0.3e^{−2ix},
notes §6) and ``cos`` (KdV u₀ = cos x, Zabusky–Kruskal-like, for Table 2.4).
"""

from __future__ import annotations

import csv
import logging
import math
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.discretisations.spectral import NLS, FourierGrid, KdV, kdv_soliton, nls_plane_wave, nls_soliton
from lgbeam.integrators.poisson import POISSON_INTEGRATORS, integrate_poisson, make_poisson_integrator
from lgbeam.io.schema import Key

logger = logging.getLogger(__name__)

_INITIAL = ("soliton", "plane-wave", "table", "cos")

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="nls or kdv", choices=("nls", "kdv")),
    "name": Key(str, doc="case name (defaults to the file stem)"),
    "description": Key(str, "", doc="one line: purpose and source"),
    "grid": {
        "n": Key(int, 161, doc="number of nodes (odd)"),
        "length": Key(float, 2 * math.pi, doc="period L of the domain [0, L)"),
    },
    "nls": {
        "kappa": Key(float, 1.0, doc="i psi_t + psi_xx - 2 kappa |psi|^2 psi = 0: 1 defocusing (thesis), -1 focusing"),
        "form": Key(str, "complex", doc="state layout", choices=("real", "complex")),
    },
    "kdv": {"nu": Key(float, 5e-4, doc="u_t + u u_x + nu u_xxx = 0, nu > 0")},
    "initial": {
        "kind": Key(str, "table", doc="initial data", choices=_INITIAL),
        "amplitude": Key(float, 1.0, doc="NLS soliton eta / plane-wave amplitude; KdV soliton speed c"),
        "velocity": Key(float, 0.0, doc="NLS soliton velocity"),
        "wavenumber": Key(float, 1.0, doc="NLS plane-wave wavenumber"),
        "x0": Key(float, 0.0, doc="soliton centre at t = 0 (default: L/2 when 0)"),
    },
    "integrator": {
        "method": Key(str, "energy-exp", doc="Poisson integrator", choices=tuple(POISSON_INTEGRATORS)),
        "h": Key(float, 0.01, doc="fixed step size"),
        "tol": Key(float, 1e-14, doc="fixed-point relative tolerance"),
        "max_iter": Key(int, 100, doc="fixed-point iteration limit per solve"),
        "rtol": Key(float, None, doc="unused (fixed steps)"),
        "atol": Key(float, None, doc="unused (fixed steps)"),
    },
    "time": {"t0": Key(float, 0.0, doc="start time"), "t_end": Key(float, 1.0, doc="end time")},
    "output": {
        "every": Key(float, 0.1, doc="save interval (time units, rounded to whole steps)"),
        "vtk": Key(bool, True, doc="write the ParaView series"),
    },
}


def build(case: dict[str, Any]) -> tuple[Any, np.ndarray, Any]:
    """(system, y0, exact(t) or None) from a validated case."""
    grid = FourierGrid(int(case["grid"]["n"]), float(case["grid"]["length"]))
    ini = case["initial"]
    L = grid.length
    x0 = ini["x0"] if ini["x0"] != 0.0 else 0.5 * L
    exact = None
    if case["kind"] == "nls":
        system = NLS(grid, kappa=case["nls"]["kappa"], form=case["nls"]["form"])
        if ini["kind"] == "soliton":
            if system.kappa != -1.0:
                raise ValueError("initial.kind = 'soliton' needs the focusing NLS: set nls.kappa = -1")
            exact = lambda t: nls_soliton(grid.x, t, eta=ini["amplitude"], velocity=ini["velocity"], x0=x0, length=L)  # noqa: E731
        elif ini["kind"] == "plane-wave":
            exact = lambda t: nls_plane_wave(grid.x, t, amplitude=ini["amplitude"], wavenumber=ini["wavenumber"],  # noqa: E731
                                             kappa=system.kappa)
        elif ini["kind"] == "table":
            psi = grid.sample(lambda x: 0.5 * np.exp(1j * x) * (1 + 0.2 * np.cos(x)) + 0.3 * np.exp(-2j * x),
                              name="initial.kind = 'table'")
            return system, system.from_field(psi), None
        else:
            raise ValueError(f"initial.kind = {ini['kind']!r} is for KdV; NLS takes soliton, plane-wave or table")
        if ini["kind"] == "plane-wave":  # periodic only for wavenumbers on the grid's lattice 2πj/L
            grid.sample(lambda x: nls_plane_wave(x, 0.0, amplitude=ini["amplitude"], wavenumber=ini["wavenumber"]),
                        name="initial.kind = 'plane-wave'")
        return system, system.from_field(exact(0.0)), exact
    system = KdV(grid, nu=case["kdv"]["nu"])
    if ini["kind"] == "soliton":
        exact = lambda t: kdv_soliton(grid.x, t, c=ini["amplitude"], nu=system.nu, x0=x0, length=L)  # noqa: E731
        return system, exact(0.0), exact
    if ini["kind"] == "cos":
        return system, grid.sample(lambda x: np.cos(2 * np.pi * x / L), name="initial.kind = 'cos'"), None
    raise ValueError(f"initial.kind = {ini['kind']!r} is for NLS; KdV takes soliton or cos")


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False) -> RunSummary:
    """Integrate a validated ``nls``/``kdv`` case and write the run folder."""
    run_dir = Path(run_dir)
    system, y0, exact = build(case)
    integ = case["integrator"]
    method = make_poisson_integrator(integ["method"], tol=integ["tol"], max_iter=integ["max_iter"])
    h, t0, t_end = integ["h"], case["time"]["t0"], case["time"]["t_end"]
    save_every = max(1, int(round(case["output"]["every"] / h)))
    field_name = "psi" if case["kind"] == "nls" else "u"
    grid = system.grid
    series = None
    if case["output"]["vtk"]:
        from lgbeam.io.vtk import PVDSeries, line_frame
        series = PVDSeries(run_dir / "paraview" / f"{case['name']}.pvd")

    def observer(i: int, t: float, y: np.ndarray) -> None:
        if series is not None:
            series.write_frame(t, line_frame(grid.x, {field_name: system.to_field(y)}))

    try:
        res = integrate_poisson(system, method, y0, h=h, t_end=t_end, t0=t0, save_every=save_every,
                                monitor=system.invariants, observer=observer)
    finally:
        if series is not None:
            series.close()
    fields = np.stack([system.to_field(y) for y in res.y])
    np.savez(run_dir / "solution.npz", t=res.t, x=grid.x, length=grid.length, **{field_name: fields})
    cols = ["t", "h", "energy", "mass", "momentum", "iterations"]
    with open(run_dir / "diagnostics.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        w.writerows(np.column_stack([res.steps[c] for c in cols]).tolist())
    E = res.steps["energy"]
    extra = {"energy_error": float(np.max(np.abs(E - E[0])) / max(abs(E[0]), 1e-300)),
             "mean_iterations": float(res.iterations.mean()) if res.n_steps else 0.0}
    if exact is not None:
        extra["max_error_final"] = float(np.max(np.abs(fields[-1] - exact(res.t[-1] - t0))))
    status = "ok" if res.status == "ok" else ("interrupted" if res.status == "interrupted" else f"failed: {res.message}")
    return RunSummary(status=status, message=res.message, n_steps=res.n_steps, t_final=float(res.t[-1]), extra=extra)


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Max-norm and discrete-L² errors of the field at the reference's final time (same grid)."""
    key = "psi" if "psi" in reference else "u"
    t_ref = float(np.asarray(reference["t"])[-1])
    t = np.asarray(solution["t"])
    i = int(np.argmin(np.abs(t - t_ref)))
    if abs(t[i] - t_ref) > 1e-9 * max(1.0, abs(t_ref)):
        raise ValueError(f"solution has no saved time at the reference's final time {t_ref}; save at t_end")
    a, b = np.asarray(solution[key])[i], np.asarray(reference[key])[-1]
    if a.shape != b.shape:
        raise ValueError(f"solution and reference grids differ ({a.shape} vs {b.shape}); keep grid.n fixed in a time study")
    dx = float(reference["length"]) / b.size
    return {"max": float(np.max(np.abs(a - b))), "l2": float(np.sqrt(dx * np.sum(np.abs(a - b) ** 2)))}


# ------------------------------------------------------------------------------------ h_max study
THESIS_HMAX = {  # seed 003 Tables 2.3 (NLS) and 2.4 (KdV): h_max per method and n
    "nls": {"midpoint": {11: .02, 21: .01, 41: 4e-3, 61: 2e-3, 81: 1e-3, 121: 5e-4, 161: 2e-4, 201: 1e-4, 401: 4e-5},
            "midpoint-newton": dict.fromkeys((11, 21, 41, 61, 81, 121, 161, 201, 401), 0.1),
            "exp-midpoint": {11: .1, 21: .08, 41: .06, 61: .04, 81: .04, 121: .04, 161: .01, 201: 8e-3, 401: 5e-3},
            "discrete-gradient": {11: .02, 21: .01, 41: 4e-3, 61: 2e-3, 81: 1e-3, 121: 5e-4, 161: 2e-4, 201: 1e-4,
                                  401: 4e-5},
            "energy-exp": dict.fromkeys((11, 21, 41, 61, 81, 121, 161, 201, 401), 0.1),
            "disex": {11: .1, 21: .03, 41: .03, 61: .025, 81: .025, 121: .01, 161: .01, 201: 8e-3, 401: 4e-3}},
    "kdv": {"midpoint": {401: 4e-4, 601: 1e-4, 801: 6e-5, 1001: 3e-5, 1201: 1e-5, 1401: 1e-5},
            "midpoint-newton": {401: 4e-4, 601: 1e-4, 801: 5e-5, 1001: 3e-5, 1201: 1e-5, 1401: 1e-5},
            "exp-midpoint": {401: 8e-4, 601: 6e-4, 801: 6e-4, 1001: 6e-4, 1201: 6e-4, 1401: 6e-4},
            "discrete-gradient": {401: 4e-4, 601: 1e-4, 801: 5e-5, 1001: 3e-5, 1201: 1e-5, 1401: 1e-5},
            "energy-exp": dict.fromkeys((401, 601, 801, 1001, 1201, 1401), 0.005),
            "disex": {401: 4e-4, 601: 4e-4, 801: 1e-4, 1001: 1e-4, 1201: 1e-4, 1401: 1e-4}},
}


HMAX_CRITERION = (
    "h passes if, over the first 1000 steps from the case's initial data, (i) the fixed-point solver "
    "converges (tol = integrator.tol, at most integrator.max_iter iterations) at every step and (ii) "
    "max_k |H_k - H_0| <= 1e-2 |H_0|; h_max = the largest passing h, found by halving from h_hi "
    "(NLS 4.0, KdV 0.05) and then bisecting in log h to 5 %"
)


def passes_hmax_criterion(system: Any, method: Any, y0: np.ndarray, h: float, *, n_steps: int = 1000,
                          energy_tol: float = 1e-2) -> tuple[bool, float]:
    """The written h_max criterion (``HMAX_CRITERION``): over the first ``n_steps`` steps of size h,
    (i) the solver converges within its iteration limit at every step and (ii)
    max_k |H_k − H_0| / |H_0| ≤ energy_tol. Returns (passed, mean iterations)."""
    res = integrate_poisson(system, method, y0, h=h, t_end=n_steps * h, save_every=n_steps + 1,
                            log_failure=False)
    if res.status != "ok":
        return False, float("nan")
    E = res.steps["energy"]
    ok = bool(np.max(np.abs(E - E[0])) <= energy_tol * abs(E[0]))
    return ok, float(res.iterations.mean())


def _largest_passing_h(system: Any, method: Any, y0: np.ndarray, h_hi: float, rel_precision: float,
                       **crit: Any) -> tuple[float, float]:
    """Halve from ``h_hi`` until a step passes, then bisect in log h; (h_max or 0, mean iterations)."""
    hi, lo, its = h_hi, None, float("nan")
    ok, it = passes_hmax_criterion(system, method, y0, hi, **crit)
    if ok:
        return hi, it
    while lo is None and hi > 1e-7:
        ok, it = passes_hmax_criterion(system, method, y0, hi / 2, **crit)
        if ok:
            lo, its = hi / 2, it
        else:
            hi = hi / 2
    while lo is not None and hi / lo > 1 + rel_precision:
        mid = math.sqrt(hi * lo)
        ok, it = passes_hmax_criterion(system, method, y0, mid, **crit)
        lo, hi, its = (mid, hi, it) if ok else (lo, mid, its)
    return (lo if lo is not None else 0.0), its


def hmax_study(case: dict[str, Any], ns: list[int], methods: list[str] | None, out_dir: Path, *,
               n_steps: int = 1000, energy_tol: float = 1e-2, h_hi: float | None = None,
               rel_precision: float = 0.05) -> list[dict[str, Any]]:
    """Largest h passing ``passes_hmax_criterion`` for each method and n (seed 003 Tables 2.3/2.4).

    The bracket starts at ``h_hi`` (default 4.0 for NLS, 0.05 for KdV: well above every thesis value,
    so that no h_max is the top of the bracket) and halves until a step passes; then bisects in log h
    to ``rel_precision``. Writes ``out_dir/hmax.csv`` and ``out_dir/hmax.md`` (the table beside the
    thesis numbers) and returns the rows.
    """
    kind = case["kind"]
    methods = methods or list(POISSON_INTEGRATORS)
    unknown = [m for m in methods if m not in POISSON_INTEGRATORS or m == "exp-euler"]
    if unknown:
        raise ValueError(f"h_max study: unknown or explicit methods {unknown}; choose from "
                         f"{', '.join(m for m in POISSON_INTEGRATORS if m != 'exp-euler')}")
    h_hi = h_hi or (4.0 if kind == "nls" else 0.05)
    rows: list[dict[str, Any]] = []
    for n in ns:
        sub = {**case, "grid": {**case["grid"], "n": int(n)}}
        system, y0, _ = build(sub)
        for name in methods:
            m = make_poisson_integrator(name, tol=case["integrator"]["tol"], max_iter=case["integrator"]["max_iter"])
            h_max, its = _largest_passing_h(system, m, y0, h_hi, rel_precision, n_steps=n_steps,
                                            energy_tol=energy_tol)
            thesis = THESIS_HMAX.get(kind, {}).get(name, {}).get(int(n), float("nan"))
            row = {"method": name, "n": int(n), "h_max": h_max, "iter_avg": its, "thesis_h_max": thesis,
                   "ratio": h_max / thesis if thesis == thesis else float("nan")}
            logger.info("h_max %s n=%d: %.3g (thesis %.3g)", name, n, h_max, thesis)
            rows.append(row)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "hmax.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["method", "n", "h_max"])
        w.writeheader()
        w.writerows(rows)
    (out_dir / "hmax.md").write_text(hmax_markdown(rows, kind), encoding="utf-8")
    return rows


def hmax_markdown(rows: list[dict[str, Any]], kind: str) -> str:
    """The h_max table as Markdown: one row per n, one column per method, "ours / thesis (iters)"."""
    methods = list(dict.fromkeys(r["method"] for r in rows))
    ns = sorted({r["n"] for r in rows})
    cell = {(r["method"], r["n"]): r for r in rows}

    def fmt(r: dict[str, Any] | None) -> str:
        if r is None:
            return ""
        its = f" ({r['iter_avg']:.1f})" if r["iter_avg"] == r["iter_avg"] else ""
        return f"{r['h_max']:.3g}{its} / {r['thesis_h_max']:.3g}"

    head = f"h_max (mean iterations) / thesis h_max, {kind.upper()}; criterion: {HMAX_CRITERION}\n\n"
    lines = ["| n | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    lines += [f"| {n} | " + " | ".join(fmt(cell.get((m, n))) for m in methods) + " |" for n in ns]
    return head + "\n".join(lines) + "\n"
