"""App for case kinds ``nls`` and ``kdv``: Fourier pseudospectral NLS/KdV with the Poisson integrators.

Writes ``solution.npz`` (t, x, length, psi complex or u), ``diagnostics.csv`` (the runner's columns with
energy, mass and momentum; one row per step) and ``paraview/<name>.pvd`` (1-D line meshes). The h_max
study of Tables 2.3/2.4 is ``lgbeam.studies.spectral_hmax``.

Initial data (the thesis states none; notes/003-ch2.md §5.0): ``soliton`` (exact, NLS focusing
κ = −1 / KdV), ``plane-wave`` (exact NLS), ``table`` (NLS ψ₀ = 0.5e^{ix}(1 + 0.2cos x) + 0.3e^{−2ix},
notes §6) and ``cos`` (KdV u₀ = cos x, Zabusky–Kruskal-like, for Table 2.4).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam._typing import Array
from lgbeam.apps import RunSummary
from lgbeam.apps._runner import Problem, check_work, run_problem
from lgbeam.discretisations.spectral import (
    NLS,
    FourierGrid,
    KdV,
    SpectralPDE,
    kdv_soliton,
    nls_plane_wave,
    nls_soliton,
)
from lgbeam.integrators.poisson.base import energy_parts
from lgbeam.integrators.poisson.stage import STAGE_SOLVERS
from lgbeam.integrators.registry import method_entry, methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.solve import Solution
from lgbeam.systems import SemilinearPoissonSystem, SpectralPoissonSystem

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
        "kappa": Key(float, 1.0,
                     doc="i psi_t + psi_xx - 2 kappa |psi|^2 psi = 0: 1 defocusing (thesis), -1 focusing"),
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
    "integrator": integrator_section(
        (*methods_for(SemilinearPoissonSystem), *methods_for(SpectralPoissonSystem)), "etd35", h=0.01,
        rtol=None, atol=None,
        tol=Key(float, 1e-14, doc="fixed-point relative tolerance"),
        max_iter=Key(int, 100, doc="fixed-point iteration limit per solve"),
        stage=Key(str, "auto", choices=STAGE_SOLVERS,
                  doc="stage solver of exp-midpoint, disex and the exp-* compositions: 'auto' (exact stage "
                  "on NLS; on KdV the fixed point where it contracts, Newton–Krylov where it cannot), "
                  "'newton', 'exact' (NLS only) or 'fixed-point' (Tables 2.3/2.4); the other methods solve "
                  "by the fixed point (docs/exponential-integrators.md)"),
        project=Key(bool, False, doc="etd35: project every step onto the energy, mass and momentum level set "
                    "(kept to round-off on any horizon, 1.5-3x the CPU; docs/spectral.md)")),
    "time": time_section(1.0),
    "output": output_section(0.1),
}


WORK_BYTES_PER_NODE = 2_000  # measured ~0.6 kB a node (disex, grid.n = 1e5 and 4e5); margin for the stages

Exact = Callable[[float], Array]
"""An exact solution t ↦ state (NLS: the field ψ)."""


def invariants(system: SpectralPDE, y: Array) -> dict[str, float]:
    """The per-step record (energy, mass, momentum) and the energy check's scale |½⟨y, Ay⟩| + |U| (driver)."""
    return {**system.invariants(y), "energy_scale": energy_parts(system, y)["energy_scale"]}


def build(case: dict[str, Any]) -> tuple[SpectralPDE, Array, Exact | None]:
    """(system, y0, exact(t) or None) from a validated case (refused first when too big for memory)."""
    n = int(case["grid"]["n"])
    check_work(case, WORK_BYTES_PER_NODE * max(n, 0), f"a grid of {n} nodes", "use a coarser grid (grid.n)")
    advice = "check initial.amplitude, velocity, wavenumber and the grid"
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            system, y0, exact = _build(case)
    except OverflowError as exc:
        raise ValueError(f"the initial data overflow ({exc}); {advice}") from None
    if not np.all(np.isfinite(y0)):
        raise ValueError(f"the initial data are not finite; {advice}")
    return system, y0, exact


