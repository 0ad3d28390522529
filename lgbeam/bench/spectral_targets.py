"""``lgbeam bench spectral --targets``: lgbeam's best against the best peer at errors 1e-6 and 1e-8 (issues
18, 26).

Benchmark, not a timed test. Problems (``PROBLEMS``; error = relative ℓ² at T, as the t3 review measured):

- ``nls-soliton``: focusing NLS soliton, N = 1023, L = 60, T = 10 (exact solution);
- ``kdv-soliton``: case kdv-soliton, c = 1, N = 255, L = 80, T = 2 (exact);
- ``kdv-c4``: the c = 4 soliton (amplitude 12), N = 255, L = 40, T = 2 (exact) — issue 26's target problem;
- ``kdv-two``: two solitons c = 4 at x = 15 and c = 1 at x = 22 (sum of the two profiles: overlapping tails,
  the fast one overtakes the slow one), N = 511, L = 80, T = 5; reference ETDRK4 at h = T/20000 (1e-10 to
  h = T/10000 measured), computed once per run of the bench;
- ``nls-breather`` (issue 35): the Akhmediev breather a = ¼ (``nls_akhmediev``) on two of its periods, L = 4π,
  N = 255, from t = −3 to 3 (it grows from the unstable background, peaks at t = 0 and decays; the period-2
  subharmonic is unstable too, so every error is amplified); exact solution;
- ``kdv-three`` (issue 35): three solitons c = 4, 1.96, 1 at x = 30, 40, 47 on L = 100 (``kdv_multisoliton``,
  Hirota), N = 511, T = 6: the fast one passes through the other two; exact solution.
- ``nls-bound2`` (issue 35): the Satsuma–Yajima bound state of two solitons (``nls_bound_state``, ψ₀ =
  √2 sech(x/√2)), L = 56√2, N = 1023, T = 1: it narrows to twice its height at t = π/4 and widens again (a
  breather on a zero background; exact solution, the domain's tails e^{−28} ≈ 7e-13).
- ``kdv-zk`` (issue 35): Zabusky & Kruskal's experiment, u₀ = cos πx on L = 2, ν = 0.022², N = 255, T = 1
  (≈ 3 breaking times: the cosine steepens and splits into a train of solitons; stiff, ν k_max³ ≈ 3e4);
  reference ETDRK4 at h = T/20000 (3e-10 from h = T/10000, so ≈ 2e-11), computed once per run.

Peers, all in Fourier space on the system's own ``sa_symbol`` and nonlinear term (``_fourier_ops``):
ETDRK4 (``lgbeam.bench.spectral.etdrk4_step``, coefficients computed inside the timed run) and rkstiff's
adaptive ETD35 (``SolverConfig(epsilon)``, an optional extra: ``pip install rkstiff``; without it its rows
say so). lgbeam: the exp-* compositions (stage "auto", cubic predictor) with the solver tolerances 1e-9,
1e-10 and 1e-12 (all swept: the front picks), energy-exp4 (tol 1e-14).

CPU time (``time.process_time``) of whole runs, single thread; ``REPEATS`` interleaved rounds over every
(method, parameter), the minimum kept. The CPU time at a target is interpolated log–log along each method's
Pareto front (runs no other run of it beats in both CPU time and error; the review's point: a bracketing
pair off the front overstates the cost); "≤" where the cheapest front run is already below the target.
Ratios: to the best peer at that target and to ETDRK4.
"""

from __future__ import annotations

import csv
import importlib.util
import itertools
import logging
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from lgbeam._typing import Array
from lgbeam.bench.spectral import _fourier_ops, _problems, etdrk4_step
from lgbeam.discretisations.spectral import (
    NLS,
    FourierGrid,
    KdV,
    SpectralPDE,
    akhmediev_period,
    kdv_multisoliton,
    kdv_soliton,
    nls_akhmediev,
    nls_bound_state,
)
from lgbeam.integrators.registry import make_method
from lgbeam.solve import AdaptiveStep, ConstantStep, SaveAt, integrate

