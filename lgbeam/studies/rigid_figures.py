"""Reproductions of seed 001 Figs. 4.1–4.3, 7.1–7.9 (Tables 7.1–7.3) and seed 003 Figs. 3.3–3.5 (Table 3.1).

    python -m lgbeam.studies.rigid_figures [--out outputs/summary] [--quick] [--only seed001-ch4,seed001-ch7,seed003-ch3]

writes (PNG + CSV each): ``rigid-fig3.1-3.2-potential`` (U_α over rotation vectors, α = 0 and 0.3; also alone with
``--only potential``), ``rigid-fig4.1-energy`` (E − E₀ on [0, 1e4] at h = 0.25 and 0.125, fitted slopes;
--quick: [0, 1000] and h = 0.25), ``rigid-fig4.2-orders`` (global errors at T = 5), ``rigid-fig4.3-cpu`` and
the Tables 7.1–7.3 / 3.1 cost ratios (``lgbeam.studies.rigid_costs``), ``spheres-fig7.x`` (energy, |q| − 1, q·ω and
momentum about k over time, h = 0.01, T = 200, --quick T = 20; orders at T = 1) and ``lgvi-fig3.3-3.5``
(energy, | |q| − 1 |, angular-momentum errors of LGVI and RATTLE, h = 0.01 on [0, 1000], --quick [0, 100];
error against cost). Figures are ours; the theses' images are lost (notes/001.md §6.5), so each CSV sits
beside the stated outcome it reproduces (docs/rigid-bodies.md).
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.colors import BoundaryNorm
from matplotlib.figure import Figure

from lgbeam.diagnostics import observed_order
from lgbeam.groups.base import quat_to_matrix
from lgbeam.groups.so3 import exp_so3
from lgbeam.integrators.registry import methods_for
from lgbeam.models import orbit_attitude, rigid_body, spheres
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.studies._output import save_figure, write_csv
from lgbeam.studies.rigid_costs import measure
from lgbeam.systems import RigidBodySO3

logger = logging.getLogger(__name__)






def potential_slice(alpha: float, n: int = 161) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """U_α(exp(v)) on the plane v₂ = 0 of rotation vectors (the plane through I, R₀'s sphere S and v_m), |v| ≤ π:
    (v₁ grid, v₃ grid, U with NaN outside the ball and at the singularity R = R_m)."""
    U = rigid_body.OrtolanPotential(alpha)
    a = np.linspace(-np.pi, np.pi, n)
    V1, V3 = np.meshgrid(a, a, indexing="xy")
    v = np.stack([V1, np.zeros_like(V1), V3], axis=-1)
    R = exp_so3(v)
    mI = np.linalg.norm(R - np.eye(3), axis=(-2, -1))
    mm = np.linalg.norm(R - U.Rm, axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        val = (mI - 1.0) ** 2 - alpha / mm
    val[(np.linalg.norm(v, axis=-1) > np.pi) | ~np.isfinite(val)] = np.nan
    return V1, V3, val


def fig31_32(out: Path) -> dict[str, float]:
    """Seed 001 Figs 3.1–3.2: the potential U_α over rotation vectors, α = 0 (the first term: level sets concentric
    spheres, minimum 0 on S = {|v| = 2 arcsin(1/(2√2))}) and α = 0.3 (the attraction towards R_m = exp(v_m)).

    The thesis' images are lost (notes/001.md §6.5); the panels are the slice v₂ = 0 of the ball |v| ≤ π, which
    holds v_m and a great circle of S. Returns the checks: U_α(R₀) (note: −0.111004619719), the α = 0 minimum on
    the grid and its radius."""
    fig = Figure(figsize=(10, 4.5))
    rows: list[list[object]] = []
    checks: dict[str, float] = {}
    r_S = 2 * np.arcsin(1 / (2 * np.sqrt(2)))
    for k, alpha in enumerate((0.0, rigid_body.ORTOLAN_ALPHA)):
        V1, V3, val = potential_slice(alpha)
        ax = fig.add_subplot(1, 2, k + 1)
        levels = np.array([0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.35]) if alpha == 0 else \
            np.array([-1.5, -1.0, -0.6, -0.4, -0.2, -0.1, 0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2, 2.5, 3.3])
        cs = ax.contourf(V1, V3, np.clip(val, levels[0], levels[-1]), levels=levels, cmap="viridis",
                         norm=BoundaryNorm(levels, 256))
        fig.colorbar(cs, ax=ax, shrink=0.8)
        th = np.linspace(0, 2 * np.pi, 200)
        ax.plot(r_S * np.cos(th), r_S * np.sin(th), "w--", lw=0.8, label="S: m(R, I) = 1")
        if alpha:
            ax.plot(*np.asarray(rigid_body.ORTOLAN_VM)[[0, 2]], "r*", ms=10, label="v_m")
        ax.set_aspect("equal")
        ax.set_xlabel("v₁")
        ax.set_ylabel("v₃")
        ax.set_title(f"U_α(exp v), v₂ = 0, α = {alpha:g} (seed 001 Fig. 3.{k + 1})", fontsize=9)
        ax.legend(fontsize=7, loc="lower left")
        rows += [[alpha, a, b, c] for a, b, c in zip(V1.ravel(), V3.ravel(), val.ravel()) if np.isfinite(c)]
        if alpha == 0:
            i = np.nanargmin(val)
            checks["alpha0_min"] = float(val.ravel()[i])
            checks["alpha0_min_radius"] = float(np.hypot(V1.ravel()[i], V3.ravel()[i]))
    save_figure(fig, out / "rigid-fig3.1-3.2-potential.png", dpi=100)
    write_csv(out / "rigid-fig3.1-3.2-potential.csv", ["alpha", "v1", "v3", "U"], rows)
    body, y0 = rigid_body.ortolan_problem()
    checks["U_R0"] = body.potential(y0.q)
    checks["S_radius"] = float(r_S)
    return checks


def fig41(out: Path, quick: bool) -> list[list[object]]:
    """Energy error over time for the seven methods (seed 001 Fig. 4.1) with fitted slopes."""
    body, y0 = rigid_body.ortolan_problem()
    T, hs = (1000.0, (0.25,)) if quick else (1e4, (0.25, 0.125))
    names = methods_for(RigidBodySO3)
    fig = Figure(figsize=(10, 12))
    rows, summary = [], []
    for i, name in enumerate(names):
        for j, h in enumerate(hs):
            sol = integrate(body, name, y0, (0.0, T), controller=ConstantStep(h), save=SaveAt(every=T / 200),
                            diagnostics=False)
            dE = np.array([body.energy(R, w) for R, w in zip(sol.q, sol.v)]) - body.energy(y0.q, y0.v)
            slope = float(np.polyfit(sol.t, dE, 1)[0])
            summary.append([name, h, T, slope, float(np.abs(dE).max()), float(dE[-20:].mean() - dE[:20].mean())])
            rows += [[name, h, t, e] for t, e in zip(sol.t, dE)]
            ax = fig.add_subplot(len(names), len(hs), i * len(hs) + j + 1)
            ax.plot(sol.t, dE, lw=0.7)
            ax.set_title(f"{name}, h = {h}: slope {slope:.2e}", fontsize=8)
    save_figure(fig, out / "rigid-fig4.1-energy.png", dpi=100)
    write_csv(out / "rigid-fig4.1-energy.csv", ["method", "h", "t", "E_minus_E0"], rows)
    write_csv(out / "rigid-fig4.1-slopes.csv", ["method", "h", "T", "slope", "max_abs_dE", "window_mean_change"], summary)
    return summary


def fig42(out: Path, quick: bool) -> list[list[object]]:
    """Global errors of R and ω at T = 5 against h (seed 001 Fig. 4.2), fitted orders."""
    body, y0 = rigid_body.ortolan_problem()
    T = 5.0
    hs = 2.0 ** -np.arange(2, 6 if quick else 10)
    R, w = rigid_body.reference_solution(body, y0, np.array([T]))
    fig = Figure(figsize=(10, 4))
    axR, axw = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    rows = []
    for name in methods_for(RigidBodySO3):
        eR, ew = [], []
        for h in hs:
            y = integrate(body, name, y0, (0.0, T), controller=ConstantStep(h), save=SaveAt(steps=10**9),
                          diagnostics=False).final
            eR.append(float(np.linalg.norm(y.q - R[-1])))
            ew.append(float(np.linalg.norm(y.v - w[-1])))
            rows.append([name, h, eR[-1], ew[-1]])
        axR.loglog(hs, eR, "o-", label=f"{name} ({observed_order(hs, eR):.2f})")
        axw.loglog(hs, ew, "o-", label=f"{name} ({observed_order(hs, ew):.2f})")
    for ax, lab in ((axR, "‖R − R_ref‖_F at T = 5"), (axw, "|ω − ω_ref| at T = 5")):
        ax.set_xlabel("h")
        ax.set_ylabel(lab)
        ax.legend(fontsize=7)
    save_figure(fig, out / "rigid-fig4.2-orders.png", dpi=100)
    write_csv(out / "rigid-fig4.2-orders.csv", ["method", "h", "error_R", "error_omega"], rows)
    return rows


def costs(out: Path, quick: bool) -> list[dict[str, object]]:
    """Fig. 4.3 and Tables 7.1–7.3 / 3.1 as cost ratios (``lgbeam.studies.rigid_costs``)."""
    rows = measure(quick)
    write_csv(out / "rigid-cost-ratios.csv", list(rows[0]), [list(r.values()) for r in rows])
    fig = Figure(figsize=(10, 4))
    ax = fig.add_subplot()
    labels = [f"{r['problem']}\n{r['method']}" for r in rows]
    ax.bar(range(len(rows)), [float(str(r["ratio"])) for r in rows])
    ax.set_xticks(range(len(rows)), labels, rotation=90, fontsize=6)
    ax.set_ylabel("cost per step / reference method")
    ax.set_yscale("log")
    save_figure(fig, out / "rigid-fig4.3-cpu.png", dpi=100)
    return rows


def spheres_runs(out: Path, quick: bool) -> list[list[object]]:
    """Figs. 7.1, 7.2, 7.4, 7.5, 7.7, 7.8 (invariants over time) and 7.3, 7.6, 7.9 (orders at T = 1)."""
    T = 20.0 if quick else 200.0
    summary, rows = [], []
    methods = ("spheres-eln", "spheres-rkmk4", "spheres-rkmkgl4", "spheres-rattle")
    for make in (spheres.spherical_pendulum, spheres.double_spherical_pendulum, spheres.dipole_array):
        model, y0 = make()
        fig = Figure(figsize=(12, 3.5))
        axes = [fig.add_subplot(1, 4, k + 1) for k in range(4)]
        E0, J0 = model.energy(y0.q, y0.v), model.momentum_about(y0.q, y0.v)
        Tm = T / 10 if model.name.startswith("dipoles") else T
        for name in methods:
            sol = integrate(model, name, y0, (0.0, Tm), controller=ConstantStep(0.01), save=SaveAt(every=Tm / 200),
                            diagnostics=False)
            dE = np.array([model.energy(q, w) for q, w in zip(sol.q, sol.v)]) - E0
            nq = np.abs(np.linalg.norm(sol.q, axis=-1) - 1).max(axis=-1)
            qw = np.abs(np.einsum("tij,tij->ti", sol.q, sol.v)).max(axis=-1)
            dJ = np.array([model.momentum_about(q, w) for q, w in zip(sol.q, sol.v)]) - J0
            for ax, v in zip(axes, (dE, nq, qw, dJ)):
                ax.plot(sol.t, v, lw=0.7, label=name)
            summary.append([model.name, name, Tm, float(np.abs(dE).max()), float(dE[-1]), float(nq.max()),
                            float(qw.max()), float(np.abs(dJ).max())])
            rows += [[model.name, name, t, a, b, c, d] for t, a, b, c, d in zip(sol.t, dE, nq, qw, dJ)]
        for ax, lab in zip(axes, ("E − E₀", "max | |q_i| − 1 |", "max |q_i·ω_i|", "momentum about k − J₀")):
            ax.set_title(lab, fontsize=8)
            ax.set_xlabel("t")
        axes[0].legend(fontsize=6)
        save_figure(fig, out / f"spheres-{model.name}-invariants.png", dpi=100)
        # orders at T = 1
        qr, _ = spheres.reference_solution(model, y0, np.array([1.0]))
        hs = 2.0 ** -np.arange(4, 7 if quick else 9)
        fig = Figure(figsize=(5, 4))
        ax = fig.add_subplot()
        for name in methods:
            errs = [float(np.abs(integrate(model, name, y0, (0.0, 1.0), controller=ConstantStep(h),
                                           save=SaveAt(steps=10**9), diagnostics=False).final.q - qr[-1]).max())
                    for h in hs]
            ax.loglog(hs, errs, "o-", label=f"{name} ({observed_order(hs, errs):.2f})")
            summary.append([model.name, name, "order", observed_order(hs, errs), errs[-1], "", "", ""])
        ax.set_xlabel("h")
        ax.set_ylabel("max |q − q_ref| at T = 1")
        ax.legend(fontsize=7)
        save_figure(fig, out / f"spheres-{model.name}-orders.png", dpi=100)
    write_csv(out / "spheres-invariants.csv", ["problem", "method", "t", "dE", "norm_q_minus_1", "q_dot_omega", "dJ_k"], rows)
    write_csv(out / "spheres-summary.csv", ["problem", "method", "T_or_order", "max_abs_dE_or_order", "dE_T_or_err",
                                       "max_norm_q_minus_1", "max_q_dot_omega", "max_abs_dJ_k"], summary)
    return summary


def lgvi_runs(out: Path, quick: bool) -> list[list[object]]:
    """Figs. 3.3–3.4 (energy, unit norm, angular momentum of LGVI and RATTLE) and 3.5 (error against cost)."""
    model = orbit_attitude.BallsInCentralField()
    y0 = model.initial_state()
    T = 100.0 if quick else 1000.0
    summary: list[list[Any]] = []
    fig = Figure(figsize=(12, 6))
    for r, name in enumerate(("lgvi", "rattle-so3")):
        sol = integrate(model, name, y0, (0.0, T), controller=ConstantStep(0.01), save=SaveAt(every=1.0),
                        diagnostics=False)
        dE = np.array([model.energy(y) for y in sol.y]) - model.energy(y0)
        nq = np.abs(np.linalg.norm(sol.y[:, 3:7], axis=1) - 1)
        dL = np.array([model.angular_momentum(y) for y in sol.y]) - model.angular_momentum(y0)
        for c, (v, lab) in enumerate(((dE, "E − E₀"), (nq, "| |q| − 1 |"), (dL, "L − L₀ (components)"))):
            ax = fig.add_subplot(2, 3, 3 * r + c + 1)
            ax.plot(sol.t, v, lw=0.7)
            ax.set_title(f"{name}: {lab}", fontsize=8)
        summary.append([name, T, float(np.abs(dE).max()), float(nq.max()), float(np.abs(dL).max())])
    save_figure(fig, out / "lgvi-fig3.3-3.4.png", dpi=100)
    Tc = 10.0
    ref = orbit_attitude.reference_solution(model, y0, np.array([Tc]))[-1]
    fig = Figure(figsize=(5, 4))
    ax = fig.add_subplot()
    for name in ("lgvi", "rattle-so3", "shake-quat", "lg-stormer-verlet"):
        pts = []
        for h in (0.2, 0.1, 0.05, 0.025):
            t0 = time.perf_counter()
            y = integrate(model, name, y0, (0.0, Tc), controller=ConstantStep(h), save=SaveAt(steps=10**9),
                          diagnostics=False).final
            cpu = time.perf_counter() - t0
            err = max(np.abs(y[[0, 1, 2, 7, 8, 9, 10, 11, 12]] - ref[[0, 1, 2, 7, 8, 9, 10, 11, 12]]).max(),
                      np.abs(quat_to_matrix(y[3:7]) - quat_to_matrix(ref[3:7])).max())
            pts.append((cpu, err))
            summary.append([name, h, err, cpu, ""])
        ax.loglog(*zip(*pts), "o-", label=name)
    ax.set_xlabel("CPU time [s]")
    ax.set_ylabel("max error at T = 10")
    ax.legend(fontsize=7)
    save_figure(fig, out / "lgvi-fig3.5-work-precision.png", dpi=100)
    write_csv(out / "lgvi-summary.csv", ["method", "T_or_h", "max_abs_dE_or_error", "max_unit_norm_or_cpu_s",
                                    "max_abs_dL"], summary)
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("outputs/summary"), help="folder for CSV and PNG")
    p.add_argument("--quick", action="store_true", help="shorter horizons and fewer step sizes")
    p.add_argument("--only", default="seed001-ch4,seed001-ch7,seed003-ch3", help="comma-separated parts")
    args = p.parse_args(argv)
    parts = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = parts - {"seed001-ch4", "seed001-ch7", "seed003-ch3", "costs", "potential"}
    if unknown:
        raise ValueError(f"--only: unknown part(s) {sorted(unknown)}; choose from seed001-ch4, seed001-ch7, seed003-ch3, "
                         "costs, potential")
    args.out.mkdir(parents=True, exist_ok=True)
    if parts & {"seed001-ch4", "potential"}:
        logger.info("Figs 3.1-3.2 %s", fig31_32(args.out))
    if "seed001-ch4" in parts:
        for row in fig41(args.out, args.quick):
            logger.info("Fig 4.1 %s", row)
        fig42(args.out, args.quick)
    if "seed001-ch7" in parts:
        spheres_runs(args.out, args.quick)
    if "seed003-ch3" in parts:
        lgvi_runs(args.out, args.quick)
    if parts & {"seed001-ch4", "costs"}:
        costs(args.out, args.quick)
    print(f"figures and CSV in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
