"""``lgbeam bench spectral``: work–precision at T = 1 on the NLS and KdV solitons (issue #6).

Our integrators (exp-midpoint, disex, energy-exp; each with the default start of the fixed-point
solves and, as ``<method>+pred``, with the opt-in ``predictor=PREDICTOR``) against Strang split-step
Fourier, ETDRK4 (Cox–Matthews 2002 / Kassam–Trefethen 2005) and scipy DOP853, all on the same
pseudospectral right-hand side, for N = 255 and 1023 nodes (the discretisation needs an odd N: these
stand for the issue's 256 and 1024). Per run: CPU time (``time.process_time``, best of ``REPEATS``;
wall time alongside), the max error at T = 1 against the exact soliton, the number of nonlinear
evaluations (∇U or discrete-gradient evaluations: one per fixed-point iteration for ours, 4 a step
for ETDRK4, ``nfev`` for DOP853, ...), the number of FFTs (forward or inverse, by the formulas in
``_transforms``, checked by the tests) and the energy error max_k |H(t_k) − H(0)|/|H(0)| over the
saved times t_k = 0, 0.1, …, 1 (DOP853: its accepted steps nearest to t_k, see ``_dop853``).

Fairness: the baselines are implemented the efficient way (ETDRK4 in Fourier space with its
φ-coefficients computed once, 4 FFT pairs a step; Strang with the half linear flows fused, 1 FFT pair a
step for NLS; DOP853 on F = S(Ay + ∇U) with one transform pair per evaluation (3 FFTs for KdV)). Our
fixed-point tolerance is tied to the target (``tol = 1e-2 · TARGET`` for exp-midpoint and DISEX: the
solver error per stage is ≤ ρ·tol with contraction ρ < 1); energy-exp keeps tol = 1e-14 because its
point is the energy error.

Summary rows (``param``):
- ``t@1e-8``: CPU time (and evaluations, FFTs, steps) interpolated log–log to error ``TARGET``;
  ``ratio-to-fastest-baseline``: that time over the fastest baseline's.
- ``gain-vs-<baseline>`` (one per energy-exp+pred run): "equal cost" is the baseline's energy error
  interpolated log–log at the energy-exp run's CPU time along the baseline's Pareto front (its runs
  that no other run beats in both CPU time and energy error), held at the front's last value beyond
  its most expensive run (which favours the baseline); ``gain`` = that error / energy-exp's. Where the
  baseline has no run that cheap the gain is nan and ``note`` says how much its cheapest run costs
  (DOP853: stiffness-limited, its cost hardly depends on rtol). Energy errors below one rounding
  (ε/2) count as ε/2.

Run as ``OPENBLAS_NUM_THREADS=1 lgbeam bench spectral``: DOP853's steps call BLAS, and a threaded BLAS on
a loaded 2-core machine spins (3× its CPU time measured); nothing else here uses BLAS.
"""

from __future__ import annotations

import csv
import itertools
import logging
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam._typing import Array
from lgbeam.discretisations.spectral import (
    NLS,
    FourierGrid,
    KdV,
    SpectralPDE,
    kdv_soliton,
    nls_soliton,
    phi_symbol,
)
from lgbeam.discretisations.spectral.fourier import fft, ifft, irfft, rfft
from lgbeam.integrators.registry import make_method
from lgbeam.solve import ConstantStep, SaveAt, integrate

logger = logging.getLogger(__name__)

TARGET = 1e-8
T_END = 1.0
N_SAVE = 10  # energy monitored at t = k T/N_SAVE
REPEATS = 2  # timed repeats (best of); runs longer than LONG_S are timed once
LONG_S = 3.0
NS_FULL = (255, 1023)  # odd grids standing for the 256 and 1024
NS_QUICK = (65,)
PREDICTOR = "cubic"
BASELINES = ("strang", "etdrk4", "dop853")
OURS = {  # label -> (integrator, predictor)
    "exp-midpoint": ("exp-midpoint", "none"),
    "exp-midpoint+pred": ("exp-midpoint", PREDICTOR),
    "disex": ("disex", "none"),
    "disex+pred": ("disex", PREDICTOR),
    "energy-exp": ("energy-exp", "none"),
    "energy-exp+pred": ("energy-exp", PREDICTOR),
}
TOL = {"exp-midpoint": 1e-2 * TARGET, "disex": 1e-2 * TARGET, "energy-exp": 1e-14}
STAGES = {"exp-midpoint": 1, "disex": 6, "energy-exp": 1}
_EPS_HALF = 0.5 * np.finfo(float).eps