logger = logging.getLogger(__name__)

TARGETS = (1e-6, 1e-8)
REF_STEPS = 20000  # the two-soliton reference: ETDRK4 at h = T/REF_STEPS
REPEATS = 3
PEERS = ("etdrk4", "etd35")
COMPOSITION = {"predictor": "cubic", "stage": "auto"}
METHODS: dict[str, dict[str, Any]] = {  # label -> make_method name and options (peers: {})
    "etdrk4": {},
    "etd35": {},
    "exp-suzuki4": {"name": "exp-suzuki4", **COMPOSITION},
    "exp-yoshida6": {"name": "exp-yoshida6", **COMPOSITION},
    "exp-kahan-li6": {"name": "exp-kahan-li6", **COMPOSITION},
    "exp-kahan-li8": {"name": "exp-kahan-li8", **COMPOSITION},
    "energy-exp4": {"name": "energy-exp4", "predictor": "cubic"},
    "lg-etd35": {"name": "etd35"},  # lgbeam's ETD(3,5) under AdaptiveStep(rtol = atol = param) (issue 35)
}
TOLS = (1e-9, 1e-10, 1e-12)  # the compositions' solver tolerances (energy-exp4: its 1e-14)
SWEEPS: dict[str, tuple[float, ...]] = {  # steps on the NLS and c = 1 problems; ETD35: its epsilons
    "etdrk4": (1 / 20, 1 / 40, 1 / 80, 1 / 160, 1 / 320),
    "etd35": (1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9),
    "exp-suzuki4": (1 / 20, 1 / 40, 1 / 80, 1 / 160, 1 / 320),
    "exp-yoshida6": (1 / 10, 1 / 20, 1 / 40, 1 / 80, 1 / 160),
    "exp-kahan-li6": (1 / 10, 1 / 20, 1 / 40, 1 / 80, 1 / 160),
    "exp-kahan-li8": (1 / 5, 1 / 10, 1 / 20, 1 / 40, 1 / 80),
    "energy-exp4": (1 / 10, 1 / 20, 1 / 40, 1 / 80),
    "lg-etd35": (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10),
}
# problem -> (N, T, step scale of SWEEPS (the c = 4 soliton is 8× faster: c^{3/2}), methods run)
PROBLEMS: dict[str, tuple[int, float, float, tuple[str, ...]]] = {
    "nls-soliton": (1023, 10.0, 1.0, tuple(METHODS)),
    "kdv-soliton": (255, 2.0, 1.0, tuple(METHODS)),
    "kdv-c4": (255, 2.0, 1 / 8, tuple(METHODS)),
    "kdv-two": (
        511,
        5.0,
        1 / 8,
        ("etdrk4", "etd35", "exp-suzuki4", "exp-yoshida6", "exp-kahan-li6", "lg-etd35"),
    ),
    "nls-breather": (255, 6.0, 1 / 2, tuple(METHODS)),
    "kdv-three": (
        511,
        6.0,
        1 / 8,
        ("etdrk4", "etd35", "exp-suzuki4", "exp-yoshida6", "exp-kahan-li6", "energy-exp4", "lg-etd35"),
    ),
    "nls-bound2": (1023, 1.0, 1 / 8, tuple(METHODS)),
    "kdv-zk": (
        255,
        1.0,
        1 / 16,
        ("etdrk4", "etd35", "exp-suzuki4", "exp-yoshida6", "exp-kahan-li6", "energy-exp4", "lg-etd35"),
    ),
}
QUICK = {"nls-soliton": (65, 1.0), "kdv-soliton": (65, 0.5), "kdv-c4": (65, 0.25), "kdv-two": (129, 0.2),
         "nls-breather": (63, 0.5), "kdv-three": (255, 0.2), "nls-bound2": (255, 0.1), "kdv-zk": (127, 0.05)}
BREATHER_A = 0.25
BOUND_X = 56.0  # nls-bound2's domain in the Satsuma–Yajima variable X = x/√2
class _MultiSoliton(TypedDict):
    speeds: tuple[float, ...]
    positions: tuple[float, ...]
    nu: float