def _build(case: dict[str, Any]) -> tuple[SpectralPDE, Array, Exact | None]:
    grid = FourierGrid(int(case["grid"]["n"]), float(case["grid"]["length"]))
    ini = case["initial"]
    L = grid.length
    x0 = ini["x0"] if ini["x0"] != 0.0 else 0.5 * L
    exact: Exact
    if case["kind"] == "nls":
        nls = NLS(grid, kappa=case["nls"]["kappa"], form=case["nls"]["form"])
        if ini["kind"] == "soliton":
            if nls.kappa != -1.0:
                raise ValueError("initial.kind = 'soliton' needs the focusing NLS: set nls.kappa = -1")
            exact = lambda t: nls_soliton(grid.x, t, eta=ini["amplitude"], velocity=ini["velocity"], x0=x0,
                                          length=L)
        elif ini["kind"] == "plane-wave":
            exact = lambda t: nls_plane_wave(grid.x, t, amplitude=ini["amplitude"],
                                             wavenumber=ini["wavenumber"], kappa=nls.kappa)
        elif ini["kind"] == "table":
            psi = grid.sample(lambda x: 0.5 * np.exp(1j * x) * (1 + 0.2 * np.cos(x)) + 0.3 * np.exp(-2j * x),
                              name="initial.kind = 'table'")
            return nls, nls.from_field(psi), None
        else:
            raise ValueError(f"initial.kind = {ini['kind']!r} is for KdV; NLS takes soliton, plane-wave or "
                             "table")
        if ini["kind"] == "plane-wave":  # periodic only for wavenumbers on the grid's lattice 2πj/L
            grid.sample(lambda x: nls_plane_wave(x, 0.0, amplitude=ini["amplitude"],
                                                 wavenumber=ini["wavenumber"]),
                        name="initial.kind = 'plane-wave'")
        return nls, nls.from_field(exact(0.0)), exact
    kdv = KdV(grid, nu=case["kdv"]["nu"])
    if ini["kind"] == "soliton":
        exact = lambda t: kdv_soliton(grid.x, t, c=ini["amplitude"], nu=kdv.nu, x0=x0, length=L)
        return kdv, exact(0.0), exact
    if ini["kind"] == "cos":
        return kdv, grid.sample(lambda x: np.cos(2 * np.pi * x / L), name="initial.kind = 'cos'"), None
    raise ValueError(f"initial.kind = {ini['kind']!r} is for NLS; KdV takes soliton or cos")


def method_options(integ: dict[str, Any]) -> dict[str, Any]:
    """The case's solver keys (tol, max_iter, stage, project) that ``integrator.method`` takes.

    ``integrator.stage`` goes to the methods with a stage option; the others solve by the fixed point (or are
    explicit), for which "auto" and "fixed-point" are the same, so only 'newton'/'exact' are refused for them.
    """
    entry = method_entry(integ["method"])
    options: dict[str, Any] = {key: integ[key] for key in ("tol", "max_iter", "stage", "project")
                               if key in entry.options}
    if integ["project"] and "project" not in entry.options:
        raise ValueError(f"integrator.project = true needs integrator.method = 'etd35' (got "
                         f"{integ['method']!r}, which has no projection): drop integrator.project or use etd35")
    if "stage" not in entry.options and integ["stage"] not in ("auto", "fixed-point"):
        raise ValueError(f"integrator.stage = {integ['stage']!r} needs a method with a stage solver choice "
                         f"(exp-midpoint, disex, exp-suzuki4, ...); {integ['method']!r} has none: "
                         "drop integrator.stage or choose another integrator.method")
    return options


def problem(case: dict[str, Any]) -> tuple[Problem, Exact | None]:
    """(the runner's ``Problem``, exact(t) or None) of a validated ``nls``/``kdv`` case."""
    from lgbeam.io.vtk import line_frame

    system, y0, exact = build(case)
    field_name = "psi" if case["kind"] == "nls" else "u"
    grid = system.grid
    options = method_options(case["integrator"])

    def arrays(sol: Solution) -> dict[str, Any]:
        fields = np.stack([system.to_field(y) for y in sol.y])
        return {"t": sol.t, "x": grid.x, "length": grid.length, field_name: fields}

    def summary(sol: Solution) -> dict[str, Any]:
        E, its = sol.summary["energy"], sol.summary["iterations"]
        dev = max(abs(E["max"] - E["first"]), abs(E["min"] - E["first"]))
        extra = {"energy_error": float(dev / max(abs(E["first"]), 1e-300)),
                 "mean_iterations": float(its["sum"] / sol.n_steps) if sol.n_steps else 0.0}
        if exact is not None:
            final = system.to_field(sol.final)
            extra["max_error_final"] = float(np.max(np.abs(final - exact(sol.t[-1] - case["time"]["t0"]))))
        return extra

    frame = lambda y: line_frame(grid.x, {field_name: system.to_field(y)})
    return Problem(system, y0, frame, arrays, summary=summary, diagnostics=lambda t, y: invariants(system, y),
                   method_options=options, work_bytes=WORK_BYTES_PER_NODE * grid.n_nodes), exact


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate a validated ``nls``/``kdv`` case and write the run folder."""
    prob, _ = problem(case)
    return run_problem(case, run_dir, prob, progress=progress, resume=resume)


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
        raise ValueError(f"solution and reference grids differ ({a.shape} vs {b.shape}); keep grid.n "
                         "fixed in a time study")
    dx = float(reference["length"]) / b.size
    return {"max": float(np.max(np.abs(a - b))), "l2": float(np.sqrt(dx * np.sum(np.abs(a - b) ** 2)))}