SWEEPS = {  # step sizes (rtol for DOP853); our sweeps bracket 1e-8 at N = 255 and 1023
    "exp-midpoint": [1 / 1280, 1 / 5120, 1 / 20480],
    "disex": [1 / 40, 1 / 80, 1 / 160, 1 / 320, 1 / 640],
    "energy-exp": [1 / 20, 1 / 80, 1 / 320, 1 / 1280, 1 / 5120, 1 / 10240],
    "strang": [1 / 40, 1 / 160, 1 / 640, 1 / 2560, 1 / 10240],
    "etdrk4": [1 / 20, 1 / 40, 1 / 80, 1 / 160, 1 / 640, 1 / 2560, 1 / 10240],
    "dop853": [1e-3, 1e-5, 1e-7, 1e-9],
}
QUICK_SWEEPS = {"dop853": [1e-3, 1e-5]}
QUICK_H = [1 / 20, 1 / 40]


def _problems(n: int) -> dict[str, tuple[SpectralPDE, Callable[[float], Array]]]:
    L = 60.0
    nls = NLS(FourierGrid(n, L), kappa=-1.0, form="complex")
    ex_n = lambda t: nls_soliton(nls.grid.x, t, eta=1.0, velocity=2 * np.pi / L * 4, x0=L / 2, length=L)
    Lk = 80.0
    kdv = KdV(FourierGrid(n, Lk), nu=1.0)
    ex_k = lambda t: kdv_soliton(kdv.grid.x, t, c=1.0, nu=1.0, x0=30.0, length=Lk)
    return {"nls-soliton": (nls, ex_n), "kdv-soliton": (kdv, ex_k)}


Transform = Callable[[Array], Array]


def _fourier_ops(system: SpectralPDE) -> tuple[Transform, Transform, Array, Transform]:
    """(forward, inverse, symbol of SA, N̂(v̂) = F[S∇U(F⁻¹v̂)]) in the cheapest transform for the system.

    The transforms are ``lgbeam.discretisations.spectral.fourier``'s — numpy.fft's bits through the cheaper
    binding lgbeam's own methods use — so the peers built on these (ETDRK4, rkstiff's ETD35 with this N̂) pay
    the same per-transform cost as lgbeam (through ``numpy.fft`` they paid ≈ 3× its call overhead at N = 255)."""
    grid = system.grid
    if isinstance(system, KdV):
        m = grid.n_rfft
        c = -0.5j * grid.k[:m]
        n = grid.n_nodes
        fwd = lambda y: rfft(y, forward_norm=False)
        inv = lambda v: irfft(v, n, forward_norm=False)
        return fwd, inv, system.sa_symbol[:m], lambda v: c * fwd(inv(v) ** 2)
    c_nls = -2j * system.kappa

    def N(v: Array) -> Array:
        psi = ifft(v)
        return fft(c_nls * (psi.real**2 + psi.imag**2) * psi)

    return fft, ifft, system.sa_symbol, N


def etdrk4_step(system: SpectralPDE, h: float) -> Callable[[Array], Array]:
    """One ETDRK4 step on the Fourier coefficients (Cox & Matthews 2002, eq. (26)), Kassam & Trefethen (2005)
    style: φ-coefficients computed once (stable Taylor branch of ``phi_symbol``), 4 N̂ evaluations a step."""
    _, _, lam, N = _fourier_ops(system)
    z = h * lam
    E, E2 = np.exp(z), np.exp(0.5 * z)
    Q = 0.5 * h * phi_symbol(1, 0.5 * z)
    p1, p2, p3 = (h * phi_symbol(k, z) for k in (1, 2, 3))
    f1, f2, f3 = p1 - 3 * p2 + 4 * p3, 2 * (p2 - 2 * p3), -p2 + 4 * p3

    def step(v: Array) -> Array:
        Nv = N(v)
        a = E2 * v + Q * Nv
        Na = N(a)
        b = E2 * v + Q * Na
        Nb = N(b)
        c = E2 * a + Q * (2 * Nb - Nv)
        return E * v + f1 * Nv + f2 * (Na + Nb) + f3 * N(c)

    return step