THREE: _MultiSoliton = {"speeds": (4.0, 1.96, 1.0), "positions": (30.0, 40.0, 47.0), "nu": 1.0}


def has_rkstiff() -> bool:
    return importlib.util.find_spec("rkstiff") is not None


def problem(name: str, n: int, T: float) -> tuple[SpectralPDE, Array, Callable[[], Array]]:
    """(system, y0, reference(T)) of a ``PROBLEMS`` entry on n nodes."""
    system: SpectralPDE
    if name in ("nls-soliton", "kdv-soliton"):
        system, exact = _problems(n)[name]
        return system, exact(0.0), lambda: exact(T)
    if name == "kdv-c4":
        L = 40.0
        system = KdV(FourierGrid(n, L), nu=1.0)
        ex = lambda t: kdv_soliton(system.grid.x, t, c=4.0, nu=1.0, x0=15.0, length=L)
        return system, ex(0.0), lambda: ex(T)
    if name == "kdv-two":
        L = 80.0
        system = KdV(FourierGrid(n, L), nu=1.0)
        x = system.grid.x
        y0 = kdv_soliton(x, 0.0, c=4.0, nu=1.0, x0=15.0, length=L) + kdv_soliton(
            x, 0.0, c=1.0, nu=1.0, x0=22.0, length=L
        )
        return system, y0, lambda: _etdrk4(system, y0, T, T / REF_STEPS)
    if name == "nls-breather":
        system = NLS(FourierGrid(n, 2 * akhmediev_period(BREATHER_A)), kappa=-1.0, form="complex")
        ab = lambda t: nls_akhmediev(system.grid.x, t, a=BREATHER_A)
        return system, ab(-0.5 * T), lambda: ab(0.5 * T)
    if name == "nls-bound2":
        L = BOUND_X * np.sqrt(2.0)
        system = NLS(FourierGrid(n, L), kappa=-1.0, form="complex")
        x = (system.grid.x + 0.5 * L) % L - 0.5 * L  # the pulse centred in the domain
        return system, nls_bound_state(x, 0.0), lambda: nls_bound_state(x, T)
    if name == "kdv-zk":
        system = KdV(FourierGrid(n, 2.0), nu=0.022**2)
        y0 = np.cos(np.pi * system.grid.x)
        return system, y0, lambda: _etdrk4(system, y0, T, T / REF_STEPS)
    if name == "kdv-three":
        system = KdV(FourierGrid(n, 100.0), nu=THREE["nu"])
        ks = lambda t: kdv_multisoliton(system.grid.x, t, **THREE)
        return system, ks(0.0), lambda: ks(T)
    raise ValueError(f"unknown targets problem {name!r}; choose one of {', '.join(PROBLEMS)}")


def _etdrk4(system: SpectralPDE, y0: Array, T: float, h: float) -> Array:
    fwd, inv, _, _ = _fourier_ops(system)
    n = round(T / h)
    step, v = etdrk4_step(system, T / n), fwd(y0)
    for _ in range(n):
        v = step(v)
    return np.asarray(inv(v))


def _etd35(system: SpectralPDE, y0: Array, T: float, eps: float) -> tuple[Array, int, int]:
    """rkstiff ETD35 (adaptive, ``SolverConfig(epsilon=eps)``) on the same Fourier ODE; (y(T), steps, N̂
    calls)."""
    from rkstiff.etd35 import ETD35
    from rkstiff.solveras import SolverConfig

    fwd, inv, lam, N = _fourier_ops(system)
    calls = [0]

    def nl(v: Array) -> Array:
        calls[0] += 1
        return N(v)

    solver = ETD35(lin_op=lam.astype(complex), nl_func=nl, config=SolverConfig(epsilon=eps))
    vT = solver.evolve(fwd(y0).astype(complex), 0.0, T, h_init=T / 1000, store_data=False)
    return np.asarray(inv(vT)), -1, calls[0]


