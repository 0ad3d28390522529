"""``lgbeam bench spectral --long``: long runs of the Poisson methods against their peers (issue 18 item 6).

Problems (``PROBLEMS``) and horizons (``CASES``): the focusing NLS soliton of ``lgbeam bench spectral``
(N = 255, L = 60) to T = 200 and 2000; KdV u₀ = cos x, ν = 5·10⁻⁴, n = 401 (Table 2.4's problem) to
T = 100; two-soliton collisions: NLS (η = 1, velocities ±1, L = 60, N = 255) to T = 200 and KdV (c = 1
and ½, ν = 1, L = 80, N = 255; the fast one overtakes the slow one at t ≈ 40) to T = 100.

Methods: ours through the one driver (``OURS``: energy-exp, energy-exp4, the exponential midpoint rule and
DISEX with the automatic stage solve, the exact-stage Suzuki and Yoshida compositions) and the peers coded
here on the same semi-discrete right-hand side (``PEERS``): Strang splitting, Yoshida's order-4 triple jump of
Strang (Yoshida 1990), ETDRK4 (Cox & Matthews 2002, ``lgbeam.bench.spectral._etdrk4``'s coefficients), and
rkstiff's adaptive ETD35 (Whalen, Brio & Moloney 2015) when the optional ``rkstiff`` package is installed
(``pip install rkstiff``; never a runtime dependency), at ε = ``ETD35_EPS``.

Per run: the status (ours: the driver's; peers: "ok", or "blow-up" at the first saved time where the
documented criterion holds), the time reached, steps, CPU time (``time.process_time`` of the run, one
repeat: what these runs measure is whether they stay bounded), max over the saved times (``N_SAVE`` per run)
of the relative energy error |H − H₀|/|H₀| and of the relative mass error |M − M₀|/M₀ (M = ∫|y|² dx), the
final error against the exact soliton where there is one, and ``blown_up``: the saved states meet the
documented blow-up criterion (``lgbeam.integrators.poisson.base.BLOWUP_FACTOR``: |H| or M above 10× its
initial value) or are not finite. ``ok_on_blowup`` flags a run of ours that reports "ok" on such a solution
(the issue's target: none) and ``energy_error_over_1`` a finished "ok" run whose energy error exceeds 100 %
(not a blow-up by the criterion, listed so that nobody mistakes it for an accurate run).

Runs are independent single-threaded processes (``jobs`` at a time; set OPENBLAS_NUM_THREADS=1).
"""

from __future__ import annotations

import csv
import itertools
import logging
import math
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam._typing import Array
from lgbeam.bench.spectral import _fourier_ops, etdrk4_step, strang_nonlinear
from lgbeam.discretisations.spectral import NLS, FourierGrid, KdV, SpectralPDE, kdv_soliton, nls_soliton
from lgbeam.integrators.poisson.base import BLOWUP_FACTOR
from lgbeam.integrators.registry import make_method
from lgbeam.solve import ConstantStep, SaveAt, integrate

logger = logging.getLogger(__name__)

N_SAVE = 100
ETD35_EPS = 1e-6
OURS: dict[str, dict[str, Any]] = {  # label -> make_method options
    "energy-exp": {"predictor": "cubic"},
    "energy-exp4": {"predictor": "cubic"},
    "exp-midpoint": {"stage": "auto"},
    "disex": {"stage": "auto"},
    "exp-suzuki4": {},
    "exp-yoshida6": {},
}
PEERS = ("strang", "yoshida4", "etdrk4", "etd35")
CASES: tuple[tuple[str, float, tuple[float, ...]], ...] = (  # (problem, T, steps)
    ("nls-soliton", 200.0, (0.2, 0.1, 0.05, 0.025)),
    ("nls-soliton", 2000.0, (0.1, 0.05, 0.025, 0.0125)),
    ("kdv-zk", 100.0, (0.02, 0.01, 0.005)),
    ("nls-collision", 200.0, (0.1, 0.05, 0.025)),
    ("kdv-collision", 100.0, (0.05, 0.02, 0.01)),
)
QUICK_CASES: tuple[tuple[str, float, tuple[float, ...]], ...] = (("nls-soliton", 2.0, (0.2,)),)
_TJ = 1.0 / (2.0 - 2.0 ** (1.0 / 3.0))