def strang_nonlinear(system: SpectralPDE, h: float) -> Callable[[Array], Array]:
    """The nonlinear sub-flow of Strang splitting over h, in physical space: NLS ψ → e^{−2iκ|ψ|²h} ψ (exact);
    KdV u_t = −u u_x by one classical RK4 step (FFT derivative)."""
    if isinstance(system, NLS):
        c = -2j * system.kappa * h
        return lambda v: np.exp(c * (v.real**2 + v.imag**2)) * v
    f = system.nonlinear_field

    def nonlinear(v: Array) -> Array:
        k1 = f(v)
        k2 = f(v + 0.5 * h * k1)
        k3 = f(v + 0.5 * h * k2)
        k4 = f(v + h * k3)
        return v + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    return nonlinear


def _etdrk4(system: SpectralPDE, y: Array, h: float, n_steps: int, save_every: int) -> list[Array]:
    """ETDRK4 (``etdrk4_step``) from y over ``n_steps`` steps, saving every ``save_every``-th."""
    fwd, inv, _, _ = _fourier_ops(system)
    step = etdrk4_step(system, h)
    v = fwd(y)
    saved = [v]
    for i in range(1, n_steps + 1):
        v = step(v)
        if i % save_every == 0 or i == n_steps:
            saved.append(v)
    return [inv(s) for s in saved]


def _strang(system: SpectralPDE, y: Array, h: float, n_steps: int, save_every: int) -> list[Array]:
    """Strang splitting E(h/2) N_h E(h/2), consecutive linear half-flows fused into E(h) except at the
    saved times (where the state is formed)."""
    fwd, inv, lam, _ = _fourier_ops(system)
    E, E2 = np.exp(h * lam), np.exp(0.5 * h * lam)
    nonlinear = strang_nonlinear(system, h)
    saved = [y]
    y = inv(E2 * fwd(y))
    for i in range(1, n_steps + 1):
        y = nonlinear(y)
        if i % save_every == 0 or i == n_steps:
            y = inv(E2 * fwd(y))
            saved.append(y)
            if i < n_steps:
                y = inv(E2 * fwd(y))
        else:
            y = inv(E * fwd(y))
    return saved


def _dop853(system: SpectralPDE, y0: Array, rtol: float, t_save: Array) -> tuple[list[Array], int]:
    """scipy DOP853 on F(y) = S(Ay + ∇U(y)) evaluated with one transform pair (KdV: 3 FFTs).

    The states returned are DOP853's own accepted steps nearest to ``t_save`` (the last one at T): its
    dense-output interpolant is not accurate in the stiff modes that H weighs by k² (NLS, N = 255,
    rtol 1e-3: energy error 0.43 from the interpolant at t = 0.1 against 6e-6 at the steps).
    """
    grid = system.grid
    F: Callable[[float, Array], Array]
    if isinstance(system, KdV):
        m = grid.n_rfft
        lam, c = system.sa_symbol[:m], -0.5j * grid.k[:m]
        F = lambda t, u: np.fft.irfft(lam * np.fft.rfft(u) + c * np.fft.rfft(u * u), n=grid.n_nodes)
    else:
        lam = system.sa_symbol
        F = lambda t, v: np.fft.ifft(lam * np.fft.fft(v)) + system.nonlinear_field(v)
    with np.errstate(over="ignore", invalid="ignore"):  # rejected trial steps may overflow
        sol = solve_ivp(F, (0.0, T_END), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-2)
    if not sol.success:
        raise RuntimeError(f"DOP853 failed at rtol={rtol}: {sol.message}")
    nearest = [int(np.argmin(np.abs(sol.t - t))) for t in t_save]
    return [sol.y[:, i] for i in nearest], int(sol.nfev)


def _transforms(method: str, kdv: bool, steps: int, evals: int) -> int:
    """FFTs (forward or inverse, one each) of a run, from its steps and nonlinear evaluations."""
    per_eval = 2 if kdv or method == "energy-exp" else 0  # KdV: f needs D1; energy-exp: φ₁(hSA)S∇̄U
    base = {"exp-midpoint": 4, "disex": 14, "energy-exp": 2}
    # + the driver's always-on blow-up check: H, one transform pair at t0 and after each step
    if method in base:
        return base[method] * steps + per_eval * evals + 2 * (steps + 1)
    saves = N_SAVE
    if method == "etdrk4":  # one forward FFT, 4 pairs a step, one inverse per saved state
        return 8 * steps + 1 + (saves + 1)
    if method == "strang":  # one pair a step (KdV: + 4 RK4 evaluations), one more per saved time
        return (10 if kdv else 2) * steps + 2 * saves
    return (3 if kdv else 2) * evals  # dop853