def _one(system: SpectralPDE, y0: Array, ref: Array, method: str, param: float, tol: float | None,
         T: float) -> dict[str, Any]:
    c0 = time.process_time()
    status = "ok"
    with np.errstate(all="ignore"):
        if method == "etdrk4":
            n = round(T / param)
            yT, steps, evals = _etdrk4(system, y0, T, T / n), n, 4 * n
        elif method == "etd35":
            yT, steps, evals = _etd35(system, y0, T, param)
        elif method == "lg-etd35":
            sol = integrate(
                system,
                make_method("etd35"),
                y0,
                (0.0, T),
                controller=AdaptiveStep(rtol=param, atol=param),
                save=SaveAt(steps=10**9),
                diagnostics=False,
            )
            yT, steps, evals, status = sol.y[-1], len(sol.t) - 1, int(sol.iterations.sum()), str(sol.status)
        else:
            opts = dict(METHODS[method])
            if tol is not None:
                opts["tol"] = tol
            n = round(T / param)
            sol = integrate(system, make_method(opts.pop("name"), **opts), y0, (0.0, T),
                            controller=ConstantStep(T / n), save=SaveAt(steps=10**9), diagnostics=False)
            yT, steps, evals, status = sol.y[-1], n, int(sol.iterations.sum()), str(sol.status)
    cpu = time.process_time() - c0
    err = float(np.linalg.norm(yT - ref) / np.linalg.norm(ref))
    if not math.isfinite(err):
        status = status if status != "ok" else "nonfinite"
    H0 = system.hamiltonian(y0)
    dH = float(abs(system.hamiltonian(yT) - H0) / abs(H0)) if math.isfinite(err) else math.nan
    return {"steps": steps, "evals": evals, "cpu_s": cpu, "status": status, "error": err, "energy_error": dH}


def _configs(method: str, scale: float, quick: bool) -> list[tuple[float, float | None]]:
    params = SWEEPS[method]
    if method not in ("etd35", "lg-etd35"):
        params = tuple(p * scale for p in params)
    if quick:
        params = params[:2]
    tols: tuple[float | None, ...] = TOLS if method.startswith("exp-") else (None,)
    return [(p, t) for p in params for t in (tols[:1] if quick else tols)]