def problem(name: str) -> tuple[SpectralPDE, Array, Callable[[float], Array] | None]:
    """(system, y0, exact(t) or None) of a long-run problem (module docstring)."""
    if name == "nls-soliton":
        L, v = 60.0, 2 * np.pi / 60.0 * 4
        nls = NLS(FourierGrid(255, L), kappa=-1.0, form="complex")
        exact = lambda t: nls_soliton(nls.grid.x, t, eta=1.0, velocity=v, x0=L / 2, length=L)
        return nls, exact(0.0), exact
    if name == "nls-collision":
        L = 60.0
        nls = NLS(FourierGrid(255, L), kappa=-1.0, form="complex")
        x = nls.grid.x
        psi = nls_soliton(x, 0.0, eta=1.0, velocity=1.0, x0=15.0, length=L)
        psi = psi + nls_soliton(x, 0.0, eta=1.0, velocity=-1.0, x0=45.0, length=L)
        return nls, psi, None
    if name == "kdv-zk":
        kdv = KdV(FourierGrid(401), nu=5e-4)
        return kdv, np.cos(kdv.grid.x), None
    if name == "kdv-collision":
        L = 80.0
        kdv = KdV(FourierGrid(255, L), nu=1.0)
        x = kdv.grid.x
        u = kdv_soliton(x, 0.0, c=1.0, nu=1.0, x0=20.0, length=L) + kdv_soliton(
            x, 0.0, c=0.5, nu=1.0, x0=40.0, length=L
        )
        return kdv, u, None
    raise ValueError(
        f"unknown long-run problem {name!r}; known: nls-soliton, nls-collision, kdv-zk, kdv-collision"
    )


def _strang_step(system: SpectralPDE, h: float) -> Callable[[Array], Array]:
    """One Strang step E(h/2) N_h E(h/2) on the coefficients v (``lgbeam.bench.spectral.strang_nonlinear``):
    one transform pair a step (KdV: + 4 field evaluations)."""
    fwd, inv, lam, _ = _fourier_ops(system)
    E2 = np.exp(0.5 * h * lam)
    nonlinear = strang_nonlinear(system, h)
    return lambda v: E2 * fwd(nonlinear(inv(E2 * v)))


def _peer_stepper(system: SpectralPDE, method: str, h: float) -> Callable[[Array], Array]:
    if method == "strang":
        return _strang_step(system, h)
    if method == "yoshida4":  # S(γ₁h) S(γ₂h) S(γ₁h), γ₁ = 1/(2 − 2^{1/3}) (Yoshida 1990)
        a, b = _strang_step(system, _TJ * h), _strang_step(system, (1 - 2 * _TJ) * h)
        return lambda v: a(b(a(v)))
    if method == "etdrk4":
        return etdrk4_step(system, h)
    raise ValueError(f"unknown peer {method!r}; known: {', '.join(PEERS)}")


def _measures(system: SpectralPDE, ys: list[Array], exact: Callable[[float], Array] | None,
              t_reached: float) -> dict[str, Any]:
    finite = all(np.all(np.isfinite(y)) for y in ys)
    with np.errstate(all="ignore"):
        H = np.array([system.hamiltonian(y) for y in ys])
        M = np.array([system.l2_mass(y) for y in ys])
    dH = float(np.nanmax(np.abs(H - H[0]))) / abs(H[0]) if finite else math.inf
    dM = float(np.nanmax(np.abs(M - M[0]))) / M[0] if finite else math.inf
    grew = bool(np.any(np.abs(H) > BLOWUP_FACTOR * abs(H[0])) or np.any(M > BLOWUP_FACTOR * M[0]))
    err = float(np.abs(ys[-1] - exact(t_reached)).max()) if (exact is not None and finite) else math.nan
    return {"energy_error": dH, "mass_error": dM, "blown_up": (not finite) or grew, "error": err}