def _advance(
    system: SpectralPDE, method: str, param: float, y0: Array
) -> tuple[list[Array], int, int, float]:
    """Run one configuration; returns (states at the saved times, steps, evaluations, mean its/solve)."""
    t_save = np.linspace(0.0, T_END, N_SAVE + 1)
    if method == "dop853":
        ys, nfev = _dop853(system, y0, param, t_save)
        return ys, 0, nfev, float("nan")
    n = round(T_END / param)
    if method in ("strang", "etdrk4"):
        ys = (_strang if method == "strang" else _etdrk4)(system, y0, T_END / n, n, max(1, n // N_SAVE))
        nl = 1 if (method == "strang" and isinstance(system, NLS)) else 4
        return ys, n, nl * n, float("nan")
    name, predictor = OURS[method]
    integ = make_method(name, tol=TOL[name], predictor=predictor)
    run = integrate(system, integ, y0, (0.0, T_END), controller=ConstantStep(T_END / n),
                    save=SaveAt(steps=max(1, n // N_SAVE)), diagnostics=False)
    if run.status != "ok":
        raise RuntimeError(run.message)
    evals = int(run.iterations.sum())
    return list(run.y), run.n_steps, evals, evals / (run.n_steps * STAGES[name])


def _one(system: SpectralPDE, exact: Callable[[float], Array], method: str, param: float,
         repeats: int) -> dict[str, Any]:
    y0 = exact(0.0)
    cpus, walls = [], []
    for r in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        ys, steps, evals, its = _advance(system, method, param, y0)
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
        if cpus[-1] > LONG_S and r == 0:
            break
    H = np.array([system.hamiltonian(y) for y in ys])
    kdv = isinstance(system, KdV)
    base = OURS[method][0] if method in OURS else method
    return {"steps": steps, "evals": evals, "evals_per_solve": its,
            "transforms": _transforms(base, kdv, steps, evals), "cpu_s": min(cpus), "wall_s": min(walls),
            "error": float(np.max(np.abs(ys[-1] - exact(T_END)))),
            "energy_error": max(float(np.max(np.abs(H - H[0])) / abs(H[0])), _EPS_HALF)}


def _loglog(x: float, xs: list[float], ys: list[float]) -> float:
    """Piecewise-linear interpolation of log y against log x (``xs`` increasing); nan outside."""
    if not xs or not xs[0] <= x <= xs[-1]:
        return float("nan")
    return float(np.exp(np.interp(np.log(x), np.log(xs), np.log(ys))))


def _at_target(runs: list[dict[str, Any]], key: str) -> float:
    """``key`` interpolated log–log (against the error) at error TARGET; nan if not bracketed."""
    lt = math.log(TARGET)
    for a, b in itertools.pairwise(runs):
        ea, eb = math.log(a["error"]), math.log(b["error"])
        if (ea - lt) * (eb - lt) <= 0 and ea != eb and a[key] > 0 and b[key] > 0:
            s = (lt - ea) / (eb - ea)
            return float(math.exp(math.log(a[key]) + s * (math.log(b[key]) - math.log(a[key]))))
    return float("nan")


def _pareto(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs sorted by CPU time that no cheaper run beats in energy error (the baseline's best front)."""
    front: list[dict[str, Any]] = []
    for r in sorted(runs, key=lambda r: r["cpu_s"]):
        if not front or r["energy_error"] < front[-1]["energy_error"]:
            front.append(r)
    return front


def energy_at_cost(cpu: float, runs: list[dict[str, Any]]) -> float:
    """A baseline's energy error at CPU time ``cpu`` (the module docstring's definition of equal cost)."""
    front = _pareto(runs)
    if not front or cpu < front[0]["cpu_s"]:
        return float("nan")
    if cpu >= front[-1]["cpu_s"]:
        return front[-1]["energy_error"]
    return _loglog(cpu, [r["cpu_s"] for r in front], [r["energy_error"] for r in front])


def _row(pname: str, n: int, method: str, param: Any, **values: Any) -> dict[str, Any]:
    row = {"problem": pname, "n": n, "method": method,
           "predictor": OURS[method][1] if method in OURS else "", "param": param}
    for key in ("steps", "evals", "evals_per_solve", "transforms", "cpu_s", "wall_s", "error", "energy_error",
                "gain"):
        row[key] = values.get(key, float("nan"))
    row["note"] = values.get("note", "")
    return row


def _summary(pname: str, n: int, results: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    at = {
        m: {k: _at_target(r, k) for k in ("cpu_s", "evals", "transforms", "steps")}
        for m, r in results.items()
    }
    fastest_name = min((b for b in BASELINES if np.isfinite(at[b]["cpu_s"])), key=lambda b: at[b]["cpu_s"],
                       default=None)
    fastest = at[fastest_name]["cpu_s"] if fastest_name else float("nan")
    for m, a in at.items():
        rows.append(_row(pname, n, m, f"t@{TARGET:g}", error=TARGET, **a))
        rows.append(_row(pname, n, m, "ratio-to-fastest-baseline", cpu_s=a["cpu_s"] / fastest, error=TARGET,
                         note=f"fastest baseline: {fastest_name}"))
    for m in ("energy-exp+pred",):  # the energy-preserving method at its cheapest (same energy errors)
        for r in results[m]:
            for b in BASELINES:
                d = energy_at_cost(r["cpu_s"], results[b])
                cheapest = min((x["cpu_s"] for x in results[b]), default=float("nan"))
                note = (f"h={r['h']:.4g}; baseline energy error {d:.3g} at cpu {r['cpu_s']:.3g} s"
                        if np.isfinite(d) else
                        f"h={r['h']:.4g}; no {b} run this cheap (cheapest {cheapest:.3g} s = "
                        f"{cheapest / r['cpu_s']:.2g}x)")
                rows.append(
                    _row(
                        pname,
                        n,
                        m,
                        f"gain-vs-{b}",
                        cpu_s=r["cpu_s"],
                        energy_error=r["energy_error"],
                        gain=d / r["energy_error"],
                        note=note,
                    )
                )
    return rows


def run(out_dir: Path, quick: bool) -> list[dict[str, Any]]:
    if not quick and os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print(
            "note: DOP853's steps use BLAS (np.dot); on a shared machine a threaded BLAS spins and inflates "
            "its CPU time (3x measured): run as OPENBLAS_NUM_THREADS=1 lgbeam bench spectral"
        )
    ns = NS_QUICK if quick else NS_FULL
    repeats = 1 if quick else REPEATS
    rows: list[dict[str, Any]] = []
    for n in ns:
        for pname, (system, exact) in _problems(n).items():
            results: dict[str, list[dict[str, Any]]] = {}
            for method in (*OURS, *BASELINES):
                base = OURS[method][0] if method in OURS else method
                sweep = (QUICK_SWEEPS.get(base, QUICK_H) if quick else SWEEPS[base])
                results[method] = []
                for p in sweep:
                    try:
                        res = _one(system, exact, method, p, repeats)
                    except RuntimeError as exc:  # e.g. the fixed-point iteration does not contract at this h
                        rows.append(_row(pname, n, method, p, note=f"failed: {str(exc).split(' (')[0]}"))
                        logger.info("%s n=%d %s %g: %s", pname, n, method, p, exc)
                        continue
                    res["h"] = p
                    results[method].append(res)
                    rows.append(_row(pname, n, method, p, **res))
                    logger.info("%s n=%d %s %g: cpu %.3g s, error %.3g", pname, n, method, p, res["cpu_s"],
                                res["error"])
            rows += _summary(pname, n, results)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "spectral.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    _print(rows)
    return rows


def _print(rows: list[dict[str, Any]]) -> None:
    print(f"{'problem':12s} {'n':>5s} {'method':18s} {'param':>26s} {'steps':>7s} {'evals':>8s} {'its':>5s} "
          f"{'ffts':>8s} {'cpu_s':>9s} {'error':>9s} {'dH/H':>9s} {'gain':>9s}  note")
    for r in rows:
        p = r["param"] if isinstance(r["param"], str) else f"{r['param']:.3g}"
        print(
            f"{r['problem']:12s} {r['n']:5d} {r['method']:18s} {p:>26s} {r['steps']:7.0f} {r['evals']:8.0f} "
            f"{r['evals_per_solve']:5.2f} {r['transforms']:8.0f} {r['cpu_s']:9.3g} {r['error']:9.2e} "
            f"{r['energy_error']:9.2e} {r['gain']:9.2e}  {r['note']}"
        )