def run(out_dir: Path, quick: bool = False, problems: tuple[str, ...] | None = None,
        methods: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """Every problem of ``PROBLEMS`` (or those named) with its methods (or those of ``methods`` it has; the
    peers always), the CSV ``spectral-targets.csv`` in ``out_dir``."""
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("note: run as OPENBLAS_NUM_THREADS=1 (single thread)")
    peer_ok = has_rkstiff()
    if not peer_ok:
        print("note: rkstiff is not installed (pip install rkstiff): the ETD35 rows are left out")
    rows: list[dict[str, Any]] = []
    quiet = logging.getLogger("lgbeam.integrators.poisson.stability")  # every KdV run here is above the
    level = quiet.level  # resonance-free step (docs/spectral.md): one warning a run
    quiet.setLevel(logging.ERROR)
    try:
        for pname in problems or tuple(PROBLEMS):
            rows += _problem_rows(pname, quick, peer_ok, methods)
    finally:
        quiet.setLevel(level)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "spectral-targets.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    for r in rows:
        p = r["param"] if isinstance(r["param"], str) else f"{r['param']:.4g}"
        print(f"{r['problem']:12s} {r['method']:14s} {p:>9s} {r['tol']!s:>6s} cpu {r['cpu_s']:8.4g} "
              f"err {r['error']:9.2e} dH {r['energy_error']:9.2e} x best peer {r['ratio_best_peer']:6.3g} "
              f"x ETDRK4 {r['ratio_etdrk4']:6.3g} {r['status']} {r['note']}")
    return rows


def _problem_rows(pname: str, quick: bool, peer_ok: bool, chosen: tuple[str, ...] | None = None
                  ) -> list[dict[str, Any]]:
    """The run rows and the target rows of one problem (its methods, or those of ``chosen`` and the peers)."""
    rows: list[dict[str, Any]] = []
    n, T, scale, methods = PROBLEMS[pname]
    if chosen is not None:
        methods = tuple(m for m in methods if m in chosen or m in PEERS)
    if quick:
        n, T = QUICK[pname]
    methods = tuple(m for m in methods if m != "etd35" or peer_ok)
    system, y0, reference = problem(pname, n, T)
    ref = reference()
    best: dict[tuple[str, float, float | None], dict[str, Any]] = {}
    for _ in range(1 if quick else REPEATS):  # interleaved repeats
        for method in methods:
            for p, tol in _configs(method, scale, quick):
                r = _one(system, y0, ref, method, p, tol, T)
                key = (method, p, tol)
                if key not in best or r["cpu_s"] < best[key]["cpu_s"]:
                    best[key] = r
                logger.info("%s %s %g tol %s: cpu %.3g s, error %.3g, %s", pname, method, p, tol, r["cpu_s"],
                            r["error"], r["status"])
    for (method, p, tol), r in best.items():
        rows.append(
            {
                "problem": pname,
                "n": n,
                "T": T,
                "method": method,
                "param": p,
                "tol": "" if tol is None else tol,
                **r,
                "ratio_best_peer": math.nan,
                "ratio_etdrk4": math.nan,
                "note": "",
            }
        )
    return rows + _summary(pname, n, T, methods, best)


def _summary(pname: str, n: int, T: float, methods: tuple[str, ...],
             best: dict[tuple[str, float, float | None], dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for target in TARGETS:
        at: dict[str, tuple[float, str]] = {}
        for method in methods:
            runs = [r for (m, _, _), r in best.items() if m == method and r["status"] == "ok"]
            at[method] = at_target(runs, target)
        peers = [at[p][0] for p in PEERS if p in at and math.isfinite(at[p][0])]
        best_peer = min(peers) if peers else math.nan
        for method in methods:
            cpu, note = at[method]
            rows.append(
                {
                    "problem": pname,
                    "n": n,
                    "T": T,
                    "method": method,
                    "param": f"t@{target:g}",
                    "tol": "",
                    "steps": math.nan,
                    "evals": math.nan,
                    "cpu_s": cpu,
                    "status": "",
                    "error": target,
                    "energy_error": math.nan,
                    "ratio_best_peer": cpu / best_peer,
                    "ratio_etdrk4": cpu / at["etdrk4"][0],
                    "note": note,
                }
            )
    return rows


def pareto(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs no other run beats in both CPU time and error, by increasing CPU time (decreasing error)."""
    front: list[dict[str, Any]] = []
    for r in sorted(runs, key=lambda r: (r["cpu_s"], r["error"])):
        if not front or r["error"] < front[-1]["error"]:
            front.append(r)
    return front


def at_target(runs: list[dict[str, Any]], target: float) -> tuple[float, str]:
    """(CPU time at error ``target`` along the Pareto front, note): interpolated log–log; the cheapest front
    run's time with note "<=" where it is already below the target; nan where no run reaches it."""
    front = pareto(runs)
    if not front:
        return math.nan, "no run"
    if front[0]["error"] <= target:
        return float(front[0]["cpu_s"]), "<="
    return _interp(front, "cpu_s", target), ""


def _interp(runs: list[dict[str, Any]], key: str, target: float) -> float:
    """``key`` interpolated log–log at error ``target`` between two consecutive runs that bracket it; nan if
    none do (the rule of ``lgbeam.bench.spectral._at_target``, for any target)."""
    lt = math.log(target)
    for a, b in itertools.pairwise(runs):
        ea, eb = math.log(a["error"]), math.log(b["error"])
        va, vb = max(a[key], 1e-17), max(b[key], 1e-17)
        if (ea - lt) * (eb - lt) <= 0 and ea != eb:
            s = (lt - ea) / (eb - ea)
            return float(math.exp(math.log(va) + s * (math.log(vb) - math.log(va))))
    return float("nan")
