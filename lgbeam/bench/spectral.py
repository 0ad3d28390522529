"""``lgbeam bench spectral``: work–precision at T = 1 on the NLS and KdV solitons.

Our integrators (exp-midpoint, disex, energy-exp) against Strang split-step Fourier, ETDRK4
(Cox–Matthews 2002 / Kassam–Trefethen 2005) and scipy DOP853, all on the same pseudospectral
right-hand side. For each method: wall time and max error at T = 1 over a sweep of h (rtol for
DOP853), the time interpolated (log–log) to reach error 1e-8, and the relative energy error.
"""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from lgbeam.discretisations.spectral import NLS, FourierGrid, KdV, kdv_soliton, nls_soliton
from lgbeam.integrators.poisson import integrate_poisson, make_poisson_integrator

logger = logging.getLogger(__name__)

TARGET = 1e-8


def _problems(n: int) -> dict[str, tuple[Any, Any]]:
    L = 60.0
    nls = NLS(FourierGrid(n, L), kappa=-1.0, form="complex")
    ex_n = lambda t: nls_soliton(nls.grid.x, t, eta=1.0, velocity=2 * np.pi / L * 4, x0=L / 2, length=L)  # noqa: E731
    Lk = 80.0
    kdv = KdV(FourierGrid(n, Lk), nu=1.0)
    ex_k = lambda t: kdv_soliton(kdv.grid.x, t, c=1.0, nu=1.0, x0=30.0, length=Lk)  # noqa: E731
    return {"nls-soliton": (nls, ex_n), "kdv-soliton": (kdv, ex_k)}


def _strang(system: Any, y: np.ndarray, h: float, n_steps: int) -> np.ndarray:
    """Strang splitting: half linear step (exact), full nonlinear step, half linear step."""
    if isinstance(system, NLS):  # nonlinear flow ψ → e^{−2iκ|ψ|²h} ψ is exact
        nonlinear = lambda v: np.exp(-2j * system.kappa * np.abs(v) ** 2 * h) * v  # noqa: E731
    else:  # u_t = −u u_x by one classical RK4 step
        f = lambda v: system.apply_S(system.grad_potential(v))  # noqa: E731

        def nonlinear(v: np.ndarray) -> np.ndarray:
            k1 = f(v); k2 = f(v + 0.5 * h * k1); k3 = f(v + 0.5 * h * k2); k4 = f(v + h * k3)  # noqa: E702
            return v + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    for _ in range(n_steps):
        y = system.phi(0, 0.5 * h, nonlinear(system.phi(0, 0.5 * h, y)))
    return y


def _etdrk4(system: Any, y: np.ndarray, h: float, n_steps: int) -> np.ndarray:
    """ETDRK4 of Cox & Matthews (2002), eq. (26), with exact φ-functions (Kassam & Trefethen 2005)."""
    N = lambda v: system.apply_S(system.grad_potential(v))  # noqa: E731
    E2 = lambda v: system.phi(0, 0.5 * h, v)  # noqa: E731
    p1h = lambda v: 0.5 * h * system.phi(1, 0.5 * h, v)  # noqa: E731
    for _ in range(n_steps):
        Nu = N(y)
        a = E2(y) + p1h(Nu); Na = N(a)  # noqa: E702
        b = E2(y) + p1h(Na); Nb = N(b)  # noqa: E702
        c = E2(a) + p1h(2 * Nb - Nu); Nc = N(c)  # noqa: E702
        y = (system.phi(0, h, y) + h * system.phi(1, h, Nu) - 3 * h * system.phi(2, h, Nu) + 4 * h * system.phi(3, h, Nu)
             + h * (2 * system.phi(2, h, Na + Nb) - 4 * system.phi(3, h, Na + Nb))
             + h * (-system.phi(2, h, Nc) + 4 * system.phi(3, h, Nc)))
    return y


def _dop853(system: Any, y0: np.ndarray, rtol: float) -> np.ndarray:
    F = lambda t, v: system.apply_S(system.apply_A(v) + system.grad_potential(v))  # noqa: E731
    sol = solve_ivp(F, (0.0, 1.0), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-2)
    return sol.y[:, -1]


def _one(system: Any, exact: Any, method: str, param: float) -> tuple[float, float, float]:
    y0 = exact(0.0)
    t0 = time.perf_counter()
    if method == "dop853":
        y = _dop853(system, y0, param)
    elif method in ("strang", "etdrk4"):
        n = int(round(1.0 / param))
        y = (_strang if method == "strang" else _etdrk4)(system, y0, 1.0 / n, n)
    else:
        y = integrate_poisson(system, make_poisson_integrator(method), y0, h=param, t_end=1.0,
                              save_every=10**9, monitor=lambda v: {}).y[-1]
    wall = time.perf_counter() - t0
    H0, H1 = system.hamiltonian(y0), system.hamiltonian(y)
    return wall, float(np.max(np.abs(y - exact(1.0)))), abs(H1 - H0) / abs(H0)


def _time_at(target: float, walls: list[float], errs: list[float]) -> float:
    """Log–log interpolation of wall time at error ``target`` (nan if the sweep does not bracket it)."""
    e, w = np.log(np.asarray(errs)), np.log(np.asarray(walls))
    for i in range(len(e) - 1):
        if (e[i] - np.log(target)) * (e[i + 1] - np.log(target)) <= 0 and e[i] != e[i + 1]:
            s = (np.log(target) - e[i]) / (e[i + 1] - e[i])
            return float(np.exp(w[i] + s * (w[i + 1] - w[i])))
    return float("nan")


SWEEPS = {
    "exp-midpoint": [1 / 40, 1 / 160, 1 / 640, 1 / 2560], "disex": [1 / 40, 1 / 80, 1 / 160, 1 / 320],
    "energy-exp": [1 / 40, 1 / 160, 1 / 640, 1 / 2560], "strang": [1 / 40, 1 / 160, 1 / 640, 1 / 2560],
    "etdrk4": [1 / 10, 1 / 20, 1 / 40, 1 / 80, 1 / 160], "dop853": [1e-6, 1e-8, 1e-10, 1e-12],
}


def run(out_dir: Path, quick: bool) -> list[dict[str, Any]]:
    ns = [65] if quick else [257, 1025]
    rows: list[dict[str, Any]] = []
    for n in ns:
        for pname, (system, exact) in _problems(n).items():
            for method, sweep in SWEEPS.items():
                sweep = sweep[:2] if quick else sweep
                walls, errs, energies = [], [], []
                for p in sweep:
                    w, e, de = _one(system, exact, method, p)
                    walls.append(w); errs.append(e); energies.append(de)  # noqa: E702
                    rows.append({"problem": pname, "n": n, "method": method, "param": p, "wall_s": w,
                                 "error": e, "energy_error": de})
                rows.append({"problem": pname, "n": n, "method": method, "param": "t@1e-8",
                             "wall_s": _time_at(TARGET, walls, errs), "error": TARGET, "energy_error": float("nan")})
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "spectral.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"{'problem':12s} {'n':>5s} {'method':13s} {'param':>10s} {'wall_s':>9s} {'error':>9s} {'dH/H':>9s}")
    for r in rows:
        p = r["param"] if isinstance(r["param"], str) else f"{r['param']:.3g}"
        print(f"{r['problem']:12s} {r['n']:5d} {r['method']:13s} {p:>10s} {r['wall_s']:9.3g} {r['error']:9.2e} "
              f"{r['energy_error']:9.2e}")
    return rows