def _run_peer(
    system: SpectralPDE, y0: Array, method: str, h: float, T: float
) -> tuple[list[Array], float, int]:
    n = round(T / h)
    every = max(1, n // N_SAVE)
    step = _peer_stepper(system, method, h)
    fwd, inv, _, _ = _fourier_ops(system)
    H0, M0 = abs(system.hamiltonian(y0)), system.l2_mass(y0)
    ys, v, t, i = [y0], fwd(y0), 0.0, 0
    with np.errstate(all="ignore"):
        for i in range(1, n + 1):
            v = step(v)
            if i % every == 0 or i == n:
                t = i * h
                y = inv(v)
                ys.append(y)
                if not np.all(np.isfinite(y)) or abs(system.hamiltonian(y)) > BLOWUP_FACTOR * H0 \
                        or system.l2_mass(y) > BLOWUP_FACTOR * M0:
                    break
    return ys, t, i


def _run_etd35(system: SpectralPDE, y0: Array, T: float) -> tuple[list[Array], float, int]:
    from rkstiff.etd35 import ETD35  # optional bench extra
    from rkstiff.solveras import SolverConfig

    fwd, inv, lam, N = _fourier_ops(system)
    solver = ETD35(lin_op=lam, nl_func=N, config=SolverConfig(epsilon=ETD35_EPS))
    ts = np.linspace(0.0, T, N_SAVE + 1)
    v, ys = fwd(y0), [y0]
    for a, b in itertools.pairwise(ts):
        v = solver.evolve(v, a, b, store_data=False)
        y = inv(v)
        ys.append(y)
        if not np.all(np.isfinite(y)):
            return ys, float(b), -1
    return ys, T, -1  # rkstiff does not report its step count


def run_one(pname: str, T: float, method: str, h: float) -> dict[str, Any]:
    """One long run (module docstring); never raises for a numerical failure."""
    system, y0, exact = problem(pname)
    c0 = time.process_time()
    status = "ok"
    if method in OURS:
        every = max(1, round(T / N_SAVE / h))  # save on the step grid, as the peers
        sol = integrate(system, make_method(method, **OURS[method]), y0, (0.0, T), controller=ConstantStep(h),
                        save=SaveAt(steps=every))
        ys, t_end, steps, status = list(sol.y), float(sol.t[-1]), int(sol.n_steps), str(sol.status)
        if sol.status != "ok":
            t_end = float(sol.stats["t_final"])
    elif method == "etd35":
        ys, t_end, steps = _run_etd35(system, y0, T)
    else:
        ys, t_end, steps = _run_peer(system, y0, method, h, T)
    cpu = time.process_time() - c0
    m = _measures(system, ys, exact, t_end)
    if method not in OURS:
        status = "blow-up" if m["blown_up"] else ("ok" if t_end >= T - 1e-9 else "stopped")
    return {"problem": pname, "T": T, "method": method, "h": h if method != "etd35" else ETD35_EPS,
            "status": status, "t_end": t_end, "steps": steps, "cpu_s": cpu, **m,
            "ok_on_blowup": method in OURS and status == "ok" and m["blown_up"],
            "energy_error_over_1": status == "ok" and m["energy_error"] > 1.0}


def _etd35_available() -> bool:
    try:
        import rkstiff  # noqa: F401
    except ImportError:
        return False
    return True


def tasks(quick: bool = False) -> list[tuple[str, float, str, float]]:
    """Every (problem, T, method, h) of the long bench; ETD35 once per (problem, T), when rkstiff is
    installed."""
    out = []
    for pname, T, hs in (QUICK_CASES if quick else CASES):
        for method in (*OURS, *PEERS):
            if method == "etd35":
                if _etd35_available():
                    out.append((pname, T, method, ETD35_EPS))
                continue
            out.extend((pname, T, method, h) for h in hs)
    return out


def run(out_dir: Path, quick: bool = False, jobs: int | None = None) -> list[dict[str, Any]]:
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("note: set OPENBLAS_NUM_THREADS=1 (each run is one single-threaded process)")
    todo = sorted(tasks(quick), key=lambda t: -(t[1] / (0.01 if t[2] == "etd35" else t[3])))  # longest first
    jobs = jobs or min(len(todo), os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(run_one, *zip(*todo))) if jobs > 1 else [run_one(*t) for t in todo]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "spectral-long.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    print(f"{'problem':14s} {'T':>6s} {'method':13s} {'h':>8s} {'status':14s} {'t_end':>7s} {'cpu_s':>8s} "
          f"{'dH/H':>9s} {'dM/M':>9s} {'error':>9s}  flags")
    for r in rows:
        flags = ("OK-ON-BLOWUP " if r["ok_on_blowup"] else "") + ("dH>1" if r["energy_error_over_1"] else "")
        print(
            f"{r['problem']:14s} {r['T']:6g} {r['method']:13s} {r['h']:8.4g} {r['status']:14s} "
            f"{r['t_end']:7.4g} {r['cpu_s']:8.3g} {r['energy_error']:9.2e} {r['mass_error']:9.2e} "
            f"{r['error']:9.2e}  {flags}"
        )
    bad = [r for r in rows if r["ok_on_blowup"]]
    print(
        f"runs of ours reporting ok on a blown-up solution: {len(bad)} of "
        f"{sum(r['method'] in OURS for r in rows)}"
    )
    return rows
